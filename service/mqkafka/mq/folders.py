"""MQRFH2 NameValueData: one folder of XML-like text ↔ a tree of elements (reference §5.1).

Grammar accepted (a strict subset of XML, which is all MQ writes):

    folder   := ws* start-tag (content) end-tag ws*      |  ws* empty-tag ws*
    element  := start-tag (text | (ws | element)*) end-tag  |  empty-tag
    start-tag:= "<" Name (ws+ Name ws* "=" ws* quoted)* ws* ">"
    text     := characters other than "<", with &lt; &gt; &amp; &quot; &apos; &#N; &#xH;

* An element holds text (a property) or child elements (a group), never both; whitespace
  between children is layout and dropped; text in a leaf is kept verbatim.
* A folder always holds elements; ``<usr>x</usr>`` is an error.
* Comments, CDATA, processing instructions and DOCTYPEs are errors (MQ never writes them).
* Nesting is limited to ``MAX_DEPTH`` levels so that neither parser nor renderer can exhaust
  the stack on hostile input.

Reason code choice: malformed folder text is MQRC_RFH_FORMAT_ERROR (2421, "RFH format
incorrect"), not MQRC_RFH_ERROR (2334): 2334 is documented for the binary structure
(StrucId, Version, lengths, CCSID, reference §3.5), while here the structure was read fine and
its NameValueData content is wrong. Every error carries ``position``, the character offset in
the folder text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

MAX_DEPTH: Final = 32
"""Deepest element nesting accepted below the folder (MQ properties are a few levels)."""

_NAME: Final = re.compile(r"(?:[^\W\d]|[:$])[\w.:$-]*")
_WS: Final = re.compile(r"[ \t\r\n]*")
_ATTRIBUTE: Final = re.compile(r"[ \t\r\n]+((?:[^\W\d]|[:$])[\w.:$-]*)[ \t\r\n]*=[ \t\r\n]*")
_ENTITY: Final = re.compile(r"&(?:#x([0-9A-Fa-f]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|apos));")
_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
# Renderer escapes: markup characters, and C0 controls other than tab/LF/CR so that a value
# survives the trailing-NUL/space padding rules and stays printable.
_TEXT_SPECIALS: Final = re.compile(r"[&<>\x00-\x08\x0b\x0c\x0e-\x1f]")
_ATTR_SPECIALS: Final = re.compile(r'[&<>"\x00-\x08\x0b\x0c\x0e-\x1f]')
_RENDERED: Final = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _format_error(problem: str, position: int | None = None, parm: str | None = None) -> MQError:
    where = f" at offset {position}" if position is not None else ""
    return MQError(RC.RFH_FORMAT_ERROR, problem + where, position=position, parm=parm)


def _check_name(name: object, what: str) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise _format_error(f"{what} {name!r} is not a valid element name")


def _check_attrs(attrs: object) -> None:
    if not isinstance(attrs, tuple):
        raise _format_error("attributes must be a tuple of (name, value) pairs")
    seen: set[str] = set()
    for pair in attrs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], str)):
            raise _format_error(f"attribute {pair!r} is not a (name, value) pair")
        _check_name(pair[0], "attribute")
        if pair[0] in seen:
            raise _format_error(f"attribute {pair[0]!r} given twice", parm=pair[0])
        seen.add(pair[0])


@dataclass(frozen=True)
class Element:
    """A property (``value`` set, no children) or a group (children). ``value`` is None when
    the element has no text: ``<a/>``, ``<a></a>`` and groups; an empty string is stored as
    None so that both spellings compare equal."""

    name: str
    value: str | None = None
    attrs: tuple[tuple[str, str], ...] = ()
    children: tuple[Element, ...] = ()
    depth: int = field(default=1, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_name(self.name, "element")
        _check_attrs(self.attrs)
        if self.value == "":
            object.__setattr__(self, "value", None)
        elif self.value is not None and not isinstance(self.value, str):
            raise _format_error(f"value of <{self.name}> must be text", parm=self.name)
        if not isinstance(self.children, tuple) or not all(
            isinstance(child, Element) for child in self.children
        ):
            raise _format_error(f"children of <{self.name}> must be a tuple of Elements")
        if self.children:
            if self.value is not None:
                raise _format_error(f"<{self.name}> has both text and children", parm=self.name)
            depth = 1 + max(child.depth for child in self.children)
            if depth > MAX_DEPTH:
                raise _format_error(f"elements nested deeper than {MAX_DEPTH}", parm=self.name)
            object.__setattr__(self, "depth", depth)

    def attr(self, name: str) -> str | None:
        """The value of attribute ``name`` (``dt``, ``xsi:nil``...), if present."""
        for key, value in self.attrs:
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Folder:
    """One NameValueData: ``<name>elements</name>``."""

    name: str
    elements: tuple[Element, ...] = ()
    attrs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "folder")
        _check_attrs(self.attrs)
        if not isinstance(self.elements, tuple) or not all(
            isinstance(element, Element) for element in self.elements
        ):
            raise _format_error(f"elements of <{self.name}> must be a tuple of Elements")

    def pairs(self) -> list[tuple[str, str]]:
        """Leaf elements in document order as (name, text); text is "" when empty. A leaf
        inside groups is named by its path, ``Group.Leaf`` (how MQ names grouped properties)."""
        out: list[tuple[str, str]] = []
        for element, path in self.leaves():
            out.append((path, element.value or ""))
        return out

    def leaves(self) -> list[tuple[Element, str]]:
        """Leaf elements in document order with their dotted paths."""
        out: list[tuple[Element, str]] = []
        stack: list[tuple[Element, str]] = [(e, e.name) for e in reversed(self.elements)]
        while stack:
            element, path = stack.pop()
            if element.children:
                stack.extend((c, f"{path}.{c.name}") for c in reversed(element.children))
            else:
                out.append((element, path))
        return out

    @classmethod
    def from_pairs(cls, name: str, pairs: Iterable[tuple[str, str]]) -> Folder:
        """A folder of plain leaf elements, one per pair, in order."""
        return cls(name, tuple(Element(key, value) for key, value in pairs))


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def _escape(text: str, specials: re.Pattern[str]) -> str:
    return specials.sub(lambda m: _RENDERED.get(m.group(), f"&#x{ord(m.group()):X};"), text)


def _start(name: str, attrs: tuple[tuple[str, str], ...]) -> str:
    rendered = "".join(f' {key}="{_escape(value, _ATTR_SPECIALS)}"' for key, value in attrs)
    return f"<{name}{rendered}>"


def _render_element(element: Element, out: list[str]) -> None:
    out.append(_start(element.name, element.attrs))
    if element.value is not None:
        out.append(_escape(element.value, _TEXT_SPECIALS))
    for child in element.children:
        _render_element(child, out)
    out.append(f"</{element.name}>")


def render_folder(folder: Folder) -> str:
    """The folder as NameValueData text, no layout whitespace; ``<a></a>`` for empty
    elements (the one spelling every MQ version parses)."""
    out = [_start(folder.name, folder.attrs)]
    for element in folder.elements:
        _render_element(element, out)
    out.append(f"</{folder.name}>")
    return "".join(out)


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def _unescape(text: str, offset: int) -> str:
    """Replace references; ``offset`` is where ``text`` starts in the folder (for errors)."""
    if "&" not in text:
        return text
    out: list[str] = []
    index = 0
    while (amp := text.find("&", index)) >= 0:
        out.append(text[index:amp])
        match = _ENTITY.match(text, amp)
        if match is None:
            raise _format_error("'&' does not start a known reference", offset + amp)
        hex_code, dec_code, named = match.groups()
        if named is not None:
            out.append(_NAMED[named])
        else:
            code = int(hex_code, 16) if hex_code is not None else int(dec_code)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise _format_error(f"character reference {code} is not a character", offset + amp)
            out.append(chr(code))
        index = match.end()
    out.append(text[index:])
    return "".join(out)


_SIMPLE_LEAF: Final = re.compile(r"<((?:[^\W\d]|[:$])[\w.:$-]*)>([^<&]*)</\1>")


def _trusted_leaf(name: str, value: str | None) -> Element:
    """An Element whose parts the parser has already checked (skips re-validation)."""
    element = object.__new__(Element)
    element.__dict__.update(name=name, value=value, attrs=(), children=(), depth=1)
    return element


class _Parser:
    """A cursor over one folder's text; each method consumes one construct or raises."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_ws(self) -> None:
        match = _WS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def name(self, what: str) -> str:
        match = _NAME.match(self.text, self.pos)
        if match is None:
            raise _format_error(f"expected {what} name", self.pos)
        self.pos = match.end()
        return match.group()

    def tag(self) -> tuple[str, tuple[tuple[str, str], ...], bool]:
        """A start or empty tag at ``pos`` (which is on ``<``): name, attributes, is-empty."""
        text = self.text
        self.pos += 1
        if self.pos < len(text) and text[self.pos] in "!?":
            raise _format_error("comments, CDATA and declarations are not allowed", self.pos - 1)
        name = self.name("element")
        attrs: list[tuple[str, str]] = []
        seen: set[str] = set()
        while True:
            match = _ATTRIBUTE.match(text, self.pos)
            if match is None:
                break
            key = match.group(1)
            quote_at = match.end()
            quote = text[quote_at : quote_at + 1]
            if quote not in ("'", '"'):
                raise _format_error(f"value of attribute {key!r} is not quoted", quote_at)
            end = text.find(quote, quote_at + 1)
            if end < 0:
                raise _format_error(f"value of attribute {key!r} is not closed", quote_at)
            raw = text[quote_at + 1 : end]
            if "<" in raw:
                raise _format_error("'<' inside an attribute value", quote_at + 1 + raw.find("<"))
            if key in seen:
                raise _format_error(f"attribute {key!r} given twice", match.start(1), parm=key)
            seen.add(key)
            attrs.append((key, _unescape(raw, quote_at + 1)))
            self.pos = end + 1
        self.skip_ws()
        if text.startswith("/>", self.pos):
            self.pos += 2
            return name, tuple(attrs), True
        if text.startswith(">", self.pos):
            self.pos += 1
            return name, tuple(attrs), False
        raise _format_error(f"malformed tag <{name}>", self.pos)

    def end_tag(self, name: str) -> None:
        """``</name>`` at ``pos`` (which is on ``</``)."""
        start = self.pos
        self.pos += 2
        closing = self.name("end tag")
        if closing != name:
            raise _format_error(f"</{closing}> closes <{name}>", start)
        self.skip_ws()
        if not self.text.startswith(">", self.pos):
            raise _format_error(f"malformed end tag </{name}>", self.pos)
        self.pos += 1

    def content(self, name: str, depth: int) -> tuple[str | None, tuple[Element, ...]]:
        """What follows ``<name ...>`` up to and including ``</name>``: text or children."""
        text = self.text
        start = self.pos
        lt = text.find("<", start)
        if lt < 0:
            raise _format_error(f"<{name}> is not closed", len(text))
        raw = text[start:lt]
        if text.startswith("</", lt):
            self.pos = lt
            self.end_tag(name)
            return (_unescape(raw, start) if raw else None), ()
        if raw.strip(" \t\r\n"):
            raise _format_error(f"<{name}> mixes text and elements", start)
        if depth > MAX_DEPTH:
            raise _format_error(f"elements nested deeper than {MAX_DEPTH}", lt)
        children: list[Element] = []
        self.pos = lt
        while True:
            children.append(self.element(depth))
            self.skip_ws()
            if text.startswith("</", self.pos):
                self.end_tag(name)
                return None, tuple(children)
            if not text.startswith("<", self.pos):
                if self.pos >= len(text):
                    raise _format_error(f"<{name}> is not closed", self.pos)
                raise _format_error(f"<{name}> mixes text and elements", self.pos)

    def element(self, depth: int) -> Element:
        # Fast path for the common shape, ``<Name>text</Name>`` with no attributes and no
        # references: one regex match, and the name is already valid.
        simple = _SIMPLE_LEAF.match(self.text, self.pos)
        if simple is not None:
            self.pos = simple.end()
            return _trusted_leaf(simple.group(1), simple.group(2) or None)
        name, attrs, empty = self.tag()
        if empty:
            return Element(name, None, attrs)
        value, children = self.content(name, depth + 1)
        return Element(name, value, attrs, children)


def parse_folder(text: str) -> Folder:
    """One NameValueData (padding already removed; surrounding whitespace is allowed)."""
    if not isinstance(text, str):
        raise _format_error(f"folder text must be str, not {type(text).__name__}")
    if (nul := text.find("\x00")) >= 0:
        raise _format_error("NUL inside folder text", nul)
    parser = _Parser(text)
    parser.skip_ws()
    if not text.startswith("<", parser.pos):
        raise _format_error("folder does not start with '<'", parser.pos)
    name, attrs, empty = parser.tag()
    elements: tuple[Element, ...] = ()
    if not empty:
        content_at = parser.pos
        value, elements = parser.content(name, 1)
        if value is not None and value.strip(" \t\r\n"):
            raise _format_error(f"folder <{name}> holds text, not elements", content_at)
    parser.skip_ws()
    if parser.pos != len(text):
        raise _format_error(f"text after </{name}>", parser.pos)
    return Folder(name, elements, attrs)


# --------------------------------------------------------------------------------------------
# Typed values (the ``dt`` attribute)
# --------------------------------------------------------------------------------------------

_INT_RANGES: Final = {
    "i1": 8,
    "i2": 16,
    "i4": 32,
    "i8": 64,
    "int": 64,  # UNCERTAIN (§5.1 dt list): width of "int" not documented; read as 64-bit.
}
_BOOLEANS: Final = {"true": True, "1": True, "false": False, "0": False}
_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_FLOAT: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN")


def typed_value(element: Element) -> object:
    """The element's value converted by its ``dt`` attribute (reference §5.1 data types).

    No ``dt`` (or ``dt="string"``) is text. An element with no text (``<a/>``, ``<a></a>``,
    typed or not) and any element with ``xsi:nil="true"`` is None, an SQL NULL to a selector:
    that is the ``engine.ports.MessageView.properties`` contract ("a property that is present
    but empty is None"), which covers the untyped case the reference leaves open. Groups and
    unreadable values raise MQRC_RFH_FORMAT_ERROR naming the element.
    """
    if element.children:
        raise _format_error(f"<{element.name}> is a group, not a value", parm=element.name)
    if element.attr("xsi:nil") == "true":
        return None
    dt = element.attr("dt")
    text = element.value
    if text is None:
        return None
    if dt is None or dt == "string":
        return text
    value = text.strip(" \t\r\n")
    if dt == "boolean":
        if value in _BOOLEANS:
            return _BOOLEANS[value]
    elif dt == "bin.hex":
        if len(value) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in value):
            return bytes.fromhex(value)
    elif dt in _INT_RANGES:
        if len(value) <= 24 and _INTEGER.fullmatch(value):
            number = int(value)
            bits = _INT_RANGES[dt]
            if -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
                return number
    elif dt in ("r4", "r8"):
        if _FLOAT.fullmatch(value):
            return float(value)
    else:
        raise _format_error(f"<{element.name}> has unknown dt={dt!r}", parm=element.name)
    raise _format_error(f"<{element.name}> value {text!r} is not a {dt}", parm=element.name)
