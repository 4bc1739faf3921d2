"""Message handles: MQSETMP / MQINQMP / MQDLTMP over one handle's properties."""

from __future__ import annotations

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C


@pytest.mark.parametrize(
    ("value", "property_type", "back"),
    [
        ("blue", C.MQTYPE_STRING, "blue"),  # pymqi's MQINQMP: a string is a str (issue 35)
        (b"blue", C.MQTYPE_STRING, "blue"),
        ("\u00e9t\u00e9", C.MQTYPE_STRING, "\u00e9t\u00e9"),
        (b"\x00\x01", C.MQTYPE_BYTE_STRING, b"\x00\x01"),
        (True, C.MQTYPE_BOOLEAN, True),
        (127, C.MQTYPE_INT8, 127),
        (-32768, C.MQTYPE_INT16, -32768),
        (2**31 - 1, C.MQTYPE_INT32, 2**31 - 1),
        (2**63 - 1, C.MQTYPE_INT64, 2**63 - 1),
        (1.5, C.MQTYPE_FLOAT64, 1.5),
        (None, C.MQTYPE_NULL, None),
    ],
)
def test_a_property_comes_back_as_set(value: object, property_type: int, back: object) -> None:
    handle = pymqi.MessageHandle()
    handle.properties.set("Prop", value, property_type)
    assert handle.properties.get("Prop") == back


@pytest.mark.parametrize(
    ("value", "property_type"),
    [
        (128, C.MQTYPE_INT8),
        ("x", C.MQTYPE_INT32),
        (True, C.MQTYPE_INT32),
        (7, C.MQTYPE_STRING),
        ("x", C.MQTYPE_BYTE_STRING),
        (1, 99),
    ],
)
def test_a_value_of_another_type_is_2473(value: object, property_type: int) -> None:
    with pytest.raises(pymqi.MQMIError) as raised:
        pymqi.MessageHandle().properties.set("Prop", value, property_type)
    assert raised.value.reason == RC.PROPERTY_TYPE_ERROR


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda p: p.get("Missing"), RC.PROPERTY_NOT_AVAILABLE),
        (lambda p: p.delete("Missing"), RC.PROPERTY_NOT_AVAILABLE),
        (lambda p: p.set("has blank", "x"), RC.PROPERTY_NAME_ERROR),
        (lambda p: p.set("", "x"), RC.PROPERTY_NAME_ERROR),
    ],
)
def test_misuse_has_mqs_reason(call: object, reason: int) -> None:
    properties = pymqi.MessageHandle().properties
    with pytest.raises(pymqi.MQMIError) as raised:
        call(properties)  # type: ignore[operator]
    assert raised.value.reason == reason


def test_a_value_longer_than_asked_for_is_2469_and_items_work() -> None:
    handle = pymqi.MessageHandle()
    handle.properties["Long"] = "x" * 100
    with pytest.raises(pymqi.MQMIError) as raised:
        handle.properties.get("Long")  # pymqi's default: 64
    assert raised.value.reason == RC.PROPERTY_VALUE_TOO_BIG
    assert handle.properties.get("Long", max_value_length=100) == "x" * 100
    handle.properties["Accents"] = "\u00e9" * 40  # 80 UTF-8 bytes: over the 64 by default
    with pytest.raises(pymqi.MQMIError) as raised:
        handle.properties.get("Accents")
    assert raised.value.reason == RC.PROPERTY_VALUE_TOO_BIG
    handle.properties.delete("Long")
    with pytest.raises(pymqi.MQMIError):
        handle.properties["Long"]


def test_structures_have_mqs_defaults() -> None:
    assert (pymqi.CMHO().StrucId, pymqi.CMHO().Options) == (b"CMHO", C.MQCMHO_DEFAULT_VALIDATION)
    assert (pymqi.PD().Support, pymqi.PD().CopyOptions) == (C.MQPD_SUPPORT_OPTIONAL, 22)
    assert (pymqi.SMPO().ValueCCSID, pymqi.IMPO().Options) == (C.MQCCSI_APPL, C.MQIMPO_INQ_FIRST)
    assert pymqi.MessageHandle().msg_handle != pymqi.MessageHandle().msg_handle


def test_pymqis_own_test_message_properties_str() -> None:
    """pymqi's ``test_message_properties_str``, on one handle: set a str of MQTYPE_STRING with
    its length, get it with ``max_value_length`` its length: the same str back."""
    value = "test_valuetest_valuetest_valuetest_valuetest_value"
    handle = pymqi.MessageHandle()
    handle.properties.set(
        b"test_name", value, value_length=len(value), property_type=C.MQTYPE_STRING
    )
    assert handle.properties.get(b"test_name", max_value_length=len(value)) == value
