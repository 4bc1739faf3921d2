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
from every lane, a seek or a position goes to the lane of the topic. A lane the group fenced
(its client's fatal error, met in a consume) is named by ``fenced()`` and replaced alone
(``replace``): the other lanes stay members, holding their partitions. Replacing them too,
unclosed, left each old one free to rejoin under the instance id of its successor and fence
it in turn. So is a lane that stays out of the group (``unjoined``, ``lanewatch``). Questions
any lane can answer (metadata, the group's committed offsets) go to the members: a lane out
of the group may be a client that lost its brokers (its answer never comes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mqkafka.kafka.clients import KafkaError, KafkaException
from mqkafka.kafka.failures import failure_of

_FATAL = KafkaError._FATAL


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
        self._make = make
        self._settings: dict[str, dict[str, Any]] = {}
        for i, topic in enumerate(self.topics):
            own = dict(settings)
            if instance:
                own["group.instance.id"] = lane_instance_id(str(instance), topic, i == 0)
            self._settings[topic] = own
        self.lanes: list[Any] = [make(self._settings[topic]) for topic in self.topics]
        self._of = dict(zip(self.topics, self.lanes, strict=True))
        now = time.monotonic()
        self.made_at = dict.fromkeys(self.topics, now)  # when each lane's client was made
        self._fenced: set[str] = set()  # topics whose lane met a fatal error
        self._unjoined_since: dict[str, float] = {}  # lanes seen without a member id, since
        self._subscribed: dict[str, Any] | None = None  # subscribe()'s keywords
        self._next = 0  # the lane asked first: turns, so no lane starves the others

    def lane_of(self, topic: str) -> Any:
        return self._of[topic]

    def subscribe(self, topics: Sequence[str], on_assign: Any = None, **kw: Any) -> None:
        del topics  # each lane takes its own
        self._subscribed = {"on_assign": on_assign, **kw}
        for topic, lane in self._of.items():
            lane.subscribe([topic], **self._subscribed)

    def fenced(self) -> list[str]:
        """The topics whose lane met a fatal error (the group fenced it) since it was made."""
        return [topic for topic in self.topics if topic in self._fenced]

    def replace(self, topic: str) -> Any:
        """A new client for ``topic``'s lane, with its settings (its instance id), subscribed
        as the others are; returns the old one, for the caller to close."""
        old = self._of[topic]
        lane = self._make(self._settings[topic])
        self.lanes[self.topics.index(topic)] = self._of[topic] = lane
        self.made_at[topic] = time.monotonic()
        self._fenced.discard(topic)
        self._unjoined_since.pop(topic, None)
        if self._subscribed is not None:
            lane.subscribe([topic], **self._subscribed)
        return old

    def unjoined(self, longer_than: float, now: float | None = None) -> list[str]:
        """The topics whose lane has held no member id (it is no member of the group) through
        the watch's last ``longer_than`` seconds; ``watch_again`` restarts the watch."""
        now = time.monotonic() if now is None else now
        late = []
        for topic, lane in self._of.items():
            if lane.memberid():
                self._unjoined_since.pop(topic, None)
            elif now - self._unjoined_since.setdefault(topic, now) >= longer_than:
                late.append(topic)
        return late

    def watch_again(self) -> None:
        self._unjoined_since.clear()

    def _took(self, lane: Any, got: list[Any]) -> list[Any]:
        """``got``, from ``lane``: a fatal error among it names the lane fenced."""
        for message in got:
            error = message.error()
            if error is not None and error.code() == _FATAL:
                self._fenced.update(t for t, held in self._of.items() if held is lane)
        return got

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
            lane = lanes[(start + i) % count]
            messages += self._took(lane, lane.consume(room, 0))
        if messages or timeout == 0:
            return messages
        share = timeout / count if timeout > 0 else 0.1
        for i in range(count):
            lane = lanes[(start + i) % count]
            got = lane.consume(num_messages, share)
            if got:
                return self._took(lane, list(got))
        return messages

    def assignment(self) -> list[Any]:
        return [tp for lane in self.lanes for tp in lane.assignment()]

    def committed(self, partitions: list[Any], timeout: float = -1) -> list[Any]:
        """The one group's offsets, from a lane that answers (none known fenced); one found
        fenced is marked so."""
        asked = [self._of[t] for t in self.topics if t not in self._fenced] or self.lanes
        return list(self._first_answer(asked, "committed", partitions, timeout=timeout))

    def list_topics(self, *args: Any, timeout: float = -1, **kw: Any) -> Any:
        return self._first_answer(self.lanes, "list_topics", *args, timeout=timeout, **kw)

    def _first_answer(
        self, lanes: list[Any], call: str, *args: Any, timeout: float, **kw: Any
    ) -> Any:
        """``call`` asked of ``lanes`` in turn until one answers, within ``timeout`` in all
        (the loop's longest stretch without a consume stays as it was): of the members of
        the group among them, if any, else of all of them."""
        deadline = time.monotonic() + timeout
        members = [lane for lane in lanes if lane.memberid()]
        failed: KafkaException | None = None
        for lane in members or lanes:
            left = max(deadline - time.monotonic(), 0.0) if timeout > 0 else timeout
            if failed is not None and left == 0.0:
                break  # the time is up
            try:
                return getattr(lane, call)(*args, timeout=left, **kw)
            except KafkaException as error:
                failure = failure_of(error)
                if isinstance(failure, KafkaError) and failure.fatal():
                    self._fenced.update(t for t, held in self._of.items() if held is lane)
                    raise
                failed = error
        assert failed is not None
        raise failed

    def seek(self, partition: Any) -> None:
        self._of[partition.topic].seek(partition)

    def position(self, partitions: list[Any]) -> list[Any]:
        return [
            tp for topic, part in self.by_topic(partitions) for tp in self._of[topic].position(part)
        ]

    def get_watermark_offsets(self, partition: Any, **kw: Any) -> Any:
        return self._of[partition.topic].get_watermark_offsets(partition, **kw)

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
