"""``Body.<path>`` over JSON and XML publication bodies, ESQL-style, parsed lazily and once."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from mqkafka.selectors import (
    CachedMessageView,
    DictMessageView,
    SelectorFilterPort,
    cached_view,
    compile_selector,
)
from tests.unit.selectors.helpers import evaluate

SCORE_JSON = b'{"Score": {"Home": 3, "Away": 1, "Team": "Reds", "Final": true, "Note": null}}'
SCORE_XML = b"<Score><Home>3</Home><Away>1</Away><Team>Reds</Team><Final>true</Final></Score>"

JSON_ROWS = [
    ("Body.Score.Home > 2", True),
    ("Body.Score.Home = 3", True),
    ("Body.Score.Home = 3.0", True),
    ("Body.Score.Home + Body.Score.Away = 4", True),
    ("Body.Score.Team = 'Reds'", True),
    ("Body.Score.Team LIKE 'R%'", True),
    ("Body.Score.Final", True),
    ("Body.Score.Final = TRUE", True),
    ("Body.Score.Note IS NULL", True),  # JSON null
    ("Body.Score IS NULL", True),  # an object is not a value
    ("Body.Score.Missing IS NULL", True),
    ("Body.Home IS NULL", True),  # the path starts at the top-level object's keys
    ("Body.Score.Home = '3'", None),  # JSON values keep their type
    ("Body.Score.Team = 3", None),
    ("Root.JSON.Data.Score.Home = 3", True),  # ESQL's own spelling
    ("Root.XMLNSC.Score.Home = 3", None),  # ... which is for XML bodies only
    ('Body."Score".Home = 3', True),
    ("Body.Score.Home IN (3, 4)", True),
    ("Body.Score.Home BETWEEN 1 AND 3", True),
]

XML_ROWS = [
    ("Body.Score.Home > 2", True),  # the root element is the first step (ESQL Body)
    ("Body.Home IS NULL", True),
    ("Body.Score.Home = 3", True),  # text meets a number: converted (ESQL implicit CAST)
    ("Body.Score.Home = 3.0", True),
    ("Body.Score.Home = '3'", True),  # text meets a string: compared as a string
    ("Body.Score.Home = '3.0'", False),
    ("Body.Score.Home + 1 = 4", True),
    ("-Body.Score.Home = -3", True),
    ("Body.Score.Home < Body.Score.Away", False),  # two texts order as numbers
    ("Body.Score.Home > Body.Score.Away", True),
    ("Body.Score.Home > Body.Score.Team", None),  # 'Reds' is not a number
    ("Body.Score.Home = Body.Score.Home", True),
    ("Body.Score.Home <> Body.Score.Away", True),
    ("Body.Score.Team = 'Reds'", True),
    ("Body.Score.Team > 2", None),  # 'Reds' is not a number
    ("Body.Score.Team LIKE '%eds'", True),
    ("Body.Score.Final = TRUE", True),
    ("Body.Score.Final", True),
    ("Body.Score.Home IN (3, 4)", True),
    ("Body.Score.Home IN ('3', '4')", True),
    ("Body.Score.Home NOT IN ('3', '4')", False),
    ("Body.Score.Home BETWEEN 1 AND 3", True),
    ("Body.Score IS NULL", True),  # an element with children is a folder, not a value
    ("Root.XMLNSC.Score.Home = 3", True),
    ("Root.XMLNS.Score.Home = 3", True),
    ("Root.XML.Score.Home = 3", True),
    ("Root.JSON.Data.Score.Home = 3", None),
]


@pytest.mark.parametrize(("text", "expected"), JSON_ROWS)
def test_json_body_paths(text: str, expected: bool | None) -> None:
    assert evaluate(text, body=SCORE_JSON) is expected


@pytest.mark.parametrize(("text", "expected"), XML_ROWS)
def test_xml_body_paths(text: str, expected: bool | None) -> None:
    assert evaluate(text, body=SCORE_XML) is expected


@pytest.mark.parametrize(
    ("text", "body", "expected"),
    [
        # repeated elements and arrays: [n] from 1, no index = the first (ESQL)
        ("Body.r.i = 1", b"<r><i>1</i><i>2</i></r>", True),
        ("Body.r.i[2] = 2", b"<r><i>1</i><i>2</i></r>", True),
        ("Body.r.i[3] IS NULL", b"<r><i>1</i><i>2</i></r>", True),
        ("Body.r[1].i = 1", b"<r><i>1</i></r>", True),
        ("Body.r[2].i IS NULL", b"<r><i>1</i></r>", True),
        ("Body.items.p = 1", b'{"items": [{"p": 1}, {"p": 5}]}', True),
        ("Body.items[2].p = 5", b'{"items": [{"p": 1}, {"p": 5}]}', True),
        ("Body.items[3].p IS NULL", b'{"items": [{"p": 1}, {"p": 5}]}', True),
        ("Body.n[2] = 20", b'{"n": [10, 20]}', True),
        ("Body.n = 10", b'{"n": [10, 20]}', True),
        ("Body.a = 1", b'[{"a": 1}, {"a": 2}]', True),  # a top-level array: its first item
        ("Body.a[2] IS NULL", b'{"a": 1}', True),
        ("Body.a[1] = 1", b'{"a": 1}', True),
        # names that are not Java identifiers, and keywords as path steps
        ("Body.\"first-name\" = 'Ann'", b'{"first-name": "Ann"}', True),
        ('Body."say ""hi""" = 1', b'{"say \\"hi\\"": 1}', True),
        ("Body.order.in = 1", b'{"order": {"in": 1}}', True),
        ("Body.x.NULL = 1", b'{"x": {"NULL": 1}}', True),
        # XML details
        ("Body.Score.Home = 3", b'<s:Score xmlns:s="urn:x"><s:Home>3</s:Home></s:Score>', True),
        ("Body.Score.Home = 3", b"<Score><Home> 3 </Home></Score>", True),  # CAST trims
        ("Body.Score.Home = 3", b"<Score><Home>3x</Home></Score>", None),
        ("Body.Score.Home = ''", b"<Score><Home/></Score>", True),
        ("Body.Score.Home > 2.5", b"<Score><Home>2.75</Home></Score>", True),
        ("Body.Score.Home > 2", b"<Score><Home>1e3</Home></Score>", True),
        ("Body.Score.Home = 3", b"<Score><!-- c --><Home>3</Home></Score>", True),
        ("Body.a.b = 'x'", b'<?xml version="1.0" encoding="UTF-8"?><a><b>x</b></a>', True),
        (
            "Body.a.b = 'é'",
            '<?xml version="1.0" encoding="ISO-8859-1"?><a><b>é</b></a>'.encode("latin-1"),
            True,
        ),
        # format detection: leading white space and a UTF-8 byte order mark are skipped
        ("Body.a = 1", b'  \n {"a": 1}', True),
        ("Body.a = 1", b'\xef\xbb\xbf{"a": 1}', True),
        ("Body.a.b = 1", b"\n  <a><b>1</b></a>", True),
        # anything that does not parse is NULL, never an error
        ("Body.a IS NULL", b'{"a": ', True),
        ("Body.a IS NULL", b"<a><b>1</a>", True),
        ("Body.a IS NULL", b"plain text", True),
        ("Body.a IS NULL", b"", True),
        ("Body.a IS NULL", b'{"a": "\xff\xfe"}', True),
        ("Body.a IS NULL", b"[" * 100_000 + b"]" * 100_000, True),  # too deep for json
        ("Body.a = 1", b'{"a": 1}{"a": 2}', None),  # trailing data: not JSON
    ],
)
def test_body_path_rules(text: str, body: bytes, expected: bool | None) -> None:
    assert evaluate(text, body=body) is expected


@pytest.mark.parametrize(
    ("msd", "body", "expected"),
    [
        ("json", b'{"Score": {"Home": 3}}', True),
        ("JSON", b'{"Score": {"Home": 3}}', True),
        ("xmlnsc", b"<Score><Home>3</Home></Score>", True),
        ("xml", b"<Score><Home>3</Home></Score>", True),
        ("xmlns", b"<Score><Home>3</Home></Score>", True),
        ("jms_text", b'{"Score": {"Home": 3}}', True),  # not a body domain: sniffed
        ("json", b"<Score><Home>3</Home></Score>", None),  # msd wins over sniffing
        ("xmlnsc", b'{"Score": {"Home": 3}}', None),
        ("mrm", b"Score=3", None),
    ],
)
def test_msd_chooses_the_parser(msd: str, body: bytes, expected: bool | None) -> None:
    assert evaluate("Body.Score.Home = 3", body=body, msd=msd) is expected


def test_billion_laughs_is_refused_not_expanded() -> None:
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol">
<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]><a><b>&lol9;</b></a>"""
    assert evaluate("Body.a.b IS NULL", body=bomb) is True


# --- parsing at most once -------------------------------------------------------------------


class CountingView:
    """A MessageView that counts how often its body is read (a fake at the port)."""

    def __init__(self, body: bytes) -> None:
        self.reads = 0
        self._body = body

    @property
    def properties(self) -> Mapping[str, object]:
        return {"colour": "red"}

    @property
    def mqmd_fields(self) -> Mapping[str, object]:
        return {"Priority": 4}

    @property
    def body(self) -> bytes:
        self.reads += 1
        return self._body

    @property
    def body_format(self) -> str:
        return "MQSTR"

    @property
    def msd(self) -> str | None:
        return None


def test_body_is_parsed_once_per_publication() -> None:
    selector = compile_selector(
        "Body.Score.Home > 2 AND Body.Score.Away < 2 AND Body.Score.Team = 'Reds'"
    )
    view = CountingView(SCORE_JSON)
    assert selector.matches(view)
    assert view.reads == 1  # three paths, one parse
    assert selector.evaluate(view) is True
    assert view.reads == 1  # the same publication again: remembered
    another = CountingView(SCORE_JSON)
    assert selector.matches(another)
    assert another.reads == 1  # a new publication (view object) is parsed afresh


def test_port_selectors_share_one_parse_per_publication() -> None:
    """The engine's pattern: one bare view per publication, every matching subscription's
    filter evaluated against it; the port's selectors parse the body once between them."""
    port = SelectorFilterPort()
    selectors = [port.compile(t) for t in ("Body.Score.Home > 2", "Body.Score.Away = 1")]
    for _ in range(3):
        publication = CountingView(SCORE_JSON)
        assert all(s.matches(publication) for s in selectors)
        assert publication.reads == 1


def test_views_without_weak_references_are_parsed_per_evaluation() -> None:
    class Slotted:
        __slots__ = ("body", "body_format", "mqmd_fields", "msd", "properties")

        def __init__(self) -> None:
            self.properties: Mapping[str, object] = {}
            self.mqmd_fields: Mapping[str, object] = {}
            self.body, self.body_format, self.msd = SCORE_JSON, "", None

    selector = SelectorFilterPort().compile("Body.Score.Home = 3")
    assert selector.matches(Slotted()) and selector.matches(Slotted())


def test_cached_view_shares_one_parse_across_subscriptions() -> None:
    selectors = [
        compile_selector("Body.Score.Home > 2"),
        compile_selector("Body.Score.Away = 1 AND colour = 'red'"),
        compile_selector("Body.Score.Team LIKE 'B%'"),
    ]
    view = CountingView(SCORE_JSON)
    shared = cached_view(view)
    assert [s.matches(shared) for s in selectors] == [True, True, False]
    assert view.reads == 1
    assert cached_view(shared) is shared


def test_selectors_without_body_never_read_it() -> None:
    view = CountingView(SCORE_JSON)
    selector = compile_selector("colour = 'red' AND JMSPriority = 4")
    assert selector.matches(view)
    assert view.reads == 0
    assert not selector.uses_body
    assert compile_selector("Body.a = 1").uses_body


def test_cached_view_passes_everything_through() -> None:
    inner = DictMessageView({"p": 1}, {"Priority": 3}, b"<a/>", "MQSTR", "xml")
    wrapper = CachedMessageView(inner)
    assert wrapper.properties == {"p": 1}
    assert wrapper.mqmd_fields == {"Priority": 3}
    assert (wrapper.body, wrapper.body_format, wrapper.msd) == (b"<a/>", "MQSTR", "xml")
    parsed = wrapper.parsed_body()
    assert parsed is not None and parsed.syntax == "xml"
    assert wrapper.parsed_body() is parsed
