"""The composition root of ``mqk serve``: configuration, stores, engine, Kafka — wired once.

Start-up: open the worker's RocksDB state (kept from a clean stop or a kill, rebuilt from
the state topics otherwise), catch up with the state topics, then run the transactional loop
over the control queue and the stream queues until SIGTERM/SIGINT, and stop cleanly: the last
batch is committed, the state and its offsets are flushed and marked clean.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from mqkafka.activity.builder import ActivityRecorder
from mqkafka.engine.authority import ALLOW_ALL, AuthorityPort
from mqkafka.engine.context import EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.identity.guard import IdentityGuard
from mqkafka.identity.keys import IdentityError, load_keys
from mqkafka.kafka import clients
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.kafka.txloop import SESSION_TIMEOUT_MS, TransactionalLoop
from mqkafka.mqi.kafkaqm.cataloguereader import CatalogueTail
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.aclfile import load_acl_policy
from mqkafka.service.config import ACTIVITY_TOPIC, ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.limits import PRODUCER_MAX_MESSAGE_BYTES, TopicLimits
from mqkafka.service.membership import InstanceInUse, check_instance_free, client_id_of
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.service.replica import EngineStateReplica
from mqkafka.service.tempqueues import TemporaryQueueWatch
from mqkafka.service.tuning import tune_collector, tune_malloc
from mqkafka.state.rocks import RocksState
from mqkafka.wire.names import queue_to_topic

if TYPE_CHECKING:
    from mqkafka.mqi import QueueManager

log = logging.getLogger(__name__)


class ServiceError(RuntimeError):
    """The service cannot start as configured (said to the user in one line)."""


class BrokerService:
    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        started = time.monotonic()
        self.metrics = Metrics()
        if config.metrics_port is not None:  # first: a port in use fails the start, not later
            try:
                self.metrics.serve(config.metrics_port, config.metrics_host)
            except OSError as error:
                raise ServiceError(
                    f"metrics port {config.metrics_port}: {error.strerror}"
                ) from None
        self.admin = clients.admin(config.client)
        log.info("Kafka: %s", config.client.describe())
        for action in apply_catalogue(
            self.admin, prefix=config.namespace, create=config.create_topics
        ):
            log.info("system topics: %s", action)
        group = config.namespace + config.group_id
        member = f"{config.namespace}mqk-serve-{config.instance_id}"
        try:  # before the state is opened: a worker in use keeps it
            check_instance_free(
                config.client, group, member, config.instance_id, SESSION_TIMEOUT_MS / 1000
            )
        except InstanceInUse as error:
            raise ServiceError(str(error)) from None
        self.rocks = None if config.in_memory_state else self._open_rocks()
        offsets = self.rocks.offsets() if self.rocks is not None else {}
        filters = SelectorFilterPort()
        if self.rocks is not None:
            self.state = EngineState(**self.rocks.stores, filters=filters)
        else:
            self.state = EngineState(filters=filters)
        self.queues = QueueDirectory(
            self.admin,
            namespace=config.namespace,
            auto_create=config.auto_create_queues,
            partitions=config.queue_partitions,
        )
        self.ctx = EngineContext(
            config=EngineConfig(
                qmgr_name=config.qmgr_name,
                control_queue=config.control_queue,
                streams=frozenset(config.streams),
            ),
            filters=filters,
            authority=_authority(config),
            queues=self.queues,
        )
        self.qmgr, temporary_at_start, self.deleted_at_start = _start_queue_manager(config)
        self.catalogue = CatalogueTail(config.client, config.namespace)
        temporary_queues = TemporaryQueueWatch(self.catalogue, gone_at_start=temporary_at_start)
        self.replica = EngineStateReplica(config, self.state, self.admin, offsets)
        rebuilt = self.replica.catch_up(timeout=600)
        if self.rocks is not None:
            self.rocks.begin()  # the first transaction's batch
        self.dispatcher = Dispatcher(
            state=self.state,
            ctx=self.ctx,
            replica=self.replica,
            outputs=Outputs(
                config, self.queues, _topic_limits(config, self.admin), formats=self.catalogue
            ),
            metrics=self.metrics,
            namespace=config.namespace,
            on_commit=self._after_commit,
            on_abort=self._settle_state,
            activity=ActivityRecorder(
                config.topic(ACTIVITY_TOPIC), config.qmgr_name, config.instance_id
            )
            if config.activity
            else None,
            temporary_queues=temporary_queues,
            identity=_identity_guard(config, self.ctx.authority),
        )
        topics = [
            queue_to_topic(q, config.namespace) for q in (config.control_queue, *config.streams)
        ]
        for queue in (config.control_queue, *config.streams, config.dead_letter_queue):
            self.queues.ensure(queue)
        self.loop = TransactionalLoop(
            client=config.client,
            group_id=group,
            topics=topics,
            handler=self.dispatcher,
            transactional_id=member,
            instance_id=member,
            client_id=client_id_of(config.instance_id),
            on_joined=self._joined,
            lane_per_topic=True,  # each stream balanced over the workers on its own
        )
        self._last_flush = 0.0
        self._set_state_gauges()
        self._started, self._rebuilt = started, rebuilt
        self.ready_seconds = time.monotonic() - started  # until the group takes it: _joined

    def _joined(self) -> None:
        """Ready: state caught up, and a member of the group, so commands are answered."""
        self.ready_seconds = time.monotonic() - self._started
        self.metrics.ready.set(1)
        log.info(
            "broker ready in %.2fs: %d subscriptions, %d retained, %d state records applied",
            self.ready_seconds,
            len(self.state.subscriptions),
            len(self.state.retained),
            self._rebuilt,
        )

    def _open_rocks(self) -> RocksState:
        state_dir = Path(self.config.state_dir) / self.config.instance_id
        new = not state_dir.exists() or not any(state_dir.iterdir())
        state_dir.mkdir(parents=True, exist_ok=True)
        try:
            rocks = RocksState(state_dir)
        except Exception as error:  # rocksdict raises a bare Exception for a held lock
            if "LOCK" not in str(error):
                raise
            raise ServiceError(
                f"state directory {state_dir} is in use by another mqk serve "
                "(give each worker its own --instance-id or --state-dir)"
            ) from None
        if new:
            log.info("new state in %s: building it from Kafka", state_dir)
        elif not rocks.was_clean() and rocks.settled():
            # Killed last time, but the store holds a transaction's end (``settle``): read on.
            log.info("state in %s was not closed cleanly: reading on from its offsets", state_dir)
        elif not rocks.was_clean():
            # Written by a version that changed it mid-transaction: Kafka has the truth.
            log.info("state in %s was not closed cleanly: rebuilding from Kafka", state_dir)
            rocks.wipe()
        return rocks

    def _settle_state(self) -> None:
        """A transaction ended (committed, or aborted and undone): RocksDB gets its state."""
        if self.rocks is not None:
            self.rocks.settle(dict(self.replica.positions))
            self.rocks.begin()

    def _after_commit(self) -> None:
        self.metrics.transactions.inc()
        self._settle_state()
        now = time.monotonic()
        if now - self._last_flush < 1.0:
            return
        self._last_flush = now
        self._set_state_gauges()
        self._record_lag()

    def _set_state_gauges(self) -> None:
        self.metrics.observe_state(self.state)

    def _record_lag(self) -> None:
        consumer = self.loop.consumer
        assigned = consumer.assignment()
        if not assigned:
            return
        for position in consumer.position(assigned):
            _, high = consumer.get_watermark_offsets(
                clients.TopicPartition(position.topic, position.partition), cached=True
            ) or (0, 0)
            if position.offset >= 0:
                self.metrics.consumer_lag.labels(position.topic, str(position.partition)).set(
                    max(0, high - position.offset)
                )

    def stop(self) -> None:
        self.metrics.ready.set(0)
        self.loop.stop()

    def close(self) -> None:
        """What a stop leaves: the state replica closed, RocksDB settled at the last
        committed transaction (or discarded inside one), the catalogue and the MQI closed."""
        self.replica.close()
        if self.rocks is not None:
            if len(self.dispatcher.journal):  # stopped inside a transaction: not true
                self.rocks.discard()
            else:
                self.rocks.settle(dict(self.replica.positions))
            self.rocks.flush()
            self.rocks.mark_clean()
            self.rocks.close()
        self.catalogue.close()
        self.qmgr.disconnect()

    def run(self) -> None:
        tune_malloc()
        tune_collector()
        try:
            self.loop.run()
        finally:
            self.close()
        log.info("broker stopped cleanly")  # not when the loop stopped on an error


def _start_queue_manager(config: ServiceConfig) -> tuple[QueueManager, list[str], list[str]]:
    """Seed 004: temporary dynamic queues "are deleted when the queue manager is started".

    The connection stays: its keeper reaps connections that stopped beating, so a killed
    creator's temporary dynamic queues go even when no other MQI client is connected -
    within ``reaper.reap_bound`` of its last heartbeat (seed 004).
    Also returns the temporary dynamic queues there were, and the queues deleted."""
    from mqkafka.mqi import QueueManager
    from mqkafka.mqi.kafkaqm.reaper import start_queue_manager
    from mqkafka.mqi.kafkaqm.streamqueues import unlimit_streams

    qmgr = QueueManager(
        config.qmgr_name,
        bootstrap_servers=config.bootstrap,
        namespace=config.namespace,
        reap=True,
        kafka_config=dict(config.kafka_settings),
        create_topics=config.create_topics,
    )
    try:
        connection = qmgr.connection
        connection.replica.sync()
        temporary = connection.replica.catalogue.temporary_dynamic_names()
        deleted = start_queue_manager(connection.replica, connection.effects)
        unlimit_streams(qmgr, config.streams)  # read by this service, not a share group
    except BaseException:
        qmgr.disconnect()
        raise
    if deleted:
        log.info("queue manager start: deleted %d temporary dynamic queue(s)", len(deleted))
    return qmgr, temporary, deleted


def _topic_limits(config: ServiceConfig, admin: Any) -> TopicLimits:
    """What each topic takes; the producer's own limit is whatever the Kafka settings say."""
    setting = config.kafka_settings.get("message.max.bytes")
    return TopicLimits(admin, producer_max=int(setting or PRODUCER_MAX_MESSAGE_BYTES))


def _identity_guard(config: ServiceConfig, authority: AuthorityPort) -> IdentityGuard | None:
    if config.identity == "off":
        return None
    if config.identity_keys is None:
        raise ServiceError("--identity hmac needs --identity-keys FILE")
    try:
        keys = load_keys(config.identity_keys)
    except IdentityError as error:
        raise ServiceError(str(error)) from None
    return IdentityGuard(keys, authority, config.identity_window)


def _authority(config: ServiceConfig) -> AuthorityPort:
    if config.acl_file is None:
        return ALLOW_ALL
    return load_acl_policy(config.acl_file)


def serve_until_signalled(config: ServiceConfig) -> None:
    service = BrokerService(config)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping", signum)
        service.stop()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    service.run()
