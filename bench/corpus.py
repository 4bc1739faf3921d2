"""The realistic input of every throughput and latency benchmark (issue 21).

Corpus in one line: MQ Publish commands (RFH2 + body, MQMD headers, wire contract §3) on
topics drawn from a tree of 10,000 leaves with names of varied lengths, bodies that do not
compress (random bytes and generated JSON with varied values, half each) of 256 B, 4 KB,
64 KB or a log-uniform mix of 64 B-64 KB, half keyed by publisher and half unkeyed, produced
uncompressed (librdkafka's default); each subscriber holds a mix of ``#`` and ``+`` wildcards
and exact topics that together match every leaf once, beside 1,000 exact subscriptions that
match nothing.

The old input (one repeated body of ``x``, lz4) stays available as ``BEST_CASE``: a best case,
labelled so wherever it is reported.
"""

from __future__ import annotations

import json
import math
import random
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Producer

from bench.kafka_env import Headers, kafka_settings
from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers

# the tree: Trade/<market>/<sector>/<symbol>, 10 × 10 × 100 = 10,000 leaves; names of varied
# lengths, as real ones are (a cache keyed by header length meets them)
MARKETS = ("NYSE", "LSE", "XETRA", "EURONEXT", "TSE", "HKEX", "ASX", "SIX", "NASDAQ", "BME")
SECTORS = ("Energy", "Materials", "Industrials", "Utilities", "Health", "Financials", "IT",
           "Telecom", "RealEstate", "ConsumerStaples")  # fmt: skip
SYMBOLS = 100
SIZES = {"256 B": 256, "4 KB": 4096, "64 KB": 65536, "mix": 0}  # 0: the log-uniform mix
MIX_RANGE = (64, 65536)
BEST_CASE = "best case: one repeated body of x, lz4"
POOL_BYTES = 16 << 20  # distinct bodies made per corpus: far beyond any compressor's window
PUBLISHERS = 64  # keyed publications are keyed by one of these publishers


def _symbols() -> list[str]:
    rng = random.Random(10_000)
    names: set[str] = set()
    while len(names) < SYMBOLS:
        names.add("".join(rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ", k=rng.randint(1, 6))))
    return sorted(names)


_SYMBOL_NAMES = _symbols()


def leaf(m: int, s: int, x: int) -> str:
    return f"Trade/{MARKETS[m]}/{SECTORS[s]}/{_SYMBOL_NAMES[x]}"


def leaves() -> list[str]:
    n = range(len(MARKETS)), range(len(SECTORS)), range(SYMBOLS)
    return [leaf(m, s, x) for m in n[0] for s in n[1] for x in n[2]]


def subscriber_topics() -> list[list[str]]:
    """One subscriber's subscriptions, as RegSub commands (each a list of topics) that
    together match every leaf exactly once: six markets by ``#`` (60% of the tree), two by
    ``+`` per sector (20%), two by exact topic (20%: 2,000 exact subscriptions)."""
    wild = [f"Trade/{MARKETS[m]}/#" for m in range(6)]
    plus = [f"Trade/{MARKETS[m]}/{sector}/+" for m in (6, 7) for sector in SECTORS]
    exact = [leaf(m, s, x) for m in (8, 9) for s in range(len(SECTORS)) for x in range(SYMBOLS)]
    return [wild, plus, *(exact[i : i + 250] for i in range(0, len(exact), 250))]


def decoy_topics() -> list[list[str]]:
    """1,000 exact subscriptions on topics nobody publishes (deeper than any leaf)."""
    n = range(len(MARKETS)), range(len(SECTORS)), range(10)
    decoys = [f"{leaf(m, s, x)}/Depth" for m in n[0] for s in n[1] for x in n[2]]
    return [decoys[i : i + 250] for i in range(0, len(decoys), 250)]


def subscribe(client: KafkaPubSub, queues: Sequence[str], decoy_queue: str = "BENCH.DECOY") -> int:
    """Registers the corpus's subscriptions: each of ``queues`` matches every leaf once;
    returns how many subscriptions were made."""
    made = 0
    for queue in [*queues, decoy_queue]:
        for topics in decoy_topics() if queue == decoy_queue else subscriber_topics():
            result = client.register(topics, queue=queue, wait=60)
            assert result is not None and result.ok, f"RegSub {topics[0]}...: {result}"
            made += len(topics)
    return made


def body_size(rng: random.Random, size: int) -> int:
    if size:
        return size
    low, high = MIX_RANGE
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))


def json_body(rng: random.Random, size: int) -> bytes:
    """A JSON document of about ``size`` bytes with varied values (ids, amounts, names)."""
    parts = [f'{{"orderId":{rng.getrandbits(63)},"items":[']
    length = len(parts[0])
    while length < size:
        item = json.dumps(
            {
                "sku": f"{rng.getrandbits(40):010x}",
                "qty": rng.randint(1, 10_000),
                "price": round(rng.uniform(0.01, 99_999), 2),
                "note": rng.randbytes(12).hex(),
            },
            separators=(",", ":"),
        )
        parts.append(item if len(parts) == 1 else "," + item)
        length += len(parts[-1])
    return ("".join(parts) + "]}").encode()[:size]  # a body is bytes to the broker


def bodies(size: int, seed: int = 21) -> list[bytes]:
    """Distinct bodies, half random bytes and half JSON: ``POOL_BYTES`` in all, or 4,096
    (1 MB at 256 B: still far beyond lz4's 64 KB window), at least 64."""
    rng = random.Random(seed)
    pool: list[bytes] = []
    total = 0
    while total < POOL_BYTES or len(pool) < 64:
        n = body_size(rng, size)
        body = rng.randbytes(n) if len(pool) % 2 else json_body(rng, n)
        pool.append(body)
        total += n
        if len(pool) >= 4096:
            break
    return pool


@dataclass(frozen=True)
class Publication:
    key: bytes | None
    value: bytes
    headers: Headers


def publications(count: int, size: int, seed: int = 21) -> Iterator[Publication]:
    """``count`` Publish commands of the corpus (``size`` 0: the mix); each has its own MsgId,
    as MQ puts them (MQPMO_NEW_MSG_ID), and a body prefix of its own number so that no two
    are alike even where the pool repeats."""
    rng = random.Random(seed)
    tree = leaves()
    pool = bodies(size, seed)
    publishers = [f"PUB{p:02d}".encode() for p in range(PUBLISHERS)]
    # made once per topic and MQMD, not per publication: the corpus is filled fast
    md, _ = command_message([], body=b"-", md=MQMD(Persistence=MQPER.NOT_PERSISTENT))
    fixed = [(n, v) for n, v in mqmd_to_headers(md) if n != "mqmd.MsgId"]
    prefixes: dict[str, bytes] = {}
    for i in range(count):
        topic = rng.choice(tree)
        prefix = prefixes.get(topic)
        if prefix is None:
            pairs = [("Command", "Publish"), ("Topic", topic)]
            prefix = prefixes[topic] = command_message(pairs, body=b"-", md=md)[1][:-1]
        body = pool[i % len(pool)]
        body = i.to_bytes(8, "big") + body[8:] if len(body) >= 8 else body
        key = rng.choice(publishers) if i % 2 else None
        yield Publication(key, prefix + body, [("mqmd.MsgId", rng.randbytes(24)), *fixed])


def best_case(count: int, size: int) -> Iterator[Publication]:
    """The old input: one body of ``x`` on one topic, lz4 by the filling producer."""
    md, value = command_message(
        [("Command", "Publish"), ("Topic", leaf(0, 0, 0))], body=b"x" * size
    )
    headers = mqmd_to_headers(md)
    for i in range(count):
        yield Publication(str(i % 64).encode(), value, headers)


WARM_UP = b"\0warm-up\0"  # the body of a warm-up publication (its copies end with it)


def fill_warm_up(bootstrap: str, topic: str, partitions: int = 1) -> int:
    """One publication per leaf of the tree, ``WARM_UP`` as body; returns how many. With
    ``partitions``, one per leaf in each of them: the corpus puts a topic's publications in
    any partition, and a worker makes its own plans from what it reads."""
    producer = Producer(kafka_settings(bootstrap))
    md = MQMD(Persistence=MQPER.NOT_PERSISTENT)
    tree = leaves()
    for n, topic_string in enumerate(tree):
        md = md.replace(MsgId=n.to_bytes(24, "big"))
        pairs = [("Command", "Publish"), ("Topic", topic_string)]
        md, value = command_message(pairs, body=WARM_UP, md=md)
        for partition in range(partitions) if partitions > 1 else [-1]:
            producer.produce(topic, value=value, headers=mqmd_to_headers(md), partition=partition)
            producer.poll(0)
    assert producer.flush(60) == 0
    return len(tree) * partitions


def records_for(size: int, budget: int = 160 << 20, most: int = 200_000) -> int:
    """How many publications make a run: ``most``, fewer for large bodies (``budget`` bytes)."""
    mean = size or (MIX_RANGE[1] - MIX_RANGE[0]) / math.log(MIX_RANGE[1] / MIX_RANGE[0])
    return max(200, min(most, int(budget / mean)))


def fill(
    bootstrap: str,
    topic: str,
    count: int,
    size: int,
    *,
    best: bool = False,
    producer_config: dict[str, Any] | None = None,
) -> int:
    """Produces ``count`` corpus publications to ``topic`` with librdkafka's default
    settings (uncompressed), or the best case lz4; returns the bytes of values written."""
    producer = Producer(_settings(bootstrap, best, producer_config))
    return _produce_all(producer, topic, count, size, best)


def fill_held(
    bootstrap: str,
    topic: str,
    count: int,
    size: int,
    *,
    best: bool = False,
    producer_config: dict[str, Any] | None = None,
) -> tuple[int, Callable[[], None]]:
    """As ``fill``, in one transaction left open: read_committed readers (the service) see
    none of it until the returned function commits it, and then all of it at once - a full
    stream for workers already running, with no producer beside them."""
    held = {"transactional.id": f"corpus-{uuid.uuid4().hex}", "transaction.timeout.ms": 600_000}
    producer = Producer(_settings(bootstrap, best, {**(producer_config or {}), **held}))
    producer.init_transactions(30)
    producer.begin_transaction()
    written = _produce_all(producer, topic, count, size, best)
    return written, lambda: producer.commit_transaction(60)


def _settings(bootstrap: str, best: bool, producer_config: dict[str, Any] | None) -> Any:
    return {
        **kafka_settings(bootstrap),
        "queue.buffering.max.messages": 1_000_000,  # only the local queue: no wire effect
        "queue.buffering.max.kbytes": 2_000_000,
        **({"compression.type": "lz4", "linger.ms": 20} if best else {}),
        **(producer_config or {}),
    }


def _produce_all(producer: Any, topic: str, count: int, size: int, best: bool) -> int:
    written = 0
    source = best_case(count, size) if best else publications(count, size)
    for pub in source:
        while True:
            try:
                producer.produce(topic, value=pub.value, key=pub.key, headers=pub.headers)
                break
            except BufferError:
                producer.poll(0.05)
        written += len(pub.value)
    left = producer.flush(120)
    assert left == 0, f"{left} publications not written to {topic}"
    return written
