"""pymqi's module-level names that programs and pymqi's own test suite read: build markers,
constant modules importable by name, helpers, old spellings and base classes (issue 23)."""

from __future__ import annotations

import importlib

import pytest

import mqkafka.mqi as pymqi


def test_build_markers_say_a_client_build_of_a_current_pymqi() -> None:
    assert pymqi.__mqbuild__ == "client"  # test suites then connect with connect_tcp_client
    assert "7.0" in pymqi.__mqlevels__ and "8.0.0" in pymqi.__mqlevels__
    assert tuple(int(part) for part in pymqi.__version__.split(".")) >= (1, 12)


@pytest.mark.parametrize(
    ("module", "name", "value"),
    [
        ("CMQC", "MQOO_OUTPUT", 0x10),
        ("CMQC", "MQCA_TOPIC_STRING", 2094),
        ("CMQC", "MQDC_PROVIDED", 2),
        ("CMQCFC", "MQCMD_PING_Q_MGR", 40),
        ("CMQCFC", "MQCMD_INQUIRE_Q_MGR", 2),
        ("CMQCFC", "MQIACF_DESTINATION_CLASS", 1273),
        ("CMQCFC", "MQCA_TOPIC_STRING", 2094),
        ("CMQCFC", "MQCHK_REQUIRED", 3),
        ("CMQXC", "MQCHT_CLNTCONN", 6),
    ],
)
def test_constant_modules_import_by_name(module: str, name: str, value: int) -> None:
    imported = importlib.import_module(f"mqkafka.mqi.{module}")
    assert imported is getattr(pymqi, module)
    assert getattr(imported, name) == value


@pytest.mark.parametrize(
    ("old", "new"),
    [("md", "MD"), ("gmo", "GMO"), ("pmo", "PMO"), ("od", "OD"), ("cd", "CD"), ("sco", "SCO"),
     ("sd", "SD"), ("cmho", "CMHO"), ("pd", "PD"), ("smpo", "SMPO"), ("impo", "IMPO"),
     ("makeQDesc", "make_q_desc"), ("commonQArgs", "common_q_args")],
)  # fmt: skip
def test_old_spellings_are_the_same_objects(old: str, new: str) -> None:
    assert getattr(pymqi, old) is getattr(pymqi, new)


def test_structures_share_pymqis_base_class() -> None:
    for struct in (pymqi.MD(), pymqi.GMO(), pymqi.PMO(), pymqi.OD(), pymqi.SD(), pymqi.SRO()):
        assert isinstance(struct, pymqi.MQOpts)
    assert pymqi.SRO().Options == pymqi.CMQC.MQSRO_FAIL_IF_QUIESCING


def test_helpers_behave_as_pymqis() -> None:
    assert pymqi.ensure_bytes("Q1") == b"Q1" and pymqi.ensure_bytes(b"Q1") == b"Q1"
    assert pymqi.is_unicode("x") and not pymqi.is_unicode(b"x")
    with pytest.raises(TypeError):
        pymqi.ensure_not_unicode("text")
    assert [pymqi.padded_count(n) for n in (0, 1, 4, 5, 8)] == [0, 4, 4, 8, 8]
    assert pymqi.make_q_desc("Q1").ObjectName == b"Q1"
    md, options = pymqi.common_q_args()
    assert isinstance(md, pymqi.MD) and options is None
    assert pymqi.default.ccsid == 1208 and pymqi.default.bytes_encoding == "utf8"


def test_pcf_reasons_are_named_as_pymqi_names_them() -> None:
    error = pymqi.MQMIError(2, pymqi.CMQCFC.MQRCCF_CFH_COMMAND_ERROR)
    assert error.errorAsString() == "FAILED: MQRCCF_CFH_COMMAND_ERROR"
