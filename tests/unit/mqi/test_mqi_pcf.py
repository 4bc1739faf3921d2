"""PCFExecute's pure parts: parameters in pymqi's two forms, filters, unknown commands."""

from __future__ import annotations

from typing import Any

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import CMQCFC as F
from mqkafka.mqi.kafkaqm.pcf import _params, _passes


def test_dict_and_structure_parameters_are_the_same() -> None:
    structures = [
        pymqi.CFST(Parameter=C.MQCA_Q_NAME, String=b"Q1"),
        pymqi.CFIN(Parameter=C.MQIA_Q_TYPE, Value=C.MQQT_LOCAL),
        pymqi.CFIL(Parameter=F.MQIACF_Q_ATTRS, Values=[C.MQIA_CURRENT_Q_DEPTH]),
    ]
    as_dict = {
        C.MQCA_Q_NAME: b"Q1",
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        F.MQIACF_Q_ATTRS: [C.MQIA_CURRENT_Q_DEPTH],
    }
    assert _params(structures) == _params(as_dict) == as_dict
    with pytest.raises(pymqi.PYIFError):
        _params([object()])


ROW = {C.MQIA_CURRENT_Q_DEPTH: 3, C.MQCA_Q_DESC: b"orders of the day".ljust(64)}


@pytest.mark.parametrize(
    "made, passes",
    [
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).greater(0), True),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).greater(3), False),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).greater_or_equal(3), True),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).less(3), False),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).less_or_equal(3), True),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).equal(3), True),
        (pymqi.Filter(C.MQIA_CURRENT_Q_DEPTH).not_equal(3), False),
        (pymqi.Filter(C.MQCA_Q_DESC).like(b"orders*"), True),
        (pymqi.Filter(C.MQCA_Q_DESC).not_like(b"orders*"), False),
        (pymqi.Filter(C.MQCA_Q_DESC).equal("orders of the day"), True),
        (pymqi.Filter(C.MQIA_MAX_Q_DEPTH).greater(0), False),  # not in the row
    ],
)
def test_filters_as_pymqi_builds_them(made: Any, passes: bool) -> None:
    assert _passes(ROW, [made]) is passes


def test_an_unknown_operator_and_an_unknown_command_are_pcf_errors() -> None:
    bad = pymqi.CFIF(Parameter=C.MQIA_CURRENT_Q_DEPTH, Operator=99, FilterValue=0)
    with pytest.raises(pymqi.MQMIError) as raised:
        _passes(ROW, [bad])
    assert raised.value.reason == F.MQRCCF_CFIF_OPERATOR_ERROR
    pcf = pymqi.PCFExecute(object())
    with pytest.raises(pymqi.MQMIError) as raised:
        pcf.MQCMD_INQUIRE_CHANNEL({})
    assert raised.value.reason == F.MQRCCF_CFH_COMMAND_ERROR
    with pytest.raises(pymqi.PYIFError):
        pymqi.PCFExecute("QM1")  # pymqi's by-name form needs a connection here
