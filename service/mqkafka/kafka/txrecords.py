"""What the transactional loop (``txloop``) and its handler exchange: the records to write,
the handler's protocols, and the loop's counters."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from mqkafka.kafka.clients import KafkaError


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


def has_hooks(handler: object) -> bool:
    return all(hasattr(handler, name) for name in ("before_batch", "committed", "aborted"))


@dataclass
class LoopStats:
    batches: int = 0
    records_in: int = 0
    records_out: int = 0
    aborts: int = 0
    last_commit_at: float = 0.0
    batch_seconds: list[float] = field(default_factory=list)
