"""Control-queue commands of one subscriber identity with many subscriptions; prints figures,
asserts nothing.

    python -m bench.bench_identity [--reps 1000] [--at 1 1000 3000] [--rounds 5]

MQ applications often hold thousands of subscriptions on one queue (one traditional
identity). For each state (in-memory stores, RocksDB stores) and each position k, the state
holds k - 1 subscriptions of the identity APP.Q, then ``--reps`` times: RegSub a new topic
(the k-th subscription), DeregSub it, and ReqUpdate a subscription that has a retained
publication. Each command is decoded, handled and its state effects applied, in-process
(replies not encoded); each operation is timed on its own and the best of ``--rounds`` rounds
is printed. Cost should not grow with k (issue 19: within 20% from the 1st to the 3,000th).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

from mqkafka.engine.codec import process_message
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
) -> list[tuple[float, float, float]]:
    """Best rates (RegSub/s, DeregSub/s, ReqUpdate/s) at each ``at``-th subscription.

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
        return [(reps / reg, reps / dereg, reps / update) for reg, dereg, update in best]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--at", type=int, nargs="+", default=[1, 1000, 3000])
    args = parser.parse_args()
    print(f"One identity ({QUEUE}), decode + engine + apply, best of {args.rounds} x {args.reps}:")
    head = ("state", "subscription", "RegSub/s", "DeregSub/s", "ReqUpdate/s")
    print("{:<8} {:>13} {:>10} {:>11} {:>12}".format(*head))
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
                f"   (of the first: {ratio})"
            )


if __name__ == "__main__":
    main()
