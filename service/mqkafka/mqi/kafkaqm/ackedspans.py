"""Which records of a queue a getter acknowledged above the share group's start offset, as
spans (pure): what a browse passes over where it cannot read Kafka's ``__share_group_state``.

Kafka's start offset (SPSO) stays below a record still in flight (held under syncpoint
elsewhere, backed out, released), so a record got out of order lies above it. Kafka's lag
then says how many records above the start were got, not which; without the share state a
browse passed over that many of the *oldest* records (exact only for in-order gets): a
message got by MsgId showed, and an older one still on the queue did not (issue 35). Each
getter's answer in the browse barrier (:mod:`.browsebarrier`) names what it acknowledged
at or above the start as it read it after committing; the browser passes over those and
counts them out of the lag's number. An acknowledgement is for good, so an answer never goes
stale in what it names: a later one only names more (a record below the start is gone
anyway). Spans, not offsets: a getter acknowledges the runs of records its fetches
acquired, and one that gets in order names a single span however many it got.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules.matching import Position

Span = tuple[int, int, int]  # partition, first and last offset (inclusive)


class AckedSpans:
    """Per partition, sorted disjoint inclusive offset ranges (immutable)."""

    __slots__ = ("_firsts", "_lasts")

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        by_partition: dict[int, list[tuple[int, int]]] = {}
        for partition, first, last in spans:
            if last >= first:
                by_partition.setdefault(partition, []).append((first, last))
        self._firsts: dict[int, tuple[int, ...]] = {}
        self._lasts: dict[int, tuple[int, ...]] = {}
        for partition, ranges in by_partition.items():
            merged: list[tuple[int, int]] = []
            for first, last in sorted(ranges):
                if merged and first <= merged[-1][1] + 1:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], last))
                else:
                    merged.append((first, last))
            self._firsts[partition] = tuple(f for f, _ in merged)
            self._lasts[partition] = tuple(x for _, x in merged)

    @classmethod
    def of_positions(cls, positions: Iterable[Position]) -> AckedSpans:
        return cls((p, o, o) for p, o in positions)

    def spans(self) -> list[Span]:
        return [
            (p, f, x)
            for p in sorted(self._firsts)
            for f, x in zip(self._firsts[p], self._lasts[p], strict=True)
        ]

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, tuple) or len(position) != 2:
            return False
        partition, offset = position
        firsts = self._firsts.get(partition)
        if not firsts:
            return False
        i = bisect.bisect_right(firsts, offset) - 1
        return i >= 0 and offset <= self._lasts[partition][i]

    def count(self, partition: int, start: int, end: int) -> int:
        """How many offsets in ``[start, end)`` of ``partition`` are named."""
        firsts, lasts = self._firsts.get(partition, ()), self._lasts.get(partition, ())
        return sum(
            max(min(x, end - 1) - max(f, start) + 1, 0) for f, x in zip(firsts, lasts, strict=True)
        )

    def union(self, *others: AckedSpans) -> AckedSpans:
        return AckedSpans([*self.spans(), *(s for other in others for s in other.spans())])

    def __bool__(self) -> bool:
        return bool(self._firsts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AckedSpans) and self.spans() == other.spans()

    def __hash__(self) -> int:
        return hash(tuple(self.spans()))

    def __repr__(self) -> str:
        return f"AckedSpans({self.spans()!r})"

    # ---- in a heartbeat: [[partition, first, last], ...] ----

    def encode(self) -> list[list[int]]:
        return [list(span) for span in self.spans()]

    @classmethod
    def decode(cls, value: object) -> AckedSpans:
        """From a heartbeat's list; ``MQRC_OBJECT_DAMAGED`` when it is not one."""
        if not isinstance(value, list):
            raise MQError(RC.OBJECT_DAMAGED, f"acknowledged spans: {value!r}")
        spans: list[Span] = []
        for item in value:
            if (
                not isinstance(item, list)
                or len(item) != 3
                or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in item)
                or item[2] < item[1]
            ):
                raise MQError(RC.OBJECT_DAMAGED, f"acknowledged span: {item!r}")
            spans.append((item[0], item[1], item[2]))
        return cls(spans)


NONE = AckedSpans()

# The most spans one answer or ledger line names (about 20 bytes each in a heartbeat, whose
# record must stay well under Kafka's 1 MB): the lowest are kept, those a browse meets first;
# what lies above them is counted from the lag as before (getters alternating record by
# record above a start held back for long are the one way to reach it).
MAX_SPANS = 5_000


def acked_above(
    floors: Mapping[int, int], above: Iterable[Position], starts: Mapping[int, int]
) -> AckedSpans:
    """What a connection knows it acknowledged at or above each partition's start, from what
    it knows was got (:class:`~mqkafka.mqi.kafkaqm.logreader.Consumed`: everything below a
    per-partition floor, and positions above it). A partition without a start (the group
    has none yet, or it could not be asked) names nothing."""
    spans: list[Span] = []
    for partition, start in starts.items():
        if start < 0:
            continue
        floor = floors.get(partition, 0)
        if floor > start:
            spans.append((partition, start, floor - 1))
    spans += [(p, o, o) for p, o in above if starts.get(p, -1) >= 0 and o >= starts[p]]
    named = AckedSpans(spans)
    if len(named.spans()) <= MAX_SPANS:
        return named
    return AckedSpans(sorted(named.spans(), key=lambda s: (s[1], s[0]))[:MAX_SPANS])


# ---- the ledger: what a connection acknowledged above the start, after its MQCLOSE ----------

# A connection that closes an input handle (or ends: MQDISC) having acknowledged records above
# the start writes them in a record of its own in the heartbeat topic, keyed by this prefix
# and its id, which its MQDISC leaves in place: a browse passes over them after the getter is
# gone, for as long as an older record keeps the start below them (the browse barrier sweeps
# the record away once the start has passed every span, or the queue's topic is another).
LEDGER_PREFIX = "acked/"


@dataclass(frozen=True)
class LedgerEntry:
    """One queue's line: the Kafka topic id (hex; "" not known) and the spans."""

    topic_id: str
    spans: AckedSpans

    def passed(self, starts: Mapping[int, int]) -> bool:
        """Every span lies below its partition's start (a start not known: not passed)."""
        return all(starts.get(p, -1) > last for p, _, last in self.spans.spans())


Ledger = Mapping[str, LedgerEntry]  # queue -> its line


def encode_lines(ledger: Ledger) -> dict[str, dict[str, object]]:
    """The lines as a heartbeat's ``acked`` map and a ledger record carry them."""
    return {q: {"topic": e.topic_id, "spans": e.spans.encode()} for q, e in sorted(ledger.items())}


def decode_lines(value: object) -> dict[str, LedgerEntry]:
    """From :func:`encode_lines`' form; ``MQRC_OBJECT_DAMAGED`` when it is not one."""
    try:
        assert isinstance(value, dict)
        return {
            str(q): LedgerEntry(str(e["topic"]), AckedSpans.decode(e["spans"]))
            for q, e in value.items()
        }
    except (AssertionError, KeyError, TypeError) as error:
        raise MQError(RC.OBJECT_DAMAGED, f"acknowledged lines: {error!r}") from None


def encode_ledger(ledger: Ledger) -> bytes:
    body = {"schema": 1, "acked": encode_lines(ledger)}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def decode_ledger(value: bytes) -> dict[str, LedgerEntry]:
    """The ledger in ``value``; ``MQRC_OBJECT_DAMAGED`` when it is not one."""
    try:
        body = json.loads(value)
        if body.get("schema") != 1:
            raise ValueError("unknown schema")
        return decode_lines(body["acked"])
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise MQError(RC.OBJECT_DAMAGED, f"acknowledgement ledger: {error}") from None


__all__ = [
    "LEDGER_PREFIX",
    "MAX_SPANS",
    "NONE",
    "AckedSpans",
    "Ledger",
    "LedgerEntry",
    "Span",
    "acked_above",
    "decode_ledger",
    "decode_lines",
    "encode_ledger",
    "encode_lines",
]
