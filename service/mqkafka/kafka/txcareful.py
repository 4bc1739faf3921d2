"""Careful mode of the transactional loop (``txloop``): a batch whose transaction failed is
tried again input by input, so that a record Kafka refuses for a reason no retry cures does
not block its partition.

Which input made the refused record is not known in a batch, so after a failed transaction
the batch is tried again *carefully*: each input handled alone, each of its records watched.
An input whose record is refused is then taken out of the batch: its records are not
written, the handler's ``refused`` gives what to write instead (its dead letter), and when
that is refused too the input is logged with its topic, partition and offset and skipped.
The rest of the batch commits; careful mode ends once the consumer has passed what the failed
transaction had read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.kafka.failures import failure_of
from mqkafka.kafka.txrecords import BatchHandler, OutRecord

log = logging.getLogger(__name__)

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


class CarefulMode:
    """Per partition, the last offset a failed transaction read; the inputs whose records
    Kafka refused; those whose replacement it refused too; refusals reported since the last
    transaction began."""

    def __init__(self, handler: BatchHandler) -> None:
        self._handler = handler
        self._careful: dict[tuple[str, int], int] = {}
        self._careful_commits = 0
        self._refused: dict[Position, KafkaError] = {}
        self._skipped: set[Position] = set()
        self._learned: dict[Position, KafkaError] = {}

    @property
    def on(self) -> bool:
        return bool(self._careful)

    def produce(self, producer: Any, batch: list[Any]) -> int:
        """Each input of ``batch`` handled alone, its records watched; an input known to be
        refused is replaced by what the handler gives, or skipped."""
        produce = producer.produce
        handle = self._handler.handle
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
                        producer.poll(0.05)
                    except KafkaException as error:  # refused at once (too large for the client)
                        failure = failure_of(error)
                        if not isinstance(failure, KafkaError) or failure.code() not in INCURABLE:
                            raise
                        if refusal is not None:  # its replacement: nothing else of it was written
                            _skip(message, failure)
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
            _skip(message, refusal)
            return []
        hook = getattr(self._handler, "refused", None)
        replacement = hook(message, refusal) if hook is not None else None
        if replacement is None:
            _skip(message, refusal)
            return []
        log.warning(
            "%s [%d] offset %d: Kafka refused a record it made (%s); it is dead-lettered",
            *position,
            refusal.name(),
        )
        return [replacement]

    def learn(self, producer: Any, consumed: list[Any], careful: bool) -> bool:
        """After a failed transaction, before its abort: whether a careful try learned of a
        refusal (then the batch is tried again at once, writing around it). A failed fast
        transaction turns careful mode on until the consumer passes what it read."""
        producer.poll(0)  # the failed records' delivery reports
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

    def passed(self, offsets: list[TopicPartition]) -> None:
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


def _skip(message: Any, refusal: KafkaError) -> None:
    log.error(
        "%s [%d] offset %d skipped: Kafka refused a record it made (%s: %s) and its dead letter",
        message.topic(),
        message.partition(),
        message.offset(),
        refusal.name(),
        refusal.str(),
    )
