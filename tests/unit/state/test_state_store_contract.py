"""The store contract (``mqkafka.engine.stores`` Protocols), run against every implementation:
the in-memory stores, the RocksDB stores, and the RocksDB stores inside an open batch (where
reads must see the batch's own writes)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.engine.records import Publication, Publisher, Subscription
from mqkafka.engine.stores import (
    MemoryPublisherStore,
    MemoryRetainedStore,
    MemorySubscriptionStore,
    PublisherStore,
    RetainedStore,
    SubscriptionStore,
)
from mqkafka.engine.topicspace import ROOT, Namespace
from mqkafka.state.rocks import RocksState
from tests.unit.state.strategies import (
    PUBLISHERS,
    Q_CORREL,
    TOPICS,
    pub,
    publications,
    publisher,
    sub,
    subscriptions,
)

KINDS = ["memory", "rocks", "rocks-in-batch"]
SPORT_STREAM = Namespace.stream("Sport")
SPORT_SUBPOINT = Namespace.subpoint("Sport")


@dataclass
class Stores:
    subscriptions: SubscriptionStore
    retained: RetainedStore
    publishers: PublisherStore


def memory_stores() -> Stores:
    return Stores(MemorySubscriptionStore(), MemoryRetainedStore(), MemoryPublisherStore())


def rocks_stores(state: RocksState) -> Stores:
    return Stores(state.subscriptions, state.retained, state.publishers)


@pytest.fixture(params=KINDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    state = RocksState(tmp_path / "state")
    try:
        if request.param == "rocks-in-batch":
            with state.batch():
                yield rocks_stores(state)
        else:
            yield rocks_stores(state)
    finally:
        state.close()


# ---- subscriptions --------------------------------------------------------------------------


def test_subscription_get_missing_is_none(stores: Stores) -> None:
    assert stores.subscriptions.get(sub().key) is None
    assert len(stores.subscriptions) == 0


def test_subscription_put_then_get(stores: Stores) -> None:
    s = sub(name="results")
    stores.subscriptions.put(s)
    assert stores.subscriptions.get(s.key) == s
    assert len(stores.subscriptions) == 1


def test_subscription_put_replaces_the_same_key(stores: Stores) -> None:
    """Protocol: put "Insert or replace the subscription with the same key"."""
    first = sub(name="a")
    second = replace(first, name="b", user_data="changed")
    stores.subscriptions.put(first)
    stores.subscriptions.put(second)
    assert stores.subscriptions.get(first.key) == second
    assert len(stores.subscriptions) == 1
    assert list(stores.subscriptions) == [second]


def test_subscription_delete(stores: Stores) -> None:
    keep, drop = sub("Sport/#"), sub("News/#")
    stores.subscriptions.put(keep)
    stores.subscriptions.put(drop)
    stores.subscriptions.delete(drop.key)
    assert stores.subscriptions.get(drop.key) is None
    assert stores.subscriptions.get(keep.key) == keep
    assert len(stores.subscriptions) == 1


def test_subscription_delete_missing_is_not_an_error(stores: Stores) -> None:
    """Protocol: delete - "a missing key is not an error"."""
    stores.subscriptions.put(sub("Sport/#"))
    stores.subscriptions.delete(sub("News/#").key)
    stores.subscriptions.delete(sub("News/#").key)
    assert len(stores.subscriptions) == 1


def test_subscriptions_differing_only_in_key_parts_are_apart(stores: Stores) -> None:
    """The key is namespace + identity + topic + Filter (S0: DeregSub and ReqUpdate repeat
    Topic, SubPoint and Filter): change any one and it is another subscription."""
    base = sub("Sport/#")
    variants = [
        base,
        sub("Sport/#", namespace=SPORT_SUBPOINT),
        sub("Sport/#", namespace=SPORT_STREAM),
        sub("Sport/#", identity=Q_CORREL),
        sub("Sport/+"),
        replace(base, key=replace(base.key, filter="colour = 'red'")),
        replace(base, key=replace(base.key, filter="")),
    ]
    for s in variants:
        stores.subscriptions.put(s)
    assert len(stores.subscriptions) == len(variants)
    assert {s.key for s in stores.subscriptions} == {s.key for s in variants}
    for s in variants:
        assert stores.subscriptions.get(s.key) == s


def test_subscriptions_iterate_over_everything(stores: Stores) -> None:
    items = [sub(f"T/{i}", name=f"n{i}") for i in range(20)]
    for s in items:
        stores.subscriptions.put(s)
    assert sorted(stores.subscriptions, key=repr) == sorted(items, key=repr)


def test_subscriptions_may_change_while_iterating(stores: Stores) -> None:
    """The in-memory stores iterate over a copy; every store lets a caller delete as it goes."""
    for i in range(10):
        stores.subscriptions.put(sub(f"T/{i}"))
    seen = 0
    for s in stores.subscriptions:
        stores.subscriptions.delete(s.key)
        seen += 1
    assert seen == 10
    assert len(stores.subscriptions) == 0
    assert list(stores.subscriptions) == []


# ---- retained publications ------------------------------------------------------------------


def test_retained_get_missing_is_none(stores: Stores) -> None:
    assert stores.retained.get(ROOT, "Sport") is None
    assert len(stores.retained) == 0


def test_retained_put_then_get(stores: Stores) -> None:
    p = pub("Sport/Soccer", body=b"1-0")
    stores.retained.put(p)
    assert stores.retained.get(ROOT, "Sport/Soccer") == p
    assert len(stores.retained) == 1


def test_retained_put_replaces_the_one_for_the_topic(stores: Stores) -> None:
    """Reference §4.3: one retained publication per topic, the newest replaces older."""
    stores.retained.put(pub("Sport/Soccer", body=b"1-0"))
    stores.retained.put(pub("Sport/Soccer", body=b"2-0"))
    got = stores.retained.get(ROOT, "Sport/Soccer")
    assert got is not None and got.content.body == b"2-0"
    assert len(stores.retained) == 1


def test_retained_delete_and_delete_missing(stores: Stores) -> None:
    stores.retained.put(pub("a"))
    stores.retained.put(pub("b"))
    stores.retained.delete(ROOT, "a")
    stores.retained.delete(ROOT, "a")
    stores.retained.delete(ROOT, "never")
    assert stores.retained.get(ROOT, "a") is None
    assert [p.topic.text for p in stores.retained] == ["b"]
    assert len(stores.retained) == 1


def test_retained_namespaces_are_kept_apart(stores: Stores) -> None:
    """Reference §1.4: "A stream is a separate topic space"; a stream and a subpoint of the
    same name are different namespaces."""
    spaces = [ROOT, SPORT_STREAM, SPORT_SUBPOINT, Namespace.subpoint("Sport2")]
    for index, ns in enumerate(spaces):
        stores.retained.put(pub("Soccer", namespace=ns, body=bytes([index])))
        stores.retained.put(pub(f"only/{index}", namespace=ns))
    assert len(stores.retained) == 2 * len(spaces)
    for index, ns in enumerate(spaces):
        got = stores.retained.get(ns, "Soccer")
        assert got is not None and got.content.body == bytes([index])
        topics = sorted(p.topic.text for p in stores.retained.in_namespace(ns))
        assert topics == ["Soccer", f"only/{index}"]
        assert all(p.namespace == ns for p in stores.retained.in_namespace(ns))
    stores.retained.delete(SPORT_STREAM, "Soccer")
    assert stores.retained.get(SPORT_STREAM, "Soccer") is None
    assert stores.retained.get(SPORT_SUBPOINT, "Soccer") is not None


def test_retained_in_an_empty_namespace_is_empty(stores: Stores) -> None:
    stores.retained.put(pub("a", namespace=SPORT_STREAM))
    assert list(stores.retained.in_namespace(Namespace.stream("Other"))) == []
    assert list(stores.retained.in_namespace(Namespace.stream("Spor"))) == []


def test_retained_may_change_while_iterating(stores: Stores) -> None:
    for i in range(10):
        stores.retained.put(pub(f"t/{i}"))
    for p in stores.retained.in_namespace(ROOT):
        stores.retained.delete(p.namespace, p.topic.text)
        stores.retained.put(pub(f"new/{p.topic.text}", namespace=SPORT_STREAM))
    assert list(stores.retained.in_namespace(ROOT)) == []
    assert len(stores.retained) == 10


# ---- publishers -----------------------------------------------------------------------------


def test_publisher_put_get_replace_delete(stores: Stores) -> None:
    p = publisher("Sport/Soccer")
    assert stores.publishers.get(p.key) is None
    stores.publishers.put(p)
    assert stores.publishers.get(p.key) == p
    implicit = replace(p, implicit=True)
    stores.publishers.put(implicit)
    assert stores.publishers.get(p.key) == implicit
    assert len(stores.publishers) == 1
    stores.publishers.delete(p.key)
    stores.publishers.delete(p.key)
    assert stores.publishers.get(p.key) is None
    assert len(stores.publishers) == 0


def test_publishers_iterate_and_keep_streams_apart(stores: Stores) -> None:
    items = [publisher("a"), publisher("a", namespace=SPORT_STREAM), publisher("b")]
    for p in items:
        stores.publishers.put(p)
    assert len(stores.publishers) == 3
    assert sorted(stores.publishers, key=repr) == sorted(items, key=repr)


def test_the_three_stores_are_independent(stores: Stores) -> None:
    stores.subscriptions.put(sub("a"))
    stores.retained.put(pub("a"))
    stores.retained.put(pub("b"))
    stores.publishers.put(publisher("a"))
    assert (len(stores.subscriptions), len(stores.retained), len(stores.publishers)) == (1, 2, 1)


# ---- differential: every store agrees with the in-memory one on random histories -----------

SHORT_TOPICS = TOPICS.filter(lambda t: len(t.text) < 3)  # so that topics repeat


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, object]]:
    """Operations on a small pool of values per store, so that puts replace and deletes hit."""
    pools: dict[str, list[object]] = {
        "sub": draw(st.lists(subscriptions(), min_size=1, max_size=4)),
        "pub": draw(st.lists(publications(topics=SHORT_TOPICS), min_size=1, max_size=4)),
        "reg": draw(st.lists(PUBLISHERS, min_size=1, max_size=4)),
    }
    ops = st.tuples(st.sampled_from(["put", "del"]), st.sampled_from(sorted(pools)))
    history = []
    for verb, kind in draw(st.lists(ops, max_size=25)):
        history.append((f"{verb}-{kind}", draw(st.sampled_from(pools[kind]))))
    return history


def _apply(stores: Stores, op: str, value: object) -> None:
    match op, value:
        case "put-sub", Subscription():
            stores.subscriptions.put(value)
        case "del-sub", Subscription():
            stores.subscriptions.delete(value.key)
        case "put-pub", Publication():
            stores.retained.put(value)
        case "del-pub", Publication():
            stores.retained.delete(value.namespace, value.topic.text)
        case "put-reg", Publisher():
            stores.publishers.put(value)
        case "del-reg", Publisher():
            stores.publishers.delete(value.key)


def _same(a: Stores, b: Stores, touched: list[object]) -> None:
    assert len(a.subscriptions) == len(b.subscriptions)
    assert len(a.retained) == len(b.retained)
    assert len(a.publishers) == len(b.publishers)
    assert set(a.subscriptions) == set(b.subscriptions)
    assert set(a.retained) == set(b.retained)
    assert set(a.publishers) == set(b.publishers)
    for value in touched:
        if isinstance(value, Subscription):
            assert a.subscriptions.get(value.key) == b.subscriptions.get(value.key)
        elif isinstance(value, Publication):
            ns = value.namespace
            assert a.retained.get(ns, value.topic.text) == b.retained.get(ns, value.topic.text)
            assert set(a.retained.in_namespace(ns)) == set(b.retained.in_namespace(ns))
        elif isinstance(value, Publisher):
            assert a.publishers.get(value.key) == b.publishers.get(value.key)


@settings(max_examples=40, deadline=None)
@given(history=histories(), in_batch=st.booleans())
def test_rocks_stores_agree_with_memory_stores(
    history: list[tuple[str, object]], in_batch: bool
) -> None:
    model = memory_stores()
    with tempfile.TemporaryDirectory() as tmp:
        state = RocksState(Path(tmp))
        try:
            rocks = rocks_stores(state)
            if in_batch:
                with state.batch():
                    for op, value in history:
                        _apply(model, op, value)
                        _apply(rocks, op, value)
                        _same(model, rocks, [value])
            else:
                for op, value in history:
                    _apply(model, op, value)
                    _apply(rocks, op, value)
                    _same(model, rocks, [value])
            _same(model, rocks, [value for _, value in history])
        finally:
            state.close()
