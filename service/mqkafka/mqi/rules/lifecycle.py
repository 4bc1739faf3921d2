"""The lifecycle of one queue as a pure state machine (seed 004, reference §9.6).

``step(state, event)`` returns a :class:`QueueTransition`: the new state, the MQ reason code the
call gets (``MQRC_NONE`` when it succeeds; a refused call leaves the state unchanged), and
effects for the adapter to carry out, in order: purge the committed messages, mark the
queue logically deleted, delete it physically (drop its messages, tombstone its catalogue
record). Predefined queues go through the same machine, so the adapter needs only one.

Invariants of :class:`QueueState`: ``depth`` counts committed messages only; a message got
under syncpoint has left ``depth`` and waits in ``work`` until commit (gone) or backout
(back); messages put under syncpoint wait in ``work`` until commit (in) or backout (gone);
a physically deleted queue has no handles and no work, and stays deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType
from typing import TypeVar

from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.validation import Call, first_violation

K = TypeVar("K")
V = TypeVar("V")


class QueueEffect(Enum):
    """What the adapter must do after a transition, in the order given."""

    PURGE = "purge"  # discard the committed messages
    MARK_LOGICALLY_DELETED = "mark-logically-deleted"  # every access but MQCLOSE -> 2052
    DELETE_PHYSICALLY = "delete-physically"  # drop the messages and tombstone the definition


@dataclass(frozen=True)
class OpenHandle:
    """An open handle: its connection, MQOO options, the user id the open was authorised
    with (the alternate user id under MQOO_ALTERNATE_USER_AUTHORITY), and whether this
    MQOPEN created the queue."""

    connection: str
    options: int
    user: str
    created_queue: bool = False


@dataclass(frozen=True)
class Work:
    """One connection's uncommitted MQPUT/MQPUT1 and MQGET calls against this queue."""

    puts: int = 0
    gets: int = 0


def _frozen(mapping: Mapping[K, V]) -> Mapping[K, V]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class QueueState:
    definition: QueueDefinition
    handles: Mapping[int, OpenHandle] = field(default_factory=lambda: _frozen({}))
    depth: int = 0
    work: Mapping[str, Work] = field(default_factory=lambda: _frozen({}))
    logically_deleted: bool = False
    deleted: bool = False

    @property
    def in_use(self) -> bool:
        return bool(self.handles)

    @property
    def has_uncommitted_work(self) -> bool:
        return bool(self.work)


@dataclass(frozen=True)
class Open:
    handle: int
    connection: str
    options: int
    user: str
    creates: bool = False


@dataclass(frozen=True)
class Close:
    handle: int
    options: int = C.MQCO_NONE


@dataclass(frozen=True)
class Put:
    handle: int
    persistent: bool
    syncpoint: bool = False


@dataclass(frozen=True)
class Get:
    handle: int
    syncpoint: bool = False


@dataclass(frozen=True)
class Commit:
    connection: str


@dataclass(frozen=True)
class Backout:
    connection: str


@dataclass(frozen=True)
class ConnectionEnded:
    """The application ended: ``clean`` for MQDISC/normal exit, else a crash (liveness)."""

    connection: str
    clean: bool


@dataclass(frozen=True)
class QMgrStarted:
    pass


@dataclass(frozen=True)
class AdminDelete:
    """DELETE QLOCAL, optionally PURGE: how "a normal queue" is deleted (seed 004)."""

    purge: bool = False


Event = Open | Close | Put | Get | Commit | Backout | ConnectionEnded | QMgrStarted | AdminDelete

# May user ``user`` delete queue ``name``? (the adapter's authority service; seed 004 checks
# it for permanent dynamic queues against the user id that validated the MQOPEN).
DeleteAuthority = Callable[[str, str], bool]


def allow_all(user: str, queue: str) -> bool:
    return True


@dataclass(frozen=True)
class QueueTransition:
    state: QueueState
    reason: RC = RC.NONE
    effects: tuple[QueueEffect, ...] = ()

    @property
    def ok(self) -> bool:
        return self.reason == RC.NONE


# --- Lifecycle: transitions -------------------------------------------------------------

_INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
_DELETE = C.MQCO_DELETE | C.MQCO_DELETE_PURGE


def step(
    state: QueueState, event: Event, can_delete: DeleteAuthority = allow_all
) -> QueueTransition:
    """Apply one event; a refused call returns the unchanged state and its reason code."""
    if state.deleted:
        # The queue is gone: a new MQOPEN finds nothing; old handles were closed with it.
        if isinstance(event, Open):
            return QueueTransition(state, RC.UNKNOWN_OBJECT_NAME)
        if isinstance(event, Close | Put | Get):
            return QueueTransition(state, RC.HOBJ_ERROR)
        return QueueTransition(state)
    match event:
        case Open():
            return _open(state, event)
        case Close():
            return _close(state, event, can_delete)
        case Put():
            return _put(state, event)
        case Get():
            return _get(state, event)
        case Commit(connection):
            return _finish_if_unused(_resolve(state, connection, commit=True))
        case Backout(connection):
            return _finish_if_unused(_resolve(state, connection, commit=False))
        case ConnectionEnded():
            return _connection_ended(state, event)
        case QMgrStarted():
            return _qmgr_started(state)
        case AdminDelete(purge):
            return _admin_delete(state, purge)


def _open(state: QueueState, event: Open) -> QueueTransition:
    if state.logically_deleted:  # "Attempts to access a logically deleted queue ... fail"
        return QueueTransition(state, RC.Q_DELETED)
    if event.handle in state.handles:
        return QueueTransition(state, RC.HOBJ_ERROR)
    handle = OpenHandle(event.connection, event.options, event.user, event.creates)
    return QueueTransition(replace(state, handles=_frozen({**state.handles, event.handle: handle})))


def _close(state: QueueState, event: Close, can_delete: DeleteAuthority) -> QueueTransition:
    handle = state.handles.get(event.handle)
    if handle is None:
        return QueueTransition(state, RC.HOBJ_ERROR)
    if first_violation(Call.MQCLOSE, event.options) is not None:
        return QueueTransition(state, RC.OPTIONS_ERROR)
    closed = replace(state, handles=_frozen(_without(state.handles, event.handle)))
    definition = state.definition
    if state.logically_deleted:  # deletion already under way: the last close completes it
        return _finish_if_unused(QueueTransition(closed))
    if definition.is_temporary_dynamic:
        if handle.created_queue:
            # "MQCO_NONE, MQCO_DELETE and MQCO_DELETE_PURGE are all treated as MQCO_NONE" on
            # the creating handle, and closing that handle deletes the queue.
            return _begin_delete(closed)
        if event.options & _DELETE:
            # MQCO_DELETE deletes a temporary dynamic queue only through the handle that
            # created it; "in all other cases" MQ answers 2045 (UNCERTAIN-lite).
            return QueueTransition(state, RC.OPTION_NOT_VALID_FOR_TYPE)
        return QueueTransition(closed)
    if not event.options & _DELETE:
        return QueueTransition(closed)
    if not definition.is_permanent_dynamic:  # a predefined queue is not deleted by MQCLOSE
        return QueueTransition(state, RC.OPTION_NOT_VALID_FOR_TYPE)
    authorised = handle.connection == definition.creator or can_delete(handle.user, definition.name)
    if not authorised:
        # "They are not deleted if closed by an application that is not authorized":
        # the close itself succeeds (reference §9.6).
        return QueueTransition(closed)
    if event.options & C.MQCO_DELETE and (state.depth or state.has_uncommitted_work):
        return QueueTransition(state, RC.Q_NOT_EMPTY)  # "fails if there are any messages"
    if state.has_uncommitted_work:  # MQCO_DELETE_PURGE "fails if ... uncommitted"
        return QueueTransition(state, RC.Q_NOT_EMPTY)
    return _begin_delete(closed)


def _put(state: QueueState, event: Put) -> QueueTransition:
    handle, refused = _usable(state, event.handle)
    if handle is None:
        return QueueTransition(state, refused)
    if not handle.options & C.MQOO_OUTPUT:
        return QueueTransition(state, RC.NOT_OPEN_FOR_OUTPUT)
    if event.persistent and state.definition.is_temporary_dynamic:
        # "They hold nonpersistent messages only" (2048: UNCERTAIN-lite).
        return QueueTransition(state, RC.PERSISTENT_NOT_ALLOWED)
    pending = sum(w.puts for w in state.work.values())
    if state.depth + pending >= state.definition.max_depth:
        return QueueTransition(state, RC.Q_FULL)
    if not event.syncpoint:
        return QueueTransition(replace(state, depth=state.depth + 1))
    work = state.work.get(handle.connection, Work())
    return QueueTransition(_with_work(state, handle.connection, replace(work, puts=work.puts + 1)))


def _get(state: QueueState, event: Get) -> QueueTransition:
    handle, refused = _usable(state, event.handle)
    if handle is None:
        return QueueTransition(state, refused)
    if not handle.options & _INPUT:
        return QueueTransition(state, RC.NOT_OPEN_FOR_INPUT)
    if state.depth == 0:
        return QueueTransition(state, RC.NO_MSG_AVAILABLE)
    taken = replace(state, depth=state.depth - 1)
    if not event.syncpoint:
        return QueueTransition(taken)
    work = state.work.get(handle.connection, Work())
    return QueueTransition(_with_work(taken, handle.connection, replace(work, gets=work.gets + 1)))


def _usable(state: QueueState, handle_id: int) -> tuple[OpenHandle | None, RC]:
    handle = state.handles.get(handle_id)
    if handle is None:
        return None, RC.HOBJ_ERROR
    if state.logically_deleted:
        return None, RC.Q_DELETED
    return handle, RC.NONE


def _resolve(state: QueueState, connection: str, *, commit: bool) -> QueueTransition:
    """End ``connection``'s unit of work here: commit keeps puts, backout restores gets."""
    work = state.work.get(connection)
    if work is None:
        return QueueTransition(state)
    depth = state.depth + (work.puts if commit else work.gets)
    remaining = _frozen(_without(state.work, connection))
    return QueueTransition(replace(state, depth=depth, work=remaining))


def _connection_ended(state: QueueState, event: ConnectionEnded) -> QueueTransition:
    # A clean end commits, a crash backs out (MQ's rule on distributed platforms).
    resolved = _resolve(state, event.connection, commit=event.clean).state
    remaining = {h: o for h, o in resolved.handles.items() if o.connection != event.connection}
    ended = replace(resolved, handles=_frozen(remaining))
    definition = state.definition
    created_it = definition.is_temporary_dynamic and definition.creator == event.connection
    if created_it and not ended.logically_deleted:
        # "deleted when the application that issued the MQOPEN call ... terminates"
        return _begin_delete(ended)
    return _finish_if_unused(QueueTransition(ended))


def _qmgr_started(state: QueueState) -> QueueTransition:
    # Nothing survives a restart: no handles, in-flight units of work backed out.
    restored = state.depth + sum(w.gets for w in state.work.values())
    fresh = replace(state, handles=_frozen({}), work=_frozen({}), depth=restored)
    if state.definition.is_temporary_dynamic or state.logically_deleted:
        # "They are deleted when the queue manager is started"; a permanent queue whose
        # deletion was pending on other users has no users any more.
        return _delete_now(fresh, ())
    return QueueTransition(
        fresh
    )  # permanent queues are "recoverable in the event of system failures"


def _admin_delete(state: QueueState, purge: bool) -> QueueTransition:
    if state.in_use:
        return QueueTransition(state, RC.OBJECT_IN_USE)
    if state.has_uncommitted_work or (state.depth and not purge):
        return QueueTransition(state, RC.Q_NOT_EMPTY)
    return _delete_now(state, (QueueEffect.PURGE,) if state.depth else ())


def _begin_delete(state: QueueState) -> QueueTransition:
    """Delete now, or mark logically deleted while in use or with uncommitted work."""
    purge = (QueueEffect.PURGE,) if state.depth else ()  # committed messages are deleted
    purged = replace(state, depth=0)
    if purged.in_use or purged.has_uncommitted_work:
        marked = replace(purged, logically_deleted=True)
        return QueueTransition(marked, effects=(*purge, QueueEffect.MARK_LOGICALLY_DELETED))
    return _delete_now(purged, purge)


def _finish_if_unused(outcome: QueueTransition) -> QueueTransition:
    """A logically deleted queue is physically deleted once nobody uses it any more.

    Seed 004 says "after these calls have been committed ... as part of close processing,
    or when the application terminates"; when the close came before the commit, the commit
    is where the last use ends, so it completes the deletion too.
    """
    state = outcome.state
    if state.logically_deleted and not state.in_use and not state.has_uncommitted_work:
        return _delete_now(state, outcome.effects)
    return outcome


def _delete_now(state: QueueState, effects: tuple[QueueEffect, ...]) -> QueueTransition:
    gone = replace(state, depth=0, logically_deleted=False, deleted=True)
    return QueueTransition(gone, effects=(*effects, QueueEffect.DELETE_PHYSICALLY))


def _with_work(state: QueueState, connection: str, work: Work) -> QueueState:
    return replace(state, work=_frozen({**state.work, connection: work}))


def _without(mapping: Mapping[K, V], key: K) -> dict[K, V]:
    return {k: v for k, v in mapping.items() if k != key}


__all__ = [
    "AdminDelete",
    "Backout",
    "Close",
    "Commit",
    "ConnectionEnded",
    "DeleteAuthority",
    "Event",
    "Get",
    "Open",
    "OpenHandle",
    "Put",
    "QMgrStarted",
    "QueueEffect",
    "QueueState",
    "QueueTransition",
    "Work",
    "allow_all",
    "step",
]
