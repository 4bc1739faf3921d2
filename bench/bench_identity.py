"""Control-queue commands of one subscriber identity with many subscriptions; prints figures,
asserts nothing.

    python -m bench.bench_identity [--reps 300] [--at 1 1000 3000] [--rounds 15] [--service]

MQ applications often hold thousands of subscriptions on one queue (one traditional
identity). For each state (in-memory stores, RocksDB stores) and each position k, the state
holds k - 1 subscriptions of the identity APP.Q, then ``--reps`` times: RegSub a new topic
(the k-th subscription), DeregSub it, and ReqUpdate a subscription that has a retained
publication. Each command is decoded, handled and its state effects applied, in-process
(replies not encoded); each operation is timed on its own and the best of ``--rounds`` rounds
is printed, with the Python function calls one of each makes (``calls``: the cost in a count
that a busy machine does not move). Cost should not grow with k (issue 19: within 20% from
the 1st to the 3,000th).

``--service`` also runs ``mqk serve`` (memory and RocksDB state) on Kafka ($MQK_BOOTSTRAP_SERVERS
or a throw-away local broker) and fills one identity through it; at each position it puts 200
RegSubs at once on the control queue and times them from the first put to the last reply, then
as many DeregSubs of them, then ReqUpdates: the service's rate in bursts, Kafka included.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

from mqkafka.engine.context import EngineContext, UniqueIds
from mqkafka.engine.effects import Retain, StoreSubscription
from mqkafka.engine.identity import Identity
from mqkafka.engine.records import Publication, Subscription, SubscriptionKey
from mqkafka.engine.state import EngineState
from mqkafka.engine.topicspace import ROOT, Scheme, TopicFilter, TopicString
from mqkafka.mq import rfh2
from mqkafka.mq.commands import CONTROL_QUEUE, Interface, PublicationContent, RegOpt
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMT, MQRO
from mqkafka.mq.rfh2 import Rfh2
from mqkafka.state.rocks import RocksState
from mqkafka.wire.messagecodec import process_message

QMGR = "QM1"  # EngineConfig's default
QUEUE = "APP.Q"
USER = "bench"
RETAINED_TOPIC = "Bench/Retained"
MD = MQMD(
    MsgType=MQMT.REQUEST,
    Report=MQRO.PASS_CORREL_ID,
    Format=MQFMT_RF_HEADER_2,
    ReplyToQ=QUEUE,
    UserIdentifier=USER,
)


def command(name: str, topic: str) -> bytes:
    folder = f"<psc><Command>{name}</Command><Topic>{topic}</Topic></psc>"
    return rfh2.encode(Rfh2(folders=(folder,)), 546)


def existing(i: int, ids: UniqueIds) -> Subscription:
    """The i-th subscription of the identity, as a plain RegSub would have stored it."""
    return Subscription(_key(f"Bench/Held/{i}"), USER, RegOpt.NONE, Interface.RFH2, ids.correl_id())


@contextmanager
def memory_state() -> Iterator[EngineState]:
    yield EngineState()


@contextmanager
def rocks_state() -> Iterator[EngineState]:
    with tempfile.TemporaryDirectory(prefix="bench-identity-") as tmp:
        rocks = RocksState(Path(tmp) / "state")
        try:
            yield EngineState(rocks.subscriptions, rocks.retained, rocks.publishers)
        finally:
            rocks.close()


def prepared(state: EngineState, ctx: EngineContext, held: int) -> None:
    """A retained publication, the subscription ReqUpdate asks for, and more subscriptions of
    the identity stored directly (not what is measured) up to ``held`` (at least 1)."""
    content = PublicationContent(body=b"retained")
    state.apply(
        [Retain(Publication(ROOT, TopicString(RETAINED_TOPIC), content, Interface.RFH2, 0, 0))]
    )
    process_message(state, command("RegSub", RETAINED_TOPIC), MD, CONTROL_QUEUE, ctx)
    assert state.subscription(_key(RETAINED_TOPIC)) is not None
    ids = UniqueIds()
    state.apply([StoreSubscription(existing(i, ids)) for i in range(held - 1)])


def _key(topic: str) -> SubscriptionKey:
    return SubscriptionKey(ROOT, Identity(QUEUE, QMGR), TopicFilter(topic, Scheme.TOPIC))


def one_round(state: EngineState, ctx: EngineContext, reps: int) -> tuple[float, float, float]:
    """Seconds spent in RegSub, DeregSub and ReqUpdate over ``reps`` of each."""
    clock = time.perf_counter
    reg = dereg = update = 0.0
    ask = command("ReqUpdate", RETAINED_TOPIC)
    for j in range(reps):
        topic = f"Bench/New/{j}"
        value, gone = command("RegSub", topic), command("DeregSub", topic)
        start = clock()
        process_message(state, value, MD, CONTROL_QUEUE, ctx)
        middle = clock()
        process_message(state, gone, MD, CONTROL_QUEUE, ctx)
        after = clock()
        process_message(state, ask, MD, CONTROL_QUEUE, ctx)
        end = clock()
        reg, dereg, update = reg + middle - start, dereg + after - middle, update + end - after
    return reg, dereg, update


def measure(
    make: Callable[[], AbstractContextManager[EngineState]], at: list[int], reps: int, rounds: int
) -> list[tuple[float, float, float, float]]:
    """Best rates (RegSub/s, DeregSub/s, ReqUpdate/s) at each ``at``-th subscription, and the
    Python function calls one RegSub + DeregSub + ReqUpdate makes (a count no noise moves).

    ``at`` counts the subscription RegSub creates; the ReqUpdate target is one of those held,
    so at 1 the identity briefly holds two. The states are built side by side and their rounds
    interleaved, so a noisy machine's drift and the garbage collector's cost (which grows with
    everything the process holds, whoever owns it) fall on every position alike."""
    with ExitStack() as stack:
        states = []
        for k in at:
            state = stack.enter_context(make())
            ctx = EngineContext(ids=UniqueIds())
            prepared(state, ctx, k - 1)
            held = len(state.of_identity(Identity(QUEUE, QMGR)))
            one_round(state, ctx, min(reps, 50))  # warm
            assert len(state.of_identity(Identity(QUEUE, QMGR))) == held, "pairs leave no trace"
            states.append((state, ctx))
        gc.collect()
        best = [[float("inf")] * 3 for _ in at]
        for _ in range(rounds):
            for i, (state, ctx) in enumerate(states):
                times = one_round(state, ctx, reps)
                best[i] = [min(b, t) for b, t in zip(best[i], times, strict=True)]
        calls = []
        for state, ctx in states:
            profile = cProfile.Profile()
            profile.runcall(one_round, state, ctx, 100)
            calls.append(pstats.Stats(profile).total_calls / 100)  # type: ignore[attr-defined]
        return [
            (reps / reg, reps / dereg, reps / update, count)
            for (reg, dereg, update), count in zip(best, calls, strict=True)
        ]


SERVICE_BURST = 200
SERVICE_REPLIES = "BENCH.IDENTITY.REPLY"


class ServiceDriver:
    """Commands put on a service's control queue in bursts; their replies counted."""

    def __init__(self, bootstrap: str, namespace: str) -> None:
        from mqkafka.kafka import clients, topicadmin
        from mqkafka.kafka.clientconfig import ClientConfig
        from mqkafka.kafka.clients import TopicPartition
        from mqkafka.wire.names import queue_to_topic

        config = ClientConfig(bootstrap)
        self.control = queue_to_topic(CONTROL_QUEUE, namespace)
        self.producer = clients.producer(config, {"linger.ms": 5})
        replies = queue_to_topic(SERVICE_REPLIES, namespace)
        topicadmin.ensure_topic(clients.admin(config), replies)
        self.replies = clients.consumer(
            config,
            {
                "group.id": "bench-identity",  # assigned, never joins or commits
                "enable.auto.commit": False,
                "isolation.level": "read_committed",  # a reply counts once it is committed
                "fetch.wait.max.ms": 5,
            },
        )
        for _ in range(100):  # a topic just created: its metadata may be on its way
            try:
                _, end = self.replies.get_watermark_offsets(TopicPartition(replies, 0), 10)
                break
            except clients.KafkaException:
                time.sleep(0.1)
        else:
            raise TimeoutError(f"no metadata for {replies}")
        self.replies.assign([TopicPartition(replies, 0, end)])
        self.sent = 0

    def burst(self, verb: str, topics: list[str]) -> float:
        """Seconds from the first put to the last reply; every reply must be OK."""
        from mqkafka.client.kafka_pubsub import command_message, command_result
        from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers

        start = time.perf_counter()
        for topic in topics:
            self.sent += 1
            md = MQMD(
                MsgType=MQMT.REQUEST,
                MsgId=b"BNCH" + self.sent.to_bytes(20, "big"),
                ReplyToQ=SERVICE_REPLIES,
                UserIdentifier=USER,
            )
            pairs = [("Command", verb), ("Topic", topic), ("QName", QUEUE)]
            md, value = command_message(pairs, md=md)
            self.producer.produce(self.control, value, b"bench", headers=mqmd_to_headers(md))
        self.producer.flush(60)
        waiting = len(topics)
        deadline = time.monotonic() + 300
        while waiting:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{waiting} {verb} replies missing")
            for message in self.replies.consume(500, 0.2):
                if message.error() is None:
                    md, _ = mqmd_from_headers(message.headers())
                    result = command_result(message.value(), md)
                    assert result.ok, (verb, result)
                    waiting -= 1
        return time.perf_counter() - start

    def close(self) -> None:
        self.replies.close()


def through_service(at: list[int]) -> None:
    from bench.bench_service import Service, namespace_for
    from bench.kafka_env import kafka
    from mqkafka.client.kafka_pubsub import KafkaPubSub

    print(f"Through mqk serve on Kafka, bursts of {SERVICE_BURST} commands:")
    head = ("state", "subscription", "RegSub/s", "DeregSub/s", "ReqUpdate/s")
    print("{:<8} {:>13} {:>10} {:>11} {:>12}".format(*head))
    with kafka() as bootstrap:
        for label, extra in (("memory", ["--in-memory-state"]), ("rocksdb", [])):
            namespace = namespace_for(bootstrap)
            with tempfile.TemporaryDirectory(prefix="bench-identity-") as tmp:
                service = Service(bootstrap, namespace, Path(tmp) / "state", *extra)
                service.start()
                driver = ServiceDriver(bootstrap, namespace)
                try:
                    client = KafkaPubSub(bootstrap, namespace=namespace)
                    client.publish(RETAINED_TOPIC, b"retained", retain=True)
                    client.close()
                    driver.burst("RegSub", [RETAINED_TOPIC])
                    held, first = 1, None
                    for k in at:
                        fill = [f"Bench/Held/{i}" for i in range(held, k - 1)]
                        for i in range(0, len(fill), 500):
                            driver.burst("RegSub", fill[i : i + 500])
                        held = max(held, k - 1)
                        new = [f"Bench/New/{k}/{j}" for j in range(SERVICE_BURST)]
                        seconds = (
                            driver.burst("RegSub", new),
                            driver.burst("DeregSub", new),
                            driver.burst("ReqUpdate", [RETAINED_TOPIC] * SERVICE_BURST),
                        )
                        rates = tuple(SERVICE_BURST / t for t in seconds)
                        first = first or rates
                        ratio = " ".join(f"{r / f:4.0%}" for r, f in zip(rates, first, strict=True))
                        print(
                            f"{label:<8} {k:>13,} {rates[0]:>10,.0f} {rates[1]:>11,.0f}"
                            f" {rates[2]:>12,.0f}   (of the first: {ratio})"
                        )
                finally:
                    driver.close()
                    service.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--at", type=int, nargs="+", default=[1, 1000, 3000])
    parser.add_argument("--service", action="store_true", help="also through mqk serve on Kafka")
    args = parser.parse_args()
    print(f"One identity ({QUEUE}), decode + engine + apply, best of {args.rounds} x {args.reps}:")
    head = ("state", "subscription", "RegSub/s", "DeregSub/s", "ReqUpdate/s", "calls")
    print("{:<8} {:>13} {:>10} {:>11} {:>12} {:>8}".format(*head))
    states: list[tuple[str, Callable[[], AbstractContextManager[EngineState]]]] = [
        ("memory", memory_state),
        ("rocksdb", rocks_state),
    ]
    for label, make in states:
        figures = measure(make, args.at, args.reps, args.rounds)
        first = figures[0]
        for at, rates in zip(args.at, figures, strict=True):
            ratio = " ".join(f"{r / f:4.0%}" for r, f in zip(rates, first, strict=True))
            print(
                f"{label:<8} {at:>13,} {rates[0]:>10,.0f} {rates[1]:>11,.0f} {rates[2]:>12,.0f}"
                f" {rates[3]:>8,.0f}   (of the first: {ratio})"
            )
    if args.service:
        through_service(args.at)


if __name__ == "__main__":
    main()
