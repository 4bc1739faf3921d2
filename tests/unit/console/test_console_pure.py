"""The console's pure parts: the topic tree, bodies shown as asked, the live rate events, the
last delivery from activity events, the subscriptions filter, and the pages' templates."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from mqkafka.activity.events import (
    COMMAND,
    DELIVERY,
    ActivityEvent,
    batch_schema,
    encode,
    encode_batch,
)
from mqkafka.console.app import NAV, _environment, when
from mqkafka.console.live import RateFeed, rate_event
from mqkafka.console.pages import ConsoleSettings, sub_matches
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.query.activity import decode_batch, newest_deliveries
from mqkafka.query.render import Body, render_as
from mqkafka.query.service import Sample
from mqkafka.query.state import RetainedView, SubscriptionView
from mqkafka.query.topictree import topic_tree, tree_rows

SUB = SubscriptionView(
    topic="Sport/#", namespace="", queue="FANS.Q", qmgr="QM1", correl_id=None, name="fans",
    identities=(), user_id="alice", options=("Local",), filter="score > 2",
    interface="RFH2", delivery_correl_id="ab" * 24,
)  # fmt: skip


def held(topic: str, namespace: str = "") -> RetainedView:
    return RetainedView(topic, namespace, Body("text", "x", 1), {}, 0, 0, -1, 0.0, ())


@pytest.mark.parametrize(
    ("subs", "retained", "rows"),
    [
        ([], [], []),
        (  # (depth, path, here subs, here retained, branch subs, branch retained)
            ["Sport/#", "Sport/Soccer"], ["Sport/Soccer", "Sport/Tennis"],
            [(0, "Sport", 0, 0, 2, 2), (1, "Sport/#", 1, 0, 1, 0),
             (1, "Sport/Soccer", 1, 1, 1, 1), (1, "Sport/Tennis", 0, 1, 0, 1)],
        ),
        (["A", "A", "A/B/C"], [], [(0, "A", 2, 0, 3, 0), (1, "A/B", 0, 0, 1, 0),
                                   (2, "A/B/C", 1, 0, 1, 0)]),
        (["/leading"], [], [(0, "", 0, 0, 1, 0), (1, "/leading", 1, 0, 1, 0)]),
    ],
)  # fmt: skip
def test_the_topic_tree_counts_each_node_and_its_branch(
    subs: list[str], retained: list[str], rows: list[tuple[Any, ...]]
) -> None:
    tree = topic_tree([replace(SUB, topic=t) for t in subs], [held(t) for t in retained])
    got = [(r.depth, r.path, r.subscribers, r.retained, r.branch_subscribers, r.branch_retained)
           for r in tree_rows(tree)]  # fmt: skip
    assert got == rows


def test_a_stream_keeps_its_own_branch_of_the_tree() -> None:
    tree = topic_tree([replace(SUB, topic="A", namespace="stream:S")], [held("A")])
    assert [r.path for r in tree_rows(tree)] == ["A", "[stream:S] A"]


@pytest.mark.parametrize(
    ("data", "kind", "shown_as", "text"),
    [
        (b'{"a":1}', "auto", "json", '{\n  "a": 1\n}'),
        (b'{"a":1}', "text", "text", '{"a":1}'),
        (b'{"a":1}', "hex", "hex", f"00000000  {'7b 22 61 22 3a 31 7d':<47}  " + '{"a":1}'),
        (b"not json", "json", "text", "not json"),
        (b"\xff\x00", "text", "text", "\ufffd\x00"),
        (b"abc", "nonsense", "text", "abc"),
    ],
)
def test_a_body_is_shown_as_asked(data: bytes, kind: str, shown_as: str, text: str) -> None:
    body = render_as(data, kind)
    assert (body.kind, body.text, body.length) == (shown_as, text, len(data))


def sample(at: float, publications: float, problem: str | None = None) -> Sample:
    counters = {"commands": 0.0, "publications": publications, "deliveries": 2 * publications,
                "errors": 0.0, "dead_letters": 0.0}  # fmt: skip
    return Sample(at, counters if problem is None else {}, {}, problem)


@pytest.mark.parametrize(
    ("before", "after", "rate"),
    [
        (None, sample(1.0, 5), None),  # a first sample: no rate yet
        (sample(1.0, 5), sample(3.0, 15), 5.0),
        (sample(1.0, 15), sample(3.0, 5), None),  # the worker restarted
        (sample(1.0, 5), sample(3.0, 0, "refused"), None),
    ],
)
def test_a_rate_event_is_the_change_per_second_or_none(
    before: Sample | None, after: Sample, rate: float | None
) -> None:
    event = rate_event(before, after, now=100.0)
    assert event["time"] == 100.0
    assert (event["rates"] or {}).get("publications") == rate
    assert event["problem"] == after.problem


def test_a_feed_keeps_its_last_good_sample_across_a_failed_one() -> None:
    samples = iter([sample(0.0, 0), sample(1.0, 0, "down"), sample(2.0, 10)])
    feed = RateFeed(lambda: next(samples))
    events = [feed.next_event(now=0.0) for _ in range(3)]
    assert [e["rates"] and e["rates"]["publications"] for e in events] == [None, None, 5.0]


def event(kind: int, queue: str, correl: bytes | None, time_ms: int) -> bytes:
    return encode(ActivityEvent(
        kind, time_ms, time_ms, "QM1", queue, "Publish", "ok", 0, "alice", queue, correl, None,
        ("Sport/Soccer",), bytes(24), False, 10, 1.0,
    ))  # fmt: skip


def test_the_newest_delivery_per_queue_and_correl_id_is_found_in_activity_batches() -> None:
    import fastavro

    schema = fastavro.parse_schema(batch_schema())
    one, two = b"\x01" * 24, b"\x02" * 24
    batch = encode_batch([
        event(DELIVERY, "FANS.Q", one, 1_000), event(DELIVERY, "FANS.Q", one, 3_000),
        event(DELIVERY, "FANS.Q", two, 2_000), event(COMMAND, "FANS.Q", one, 9_000),
    ])  # fmt: skip
    events = decode_batch(batch, schema) + decode_batch(b"\xff not avro", schema)
    assert newest_deliveries(events) == {("FANS.Q", one.hex()): 3_000, ("FANS.Q", two.hex()): 2_000}


@pytest.mark.parametrize(
    ("text", "found"),
    [("", True), ("fans", True), ("SPORT fans.q", True), ("score", True), ("local", True),
     ("bob", False), ("fans tennis", False)],
)  # fmt: skip
def test_the_subscription_filter_wants_every_word(text: str, found: bool) -> None:
    assert sub_matches(SUB, text) is found


@pytest.mark.parametrize(
    ("ms", "shown"), [(None, ""), (0, ""), (86_400_000, "1970-01-02 00:00:00 UTC")]
)
def test_times_read_in_utc(ms: int | None, shown: str) -> None:
    assert when(ms) == shown


@pytest.mark.parametrize("allow", [False, True])
def test_the_pages_offer_actions_only_when_allowed(allow: bool) -> None:
    """The templates render from the package (as installed) and hold no action form unless
    the console was started with --allow-actions."""
    settings = ConsoleSettings(ClientConfig("127.0.0.1:9092"), allow_actions=allow, token="t0k")
    request = SimpleNamespace(url=SimpleNamespace(path="/subscriptions"), query_params={})
    env = _environment()
    common = {"request": request, "nav": NAV, "path": "/subscriptions", "settings": settings,
              "notice": "", "failed": ""}  # fmt: skip
    subs = env.get_template("subscriptions.html").render(
        **common, rows=[(SUB, 86_400_000)], total=1, q=""
    )
    assert "Sport/#" in subs and "1970-01-02 00:00:00 UTC" in subs and "score &gt; 2" in subs
    assert ("/actions/delete-subscription" in subs) is allow and ("t0k" in subs) is allow
    assert ("actions on" in subs) is allow and ("read-only" in subs) is not allow


def test_a_view_kafka_cannot_give_says_why_without_blaming_kafka() -> None:
    """A state topic not created yet is no Kafka outage: the page says what is missing."""
    settings = ConsoleSettings(ClientConfig("127.0.0.1:9092"), token="t0k")
    request = SimpleNamespace(url=SimpleNamespace(path="/"), query_params={})
    problem = "state topic ns.mqk-subscriptions does not exist (run 'mqk topics apply')"
    page = _environment().get_template("error.html").render(
        request=request, nav=NAV, path="/", settings=settings, notice="", failed="",
        problem=problem,
    )  # fmt: skip
    assert "<h1>Cannot read this view from Kafka</h1>" in page
    assert "does not answer" not in page and "run &#39;mqk topics apply&#39;" in page
