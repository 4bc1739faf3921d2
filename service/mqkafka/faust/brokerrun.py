"""``mqk serve --runtime faust``: the broker service run by Faust. The composition is the
default runtime's (``BrokerService``: the pure engine behind the same ``Dispatcher``, RocksDB
state, the state replica, outputs, metrics); only the loop differs: one Faust agent over the
control queue and the streams, exactly once with the correction of ``exactlyonce.py``.

- Each record is one ``Dispatcher.handle`` call; every record it returns (deliveries, replies,
  dead letters, state records, activity events) is sent in the transaction of the input
  record's partition, and Faust's commit (at a record boundary, after every send settled)
  commits them with the input offsets. A rebalance aborts what was not committed and the
  dispatcher undoes its state effects; the records are read again (``rebalance.py``).
- Kafka away under a record (an error that says so, ``outage.is_away``, from the
  dispatcher's own Kafka calls or a send; a leader being chosen; a timeout) is waited out
  as the default loop waits it out: the open transactions are aborted, the dispatcher's
  state effects undone, and, tried again with a growing pause until Kafka answers, every
  record since the last commit is handled again (``_wait_out``); the outage said in one line
  per 30 s and its end by the next commit (``outage.py``). A record whose processing fails
  otherwise (a bug, a fenced producer, Kafka away past ``AWAY_GIVE_UP``) stops the worker
  with nothing more committed.
- The state is the default runtime's own RocksDB (``state/rocks.py``), kept in step with the
  state topics as there: written once per committed transaction with the state topics'
  offsets, so a SIGKILL leaves a transaction's end and the restart reads on. Not Faust Tables:
  a Table's changelog has Faust's name, keys and values where the wire contract fixes the state
  topics' names, keys and Avro schemas, and a Table is partitioned with its input while every
  worker holds all the state (a ``GlobalTable`` over the state topics needed a private
  override and applied ~6,700 records/s: the README).
- Static members with the default loop's instance ids and client ids; Faust's own assignor
  balances each group of topics with the same partition count over the workers (the control
  queue and a stream are two groups) and keeps what each held; Kafka's outages said as the
  default loop says them and a fenced producer ending the worker with exit code 3
  (``outage.py``).
- A send that failed (Kafka refused a record, or its queue's topic was deleted under the
  worker) never commits: at the commit the open transactions are aborted and begun again,
  the dispatcher undoes its state effects, forgets which queues exist and asks the limits
  again, and every record since the last commit is handled again (``redo``; the records are
  kept, so nothing is read again). As the default loop's careful mode (``txcareful``): a
  message whose record Kafka refuses again is replaced by its dead letter, and skipped with
  an error line when that is refused too.
- What the default loop does that this one does not: batches (one record per call, so no
  per-batch plans of repeated publications across records beyond the dispatcher's own).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import faust

from mqkafka.faust.exactlyonce import record_boundary
from mqkafka.faust.outage import (
    AWAY_GIVE_UP,
    OutageLines,
    backoff,
    fenced_line,
    install,
    is_away,
    is_fenced,
    is_incurable,
    kafka_error,
)
from mqkafka.faust.rebalance import start_transactions
from mqkafka.faust.settings import make_app
from mqkafka.kafka.clients import KafkaError, KafkaException
from mqkafka.kafka.txloop import SESSION_TIMEOUT_MS
from mqkafka.service.app import BrokerService, ServiceError
from mqkafka.service.config import ServiceConfig
from mqkafka.service.limits import PRODUCER_MAX_MESSAGE_BYTES
from mqkafka.service.membership import client_id_of
from mqkafka.wire.names import queue_to_topic

log = logging.getLogger(__name__)

_CREATE_TIME = 1  # confluent-kafka's TIMESTAMP_CREATE_TIME
Position = tuple[str, int, int]  # an input record's topic, partition and offset
FENCED_STOP = 30.0  # seconds a fenced worker's stop may take


class FaustRecord:
    """A Faust consumer message read as the dispatcher reads a confluent-kafka Message."""

    __slots__ = ("_message",)

    def __init__(self, message: Any) -> None:
        self._message = message

    def topic(self) -> str:
        return str(self._message.topic)

    def partition(self) -> int:
        return int(self._message.partition)

    def offset(self) -> int:
        return int(self._message.offset)

    def key(self) -> bytes | None:
        key: bytes | None = self._message.key
        return key

    def value(self) -> bytes | None:
        value: bytes | None = self._message.value
        return value

    def headers(self) -> list[tuple[str, bytes]] | None:
        headers = self._message.headers
        if not headers:
            return None
        if isinstance(headers, Mapping):
            return list(headers.items())
        return list(headers)

    def timestamp(self) -> tuple[int, int]:
        return _CREATE_TIME, int(self._message.timestamp * 1000)

    def __len__(self) -> int:
        return len(self._message.value or b"")

    @property
    def message(self) -> Any:
        return self._message

    @property
    def position(self) -> Position:
        message = self._message
        return str(message.topic), int(message.partition), int(message.offset)


class FaustBrokerService(BrokerService):
    """``BrokerService`` whose loop is a Faust agent (the module's docstring says how)."""

    def __init__(self, config: ServiceConfig) -> None:
        super().__init__(config)
        self.loop.consumer.close()  # the default loop's clients, made and never used here
        self._fresh = True  # a transaction begins: the dispatcher's before_batch is due
        self._ready = False
        topics = [
            queue_to_topic(q, config.namespace) for q in (config.control_queue, *config.streams)
        ]
        # The same consumer group as the default loop: mqk's "is a broker running?" asks it
        # (so the two runtimes cannot serve one namespace at once: their group protocols differ).
        largest = int(config.kafka_settings.get("message.max.bytes") or PRODUCER_MAX_MESSAGE_BYTES)
        self.app = make_app(
            config.group_id,
            config.client,
            namespace=config.namespace,
            processing_guarantee="exactly_once",
            datadir=str(Path(config.state_dir) / f"{config.instance_id}.faust"),
            broker_commit_interval=0.1,
            broker_session_timeout=SESSION_TIMEOUT_MS / 1000,
            broker_heartbeat_interval=1.0,
            # The default loop's static member and client id: a worker killed and restarted
            # takes its partitions back at once, and a second one with its id in use is
            # refused before it joins (service/membership.py reads these two).
            consumer_group_instance_id=f"{config.namespace}mqk-serve-{config.instance_id}",
            broker_client_id=client_id_of(config.instance_id),
            topic_disable_leader=True,  # no leader election: no topic of Faust's own to hold
            producer_max_request_size=largest,  # what the limits let through, aiokafka takes
            consumer_max_fetch_size=max(largest, 4 << 20),
            # partitions added to a topic (mqk topics apply) are taken by the group within
            # this, as the default loop's are, not aiokafka's 5 minutes
            consumer_metadata_max_age_ms=5000,
        )
        log.info("runtime: faust, app %s", self.app.conf.id)
        self.app.on_transaction_committed = self._committed
        self.app.on_fenced = self._fenced
        self.app.on_transaction_aborted = self._aborted
        self.app.redo = self._redo
        self._since_commit: list[FaustRecord] = []  # handled since the last commit, in order
        # per input whose record Kafka refused: how many tries it refused, and its last error
        self._refusals: dict[Position, tuple[int, BaseException]] = {}
        self._stop_line: str | None = None
        crash = self.app.crash

        async def crash_unless_fenced(reason: BaseException) -> None:
            if is_fenced(reason):  # Faust's own commit met it: said and ended as ours are
                self._fenced(reason)
                return
            await crash(reason)

        self.app.crash = crash_unless_fenced
        self.outage = OutageLines()
        install(self.outage)
        # A commit every 0.1 s that waits for a record, or outlasts its interval on a busy
        # machine, is routine here: Faust's timer and the correction said each in a line.
        record_boundary(self.app).waits_level = logging.DEBUG
        logging.getLogger("mode.timers").setLevel(logging.ERROR)
        self.app.on_rebalance_complete.connect(self._on_rebalanced)
        channel = self.app.topic(*topics, key_serializer="raw", value_serializer="raw")
        self.app.agent(channel, name="mqk-serve")(self._serve)

    async def _serve(self, stream: Any) -> None:
        async for _ in stream:
            event = stream.current_event or faust.current_event()
            try:
                await self._one(event)
            except Exception as error:
                if is_away(error):
                    try:
                        await self._wait_out(error)
                        continue
                    except Exception as again:
                        error = again
                self._failed(event, error)  # a bug or a fenced producer: never half a record

    async def _one(self, event: Any) -> None:
        record = FaustRecord(event.message)
        self._since_commit.append(record)  # first: handled again if Kafka is found away
        if self._fresh:
            self.dispatcher.before_batch()
            self._fresh = False
        await self._send(record, self.dispatcher.handle([record]))

    async def _send(self, record: FaustRecord, outputs: list[Any]) -> None:
        send = self.app.consumer.transactions.send_for
        for topic, value, key, headers, partition in outputs:
            await send(
                record.message,
                topic,
                key,
                value,
                partition if partition >= 0 else None,
                list(headers) if headers else None,
            )

    async def _redo(self, failed: list[tuple[Any, BaseException]]) -> None:
        """A send failed: the consumer aborted the open transactions and began them again.
        The state effects are undone (the queues and limits asked again) and each record
        since the last commit handled again (Kafka found away meanwhile: waited out); one
        whose record Kafka refused in two tries is replaced by its dead letter, and skipped
        when that is refused too (``txcareful``)."""
        for position, error in failed:
            where = position[0] if position is not None else None
            if where is not None and is_incurable(error):
                tries = self._refusals.get(where, (0, error))[0]
                self._refusals[where] = (tries + 1, error)
        self.dispatcher.aborted()
        try:
            await self._handle_again()
        except Exception as error:
            if not is_away(error):
                raise
            await self._wait_out(error)

    async def _handle_again(self) -> None:
        """Each record since the last commit handled again, in the transactions begun again."""
        self.dispatcher.before_batch()
        self._fresh = False
        for record in self._since_commit:
            refused = self._refusals.get(record.position)
            if refused is None or refused[0] < 2:
                outputs = self.dispatcher.handle([record])
            else:
                outputs = self._instead(record, *refused)
            await self._send(record, outputs)

    async def _wait_out(self, error: BaseException) -> None:
        """Kafka is away (``error`` says so) under records handled since the last commit: as
        the default loop (``txrecovery``), the outage is said (once per 30 s) and the state
        effects undone; after a growing pause the open transactions are aborted and begun
        again (the starts wait for Kafka) and every record since the last commit is handled
        again. No commit comes meanwhile (a record is in flight, or the commit waits for
        this). Raises what is not Kafka away, and Kafka away past ``AWAY_GIVE_UP`` s."""
        started, tries, producer = time.monotonic(), 0, self.app.producer
        # the transactional ids, kept: one whose start failed while Kafka was away is gone
        # from Faust's, and a record without outputs would commit in no transaction
        opened = set(producer._transaction_producers)
        while True:
            self.outage.met(error)
            self._fresh = True
            self.dispatcher.aborted(expected=True)  # the outage's line says it
            tries += 1
            await asyncio.sleep(backoff(tries))
            opened |= set(producer._transaction_producers)
            try:
                await producer.abort_open()
                await start_transactions(producer, opened, self.app)
                await self._handle_again()
                return
            except Exception as again:
                if not is_away(again) or time.monotonic() - started >= AWAY_GIVE_UP:
                    raise
                error = again

    def _instead(self, record: FaustRecord, tries: int, error: BaseException) -> list[Any]:
        """What is written for a message whose record Kafka refused again: its dead letter
        (the default loop's line), or nothing (said) when Kafka refused that too."""
        refusal = kafka_error(error)
        dead = self.dispatcher.refused(record, refusal) if tries == 2 else None
        if dead is not None:
            log.warning(
                "%s [%d] offset %d: Kafka refused a record it made (%s); it is dead-lettered",
                *record.position,
                refusal.name(),
            )
            return [dead]
        log.error(
            "%s [%d] offset %d skipped: Kafka refused a record it made (%s: %s) and its "
            "dead letter",
            *record.position,
            refusal.name(),
            refusal.str(),
        )
        return []

    def _failed(self, event: Any, error: BaseException) -> None:
        """A record whose outputs may be half sent: Faust would acknowledge it and commit its
        offset with them. Nothing more is committed; the worker stops (exit code 3) and its
        successor reads on from the last commit."""
        message = event.message
        where = f"{message.topic} [{message.partition}] offset {message.offset}"
        record_boundary(self.app).fail(event, where)
        if is_fenced(error):
            self._fenced(error)
            return
        log.error("%s: processing failed (%r)", where, error, exc_info=error)
        self._stop_for(
            f"processing {where} failed ({type(error).__name__}): nothing after the last "
            "commit is kept, a restarted worker reads on from there"
        )

    def _committed(self) -> None:
        self._fresh = True
        self._since_commit.clear()
        self._refusals.clear()
        self.outage.heard_from_kafka(log)
        self.dispatcher.committed()

    def _aborted(self, opened: int) -> None:
        """A rebalance aborted the open transactions: their state effects are undone (the
        records are read again from the committed offsets)."""
        self._since_commit.clear()
        self._refusals.clear()
        if not self._fresh:
            self._fresh = True
            self.dispatcher.aborted(expected=True)

    def _fenced(self, error: BaseException) -> None:
        """Another producer took a transactional id of this worker's: it stops as on SIGTERM
        (its open transactions never commit) and ``run`` ends it with exit code 3."""
        self._stop_for(fenced_line(error))

    def _stop_for(self, line: str) -> None:
        """Stops as on SIGTERM, ended with ``line`` and exit code 3 by ``run``; a stop that
        does not end in ``FENCED_STOP`` seconds is ended there."""
        if self._stop_line is not None:
            return
        self._stop_line = line
        os.kill(os.getpid(), signal.SIGTERM)
        timer = threading.Timer(FENCED_STOP, self._stop_now)
        timer.daemon = True
        timer.start()

    def _stop_now(self) -> None:
        log.critical("the broker service stopped: %s", self._stop_line)
        os._exit(3)

    async def _on_rebalanced(self, sender: Any = None, **kwargs: Any) -> None:
        if not self._ready:
            self._ready = True
            self._joined()

    def _record_lag(self) -> None:
        """Faust's consumer keeps its own positions; no lag gauge from this runtime."""

    def stop(self) -> None:
        self.metrics.ready.set(0)

    def run(self) -> None:
        worker = faust.Worker(
            self.app,
            loglevel=logging.getLevelName(logging.getLogger().getEffectiveLevel()),
            override_logging=False,
            redirect_stdouts=False,
            quiet=True,
        )
        code: object = 1
        try:
            worker.execute_from_commandline()  # ends in SystemExit, a clean stop's too
        except SystemExit as stopped:
            code = stopped.code
        finally:
            self.close()
        if self._stop_line is not None:  # the CLI's one line and exit code 3
            raise KafkaException(KafkaError(KafkaError._FATAL, self._stop_line, fatal=True))
        if code not in (0, None):
            raise SystemExit(code)
        log.info("broker stopped cleanly")


def serve_until_stopped(config: ServiceConfig) -> None:
    """Runs until SIGTERM/SIGINT (Faust's worker handles them)."""
    FaustBrokerService(config).run()


__all__ = ["FaustBrokerService", "FaustRecord", "ServiceError", "serve_until_stopped"]
