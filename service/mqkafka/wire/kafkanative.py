"""Kafka-native records (issue 37): publications as event platforms read and write them.

A queue whose message format is KAFKA (the catalogue's ``message_format``) holds each
publication as the publisher's data alone; what MQ puts in the MQRFH2 is in record headers:

| header | value |
|---|---|
| ``mqmd.*`` | the copy's MQMD (wire contract §2), Format/Encoding/CodedCharSetId the data's |
| ``mqpsc.Topic`` | the topic string (UTF-8) |
| ``mqpsc.<Tag>`` | the other ``<psc>`` tags the broker adds (``PubOpt`` ``IsRetainedPub``, ...) |
| ``mqprop.<name>``, ``mqtype.<name>`` | the publication's properties (its ``<usr>`` folder) |

Tags given more than once (options) are one header, values joined by ``,``: a writer never
writes a header twice. A reply to such a queue is no data, with the ``<pscr>`` tags as
``mqpscr.<Tag>`` headers. The publisher's other folders (``mcd``, ``jms``) are MQ's own and
are not carried.

The other way, a record put to a stream queue with no MQRFH2/MQRFH (its ``mqmd.Format`` is
not one) but with ``mqpsc.*`` headers is a Publish of its value: the ``<psc>`` is those
headers (Command Publish unless one says otherwise; ``,`` separates the values of an
``...Opt`` tag), its properties the ``mqprop.*`` headers, its MQMD the ``mqmd.*`` headers.

The ``<usr>`` folder and the ``mqprop.*`` headers are the same text and type either way
(``mqi.rules.propwire`` reads and writes them as typed values for the MQI; here they are
only carried, so no value is converted).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Final

from mqkafka.engine.effects import Deliver, Reply
from mqkafka.mq.commands import Interface, PublicationContent
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Element, Folder, parse_folder, render_folder
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC

PSC_PREFIX: Final = "mqpsc."
PSCR_PREFIX: Final = "mqpscr."
TOPIC_HEADER: Final = PSC_PREFIX + "Topic"
PROPERTY_PREFIX: Final = "mqprop."
TYPE_PREFIX: Final = "mqtype."
_NIL: Final = "null"  # the mqtype of a NULL property (xsi:nil in the folder)
_RFH1_TAG: Final = "MQPS"  # RFH1 names its tags MQPSTopic...: the header is the RFH2 name

Headers = list[tuple[str, bytes]]


# ---- out: a copy for a Kafka-native queue ------------------------------------------------------


def native_delivery(deliver: Deliver) -> tuple[MQMD, bytes, Headers]:
    """A publication copy as (MQMD, record value, headers after the MQMD's): the data alone,
    the MQMD describing it as the publisher's header did."""
    content = deliver.content
    md = deliver.md
    ccsid = content.ccsid if content.ccsid > 0 else md.CodedCharSetId
    md = md.replace(Format=content.format, Encoding=content.encoding, CodedCharSetId=ccsid)
    headers = psc_headers(deliver.psc, deliver.interface)
    headers.extend(content_properties(content))
    return md, content.body, headers


def native_reply(reply: Reply) -> tuple[MQMD, bytes, Headers]:
    """A response as (MQMD, empty value, ``mqpscr.*`` headers)."""
    md = reply.md.replace(Format="")
    if reply.interface is Interface.RFH2:
        pairs = parse_folder(reply.response.pscr_text()).pairs()
    else:
        pairs = [(_tag(name), value) for name, value in reply.response.to_rfh1_pairs()]
    return md, b"", _joined(PSCR_PREFIX, pairs)


def psc_headers(psc: Iterable[tuple[str, str]], interface: Interface) -> Headers:
    """The broker's pub/sub tags as ``mqpsc.*`` headers (Command, always Publish, left out)."""
    if interface is Interface.RFH1:
        psc = [(_tag(name), _tag(value) if name.endswith("Opt") else value) for name, value in psc]
    return _joined(PSC_PREFIX, [(name, value) for name, value in psc if name != "Command"])


def _tag(name: str) -> str:
    return name[len(_RFH1_TAG) :] if name.startswith(_RFH1_TAG) else name


def _joined(prefix: str, pairs: Iterable[tuple[str, str]]) -> Headers:
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    return [(prefix + name, ",".join(found).encode()) for name, found in values.items()]


def content_properties(content: PublicationContent) -> Headers:
    """The publication's properties as ``mqprop.*``/``mqtype.*`` headers: its ``<usr>`` folder
    (RFH2), or its user name/value pairs (RFH1, strings)."""
    headers: Headers = []
    for text in content.folders:
        if text.lstrip().startswith(("<usr>", "<usr ")):
            headers.extend(_usr_headers(text))
    for name, value in content.name_values:
        if not name.startswith(_RFH1_TAG):
            headers.append((PROPERTY_PREFIX + name, value.encode()))
    return headers


@functools.lru_cache(maxsize=4096)  # publishers repeat their properties; plans keep copies
def _usr_headers(text: str) -> tuple[tuple[str, bytes], ...]:
    try:
        folder = parse_folder(text)
    except MQError:
        return ()  # as the MQI reads an unreadable folder: no properties, the copy still goes
    headers: Headers = []
    for element, path in folder.leaves():
        if element.attr("xsi:nil") == "true":
            headers += [(PROPERTY_PREFIX + path, b""), (TYPE_PREFIX + path, _NIL.encode())]
            continue
        headers.append((PROPERTY_PREFIX + path, (element.value or "").encode()))
        dt = element.attr("dt")
        if dt:
            headers.append((TYPE_PREFIX + path, dt.encode()))
    return tuple(headers)


# ---- in: a Publish from headers ---------------------------------------------------------------


def has_psc(headers: Sequence[tuple[str, bytes | None]] | None) -> bool:
    return headers is not None and any(name.startswith(PSC_PREFIX) for name, _ in headers)


def psc_pairs(headers: Sequence[tuple[str, bytes | None]]) -> list[tuple[str, str]]:
    """The ``<psc>`` pairs the ``mqpsc.*`` headers say, Command first; ``MQError``
    (MQRC_RFH_STRING_ERROR, 2335) for a value that is not UTF-8."""
    pairs: list[tuple[str, str]] = []
    command = "Publish"
    for name, raw in headers:
        if not name.startswith(PSC_PREFIX):
            continue
        tag = name[len(PSC_PREFIX) :]
        try:
            text = (raw or b"").decode()
        except UnicodeDecodeError:
            raise MQError(RC.RFH_STRING_ERROR, f"header {name} is not UTF-8", parm=tag) from None
        if tag == "Command":
            command = text
        elif tag.endswith("Opt"):
            pairs.extend((tag, option.strip()) for option in text.split(",") if option.strip())
        else:
            pairs.append((tag, text))
    return [("Command", command), *pairs]


def properties_folder(headers: Sequence[tuple[str, bytes | None]]) -> str | None:
    """The ``<usr>`` folder of the ``mqprop.*`` headers (their ``mqtype.*`` as ``dt``), None
    when there are none; a name no folder can hold is MQRC_PROPERTY_NAME_ERROR (2442)."""
    found = {
        name[len(PROPERTY_PREFIX) :]: (raw or b"").decode("utf-8", "replace")
        for name, raw in headers
        if name.startswith(PROPERTY_PREFIX)
    }
    if not found:
        return None
    types = {
        name[len(TYPE_PREFIX) :]: (raw or b"").decode("ascii", "replace")
        for name, raw in headers
        if name.startswith(TYPE_PREFIX)
    }
    tree: dict[str, object] = {}
    for path, text in found.items():
        *groups, leaf = path.split(".")
        node = tree
        for group in groups:
            child = node.setdefault(group, {})
            if not isinstance(child, dict):
                break  # a value already has this name: the value stays
            node = child
        else:
            node.setdefault(leaf, (text, types.get(path, "")))
    try:
        return render_folder(Folder("usr", _elements(tree)))
    except MQError as error:
        raise MQError(RC.PROPERTY_NAME_ERROR, f"property header: {error.detail}") from None


def _elements(tree: dict[str, object]) -> tuple[Element, ...]:
    out: list[Element] = []
    for name, node in tree.items():
        if isinstance(node, dict):
            out.append(Element(name, children=_elements(node)))
            continue
        assert isinstance(node, tuple)
        text, dt = str(node[0]), str(node[1])
        if dt == _NIL:
            out.append(Element(name, attrs=(("xsi:nil", "true"),)))
        else:
            out.append(Element(name, text or None, (("dt", dt),) if dt else ()))
    return tuple(out)


__all__ = [
    "PROPERTY_PREFIX",
    "PSCR_PREFIX",
    "PSC_PREFIX",
    "TOPIC_HEADER",
    "TYPE_PREFIX",
    "content_properties",
    "has_psc",
    "native_delivery",
    "native_reply",
    "properties_folder",
    "psc_headers",
    "psc_pairs",
]
