"""Where the time of a fan-out copy goes, in-process: the dispatcher, then confluent-kafka's
``produce()`` of each record it returns (to a producer whose broker never answers, so the
records are only queued: the Python-side cost of producing, with no broker work in it).

    python -m bench.bench_fanout [--batches 30] [--batch 2000]

Publications are the corpus's (``bench/corpus.py``: topics of a 10,000-topic tree, bodies that
do not compress), each subscriber with the corpus's mix of wildcard and exact subscriptions;
every topic is published once before timing, so the figures are of replayed plans.

Prints, per publication at fan-out 1 and 10, the best of interleaved batches, and the ceiling
they put on the fan-out ratio of issue 4 (copies/s at fan-out 10 over publications/s at
fan-out 1) for one service process: even if a copy cost nothing in the dispatcher, producing
it with its MQMD headers is a fixed cost on the thread that holds the GIL.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from confluent_kafka import Producer

from bench import corpus
from mqkafka.activity.builder import ActivityRecorder
from mqkafka.client.kafka_pubsub import command_message
from mqkafka.engine.context import EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT, MQPER
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.config import ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.service.tuning import tune_collector, tune_malloc
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic


class Record:
    """What the dispatcher reads of a consumed confluent-kafka Message."""

    def __init__(self, queue: str, value: bytes, md: MQMD, offset: int) -> None:
        self._topic, self._value, self._offset = queue_to_topic(queue), value, offset
        self._headers = mqmd_to_headers(md)

    def topic(self) -> str:
        return self._topic

    def value(self) -> bytes:
        return self._value

    def headers(self) -> list[tuple[str, bytes]]:
        return list(self._headers)

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return (1, int(time.time() * 1000))


class TopicsExist:
    """The queue directory's admin client: every subscriber queue topic exists."""

    class _Metadata:
        def __init__(self, topic: str) -> None:
            self.topics = {topic: type("Found", (), {"error": None})()}

    def list_topics(self, topic: str, timeout: float) -> Any:
        return self._Metadata(topic)


class NoReplica:
    def catch_up(self) -> int:
        return 0


def dispatcher(fanout: int) -> Dispatcher:
    filters = SelectorFilterPort()
    queues = QueueDirectory(TopicsExist())
    d = Dispatcher(
        state=EngineState(filters=filters),
        ctx=EngineContext(config=EngineConfig(), filters=filters, queues=queues),
        replica=NoReplica(),  # type: ignore[arg-type]
        outputs=Outputs(ServiceConfig(bootstrap="unused:9092"), queues),
        metrics=Metrics(),
        activity=ActivityRecorder("mqk-activity", "QM1", "bench"),
    )
    registrations: list[Record] = []
    for i in range(fanout):
        md = MQMD(MsgType=MQMT.REQUEST, ReplyToQ="BENCH.REPLIES", CorrelId=b"C%d" % i + bytes(22))
        for topics in corpus.subscriber_topics():
            pairs = [("Command", "RegSub"), *(("Topic", t) for t in topics)]
            pairs += [("QName", f"BENCH.SUB{i}"), ("RegOpt", "CorrelAsId")]
            put_md, value = command_message(pairs, md=md)
            registrations.append(Record(CONTROL_QUEUE, value, put_md, len(registrations)))
    d.handle(registrations)
    d.committed()
    d.handle(publications(len(corpus.leaves()), 64, every_topic=True))  # the plans are made
    d.committed()
    return d


class CorpusRecord(Record):
    def __init__(self, value: bytes, headers: list[tuple[str, bytes]], offset: int) -> None:
        self._topic, self._value, self._offset = queue_to_topic(DEFAULT_STREAM), value, offset
        self._headers = headers


def publications(count: int, size: int, every_topic: bool = False) -> list[Record]:
    """The corpus's publications, or with ``every_topic`` one per topic of the tree."""
    if every_topic:
        batch: list[Record] = []
        for i, topic in enumerate(corpus.leaves()):
            md = MQMD(MsgId=b"W%08d" % i + bytes(15), Persistence=MQPER.NOT_PERSISTENT)
            pairs = [("Command", "Publish"), ("Topic", topic)]
            put_md, value = command_message(pairs, body=b"w", md=md)
            batch.append(Record(DEFAULT_STREAM, value, put_md, i))
        return batch
    pubs = corpus.publications(count, size)
    return [CorpusRecord(p.value, p.headers, i) for i, p in enumerate(pubs)]


def produce_all(producer: Producer, records: list[OutRecord]) -> None:
    """As ``TransactionalLoop`` produces a batch's records."""
    produce = producer.produce
    for topic, value, key, headers, partition in records:
        produce(topic, value, key, partition, headers=headers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()
    producer = Producer(
        {
            "bootstrap.servers": "127.0.0.1:9",  # never answers: records are only queued
            "queue.buffering.max.messages": 2_000_000,
            "queue.buffering.max.kbytes": 4_000_000,
            "linger.ms": 60_000,
            "log_level": 0,
        }
    )
    batch = publications(args.batch, args.size)
    fans = {1: dispatcher(1), 10: dispatcher(10)}
    tune_malloc()  # the memory settings `mqk serve` runs with
    tune_collector()
    best: dict[int, tuple[float, float]] = {n: (1e9, 1e9) for n in fans}
    for _ in range(args.batches):  # interleaved, best of: the machine is shared
        for n, d in fans.items():
            started = time.perf_counter()
            records = d.handle(batch)
            d.committed()
            handled = time.perf_counter()
            produce_all(producer, records)
            produced = time.perf_counter()
            producer.purge()
            best[n] = (min(best[n][0], handled - started), min(best[n][1], produced - handled))
    per_pub = {n: (h / args.batch * 1e6, p / args.batch * 1e6) for n, (h, p) in best.items()}
    for n, (h, p) in per_pub.items():
        print(f"fan-out {n:>2}: dispatcher {h:6.2f} µs + produce {p:6.2f} µs per publication")
    (h1, p1), (h10, p10) = per_pub[1], per_pub[10]
    copy_produce = (p10 - p1) / 9
    print(f"produce() of one more copy with its MQMD headers: {copy_produce:.2f} µs")
    print(f"dispatcher work for one more copy:                 {(h10 - h1) / 9:.2f} µs")
    ceiling = 10 * (h1 + p1) / (h10 + p10)
    print(f"ceiling of copies/s at fan-out 10 / publications/s at fan-out 1: {ceiling:.2f}x")
    print(
        "  ... if a copy cost nothing in the dispatcher: "
        f"{10 * (h1 + p1) / (h1 + p10):.2f}x (target 3x)"
    )


if __name__ == "__main__":
    main()
