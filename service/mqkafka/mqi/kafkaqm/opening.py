"""MQOPEN of a queue: the name resolved, the lifecycle's step, the handle made.

MQOPEN decides with the pure lifecycle machine (:mod:`mqkafka.mqi.rules.lifecycle`) over the
queue's state as :mod:`mqkafka.mqi.kafkaqm.queuestate` assembles it after a catalogue
barrier; MQOPEN of a model queue first claims a dynamic queue's name by creating its topic.
An input handle gets its getter on the queue's share group. MQCLOSE, which asks the same
machine, is the connection's own (:mod:`mqkafka.mqi.kafkaqm.connection`).
A mixin of :class:`~mqkafka.mqi.kafkaqm.connection.Connection` (as
:mod:`~mqkafka.mqi.kafkaqm.ondemand` is), which holds the state named here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import partial

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.admin import QueueAdmin
from mqkafka.mqi.kafkaqm.getter import Getter
from mqkafka.mqi.kafkaqm.handle import INPUT, Handle
from mqkafka.mqi.kafkaqm.keeper import Keeper
from mqkafka.mqi.kafkaqm.logreader import Consumed
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.kafkaqm.queuestate import assemble
from mqkafka.mqi.kafkaqm.replica import StateReplica
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.kafkaqm.syncpoint import UnitOfWork
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.dynamic import DynamicQName, create_dynamic_queue
from mqkafka.mqi.rules.errors import failed
from mqkafka.mqi.rules.lifecycle import Open, OpenHandle, QueueState, step
from mqkafka.mqi.rules.putmd import QueueTraits
from mqkafka.mqi.rules.structs import OD, mqchars
from mqkafka.mqi.rules.validation import check_open_options
from mqkafka.wire.names import validate_object_name


class Opening:
    """A connection's MQOPEN of a queue."""

    id: str
    settings: Settings
    admin: QueueAdmin
    replica: StateReplica
    uow: UnitOfWork
    handles: dict[int, Handle]
    delivery_limit: int
    _lock: threading.RLock
    _next_hobj: int
    # The connection's methods (OnDemand's own_keeper among them), annotated rather than
    # stubbed: a stub here would stand before OnDemand's own_keeper in Connection's MRO.
    require: Callable[[], None]
    finish_collected: Callable[[], None]
    beat: Callable[[], None]
    consumed_of: Callable[[str], Consumed]
    requeue: Callable[[str, Rec, int], None]
    own_keeper: Callable[[], Keeper]

    def definition(self, name: str) -> QueueDefinition:
        """The catalogue's definition; a queue topic without one (made by the broker service
        or ``mqk topics apply``) is adopted as a predefined local queue."""
        found = self.replica.lookup(name)
        if found is not None:
            return found
        if self.admin.partitions_of(self.settings.topic_of(name)) is None:
            raise failed(RC.UNKNOWN_OBJECT_NAME, f"no queue {name}")
        adopted = QueueDefinition(name, description="adopted: topic made outside the MQI")
        self.replica.define(adopted)
        return adopted

    def open(self, od: OD, options: int) -> Handle:
        self.require()
        self.finish_collected()  # an exclusive open after a collected one finds it closed
        check_open_options(options)
        if od.ObjectType != C.MQOT_Q:
            raise failed(RC.OBJECT_TYPE_ERROR, f"ObjectType {od.ObjectType} is not MQOT_Q")
        qmgr = mqchars(od.ObjectQMgrName)
        if qmgr and qmgr != self.settings.qmgr_name:
            # One queue manager is emulated: another name is one it does not know.
            raise failed(RC.UNKNOWN_REMOTE_Q_MGR, f"unknown queue manager {qmgr}")
        try:
            name = validate_object_name(mqchars(od.ObjectName))
        except MQError as error:
            raise failed(RC.OBJECT_NAME_ERROR, error.detail) from None
        self.replica.sync()
        definition = self.definition(name)
        if definition.logically_deleted:
            raise failed(RC.Q_DELETED, f"{name} is being deleted")
        created = False
        if definition.is_model:
            definition = self._create_dynamic(definition, od.DynamicQName)
            created = True
            od.ObjectName = definition.name.encode()
            od.ObjectQMgrName = self.settings.qmgr_name.encode()
        user = self.settings.user
        if options & C.MQOO_ALTERNATE_USER_AUTHORITY and mqchars(od.AlternateUserId):
            user = mqchars(od.AlternateUserId)
        with self._lock:
            hobj = self._next_hobj
            self._next_hobj += 1
            self._check_exclusive(definition.name, options)
            state = self.queue_state(definition)
            outcome = step(state, Open(hobj, self.id, options, user, creates=created))
            if not outcome.ok:
                raise failed(outcome.reason, f"MQOPEN of {definition.name}")
            handle = self._handle(hobj, definition, options, user, created)
            self.handles[hobj] = handle
        od.ResolvedQName = definition.name.encode()
        self.beat()
        return handle

    def _handle(
        self, hobj: int, definition: QueueDefinition, options: int, user: str, created: bool
    ) -> Handle:
        topic = self.settings.topic_of(definition.name)
        partitions = self.admin.partitions_of(topic)
        if partitions is None:
            raise failed(RC.Q_DELETED, f"the topic of {definition.name} is gone")
        group = self.settings.share_group_of(topic)
        traits = QueueTraits(
            definition.name,
            definition.default_persistence,
            definition.max_msg_length,
            definition.is_temporary_dynamic,
        )
        handle = Handle(
            hobj, definition.name, topic, group, partitions, options, user, created, traits
        )
        if options & INPUT:
            self.admin.configure_share_group(group)
            handle.getter = Getter(
                self.settings,
                topic,
                group,
                partitions,
                delivery_limit=self.delivery_limit,
                requeue=partial(self.requeue, topic),
                share_starts=lambda: self.admin.share_start(topic, group, partitions),
                consumed=self.consumed_of(topic),
                others_waiting=partial(self._other_getters, definition.name, hobj),
                wake=self.own_keeper().wake,
            )
        return handle

    def _other_getters(self, name: str, hobj: int) -> bool:
        """Does anyone but handle ``hobj`` read queue ``name`` (here or elsewhere)?"""
        if any(
            h.name == name and h.hobj != hobj and h.options & INPUT for h in self.handles.values()
        ):
            return True
        return any(
            u.input_shared or u.input_exclusive
            for _, u in self.replica.connections.uses(name, exclude=self.id)
        )

    def queue_state(
        self,
        definition: QueueDefinition,
        *,
        work: Mapping[str, tuple[int, int]] | None = None,
        depth: int = 0,
    ) -> QueueState:
        """The queue as the lifecycle machine takes it from this connection: its handles
        here, other connections' uses, and this connection's uncommitted puts and gets
        (``work``: as they were before a commit; by default, as they are). MQOPEN, MQCLOSE,
        the end of a unit of work and the queue manager's DELETE and CLEAR ask it."""
        name = definition.name
        own = {
            h.hobj: OpenHandle(self.id, h.options, h.user, h.created)
            for h in self.handles.values()
            if h.name == name
        }
        return assemble(
            definition,
            own=own,
            others=self.replica.connections.uses(name, exclude=self.id),
            own_connection=self.id,
            own_work=(self.uow.work() if work is None else work).get(name, (0, 0)),
            depth=depth,
        )

    def _check_exclusive(self, name: str, options: int) -> None:
        """MQOO_INPUT_EXCLUSIVE against every other input handle, here and elsewhere (2042)."""
        if not options & INPUT:
            return
        others = self.replica.connections.uses(name, exclude=self.id)
        exclusive = sum(u.input_exclusive for _, u in others)
        shared = sum(u.input_shared for _, u in others)
        for handle in self.handles.values():
            if handle.name == name and handle.options & INPUT:
                if handle.options & C.MQOO_INPUT_EXCLUSIVE:
                    exclusive += 1
                else:
                    shared += 1
        wants_exclusive = bool(options & C.MQOO_INPUT_EXCLUSIVE)
        if exclusive or (wants_exclusive and shared):
            raise failed(RC.OBJECT_IN_USE, f"{name} is open for exclusive input elsewhere")

    def _create_dynamic(self, model: QueueDefinition, raw_name: bytes) -> QueueDefinition:
        """MQOPEN of a model queue: claim a name by creating its topic (Kafka creates a topic
        once, so two applications never get the same queue), then publish the definition."""
        generated = DynamicQName.parse(raw_name).generated
        for _ in range(8):
            definition = create_dynamic_queue(
                model,
                raw_name,
                creator=self.id,
                user=self.settings.user,
                taken=self.replica.catalogue.__contains__,
            )
            topic = self.settings.topic_of(definition.name)
            if self.admin.create_topic(topic, self.settings.queue_partitions):
                self.admin.configure_share_group(self.settings.share_group_of(topic))
                self.replica.define(definition)
                return definition
            if not generated:
                raise failed(RC.OBJECT_ALREADY_EXISTS, f"queue {definition.name} already exists")
        raise failed(RC.OBJECT_ALREADY_EXISTS, "no free dynamic queue name")


__all__ = ["Opening"]
