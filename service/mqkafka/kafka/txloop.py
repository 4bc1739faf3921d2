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
the handler aborts the batch and stops the loop with the error, after rewinding.

Nor behind a record that Kafka refuses for a reason no retry cures (too large, a topic it may
not write, an invalid record: ``INCURABLE``). Which input made it is not known in a batch,
so after a failed transaction the batch is tried again *carefully*: each input handled alone,
each of its records watched. An input whose record is refused is then taken out of the batch:
its records are not written, the handler's ``refused`` gives what to write instead (its dead
letter), and when that is refused too the input is logged with its topic, partition and
offset and skipped. The rest of the batch commits; careful mode ends once the consumer has
passed what the failed transaction had read.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as WaitedTooLong
from dataclasses import dataclass, field
from queue import SimpleQueue
from typing import Any, NamedTuple, Protocol, cast

from mqkafka.kafka import clients
from mqkafka.kafka.batching import COMMIT, BatchLimits, chunks, next_wait
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition

log = logging.getLogger(__name__)

IDLE_CHECK = 2.0  # seconds between idle questions to a Kafka said to be away
JOIN_WAIT = 15.0  # seconds after which a worker not yet given partitions says it is ready
SESSION_TIMEOUT_MS = 10_000  # a killed worker's partitions move to the others after this
MAX_RETRIES = 8  # failed transactions in a row before the loop gives up (~21 s of pauses)
# Failed tries to resume from the committed offsets, with Kafka answering, before a new
# consumer takes over: one that keeps failing asks a group coordinator that is gone.
RECOVERY_TRIES = 3
CLOSE_WAIT = 10.0  # seconds a replaced consumer's close may take before it is left to itself
# Seconds a transactional call may wait for Kafka. A call that times out leaves librdkafka's
# transaction state waiting for that very call (KAFKA-style "resume the API"), so the loop
# does not wait long: it starts a fresh producer instead (see _renew_producer).
TX_TIMEOUT = 10.0
# librdkafka's send_offsets_to_transaction does not honour its timeout when the group
# coordinator's broker went away and came back: its TxnOffsetCommit waits in the coordinator
# request machinery for ever (the service stalled after a broker restart, and during a
# replicated cluster's leader loss; librdkafka PR 3847, open). So the transactional calls
# run on a helper thread and are given up after this long: the producer is then abandoned
# (left to its stuck thread, never destroyed under it) and a new one takes over.
TX_GIVE_UP = TX_TIMEOUT + 5.0
# Refusals of a record that the same record meets again however often it is tried.
INCURABLE = frozenset(
    {
        KafkaError.MSG_SIZE_TOO_LARGE,
        KafkaError.RECORD_LIST_TOO_LARGE,
        KafkaError.TOPIC_EXCEPTION,  # an invalid topic name
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.POLICY_VIOLATION,
        KafkaError.INVALID_RECORD,  # e.g. no key for a compacted topic
    }
)
MAX_CAREFUL_COMMITS = 64  # careful mode ends after these even if a partition was revoked
Position = tuple[str, int, int]  # an input record's topic, partition, offset


class OutRecord(NamedTuple):
    """One record to write in the current transaction (a tuple: made per delivered copy, and
    a frozen dataclass costs several times as much to build)."""

    topic: str
    value: bytes | None
    key: bytes | None = None
    headers: Sequence[tuple[str, bytes | None]] | None = None
    partition: int = -1  # -1: the producer's partitioner chooses


class BatchHandler(Protocol):
    def handle(self, batch: Sequence[Any]) -> Iterable[OutRecord]:
        """The records to write for ``batch`` (confluent-kafka Messages, errors removed)."""
        ...


class RefusalHandler(Protocol):
    """Optional: what to write instead of the records an input made when Kafka refused one."""

    def refused(self, message: Any, error: KafkaError) -> OutRecord | None:
        """A record in place of all ``message`` made (its dead letter), or None to skip it."""
        ...


class StateHooks(Protocol):
    """Optional: a handler that keeps state learns whether a batch's effects became real."""

    def before_batch(self) -> None: ...

    def committed(self) -> None: ...

    def aborted(self) -> None: ...


@dataclass
class LoopStats:
    batches: int = 0
    records_in: int = 0
    records_out: int = 0
    aborts: int = 0
    last_commit_at: float = 0.0
    batch_seconds: list[float] = field(default_factory=list)


class TransactionalLoop:
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
    ) -> None:
        self.topics = list(topics)
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
        self._fenced_renewals = 0  # fatal errors met right after Kafka was away, cured so
        self._back_at = -1e9  # when Kafka was last said to be back (monotonic)
        self._consumer_renewals = 0  # consumers fenced right after Kafka was away, cured so
        self._client = client
        self._calls = _Caller()
        self._abandoned: list[Any] = []  # producers stuck in a call: kept, never destroyed
        # Careful mode (see the module doc): per partition, the last offset a failed
        # transaction read; the inputs whose records Kafka refused; those whose replacement it
        # refused too; refusals reported since the last transaction began.
        self._careful: dict[tuple[str, int], int] = {}
        self._careful_commits = 0
        self._refused: dict[Position, KafkaError] = {}
        self._skipped: set[Position] = set()
        self._learned: dict[Position, KafkaError] = {}
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
            "heartbeat.interval.ms": SESSION_TIMEOUT_MS // 5,
            **({"group.instance.id": instance_id} if instance_id else {}),
            **({"client.id": client_id} if client_id else {}),
            **(consumer_config or {}),
        }
        self.consumer = clients.consumer(client, self._consumer_settings)
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
        self.consumer.subscribe(self.topics, on_assign=self._assigned)
        subscribed = time.monotonic()
        hooks = cast(StateHooks, self.handler) if _has_hooks(self.handler) else None
        try:
            while not self._stop.is_set():
                if not self._joined and time.monotonic() - subscribed > JOIN_WAIT:
                    self._assigned(self.consumer, [])  # a member with nothing to do is ready
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
        self._calls.stop()
        try:
            self.producer.flush(10)
        finally:
            self.consumer.close()

    # --- one batch ---------------------------------------------------------------------
    def _next_batch(self, timeout: float | None = None) -> list[Any]:
        wait = self.batch_timeout if timeout is None else timeout
        consumer = self.consumer
        # consume(n, t) waits for all n or all of t; take what has arrived instead, or wait
        # for the first record only, so a record never waits for others to fill a batch.
        messages = consumer.consume(self.batch_size, 0)
        if not messages and wait > 0:
            messages = consumer.consume(1, wait)
            if not messages:
                return []
            messages += consumer.consume(self.batch_size - 1, 0)
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

    def _consumer_fenced(self, error: KafkaError) -> None:
        """The consumer met a fatal error: a static member fenced by one with its instance
        id. Right after an outage that member is this worker itself: its consumer, back,
        rejoined under a new member id and the group then fenced its old one (the service
        was a member holding every partition and answered nothing). A new consumer cures
        that, once per outage; at any other time another worker took the id: the loop ends."""
        if not self._outage_recent() or self._consumer_renewals >= 1:
            raise KafkaException(error)
        self._consumer_renewals += 1
        log.warning("the group fenced this worker's consumer after the outage (its own rejoin):"
                    " a new consumer takes over")  # fmt: skip
        self._abandoned.append(self.consumer)  # never closed: a fenced consumer's close hangs
        self._new_consumer()

    def _new_consumer(self) -> None:
        self.consumer = clients.consumer(self._client, self._consumer_settings)
        self.consumer.subscribe(self.topics, on_assign=self._assigned)
        self._renew = self._resync = self.transactional  # the producer used the old member id

    def _outage_recent(self) -> bool:
        """Kafka is away, or was until less than two minutes ago."""
        if self._away_since is not None or clients.kafka_away_since() is not None:
            return True
        return time.monotonic() - self._back_at < 120.0

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
        except KafkaException as error:
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
        careful = bool(self._careful)
        try:
            while batch:
                consumed.extend(batch)
                lengths = list(map(len, batch))  # a Message's len() is its value's
                batch_size = sum(lengths)
                size += batch_size
                if careful:
                    written += self._produce_carefully(batch)
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
                metadata = self.consumer.consumer_group_metadata()
                self._bounded(self.producer.send_offsets_to_transaction, offsets, metadata)
                self._bounded(self.producer.commit_transaction)
            else:
                self.producer.flush(30)
                self.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as error:
            learned = self._learn(consumed or batch, careful)
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
            self._passed(offsets)
        if hooks is not None:
            hooks.committed()
        stats = self.stats
        stats.batches += 1
        stats.records_in += len(consumed)
        stats.records_out += written
        stats.last_commit_at = time.time()
        if len(stats.batch_seconds) < 100000:
            stats.batch_seconds.append(time.perf_counter() - started)

    def _retry_after(self, error: KafkaException) -> bool:
        """Whether the batch, rewound by the abort, is to be tried again: yes after a failure
        that the next transaction can escape (a topic deleted under a record written to it,
        a broker that was briefly away), with a growing pause; no after a fatal one (this
        producer is fenced) or ``MAX_RETRIES`` in a row, which stop the loop. While Kafka
        is away (a broker restarting, leaders moving) the batch waits for it, however long,
        and that is said once, not per try."""
        failure = error.args[0] if error.args else None
        if isinstance(failure, KafkaError) and failure.fatal():
            return self._fenced_by_the_outage(failure)
        away = clients.is_away(failure)
        if self.transactional and (away or _timed_out(failure)):
            self._renew = True
        if away:  # however long: not counted against MAX_RETRIES
            if self._away_since is None:
                self._away_since = time.monotonic()
                log.warning("Kafka is away (%s): the batch waits for it", _said(error))
            self._away_tries += 1
            self._stop.wait(min(5.0, 0.1 * 2 ** min(self._away_tries, 6)))
            return True
        self._failures += 1
        if self._failures > MAX_RETRIES:
            return False
        log.warning("transaction failed (%s); trying the batch again", _said(error))
        self._stop.wait(min(5.0, 0.1 * 2**self._failures))
        return True

    def _fenced_by_the_outage(self, failure: KafkaError) -> bool:
        """A fatal error while Kafka was away or just back: the coordinator aborted the
        transaction that the outage held open (its timeout), and with it fenced this
        producer's epoch; no other worker has this transactional id (the instance-in-use
        check at start). A new producer cures that, once per outage; a fatal error at any
        other time (another worker took the id, credentials refused) ends the loop."""
        if not self.transactional or not self._outage_recent() or self._fenced_renewals >= 1:
            return False
        self._fenced_renewals += 1
        log.warning("Kafka fenced the transaction the outage held open (%s): a new producer "
                    "takes over", failure.str())  # fmt: skip
        self._renew = True
        return True

    def _bounded(self, call: Callable[..., Any], *args: Any) -> None:
        """``call(*args, TX_TIMEOUT)`` on the helper thread, given up after ``TX_GIVE_UP``:
        then the producer is abandoned and a KafkaException (timed out) says so, for the
        caller's one line (``_retry_after``: Kafka is away, unless that was said already)."""
        future = self._calls.submit(call, *args, TX_TIMEOUT)
        try:
            future.result(TX_GIVE_UP)
        except WaitedTooLong:
            name = getattr(call, "__name__", "call")
            self._abandoned.append(self.producer)
            self.producer = clients.producer(self._client, self._producer_settings)
            self._calls = _Caller()  # the old thread is stuck in the abandoned producer
            self._renew = True  # init_transactions before the next transaction
            said = f"no answer to {name} in {TX_GIVE_UP:.0f} s; a new producer takes over"
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT, said)) from None

    def _renew_producer(self) -> None:
        """A fresh transactional producer in place of one whose transaction state is stuck.
        Raises (a KafkaException) while Kafka cannot initialise it; tried again then."""
        old = self.producer
        if old not in self._abandoned:  # else: already replaced, only not yet initialised
            try:  # its records belong to a transaction that will not commit
                old.purge(True, True, False)
                old.poll(0)
            except (KafkaException, RuntimeError):
                pass
            self.producer = clients.producer(self._client, self._producer_settings)
            del old
        self.producer.init_transactions(TX_TIMEOUT)  # aborts what the old one left open
        self._renew = False
        self._abort_pending = False
        self._resync = True
        log.info("a new transactional producer took over")

    def _recovered(self) -> bool:
        """After a failed transaction, before the next batch is read: a new producer if the
        old one is to go (its init_transactions settles the last transaction), then reading
        resumes from the committed offsets. False while Kafka cannot do either (tried again
        after a pause: ``_recovery_failed``)."""
        reading = False
        try:
            if self._renew and self.transactional:
                self._renew_producer()
            reading = True
            self._resume_from_committed()
        except KafkaException as error:
            self._recovery_failed(error, consumer=reading)
            return False
        self._resync = False
        self._recovery_failures = 0
        return True

    def _recovery_failed(self, error: KafkaException, *, consumer: bool) -> None:
        """While Kafka is away a recovery step fails, and is tried again (the outage was said
        when it began). Once Kafka answers, a step that still fails is said once; a consumer
        that cannot read its committed offsets ``RECOVERY_TRIES`` times is replaced, as one
        that asks a group coordinator that is gone would wait for it for ever. (A producer
        that cannot initialise is replaced on every try: ``_renew_producer``.)"""
        self._stop.wait(1.0)
        if not self._kafka_answers():
            log.debug("recovering while Kafka is away: %s", _said(error))
            return
        self._recovery_failures += 1
        if self._recovery_failures == 1:
            step = "reading the committed offsets" if consumer else "a new producer"
            log.warning("Kafka answers but %s failed (%s): trying again", step, _said(error))
        if consumer and self._recovery_failures >= RECOVERY_TRIES:
            log.warning("the consumer could not read its committed offsets %d times (%s): a new "
                        "consumer takes over", self._recovery_failures, _said(error))  # fmt: skip
            self._recovery_failures = 0
            _close_in_background(self.consumer)
            self._new_consumer()

    def _kafka_answers(self) -> bool:
        try:
            self.consumer.list_topics(self.topics[0], timeout=2)
        except KafkaException:
            return False
        return True

    def _resume_from_committed(self) -> None:
        """After a failed transaction, once it is settled one way or the other (a commit that
        failed or was given up may have reached the coordinator and completed): each
        partition resumes from its committed offset, Kafka's word, not from the rewind (which
        would hand a committed batch out again)."""
        assigned = self.consumer.assignment()
        if not assigned:
            return
        for tp in self.consumer.committed(assigned, timeout=TX_TIMEOUT):
            at = tp.offset if tp.offset >= 0 else clients.OFFSET_BEGINNING
            try:
                self.consumer.seek(TopicPartition(tp.topic, tp.partition, at))
            except KafkaException as error:
                log.warning("seek to the committed offset failed for %s[%d]: %s",
                            tp.topic, tp.partition, error)  # fmt: skip

    def _heard_from_kafka(self) -> None:
        """Kafka answered (a commit, or metadata while idle): say so once if it was away."""
        since, self._away_since = self._away_since, None
        gone = clients.kafka_is_back()
        if since is None and (gone is None or gone < 5.0):
            return  # a connection refused for a moment (a broker starting) is no outage
        now = time.monotonic()
        seconds = max(now - since if since is not None else 0.0, gone or 0.0)
        self._back_at = now
        self._fenced_renewals = self._consumer_renewals = 0
        log.warning("Kafka is back after %.0fs: serving again", seconds)
        # The producer's idea of the group coordinator is from before the outage, and its
        # next send_offsets_to_transaction would wait for that one for ever (given up only
        # after TX_GIVE_UP): a new producer asks afresh, before the next batch.
        self._renew = self._renew or (self.transactional and seconds >= 5.0)

    def _check_kafka_while_idle(self) -> None:
        """While idle and Kafka was said to be away, ask it every few seconds."""
        if clients.kafka_away_since() is None and self._away_since is None:
            return
        now = time.monotonic()
        if now - self._asked_at < IDLE_CHECK:
            return
        self._asked_at = now
        try:
            self.consumer.list_topics(self.topics[0], timeout=2)
        except KafkaException:
            return
        self._heard_from_kafka()

    # --- careful mode ------------------------------------------------------------------
    def _produce_carefully(self, batch: list[Any]) -> int:
        """Each input of ``batch`` handled alone, its records watched; an input known to be
        refused is replaced by what the handler gives, or skipped."""
        produce = self.producer.produce
        handle = self.handler.handle
        written = 0
        for message in batch:
            position = (message.topic(), message.partition(), message.offset())
            refusal = self._refused.get(position)
            if refusal is None:
                outputs = list(handle([message]))
            else:
                outputs = self._instead(message, position, refusal)
            report = self._reporter(position)
            for topic, value, key, headers, partition in outputs:
                while True:
                    try:
                        produce(topic, value, key, partition, headers=headers, on_delivery=report)
                        written += 1
                        break
                    except BufferError:
                        self.producer.poll(0.05)
                    except KafkaException as error:  # refused at once (too large for the client)
                        failure = error.args[0] if error.args else None
                        if not isinstance(failure, KafkaError) or failure.code() not in INCURABLE:
                            raise
                        if refusal is not None:  # its replacement: nothing else of it was written
                            self._skip(message, failure)
                            break
                        self._learned.setdefault(position, failure)
                        raise
        return written

    def _reporter(self, position: Position) -> Callable[[Any, Any], None]:
        learned = self._learned

        def report(error: Any, _message: Any) -> None:  # called for failed records only
            if error is not None and error.code() in INCURABLE:
                learned.setdefault(position, error)

        return report

    def _instead(self, message: Any, position: Position, refusal: KafkaError) -> list[OutRecord]:
        if position in self._skipped:
            self._skip(message, refusal)
            return []
        hook = getattr(self.handler, "refused", None)
        replacement = hook(message, refusal) if hook is not None else None
        if replacement is None:
            self._skip(message, refusal)
            return []
        log.warning(
            "%s [%d] offset %d: Kafka refused a record it made (%s); it is dead-lettered",
            *position,
            refusal.name(),
        )
        return [replacement]

    @staticmethod
    def _skip(message: Any, refusal: KafkaError) -> None:
        log.error(
            "%s [%d] offset %d skipped: Kafka refused a record it made (%s: %s) and its "
            "dead letter",
            message.topic(),
            message.partition(),
            message.offset(),
            refusal.name(),
            refusal.str(),
        )

    def _learn(self, consumed: list[Any], careful: bool) -> bool:
        """After a failed transaction, before its abort: whether a careful try learned of a
        refusal (then the batch is tried again at once, writing around it). A failed fast
        transaction turns careful mode on until the consumer passes what it read."""
        self.producer.poll(0)  # the failed records' delivery reports
        learned, self._learned = self._learned, {}
        if not careful:
            for message in consumed:
                key = (message.topic(), message.partition())
                self._careful[key] = max(self._careful.get(key, -1), message.offset())
            self._careful_commits = 0
            return False
        new = False
        for position, error in learned.items():
            if position not in self._refused:
                self._refused[position] = error
                new = True
            elif position not in self._skipped:  # its replacement was refused too
                self._skipped.add(position)
                new = True
        return new

    def _passed(self, offsets: list[TopicPartition]) -> None:
        """After a careful commit: careful mode ends once past what the failed one read."""
        careful = self._careful
        for tp in offsets:
            key = (tp.topic, tp.partition)
            if careful.get(key, tp.offset) < tp.offset:
                del careful[key]
        self._careful_commits += 1
        if not careful or self._careful_commits >= MAX_CAREFUL_COMMITS:
            careful.clear()
            self._refused.clear()
            self._skipped.clear()

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
                if self._away_since is None and not clients.is_away(_first(error)):
                    log.warning("abort_transaction failed (%s): a new producer takes over",
                                _said(error))  # fmt: skip
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
            try:
                self.consumer.seek(TopicPartition(topic, partition, offset))
            except KafkaException as error:
                log.warning("seek after abort failed for %s[%d]: %s", topic, partition, error)


class _Caller:
    """One daemon thread that runs calls handed to it: a call stuck for ever in librdkafka
    keeps neither the loop nor the process's exit waiting (a ThreadPoolExecutor's threads are
    joined at exit)."""

    def __init__(self) -> None:
        self._jobs: SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None]
        self._jobs = SimpleQueue()
        threading.Thread(target=self._serve, name="mqk-tx-call", daemon=True).start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, call, args = job
            try:
                future.set_result(call(*args))
            except BaseException as error:  # handed to the caller
                future.set_exception(error)

    def submit(self, call: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((future, call, args))
        return future

    def stop(self) -> None:
        self._jobs.put(None)


def _close_in_background(consumer: Any) -> None:
    """A replaced consumer's close, which can wait for a coordinator that is gone, on a
    daemon thread: given ``CLOSE_WAIT``, then left to itself (the process's exit does not
    wait for it). Closed, it cannot rejoin the group under the instance id of its successor
    (a static member that rejoins fences the member that holds the id)."""
    closing = threading.Thread(target=consumer.close, name="mqk-close", daemon=True)
    closing.start()
    closing.join(CLOSE_WAIT)


def _first(error: BaseException) -> Any:
    return error.args[0] if error.args else None


def _timed_out(failure: Any) -> bool:
    return isinstance(failure, KafkaError) and "TIMED_OUT" in failure.name()


def _said(error: KafkaException) -> str:
    failure = _first(error)
    return failure.str() if isinstance(failure, KafkaError) else str(error)


def _has_hooks(handler: object) -> bool:
    return all(hasattr(handler, name) for name in ("before_batch", "committed", "aborted"))
