"""NameValueData folders: parser, renderer, typed values (reference §5.1, §2.1-§2.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import (
    MAX_DEPTH,
    Element,
    Folder,
    parse_folder,
    render_folder,
    typed_value,
)
from mqkafka.mq.reasons import RC

from .strategies import CHARS, FOLDERS


def test_seed_s0_request_update_example_parses() -> None:
    """S0: "Here is an example of NameValueData for a Request Update command message" — the
    example, indented over several lines as printed, gives three properties in order."""
    text = (
        " <psc>\n"
        "   <Command>ReqUpdate</Command>\n"
        "   <RegOpt>CorrelAsId</RegOpt>\n"
        "   <Topic>Sport/Soccer/State/LatestScore/#</Topic>\n"
        " </psc>"
    )
    folder = parse_folder(text)
    assert folder.name == "psc"
    assert folder.pairs() == [
        ("Command", "ReqUpdate"),
        ("RegOpt", "CorrelAsId"),
        ("Topic", "Sport/Soccer/State/LatestScore/#"),
    ]


def test_seed_s2_subscription_names_have_no_length_limit() -> None:
    """S2: "Subscription names are arbitrary character strings with no length limit" — a
    20,000-character SubName with markup characters survives render and parse."""
    name = ("Sub <&> \"quoted\" 'name' é " * 800)[:20000]
    folder = Folder.from_pairs("psc", [("Command", "RegSub"), ("SubName", name)])
    assert parse_folder(render_folder(folder)).pairs()[1] == ("SubName", name)


PARSED = [
    ("<psc></psc>", Folder("psc")),
    ("<psc/>", Folder("psc")),
    ("  <psc>\n\t</psc> \r\n", Folder("psc")),
    ("<usr><a/></usr>", Folder("usr", (Element("a"),))),
    ("<usr><a></a></usr>", Folder("usr", (Element("a"),))),
    ("<usr><a> </a></usr>", Folder("usr", (Element("a", " "),))),
    ("<usr><a>x y</a></usr>", Folder("usr", (Element("a", "x y"),))),
    (
        '<usr><Score dt="i4">3</Score></usr>',
        Folder("usr", (Element("Score", "3", (("dt", "i4"),)),)),
    ),
    (
        "<usr><Score  dt = 'i4' >3</Score ></usr>",
        Folder("usr", (Element("Score", "3", (("dt", "i4"),)),)),
    ),
    (
        "<pscr><Completion>error</Completion>\n  <Response><Reason>3150</Reason></Response></pscr>",
        Folder(
            "pscr",
            (
                Element("Completion", "error"),
                Element("Response", None, (), (Element("Reason", "3150"),)),
            ),
        ),
    ),
    (
        "<usr><a>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;</a></usr>",
        Folder("usr", (Element("a", "<>&\"'AB\U0001f600"),)),
    ),
    ("<usr><a>1 > 0</a></usr>", Folder("usr", (Element("a", "1 > 0"),))),
    ('<usr><a b="&lt;x&gt;"/></usr>', Folder("usr", (Element("a", None, (("b", "<x>"),)),))),
    (
        "<mq_usr content='properties'><x.y>1</x.y></mq_usr>",
        Folder("mq_usr", (Element("x.y", "1"),), (("content", "properties"),)),
    ),
    ("<usr><né>é</né></usr>", Folder("usr", (Element("né", "é"),))),
]


@pytest.mark.parametrize(("text", "folder"), PARSED)
def test_parse(text: str, folder: Folder) -> None:
    assert parse_folder(text) == folder


def test_pymqi_sample_folders_parse() -> None:
    """The three folders of pymqi's single_rfh2.dat (§5.1 real sample)."""
    psc = parse_folder(
        "<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
        "<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>"
    )
    assert dict(psc.pairs())["RegOpt"] == "PersAsPub"
    assert parse_folder("<testFolder><testVar>testValue</testVar></testFolder>").pairs() == [
        ("testVar", "testValue")
    ]
    assert parse_folder("<mcd><Msd>xmlnsc</Msd></mcd>").pairs() == [("Msd", "xmlnsc")]


def test_pairs_flatten_groups_with_dotted_paths() -> None:
    folder = parse_folder("<usr><a>1</a><g><b>2</b><h><c/></h></g><d>4</d></usr>")
    assert folder.pairs() == [("a", "1"), ("g.b", "2"), ("g.h.c", ""), ("d", "4")]


def test_from_pairs_keeps_order_and_repeats() -> None:
    pairs = [("Command", "RegSub"), ("RegOpt", "PubOnReqOnly"), ("RegOpt", "CorrelAsId")]
    folder = Folder.from_pairs("psc", pairs)
    assert folder.pairs() == pairs
    assert render_folder(folder) == (
        "<psc><Command>RegSub</Command><RegOpt>PubOnReqOnly</RegOpt>"
        "<RegOpt>CorrelAsId</RegOpt></psc>"
    )


def test_empty_value_renders_as_start_and_end_tag() -> None:
    assert render_folder(Folder.from_pairs("psc", [("Filter", "")])) == (
        "<psc><Filter></Filter></psc>"
    )


def test_render_escapes_markup_and_controls() -> None:
    folder = Folder("usr", (Element("a", '<&>"\x00\x1f\t', (("q", 'say "hi"'),)),))
    text = render_folder(folder)
    assert text == '<usr><a q="say &quot;hi&quot;">&lt;&amp;&gt;"&#x0;&#x1F;\t</a></usr>'
    assert parse_folder(text) == folder


@given(FOLDERS)
def test_round_trip_folder(folder: Folder) -> None:
    text = render_folder(folder)
    assert parse_folder(text) == folder
    assert render_folder(parse_folder(text)) == text


@given(FOLDERS, st.sampled_from([" ", "\n", "\r\n  ", "\t"]))
def test_layout_whitespace_between_elements_is_ignored(folder: Folder, ws: str) -> None:
    spaced = render_folder(folder).replace("><", ">" + ws + "<")
    parsed = parse_folder(ws + spaced + ws)
    # Leaves that were empty may now hold the layout whitespace; everything else is equal.
    assert [name for name, _ in parsed.pairs()] == [name for name, _ in folder.pairs()]
    assert parsed.name == folder.name


# Malformed text → MQRC_RFH_FORMAT_ERROR at the offset given.
MALFORMED = [
    ("", 0),
    ("   ", 3),
    ("psc", 0),
    ("<psc>", 5),
    ("<psc><a>1</a>", 13),
    ("<psc><a>1</b></psc>", 9),
    ("<psc><a>1</a></pscx>", 13),
    ("<psc>text</psc>", 5),
    ("<psc><a>x<b/></a></psc>", 8),
    ("<psc><a><b/>x</a></psc>", 12),
    ("<psc></psc><psc></psc>", 11),
    ("<psc></psc>trailing", 11),
    ("<psc><a>&bogus;</a></psc>", 8),
    ("<psc><a>AT&T</a></psc>", 10),
    ("<psc><a>&#xD800;</a></psc>", 8),
    ("<psc><a>&#1114112;</a></psc>", 8),
    ("<psc><!-- c --></psc>", 5),
    ("<?xml version='1.0'?><psc/>", 0),
    ("<psc><![CDATA[x]]></psc>", 5),
    ("<psc><1a>1</1a></psc>", 6),
    ("<psc><a b=c>1</a></psc>", 10),
    ('<psc><a b="1>1</a></psc>', 10),
    ('<psc><a b="<">1</a></psc>', 11),
    ('<psc><a b="1" b="2">1</a></psc>', 14),
    ('<psc><a b="1"c="2">1</a></psc>', 13),
    ("<psc><a>1</a ></psc >x", 21),
    ("<psc><a>1\x00</a></psc>", 9),
    ("< psc></psc>", 1),
    ("<psc><a>1</ a></psc>", 11),
]


@pytest.mark.parametrize(("text", "position"), MALFORMED)
def test_malformed_folder_text(text: str, position: int) -> None:
    with pytest.raises(MQError) as caught:
        parse_folder(text)
    assert caught.value.reason == RC.RFH_FORMAT_ERROR
    assert caught.value.position == position


def test_nesting_limit() -> None:
    deepest = "<a>" * MAX_DEPTH + "x" + "</a>" * MAX_DEPTH
    assert parse_folder(f"<usr>{deepest}</usr>").pairs() == [(".".join(["a"] * MAX_DEPTH), "x")]
    too_deep = "<a>" * (MAX_DEPTH + 1) + "x" + "</a>" * (MAX_DEPTH + 1)
    with pytest.raises(MQError) as caught:
        parse_folder(f"<usr>{too_deep}</usr>")
    assert caught.value.reason == RC.RFH_FORMAT_ERROR


def test_hostile_nesting_does_not_exhaust_the_stack() -> None:
    with pytest.raises(MQError):
        parse_folder("<usr>" + "<a>" * 100_000)


INVALID_VALUES = [
    lambda: Element("1bad"),
    lambda: Element("a b"),
    lambda: Element("a", "x", (), (Element("b"),)),
    lambda: Element("a", None, (("dt", "i4"), ("dt", "i8"))),
    lambda: Element("a", None, (("bad name", "x"),)),
    lambda: Folder("", ()),
    lambda: Folder("usr", [Element("a")]),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("build", INVALID_VALUES)
def test_invalid_values_cannot_be_built(build: object) -> None:
    with pytest.raises(MQError) as caught:
        build()  # type: ignore[operator]
    assert caught.value.reason == RC.RFH_FORMAT_ERROR


def test_element_nesting_limit_applies_to_built_values() -> None:
    element = Element("leaf", "x")
    for _ in range(MAX_DEPTH - 1):
        element = Element("g", None, (), (element,))
    with pytest.raises(MQError):
        Element("g", None, (), (element,))


def _typed(text: str) -> object:
    return typed_value(parse_folder(f"<usr>{text}</usr>").elements[0])


# §5.1 dt types: string (default), boolean, bin.hex, i1, i2, i4, i8, int, r4, r8.
TYPED = [
    ("<a>text</a>", "text"),
    ("<a/>", None),
    ("<a></a>", None),
    ("<a> 3 </a>", " 3 "),
    ('<a dt="string">3</a>', "3"),
    ('<a dt="string"/>', None),
    ('<Score dt="i4">3</Score>', 3),
    ('<a dt="i4">-2147483648</a>', -(2**31)),
    ('<a dt="i4"> 42 </a>', 42),
    ('<a dt="i1">127</a>', 127),
    ('<a dt="i2">-32768</a>', -32768),
    ('<a dt="i8">9223372036854775807</a>', 2**63 - 1),
    ('<a dt="int">+12</a>', 12),
    ('<a dt="i4"></a>', None),
    ('<a dt="i4"/>', None),
    ('<a dt="boolean">true</a>', True),
    ('<a dt="boolean">0</a>', False),
    ('<a dt="boolean">1</a>', True),
    ('<a dt="boolean">false</a>', False),
    ('<a dt="bin.hex">00ff1A</a>', b"\x00\xff\x1a"),
    ('<a dt="bin.hex"></a>', None),
    ('<a dt="r8">1.5</a>', 1.5),
    ('<a dt="r4">-2e3</a>', -2000.0),
    ('<a dt="r8">.5</a>', 0.5),
    ('<a dt="r8">INF</a>', float("inf")),
    ('<a xsi:nil="true"/>', None),
    ('<a dt="i4" xsi:nil="true"></a>', None),
]


@pytest.mark.parametrize(("text", "value"), TYPED)
def test_typed_value(text: str, value: object) -> None:
    result = _typed(text)
    assert result == value
    assert type(result) is type(value)


BAD_TYPED = [
    '<a dt="i1">128</a>',
    '<a dt="i2">32768</a>',
    '<a dt="i4">2147483648</a>',
    '<a dt="i8">9223372036854775808</a>',
    '<a dt="i4">1.0</a>',
    '<a dt="i4">0x10</a>',
    '<a dt="i4">' + "1" * 5000 + "</a>",
    '<a dt="boolean">yes</a>',
    '<a dt="bin.hex">abc</a>',
    '<a dt="bin.hex">zz</a>',
    '<a dt="r8">1e</a>',
    '<a dt="r8">one</a>',
    '<a dt="date">2024</a>',
    "<g><b>1</b></g>",
]


@pytest.mark.parametrize("text", BAD_TYPED)
def test_typed_value_errors(text: str) -> None:
    with pytest.raises(MQError) as caught:
        _typed(text)
    assert caught.value.reason == RC.RFH_FORMAT_ERROR
    assert caught.value.parm in ("a", "g")


FOLDERISH = st.lists(
    st.sampled_from([*"<>/=\"'&;# \nabdt", "psc", "</a>", "&#x", "<a>", "&amp;"]), max_size=40
).map("".join)


@given(st.text(CHARS, max_size=80) | FOLDERISH)
def test_fuzz_parse_folder_raises_only_format_error(text: str) -> None:
    try:
        folder = parse_folder(text)
    except MQError as error:
        assert error.reason == RC.RFH_FORMAT_ERROR
        assert error.position is not None
        assert 0 <= error.position <= len(text)
    else:
        assert parse_folder(render_folder(folder)) == folder


@given(FOLDERS, st.integers(0, 200), st.sampled_from(["<", ">", "&", "/", '"', "x", ""]))
def test_fuzz_corrupted_folder_text(folder: Folder, at: int, insert: str) -> None:
    text = render_folder(folder)
    at = min(at, len(text))
    try:
        parse_folder(text[:at] + insert + text[at + 1 :])
    except MQError as error:
        assert error.reason == RC.RFH_FORMAT_ERROR
