"""One connection's unit of work: MQPUT/MQGET under syncpoint, MQCMIT and MQBACK.

- MQPUT / MQPUT1 under syncpoint write into the connection's Kafka transaction (getters
  read committed): MQCMIT commits it and the messages appear; MQBACK aborts it.
- MQGET under syncpoint leaves the record unacknowledged in its getter's lane: MQCMIT
  accepts it and it leaves the queue; MQBACK puts it back in front of the getter's
  read-ahead, so it is got again with BackoutCount one higher.

Kafka cannot put share acknowledgements inside a transaction, so MQCMIT is two steps:
the transaction first, then the acknowledgements. A process that dies between them has its
got messages redelivered (never lost, at most delivered twice); MQ gives a single atomic
commit, this emulation gives "nothing lost".
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clients import KafkaException
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.getter import Getter, Taken
from mqkafka.mqi.kafkaqm.putlimits import too_big
from mqkafka.mqi.kafkaqm.settings import Settings


@dataclass
class HeldGet:
    queue: str
    getter: Getter
    taken: Taken


@dataclass
class UnitOfWork:
    settings: Settings
    connection: str
    gets: list[HeldGet] = field(default_factory=list)
    puts: Counter[str] = field(default_factory=Counter)
    _producer: Any = None
    _open: bool = False

    def _transactional(self) -> Any:
        if self._producer is None:
            producer = clients.producer(
                self.settings.client,
                {
                    "transactional.id": f"mqk-mqi-{self.connection}-{uuid.uuid4().hex[:8]}",
                    "linger.ms": 5,
                    **self.settings.producer_config,
                },
            )
            try:
                producer.init_transactions(30)
            except KafkaException as error:
                raise MQError(RC.CONNECTION_BROKEN, f"transactions: {error}") from None
            self._producer = producer
        return self._producer

    def put(
        self,
        queue: str,
        topic: str,
        value: bytes,
        key: bytes | None,
        headers: list[tuple[str, bytes]],
    ) -> None:
        producer = self._transactional()
        try:
            if not self._open:
                producer.begin_transaction()
                self._open = True
            while True:
                try:
                    producer.produce(topic, value=value, key=key, headers=headers)
                    break
                except BufferError:
                    producer.poll(0.05)
        except KafkaException as error:
            raise too_big(error, len(value), queued=True) from None
        self.puts[queue] += 1

    def uncommitted_puts(self, queue: str) -> int:
        """This unit's puts to ``queue`` not yet committed, sent to Kafka first (in its open
        transaction): MQ counts them in the queue's CURDEPTH before MQCMIT."""
        count = self.puts.get(queue, 0)
        if count and self._producer is not None and len(self._producer):
            self._producer.flush(30)
        return count

    def got(self, queue: str, getter: Getter, taken: Taken) -> None:
        getter.pin(taken)
        self.gets.append(HeldGet(queue, getter, taken))

    def work(self) -> dict[str, tuple[int, int]]:
        """Per queue: (uncommitted puts, uncommitted gets)."""
        counts: dict[str, tuple[int, int]] = {q: (n, 0) for q, n in self.puts.items()}
        for held in self.gets:
            puts, gets = counts.get(held.queue, (0, 0))
            counts[held.queue] = (puts, gets + 1)
        return counts

    @property
    def active(self) -> bool:
        return bool(self.gets or self.puts)

    def commit(self) -> list[str]:
        """MQCMIT; returns the queues that had work (their lifecycles may now finish)."""
        queues = list(self.work())
        if self._open and self._producer is not None:
            try:
                self._producer.commit_transaction(60)
            except KafkaException as error:
                self._abort()
                self._settle(commit=False)
                raise MQError(RC.BACKED_OUT, f"the unit of work was backed out: {error}") from None
            self._open = False
        self._settle(commit=True)
        return queues

    def backout(self) -> list[str]:
        """MQBACK; returns the queues that had work."""
        queues = list(self.work())
        self._abort()
        self._settle(commit=False)
        return queues

    def _abort(self) -> None:
        if self._open and self._producer is not None:
            try:
                self._producer.abort_transaction(60)
            except KafkaException as error:
                raise MQError(RC.CONNECTION_BROKEN, f"abort: {error}") from None
        self._open = False
        self.puts.clear()

    def _settle(self, *, commit: bool) -> None:
        held, self.gets = self.gets, []
        self.puts.clear()
        # Backed-out messages go back in front of their getter's read-ahead one by one: the
        # last got first, so they end up in the order they were got.
        getters: dict[int, Getter] = {}
        for get in held if commit else reversed(held):
            get.getter.settle(get.taken, commit=commit, send=False)
            getters[id(get.getter)] = get.getter
        for getter in getters.values():  # one commit per lane, not one per message
            getter.send_settled()

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None


__all__ = ["HeldGet", "UnitOfWork"]
