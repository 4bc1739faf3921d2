"""``Body.<path>``: fields of an XML or JSON publication body, read ESQL-style.

Rules (choices: reference §8 leaves the body language to an "extended selection provider"):

* Format: JSON when ``msd`` is ``json``, XML when it is ``xml``/``xmlns``/``xmlnsc``; otherwise
  by the first non-blank byte (``{``/``[`` JSON, ``<`` XML). — brief
* XML: the first step is the root element, as in ESQL where ``Body`` is the parser's root:
  ``Body.Score.Home`` reads ``<Score><Home>``. — ESQL correlation name ``Body``
* JSON: the first step is a key of the top-level object: ``Body.Score.Home`` reads
  ``{"Score": {"Home": ..}}``, so one filter reads both encodings. — choice (ESQL's extra
  ``Data`` level is spelled only in ``Root.JSON.Data.…``)
* ``step[n]`` picks the n-th (from 1) same-named element or array item; no index means the
  first. — ESQL array index
* XML names match the local name (namespace ignored); element text is untyped
  (``UntypedText``); an element with child elements is NULL; an empty one is ``''``. — choice
* JSON strings, numbers and booleans keep their JSON type; ``null``, objects, arrays are NULL.
* A missing step, a body that does not parse, an unknown format → NULL, never an error.
  — brief: errors never happen at publish time

The body is parsed lazily: at most once per ``CachedMessageView``, and once per publication
across all the selectors of one ``SelectorFilterPort`` (its ``BodyCache`` remembers the last
view object it parsed).
"""

from __future__ import annotations

import contextlib
import json
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from xml.etree import ElementTree

from mqkafka.engine.ports import MessageView
from mqkafka.selectors.identifiers import Getter
from mqkafka.selectors.nodes import BodySyntax, PathStep
from mqkafka.selectors.semantics import UntypedText

_JSON_MSD = frozenset({"json"})
_XML_MSD = frozenset({"xml", "xmlns", "xmlnsc"})
_FIRST_BYTE = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*(.)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParsedBody:
    syntax: Literal["xml", "json"]
    root: object  # the decoded JSON value, or the XML root Element


def parse_body(body: bytes, msd: str | None) -> ParsedBody | None:
    """Parse a self-describing body; ``None`` when it is neither XML nor JSON or is broken."""
    domain = (msd or "").strip().lower()
    if domain in _JSON_MSD:
        syntax = "json"
    elif domain in _XML_MSD:
        syntax = "xml"
    else:
        first = _FIRST_BYTE.match(body)
        lead = first.group(1) if first else b""
        syntax = "json" if lead in (b"{", b"[") else "xml" if lead == b"<" else ""
    try:
        if syntax == "json":
            return ParsedBody("json", json.loads(body))
        if syntax == "xml":
            # expat ≥ 2.4 refuses entity-expansion bombs; ElementTree fetches no external DTDs.
            return ParsedBody("xml", ElementTree.fromstring(body))
    except Exception:  # untrusted bytes: any failure to parse only means "no such field"
        return None
    return None


def _local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _walk_xml(root: ElementTree.Element, steps: tuple[PathStep, ...]) -> object:
    first = steps[0]
    if _local(root.tag) != first.name or first.index not in (None, 1):
        return None
    element = root
    for step in steps[1:]:
        wanted = (step.index or 1) - 1
        for child in element:
            if _local(child.tag) == step.name:
                if wanted == 0:
                    element = child
                    break
                wanted -= 1
        else:
            return None
    if len(element):
        return None  # a folder, not a value
    return UntypedText(element.text or "")


_JSON_SCALARS = (str, int, float, bool)


def _walk_json(document: object, steps: tuple[PathStep, ...]) -> object:
    current = document
    for step in steps:
        if type(current) is list:  # an array reached without an index: its first item
            current = current[0] if current else None
        if type(current) is not dict:  # json.loads builds plain dicts and lists
            return None
        current = current.get(step.name)
        if type(current) is list:
            wanted = (step.index or 1) - 1
            current = current[wanted] if wanted < len(current) else None
        elif step.index is not None and step.index != 1:
            return None
    return current if type(current) in _JSON_SCALARS else None


def walk(parsed: ParsedBody | None, steps: tuple[PathStep, ...], syntax: BodySyntax) -> object:
    """The value at ``steps`` in a parsed body, or NULL."""
    if parsed is None or (syntax != "any" and syntax != parsed.syntax):
        return None
    if isinstance(parsed.root, ElementTree.Element):
        return _walk_xml(parsed.root, steps)
    return _walk_json(parsed.root, steps)


class BodyCache:
    """The parse of the last publication seen, shared by every selector of one filter port.

    The engine evaluates all matching subscriptions against one view object per publication,
    so remembering the last view (weakly, by identity) parses each body once without the
    engine knowing about bodies. A view that cannot be weakly referenced is just not cached.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[weakref.ref[MessageView], ParsedBody | None] | None = None

    def parsed(self, view: MessageView) -> ParsedBody | None:
        last = self._last  # read once: a concurrent writer can only cause a second parse
        if last is not None and last[0]() is view:
            return last[1]
        parsed = parse_body(view.body, view.msd)
        with contextlib.suppress(TypeError):  # the view's class has no __weakref__ slot
            self._last = (weakref.ref(view), parsed)
        return parsed


class CachedMessageView:
    """A MessageView that parses its body at most once; everything else is passed through.

    It never changes the wrapped view, so a caller's view stays as it was. With a shared
    ``BodyCache`` the parse is also shared with other wrappers of the same view.
    """

    __slots__ = ("_parsed", "_shared", "_tried", "_view")

    def __init__(self, view: MessageView, shared: BodyCache | None = None) -> None:
        self._view = view
        self._shared = shared
        self._parsed: ParsedBody | None = None
        self._tried = False

    @property
    def properties(self) -> Mapping[str, object]:
        return self._view.properties

    @property
    def mqmd_fields(self) -> Mapping[str, object]:
        return self._view.mqmd_fields

    @property
    def body(self) -> bytes:
        return self._view.body

    @property
    def body_format(self) -> str:
        return self._view.body_format

    @property
    def msd(self) -> str | None:
        return self._view.msd

    def parsed_body(self) -> ParsedBody | None:
        if not self._tried:
            view, shared = self._view, self._shared
            self._parsed = (
                parse_body(view.body, view.msd) if shared is None else shared.parsed(view)
            )
            self._tried = True
        return self._parsed


def cached_view(view: MessageView) -> CachedMessageView:
    """Wrap a publication once before evaluating many filters, so its body is parsed once."""
    return view if isinstance(view, CachedMessageView) else CachedMessageView(view)


def body_getter(steps: tuple[PathStep, ...], syntax: BodySyntax) -> Getter:
    def get(view: MessageView) -> object:
        if isinstance(view, CachedMessageView):
            parsed = view.parsed_body()
        else:
            parsed = parse_body(view.body, view.msd)
        return walk(parsed, steps, syntax)

    return get
