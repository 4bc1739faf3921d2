"""MQMIError like pymqi's, one exception root, and CMQC constants with MQ's real values."""

from __future__ import annotations

import pytest

from mqkafka.mq import mqmd
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC, MQMIError
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules import cmqcfc


def test_mqmierror_carries_completion_code_and_reason_like_pymqi() -> None:
    error = MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_OPTIONS_ERROR)
    assert (error.comp, error.reason) == (2, 2046)
    assert error.errorAsString() == "FAILED: MQRC_OPTIONS_ERROR"
    assert str(error) == "MQI Error. Comp: 2, Reason 2046: FAILED: MQRC_OPTIONS_ERROR"
    assert isinstance(error, MQError)


@pytest.mark.parametrize(
    ("comp", "reason", "text"),
    [
        (0, 0, "OK"),
        (1, 2079, "WARNING: MQRC_TRUNCATED_MSG_ACCEPTED"),
        (2, 2052, "FAILED: MQRC_Q_DELETED"),
        (2, 3078, "FAILED: MQRCCF_DUPLICATE_IDENTITY"),
    ],
)
def test_error_as_string(comp: int, reason: int, text: str) -> None:
    assert MQMIError(comp, reason).errorAsString() == text


def test_detail_is_appended_for_people() -> None:
    error = MQMIError(2, 2011, "'*' after position 33")
    assert str(error).endswith("(" + "'*' after position 33" + ")")
    assert error.detail == "'*' after position 33"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        # §9.1
        ("MQCC_OK", 0), ("MQCC_WARNING", 1), ("MQCC_FAILED", 2), ("MQCC_UNKNOWN", -1),
        # §9.2 MQOPEN
        ("MQOO_INPUT_AS_Q_DEF", 0x1), ("MQOO_INPUT_SHARED", 0x2), ("MQOO_INPUT_EXCLUSIVE", 0x4),
        ("MQOO_BROWSE", 0x8), ("MQOO_OUTPUT", 0x10), ("MQOO_INQUIRE", 0x20), ("MQOO_SET", 0x40),
        ("MQOO_SAVE_ALL_CONTEXT", 0x80), ("MQOO_PASS_IDENTITY_CONTEXT", 0x100),
        ("MQOO_PASS_ALL_CONTEXT", 0x200), ("MQOO_SET_IDENTITY_CONTEXT", 0x400),
        ("MQOO_SET_ALL_CONTEXT", 0x800), ("MQOO_ALTERNATE_USER_AUTHORITY", 0x1000),
        ("MQOO_FAIL_IF_QUIESCING", 0x2000), ("MQOO_BIND_ON_OPEN", 0x4000),
        ("MQOO_BIND_NOT_FIXED", 0x8000), ("MQOO_CO_OP", 0x20000),
        ("MQOO_RESOLVE_LOCAL_Q", 0x40000), ("MQOO_NO_READ_AHEAD", 0x80000),
        ("MQOO_READ_AHEAD", 0x100000), ("MQOO_NO_MULTICAST", 0x200000),
        ("MQOO_BIND_ON_GROUP", 0x400000), ("MQOO_BIND_AS_Q_DEF", 0),
        ("MQOO_READ_AHEAD_AS_Q_DEF", 0),
        # §9.2 MQPUT
        ("MQPMO_SYNCPOINT", 0x2), ("MQPMO_NO_SYNCPOINT", 0x4), ("MQPMO_DEFAULT_CONTEXT", 0x20),
        ("MQPMO_NEW_MSG_ID", 0x40), ("MQPMO_NEW_CORREL_ID", 0x80),
        ("MQPMO_ALTERNATE_USER_AUTHORITY", 0x1000), ("MQPMO_NO_CONTEXT", 0x4000),
        ("MQPMO_LOGICAL_ORDER", 0x8000), ("MQPMO_ASYNC_RESPONSE", 0x10000),
        ("MQPMO_SYNC_RESPONSE", 0x20000), ("MQPMO_WARN_IF_NO_SUBS_MATCHED", 0x80000),
        ("MQPMO_RETAIN", 0x200000), ("MQPMO_NOT_OWN_SUBS", 0x10000000),
        ("MQPMO_RESPONSE_AS_Q_DEF", 0), ("MQPMO_RESPONSE_AS_TOPIC_DEF", 0), ("MQPMO_NONE", 0),
        # §9.2 MQGET
        ("MQGMO_WAIT", 0x1), ("MQGMO_NO_WAIT", 0), ("MQGMO_SYNCPOINT", 0x2),
        ("MQGMO_NO_SYNCPOINT", 0x4), ("MQGMO_SET_SIGNAL", 0x8), ("MQGMO_BROWSE_FIRST", 0x10),
        ("MQGMO_BROWSE_NEXT", 0x20), ("MQGMO_ACCEPT_TRUNCATED_MSG", 0x40),
        ("MQGMO_MARK_SKIP_BACKOUT", 0x80), ("MQGMO_MSG_UNDER_CURSOR", 0x100),
        ("MQGMO_LOCK", 0x200), ("MQGMO_UNLOCK", 0x400), ("MQGMO_BROWSE_MSG_UNDER_CURSOR", 0x800),
        ("MQGMO_SYNCPOINT_IF_PERSISTENT", 0x1000), ("MQGMO_FAIL_IF_QUIESCING", 0x2000),
        ("MQGMO_CONVERT", 0x4000), ("MQGMO_COMPLETE_MSG", 0x10000),
        ("MQGMO_PROPERTIES_COMPATIBILITY", 0x10000000), ("MQGMO_PROPERTIES_AS_Q_DEF", 0),
        ("MQMO_MATCH_MSG_ID", 0x1), ("MQMO_MATCH_CORREL_ID", 0x2), ("MQMO_MATCH_GROUP_ID", 0x4),
        ("MQMO_MATCH_MSG_SEQ_NUMBER", 0x8), ("MQMO_MATCH_OFFSET", 0x10),
        ("MQMO_MATCH_MSG_TOKEN", 0x20), ("MQMO_NONE", 0), ("MQWI_UNLIMITED", -1),
        # §9.2 MQCLOSE
        ("MQCO_NONE", 0), ("MQCO_IMMEDIATE", 0), ("MQCO_DELETE", 0x1),
        ("MQCO_DELETE_PURGE", 0x2), ("MQCO_KEEP_SUB", 0x4), ("MQCO_REMOVE_SUB", 0x8),
        ("MQCO_QUIESCE", 0x20),
        # §9.2 MQSUB
        ("MQSO_ALTER", 0x1), ("MQSO_CREATE", 0x2), ("MQSO_RESUME", 0x4), ("MQSO_DURABLE", 0x8),
        ("MQSO_GROUP_SUB", 0x10), ("MQSO_MANAGED", 0x20), ("MQSO_SET_IDENTITY_CONTEXT", 0x40),
        ("MQSO_NO_MULTICAST", 0x80), ("MQSO_FIXED_USERID", 0x100), ("MQSO_ANY_USERID", 0x200),
        ("MQSO_PUBLICATIONS_ON_REQUEST", 0x800), ("MQSO_NEW_PUBLICATIONS_ONLY", 0x1000),
        ("MQSO_FAIL_IF_QUIESCING", 0x2000), ("MQSO_ALTERNATE_USER_AUTHORITY", 0x40000),
        ("MQSO_WILDCARD_CHAR", 0x100000), ("MQSO_WILDCARD_TOPIC", 0x200000),
        ("MQSO_SET_CORREL_ID", 0x400000), ("MQSO_SCOPE_QMGR", 0x4000000),
        ("MQSO_NO_READ_AHEAD", 0x8000000), ("MQSO_READ_AHEAD", 0x10000000),
        ("MQSO_NON_DURABLE", 0), ("MQSO_READ_AHEAD_AS_Q_DEF", 0), ("MQSO_NONE", 0),
        ("MQWS_DEFAULT", 0), ("MQWS_CHAR", 1), ("MQWS_TOPIC", 2),
        # §9.2 queue, definition and object types
        ("MQQT_LOCAL", 1), ("MQQT_MODEL", 2), ("MQQT_ALIAS", 3), ("MQQT_REMOTE", 6),
        ("MQQT_CLUSTER", 7), ("MQQDT_PREDEFINED", 1), ("MQQDT_PERMANENT_DYNAMIC", 2),
        ("MQQDT_TEMPORARY_DYNAMIC", 3), ("MQQDT_SHARED_DYNAMIC", 4),
        ("MQIA_DEFINITION_TYPE", 7), ("MQOT_Q", 1), ("MQOT_NAMELIST", 2), ("MQOT_Q_MGR", 5),
        ("MQOT_TOPIC", 8),
        # §9.4 reason codes, through the CMQC names
        ("MQRC_NONE", 0), ("MQRC_DYNAMIC_Q_NAME_ERROR", 2011), ("MQRC_HOBJ_ERROR", 2019),
        ("MQRC_OPTIONS_ERROR", 2046), ("MQRC_PERSISTENT_NOT_ALLOWED", 2048),
        ("MQRC_Q_DELETED", 2052), ("MQRC_Q_NOT_EMPTY", 2055), ("MQRC_UNKNOWN_OBJECT_NAME", 2085),
        ("MQRC_OBJECT_ALREADY_EXISTS", 2100), ("MQRC_TRUNCATED_MSG_FAILED", 2080),
        ("MQRCCF_DUPLICATE_IDENTITY", 3078),
    ],
)  # fmt: skip
def test_constant_has_mq_real_value(name: str, value: int) -> None:
    assert getattr(CMQC, name) == value


def test_every_reason_code_has_its_cmqcfc_name() -> None:
    # CMQCFC: CMQC and the PCF reasons (MQRCCF_PARM_MISSING ...) that only pymqi's CMQCFC has
    for member in RC:
        prefix = "MQRCCF_" + member.name[3:] if member.name.startswith("CF_") else None
        name = prefix or "MQRC_" + member.name
        assert getattr(cmqcfc, name) is member, name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MQMT_DATAGRAM", 8),
        ("MQMT_REQUEST", 1),
        ("MQMT_REPLY", 2),
        ("MQPER_NOT_PERSISTENT", 0),
        ("MQPER_PERSISTENT", 1),
        ("MQPER_PERSISTENCE_AS_Q_DEF", 2),
        ("MQENC_NATIVE", 546),
        ("MQRO_PASS_CORREL_ID", 0x40),
        ("MQEI_UNLIMITED", -1),
        ("MQFMT_NONE", b"        "),
        ("MQFMT_STRING", b"MQSTR   "),
        ("MQFMT_RF_HEADER_2", b"MQHRF2  "),
        ("MQCI_NONE", bytes(24)),
        ("MQMD_STRUC_ID", b"MD  "),
    ],
)
def test_mqmd_values_come_from_mq_mqmd_in_pymqi_spelling(name: str, value: object) -> None:
    """CMQC re-exports mq.mqmd (one definition); character constants are bytes, as pymqi's."""
    assert getattr(CMQC, name) == value
    family, member = name.split("_", 1)  # MQMT_DATAGRAM is mqmd.MQMT.DATAGRAM
    own = getattr(mqmd, name) if hasattr(mqmd, name) else getattr(getattr(mqmd, family), member)
    assert (own.encode() if isinstance(own, str) else own) == value


def test_cmqc_is_the_constants_module() -> None:
    assert CMQC is C
