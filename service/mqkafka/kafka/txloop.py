"""A batched, transactional consume → transform → produce loop on confluent-kafka.

This is the fast path of the broker service: it reads a batch of records, asks a handler for
the records to write, and writes them together with the input offsets in one Kafka
transaction (consume, produce and commit in one step, KIP-98/KIP-447). A reader with
``isolation.level=read_committed`` therefore sees every output of a batch exactly once, even
when the process is killed at any moment and restarted with the same ``transactional_id``:
``init_transactions`` aborts whatever the dead instance left open, and the consumer resumes
from the last committed offsets.

The handler owns the meaning of the records; the loop owns batching, transactions, aborts and
rewinds, and never blocks a partition behind one record: a handler that raises for a record
has to turn it into output (a reply or a dead letter) itself, and an exception that escapes
the handler aborts the batch and stops the loop with the error, after rewinding. Nor behind
a record that Kafka refuses for a reason no retry cures: ``txcareful``. How the loop rides
through Kafka going away and coming back: ``txrecovery``. What it exchanges with its handler:
``txrecords``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, cast

from mqkafka.kafka import clients
from mqkafka.kafka.batching import COMMIT, BatchLimits, chunks, next_wait
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.kafka.failures import failure_of, said
from mqkafka.kafka.lanes import TopicLanes
from mqkafka.kafka.txcalls import TxCaller
from mqkafka.kafka.txcareful import CarefulMode
from mqkafka.kafka.txrecords import (
    BatchHandler,
    LoopStats,
    OutRecord,
    RefusalHandler,
    StateHooks,
    has_hooks,
)
from mqkafka.kafka.txrecovery import TX_TIMEOUT, OutageRecovery

log = logging.getLogger(__name__)

JOIN_WAIT = 15.0  # seconds after which a worker not yet given partitions says it is ready
SESSION_TIMEOUT_MS = 10_000  # a killed worker's partitions move to the others after this
# The group's rebalance timeout (librdkafka's max.poll.interval.ms, 300 s by default): how long
# a rebalance waits for each member to rejoin, and how long the loop may go without consuming
# before its client leaves the group. After an outage longer than a session every lane of a
# worker rejoins as a new member, each on its own; with 300 s, a command waited 300 s after
# Kafka's return (the restart test, 1 run in ~10 under load), the loop consuming, idle. The
# loop's longest time without a consume is a transaction's two bounded calls (TX_GIVE_UP each)
# or a recovery step (TX_TIMEOUT, then ANSWER_WAIT): 60 s leaves twice that.
REBALANCE_TIMEOUT_MS = 60_000

__all__ = [
    "REBALANCE_TIMEOUT_MS",
    "SESSION_TIMEOUT_MS",
    "TX_TIMEOUT",
    "BatchHandler",
    "LoopStats",
    "OutRecord",
    "RefusalHandler",
    "StateHooks",
    "TransactionalLoop",
]


class TransactionalLoop(OutageRecovery):
    """Runs ``handler`` over ``topics`` until ``stop()``; one transaction per batch."""

    def __init__(
        self,
        *,
        client: ClientConfig,
        group_id: str,
        topics: Sequence[str],
        handler: BatchHandler,
        transactional_id: str | None,
        instance_id: str | None = None,
        client_id: str | None = None,
        limits: BatchLimits | None = None,
        batch_timeout: float = 0.005,
        consumer_config: Mapping[str, Any] | None = None,
        producer_config: Mapping[str, Any] | None = None,
        on_error: Callable[[Exception], None] | None = None,
        on_joined: Callable[[], None] | None = None,
        lane_per_topic: bool = False,
    ) -> None:
        self.topics = list(topics)
        # a consumer per topic, each balanced over the workers on its own (``lanes``)
        self._lanes = lane_per_topic and len(self.topics) > 1
        self.handler = handler
        self.limits = limits or BatchLimits()
        self.batch_size = self.limits.batch_size
        self.batch_timeout = batch_timeout
        self.transactional = transactional_id is not None
        self.stats = LoopStats()
        self._stop = threading.Event()
        self._on_error = on_error
        self._on_joined = on_joined
        self._joined = False
        self._abort_pending = False  # an abort that failed: done before the next begin
        self._away_since: float | None = None  # Kafka away, as a failed batch found
        self._asked_at = 0.0
        self._failures = 0  # transactions failed in a row, for reasons other than an outage
        self._away_tries = 0  # transactions failed in a row while Kafka was away
        self._recovery_failures = 0  # recovery steps failed in a row with Kafka answering
        # A producer whose transaction failed while Kafka was away (or whose abort failed) is
        # replaced before the next transaction: librdkafka's transaction state after a broker
        # restart can wait for ever for a coordinator request that is gone (the service
        # answered nothing after Kafka came back). init_transactions on a new producer with
        # the same transactional.id aborts whatever the old one left open.
        self._renew = False
        # After a failed transaction whose end is not known for sure (a commit that failed may
        # have completed: the batch rewound was then handed out twice), reading resumes from
        # the committed offsets, Kafka's word, before the next batch is read.
        self._resync = False
        self._back_at = -1e9  # when Kafka was last said to be back (monotonic)
        self._producer_at = 0.0  # when the producer in use was initialised (monotonic)
        self._producer_fresh = False  # initialised, no transaction begun since
        self._failing_since: float | None = None  # recovery failing with Kafka answering
        self._took_over: list[str] = []  # clients replaced during an outage: said at its end
        self._client = client
        self._calls = TxCaller()
        self._abandoned: list[Any] = []  # clients stuck in a call: kept, never destroyed
        self._closing: list[Any] = []  # closes of replaced consumers not yet seen returned
        self._stuck: list[tuple[Any, Any]] = []  # abandoned producers, the call each is stuck in
        self._careful = CarefulMode(handler)
        self._consumer_settings: dict[str, Any] = {
            "group.id": group_id,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            # Settings measured on the issue-21 corpus (bench/bench_relay.py, 256 B-64 KB
            # bodies that do not compress): a fetch returns after 10 ms at most, so a
            # trickle is not held back; 20,000 records or 16 MB prefetched per partition
            # (librdkafka's default is 64 MB) keep a 4-partition stream of 64 KB-4 MB
            # records from holding 256 MB, and still cover a 50,000-record transaction.
            "fetch.wait.max.ms": 10,
            "queued.min.messages": 20000,
            "queued.max.messages.kbytes": 16384,
            # Static membership: a worker restarted with its instance id takes its
            # partitions back at once (no rebalance, no wait for the session of its
            # killed predecessor); cooperative: a rebalance moves only what must move.
            # A worker gone for good loses its partitions after the session timeout.
            "partition.assignment.strategy": "cooperative-sticky",
            "session.timeout.ms": SESSION_TIMEOUT_MS,
            # partitions added to a topic (``mqk topics apply``, issue 34) are taken by the
            # group within this, not librdkafka's 5 minutes: one metadata request per 5 s
            "topic.metadata.refresh.interval.ms": 5000,
            "heartbeat.interval.ms": SESSION_TIMEOUT_MS // 5,
            "max.poll.interval.ms": REBALANCE_TIMEOUT_MS,
            **({"group.instance.id": instance_id} if instance_id else {}),
            **({"client.id": client_id} if client_id else {}),
            **(consumer_config or {}),
        }
        self.consumer = self._make_consumer()
        self._consumer_at = time.monotonic()  # when the consumer in use was made
        producer_settings: dict[str, Any] = {
            "linger.ms": 2,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 500000,
            # 128 MB of copies waiting to be sent (librdkafka's default: 1 GB): a large
            # publication's fan-out waits for the broker instead of growing the process
            # (a 4 MB publication to 10 subscribers: peak RSS 437 MB with the default).
            "queue.buffering.max.kbytes": 131072,
            "enable.idempotence": True,
            # None: on the corpus lz4 cost the relay's process 12% (256 B) to 37% (64 KB)
            # more CPU per record and the broker more to check it, for bodies that do not
            # compress; it paid only on the old repeated-body input (a best case).
            "compression.type": "none",
            # A failed write fails the transaction's commit; a report per record written
            # would only cost the poll loop (~7% of the publication path).
            "delivery.report.only.error": True,
        }
        if transactional_id is not None:
            # A short timeout bounds how long a killed instance's open transaction can hold
            # back read_committed readers if it never comes back to abort it itself.
            producer_settings |= {
                "transactional.id": transactional_id,
                "transaction.timeout.ms": 10000,
                # A transaction begun right after a commit meets CONCURRENT_TRANSACTIONS while
                # the coordinator still writes the last one's markers; librdkafka retries after
                # retry.backoff.ms, 100 ms by default: that was the p99 latency (KAFKA-5477).
                # Retries back off exponentially from here up to retry.backoff.max.ms.
                "retry.backoff.ms": 2,
                "retry.backoff.max.ms": 200,
            }
        producer_settings.update(producer_config or {})
        self._producer_settings = producer_settings
        self.producer = clients.producer(client, producer_settings)

    def _make_consumer(self) -> Any:
        settings = self._consumer_settings
        if self._lanes:
            return TopicLanes(partial(clients.consumer, self._client), settings, self.topics)
        return clients.consumer(self._client, settings)

    def _send_offsets(self, offsets: list[TopicPartition]) -> None:
        """The input offsets into the transaction, each with its consumer's group metadata."""
        consumer = self.consumer
        send = self.producer.send_offsets_to_transaction
        if isinstance(consumer, TopicLanes):
            for metadata, part in consumer.metadata_and_offsets(offsets):
                self._bounded(send, part, metadata)
        else:
            self._bounded(send, offsets, consumer.consumer_group_metadata())

    # --- lifecycle ---------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        """Process batches until stopped; closes the clients on the way out."""
        if self.transactional:
            self.producer.init_transactions(30)
            self._producer_at, self._producer_fresh = time.monotonic(), True
        self.consumer.subscribe(self.topics, on_assign=self._assigned)
        subscribed = time.monotonic()
        hooks = cast(StateHooks, self.handler) if has_hooks(self.handler) else None
        try:
            while not self._stop.is_set():
                if not self._joined and time.monotonic() - subscribed > JOIN_WAIT:
                    self._assigned(self.consumer, [])  # a member with nothing to do is ready
                self._watch_lanes()
                if (self._renew or self._resync) and not self._recovered():
                    continue
                batch = self._next_batch()
                if not batch:
                    self._check_kafka_while_idle()
                    continue
                self._process(batch, hooks)
        except Exception as error:
            if self._on_error is not None:
                self._on_error(error)
            raise
        finally:
            self._close()

    def _assigned(self, consumer: Any, partitions: list[Any]) -> None:
        """The group answered: this worker is a member (its partitions, maybe none, are
        assigned by the client after this returns)."""
        if not self._joined:
            self._joined = True
            if self._on_joined is not None:
                self._on_joined()

    def _close(self) -> None:
        self._waits_no_more()
        self._calls.stop()
        try:
            self.producer.flush(10)
        finally:
            self.consumer.close()

    # --- one batch ---------------------------------------------------------------------
    def _next_batch(self, timeout: float | None = None) -> list[Any]:
        wait = self.batch_timeout if timeout is None else timeout
        # a record never waits for others to fill a batch
        messages = clients.consume_arrived(self.consumer, self.batch_size, wait)
        batch = []
        for message in messages:
            error = message.error()
            if error is None:
                batch.append(message)
            elif error.code() == KafkaError._FATAL:
                self._consumer_fenced(error)
                return []
            elif error.code() != -191 and not clients.is_away(error):  # librdkafka said those
                log.warning("consumer error: %s", error)
        return batch

    def _process(self, batch: list[Any], hooks: StateHooks | None) -> None:
        """One transaction: this batch and, while input keeps arriving, more.

        How large it grows is ``batching.next_wait``'s call (records, bytes, writes and time
        together): under load commits are rare whatever the record size; a trickle commits
        at once, so latency stays low at modest rates.
        """
        started = time.perf_counter()
        try:  # the state's catch-up and the transaction's start ask Kafka too
            if hooks is not None:
                hooks.before_batch()
            if self.transactional:
                if self._renew:
                    self._renew_producer()
                elif self._abort_pending:  # the last abort did not reach Kafka: finish it
                    self._bounded(self.producer.abort_transaction)
                    self._abort_pending = False
                self.producer.begin_transaction()
                self._producer_fresh = False
        except KafkaException as error:
            self._outage_met(error)  # before the handler hears of the abort: it says less then
            self._rewind(batch)
            if hooks is not None:
                hooks.aborted()
            if not self._retry_after(error):
                raise
            return
        consumed: list[Any] = []
        written = 0
        size = 0  # bytes of input values in the transaction
        waited = 0.0
        careful = self._careful.on
        try:
            while batch:
                consumed.extend(batch)
                lengths = list(map(len, batch))  # a Message's len() is its value's
                batch_size = sum(lengths)
                size += batch_size
                if careful:
                    written += self._careful.produce(self.producer, batch)
                else:
                    produce = self.producer.produce
                    parts = (
                        [batch]  # large records: a few at a time (BatchLimits.chunk_bytes)
                        if batch_size <= self.limits.chunk_bytes
                        else [batch[a:b] for a, b in chunks(lengths, self.limits.chunk_bytes)]
                    )
                    for part in parts:
                        for topic, value, key, headers, partition in self.handler.handle(part):
                            try:  # -1: the partitioner chooses
                                produce(topic, value, key, partition, headers=headers)
                            except BufferError:  # local queue full: let deliveries drain
                                self._produce(OutRecord(topic, value, key, headers, partition))
                            written += 1
                self.producer.poll(0)
                while True:
                    waited = next_wait(
                        self.limits,
                        records=len(consumed),
                        size=size,
                        writes=written,
                        elapsed=time.perf_counter() - started,
                        last_batch=len(batch),
                        waited=waited > 0,
                        stopping=self._stop.is_set(),
                    )
                    if waited == COMMIT:
                        batch = []
                        break
                    batch = self._next_batch(timeout=waited)
                    if batch:
                        break
            offsets = self._next_offsets(consumed)
            if self.transactional:
                self._send_offsets(offsets)
                self._bounded(self.producer.commit_transaction)
            else:
                self.producer.flush(30)
                self.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as error:
            learned = self._careful.learn(self.producer, consumed or batch, careful)
            if not learned:
                self._outage_met(error)  # before the handler hears of the abort
            self._abort(consumed or batch, hooks)
            if learned:  # progress: the next careful try writes around what was refused
                return
            if not self._retry_after(error):
                raise
            return
        except Exception:
            self._abort(consumed or batch, hooks)
            raise
        self._failures = self._away_tries = 0
        self._heard_from_kafka()
        if careful:
            self._careful.passed(offsets)
        if hooks is not None:
            hooks.committed()
        stats = self.stats
        stats.batches += 1
        stats.records_in += len(consumed)
        stats.records_out += written
        stats.last_commit_at = time.time()
        if len(stats.batch_seconds) < 100000:
            stats.batch_seconds.append(time.perf_counter() - started)

    def _produce(self, out: OutRecord) -> None:
        produce = self.producer.produce
        while True:
            try:
                produce(out.topic, out.value, out.key, out.partition, headers=out.headers)
                return
            except BufferError:
                self.producer.poll(0.05)  # local queue full: let deliveries drain

    @staticmethod
    def _next_offsets(batch: list[Any]) -> list[TopicPartition]:
        highest: dict[tuple[str, int], int] = {}
        for message in batch:
            highest[(message.topic(), message.partition())] = message.offset()
        return [TopicPartition(t, p, o + 1) for (t, p), o in highest.items()]

    def _abort(self, batch: list[Any], hooks: StateHooks | None) -> None:
        self.stats.aborts += 1
        # a producer to be renewed has nothing to abort: its successor's init_transactions
        # aborts what it left open
        if self.transactional and not self._renew:
            try:
                self._bounded(self.producer.abort_transaction)
            except KafkaException as error:
                self._abort_pending = True  # finished before the next transaction begins
                self._renew = True  # or, if it cannot be, by a new producer
                away = self._away_since is not None or clients.kafka_away_since() is not None
                if not away and not clients.is_away(failure_of(error)):
                    log.warning("abort_transaction failed (%s): a new producer takes over",
                                said(error))  # fmt: skip
        self._rewind(batch)
        self._resync = self.transactional  # the rewind, unless the commit had completed
        if hooks is not None:
            hooks.aborted()

    def _rewind(self, batch: list[Any]) -> None:
        """Back to the first record of the batch in each partition, so nothing is skipped."""
        lowest: dict[tuple[str, int], int] = {}
        for message in batch:
            key = (message.topic(), message.partition())
            lowest[key] = min(lowest.get(key, message.offset()), message.offset())
        for (topic, partition), offset in lowest.items():
            tp = TopicPartition(topic, partition, offset)
            clients.seek_or_say(self.consumer, tp, log, "seek after abort")
