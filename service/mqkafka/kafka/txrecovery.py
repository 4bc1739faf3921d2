"""How the transactional loop (``txloop``) rides through Kafka going away and coming back.

A failed transaction is tried again while Kafka is away, however long; the outage is said in
one line when it begins (librdkafka's, or the loop's: ``clients.say_away``), at most one per
30 s while it lasts, and one when Kafka is back (a failure within a minute of that, for a
few seconds, is the same outage; one the group's rebalance caused is no outage: tried again
quietly, however often). What cannot be cured (a fenced producer
outside an outage, ``MAX_RETRIES`` other failures in a row) ends the loop. Every client that
an outage can leave stuck is replaced, and that is said in the "Kafka is back" line: a
producer whose transactional call does not return (``TX_GIVE_UP``; let go once it does) or
whose transaction state is from before the outage; a consumer the group fenced after its own
rejoin, or one that cannot read its committed offsets once Kafka answers again. Reading
resumes from the committed offsets with the consumer served first (at every try, so that no
lane goes unpolled past ``max.poll.interval.ms``), so a group that dropped it while Kafka was
away takes it back; no recovery step waits on Kafka over ``TX_GIVE_UP``.

:class:`OutageRecovery` is a mixin of :class:`~mqkafka.kafka.txloop.TransactionalLoop`: it
works on the loop's clients and flags, declared below.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as WaitedTooLong
from concurrent.futures import wait as wait_for
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.kafka.failures import failure_of, said, timed_out
from mqkafka.kafka.lanes import TopicLanes
from mqkafka.kafka.lanewatch import MAX_CLOSING, LaneWatch
from mqkafka.kafka.txcalls import CLOSE_WAIT, TxCaller, close_in_background, retire_producer

log = logging.getLogger(__name__)

IDLE_CHECK = 2.0  # seconds between idle questions to a Kafka said to be away
MAX_RETRIES = 8  # failed transactions in a row before the loop gives up (~21 s of pauses)
# Failed tries to resume from the committed offsets, with Kafka answering, before a new
# consumer takes over: one that keeps failing asks a group coordinator that is gone.
RECOVERY_TRIES = 3
BACK_QUIET = 60.0  # seconds after "Kafka is back" in which its return is not said again...
# ...unless it was away this long: a new outage then, not a moment of the last one's return
# (or unless its start was said). Two outages a minute apart, the second met by no
# transaction (the loop idle): its return was said at debug and the producer from before it
# kept, whose next offsets waited 15 s (TX_GIVE_UP) for the group coordinator from before
# it (the restart test, 4 runs in 14); a transaction that failed 4 s after a return said a
# second return (1 run in 14).
OUTAGE_NEWS = 10.0
# A transaction failed with one of these: the group rebalanced under it, which is Kafka
# answering, not Kafka away. After an outage each lane rejoins on its own, and the first
# command back failed so (its offsets carried the generation from before the last lane's
# join): said as an outage, its end was a second "Kafka is back" 4 s after the first (the
# restart test, 1 run in 12), and a worker joining made the others say Kafka went and came.
REBALANCED = frozenset({"ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS", "UNKNOWN_MEMBER_ID"})
# Seconds a recovery step may keep failing with Kafka answering before that is said (a
# coordinator still loading, the last transaction's markers still being written: routine
# for a few seconds after a broker's return), then at most once per REPEAT_INTERVAL.
RECOVERY_SAY = 10.0
COMMITTED_WAIT = 5.0  # seconds one read of the committed offsets may take; tried again after
ANSWER_WAIT = 5.0  # seconds a metadata request may take to tell whether Kafka answers
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


class OutageRecovery(LaneWatch):
    # the loop's own, set by TransactionalLoop.__init__
    topics: list[str]
    transactional: bool
    consumer: Any
    producer: Any
    _stop: threading.Event
    _client: ClientConfig
    _consumer_settings: dict[str, Any]
    _producer_settings: dict[str, Any]
    _calls: TxCaller
    _abandoned: list[Any]  # clients stuck in a call: kept, never destroyed
    _closing: list[Future[None]]  # closes of replaced consumers, until seen to have returned
    _stuck: list[tuple[Any, Future[Any]]]  # abandoned producers and the call they are stuck in
    _abort_pending: bool  # an abort that failed: done before the next begin
    _away_since: float | None  # Kafka away, as a failed batch found
    _asked_at: float
    _failures: int  # transactions failed in a row, for reasons other than an outage
    _away_tries: int  # transactions failed in a row while Kafka was away
    _recovery_failures: int  # recovery steps failed in a row with Kafka answering
    _renew: bool
    _resync: bool
    _back_at: float  # when Kafka was last said to be back (monotonic)
    _consumer_at: float  # when the consumer in use was made (monotonic)
    _producer_at: float  # when the producer in use was initialised (monotonic)
    _producer_fresh: bool  # initialised, no transaction begun since
    _failing_since: float | None  # recovery steps failing with Kafka answering, since
    _took_over: list[str]  # clients replaced during this outage: said with its end
    _away_warned = False  # this outage's start was said as a warning: so is its end
    _retiring: tuple[Future[None], ...] = ()  # closes of replaced producers not seen returned
    _init_raced = False  # the producer's init began with a predecessor not closed

    def _assigned(self, consumer: Any, partitions: list[Any]) -> None:
        raise NotImplementedError  # the loop's

    def _make_consumer(self) -> Any:  # the loop's makes a consumer per topic when asked
        return clients.consumer(self._client, self._consumer_settings)

    def _consumer_fenced(self, error: KafkaError) -> None:
        """The consumer met a fatal error: a static member fenced by one with its instance
        id. While Kafka is away or lately back that member is this worker itself: its
        consumer, its session lost, rejoined under a new member id and the group then fenced
        its old one (the service was a member holding every partition and answered nothing).
        A new consumer cures that, as often as it recurs (a flapping broker, an outage long
        enough for two rejoins), unless it comes too soon (``_fenced_by_another``); at any
        other time another worker took the id: the loop ends. Of lanes (a consumer per
        topic), only the fenced one is replaced (``TopicLanes.fenced``)."""
        lanes = self.consumer if isinstance(self.consumer, TopicLanes) else None
        fenced = lanes.fenced() if lanes is not None else []
        made_at = min(lanes.made_at[t] for t in fenced) if lanes and fenced else None
        if not self._outage_recent() or self._fenced_by_another(made_at):
            raise KafkaException(error)
        self._closing = [closed for closed in self._closing if not closed.done()]
        if len(self._closing) >= MAX_CLOSING:
            stuck = f"{error.str()} (and {MAX_CLOSING} consumers replaced before have not closed)"
            raise KafkaException(KafkaError(error.code(), stuck, fatal=True))
        self._replaced("a new consumer (the group fenced the old one after its own rejoin)")
        if lanes is not None and fenced:
            # only the fenced lanes: the others are members holding their partitions, and
            # one left to close unwaited could rejoin under its successor's instance id
            for topic in fenced:  # not waited for: fenced, it cannot rejoin
                self._closing.append(close_in_background(lanes.replace(topic), wait=0))
            self._consumer_renewed()
            return
        # the one consumer, or lanes none of which is known fenced: all of them go, waited for
        # as long as a replaced consumer is (one still a member could rejoin and fence its
        # successor), unless it is the fenced one (it cannot rejoin)
        self._closing.append(close_in_background(self.consumer, wait=CLOSE_WAIT if lanes else 0))
        self._new_consumer()

    def _fenced_by_another(self, made_at: float | None = None) -> bool:
        """Whether the consumer in use (or, given ``made_at``, the lane fenced) was fenced
        within one session of its making. Its own rejoin can fence it only after its session
        ran out (``session.timeout.ms`` without the coordinator), so self-fencings are at
        least a session apart however often the broker flaps; another worker with this
        instance id fences it within a join and a heartbeat (a few seconds). Spaced so,
        renewals stay bounded in rate, and in number by the outage's window
        (``_outage_recent``)."""
        session = float(self._consumer_settings.get("session.timeout.ms", 10_000)) / 1000.0
        return time.monotonic() - (self._consumer_at if made_at is None else made_at) < session

    def _consumer_renewed(self) -> None:
        """The consumer, or some of its lanes, replaced: reading resumes from the committed
        offsets, and a producer whose transaction may carry a replaced member goes too."""
        self._resync = self.transactional
        self._renew = self._renew or (self.transactional and not self._producer_fresh)

    def _new_consumer(self) -> None:
        self.consumer = self._make_consumer()
        self._consumer_at = time.monotonic()
        self.consumer.subscribe(self.topics, on_assign=self._assigned)
        # a producer whose transaction carried the old member's id goes too; one initialised
        # since its last transaction (the recovery's, a moment ago) has nothing of it
        self._consumer_renewed()

    def _replaced(self, what: str) -> None:
        """A client replaced: said with Kafka's return while an outage lasts; in its own line
        at any other time (a debug line just after the return: routine then)."""
        if self._away_since is not None or clients.kafka_away_since() is not None:
            if what not in self._took_over:
                self._took_over.append(what)
            log.debug("took over: %s", what)
        elif time.monotonic() - self._back_at < BACK_QUIET:
            log.debug("took over after Kafka's return: %s", what)
        else:
            log.info("took over: %s", what)

    def _outage_recent(self) -> bool:
        """Kafka is away, or was until less than two minutes ago."""
        if self._away_since is not None or clients.kafka_away_since() is not None:
            return True
        return time.monotonic() - self._back_at < 120.0

    def _outage_met(self, error: KafkaException) -> bool:
        """Whether a failed transaction met Kafka away; an outage is said as it begins. Asked
        before the abort, so that what the handler says of the abort knows (``kafka_away``)."""
        failure = failure_of(error)
        if isinstance(failure, KafkaError) and failure.fatal():
            return False
        if self._rebalanced(failure):
            _waiting.add(self)  # the abort it causes is no news either (until the next commit)
            return False
        # a failure while this process's clients cannot reach Kafka is the outage's too (a
        # commit whose records timed out fails as _INCONSISTENT, "failed delivery")
        away = clients.is_away(failure) or clients.kafka_away_since() is not None
        if away and self._away_since is None:
            self._away_since = time.monotonic()
            _waiting.add(self)
            self._away_warned = clients.say_away(
                log, "Kafka is away (%s): the batch waits for it", said(error)
            )
        return away

    def _rebalanced(self, failure: Any) -> bool:
        """Whether a failure says the group rebalanced under the transaction while no outage
        goes on (``REBALANCED``): the batch is tried again once the consumer has served the
        rebalance (the abort's resync does), quietly, however often (not MAX_RETRIES'),
        and neither an outage nor a return is said."""
        return (
            isinstance(failure, KafkaError)
            and failure.name() in REBALANCED
            and self._away_since is None
            and clients.kafka_away_since() is None
        )

    def _waits_no_more(self) -> None:
        """The loop stops: it waits for Kafka no more (``kafka_away``)."""
        _waiting.discard(self)

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
        if self._rebalanced(failure):  # the producer is sound: the abort settled it
            log.debug("the group rebalanced under the batch (%s): trying it again", said(error))
            self._away_tries += 1
            self._stop.wait(min(1.0, 0.1 * 2 ** min(self._away_tries, 6)))
            return True
        away = self._outage_met(error)
        if self.transactional and (away or timed_out(failure)):
            self._renew = True
        if away:  # however long: not counted against MAX_RETRIES
            self._away_tries += 1
            self._stop.wait(min(5.0, 0.1 * 2 ** min(self._away_tries, 6)))
            return True
        self._failures += 1
        if self._failures > MAX_RETRIES:
            return False
        log.warning("transaction failed (%s); trying the batch again", said(error))
        self._stop.wait(min(5.0, 0.1 * 2**self._failures))
        return True

    def _fenced_by_the_outage(self, failure: KafkaError) -> bool:
        """A fatal error while Kafka was away or just back: the coordinator aborted the
        transaction that the outage held open (its timeout), and with it fenced this
        producer's epoch; no other worker has this transactional id (the instance-in-use
        check at start). A new producer cures that each time (a broker that flaps can do it
        again to the new one), but only for a producer at least one transaction timeout old:
        the coordinator fences a producer for the outage only once a transaction it began
        was open that long, so a younger one was fenced by something else. A fatal error
        at any other time (another worker took the id, credentials refused) ends the loop;
        but a producer whose predecessor had not closed when it began is renewed, once: that
        one's late InitProducerId fenced it (``_renew_producer``)."""
        if self.transactional and self._init_raced:
            self._init_raced = False
            log.debug("fenced by the producer it replaced: %s", failure.str())
            self._replaced("a new producer (the one before it, not yet closed, had fenced it)")
            self._renew = True
            return True
        if not self.transactional or not self._outage_recent():
            return False
        timeout = float(self._producer_settings.get("transaction.timeout.ms", 60_000)) / 1000.0
        if time.monotonic() - self._producer_at < timeout:
            return False
        log.debug("fenced after the outage: %s", failure.str())
        self._replaced("a new producer (Kafka had aborted the transaction the outage held open,"
                       " fencing the old one)")  # fmt: skip
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
            self._stuck.append((self.producer, future))
            self.producer = clients.producer(self._client, self._producer_settings)
            self._calls.stop()  # its thread, stuck in the abandoned producer, ends if it returns
            self._calls = TxCaller()
            self._renew = True  # init_transactions before the next transaction
            said = f"no answer to {name} in {TX_GIVE_UP:.0f} s; a new producer takes over"
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT, said)) from None

    def _release_abandoned(self) -> None:
        """Abandoned producers whose stuck call has returned since (Kafka answered it at last)
        are let go, destroyed on a thread of their own (a destroy may wait for the broker):
        many outages do not pile up producers and their threads."""
        if not any(future.done() for _, future in self._stuck):
            return
        released = [client for client, future in self._stuck if future.done()]
        self._stuck = [(client, future) for client, future in self._stuck if not future.done()]
        self._abandoned = [c for c in self._abandoned if all(c is not r for r in released)]
        log.debug("released %d abandoned producer(s)", len(released))
        _let_go(released)

    def _renew_producer(self) -> None:
        """A fresh transactional producer in place of one whose transaction state is stuck.
        Raises (a KafkaException) while Kafka cannot initialise it; tried again then. The old
        one is closed, its close waited for (``CLOSE_WAIT``), before the new one inits: an
        init_transactions that timed out goes on inside librdkafka, and its InitProducerId,
        landing after the new one's, fenced the new one 70 ms after it began (the service
        ended). Past the wait the new one inits all the same (a fence is then cured once)."""
        old = self.producer
        if old not in self._abandoned:  # else: already replaced, only not yet initialised
            self.producer = clients.producer(self._client, self._producer_settings)
            closing = retire_producer(old)
            del old
            wait_for([closing], CLOSE_WAIT)  # each close waited for once
            self._retiring += (closing,)
        self._retiring = tuple(closing for closing in self._retiring if not closing.done())
        self._init_raced = bool(self._retiring)
        self.producer.init_transactions(TX_TIMEOUT)  # aborts what the old one left open
        self._producer_at = time.monotonic()
        self._producer_fresh = True
        self._renew = False
        self._abort_pending = False
        self._resync = True
        self._replaced("a new transactional producer")

    def _recovered(self) -> bool:
        """After a failed transaction, before the next batch is read: a new producer if the
        old one is to go (its init_transactions settles the last transaction), then reading
        resumes from the committed offsets. False while Kafka cannot do either (tried again
        after a pause: ``_recovery_failed``).

        The consumer is served first, each try: while a new producer could not be made its
        lanes went unpolled, and after 60 s (``max.poll.interval.ms``) one left the group
        with librdkafka's warning beside the outage's lines (the restart test, 1 run in 14);
        what it fetched is read again, as reading resumes from the committed offsets."""
        self._serve_consumer()
        reading = False
        try:
            if self._renew and self.transactional:
                self._renew_producer()
            reading = True
            self._resume_from_committed()
        except KafkaException as error:
            failure = failure_of(error)
            if reading and isinstance(failure, KafkaError) and failure.fatal():
                self._consumer_fenced(failure)  # raises if another worker with this id did
                return False
            self._recovery_failed(error, consumer=reading)
            return False
        self._resync = False
        self._recovery_failures = 0
        self._failing_since = None
        log.debug("recovered: reading resumes from the committed offsets")
        return True

    def _recovery_failed(self, error: KafkaException, *, consumer: bool) -> None:
        """While Kafka is away a recovery step fails, and is tried again (the outage was said
        when it began). Once Kafka answers, a step that still fails is said once; a consumer
        that cannot read its committed offsets ``RECOVERY_TRIES`` times is replaced, as one
        that asks a group coordinator that is gone would wait for it for ever. (A producer
        that cannot initialise is replaced on every try: ``_renew_producer``.)"""
        self._stop.wait(1.0)
        if not self._kafka_answers():
            log.debug("recovering while Kafka is away: %s", said(error))
            return
        self._recovery_failures += 1
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        step = "reading the committed offsets" if consumer else "a new producer"
        if now - self._failing_since >= RECOVERY_SAY:  # one line per 30 s with Kafka's own
            clients.say_away(log, "Kafka answers but %s has failed for %.0fs (%s): trying again",
                             step, now - self._failing_since, said(error))  # fmt: skip
        else:
            log.debug("Kafka answers but %s failed (%s): trying again", step, said(error))
        if consumer and self._recovery_failures >= RECOVERY_TRIES:
            self._replaced(f"a new consumer (the old one could not read its committed offsets "
                           f"{self._recovery_failures} times: {said(error)})")  # fmt: skip
            self._recovery_failures = 0
            self._closing.append(close_in_background(self.consumer))
            self._new_consumer()

    def _serve_consumer(self) -> None:
        """Lets the consumer's client serve its group (rebalances, a rejoin) without keeping
        what it fetched; a fatal error (fenced) is handled as a batch would meet it."""
        for message in self.consumer.consume(10000, 0):
            error = message.error()
            if error is not None and error.code() == KafkaError._FATAL:
                self._consumer_fenced(error)
                return

    def _kafka_answers(self, timeout: float = ANSWER_WAIT, *, producer: bool = False) -> bool:
        """Whether Kafka answers a metadata request of the consumer or, with ``producer``,
        failing that, of the producer: a consumer's clients can be left with no broker to ask
        while Kafka is back (``lanewatch``), and judged by them alone, Kafka stays away."""
        for client in (self.consumer, self.producer) if producer else (self.consumer,):
            try:
                client.list_topics(self.topics[0], timeout=timeout)
            except KafkaException:
                continue
            return True
        return False

    def _resume_from_committed(self) -> None:
        """After a failed transaction, once it is settled one way or the other (a commit that
        failed or was given up may have reached the coordinator and completed): each
        partition resumes from its committed offset, Kafka's word, not from the rewind (which
        would hand a committed batch out again).

        The consumer is served first (what it fetched meanwhile is dropped: the seek below
        reads it again). A group that dropped this member while Kafka was away (its session
        ran out) takes it back only once the application serves the rebalance, in a consume;
        until then committed() waits for a coordinator answer that does not come: the service
        asked it again and again for minutes after a broker's return under load, the group
        empty (py-spy: rd_kafka_committed in rd_kafka_brokers_wait_state_change)."""
        self._serve_consumer()
        assigned = self.consumer.assignment()
        if not assigned:
            return  # partitions assigned later start from their committed offsets anyway
        for tp in self.consumer.committed(assigned, timeout=COMMITTED_WAIT):
            at = tp.offset if tp.offset >= 0 else clients.OFFSET_BEGINNING
            clients.seek_or_say(
                self.consumer,
                TopicPartition(tp.topic, tp.partition, at),
                log,
                "seek to the committed offset",
            )

    def _heard_from_kafka(self) -> None:
        """Kafka answered (a commit, or metadata while idle): say so once if it was away."""
        if self._stuck:
            self._release_abandoned()
        since, self._away_since = self._away_since, None
        _waiting.discard(self)
        gone = clients.kafka_is_back()
        if since is None and (gone is None or gone < 5.0):
            self._took_over.clear()  # replaced during that moment: said at debug already
            return  # a connection refused for a moment (a broker starting) is no outage
        now = time.monotonic()
        seconds = max(now - since if since is not None else 0.0, gone or 0.0)
        # said once per outage: a moment of failures right after a return (a refused
        # connection while the broker still starts, a transaction the coordinator still
        # loading refused) is the same outage, not a new one, unless its start was said
        said = seconds >= OUTAGE_NEWS or self._away_warned or now - self._back_at >= BACK_QUIET
        self._back_at, self._away_warned = now, False
        took_over, self._took_over = self._took_over, []
        replaced = f" ({' and '.join(took_over)} took over)" if took_over else ""
        log.log(logging.WARNING if said else logging.DEBUG, "Kafka is back after %.0fs: serving "
                "again%s", seconds, replaced)  # fmt: skip
        # A producer initialised before the outage knows the group coordinator from before
        # it, and its next send_offsets_to_transaction would wait for that one for ever
        # (given up only after TX_GIVE_UP): a new producer asks afresh, before the next
        # batch. One initialised since (the recovery's) knows the coordinator that came back.
        stale = self._producer_at < now - seconds
        self._renew = self._renew or (self.transactional and seconds >= 5.0 and said and stale)

    def _check_kafka_while_idle(self) -> None:
        """While idle and Kafka was said to be away, ask it every few seconds."""
        if clients.kafka_away_since() is None and self._away_since is None:
            return
        now = time.monotonic()
        if now - self._asked_at < IDLE_CHECK:
            return
        self._asked_at = now
        if self._kafka_answers(timeout=2):
            self._heard_from_kafka()


# Loops of this process waiting for Kafka (a batch failed for an outage, or for a rebalance
# under it, none committed since)
_waiting: weakref.WeakSet[OutageRecovery] = weakref.WeakSet()


def kafka_away() -> bool:
    """Whether this process's clients find Kafka away or a transactional loop of it waits for
    Kafka (or for its group's rebalance): then the outage is said by the loop (a rebalance
    is routine), and what it causes (an abort) is no news."""
    return bool(_waiting) or clients.kafka_away_since() is not None


def _let_go(clients_: list[Any]) -> None:
    """Drops the last references to ``clients_`` on a daemon thread of their own, so their
    destroy (which may wait for a broker) keeps neither the loop nor the process's exit."""
    threading.Thread(target=clients_.clear, name="mqk-let-go", daemon=True).start()
