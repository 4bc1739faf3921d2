"""Publication plans: the engine's answer to a publication, kept for the next one like it.

Publishers put the same publication message again and again with a new body: the same
stream, the same MQMD headers, the same MQRFH2 (or MQRFH) header. The engine's answer to such
a message - which subscriptions get a copy, and each copy's queue, MQMD and header bytes -
depends only on those and on the engine's state; the body is passed on unchanged. So the
answer is kept as a *plan*, stamped with the state's version, and replayed while the version
has not moved: each copy is its kept header bytes plus the new body, with a new MsgId and the
current PutDate/PutTime, and its activity events are the kept event fields plus the times.

Plans are kept by the message's headers without its MsgId (MQ gives each message a new one; the
engine's answer to a plain Publish does not depend on it), and the MsgId is passed to the
activity events. A plan is only made in the plain case, checked on the answer itself: a
Publish answered ok, whose effects are deliveries only (no state change, no reply, no dead
letter), where no content filter looked at the message and the body reaches every copy
unchanged. Anything else goes through the engine every time.

Worth it: a publication to one subscriber costs the dispatcher ~100 us through the engine
(read the command, step the engine, write the copy and its activity events) and ~6 us
replayed - 17-20x (best of 5 x 2,000 publications of 200 B, process time, the 2-core machine
under load, issue 22). ``tests/unit/service/test_dispatcher.py`` checks that a replayed
answer equals the engine's, record for record, and ``test_plans_differential.py`` does so
for random sequences of registrations, deregistrations and publications (Hypothesis).

Kafka-native publications (issue 37: no RFH, the command in ``mqpsc.*`` headers, which are in
the plan's key) are replayed the same way, the plan's head empty: 3.0 us replayed against 37
us through the engine (an RFH2 Publish: 3.4 / 32 us), one subscriber, best of 5 x 4,800,
process time, the 2-core machine at load average ~20; ``test_kafka_native.py`` compares the
replayed records with the engine's for such sequences with native publications and queues.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mqkafka.activity.events import BOOLEAN_BYTES, fan_out_1_template
from mqkafka.engine.delivery import put_time
from mqkafka.engine.effects import Deliver, Effect, Processed
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import Publish

MSG_ID, PUT_DATE, PUT_TIME = "mqmd.MsgId", "mqmd.PutDate", "mqmd.PutTime"
Header = tuple[str, bytes | None]  # a Kafka header: its value may be null
_MAX_GROUPS = 4096  # distinct (queue topic, MQMD headers); forgotten all at once when full
# Distinct RFH headers (topics) per group, and copies in all its plans (~1 KB each, so the
# plans of a group stay under ~100 MB): a tree of 10,000 topics keeps its plans at fan-out
# 1-10 (issue 21: at 256 heads, a 10,000-topic corpus went through the engine every time).
_MAX_HEADS = 16384
_MAX_COPIES = 100_000
# Distinct copy headers shared between plans (CopyHeaders): one per subscriber identity
# (queue, CorrelId ...), so far fewer than copies; forgotten all at once when full.
_MAX_SHARED_HEADERS = 16384
_new_record = tuple.__new__
_NO_EVENT = (b"", b"")  # a fan-out-1 plan's command event: its template holds it


class CopyHeaders:
    """The MQMD headers of a copy around its MsgId, PutDate and PutTime: the same for every
    copy to one subscriber (queue, CorrelId ...), whatever the topic, so one object serves all
    the plans of that subscriber (``PublicationPlans`` shares them), and so does the list of
    the headers after the MsgId, made again only when the put time moves on. Kept per plan,
    that list was made again for nearly every copy of a 10,000-topic corpus (~8% of the
    dispatcher)."""

    __slots__ = ("after", "before", "between", "put", "tail")

    def __init__(
        self, before: Sequence[Header], between: Sequence[Header], after: Sequence[Header]
    ) -> None:
        self.before = list(before)
        self.between = list(between)
        self.after = list(after)
        self.put: list[Header] | None = None
        self.tail: list[Header] = []  # the headers after MsgId, for the put time in ``put``


class CopyPlan:
    """One copy: where it goes and everything but the MsgId, put time and body."""

    __slots__ = ("head", "headers", "key", "persistent", "topic")

    def __init__(
        self, topic: str, key: bytes | None, head: bytes, headers: CopyHeaders, persistent: bool
    ) -> None:
        self.topic = topic
        self.key = key
        self.head = head
        self.headers = headers
        self.persistent = BOOLEAN_BYTES[persistent]

    def record(self, msg_id: bytes, put: list[Header], body: bytes) -> OutRecord:
        shared = self.headers
        if put is not shared.put:  # a new hundredth of a second
            shared.put, shared.tail = put, [*shared.between, *put, *shared.after]
        headers = [*shared.before, (MSG_ID, msg_id), *shared.tail]
        # tuple.__new__: an OutRecord without the NamedTuple's Python-level constructor
        return _new_record(OutRecord, (self.topic, self.head + body, self.key, headers, -1))


def split_copy_headers(
    headers: Sequence[Header],
) -> tuple[tuple[Header, ...], tuple[Header, ...], tuple[Header, ...]]:
    """A copy's headers before its MsgId, between it and PutDate, and after PutTime."""
    names = [name for name, _ in headers]
    at_id, at_date = names.index(MSG_ID), names.index(PUT_DATE)
    if names[at_date + 1] != PUT_TIME or not at_id < at_date:
        raise ValueError("MsgId, PutDate, PutTime out of MQMD order")
    return (
        tuple(headers[:at_id]),
        tuple(headers[at_id + 1 : at_date]),
        tuple(headers[at_date + 2 :]),
    )


class Plan:
    __slots__ = (
        "activity", "copies", "copy_events", "label", "length", "max_value", "template", "version",
    )  # fmt: skip

    def __init__(
        self,
        version: int,
        length: int,
        copies: tuple[CopyPlan, ...],
        persistent: bool,
        activity: bytes,
        copy_activity: Sequence[bytes],
        label: tuple[str, int],
    ) -> None:
        self.version = version
        self.length = length  # of the headers before the body
        self.copies = copies
        # the command event's middle (FastEncoder.middle) and persistence; each copy's
        # delivery event: its middle, persistence, and its size less the body's
        command = (activity, BOOLEAN_BYTES[persistent])
        copy_events = tuple(
            (middle, copy.persistent, len(copy.head))
            for copy, middle in zip(copies, copy_activity, strict=True)
        )
        # fan-out 1: both events as one format the dispatcher fills in, and nothing else
        # (each object a plan keeps is memory that replays read out of the cache)
        self.template = fan_out_1_template(command, copy_events)
        self.activity, self.copy_events = (
            (_NO_EVENT, ()) if self.template is not None else (command, copy_events)
        )
        self.label = label  # (command, reason) for the outcome metrics
        # the longest message the plan is replayed for: set by the dispatcher, which knows
        # what each copy's topic takes (a longer one goes through the engine)
        self.max_value = 1 << 62


Order = Literal["little", "big"] | None  # None: no RFH, a Kafka-native Publish (issue 37)


class _Group:
    """Plans of one (queue topic, headers): by the RFH header bytes, whose StrucLength is
    read in ``order``; with no RFH (Kafka-native: its headers are its command), one plan."""

    __slots__ = ("copies", "order", "plans")

    def __init__(self, order: Order) -> None:
        self.order: Order = order
        self.plans: dict[bytes, Plan] = {}
        self.copies = 0


class PublicationPlans:
    def __init__(self) -> None:
        self._groups: dict[tuple[str, tuple[Any, ...]], _Group] = {}
        self.hits = 0
        self.made = 0
        self._tick = -1
        self._put: list[Header] = []
        # the copies' headers, one object per distinct content (CopyHeaders)
        self._headers: dict[tuple[tuple[Header, ...], ...], CopyHeaders] = {}

    def put_headers(self, now: float) -> list[Header]:
        """The PutDate and PutTime headers of a copy put ``now`` (kept per hundredth of a
        second: ``CopyPlan.record`` knows them again by identity)."""
        tick = int(now * 100)
        if tick != self._tick:
            stamp = put_time(now)
            self._tick = tick
            self._put = [(PUT_DATE, stamp.date.encode()), (PUT_TIME, stamp.time.encode())]
        return self._put

    def find(self, key: tuple[str, tuple[Any, ...]], value: bytes, version: int) -> Plan | None:
        group = self._groups.get(key)
        if group is None:
            return None
        order = group.order
        head = value[: int.from_bytes(value[8:12], order)] if order is not None else b""
        plan = group.plans.get(head)
        if plan is None:
            return None
        if plan.version != version:
            del group.plans[head]
            return None
        self.hits += 1
        return plan

    def keep(
        self,
        key: tuple[str, tuple[Any, ...]],
        value: bytes,
        version: int,
        outcomes: Sequence[Processed],
        effects: Sequence[Effect],
        records: Sequence[OutRecord],
        dead_letter_topic: str,
        command_activity: bytes,
        delivery_activity: Sequence[bytes],
    ) -> Plan | None:
        """Keep the engine's answer to ``value`` if it is a plain one (see the module doc).
        ``records`` are the delivery records written for ``effects``, in order."""
        if len(outcomes) != 1:
            return None
        done = outcomes[0]
        command = done.command
        if type(command) is not Publish or done.reads_content or done.response.reason != 0:
            return None
        body = command.content.body
        if not value.endswith(body) or not len(records) == len(effects) == len(delivery_activity):
            return None
        length = len(value) - len(body)
        copies = []
        for effect, record in zip(effects, records, strict=True):
            if type(effect) is not Deliver or effect.content.body is not body:
                return None
            copy = record.value or b""
            if record.topic == dead_letter_topic or not copy.endswith(body):
                return None
            try:
                parts = split_copy_headers(record.headers or ())
            except ValueError:
                return None
            shared = self._headers.get(parts)
            if shared is None:
                if len(self._headers) >= _MAX_SHARED_HEADERS:
                    self._headers.clear()  # plans keep theirs; new ones share anew
                shared = self._headers[parts] = CopyHeaders(*parts)
            copies.append(
                CopyPlan(
                    record.topic,
                    record.key,
                    copy[: len(copy) - len(body)],
                    shared,
                    effect.md.Persistence == 1,
                )
            )
        plan = Plan(
            version,
            length,
            tuple(copies),
            done.md.Persistence == 1,
            command_activity,
            delivery_activity,
            (command.name, done.response.reason),
        )
        # Plans are found by the header's own length (StrucLength, in the message's integer
        # encoding), so topics of any length share a group; a message whose headers before
        # the body are not one MQRFH2/MQRFH goes through the engine every time. One with none
        # before the body is a Kafka-native Publish, whose command is in its headers (the key).
        order: Order
        if length == 0:
            order = None
        elif int.from_bytes(value[8:12], "little") == length:
            order = "little"
        elif int.from_bytes(value[8:12], "big") == length:
            order = "big"
        else:
            return None
        groups = self._groups
        group = groups.get(key)
        if group is None or group.order != order:
            if len(groups) >= _MAX_GROUPS:
                groups.clear()
            group = groups[key] = _Group(order)
        elif len(group.plans) >= _MAX_HEADS or group.copies >= _MAX_COPIES:
            group.plans.clear()
            group.copies = 0
        group.plans[value[:length]] = plan
        group.copies += len(copies)
        self.made += 1
        return plan
