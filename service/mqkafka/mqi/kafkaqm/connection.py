"""One MQI connection (an hconn): its Kafka clients, its handles, its unit of work.

The composition root of the client side. Connecting takes the admin client and the replica
of the catalogue and the heartbeats (:mod:`mqkafka.mqi.kafkaqm.sharedclients`: the process's
shared ones, or its own, made with the state topics if missing and read to the end), and
provisions the queue manager's system objects in the catalogue if missing. Its producer and
its *keeper* thread are made at first need (a put; a getter): the keeper commits getters'
waiting acknowledgements and writes this connection's heartbeat every
``heartbeat_interval``, which the shared clients' thread writes until then; that one reaps
crashed connections (:mod:`mqkafka.mqi.kafkaqm.reaper`).

MQOPEN is :mod:`mqkafka.mqi.kafkaqm.opening`'s (a mixin, as :mod:`mqkafka.mqi.kafkaqm.ondemand`
is) and makes a :class:`~mqkafka.mqi.kafkaqm.handle.Handle`. MQCLOSE decides with the pure
lifecycle machine (:mod:`mqkafka.mqi.rules.lifecycle`) over the queue's state as
:mod:`mqkafka.mqi.kafkaqm.queuestate` assembles it after a catalogue barrier, and carries out
its effects. MQPUT and MQGET live in :mod:`mqkafka.mqi.kafkaqm.transfer`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import ackledger
from mqkafka.mqi.kafkaqm import liveconnections as live
from mqkafka.mqi.kafkaqm.admin import QueueAdmin
from mqkafka.mqi.kafkaqm.getter import ACK_FLUSH, Getter
from mqkafka.mqi.kafkaqm.handle import INPUT, Handle
from mqkafka.mqi.kafkaqm.heartbeat import Heartbeat, QueueUse
from mqkafka.mqi.kafkaqm.keeper import KEEPER_TICK
from mqkafka.mqi.kafkaqm.logreader import Consumed
from mqkafka.mqi.kafkaqm.ondemand import OnDemand
from mqkafka.mqi.kafkaqm.opening import Opening
from mqkafka.mqi.kafkaqm.putlimits import DepthGate
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.kafkaqm.queuestate import Effects
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.kafkaqm.sharedclients import acquire, provision_system_objects, release
from mqkafka.mqi.kafkaqm.syncpoint import UnitOfWork
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import failed
from mqkafka.mqi.rules.lifecycle import Close, Commit, DeleteAuthority, allow_all, step
from mqkafka.mqi.rules.putmd import DefaultContext, IdSource, PutClock
from mqkafka.mqi.rules.validation import check_close_options

log = logging.getLogger(__name__)


class Connection(Opening, OnDemand):
    """A connected hconn. Built by :func:`mqkafka.mqi.kafkaqm.queuemanager.connect`."""

    def __init__(self, settings: Settings, authority: DeleteAuthority = allow_all) -> None:
        self.settings = settings
        self.authority = authority
        self.id = uuid.uuid4().hex
        # The Kafka key of what this connection puts without a CorrelId: one partition per
        # queue, so the queue manager processes its messages in the order they were put
        # (wire contract §2); with a CorrelId the key is the CorrelId (putmd.prepare).
        self.key = self.id.encode()
        self.clients = acquire(settings)
        self.admin: QueueAdmin = self.clients.admin
        self.replica = self.clients.replica
        self.effects = Effects(settings, self.admin, self.replica)
        self.delivery_limit = self.clients.delivery_limit
        self._on_demand()  # its producer and keeper thread, made at first need
        self.uow = UnitOfWork(settings, self.id)
        self.ids = IdSource()
        self.clock = PutClock()
        self.identity = DefaultContext(settings.user.encode(), settings.appl_name.encode())
        self.handles: dict[int, Handle] = {}
        self.depth_gates: dict[str, DepthGate] = {}  # MAXDEPTH at MQPUT, per queue name
        self.consumed: dict[str, Consumed] = {}
        self._orphans: list[Getter] = []  # getters of closed handles still holding work
        self._next_hobj = 1
        self._lock = threading.RLock()
        # Work of objects collected by the garbage collector (a Queue's MQCLOSE, a
        # Subscription's end), done by the next MQOPEN or the keeper thread, never inside the
        # collection: that runs wherever an allocation triggers it, perhaps in this connection's
        # own critical sections, where MQCLOSE would wait on a lock its own thread holds.
        self.collected: deque[Callable[[], None]] = deque()
        try:
            self.replica.sync()  # what others defined a moment ago (a shared replica's too)
            provision_system_objects(settings, self.admin, self.replica)
            self.beat()
        except MQError as error:
            self.clients.spoil()
            release(self.clients, self)
            raise failed(
                RC.Q_MGR_NOT_AVAILABLE, f"cannot reach the queue manager: {error}"
            ) from None
        self._next_beat = time.monotonic() + settings.heartbeat_interval
        self.connected = True
        live.add(self)
        self.clients.join(self)
        if not settings.share_clients:
            # A program's own connection makes its producer now, as it always did: one made at
            # a put holds the record while it starts (metadata, producer id), so a first
            # non-persistent put may leave in one batch with the next (a topic's limit then
            # refuses both). The listener's idle connections are the ones worth the wait.
            self.producer  # noqa: B018 - made (and the keeper started) by asking

    def require(self) -> None:
        if not self.connected:
            raise failed(RC.HCONN_ERROR, "the connection is not open")

    # ---- heartbeats and the keeper thread ------------------------------------------------

    def uses(self) -> dict[str, QueueUse]:
        counts: dict[str, list[int]] = {}
        with self._lock:
            for handle in self.handles.values():
                row = counts.setdefault(handle.name, [0, 0, 0, 0, 0])
                row[0] += 1
                if handle.options & C.MQOO_INPUT_EXCLUSIVE:
                    row[1] += 1
                elif handle.options & INPUT:
                    row[2] += 1
            for queue, (puts, gets) in self.uow.work().items():
                row = counts.setdefault(queue, [0, 0, 0, 0, 0])
                row[3], row[4] = puts, gets
        return {queue: QueueUse(*row) for queue, row in counts.items()}

    def beat(self, *, flush: bool = True) -> None:
        """Publish what this connection holds; with ``flush`` others see it on their next
        catalogue barrier."""
        self._publish(self.uses(), flush=flush)

    def _publish(self, uses: dict[str, QueueUse], *, flush: bool) -> None:
        beat = Heartbeat(
            self.id,
            self.settings.user,
            self.settings.appl_name,
            socket.gethostname(),
            os.getpid(),
            uses,
        )
        self.replica.write(
            self.settings.connections_topic, self.id.encode(), beat.encode(), wait=False
        )
        if flush:
            self.replica.flush()

    def finish_collected(self) -> None:
        """Do what collected objects left (module comment at ``collected``)."""
        while self.collected and self.connected:
            try:
                work = self.collected.popleft()
            except IndexError:  # another thread took the last one
                return
            try:
                work()
            except Exception as error:  # the object's own failure: nobody is left to tell
                log.debug("closing a collected MQI object: %s", error)

    def _keeper_round(self) -> float:
        """One round of the keeper thread (``keeper``): the seconds until work falls due."""
        self.finish_collected()
        with self._lock:
            getters = [h.getter for h in self.handles.values() if h.getter is not None]
        due = KEEPER_TICK
        for getter in getters:
            due = min(due, getter.flush())
        if self._producer is not None:
            self._producer.poll(0)  # serves the deliveries of asynchronous persistent puts
        if time.monotonic() >= self._next_beat:
            self._next_beat = time.monotonic() + self.settings.heartbeat_interval
            self.beat(flush=False)
        return due

    # ---- what a depth counts (MQINQ CURDEPTH; MQCLOSE of a dynamic queue) --------------

    def settle_acks(self, name: str) -> None:
        """Before a depth of queue ``name`` is asked of Kafka: this connection's waiting
        acknowledgements committed and its puts delivered, and the same of every other
        connection of this process, so that the depth neither counts a message one of them
        got nor misses one it put (a non-syncpoint MQGET's acknowledgement waits for the
        keeper thread, milliseconds: getter's opening comment; a put for the producer's
        linger). A connection in another process still has that window."""
        self._settle(name, patience=-1)
        for other in live.snapshot():
            if other is not self and other.connected:
                try:
                    # another thread may be in an MQGET holding the getter: its poll carries
                    # the acknowledgements, so do not wait on it longer than they would
                    other._settle(name, patience=ACK_FLUSH)
                except MQError as error:  # that connection's failure is its own to report
                    log.debug("settling another connection's acknowledgements: %s", error)

    def _settle(self, name: str, *, patience: float) -> None:
        if self.unsent_puts():
            # its puts are on the queue (not waiting longer on a producer another thread keeps
            # filling: its depth is a moving figure anyway)
            self.producer.flush(30 if patience < 0 else patience)
        for handle in list(self.handles.values()):
            if handle.name == name and handle.getter is not None:
                handle.getter.flush(force=True, patience=patience)

    def current_depth(self, name: str, topic: str, group: str) -> int:
        """CURDEPTH of queue ``name`` (on ``topic``) as MQ counts it: the committed messages
        not yet got, and the messages put under syncpoint and not yet committed, this
        connection's and other connections' alike (Kafka's open transactions on the topic,
        QueueAdmin.in_flight). This connection's own are counted even before Kafka has them."""
        self.settle_acks(name)
        own = self.uow.uncommitted_puts(name)
        gone = self.consumed_of(topic).__contains__
        # A transaction's markers land after its commit returns: landing between the two
        # counts, its records would be in neither. Counted again while the stable offsets move.
        for _ in range(3):
            stable = self.admin.stable_offsets(topic)
            committed = self.admin.depth(topic, group, exact=True, gone=gone)
            flight = self.admin.in_flight(topic)
            if self.admin.stable_offsets(topic) == stable:
                break
        return committed + max(flight, own)

    def consumed_of(self, topic: str) -> Consumed:
        return self.consumed.setdefault(topic, Consumed())

    # ---- MQCLOSE -------------------------------------------------------------------------

    def close(self, hobj: int, options: int) -> None:
        self.require()
        check_close_options(options)  # seed 003 rules first, with the rule named
        with self._lock:
            handle = self.handles.get(hobj)
            if handle is None:
                raise failed(RC.HOBJ_ERROR, f"no open handle {hobj}")
            self.replica.sync()
            definition = self.replica.lookup(handle.name)
            if definition is None:  # deleted meanwhile (reaper or administrator)
                self._drop(handle)
                self.beat()
                return
            deleting = options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE) or handle.created
            depth = 0
            if definition.is_dynamic and deleting:
                # MQCO_DELETE must count exactly (a message left refuses it); a temporary
                # queue's deletion only needs to know whether to purge.
                exact = definition.is_permanent_dynamic
                self.settle_acks(handle.name)
                gone = self.consumed_of(handle.topic).__contains__
                depth = self.admin.depth(handle.topic, handle.group, exact=exact, gone=gone)
            state = self.queue_state(definition, depth=depth)
            outcome = step(state, Close(hobj, options), self.authority)
            if not outcome.ok:
                raise failed(outcome.reason, f"MQCLOSE of {handle.name}")
            self._drop(handle)
        if handle.getter is not None:  # what it got above the share group's start (ackledger)
            ackledger.note(self, handle.name, handle.topic, handle.group, handle.partitions)
        self.effects.carry_out(definition, outcome.effects)
        self.beat()

    def _drop(self, handle: Handle) -> None:
        handle.open = False
        self.handles.pop(handle.hobj, None)
        if handle.browser is not None:
            handle.browser.close()
        if handle.getter is not None:
            if handle.getter.holds_work:
                self._orphans.append(handle.getter)  # closed once its unit of work ends
            else:
                handle.getter.close()

    # ---- MQCMIT / MQBACK -------------------------------------------------------------------

    def end_unit_of_work(self, *, commit: bool) -> None:
        self.require()
        closed: list[tuple[str, Getter]] = []
        with self._lock:
            before = self.uow.work()
            of = {id(got.getter): got.queue for got in list(self.uow.gets)}
            queues = self.uow.commit() if commit else self.uow.backout()
            self._finish_after_work(queues, before)
            for getter in [g for g in self._orphans if not g.holds_work]:
                getter.close()
                self._orphans.remove(getter)
                if commit and id(getter) in of:
                    closed.append((of[id(getter)], getter))
        for queue, getter in closed:  # committed after its MQCLOSE's note (ackledger)
            ackledger.note(self, queue, getter.topic, getter.group, getter.partitions)
        self.beat()

    def _finish_after_work(self, queues: list[str], before: dict[str, tuple[int, int]]) -> None:
        """A logically deleted queue whose last use was this unit of work goes now.

        Only a dynamic queue is ever logically deleted (lifecycle: MQCO_DELETE, its creator's
        end; an administrative delete with work fails), and whether a queue is dynamic never
        changes: the catalogue barrier (a list-offsets call and waiting for this replica to
        read back its own heartbeat, ~5 ms, half of an MQCMIT of ten gets) is paid only when
        the unit of work touched one."""
        if not any(self._maybe_dynamic(queue) for queue in queues):
            return
        self.replica.sync()
        for queue in queues:
            definition = self.replica.lookup(queue)
            if definition is None or not definition.logically_deleted:
                continue
            state = self.queue_state(definition, work=before)
            self.effects.carry_out(definition, step(state, Commit(self.id)).effects)

    def _maybe_dynamic(self, queue: str) -> bool:
        definition = self.replica.lookup(queue)
        return definition is None or definition.is_dynamic  # not known here: ask the barrier

    # ---- requeue (redelivery near the delivery limit) ----------------------------------

    def requeue(self, topic: str, rec: Rec, backout: int) -> None:
        from mqkafka.mqi.rules.redelivery import requeue_headers

        self.producer.produce(
            topic,
            value=rec.msg.value(),
            key=rec.msg.key(),
            headers=requeue_headers(rec.headers(), backout, rec.position),
            partition=rec.partition,
            timestamp=rec.put_ms(),  # the put time: order, browse and expiry stay the message's
        )
        if self.producer.flush(30):
            raise MQError(RC.CONNECTION_BROKEN, f"could not requeue a message on {topic}")

    # ---- MQDISC ------------------------------------------------------------------------

    def disconnect(self) -> None:
        self.require()
        self._halt_rounds()  # the keeper first: it must not close collected objects meanwhile
        try:
            if self.uow.active:
                self.end_unit_of_work(commit=True)  # MQDISC commits (distributed platforms)
            self.finish_collected()
            for hobj in list(self.handles):
                try:
                    self.close(hobj, C.MQCO_NONE)
                except MQError as error:
                    log.warning("closing handle %s at MQDISC: %s", hobj, error)
        finally:
            self.connected = False
            live.discard(self)
            self._halt_rounds()
            for getter in self._orphans:
                getter.close()
            if self._producer is not None:
                self._producer.flush(30)
            self.uow.close()
            self.replica.write(self.settings.connections_topic, self.id.encode(), None, wait=False)
            self.replica.flush()
            release(self.clients, self)

    def abandon(self) -> None:
        """Stop without a word, as a crash would (tests of liveness use it)."""
        self.connected = False
        self._halt_rounds()
        release(self.clients, self)


__all__ = ["Connection"]
