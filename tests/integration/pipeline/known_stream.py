"""A known stream of activity events and, independently, the aggregates it must give.

The oracle below recomputes every table from the events in plain Python, following the rules
written in ``mqkafka.pipeline.aggregates`` and ``tables`` (not their code).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from mqkafka.activity.events import COMMAND, DELIVERY, ActivityEvent
from mqkafka.mq.reasons import RC
from mqkafka.pipeline import histogram

T0 = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
STREAM, CONTROL = "SYSTEM.BROKER.DEFAULT.STREAM", "SYSTEM.BROKER.CONTROL.QUEUE"


def at(minute: int, second: float = 0.0) -> int:
    return int((T0 + timedelta(minutes=minute, seconds=second)).timestamp() * 1000)


def msg(tag: str) -> bytes:
    return tag.encode().ljust(24, b"\0")


def command(
    minute: int, second: float, name: str | None, topics: tuple[str, ...], tag: str, *,
    completion: str = "ok", reason: int = 0, identity: str | None = None, size: int = 100,
    latency: float = 5.0, queue: str | None = None,
) -> ActivityEvent:  # fmt: skip
    time_ms = at(minute, second)
    return ActivityEvent(
        COMMAND, time_ms, time_ms - int(latency), "QM1",
        queue or (STREAM if name in ("Publish", "DeletePub") else CONTROL), name, completion,
        reason, "fred", identity, None, None, topics, msg(tag), False, size, latency,
    )  # fmt: skip


def deliveries(
    minute: int, second: float, topic: str, tag: str, queues: Iterable[str], *,
    latency: float = 5.0, size: int = 150,
) -> list[ActivityEvent]:  # fmt: skip
    time_ms = at(minute, second)
    return [
        ActivityEvent(
            DELIVERY,
            time_ms,
            time_ms - int(latency),
            "QM1",
            queue,
            "Publish",
            "ok",
            0,
            "sub",
            queue,
            b"\x01" * 24,
            None,
            (topic,),
            msg(tag),
            False,
            size,
            latency,
        )
        for queue in queues
    ]


def publication(
    minute: int, second: float, topic: str, tag: str, queues: Iterable[str], latency: float
) -> list[ActivityEvent]:
    return [
        command(minute, second, "Publish", (topic,), tag, latency=latency),
        *deliveries(minute, second, topic, tag, queues, latency=latency),
    ]


def known_stream() -> list[ActivityEvent]:
    """Three minutes of activity touching every rule."""
    return [
        # minute 0: fan-out 3 and 1, a failed publish, a RegSub with a retained delivery
        *publication(0, 1, "Sport/Soccer", "A", ["Q1", "Q2", "Q3"], latency=5),
        *publication(0, 2, "Sport/Tennis", "B", ["Q1"], latency=8),
        command(
            0,
            3,
            "Publish",
            ("Sport/Golf",),
            "C",
            completion="error",
            reason=RC.CF_NOT_AUTHORIZED,
            latency=4,
        ),
        command(0, 4, "RegSub", ("Sport/#",), "D", identity="Q1", latency=2),
        *deliveries(0, 4, "Sport/Soccer", "D", ["Q1"], latency=2),
        command(
            0,
            5,
            "RegSub",
            ("Sport/Soccer",),
            "D2",
            identity="Q2",
            completion="warning",
            reason=RC.CF_DUPLICATE_SUBSCRIPTION,
            latency=3,
        ),
        # minute 1: one Publish naming two topics, three publications with fan-out 1, 2, 3
        command(1, 0, "Publish", ("News/A", "News/B"), "E", latency=7, size=300),
        *deliveries(1, 0, "News/A", "E", ["Q1"], latency=7),
        *deliveries(1, 0, "News/B", "E", ["Q2"], latency=7),
        *publication(1, 10, "Sport/Soccer", "F", ["Q1"], latency=10),
        *publication(1, 20, "Sport/Soccer", "G", ["Q1", "Q2"], latency=20),
        *publication(1, 30, "Sport/Soccer", "H", ["Q1", "Q2", "Q3"], latency=30),
        command(
            1,
            40,
            "DeregSub",
            ("Sport/Golf",),
            "J",
            identity="Q3",
            completion="error",
            reason=RC.CF_NOT_REGISTERED,
            latency=1,
        ),
        command(1, 50, None, (), "K", completion="error", reason=RC.CF_COMMAND_FAILED),
        # refused: never traffic, however slow (a wildcard Publish; bad registration options,
        # refused before its command was parsed)
        command(
            1,
            55,
            "Publish",
            ("Sport/#",),
            "W",
            completion="error",
            reason=RC.CF_TOPIC_ERROR,
            latency=900,
        ),
        command(1, 56, None, (), "R", completion="error", reason=RC.CF_REG_OPTIONS_ERROR),
        # minute 2 (its last second): fan-out 4, a slow one
        *publication(2, 59.999, "Sport/Soccer", "I", ["Q1", "Q2", "Q3", "Q4"], latency=100),
    ]


def pusher(minute: int) -> ActivityEvent:
    """An event far enough ahead to move the watermark past the minutes before it."""
    return command(minute, 0, "ReqUpdate", ("Sport/Soccer",), "PUSH", identity="Q9")


# --------------------------------------------------------------------------------------------
# The oracle
# --------------------------------------------------------------------------------------------


def minute_of(event: ActivityEvent) -> datetime:
    start = event.time_ms // 60000 * 60000
    return datetime.fromtimestamp(start / 1000, UTC).replace(tzinfo=None)


def nearest_rank(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def _is_publish(e: ActivityEvent) -> bool:
    return e.kind == COMMAND and e.command == "Publish"


def _refused(e: ActivityEvent) -> bool:
    """A command the broker refused: never traffic (no message, no latency)."""
    return e.kind == COMMAND and e.completion == "error"


def topic_minute(events: list[ActivityEvent]) -> dict[tuple[Any, str], dict[str, Any]]:
    per_msg: dict[tuple[Any, str, bytes], list[ActivityEvent]] = defaultdict(list)
    for e in events:
        if e.kind == DELIVERY or _is_publish(e):
            for topic in e.topics:
                per_msg[minute_of(e), topic, e.msg_id].append(e)
    by_topic: dict[tuple[Any, str], list[list[ActivityEvent]]] = defaultdict(list)
    for (minute, topic, _), group in per_msg.items():
        by_topic[minute, topic].append(group)
    out = {}
    for key, messages in by_topic.items():
        flat = [e for m in messages for e in m]
        published = [e for e in flat if _is_publish(e) and e.completion != "error"]
        delivered = [e for e in flat if e.kind == DELIVERY]
        fanouts = [sum(e.kind == DELIVERY for e in m) for m in messages]
        carried = [m for m in messages if any(not _refused(e) for e in m)]
        latencies = [max(e.latency_ms for e in m if not _refused(e)) for m in carried]
        with_copies = [f for f in fanouts if f > 0]
        out[key] = {
            "publications": len(published),
            "failed_publications": sum(_is_publish(e) and e.completion != "ok" for e in flat),
            "deliveries": len(delivered),
            "published_bytes": sum(e.bytes for e in published),
            "delivered_bytes": sum(e.bytes for e in delivered),
            "messages": len(carried),
            "fanout_mean": sum(with_copies) / len(with_copies) if with_copies else None,
            "fanout_max": max(fanouts),
            "latency_p50_ms": nearest_rank(latencies, 0.5) if latencies else None,
            "latency_p99_ms": nearest_rank(latencies, 0.99) if latencies else None,
            "latency_max_ms": max(latencies) if latencies else None,
        }
    return out


def queue_minute(events: list[ActivityEvent]) -> dict[tuple[Any, str], dict[str, Any]]:
    groups: dict[tuple[Any, str], list[ActivityEvent]] = defaultdict(list)
    for e in events:
        queue = e.queue if e.kind == DELIVERY else e.identity_queue
        if queue is not None:
            groups[minute_of(e), queue].append(e)
    out = {}
    for key, group in groups.items():
        copies = [e for e in group if e.kind == DELIVERY]
        buckets = [(histogram.bucket(e.latency_ms), 1) for e in copies]
        out[key] = {
            "deliveries": len(copies),
            "delivered_bytes": sum(e.bytes for e in copies),
            "commands": sum(e.kind == COMMAND for e in group),
            "failures": sum(e.kind == COMMAND and e.completion != "ok" for e in group),
            "latency_p50_ms": histogram.percentile(buckets, 0.5),
            "latency_p99_ms": histogram.percentile(buckets, 0.99),
        }
    return out


def command_minute(events: list[ActivityEvent]) -> dict[tuple[Any, ...], int]:
    out: dict[tuple[Any, ...], int] = defaultdict(int)
    for e in events:
        if e.kind == COMMAND:
            key = (minute_of(e), e.queue, e.identity_queue, e.command, e.completion, e.reason)
            out[key] += 1
    return dict(out)


def minute_totals(events: list[ActivityEvent]) -> dict[Any, dict[str, Any]]:
    per_msg: dict[tuple[Any, bytes], list[ActivityEvent]] = defaultdict(list)
    commands: dict[Any, list[ActivityEvent]] = defaultdict(list)
    for e in events:
        if e.kind == DELIVERY or _is_publish(e):
            per_msg[minute_of(e), e.msg_id].append(e)
        if e.kind == COMMAND:
            commands[minute_of(e)].append(e)
    out: dict[Any, dict[str, Any]] = {}
    for minute in {m for m, _ in per_msg} | set(commands):
        messages = [g for (m, _), g in per_msg.items() if m == minute]
        fanouts = [sum(e.kind == DELIVERY for e in g) for g in messages]
        with_copies = [f for f in fanouts if f > 0]
        carried = [g for g in messages if any(not _refused(e) for e in g)]
        latencies = [max(e.latency_ms for e in g if not _refused(e)) for g in carried]
        ok_publish = [e for g in messages for e in g if _is_publish(e) and e.completion != "error"]
        out[minute] = {
            "publications": len(ok_publish),
            "deliveries": sum(fanouts),
            "published_bytes": sum(e.bytes for e in ok_publish),
            "delivered_bytes": sum(e.bytes for g in messages for e in g if e.kind == DELIVERY),
            "messages": len(carried),
            "fanout_mean": sum(with_copies) / len(with_copies) if with_copies else None,
            "fanout_max": max(fanouts) if fanouts else None,
            "latency_p50_ms": nearest_rank(latencies, 0.5) if latencies else None,
            "latency_p99_ms": nearest_rank(latencies, 0.99) if latencies else None,
            "commands": len(commands[minute]),
            "failures": sum(e.completion != "ok" for e in commands[minute]),
        }
    return out
