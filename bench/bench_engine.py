"""Benchmark of the pure pub/sub engine; prints figures, asserts nothing.

    python -m bench.bench_engine [--n 50000]

The headline figure is the issue's target: Publish to one matching subscription, decode and
encode included (record value + MQMD in, delivered (MQMD, value) out), >= 50,000 per second
in-process on one core. It is measured with no other subscriptions and with 10,000 that do not
match, to show the cost does not grow with the number of subscriptions. Then the parts on
their own, and the control-queue commands.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

from mqkafka.engine.context import EngineContext, UniqueIds
from mqkafka.engine.effects import Deliver
from mqkafka.engine.handle import handle, step
from mqkafka.engine.state import EngineState
from mqkafka.mq import rfh2
from mqkafka.mq.commandparse import command_from_psc
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD, MQMT, MQRO
from mqkafka.mq.rfh2 import Rfh2
from mqkafka.wire.messagecodec import CommandReader, encode_delivery, process_message

CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
PUBLISH = (
    rfh2.encode(
        Rfh2(
            format=MQFMT_STRING,
            folders=(
                "<psc><Command>Publish</Command><Topic>Sport/Soccer/Event/Goal</Topic></psc>",
                "<usr><Team>Leeds</Team></usr>",
            ),
        ),
        546,
    )
    + b"Leeds 1-0 after 17 minutes"
)
PUBLISHER_MD = MQMD(Format=MQFMT_RF_HEADER_2, Persistence=0, Priority=4)
READER = CommandReader()  # as the service's dispatcher holds one: it remembers commands


def subscriber_md(n: int) -> MQMD:
    return MQMD(
        MsgType=MQMT.REQUEST,
        Report=MQRO.PASS_CORREL_ID,
        Format=MQFMT_RF_HEADER_2,
        ReplyToQ=f"APP.Q{n % 97}",
        CorrelId=n.to_bytes(24, "big"),
        UserIdentifier="bench",
    )


def regsub(topic: str, n: int) -> bytes:
    folder = (
        f"<psc><Command>RegSub</Command><Topic>{topic}</Topic>"
        "<RegOpt>CorrelAsId</RegOpt><RegOpt>NewPubsOnly</RegOpt></psc>"
    )
    return rfh2.encode(Rfh2(folders=(folder,)), 546)


def broker(others: int) -> tuple[EngineState, EngineContext]:
    state, ctx = EngineState(), EngineContext(ids=UniqueIds())
    step(
        state,
        command_from_psc(
            [("Command", "RegSub"), ("Topic", "Sport/Soccer/Event/#"), ("RegOpt", "CorrelAsId")],
            subscriber_md(10**9),
        ),
        ctx,
    )
    for n in range(others):
        topic = f"League{n % 50}/Team{n}/{'#' if n % 3 else '+'}/Score"
        process_message(state, regsub(topic, n), subscriber_md(n), CONTROL, ctx, reader=READER)
    return state, ctx


def measure(label: str, n: int, run: Callable[[int], object]) -> float:
    run(min(n, 2000))  # warm the caches
    gc.collect()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run(n)
        best = min(best, time.perf_counter() - start)
    rate = n / best
    print(f"{label:<66} {rate:>10,.0f} /s  ({best * 1e6 / n:6.2f} µs each)")
    return rate


def end_to_end(
    state: EngineState, ctx: EngineContext, values: list[bytes] | None = None
) -> Callable[[int], object]:
    """Publish ``n`` messages: the same one, or ``values`` in turn (a new topic each time)."""

    sent = [0]  # across calls, so that distinct values are never repeated

    def run(n: int) -> None:
        for _ in range(n):
            value = PUBLISH if values is None else values[sent[0] % len(values)]
            sent[0] += 1
            for effect in process_message(state, value, PUBLISHER_MD, STREAM, ctx, reader=READER):
                if type(effect) is Deliver:
                    encode_delivery(effect)

    return run


def distinct_topics(n: int) -> list[bytes]:
    """Publications each on its own topic: nothing the engine remembers helps them."""
    return [
        rfh2.encode(
            Rfh2(
                format=MQFMT_STRING,
                folders=(
                    f"<psc><Command>Publish</Command><Topic>Sport/Soccer/Event/G{i}</Topic></psc>",
                ),
            ),
            546,
        )
        + b"goal"
        for i in range(n)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50_000)
    n = parser.parse_args().n

    print("Publish to one matching subscription, decode + engine + encode:")
    alone = measure("  no other subscriptions", n, end_to_end(*broker(0)))
    crowded = measure(
        "  10,000 other subscriptions that do not match", n, end_to_end(*broker(10_000))
    )
    measure(
        "  a new topic every time (no remembered topic, match or parse)",
        n,
        end_to_end(*broker(0), distinct_topics(3 * n + 2000)),
    )
    target = 50_000
    verdict = "meets" if min(alone, crowded) >= target else "MISSES"
    print(f"  target {target:,} /s: {verdict} it")

    state, ctx = broker(0)
    cmd = READER.decode(PUBLISH, PUBLISHER_MD, STREAM)
    (deliver,) = [e for e in handle(state, cmd, ctx) if isinstance(e, Deliver)]
    print("The parts:")
    measure(
        "  decode_command (bytes -> Publish)",
        n,
        lambda k: [READER.decode(PUBLISH, PUBLISHER_MD, STREAM) for _ in range(k)],
    )
    measure(
        "  handle (Publish -> effects)", n, lambda k: [handle(state, cmd, ctx) for _ in range(k)]
    )
    measure(
        "  encode_delivery (Deliver -> MQMD, bytes)",
        n,
        lambda k: [encode_delivery(deliver) for _ in range(k)],
    )

    print("Control-queue commands (decode + engine, replies not encoded):")
    m = max(n // 10, 1000)
    reg_state, reg_ctx = EngineState(), EngineContext(ids=UniqueIds())
    values = [(regsub(f"Sport/T{i}/#", i), subscriber_md(i)) for i in range(m)]

    def register(k: int) -> None:
        for value, md in values[:k]:
            process_message(reg_state, value, md, CONTROL, reg_ctx, reader=READER)

    measure(f"  RegSub, {m:,} distinct subscriptions", m, register)


if __name__ == "__main__":
    main()
