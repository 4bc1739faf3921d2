"""``name_of`` names every reason the MQI and PCF raise, as pymqi's CMQC and CMQCFC name them
(``MQMIError.errorAsString``, logs and the CLI all print through it: an unnamed code came out
as ``MQRC_<number>``)."""

from __future__ import annotations

import pytest

from mqkafka.mq.reasons import RC, name_of
from mqkafka.mqi import MQMIError
from mqkafka.mqi.rules import cmqcfc

# Every reason name the package's CMQCFC defines (a superset of its CMQC, as in pymqi).
DEFINED = sorted(
    (name, int(value))
    for name, value in vars(cmqcfc).items()
    if name.startswith(("MQRC_", "MQRCCF_"))
)

PCF = [  # what PCFExecute answers (values of pymqi's CMQCFC)
    (3007, "MQRCCF_CFH_COMMAND_ERROR"),
    (3200, "MQRCCF_NONE_FOUND"),
    (3228, "MQRCCF_PARM_MISSING"),
    (3242, "MQRCCF_CFIF_OPERATOR_ERROR"),
    (4001, "MQRCCF_OBJECT_ALREADY_EXISTS"),
    (4002, "MQRCCF_OBJECT_WRONG_TYPE"),
    (4004, "MQRCCF_OBJECT_OPEN"),
    (4005, "MQRCCF_ATTR_VALUE_ERROR"),
    (4007, "MQRCCF_Q_WRONG_TYPE"),
]
OTHERS = [  # the MQI's own and the queued pub/sub commands'
    (0, "MQRC_NONE"),
    (2046, "MQRC_OPTIONS_ERROR"),
    (2067, "MQRC_SELECTOR_ERROR"),
    (2139, "MQRC_CNO_ERROR"),
    (3073, "MQRCCF_NOT_REGISTERED"),
    (3078, "MQRCCF_DUPLICATE_IDENTITY"),
]


@pytest.mark.parametrize(("code", "name"), PCF + OTHERS)
def test_name_of_a_reason(code: int, name: str) -> None:
    assert name_of(code) == name
    assert MQMIError(2, code).errorAsString() == f"FAILED: {name}"


@pytest.mark.parametrize(("name", "code"), DEFINED, ids=[name for name, _ in DEFINED])
def test_every_reason_cmqcfc_defines_is_named_by_name_of(name: str, code: int) -> None:
    assert name_of(code) == name


@pytest.mark.parametrize("member", list(RC), ids=[member.name for member in RC])
def test_every_reason_code_is_defined_in_cmqcfc_under_its_name(member: RC) -> None:
    assert getattr(cmqcfc, name_of(member)) is member


def test_a_code_mq_does_not_have_here_keeps_its_number() -> None:
    assert name_of(9999) == "MQRC_9999"
