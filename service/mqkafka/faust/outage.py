"""What ``mqk serve --runtime faust`` says while Kafka is away, and what ends it.

aiokafka, Faust and mode log every refused connection, failed metadata update, heartbeat and
commit while Kafka is away: hundreds of lines in a minute, some at error level, for one
outage that waiting cures. The default runtime says an outage in one line per 30 s and "Kafka
is back" once (``kafka/txrecovery.py``); :class:`OutageLines` makes Faust's lines say the
same: from a line that shows Kafka away until the next committed transaction, Faust's lines
give way to one line per ``interval`` (none when the process's confluent-kafka clients said
it lately: ``clients.say_away``), and the commit says Kafka is back.

A fenced producer (another producer took one of this worker's transactional ids) is what no
waiting cures: :func:`is_fenced` tells it, and the runtime stops with the default runtime's
one line and exit code 3. A record Kafka refuses for good (:func:`is_incurable`) is what
the broker service dead-letters its message for (``brokerrun.py``), as the default loop does.
An error that says Kafka is away (:func:`is_away`: the process's confluent-kafka clients' or
aiokafka's, a leader being chosen, a timeout) is what a record waits out
(``brokerrun.py``): said with :meth:`OutageLines.met`, tried again after :func:`backoff`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

from aiokafka import errors as aiokafka_errors  # type: ignore[import-untyped]

from mqkafka.kafka import clients
from mqkafka.kafka.clients import KafkaError, KafkaException
from mqkafka.kafka.failures import failure_of, said

log = logging.getLogger(__name__)

INTERVAL = 30.0  # seconds between two lines while Kafka is away
SHORT = 5.0  # a refused connection for less than this (a broker starting) is no outage
# Seconds a record waits out Kafka away before the worker gives up (stops, exit code 3, and
# its successor reads on from the last commit); the default loop waits however long.
AWAY_GIVE_UP = 600.0
# Faust's client lines, and those of its services this package names (the app, the correction,
# the transactions' aborts and starts, which a record waiting out Kafka away makes too)
CLIENT_LOGGERS = (
    "aiokafka",
    "faust",
    "mode",
    "mqkafka.faust.transport",
    "mqkafka.faust.exactlyonce",
    "mqkafka.faust.rebalance",
    "mqkafka.faust.settledsends",
)
# What aiokafka and Faust say, in their ways, when Kafka cannot be reached.
AWAY_SIGNS = (
    "Connect call failed", "Unable connect", "Unable to update metadata", "NodeNotReady",
    "KafkaConnectionError", "Connection refused", "Connection reset", "CoordinatorNotAvailable",
    "NotCoordinator", "RequestTimedOut", "KafkaTimeoutError", "NotLeaderForPartition",
    "LeaderNotAvailable", "Failed fetch messages", "UnknownTopicOrPartition",
)  # fmt: skip
# aiokafka's warnings that its group coordinator went: a broker stopping, or the coordinator
# moving to another broker; either the client finds it again at once (nothing to say) or it
# cannot reach Kafka (said in the away line). Held back: the first lines of an outage came
# as three in half a second, before any line showed Kafka away.
COORDINATOR_LOST = (
    "Marking the coordinator dead",
    "is either not started or not valid",
    "coordinator dead",
)

# aiokafka's warning for a send it retries by itself (NotEnoughReplicas from a broker that is
# stopping, say): librdkafka retries the same without a word. Held back: one that never
# succeeds fails the send, and the record that meets it says the outage (``met``); a clean
# stop's first line came 0.08 s before any line showed Kafka away (a second line in 30 s).
RETRIED = ("retrying. Error:",)


class InvalidRecordError(aiokafka_errors.BrokerResponseError):  # type: ignore[misc]
    """Kafka's INVALID_RECORD (a keyless record on a compacted topic, say), which aiokafka
    has no class for: it would be an UnknownError, and its dead letter could not say why."""

    errno = 87
    message = "INVALID_RECORD"
    description = "The record is invalid for the topic (a compacted topic's record needs a key)"
    retriable = False


# registered once, in aiokafka's own table of error codes (the code has no entry there)
aiokafka_errors.kafka_errors.setdefault(InvalidRecordError.errno, InvalidRecordError)

# Refusals of a record that the same record meets however often it is sent (the default
# loop's txcareful.INCURABLE as aiokafka reports them; UnknownError: any other code aiokafka
# has no class for, which it never retries).
INCURABLE = (
    InvalidRecordError,
    aiokafka_errors.RecordTooLargeError,
    aiokafka_errors.MessageSizeTooLargeError,
    aiokafka_errors.RecordListTooLargeError,
    aiokafka_errors.InvalidTopicError,
    aiokafka_errors.TopicAuthorizationFailedError,
    aiokafka_errors.PolicyViolationError,
    aiokafka_errors.CorruptRecordException,
    aiokafka_errors.UnknownError,
)
FENCED = (
    aiokafka_errors.ProducerFenced,
    aiokafka_errors.InvalidProducerEpoch,
    aiokafka_errors.InvalidProducerIdMapping,
)

# aiokafka's errors that say Kafka (or a partition's leader) is away for now: what it retries
# (``retriable``) and its timeouts; a topic unknown is not (deleted under the worker: the
# commit's check of its sends, ``settledsends.py``, fails it).
AIOKAFKA_AWAY = (
    aiokafka_errors.KafkaTimeoutError,
    aiokafka_errors.KafkaUnavailableError,
    aiokafka_errors.ConcurrentTransactions,
)


def is_fenced(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) says another producer took the transactional id."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, FENCED) or "ProducerFenced" in repr(error):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def is_incurable(error: BaseException | None) -> bool:
    return isinstance(error, INCURABLE)


def is_away(error: BaseException | None) -> bool:
    """Whether ``error`` (or what caused it) says Kafka is away for now, as the default loop
    reads its clients' errors (``clients.is_away``, or any while the process's clients find
    Kafka away): what waiting cures. Never a fenced producer, a fatal error, or any other
    exception (a bug)."""
    if is_fenced(error):
        return False
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, KafkaException):  # as the default loop's _outage_met reads it
            failure = failure_of(error)
            if isinstance(failure, KafkaError) and failure.fatal():
                return False
            return clients.is_away(failure) or clients.kafka_away_since() is not None
        if isinstance(error, aiokafka_errors.KafkaError):
            if isinstance(error, aiokafka_errors.UnknownTopicOrPartitionError):
                return False
            return bool(error.retriable) or isinstance(error, AIOKAFKA_AWAY)
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def said_of(error: BaseException) -> str:
    """An error in one line: librdkafka's own words, or aiokafka's class and message."""
    if isinstance(error, KafkaException):
        return said(error)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def backoff(tries: int) -> float:
    """Seconds before the ``tries``-th try after Kafka was found away: the default loop's
    (``txrecovery``), growing from 0.2 s to 5 s."""
    return min(5.0, 0.1 * 2.0 ** min(tries, 6))


def kafka_error(error: BaseException) -> KafkaError:
    """An aiokafka error as the confluent-kafka KafkaError the service's dead letters are
    written from (its name: INVALID_RECORD, MSG_SIZE_TOO_LARGE...)."""
    code = getattr(error, "errno", None)
    if isinstance(code, int) and code > 0:
        return KafkaError(code)
    return KafkaError(KafkaError.UNKNOWN, f"{type(error).__name__}: {error}")


class OutageLines(logging.Filter):
    """A filter for the process's log handlers (see the module's docstring)."""

    def __init__(
        self, interval: float = INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self._clock = clock
        self.interval = interval
        self.away_since: float | None = None
        self._said_at = -math.inf
        self._back_at = -math.inf

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(CLIENT_LOGGERS):
            return True
        message = record.getMessage()
        away = any(sign in message for sign in AWAY_SIGNS)
        if not away and any(sign in message for sign in (*COORDINATOR_LOST, *RETRIED)):
            return False
        now = self._clock()
        if self.away_since is None and (away or clients.kafka_away_since() is not None):
            self.away_since = clients.kafka_away_since() or now
        if self.away_since is None:
            return True
        if away and now - self._said_at >= self.interval:
            self._said_at = now  # before the line: the other handlers see it said
            # the process's one line per 30 s, shared with its confluent-kafka clients' lines
            clients.say_away(log, "Kafka is away (%s): the worker waits for it", message[:160])
        return False

    def met(self, error: BaseException) -> None:
        """The worker met Kafka away (``is_away``) in a record: the outage begins if it had not
        (its return is said by the next commit), said in the line Faust's own lines give way
        to, at most once per ``interval``."""
        now = self._clock()
        if self.away_since is None:
            self.away_since = clients.kafka_away_since() or now
        if now - self._said_at >= self.interval:
            self._said_at = now
            clients.say_away(log, "Kafka is away (%s): the worker waits for it", said_of(error))

    def heard_from_kafka(self, logger: logging.Logger) -> None:
        """A transaction committed: says Kafka is back, once, when it was away (as Faust's
        lines showed, or the process's confluent-kafka clients': aiokafka says some outages,
        a broker stopped cleanly, only at debug level)."""
        since, self.away_since = self.away_since, None
        gone = clients.kafka_is_back()
        if since is None and gone is None:
            return
        now = self._clock()
        seconds = max(now - since if since is not None else 0.0, gone or 0.0)
        # said once per outage: one that began before the last return said is that outage
        # seen late (a client that met a closed connection after it); two outages a few
        # seconds apart (a broker killed, then stopped cleanly) are two
        said = seconds >= SHORT and now - seconds > self._back_at
        if said:
            self._back_at = now
        self._said_at = -math.inf  # the next outage's first line goes out at once
        logger.log(
            logging.WARNING if said else logging.DEBUG,
            "Kafka is back after %.0fs: serving again",
            seconds,
        )


def install(lines: OutageLines) -> None:
    """On every handler of the root logger: Faust's lines reach the log through them."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(lines)


def fenced_line(error: Any) -> str:
    return (
        "a producer of this worker was fenced by a newer instance with its transactional id "
        f"({type(error).__name__}): another worker serves its partitions"
    )


__all__ = [
    "AIOKAFKA_AWAY",
    "AWAY_GIVE_UP",
    "FENCED",
    "INCURABLE",
    "InvalidRecordError",
    "OutageLines",
    "backoff",
    "fenced_line",
    "install",
    "is_away",
    "is_fenced",
    "is_incurable",
    "kafka_error",
    "said_of",
]
