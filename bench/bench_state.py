"""Benchmark of the broker's persisted state; prints figures, asserts nothing.

    python -m bench.bench_state [--retained 1000000] [--subs 100000] [--batch 10000]
                                [--codec-n 10000] [--dir PATH]

On one core: the Avro codec (encode / decode rates and sizes of a realistic retained
publication, subscription and publisher registration), then a RocksState in a temporary
directory: write ``--retained`` retained publications and ``--subs`` subscriptions in
batches of ``--batch`` (as the service applies a polled batch of state records), flush, the
size on disk, close; reopen, iterate everything (decoding every record), a keys-only scan,
a prefix scan and point lookups. Record construction is outside the timed regions. The
whole run takes about 1.5-2 minutes, most of it Avro encoding and decoding 1M publications.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from mqkafka.engine.identity import Identity
from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    SubscriberContext,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.topicspace import ROOT, Namespace, Scheme, TopicFilter, TopicString
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.mqmd import MQFMT_STRING, MQMD
from mqkafka.state import recordcodec as codec
from mqkafka.state.rocks import RocksState

SPORTS = ("Soccer", "Rugby", "Cricket", "Tennis", "Golf", "Hockey", "Baseball", "Basketball")
EVENTS = ("Score", "Fouls", "Cards", "Lineup", "Odds")
STREAMS = (ROOT, Namespace.stream("SPORT.ARCHIVE"), Namespace.subpoint("Results"))
_T = TypeVar("_T")
MD_POOL = 1024  # distinct publisher descriptors, cycled (building one costs a validation)


def topic_of(i: int) -> str:
    return f"Sport/{SPORTS[i % len(SPORTS)]}/team-{i // 40}/{EVENTS[i % 5]}/{i}"


def descriptors() -> list[MQMD]:
    return [
        MQMD(
            Format=MQFMT_STRING,
            MsgId=b"AMQ QM1     " + i.to_bytes(12, "big"),
            CorrelId=bytes(24),
            UserIdentifier=f"user{i % 50}",
            ReplyToQ="PUB.REPLY",
            ReplyToQMgr="QM1",
            PutApplName="scores-feed",
            PutDate="20240102",
            PutTime=f"{i % 24:02}300000",
            ApplIdentityData="feed",
        )
        for i in range(MD_POOL)
    ]


def publication(i: int, mds: list[MQMD]) -> Publication:
    return Publication(
        namespace=STREAMS[i % len(STREAMS)] if i % 10 == 0 else ROOT,
        topic=TopicString(topic_of(i)),
        content=PublicationContent(
            body=f'{{"home": {i % 7}, "away": {i % 5}, "minute": {i % 90}}}'.encode(),
            folders=(f"<usr><team>team-{i // 40}</team><seq>{i}</seq></usr>",),
            format=MQFMT_STRING,
        ),
        interface=Interface.RFH2,
        priority=4,
        persistence=1,
        expiry=-1,
        retained_at=1_700_000_000.0 + i,
        pub_time="2024010212300000",
        seq_num=str(i),
        md=mds[i % MD_POOL],
    )


def subscription(i: int) -> Subscription:
    correl = b"S" * 8 + i.to_bytes(16, "big")
    with_correl = i % 2 == 0
    return Subscription(
        key=SubscriptionKey(
            ROOT,
            Identity(f"SUB.Q.{i % 1000}", "QM1", correl if with_correl else None),
            TopicFilter(f"Sport/{SPORTS[i % len(SPORTS)]}/team-{i}/#", Scheme.TOPIC),
            "home > 2" if i % 10 == 0 else None,
        ),
        user_id=f"user{i % 50}",
        options=RegOpt.CORREL_ID_AS_IDENTITY if with_correl else RegOpt.NONE,
        interface=Interface.RFH2,
        delivery_correl_id=correl,
        name=f"sub-{i}" if i % 3 == 0 else None,
        identities=frozenset({f"app{i % 4}"}) if i % 5 == 0 else frozenset(),
        context=SubscriberContext(f"user{i % 50}", bytes(32), "app"),
    )


def publisher_reg(i: int) -> Publisher:
    key = PublisherKey(ROOT, Identity("PUB.Q", "QM1"), TopicString(topic_of(i)))
    return Publisher(key, "feed", RegOpt.NONE, implicit=True)


def line(label: str, n: int, seconds: float, extra: str = "") -> None:
    rate = n / seconds if seconds else float("inf")
    print(f"{label:<44} {n:>9,} in {seconds:7.2f} s  {rate:>11,.0f} /s  {extra}")


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def codec_case(
    name: str, values: list[_T], encode: Callable[[_T], bytes], decode: Callable[[bytes], _T]
) -> None:
    encoded: list[bytes] = []
    seconds = timed(lambda: encoded.extend(encode(v) for v in values))
    size = sum(map(len, encoded)) / len(encoded)
    line(f"  encode {name}", len(values), seconds, f"{size:.0f} B each")
    seconds = timed(lambda: [decode(b) for b in encoded])
    line(f"  decode {name}", len(values), seconds)


def bench_codec(n: int) -> None:
    mds = descriptors()
    print(f"codec, {n:,} records each")
    codec_case(
        "retained publication",
        [publication(i, mds) for i in range(n)],
        codec.encode_retained,
        codec.decode_retained,
    )
    codec_case(
        "subscription",
        [subscription(i) for i in range(n)],
        codec.encode_subscription,
        codec.decode_subscription,
    )
    codec_case(
        "publisher registration",
        [publisher_reg(i) for i in range(n)],
        codec.encode_publisher,
        codec.decode_publisher,
    )


def chunks(total: int, size: int) -> Iterator[range]:
    for start in range(0, total, size):
        yield range(start, min(start + size, total))


def disk_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def bench_rocks(path: Path, retained: int, subs: int, batch: int) -> None:
    mds = descriptors()
    print(f"RocksState at {path}, batches of {batch:,}")
    state = RocksState(path)
    spent = 0.0
    for rows in chunks(retained, batch):
        items = [publication(i, mds) for i in rows]

        def write(items: list[Publication] = items, last: int = rows[-1]) -> None:
            with state.batch():
                for p in items:
                    state.retained.put(p)
                state.set_offsets({("mqk-retained", 0): last + 1})

        spent += timed(write)
    line("  write retained (encode + put)", retained, spent)
    spent = 0.0
    for rows in chunks(subs, batch):
        values = [subscription(i) for i in rows]

        def write_subs(values: list[Subscription] = values) -> None:
            with state.batch():
                for s in values:
                    state.subscriptions.put(s)

        spent += timed(write_subs)
    line("  write subscriptions (encode + put)", subs, spent)

    def shut_down() -> None:
        state.flush()
        state.mark_clean()
        state.close()

    seconds = timed(shut_down)
    print(f"  flush + mark clean + close                   {seconds:7.2f} s")
    print(
        f"  size on disk                                 {disk_mb(path):7.1f} MB"
        f"  ({disk_mb(path) * 2**20 / max(retained + subs, 1):.0f} B per record)"
    )
    del state
    gc.collect()

    holder: list[RocksState] = []
    seconds = timed(lambda: holder.append(RocksState(path)))
    state = holder[0]
    print(
        f"  reopen                                       {seconds:7.2f} s"
        f"  (was clean: {state.was_clean()}, len {len(state.retained):,} retained,"
        f" {len(state.subscriptions):,} subscriptions)"
    )
    count = [0]
    seconds = timed(lambda: count.__setitem__(0, sum(1 for _ in state.retained)))
    line("  iterate retained (decode all)", count[0], seconds)
    seconds = timed(lambda: count.__setitem__(0, sum(1 for _ in state.retained.topics(ROOT))))
    line("  scan root topics (keys only, no decode)", count[0], seconds)
    seconds = timed(lambda: count.__setitem__(0, sum(1 for _ in state.subscriptions)))
    line("  iterate subscriptions (decode all)", count[0], seconds)
    prefix = "Sport/Soccer/team-1"
    seconds = timed(
        lambda: count.__setitem__(0, len(list(state.retained.with_prefix(ROOT, prefix))))
    )
    line(f"  with_prefix(root, {prefix!r})", count[0], seconds)
    rnd = random.Random(7)
    probes = [topic_of(rnd.randrange(retained)) for _ in range(10_000)]
    seconds = timed(lambda: [state.retained.get(ROOT, t) for t in probes])
    line("  get retained (random topics, decode hits)", len(probes), seconds)
    state.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--retained", type=int, default=1_000_000)
    parser.add_argument("--subs", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--codec-n", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=None, help="default: a temporary directory")
    args = parser.parse_args()
    print(f"state benchmark, one core, pid {os.getpid()}")
    bench_codec(args.codec_n)
    root = Path(tempfile.mkdtemp(prefix="bench-state-", dir=args.dir))
    try:
        bench_rocks(root / "state", args.retained, args.subs, args.batch)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
