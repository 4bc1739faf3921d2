"""Configuration of one ``mqk serve`` worker."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM

DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE"
ACTIVITY_TOPIC = "mqk-activity"


@dataclass(frozen=True)
class ServiceConfig:
    """Everything a worker needs to know; built once by the CLI, never read from globals.

    ``instance_id`` names the worker's Kafka transactional id: a restarted worker with the same
    id aborts what its previous life left open, so give each concurrent worker its own.
    """

    bootstrap: str
    namespace: str = ""
    kafka_settings: Mapping[str, str] = field(default_factory=dict, repr=False)  # has secrets
    qmgr_name: str = "QM1"
    instance_id: str = field(default_factory=lambda: f"{socket.gethostname()}-1")
    state_dir: Path = field(
        default_factory=lambda: Path(os.environ.get("MQK_HOME") or Path.home() / ".mqk") / "state"
    )
    streams: tuple[str, ...] = (DEFAULT_STREAM,)
    control_queue: str = CONTROL_QUEUE
    dead_letter_queue: str = DEAD_LETTER_QUEUE
    auto_create_queues: bool = True
    queue_partitions: int = 1
    metrics_port: int | None = None
    acl_file: Path | None = None
    identity: str = "off"  # off | hmac (issue 20): whether senders must sign what they put
    identity_keys: Path | None = None  # every user's key, for --identity hmac
    identity_window: float = 300.0  # seconds a signature is good for; MsgIds kept as long
    group_id: str = "mqk-broker"
    activity: bool = True  # write activity events to mqk-activity
    in_memory_state: bool = False  # no RocksDB: rebuilt from Kafka at every start (benchmarks)
    create_topics: bool = True  # create missing system topics at start (mqk topics apply)
    metrics_host: str = "127.0.0.1"

    @property
    def client(self) -> ClientConfig:
        """What every Kafka client of this worker is made from."""
        return ClientConfig(self.bootstrap, self.kafka_settings)

    def topic(self, name: str) -> str:
        """A state topic's name (``mqkafka.state.kinds`` declares them) with the namespace
        prefix."""
        return self.namespace + name
