"""The one maker of Kafka clients: every producer, consumer, share consumer and admin client of
every command is built here from one :class:`ClientConfig`, so a setting (SASL, TLS, tuning)
reaches all of them. The rest of the package imports Kafka's types from here, never
``confluent_kafka`` itself (a test over the import graph keeps it so).

librdkafka's own log goes through Python logging (logger ``mqkafka.kafka.librdkafka``) with
repeats of one kind of line held back for 30 s, so a broker that is away gives one line per
half minute instead of hundreds. A client that cannot be built from the user's settings raises
:class:`KafkaEdgeError` naming the setting, without its value.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    AcknowledgeType,
    Consumer,
    ConsumerGroupTopicPartitions,
    IsolationLevel,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    ShareConsumer,
    TopicPartition,
)
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    OffsetSpec,
)

from mqkafka.identity.keys import IdentityError, UserKey, load_own_key
from mqkafka.identity.signing import signed_headers
from mqkafka.kafka.clientconfig import ClientConfig, is_secret

LIBRDKAFKA_LOGGER = "mqkafka.kafka.librdkafka"
REPEAT_INTERVAL = 30.0  # seconds a kind of librdkafka line is held back after it was logged
RECONNECT_BACKOFF_MAX_MS = 1000  # the longest pause between a client's tries to reconnect
# The largest record a queue takes: MQ's default MaxMsgLength (4 MiB, the queue manager's and
# DEFINE QLOCAL's MAXMSGL, what MQINQ answers) and 1 MiB for the MQMD headers and message
# properties beside it. Every producer made here takes it (``message.max.bytes``, unless the
# user's settings say otherwise), the topics made for queues (the catalogue's
# ``[defaults.queue_config]``) and the local broker too: with librdkafka's default,
# 1,000,000, a 2 MB put to a queue MQINQ said takes 4 MB was refused (2031).
MAX_RECORD_BYTES = 5 << 20
PRODUCER_DEFAULTS: Mapping[str, Any] = {"message.max.bytes": MAX_RECORD_BYTES}

ErrorCallback = Callable[[KafkaError], None]
# What librdkafka says, in its many ways, when it cannot reach Kafka.
_UNREACHABLE = (
    "Connect to", "brokers are down", "Connection refused", "Disconnected", "transport failure",
    "Failed to resolve", "SESSTMOUT", "Timed out", "timed out",
    # a broker that stops resets the connections it had: "Send failed: Connection reset by
    # peer" came beside the "Disconnected" line of the same moment, as a line of its own
    "Connection reset", "Broken pipe", "Send failed", "Receive failed",
    "not found in cache",  # a partition's leader, the broker that went: the same outage
)  # fmt: skip
_AWAY_SIGNS = ("Connect to", "brokers are down", "Connection refused")
# Lines librdkafka writes for every client of a kind, saying nothing an operator can act on.
_NOISE = (
    'share consumer is in "Preview"',
    "in progress: retrying",  # a coordinator still loading after a broker's start: transient
    # a producer's fatal error reaches its owner as an exception, which says it in one line
    "Fatal transaction error", "Fatal idempotent producer error", "Fatal error: ",
    "fenced by a newer instance",
    # a transaction that failed or an InitProducerId retried: the call that meets it raises or
    # returns, and the loop says what it means (the outage's one line, or its own)
    "Current transaction failed in state", "Failed to acquire transactional PID",
)  # fmt: skip


class KafkaEdgeError(RuntimeError):
    """Kafka cannot be used as configured: one line naming where and why (exit code 2)."""


class RepeatFilter(logging.Filter):
    """Lets one record of a kind through per ``interval``; says how many were held back.

    A kind is the message without the client's and thread's names and with its numbers
    taken out, so "Connect to 127.0.0.1:9092 failed (after 0ms)" from every client of the
    process, and the same line a second later, are one kind. Every line that says Kafka cannot
    be reached is one kind too: a broker that is away gives one line per ``interval``, and
    :attr:`unreachable_since` tells the process when it went (:func:`kafka_is_back`)."""

    _VARIABLE = re.compile(r"\d+")
    _NAMES = re.compile(r"\[[^\]]*\]")

    def __init__(self, interval: float = REPEAT_INTERVAL) -> None:
        super().__init__()
        self.interval = interval
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self.unreachable_since: float | None = None
        self.outages = 0  # times clients of this process began to find Kafka away

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(noise in message for noise in _NOISE):
            return False
        now = time.monotonic()
        if any(sign in message for sign in _UNREACHABLE):
            kind = "unreachable"
            # an idle connection closed is routine; a refused connection says Kafka is away
            if self.unreachable_since is None and any(s in message for s in _AWAY_SIGNS):
                self.unreachable_since = now
                self.outages += 1
        else:
            kind = self._VARIABLE.sub("#", self._NAMES.sub("", message))[:160]
        # the interval by the line's own time, the one its log stamp shows: counted on the
        # monotonic clock at this call, the restart test's lines were stamped 30.007-30.045 s
        # apart, so a stamp taken before a thread switch (say_away's), or a wall clock slewed
        # against the monotonic one, could show two lines in 30 s
        stamp = record.created
        with self._lock:
            last = self._last.get(kind)
            if last is not None and stamp - last < self.interval:
                self._held[kind] = self._held.get(kind, 0) + 1
                return False
            self._last[kind] = stamp
            held = self._held.pop(kind, 0)
            if len(self._last) > 1000:  # bounded: forget the oldest kinds
                for old in sorted(self._last, key=self._last.__getitem__)[:500]:
                    self._last.pop(old, None)
        if held:
            record.msg = f"{message} ({held} more like it held back)"
            record.args = ()
        return True

    def said_unreachable(self, stamp: float) -> bool:
        """Whether a line saying Kafka cannot be reached went out within ``interval`` before
        ``stamp`` (a record's time); if not, the caller's line, of that time, is to say it,
        and counts as that kind's line from then on."""
        with self._lock:
            last = self._last.get("unreachable")
            if last is not None and stamp - last < self.interval:
                return True
            self._last["unreachable"] = stamp
            return False


def say_away(logger: logging.Logger, message: str, *args: Any) -> bool:
    """A line saying Kafka is away (or that a wait for it goes on), from whoever met it: a
    warning unless librdkafka's log or another such line said so within the last 30 s (then
    a debug line): the process says a wait for Kafka once per 30 s, not once per client.
    Whether it was the warning."""
    fn, line, func, _ = logger.findCaller(stacklevel=2)
    record = logger.makeRecord(logger.name, logging.WARNING, fn, line, message, args, None, func)
    warned = not _repeat_filter().said_unreachable(record.created)  # by its stamp's time
    if not warned:
        record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
    if logger.isEnabledFor(record.levelno):
        logger.handle(record)
    return warned


def _repeat_filter() -> RepeatFilter:
    logger = logging.getLogger(LIBRDKAFKA_LOGGER)
    for found in logger.filters:
        if isinstance(found, RepeatFilter):
            return found
    made = RepeatFilter()
    logger.addFilter(made)
    return made


# Errors that say Kafka (or a partition's leader) is away for now: the batch waits for it.
AWAY = frozenset(
    {
        "_TRANSPORT", "_ALL_BROKERS_DOWN", "_TIMED_OUT", "_MSG_TIMED_OUT", "_TIMED_OUT_QUEUE",
        "REQUEST_TIMED_OUT", "NETWORK_EXCEPTION", "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE",
        "COORDINATOR_LOAD_IN_PROGRESS", "NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION",
        "LEADER_NOT_AVAILABLE",
        "FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH", "NOT_ENOUGH_REPLICAS",
        "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "CONCURRENT_TRANSACTIONS", "_WAIT_COORD",
        "KAFKA_STORAGE_ERROR", "_RESOLVE", "REBALANCE_IN_PROGRESS", "ILLEGAL_GENERATION",
        "UNKNOWN_MEMBER_ID",
    }
)  # fmt: skip


# Errors that say a partition's leader is being chosen or has moved (a topic just made, a
# broker restarted): Kafka answers, and a moment cures it. confluent-kafka names code 6
# NOT_LEADER_FOR_PARTITION, Kafka's protocol NOT_LEADER_OR_FOLLOWER.
LEADERSHIP_MOVING = frozenset(
    {
        "NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION", "LEADER_NOT_AVAILABLE",
        "FENCED_LEADER_EPOCH", "UNKNOWN_LEADER_EPOCH",
    }
)  # fmt: skip


def leadership_moving(failure: Any) -> bool:
    return isinstance(failure, KafkaError) and failure.name() in LEADERSHIP_MOVING


def is_away(failure: Any) -> bool:
    """Whether an error says Kafka (or a partition's leader) is away for now: what waiting
    cures, as opposed to what it cannot (credentials, authorization, a record too large)."""
    if not isinstance(failure, KafkaError):
        return False
    return failure.name() in AWAY or "_TIMED_OUT" in failure.name()


def _librdkafka_logger() -> logging.Logger:
    _repeat_filter()
    return logging.getLogger(LIBRDKAFKA_LOGGER)


def kafka_is_back() -> float | None:
    """After clients of this process said Kafka could not be reached, and the caller has
    just heard from it again: how long it was away (seconds), once; None otherwise."""
    limiter = _repeat_filter()
    since = limiter.unreachable_since
    if since is None:
        return None
    limiter.unreachable_since = None
    return time.monotonic() - since


def outages() -> int:
    """How many times clients of this process began to say Kafka is away: a client that has
    seen this number change since it last asked Kafka may hold what the outage made stale."""
    return _repeat_filter().outages


def kafka_away_since() -> float | None:
    """When (monotonic) clients of this process last began to say Kafka is away, or None."""
    return _repeat_filter().unreachable_since


def _log_error(error: KafkaError) -> None:
    """Default error callback: one rate-limited line (librdkafka retries by itself). A fatal
    error is not logged here: the call that meets it raises, and its caller says it once."""
    if error.fatal():
        return
    _librdkafka_logger().log(logging.WARNING, "Kafka client: %s", error.str())


def consume_arrived(consumer: Any, most: int, wait: float) -> list[Any]:
    """What has arrived, up to ``most`` records, waiting up to ``wait`` s for the first only.

    ``consume(n, t)`` returns early only once n records came, so a lone record waited out all
    of ``t`` (an MQGET by CorrelId on a quiet queue answered ~0.2 s late, every time)."""
    records: list[Any] = consumer.consume(most, 0)
    if not records and wait > 0:
        records = consumer.consume(1, wait)
        if records and most > 1:
            records += consumer.consume(most - 1, 0)
    return records


def seek_or_say(consumer: Any, tp: TopicPartition, logger: logging.Logger, what: str) -> None:
    """Seek a partition, saying a failure. _STATE (the partition is not fetched yet: a lane
    rejoining, a partition just assigned) is said at debug: its first fetch starts from its
    committed offset, where every seek here goes back to."""
    try:
        consumer.seek(tp)
    except KafkaException as error:
        quiet = bool(error.args) and error.args[0].code() == KafkaError._STATE
        (logger.debug if quiet else logger.warning)(
            "%s failed for %s[%d]: %s", what, tp.topic, tp.partition, error
        )


def _settings(
    config: ClientConfig,
    role: Mapping[str, Any] | None,
    on_error: ErrorCallback | None,
    ours: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The user's settings and the role's over them; ``ours`` where neither says."""
    settings = {**(ours or {}), **config.client_settings(role)}
    for name, value in settings.items():  # librdkafka would say "BIO lib" for a missing file
        if name.endswith(".location") and isinstance(value, str) and not Path(value).exists():
            raise KafkaEdgeError(f"Kafka at {config.describe()}: {name}: no file {value}")
    # librdkafka backs off reconnecting up to 10 s by default: a client could then notice a
    # broker's return up to 10 s late (the service's target is to serve within 10 s of it)
    settings.setdefault("reconnect.backoff.max.ms", RECONNECT_BACKOFF_MAX_MS)
    settings.setdefault("logger", _librdkafka_logger())
    settings.setdefault("error_cb", on_error or _log_error)
    return settings


def _built(config: ClientConfig, kind: str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except (KafkaException, ValueError, TypeError) as error:
        article = "an" if kind[0] in "aeiou" else "a"
        raise KafkaEdgeError(
            f"Kafka at {config.describe()}: {article} {kind} cannot be made: {_clean(error)}"
        ) from None


def _clean(error: BaseException) -> str:
    """librdkafka's message with any secret value it quotes removed."""
    first = error.args[0] if error.args else None
    text = first.str() if isinstance(first, KafkaError) else str(error)
    match = re.search(r'property "([^"]+)"', text)
    if match and is_secret(match.group(1)):
        text = re.sub(r'value "[^"]*"', "value [redacted]", text)
    return text


class SigningProducer(Producer):  # type: ignore[misc]
    """A producer that signs every record it writes with its user's identity key (issue 20):
    what the MQI, ``KafkaPubSub`` and every ``mqk`` command use once given a key file."""

    identity_key: UserKey

    def produce(self, topic: str, value: Any = None, key: Any = None, *args: Any, **kw: Any) -> Any:
        kw["headers"] = signed_headers(self.identity_key, topic, value, kw.get("headers"))
        return super().produce(topic, value, key, *args, **kw)


def producer_max_bytes(config: ClientConfig, role: Mapping[str, Any] | None = None) -> int:
    """The ``message.max.bytes`` of a producer made from ``config`` and ``role``."""
    return int(config.client_settings(role).get("message.max.bytes", MAX_RECORD_BYTES))


def producer(
    config: ClientConfig,
    role: Mapping[str, Any] | None = None,
    *,
    on_error: ErrorCallback | None = None,
) -> Any:
    settings = _settings(config, role, on_error, PRODUCER_DEFAULTS)
    if config.identity_file is None:
        return _built(config, "producer", lambda: Producer(settings))
    try:
        identity = load_own_key(config.identity_file)
    except IdentityError as error:
        raise KafkaEdgeError(f"identity: {error}") from None
    made = _built(config, "producer", lambda: SigningProducer(settings))
    made.identity_key = identity
    return made


# Every consumer's: once its prefetch queue holds queued.min.messages (or .kbytes), librdkafka
# pauses fetching a partition for fetch.queue.backoff.ms, 1 s by default, even when the queue
# is drained long before: the service's loop took 20,000 records in ~0.2 s and then waited for
# the pause to end (the loop relaying the corpus: 28,000-33,000 records/s with 1 s against
# 63,000-151,000/s with 1-20 ms, interleaved runs; issue 21), and a reader catching up with a
# state topic paused so at every 50,000 records. 10 ms: about a fetch's round trip.
CONSUMER_DEFAULTS: Mapping[str, Any] = {"fetch.queue.backoff.ms": 10}


def consumer_settings(
    config: ClientConfig,
    role: Mapping[str, Any] | None = None,
    on_error: ErrorCallback | None = None,
) -> dict[str, Any]:
    """A consumer's librdkafka settings: ours, under the user's, under the role's."""
    return _settings(config, role, on_error, CONSUMER_DEFAULTS)


def consumer(
    config: ClientConfig,
    role: Mapping[str, Any] | None = None,
    *,
    on_error: ErrorCallback | None = None,
) -> Any:
    settings = consumer_settings(config, role, on_error)
    return _built(config, "consumer", lambda: Consumer(settings))


def share_consumer(
    config: ClientConfig,
    role: Mapping[str, Any] | None = None,
    *,
    on_error: ErrorCallback | None = None,
) -> Any:
    return _built(
        config, "share consumer", lambda: ShareConsumer(_settings(config, role, on_error))
    )


def admin(
    config: ClientConfig,
    role: Mapping[str, Any] | None = None,
    *,
    on_error: ErrorCallback | None = None,
) -> Any:
    return _built(config, "admin client", lambda: AdminClient(_settings(config, role, on_error)))


__all__ = [
    "MAX_RECORD_BYTES",
    "OFFSET_BEGINNING",
    "OFFSET_END",
    "AcknowledgeType",
    "AlterConfigOpType",
    "ConfigEntry",
    "ConfigResource",
    "ConsumerGroupTopicPartitions",
    "IsolationLevel",
    "KafkaEdgeError",
    "KafkaError",
    "KafkaException",
    "Message",
    "NewPartitions",
    "NewTopic",
    "OffsetSpec",
    "RepeatFilter",
    "TopicPartition",
    "admin",
    "consumer",
    "is_away",
    "kafka_away_since",
    "kafka_is_back",
    "outages",
    "producer",
    "producer_max_bytes",
    "say_away",
    "share_consumer",
]
