"""How one MQI connection reaches Kafka and behaves there: a value built once, validated.

``Settings`` is what :func:`mqkafka.mqi.qmgr.connect` takes; nothing reads globals. The
Kafka names every client must agree on (topics, share groups) are functions here, so the
wire contract has one place in this package:

| object | Kafka name |
|---|---|
| queue ``Q`` | topic ``<namespace>Q`` with ``/`` and ``%`` escaped (wire contract §1) |
| destructive getters of ``Q`` | share group ``<namespace>mqk-get.<topic of Q>`` |
| queue catalogue | compacted topic ``<namespace>mqk-queues`` |
| connection heartbeats | compacted topic ``<namespace>mqk-connections`` (LogAppendTime) |
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from mqkafka.kafka.clientconfig import ClientConfig, ClientConfigError, load_client_config
from mqkafka.kafka.groups import SHARE_GROUP_PREFIX
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import CATALOGUE_TOPIC, check_object_name
from mqkafka.wire.names import queue_to_topic, validate_namespace

CONNECTIONS_TOPIC = "mqk-connections"
DEFAULT_QMGR = "QM1"  # the broker service's default queue manager name (service/config.py)

# Broker bounds of group.share.record.lock.duration.ms in Kafka 4.2 (15 s .. 60 s by default).
MIN_LOCK_MS, MAX_LOCK_MS = 1_000, 3_600_000


def _default_user() -> str:
    try:
        return getpass.getuser()[: C.MQ_USER_ID_LENGTH]
    except (KeyError, OSError):  # no passwd entry (containers)
        return str(os.getuid())[: C.MQ_USER_ID_LENGTH]


def _default_appl_name() -> str:
    name = os.path.basename(sys.argv[0] or "python") or "python"
    return name[-C.MQ_PUT_APPL_NAME_LENGTH :]


@dataclass(frozen=True)
class Settings:
    """One connection's configuration (times in seconds unless named ``_ms``).

    ``heartbeat_interval``/``liveness_timeout``: a connection unheard for the timeout has
    crashed; its temporary dynamic queues go (seed 004). ``lock_duration_ms`` is set on the
    share group of each queue the MQI defines: how long a getter may hold a message before
    Kafka gives it to someone else. ``read_ahead`` bounds the records one poll hands back.
    ``join_timeout`` bounds the wait for a new getter's share-group assignment,
    ``admin_timeout`` every Kafka administration request (a broker that does not answer
    within it is MQRC_CONNECTION_BROKEN, or MQRC_Q_MGR_NOT_AVAILABLE when connecting).
    """

    bootstrap_servers: str
    qmgr_name: str = DEFAULT_QMGR
    namespace: str = ""
    user: str = field(default_factory=_default_user)
    appl_name: str = field(default_factory=_default_appl_name)
    heartbeat_interval: float = 2.0
    liveness_timeout: float = 10.0
    lock_duration_ms: int = 30_000
    read_ahead: int = 500
    join_timeout: float = 20.0
    admin_timeout: float = 30.0
    no_wait_grace: float = 0.5
    queue_partitions: int = 1
    reap: bool = True
    producer_config: Mapping[str, str] = field(default_factory=dict)
    # Kafka client settings (security.protocol, sasl.*, ssl.*), over $MQK_KAFKA_CONFIG's file
    # and the $MQK_KAFKA_<SETTING> variables
    kafka_config: Mapping[str, str] = field(default_factory=dict, repr=False)  # has secrets
    create_topics: bool = True  # create the MQI's system topics when missing
    # share the admin client and the state replica with the process's other connections of
    # the same Kafka settings (``sharedclients``): what a listener's many connections do
    share_clients: bool = False

    def __post_init__(self) -> None:
        if not self.bootstrap_servers:
            raise MQError(RC.Q_MGR_NOT_AVAILABLE, "no Kafka bootstrap servers given")
        check_object_name(self.qmgr_name, RC.Q_MGR_NAME_ERROR)
        validate_namespace(self.namespace)
        if len(self.user.encode()) > C.MQ_USER_ID_LENGTH:
            raise MQError(RC.UNKNOWN_ENTITY, f"user id longer than 12 bytes: {self.user!r}")
        if self.heartbeat_interval <= 0 or self.liveness_timeout <= self.heartbeat_interval:
            raise MQError(RC.UNEXPECTED_ERROR, "need 0 < heartbeat_interval < liveness_timeout")
        if not MIN_LOCK_MS <= self.lock_duration_ms <= MAX_LOCK_MS:
            raise MQError(RC.UNEXPECTED_ERROR, f"lock_duration_ms {self.lock_duration_ms}")
        if self.read_ahead < 1 or self.queue_partitions < 1:
            raise MQError(RC.UNEXPECTED_ERROR, "read_ahead and queue_partitions must be >= 1")
        if self.join_timeout <= 0 or self.no_wait_grace < 0 or self.admin_timeout <= 0:
            raise MQError(RC.UNEXPECTED_ERROR, "join_timeout > 0 and no_wait_grace >= 0")

    @cached_property
    def client(self) -> ClientConfig:
        """What every Kafka client of this connection is made from."""
        try:
            return load_client_config(self.bootstrap_servers, overrides=self.kafka_config)
        except ClientConfigError as error:
            raise MQError(RC.Q_MGR_NOT_AVAILABLE, str(error)) from None

    # ---- the names every client agrees on ----

    def topic_of(self, queue: str) -> str:
        return queue_to_topic(queue, self.namespace)

    def share_group_of(self, topic: str) -> str:
        return self.namespace + SHARE_GROUP_PREFIX + topic

    @property
    def catalogue_topic(self) -> str:
        return self.namespace + CATALOGUE_TOPIC

    @property
    def connections_topic(self) -> str:
        return self.namespace + CONNECTIONS_TOPIC

    @property
    def lock_duration(self) -> float:
        return self.lock_duration_ms / 1000.0


__all__ = ["CONNECTIONS_TOPIC", "DEFAULT_QMGR", "SHARE_GROUP_PREFIX", "Settings"]
