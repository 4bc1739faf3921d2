"""Message properties on the wire (pure): Kafka headers and the MQRFH2 ``<usr>`` folder.

One property, two spellings that say the same, so that a raw Kafka consumer and an RFH2
application read the same properties (README, "The wire contract"):

| where | property ``name``, value ``v`` of RFH2 data type ``t`` |
|---|---|
| Kafka record headers | ``mqprop.<name>``: ``v`` as UTF-8 text; ``mqtype.<name>``: ``t`` |
| MQRFH2 ``<usr>`` folder | ``<name dt='t'>v</name>`` |

A string has no ``t`` (no ``mqtype`` header, no ``dt``), a NULL is ``t`` ``null`` (in the
folder ``xsi:nil='true'``), a dotted name is nested groups in the folder.

The text of a value is the ``<usr>`` folder's: a string as itself, integers and floats in
decimal, booleans ``true``/``false``, byte strings in hex (``bin.hex``). Properties are
``(MQTYPE_*, value)`` pairs by name, as
:class:`mqkafka.mqi.rules.properties.MessageHandle` keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Element, Folder, parse_folder, render_folder, typed_value
from mqkafka.mqi.rules import cmqc as C

Properties = dict[str, tuple[int, Any]]

PROPERTY_PREFIX = "mqprop."
TYPE_PREFIX = "mqtype."
USR = "usr"

_DT_OF: dict[int, str] = {
    C.MQTYPE_BOOLEAN: "boolean",
    C.MQTYPE_BYTE_STRING: "bin.hex",
    C.MQTYPE_INT8: "i1",
    C.MQTYPE_INT16: "i2",
    C.MQTYPE_INT32: "i4",
    C.MQTYPE_INT64: "i8",
    C.MQTYPE_FLOAT32: "r4",
    C.MQTYPE_FLOAT64: "r8",
    C.MQTYPE_NULL: "null",
}
_TYPE_OF: dict[str, int] = {dt: kind for kind, dt in _DT_OF.items()} | {"int": C.MQTYPE_INT64}


def value_text(kind: int, value: Any) -> str | None:
    """The ``<usr>`` text of a property value (None for a NULL)."""
    if kind == C.MQTYPE_NULL or value is None:
        return None
    if kind == C.MQTYPE_BOOLEAN:
        return "true" if value else "false"
    if kind == C.MQTYPE_BYTE_STRING:
        return bytes(value).hex()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _typed(kind: int, text: str | None) -> Any:
    """The value of ``text`` read as ``kind`` (through the RFH2 reader's ``dt`` rules)."""
    if kind == C.MQTYPE_NULL or text is None:
        return None
    if kind == C.MQTYPE_STRING:
        return text.encode()  # pymqi gives string properties back as bytes
    return typed_value(Element("v", text, (("dt", _DT_OF[kind]),)))


def _usr_name(name: str) -> str:
    """``usr.a`` and ``a`` are the same property: MQ files unprefixed names under ``usr``."""
    return name[4:] if name.startswith("usr.") else name


# ---- Kafka headers -----------------------------------------------------------------------


def to_headers(properties: Mapping[str, tuple[int, Any]]) -> list[tuple[str, bytes]]:
    headers: list[tuple[str, bytes]] = []
    for name, (kind, value) in properties.items():
        key = _usr_name(name)
        text = value_text(kind, value)
        headers.append((PROPERTY_PREFIX + key, b"" if text is None else text.encode()))
        if kind != C.MQTYPE_STRING:
            headers.append((TYPE_PREFIX + key, _DT_OF[kind].encode()))
    return headers


def has_properties(fields: Iterable[str]) -> bool:
    return any(name.startswith(PROPERTY_PREFIX) for name in fields)


def from_headers(fields: Mapping[str, bytes | None]) -> Properties:
    """The properties among a record's headers (first value of each name). A value that does
    not read as its ``mqtype`` says is taken as a string: a header is never an error."""
    found: Properties = {}
    for header, raw in fields.items():
        if not header.startswith(PROPERTY_PREFIX):
            continue
        name = header[len(PROPERTY_PREFIX) :]
        text = (raw or b"").decode("utf-8", "replace")
        dt = (fields.get(TYPE_PREFIX + name) or b"").decode("ascii", "replace")
        kind = _TYPE_OF.get(dt, C.MQTYPE_STRING)
        try:
            found[name] = (kind, _typed(kind, text))
        except MQError:
            found[name] = (C.MQTYPE_STRING, text.encode())
    return found


# ---- the <usr> folder --------------------------------------------------------------------


def usr_folder(properties: Mapping[str, tuple[int, Any]]) -> str:
    """The ``<usr>`` folder of ``properties`` (dotted names as nested groups)."""
    tree: dict[str, Any] = {}
    for name, (kind, value) in properties.items():
        *groups, leaf = _usr_name(name).split(".")
        node = tree
        for group in groups:
            child = node.setdefault(group, {})
            if not isinstance(child, dict):
                break  # a value already has this name: the value stays
            node = child
        else:
            if leaf not in node:
                node[leaf] = (kind, value)
    return render_folder(Folder(USR, _elements(tree)))


def _elements(tree: dict[str, Any]) -> tuple[Element, ...]:
    out: list[Element] = []
    for name, node in tree.items():
        if isinstance(node, dict):
            out.append(Element(name, children=_elements(node)))
            continue
        kind, value = node
        text = value_text(kind, value)
        if text is None:
            out.append(Element(name, attrs=(("xsi:nil", "true"),)))
        elif kind == C.MQTYPE_STRING:
            out.append(Element(name, text))
        else:
            out.append(Element(name, text, (("dt", _DT_OF[kind]),)))
    return tuple(out)


def from_usr(text: str) -> Properties:
    """The properties of one ``<usr>`` folder; an unreadable folder or value is skipped (a
    delivered message is never refused for its properties)."""
    try:
        folder = parse_folder(text)
    except MQError:
        return {}
    found: Properties = {}
    for element, path in folder.leaves():
        dt = element.attr("dt")
        if element.attr("xsi:nil") == "true":
            found[path] = (C.MQTYPE_NULL, None)
            continue
        kind = _TYPE_OF.get(dt or "", C.MQTYPE_STRING)
        try:
            value = typed_value(element)
        except MQError:
            continue
        if kind == C.MQTYPE_STRING:
            value = str(value or "").encode()
        found[path] = (kind, value)
    return found


def is_usr(folder_text: str | bytes) -> bool:
    text = folder_text.decode("utf-8", "replace") if isinstance(folder_text, bytes) else folder_text
    return text.lstrip().startswith("<usr>") or text.lstrip().startswith("<usr ")


__all__ = [
    "PROPERTY_PREFIX",
    "TYPE_PREFIX",
    "Properties",
    "from_headers",
    "from_usr",
    "has_properties",
    "is_usr",
    "to_headers",
    "usr_folder",
    "value_text",
]
