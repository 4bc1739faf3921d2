"""RocksState beyond the store contract: what survives a reopen, the clean-shutdown marker,
atomic batches with offsets, wipe, applying state-topic records, prefix scans."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rocksdict import Options, Rdict

from mqkafka.engine.records import Publication
from mqkafka.engine.stores import MemoryRetainedStore, RetainedStore
from mqkafka.engine.topicspace import ROOT, Namespace
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.state import recordcodec as codec
from mqkafka.state.rocks import RocksState, retained_with_prefix
from tests.unit.state.strategies import pub, publications, publisher, sub

SPORT = Namespace.stream("Sport")
RETAINED_TOPIC = "mqk-retained"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def state(path: Path) -> Iterator[RocksState]:
    with RocksState(path) as opened:
        yield opened


def fill(state: RocksState) -> None:
    state.subscriptions.put(sub("Sport/#", name="all-sport"))
    state.subscriptions.put(sub("News/#", namespace=SPORT))
    for i in range(5):
        state.retained.put(pub(f"Sport/{i}", body=bytes([i])))
    state.retained.put(pub("Soccer", namespace=SPORT))
    state.publishers.put(publisher("Sport/Soccer", implicit=True))


def snapshot(state: RocksState) -> tuple[object, ...]:
    return (
        sorted(state.subscriptions, key=repr),
        sorted(state.retained, key=repr),
        sorted(state.publishers, key=repr),
        (len(state.subscriptions), len(state.retained), len(state.publishers)),
        state.offsets(),
    )


# ---- reopen -----------------------------------------------------------------------------------


def test_reopen_finds_the_same_contents_counts_and_offsets(path: Path) -> None:
    with RocksState(path) as state:
        fill(state)
        state.set_offsets({(RETAINED_TOPIC, 0): 42, ("mqk-subscriptions", 3): 7})
        before = snapshot(state)
    with RocksState(path) as state:
        assert snapshot(state) == before
        assert before[3] == (2, 6, 1)
        assert state.offsets() == {(RETAINED_TOPIC, 0): 42, ("mqk-subscriptions", 3): 7}


def test_counts_persist_through_deletes_and_replacements(path: Path) -> None:
    """``len`` is a persisted counter, kept in step by every write (not a scan at open)."""
    with RocksState(path) as state:
        fill(state)
        state.retained.put(pub("Sport/0", body=b"again"))  # replace: no change
        state.retained.delete(ROOT, "Sport/1")
        state.retained.delete(ROOT, "Sport/1")  # missing: no change
        state.subscriptions.delete(sub("Sport/#").key)
    with RocksState(path) as state:
        assert (len(state.subscriptions), len(state.retained), len(state.publishers)) == (1, 5, 1)
        assert len(state.retained) == sum(1 for _ in state.retained)


# ---- the clean-shutdown marker ------------------------------------------------------------------


def test_a_new_database_was_not_clean(state: RocksState) -> None:
    assert state.was_clean() is False


def test_mark_clean_then_reopen_is_clean_once(path: Path) -> None:
    """Set at clean close, cleared at open: a crash after this open leaves it unset."""
    with RocksState(path) as state:
        fill(state)
        state.flush()
        state.mark_clean()
    with RocksState(path) as state:
        assert state.was_clean() is True
    with RocksState(path) as state:
        assert state.was_clean() is False


def test_a_write_after_mark_clean_clears_the_marker(path: Path) -> None:
    with RocksState(path) as state:
        state.mark_clean()
        state.retained.put(pub("late"))
    with RocksState(path) as state:
        assert state.was_clean() is False
        assert state.retained.get(ROOT, "late") is not None


def test_offsets_after_mark_clean_clear_the_marker(path: Path) -> None:
    with RocksState(path) as state:
        state.mark_clean()
        state.set_offsets({(RETAINED_TOPIC, 0): 1})
    with RocksState(path) as state:
        assert state.was_clean() is False


def test_mark_clean_inside_a_batch_is_refused(state: RocksState) -> None:
    with pytest.raises(MQError) as caught, state.batch():
        state.mark_clean()
    assert caught.value.reason == RC.UNEXPECTED_ERROR


# ---- batches and offsets --------------------------------------------------------------------


def test_a_batch_commits_data_and_offsets_together(path: Path) -> None:
    with RocksState(path) as state:
        with state.batch():
            state.retained.put(pub("a"))
            state.subscriptions.put(sub("a"))
            state.set_offsets({(RETAINED_TOPIC, 0): 10})
            assert state.offsets() == {(RETAINED_TOPIC, 0): 10}  # reads see the batch
            assert len(state.retained) == 1
        assert state.offsets() == {(RETAINED_TOPIC, 0): 10}
    with RocksState(path) as state:
        assert state.retained.get(ROOT, "a") is not None
        assert state.subscriptions.get(sub("a").key) is not None
        assert state.offsets() == {(RETAINED_TOPIC, 0): 10}


def test_a_failed_batch_writes_nothing(path: Path) -> None:
    with RocksState(path) as state:
        state.retained.put(pub("kept"))
        state.set_offsets({(RETAINED_TOPIC, 0): 5})
        with pytest.raises(RuntimeError), state.batch():
            state.retained.delete(ROOT, "kept")
            state.retained.put(pub("new"))
            state.set_offsets({(RETAINED_TOPIC, 0): 6})
            raise RuntimeError("the Kafka transaction aborted")
        assert [p.topic.text for p in state.retained] == ["kept"]
        assert len(state.retained) == 1
        assert state.offsets() == {(RETAINED_TOPIC, 0): 5}
    with RocksState(path) as state:
        assert [p.topic.text for p in state.retained] == ["kept"]
        assert state.offsets() == {(RETAINED_TOPIC, 0): 5}


def test_nested_batches_join_the_outer_one(state: RocksState) -> None:
    with pytest.raises(RuntimeError), state.batch():
        with state.batch():
            state.retained.put(pub("inner"))
        assert state.retained.get(ROOT, "inner") is not None
        raise RuntimeError("outer fails")
    assert state.retained.get(ROOT, "inner") is None
    assert len(state.retained) == 0


def test_set_offsets_updates_only_the_partitions_named(state: RocksState) -> None:
    state.set_offsets({(RETAINED_TOPIC, 0): 1, (RETAINED_TOPIC, 1): 2})
    state.set_offsets({(RETAINED_TOPIC, 1): 3})
    assert state.offsets() == {(RETAINED_TOPIC, 0): 1, (RETAINED_TOPIC, 1): 3}


@pytest.mark.parametrize(
    "offsets",
    [{("t", -1): 0}, {("t", 2**31): 0}, {("t", 0): 2**63}],
    ids=["negative-partition", "partition-overflow", "offset-overflow"],
)
def test_impossible_offsets_are_refused(
    state: RocksState, offsets: dict[tuple[str, int], int]
) -> None:
    with pytest.raises(MQError):
        state.set_offsets(offsets)
    assert state.offsets() == {}


def test_a_crash_keeps_whole_batches_only(path: Path) -> None:
    """A process that dies inside a batch leaves the last committed batch, whole."""
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from mqkafka.state.rocks import RocksState
        from tests.unit.state.strategies import pub
        state = RocksState(Path({str(path)!r}))
        with state.batch():
            for i in range(100):
                state.retained.put(pub(f"committed/{{i}}"))
            state.set_offsets({{("mqk-retained", 0): 100}})
        with state.batch():
            for i in range(100):
                state.retained.put(pub(f"lost/{{i}}"))
            state.set_offsets({{("mqk-retained", 0): 200}})
            os._exit(3)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=Path.cwd(), timeout=60, check=False)
    assert done.returncode == 3
    with RocksState(path) as state:
        assert state.was_clean() is False
        assert len(state.retained) == 100
        assert all(p.topic.text.startswith("committed/") for p in state.retained)
        assert state.offsets() == {(RETAINED_TOPIC, 0): 100}


def test_a_killed_service_store_holds_its_last_settled_transaction(path: Path) -> None:
    """The service's protocol: a batch open per transaction, settled at its end. Killed in
    the middle of one, the store is the last settled end, and says it may be read on from."""
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from mqkafka.state.rocks import RocksState
        from tests.unit.state.strategies import pub
        state = RocksState(Path({str(path)!r}))
        state.begin()
        for i in range(50):
            state.retained.put(pub(f"committed/{{i}}"))
        state.settle({{("mqk-retained", 0): 7}})
        state.begin()
        for i in range(50):
            state.retained.put(pub(f"in-flight/{{i}}"))
        assert len(state.retained) == 100  # the open batch reads its own writes
        os._exit(3)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=Path.cwd(), timeout=60, check=False)
    assert done.returncode == 3
    with RocksState(path) as state:
        assert state.was_clean() is False and state.settled() is True
        assert sorted(p.topic.text for p in state.retained) == sorted(
            f"committed/{i}" for i in range(50)
        )
        assert len(state.retained) == 50
        assert state.offsets() == {(RETAINED_TOPIC, 0): 7}


@pytest.mark.parametrize(
    ("how", "settled"),
    [
        ("never settled: written directly, as a version before settle did", False),
        ("settled once", True),
        ("settled, then wiped", False),
    ],
)
def test_settled_says_whether_only_transaction_ends_were_written(
    path: Path, how: str, settled: bool
) -> None:
    with RocksState(path) as state:
        assert state.settled() is False
        if how.startswith("never"):
            state.retained.put(pub("direct"))
        else:
            state.begin()
            state.retained.put(pub("in-a-batch"))
            state.settle({(RETAINED_TOPIC, 0): 1})
            if how.endswith("wiped"):
                state.wipe()
    with RocksState(path) as state:
        assert state.settled() is settled


def test_a_discarded_batch_leaves_nothing(state: RocksState) -> None:
    state.retained.put(pub("kept"))
    state.begin()
    state.retained.put(pub("dropped"))
    state.retained.delete(ROOT, "kept")
    state.set_offsets({(RETAINED_TOPIC, 0): 5})
    state.discard()
    assert [p.topic.text for p in state.retained] == ["kept"]
    assert len(state.retained) == 1 and state.offsets() == {}


# ---- wipe, damage, lifecycle ----------------------------------------------------------------


def test_wipe_forgets_everything_and_the_state_stays_usable(path: Path) -> None:
    with RocksState(path) as state:
        fill(state)
        state.set_offsets({(RETAINED_TOPIC, 0): 9})
        state.wipe()
        assert snapshot(state) == ([], [], [], (0, 0, 0), {})
        state.retained.put(pub("after"))
    with RocksState(path) as state:
        assert [p.topic.text for p in state.retained] == ["after"]
        assert state.offsets() == {}


def test_a_damaged_stored_value_is_object_damaged(path: Path) -> None:
    with RocksState(path) as state:
        state.retained.put(pub("a"))
    raw = Rdict(str(path), Options(raw_mode=True), column_families=_families())
    raw.get_column_family("retained")[codec.retained_key(ROOT, "a")] = b"\x01\x02"
    raw.close()
    del raw
    with RocksState(path) as state:
        with pytest.raises(MQError) as caught:
            state.retained.get(ROOT, "a")
        assert caught.value.reason == RC.OBJECT_DAMAGED


def test_an_unknown_layout_is_refused(path: Path) -> None:
    RocksState(path).close()
    raw = Rdict(str(path), Options(raw_mode=True), column_families=_families())
    raw[b"layout"] = b"99"
    raw.close()
    del raw
    with pytest.raises(MQError) as caught:
        RocksState(path)
    assert caught.value.reason == RC.OBJECT_DAMAGED


def _families() -> dict[str, Options]:
    return {name: Options(raw_mode=True) for name in ("subscriptions", "retained", "publishers")}


def test_a_closed_state_refuses_writes(path: Path) -> None:
    state = RocksState(path)
    state.close()
    state.close()  # closing twice is harmless
    with pytest.raises(MQError, match="closed") as caught:
        state.retained.put(pub("a"))
    assert caught.value.reason == RC.HOBJ_ERROR
    with pytest.raises(MQError, match="closed"):
        state.retained.get(ROOT, "a")


# ---- state-topic records ------------------------------------------------------------------


def test_apply_record_puts_and_tombstones(state: RocksState) -> None:
    p = pub("Sport/Soccer", body=b"1-0")
    key = codec.retained_key(p.namespace, p.topic.text)
    state.retained.apply_record(key, codec.encode_retained(p))
    assert state.retained.get(ROOT, "Sport/Soccer") == p
    state.retained.apply_record(key, None)
    assert state.retained.get(ROOT, "Sport/Soccer") is None
    s = sub("Sport/#")
    state.subscriptions.apply_record(codec.subscription_key(s.key), codec.encode_subscription(s))
    assert list(state.subscriptions) == [s]
    r = publisher("a")
    state.publishers.apply_record(codec.publisher_key(r.key), codec.encode_publisher(r))
    assert list(state.publishers) == [r]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (codec.retained_key(ROOT, "other"), codec.encode_retained(pub("a"))),
        (codec.retained_key(ROOT, "a"), b"garbage"),
    ],
    ids=["value-under-another-key", "undecodable"],
)
def test_apply_record_refuses_damaged_records(state: RocksState, key: bytes, value: bytes) -> None:
    with pytest.raises(MQError) as caught:
        state.retained.apply_record(key, value)
    assert caught.value.reason == RC.OBJECT_DAMAGED
    assert len(state.retained) == 0


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.booleans(), st.binary(max_size=3)),
        max_size=20,
    )
)
def test_replaying_the_compacted_topic_equals_replaying_the_history(
    history: list[tuple[str, bool, bytes]],
) -> None:
    """Architecture §5: "Retained publications keyed by topic, so Kafka compaction *is*
    retain semantics: replaying the compacted topic gives the same state as replaying the
    full history". Compaction keeps the last record per key (tombstones included)."""
    records = [
        (
            codec.retained_key(ROOT, topic),
            codec.encode_retained(pub(topic, body=body)) if keep else None,
        )
        for topic, keep, body in history
    ]
    compacted = dict(records)  # the last value per key, in first-seen key order
    with (
        tempfile.TemporaryDirectory() as tmp,
        RocksState(Path(tmp) / "full") as full,
        RocksState(Path(tmp) / "compact") as small,
    ):
        for key, value in records:
            full.retained.apply_record(key, value)
        for key, value in compacted.items():
            small.retained.apply_record(key, value)
        assert list(full.retained) == list(small.retained)
        assert len(full.retained) == len(small.retained)


# ---- prefix scans ---------------------------------------------------------------------------


def test_with_prefix_is_a_prefix_scan_in_topic_order(state: RocksState) -> None:
    for topic in ["Sport/Tennis", "Sport/Soccer/Results", "Sport", "Sportsman", "News/Sport"]:
        state.retained.put(pub(topic))
        state.retained.put(pub(topic, namespace=SPORT))
    found = [p.topic.text for p in state.retained.with_prefix(ROOT, "Sport/")]
    assert found == ["Sport/Soccer/Results", "Sport/Tennis"]
    assert list(state.retained.topics(ROOT, "Sport")) == [
        "Sport",
        "Sport/Soccer/Results",
        "Sport/Tennis",
        "Sportsman",
    ]
    assert [p.topic.text for p in state.retained.in_namespace(ROOT)] == sorted(
        ["Sport/Tennis", "Sport/Soccer/Results", "Sport", "Sportsman", "News/Sport"]
    )


def test_topics_inside_a_batch_see_its_writes(state: RocksState) -> None:
    state.retained.put(pub("a/1"))
    state.retained.put(pub("a/2"))
    with state.batch():
        state.retained.delete(ROOT, "a/1")
        state.retained.put(pub("a/0"))
        state.retained.put(pub("a/3"))
        assert list(state.retained.topics(ROOT, "a/")) == ["a/0", "a/2", "a/3"]
        assert [p.topic.text for p in state.retained.with_prefix(ROOT, "a/")] == [
            "a/0",
            "a/2",
            "a/3",
        ]


def test_scans_stay_complete_however_long_they_are_held(state: RocksState) -> None:
    """Regression: RocksDB's upper bound lives in the ReadOptions; a scan must keep it alive
    (scans used to stop early once it was garbage)."""
    for i in range(300):
        state.retained.put(pub(f"t/{i:03}"))
    state.retained.put(pub("t", namespace=Namespace.subpoint("x")))
    for round_ in range(50):
        scans = [state.retained.topics(ROOT) for _ in range(3)]
        _ = [bytes([round_ % 7, 1]) * 2 for _ in range(2000)]  # churn the allocator
        assert [sum(1 for _ in scan) for scan in scans] == [300, 300, 300]


@pytest.mark.parametrize("kind", ["memory", "rocks"])
@settings(max_examples=30, deadline=None)
@given(
    items=st.lists(publications(namespaces=st.sampled_from([ROOT, SPORT])), max_size=12),
    prefix=st.sampled_from(["", "a", "\u00e9", "0"]) | st.text(max_size=2),
)
def test_retained_with_prefix_works_on_any_store(
    kind: str, items: list[object], prefix: str
) -> None:
    pubs = [p for p in items if isinstance(p, Publication)]
    with tempfile.TemporaryDirectory() as tmp:
        state = RocksState(Path(tmp)) if kind == "rocks" else None
        store: RetainedStore = state.retained if state else MemoryRetainedStore()
        latest: dict[tuple[Namespace, str], object] = {}
        for p in pubs:
            store.put(p)
            latest[p.namespace, p.topic.text] = p
        expected = sorted(
            (p for (ns, topic), p in latest.items() if ns == ROOT and topic.startswith(prefix)),
            key=lambda p: p.topic.text,  # type: ignore[attr-defined]
        )
        assert list(retained_with_prefix(store, ROOT, prefix)) == expected
        if state:
            state.close()
