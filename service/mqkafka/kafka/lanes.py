"""One consumer per input topic, all in one group: each topic balanced over the workers.

A group's assignor balances what each *member* holds. With one consumer subscribed to the
control queue and the streams, ``cooperative-sticky`` counted the one-partition control
queue against a worker's share of a stream: four workers over a 4-partition stream held
{stream 2, stream 3}, {stream 1}, {stream 0}, {control queue 0}. Here each topic has its own
member per worker (a lane), in the same group, subscribed to that topic alone: the assignor
balances each topic over its lanes, so every worker holds ⌊P/W⌋ or ⌈P/W⌉ of each stream,
the control queue is nobody's share of a stream, and a join or leave still moves only what
must move (cooperative). The offsets stay in the one group (a worker that had one consumer
reads on from them), and a transaction commits each lane's offsets with that lane's group
metadata, so a lane the group fenced cannot commit.

Kafka's own answers were looked at first: the classic ``range`` assignor balances per topic
but is eager (every worker stops at each join or leave); KIP-848's server-side ``range``
(``group.protocol=consumer``) balances per topic and is incremental, but a static member
killed and restarted is refused its instance id until its session ends (45 s by default:
``UNRELEASED_INSTANCE_ID``), where the classic protocol gives it its partitions back at once.

``TopicLanes`` looks like one consumer to the transactional loop: what it consumes comes
from every lane, a seek or a position goes to the lane of the topic.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any


def lane_instance_id(instance_id: str, topic: str, first: bool) -> str:
    """The static member id of a topic's lane: the worker's own for its first topic (what
    ``mqk serve`` checks before it joins), the worker's and the topic's for the others."""
    # Kafka takes [a-zA-Z0-9._-] in an instance id, up to 249 of them, as in a topic name
    return instance_id if first else f"{instance_id}.{topic}"[:249]


class TopicLanes:
    """A consumer per topic (``make(settings)`` each), seen as one consumer."""

    def __init__(
        self,
        make: Callable[[dict[str, Any]], Any],
        settings: Mapping[str, Any],
        topics: Sequence[str],
    ) -> None:
        instance = settings.get("group.instance.id")
        self.topics = list(topics)
        self.lanes: list[Any] = []
        for i, topic in enumerate(self.topics):
            own = dict(settings)
            if instance:
                own["group.instance.id"] = lane_instance_id(str(instance), topic, i == 0)
            self.lanes.append(make(own))
        self._of = dict(zip(self.topics, self.lanes, strict=True))
        self._next = 0  # the lane asked first: turns, so no lane starves the others

    def lane_of(self, topic: str) -> Any:
        return self._of[topic]

    def subscribe(self, topics: Sequence[str], on_assign: Any = None, **kw: Any) -> None:
        del topics  # each lane takes its own
        for topic, lane in self._of.items():
            lane.subscribe([topic], on_assign=on_assign, **kw)

    def consume(self, num_messages: int = 1, timeout: float = -1) -> list[Any]:
        """What has arrived in every lane, up to ``num_messages``; when nothing has, waits up
        to ``timeout`` in all, in turns (no one call waits on several consumers)."""
        lanes = self.lanes
        count = len(lanes)
        start, self._next = self._next, (self._next + 1) % count
        messages: list[Any] = []
        for i in range(count):
            room = num_messages - len(messages)
            if room <= 0:
                break
            messages += lanes[(start + i) % count].consume(room, 0)
        if messages or timeout == 0:
            return messages
        share = timeout / count if timeout > 0 else 0.1
        for i in range(count):
            got = lanes[(start + i) % count].consume(num_messages, share)
            if got:
                return list(got)
        return messages

    def assignment(self) -> list[Any]:
        return [tp for lane in self.lanes for tp in lane.assignment()]

    def committed(self, partitions: list[Any], timeout: float = -1) -> list[Any]:
        return list(self.lanes[0].committed(partitions, timeout=timeout))  # one group

    def seek(self, partition: Any) -> None:
        self._of[partition.topic].seek(partition)

    def position(self, partitions: list[Any]) -> list[Any]:
        return [
            tp for topic, part in self.by_topic(partitions) for tp in self._of[topic].position(part)
        ]

    def get_watermark_offsets(self, partition: Any, **kw: Any) -> Any:
        return self._of[partition.topic].get_watermark_offsets(partition, **kw)

    def list_topics(self, *args: Any, **kw: Any) -> Any:
        return self.lanes[0].list_topics(*args, **kw)

    def commit(self, offsets: list[Any], asynchronous: bool = True) -> None:
        for topic, part in self.by_topic(offsets):
            self._of[topic].commit(offsets=part, asynchronous=asynchronous)

    def metadata_and_offsets(self, offsets: Iterable[Any]) -> list[tuple[Any, list[Any]]]:
        """Each lane's group metadata with its share of ``offsets`` (for the transaction)."""
        return [
            (self._of[topic].consumer_group_metadata(), part)
            for topic, part in self.by_topic(offsets)
        ]

    def close(self) -> None:
        """Every lane closed at once, each on a thread of its own: one after the other, a
        lane whose close waits for its coordinator (after an outage) kept the others open
        and unpolled, still members of the group, where a rebalance waits for each member
        to rejoin (up to the rebalance timeout) and every lane's offsets wait for the
        rebalance."""
        errors: list[Exception] = []

        def close(lane: Any) -> None:
            try:
                lane.close()
            except Exception as failed:  # closed or fenced: close the others all the same
                errors.append(failed)

        closing = [
            threading.Thread(target=close, args=(lane,), name="mqk-lane-close", daemon=True)
            for lane in self.lanes[1:]
        ]
        for thread in closing:
            thread.start()
        if self.lanes:
            close(self.lanes[0])  # one on the caller's thread: a single lane needs no other
        for thread in closing:
            thread.join()
        if errors:
            raise errors[0]

    @staticmethod
    def by_topic(partitions: Iterable[Any]) -> list[tuple[str, list[Any]]]:
        grouped: dict[str, list[Any]] = {}
        for tp in partitions:
            grouped.setdefault(tp.topic, []).append(tp)
        return list(grouped.items())


__all__ = ["TopicLanes", "lane_instance_id"]
