"""Message handles and their properties (MQCRTMH, MQSETMP, MQINQMP, MQDLTMP), as pymqi has them.

``MessageHandle(qmgr).properties.set(name, value, property_type)`` and ``.get(name)`` keep
the properties of one message handle, typed as MQ types them (``MQTYPE_*``); a name that is
not there is MQRC_PROPERTY_NOT_AVAILABLE (2471), a value that does not fit
``max_value_length`` MQRC_PROPERTY_VALUE_TOO_BIG (2469).

MQPUT takes a handle's properties from ``PMO.OriginalMsgHandle`` and MQGET fills the handle
named by ``GMO.MsgHandle`` (the numbers are looked up in :func:`message_handle`); how they sit
on Kafka is :mod:`mqkafka.mqi.rules.propwire`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import MQMIError, failed
from mqkafka.mqi.rules.structs import MQStruct, _chars


@dataclass(init=False)
class CMHO(MQStruct):
    """MQCMHO, the create-message-handle options."""

    _reason: ClassVar[int] = RC.CMHO_ERROR

    StrucId: bytes = _chars(4, C.MQCMHO_STRUC_ID)
    Version: int = C.MQCMHO_VERSION_1
    Options: int = C.MQCMHO_DEFAULT_VALIDATION


@dataclass(init=False)
class PD(MQStruct):
    """MQPD, the property descriptor."""

    _reason: ClassVar[int] = RC.PD_ERROR

    StrucId: bytes = _chars(4, C.MQPD_STRUC_ID)
    Version: int = C.MQPD_VERSION_1
    Options: int = C.MQPD_NONE
    Support: int = C.MQPD_SUPPORT_OPTIONAL
    Context: int = C.MQPD_NO_CONTEXT
    CopyOptions: int = C.MQCOPY_DEFAULT


@dataclass(init=False)
class SMPO(MQStruct):
    """MQSMPO, the set-message-property options."""

    _reason: ClassVar[int] = RC.SMPO_ERROR

    StrucId: bytes = _chars(4, C.MQSMPO_STRUC_ID)
    Version: int = C.MQSMPO_VERSION_1
    Options: int = C.MQSMPO_SET_FIRST
    ValueEncoding: int = C.MQENC_NATIVE
    ValueCCSID: int = C.MQCCSI_APPL


@dataclass(init=False)
class IMPO(MQStruct):
    """MQIMPO, the inquire-message-property options."""

    _reason: ClassVar[int] = RC.IMPO_ERROR

    StrucId: bytes = _chars(4, C.MQIMPO_STRUC_ID)
    Version: int = C.MQIMPO_VERSION_1
    Options: int = C.MQIMPO_INQ_FIRST
    RequestedEncoding: int = C.MQENC_NATIVE
    RequestedCCSID: int = C.MQCCSI_APPL
    ReturnedEncoding: int = C.MQENC_NATIVE
    ReturnedCCSID: int = 0
    Reserved1: int = 0
    TypeString: bytes = _chars(8)


cmho, pd, smpo, impo = CMHO, PD, SMPO, IMPO

_INT_RANGES = {
    C.MQTYPE_INT8: 8,
    C.MQTYPE_INT16: 16,
    C.MQTYPE_INT32: 32,
    C.MQTYPE_INT64: 64,
}


def typed(name: str, value: Any, property_type: int) -> Any:
    """``value`` as a property of ``property_type`` holds it; MQRC_PROPERTY_TYPE_ERROR
    (2473) when it cannot be one."""
    bad = MQMIError(C.MQCC_FAILED, RC.PROPERTY_TYPE_ERROR, f"{name}: {value!r}")
    if property_type == C.MQTYPE_STRING:
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode()
        raise bad
    if property_type == C.MQTYPE_BYTE_STRING:
        if isinstance(value, bytes | bytearray):
            return bytes(value)
        raise bad
    if property_type == C.MQTYPE_BOOLEAN:
        if isinstance(value, bool | int):
            return bool(value)
        raise bad
    if property_type in _INT_RANGES:
        bits = _INT_RANGES[property_type]
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise bad
        return value
    if property_type in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad
        return float(value)
    if property_type == C.MQTYPE_NULL:
        return None
    raise bad


def as_returned(kind: int, value: Any) -> Any:
    """A property's value as pymqi returns it: a string as ``str`` (kept as UTF-8 bytes)."""
    if kind == C.MQTYPE_STRING and isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def check_name(name: str | bytes) -> str:
    """A property name: non-empty, no blanks (MQRC_PROPERTY_NAME_ERROR, 2442)."""
    text = name.decode() if isinstance(name, bytes) else name
    if not isinstance(text, str) or not text or any(ch.isspace() for ch in text):
        raise failed(RC.PROPERTY_NAME_ERROR, f"property name {name!r}")
    return text


_handles = itertools.count(1)
# hmsg -> its MessageHandle. PMO and GMO name a handle by number only, and a pymqi program
# may keep nothing else (``PMO(OriginalMsgHandle=MessageHandle(qmgr).msg_handle)``), so a
# handle lives, as in MQ, until MQDLTMH (``MessageHandle.dlt``) or its connection's MQDISC.
_live: dict[int, MessageHandle] = {}


def message_handle(hmsg: int) -> MessageHandle | None:
    """The live handle numbered ``hmsg`` (None for 0, MQHM_NONE, or one deleted)."""
    return _live.get(hmsg) if hmsg else None


def forget_connection(hconn: int) -> None:
    """MQDISC: the connection's message handles go with it."""
    for hmsg in [h for h, handle in _live.items() if handle.conn_handle == hconn]:
        del _live[hmsg]


class MessageHandle:
    """pymqi's ``MessageHandle``: ``msg_handle`` is the hmsg, ``properties`` its properties."""

    default_value_length = 64  # pymqi's: how much of a value MQINQMP returns unless told

    class _Properties:
        def __init__(self, conn_handle: int, msg_handle: int) -> None:
            self.conn_handle = conn_handle
            self.msg_handle = msg_handle
            self.values: dict[str, tuple[int, Any]] = {}

        def set(
            self,
            name: str | bytes,
            value: Any,
            property_type: int = C.MQTYPE_STRING,
            value_length: int = C.MQVL_NULL_TERMINATED,
            pd: PD | None = None,
            smpo: SMPO | None = None,
        ) -> None:
            """MQSETMP."""
            key = check_name(name)
            stored = typed(key, value, property_type)
            if value_length >= 0 and isinstance(stored, bytes):
                stored = stored[:value_length]
            self.values[key] = (property_type, stored)

        def get(
            self,
            name: str | bytes,
            default: Any = None,
            max_value_length: int | None = None,
            impo_options: int = C.MQIMPO_INQ_FIRST,
            pd: Any = C.MQPD_NONE,
            property_type: int = C.MQTYPE_AS_SET,
        ) -> Any:
            """MQINQMP: the value as set (2471 when there is none); a string as ``str``, as
            pymqi's MQINQMP returns it (its C extension builds it with ``s#``, and its
            ``test_message_properties_str`` compares it to the ``str`` it set); a byte
            string as ``bytes``. The length limit counts the UTF-8 bytes, as MQ does."""
            key = check_name(name)
            found = self.values.get(key)
            if found is None:
                raise MQMIError(C.MQCC_FAILED, RC.PROPERTY_NOT_AVAILABLE, key)
            kind, value = found
            if property_type not in (C.MQTYPE_AS_SET, kind):
                kind, value = property_type, typed(key, value, property_type)
            limit = max_value_length or MessageHandle.default_value_length
            if isinstance(value, bytes) and len(value) > limit:
                raise MQMIError(C.MQCC_FAILED, RC.PROPERTY_VALUE_TOO_BIG, key)
            return as_returned(kind, value)

        def delete(self, name: str | bytes) -> None:
            """MQDLTMP (2471 when there is no such property)."""
            key = check_name(name)
            if self.values.pop(key, None) is None:
                raise MQMIError(C.MQCC_FAILED, RC.PROPERTY_NOT_AVAILABLE, key)

        def __getitem__(self, name: str) -> Any:
            value = self.get(name)
            if not value:
                raise KeyError(f"No such property [{name}]")
            return value

        def __setitem__(self, name: str, value: Any) -> None:
            self.set(name, value)

    def __init__(self, qmgr: Any = None, cmho: CMHO | None = None) -> None:
        """MQCRTMH: a handle of ``qmgr``'s connection (MQHC_UNUSABLE_HCONN without one)."""
        self.conn_handle = qmgr.get_handle() if qmgr is not None else C.MQHC_UNUSABLE_HCONN
        self.cmho = cmho if cmho is not None else CMHO()
        self.msg_handle = next(_handles)
        self.properties = self._Properties(self.conn_handle, self.msg_handle)
        _live[self.msg_handle] = self

    def dlt(self) -> None:
        """MQDLTMH: the number names no handle any more (MQRC_HMSG_ERROR where used)."""
        _live.pop(self.msg_handle, None)

    def get_all_properties(self) -> dict[str, Any]:
        """Every property by name, with its value as MQINQMP returns it."""
        return {
            name: as_returned(kind, value) for name, (kind, value) in self.properties.values.items()
        }


__all__ = [
    "CMHO",
    "IMPO",
    "PD",
    "SMPO",
    "MessageHandle",
    "as_returned",
    "check_name",
    "cmho",
    "forget_connection",
    "impo",
    "message_handle",
    "pd",
    "smpo",
    "typed",
]
