"""Seed 004 "Dynamic queues": one named test per property, against the pure lifecycle.

Each test quotes the sentence it checks. A scenario is a list of events pushed through
``step``; ``drive`` asserts every call but the last succeeds, so a test reads like the
manual: create, put, close, expect.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.catalogue import (
    SYSTEM_DEFAULT_MODEL,
    SYSTEM_PERMANENT_MODEL,
    Catalogue,
    QueueDefinition,
)
from mqkafka.mqi.rules.dynamic import (
    AdminDelete,
    Backout,
    Close,
    Commit,
    ConnectionEnded,
    Event,
    Get,
    Liveness,
    Open,
    Put,
    QMgrStarted,
    QueueEffect,
    QueueState,
    QueueTransition,
    create_dynamic_queue,
    step,
)
from mqkafka.mqi.rules.lifecycle import DeleteAuthority, allow_all

CATALOGUE = Catalogue.with_system_objects()
CREATOR, OTHER = "conn-creator", "conn-other"
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT
DELETE_OPTIONS = [C.MQCO_NONE, C.MQCO_DELETE, C.MQCO_DELETE_PURGE]

PURGE, MARK, DELETE = (
    QueueEffect.PURGE,
    QueueEffect.MARK_LOGICALLY_DELETED,
    QueueEffect.DELETE_PHYSICALLY,
)


def new_queue(model: str, dynamic_q_name: str = "AMQ.*") -> QueueDefinition:
    """A deterministic dynamic queue (suffix 1) made from ``model`` by CREATOR."""
    return create_dynamic_queue(
        CATALOGUE.lookup(model),
        dynamic_q_name,
        creator=CREATOR,
        user="alice",
        taken=CATALOGUE.__contains__,
        random64=lambda: 1,
    )


def created(model: str) -> QueueState:
    """A dynamic queue just created by CREATOR's MQOPEN (handle 1, input and output)."""
    state = QueueState(new_queue(model))
    return drive(state, [Open(1, CREATOR, IO, "alice", creates=True)]).state


def temporary() -> QueueState:
    return created(SYSTEM_DEFAULT_MODEL)


def permanent() -> QueueState:
    return created(SYSTEM_PERMANENT_MODEL)


def drive(
    state: QueueState, events: Sequence[Event], can_delete: DeleteAuthority = allow_all
) -> QueueTransition:
    """Apply ``events``; every one but the last must succeed. Effects are accumulated."""
    outcome, effects = QueueTransition(state), list[QueueEffect]()
    for index, event in enumerate(events):
        outcome = step(outcome.state, event, can_delete)
        effects.extend(outcome.effects)
        if index < len(events) - 1:
            assert outcome.ok, f"{event} -> {outcome.reason!r}"
    return QueueTransition(outcome.state, outcome.reason, tuple(effects))


def other_opens(handle: int = 2, options: int = IO, user: str = "bob") -> Open:
    return Open(handle, OTHER, options, user)


# --- Temporary dynamic queues --------------------------------------------------------


def test_temporary_cannot_be_shared_queues() -> None:
    """S4: "They cannot be shared queues, accessible from queue managers in a queue-sharing
    group" — a SHAREDYN model cannot even be defined; the default model makes TEMPDYN."""
    with pytest.raises(MQError) as raised:
        QueueDefinition("SHARED.MODEL", C.MQQT_MODEL, C.MQQDT_SHARED_DYNAMIC)
    assert raised.value.reason == RC.Q_TYPE_ERROR
    assert temporary().definition.definition_type == C.MQQDT_TEMPORARY_DYNAMIC


@pytest.mark.parametrize(("persistent", "reason"), [(True, 2048), (False, 0)])
@pytest.mark.parametrize("syncpoint", [False, True])
def test_temporary_hold_nonpersistent_messages_only(
    persistent: bool, syncpoint: bool, reason: int
) -> None:
    """S4: "They hold nonpersistent messages only" (persistent put: MQRC_PERSISTENT_NOT_ALLOWED)."""
    outcome = step(temporary(), Put(1, persistent=persistent, syncpoint=syncpoint))
    assert outcome.reason == reason


def test_temporary_are_non_recoverable() -> None:
    """S4: "They are non-recoverable" — committed messages do not survive a restart."""
    outcome = drive(temporary(), [Put(1, False), Put(1, False), QMgrStarted()])
    assert outcome.state.deleted
    assert outcome.state.depth == 0


def test_temporary_are_deleted_when_the_queue_manager_is_started() -> None:
    """S4: "They are deleted when the queue manager is started" — also when still open, and
    the catalogue tombstones every temporary dynamic queue (and nothing else) at start."""
    outcome = drive(temporary(), [other_opens(), QMgrStarted()])
    assert outcome.effects == (DELETE,)
    temp, perm = new_queue(SYSTEM_DEFAULT_MODEL, "T.*"), new_queue(SYSTEM_PERMANENT_MODEL, "P.*")
    catalogue = Catalogue([*CATALOGUE.definitions(), temp, perm])
    records = catalogue.deletions_at_qmgr_start()
    assert [(record.name, record.value) for record in records] == [(temp.name, None)]


@pytest.mark.parametrize(
    "ending",
    [
        Close(1),
        ConnectionEnded(CREATOR, clean=True),
        ConnectionEnded(CREATOR, clean=False),
    ],
    ids=["creator-closes", "creator-exits", "creator-crashes"],
)
def test_temporary_deleted_when_the_creating_application_closes_or_terminates(
    ending: Event,
) -> None:
    """S4: "They are deleted when the application that issued the MQOPEN call that created
    the queue closes the queue or terminates"."""
    outcome = drive(temporary(), [Put(1, False), ending])
    assert outcome.ok
    assert outcome.state.deleted
    assert outcome.effects[-1] == DELETE


def test_temporary_deleted_when_the_creator_crash_is_found_by_liveness() -> None:
    """S4 "... or terminates", for a crash: nobody says goodbye, silence is noticed."""
    liveness = Liveness(timeout=10.0)
    liveness.heartbeat(CREATOR, now=100.0)
    liveness.heartbeat(OTHER, now=100.0)
    liveness.heartbeat(OTHER, now=108.0)
    assert liveness.expired(now=105.0) == []
    crashed = liveness.expired(now=111.0)
    assert crashed == [CREATOR]
    state = drive(temporary(), [other_opens()]).state
    for connection in crashed:
        state = step(state, ConnectionEnded(connection, clean=False)).state
    assert state.logically_deleted  # OTHER still has it open
    assert drive(state, [Close(2)]).state.deleted


def test_temporary_committed_messages_are_deleted() -> None:
    """S4: "If there are any committed messages on the queue, they are deleted"."""
    outcome = drive(temporary(), [Put(1, False), Put(1, False), Close(1)])
    assert outcome.effects == (PURGE, DELETE)
    assert outcome.state.depth == 0


@pytest.mark.parametrize(
    "uncommitted",
    [
        [Put(1, False, syncpoint=True)],
        [Put(1, False), Get(1, syncpoint=True)],
    ],
    ids=["MQPUT", "MQGET"],
)
@pytest.mark.parametrize(
    "resolution",
    [Commit(CREATOR), Backout(CREATOR), ConnectionEnded(CREATOR, clean=False)],
    ids=["commit", "backout", "terminate"],
)
def test_temporary_with_uncommitted_calls_is_logically_deleted_until_they_end(
    uncommitted: list[Event], resolution: Event
) -> None:
    """S4: "If there are any uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding against
    the queue at this time, the queue is marked as being logically deleted, and is only
    physically deleted (after these calls have been committed) as part of close processing,
    or when the application terminates"."""
    closing = drive(temporary(), [*uncommitted, Close(1)])
    assert closing.ok
    assert MARK in closing.effects
    assert closing.state.logically_deleted
    assert not closing.state.deleted
    finished = step(closing.state, resolution)
    assert finished.ok
    assert finished.state.deleted
    assert finished.effects == (DELETE,)


@pytest.mark.parametrize(
    ("users", "last_closes"),
    [
        ([Open(3, CREATOR, IO, "alice")], [Close(3)]),  # the creating application, twice
        ([other_opens()], [Close(2)]),  # another application
        ([other_opens(), Open(3, "conn-third", IO, "carol")], [Close(2), Close(3)]),
    ],
    ids=["creator-second-handle", "another-app", "two-other-apps"],
)
def test_temporary_in_use_is_logically_deleted_until_the_last_close(
    users: list[Event], last_closes: list[Event]
) -> None:
    """S4: "If the queue is in use at this time (by the creating, or another application),
    the queue is marked as being logically deleted, and is only physically deleted when
    closed by the last application using the queue"."""
    state = drive(temporary(), [*users, Close(1)]).state
    assert state.logically_deleted
    for close in last_closes[:-1]:
        state = step(state, close).state
        assert state.logically_deleted and not state.deleted
    last = step(state, last_closes[-1])
    assert last.ok
    assert last.state.deleted
    assert last.effects == (DELETE,)


@pytest.mark.parametrize(
    ("access", "reason"),
    [
        (Put(2, False), RC.Q_DELETED),
        (Get(2), RC.Q_DELETED),
        (Open(9, OTHER, C.MQOO_OUTPUT, "bob"), RC.Q_DELETED),
        (Close(2), RC.NONE),
        (Close(2, C.MQCO_DELETE), RC.NONE),
    ],
)
def test_access_to_a_logically_deleted_queue_other_than_close_fails_with_2052(
    access: Event, reason: RC
) -> None:
    """S4: "Attempts to access a logically deleted queue (other than to close it) fail with
    reason code MQRC_Q_DELETED"."""
    state = drive(temporary(), [Put(1, False), other_opens(), Close(1)]).state
    assert state.logically_deleted
    outcome = step(state, access)
    assert outcome.reason == reason
    if reason != RC.NONE:
        assert outcome.state == state


@pytest.mark.parametrize("options", DELETE_OPTIONS)
@pytest.mark.parametrize(
    "before",
    [[], [Put(1, False)], [Put(1, False, syncpoint=True)], [other_opens()]],
    ids=["empty", "committed", "uncommitted", "in-use"],
)
def test_close_options_on_the_creating_handle_are_treated_as_mqco_none(
    options: int, before: list[Event]
) -> None:
    """S4: "MQCO_NONE, MQCO_DELETE and MQCO_DELETE_PURGE are all treated as MQCO_NONE when
    specified on an MQCLOSE call for the corresponding MQOPEN call that created the queue"
    — so DELETE never fails with MQRC_Q_NOT_EMPTY there, and all three end alike."""
    as_none = drive(temporary(), [*before, Close(1, C.MQCO_NONE)])
    outcome = drive(temporary(), [*before, Close(1, options)])
    assert outcome.ok
    assert (outcome.state, outcome.effects) == (as_none.state, as_none.effects)


@pytest.mark.parametrize("options", [C.MQCO_DELETE, C.MQCO_DELETE_PURGE])
def test_temporary_delete_through_another_handle_is_not_valid(options: int) -> None:
    """MQCO_DELETE deletes a temporary dynamic queue only through the handle that created
    it; otherwise MQRC_OPTION_NOT_VALID_FOR_TYPE and the handle stays open (UNCERTAIN-lite)."""
    state = drive(temporary(), [other_opens()]).state
    outcome = step(state, Close(2, options))
    assert outcome.reason == RC.OPTION_NOT_VALID_FOR_TYPE
    assert 2 in outcome.state.handles
    assert step(state, Close(2)).ok


# --- Permanent dynamic queues --------------------------------------------------------


@pytest.mark.parametrize("persistent", [True, False])
def test_permanent_hold_persistent_or_nonpersistent_messages(persistent: bool) -> None:
    """S4: "They hold persistent or nonpersistent messages"."""
    outcome = step(permanent(), Put(1, persistent=persistent))
    assert outcome.ok
    assert outcome.state.depth == 1


def test_permanent_are_recoverable_in_the_event_of_system_failures() -> None:
    """S4: "They are recoverable in the event of system failures" — committed messages and
    the queue survive a restart; in-flight units of work are backed out."""
    events: list[Event] = [
        Put(1, True),
        Put(1, True),
        Put(1, True, syncpoint=True),  # lost: never committed
        Get(1, syncpoint=True),  # back on the queue: never committed
        QMgrStarted(),  # the system failed with both units of work in flight
    ]
    outcome = drive(permanent(), events)
    assert outcome.ok
    assert not outcome.state.deleted
    assert outcome.state.depth == 2
    assert outcome.effects == ()


@pytest.mark.parametrize("options", [C.MQCO_DELETE, C.MQCO_DELETE_PURGE])
@pytest.mark.parametrize("closer", ["creator", "other"])
def test_permanent_deleted_by_any_application_closing_with_delete(
    options: int, closer: str
) -> None:
    """S4: "They are deleted when an application (not necessarily the one that issued the
    MQOPEN call that created the queue) successfully closes the queue using the MQCO_DELETE
    or MQCO_DELETE_PURGE option"."""
    if closer == "creator":
        outcome = drive(permanent(), [Close(1, options)])
    else:
        outcome = drive(permanent(), [other_opens(), Close(1), Close(2, options)])
    assert outcome.ok
    assert outcome.state.deleted
    assert outcome.effects == (DELETE,)


@pytest.mark.parametrize(
    "ending",
    [Close(1), Close(1, C.MQCO_QUIESCE), ConnectionEnded(CREATOR, clean=False), QMgrStarted()],
    ids=["close-none", "close-quiesce", "creator-crash", "restart"],
)
def test_permanent_outlive_their_creator_without_a_delete_option(ending: Event) -> None:
    """S4 (permanent): deleted only by a close with a delete option — not when the creator
    closes without one, ends, or the queue manager restarts."""
    outcome = drive(permanent(), [Put(1, True), ending])
    assert outcome.ok
    assert not outcome.state.deleted
    assert outcome.state.depth == 1


@pytest.mark.parametrize(
    ("before", "reason"),
    [
        ([], RC.NONE),
        ([Put(1, True)], RC.Q_NOT_EMPTY),  # committed
        ([Put(1, True, syncpoint=True)], RC.Q_NOT_EMPTY),  # uncommitted MQPUT
        ([Put(1, True), Get(1, syncpoint=True)], RC.Q_NOT_EMPTY),  # uncommitted MQGET
        ([Put(1, True), Get(1)], RC.NONE),
    ],
    ids=["empty", "committed", "uncommitted-put", "uncommitted-get", "emptied"],
)
def test_permanent_close_with_delete_fails_if_any_messages_remain(
    before: list[Event], reason: RC
) -> None:
    """S4: "A close request with the MQCO_DELETE option fails if there are any messages
    (committed or uncommitted) still on the queue"."""
    state = drive(permanent(), before).state if before else permanent()
    outcome = step(state, Close(1, C.MQCO_DELETE))
    assert outcome.reason == reason
    assert outcome.state.deleted is (reason == RC.NONE)
    if reason != RC.NONE:
        assert 1 in outcome.state.handles  # a failed MQCLOSE leaves the handle open


@pytest.mark.parametrize(
    ("before", "reason", "effects"),
    [
        ([], RC.NONE, (DELETE,)),
        ([Put(1, True), Put(1, False)], RC.NONE, (PURGE, DELETE)),  # committed: purged
        ([Put(1, True, syncpoint=True)], RC.Q_NOT_EMPTY, ()),
        ([Put(1, True), Get(1, syncpoint=True)], RC.Q_NOT_EMPTY, ()),
    ],
    ids=["empty", "committed", "uncommitted-put", "uncommitted-get"],
)
def test_permanent_close_with_delete_purge_purges_committed_but_not_uncommitted(
    before: list[Event], reason: RC, effects: tuple[QueueEffect, ...]
) -> None:
    """S4: "A close request with the MQCO_DELETE_PURGE option succeeds even if there are
    committed messages on the queue (the messages being deleted as part of the close), but
    fails if there are any uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding"."""
    state = drive(permanent(), before).state if before else permanent()
    outcome = step(state, Close(1, C.MQCO_DELETE_PURGE))
    assert (outcome.reason, outcome.effects) == (reason, effects)


@pytest.mark.parametrize("options", [C.MQCO_DELETE, C.MQCO_DELETE_PURGE])
def test_permanent_successful_delete_while_in_use_is_logical_until_last_close(
    options: int,
) -> None:
    """S4: "If the delete request is successful, but the queue happens to be in use (by the
    creating, or another application), the queue is marked as being logically deleted and
    is only physically deleted when closed by the last application using the queue"."""
    marked = drive(permanent(), [other_opens(), Close(1, options)])
    assert marked.ok
    assert marked.effects == (MARK,)
    assert step(marked.state, Put(2, True)).reason == RC.Q_DELETED
    last = step(marked.state, Close(2))
    assert last.state.deleted
    assert last.effects == (DELETE,)


class Authority:
    """A fake authority service that records whom it was asked about."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self.asked: list[tuple[str, str]] = []

    def __call__(self, user: str, queue: str) -> bool:
        self.asked.append((user, queue))
        return user in self.allowed


@pytest.mark.parametrize(
    ("open_user", "allowed", "deleted"),
    [
        ("bob", {"bob"}, True),
        ("bob", set(), False),
        # MQOO_ALTERNATE_USER_AUTHORITY: the adapter passes the alternate user id it
        # validated the MQOPEN with; that id, not the connection's, is checked.
        ("admin-alt", {"admin-alt"}, True),
        ("admin-alt", {"bob"}, False),
    ],
)
def test_permanent_delete_needs_authority_of_the_user_that_validated_the_open(
    open_user: str, allowed: set[str], deleted: bool
) -> None:
    """S4: "They are not deleted if closed by an application that is not authorized to
    delete the queue ... Authorization checks are performed against the user identifier (or
    alternate user identifier if MQOO_ALTERNATE_USER_AUTHORITY was specified) that was used
    to validate the corresponding MQOPEN call"."""
    authority = Authority(allowed)
    opened = Open(2, OTHER, C.MQOO_OUTPUT | C.MQOO_ALTERNATE_USER_AUTHORITY, open_user)
    outcome = drive(permanent(), [Close(1), opened, Close(2, C.MQCO_DELETE)], authority)
    assert outcome.ok  # the close itself succeeds either way (reference §9.6)
    assert 2 not in outcome.state.handles
    assert outcome.state.deleted is deleted
    queue = permanent().definition.name
    assert authority.asked == [(open_user, queue)]


def test_permanent_creator_may_delete_without_authority() -> None:
    """S4: "... unless the closing application issued the MQOPEN call that created the
    queue"."""
    authority = Authority(allowed=set())
    reopened = Open(5, CREATOR, C.MQOO_INQUIRE, "alice")
    outcome = drive(permanent(), [reopened, Close(1), Close(5, C.MQCO_DELETE)], authority)
    assert outcome.state.deleted
    assert authority.asked == []


@pytest.mark.parametrize(
    ("before", "purge", "reason", "effects"),
    [
        ([Close(1)], False, RC.NONE, (DELETE,)),
        ([Put(1, True), Close(1)], False, RC.Q_NOT_EMPTY, ()),
        ([Put(1, True), Close(1)], True, RC.NONE, (PURGE, DELETE)),
        ([], True, RC.OBJECT_IN_USE, ()),
        ([Put(1, True, syncpoint=True), Close(1)], True, RC.Q_NOT_EMPTY, ()),
    ],
    ids=["empty", "messages", "purge", "open", "uncommitted"],
)
def test_permanent_can_be_deleted_like_a_normal_queue(
    before: list[Event], purge: bool, reason: RC, effects: tuple[QueueEffect, ...]
) -> None:
    """S4: "They can be deleted in the same way as a normal queue" (DELETE QLOCAL: refused
    while open or holding messages unless PURGE; UNCERTAIN-lite reason codes)."""
    state = drive(permanent(), before).state if before else permanent()
    outcome = step(state, AdminDelete(purge=purge))
    assert (outcome.reason, outcome.effects) == (reason, effects)


# --- Uses and recommendations ----------------------------------------------------------


def test_reply_to_queue_scenario() -> None:
    """S4 Uses: a client creates a dynamic queue, names it in ReplyToQ, the server puts the
    reply there, the client processes it and closes the reply-to queue with delete."""
    client, server = "client", "server"
    queue = QueueState(new_queue(SYSTEM_PERMANENT_MODEL))
    events: list[Event] = [
        Open(1, client, C.MQOO_INPUT_EXCLUSIVE, "alice", creates=True),
        Open(2, server, C.MQOO_OUTPUT, "server-user"),
        Put(2, persistent=False),
        Close(2),
        Get(1),
        Close(1, C.MQCO_DELETE),
    ]
    outcome = drive(queue, events)
    assert outcome.ok
    assert outcome.state.deleted


def test_shared_reply_queue_deletion_is_delayed_by_uncommitted_activity() -> None:
    """S4 Recommendations: with a shared dynamic reply-to queue, "deleting the reply-to
    queue might be delayed because there is uncommitted activity outstanding ... the queue
    might be marked as being logically deleted, and inaccessible for subsequent API requests
    (other than MQCLOSE)"."""
    state = drive(
        temporary(), [other_opens(), Put(2, False, syncpoint=True), Close(2), Close(1)]
    ).state
    assert state.logically_deleted
    assert step(state, Open(7, "late", C.MQOO_OUTPUT, "dave")).reason == RC.Q_DELETED
    assert step(state, Commit(OTHER)).state.deleted


# --- Ordinary misuse reason codes (reference §9.4) ----------------------------------------


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ([Put(99, False)], RC.HOBJ_ERROR),
        ([Get(99)], RC.HOBJ_ERROR),
        ([Close(99)], RC.HOBJ_ERROR),
        ([Open(1, OTHER, IO, "bob")], RC.HOBJ_ERROR),  # handle already in use
        ([other_opens(options=C.MQOO_INPUT_SHARED), Put(2, False)], RC.NOT_OPEN_FOR_OUTPUT),
        ([other_opens(options=C.MQOO_OUTPUT), Get(2)], RC.NOT_OPEN_FOR_INPUT),
        ([Get(1)], RC.NO_MSG_AVAILABLE),
        ([Close(1, C.MQCO_DELETE | C.MQCO_DELETE_PURGE)], RC.OPTIONS_ERROR),
        ([Close(1), Put(1, False)], RC.HOBJ_ERROR),  # the queue and its handles are gone
        ([Close(1), Open(2, OTHER, IO, "bob")], RC.UNKNOWN_OBJECT_NAME),
    ],
)
def test_misuse_gives_mq_reason_codes(events: list[Event], reason: RC) -> None:
    before = temporary()
    outcome = drive(before, events)
    assert outcome.reason == reason


def test_queue_full_counts_uncommitted_puts() -> None:
    definition = QueueDefinition(
        "SMALL.Q", C.MQQT_LOCAL, C.MQQDT_PERMANENT_DYNAMIC, max_depth=2, creator=CREATOR
    )
    state = drive(QueueState(definition), [Open(1, CREATOR, IO, "alice")]).state
    outcome = drive(state, [Put(1, False), Put(1, False, syncpoint=True), Put(1, False)])
    assert outcome.reason == RC.Q_FULL


@pytest.mark.parametrize("options", [C.MQCO_DELETE, C.MQCO_DELETE_PURGE])
def test_predefined_queue_is_not_deleted_by_mqclose(options: int) -> None:
    """MQCO_DELETE on a predefined queue: MQRC_OPTION_NOT_VALID_FOR_TYPE (reference §9.4)."""
    state = drive(QueueState(CATALOGUE.lookup("SYSTEM.DEFAULT.LOCAL.QUEUE")), [other_opens()])
    outcome = step(state.state, Close(2, options))
    assert outcome.reason == RC.OPTION_NOT_VALID_FOR_TYPE
    assert step(state.state, Close(2)).ok


# --- Liveness ------------------------------------------------------------------------


def test_liveness_reports_a_silent_connection_once_and_a_clean_exit_never() -> None:
    liveness = Liveness(timeout=5.0)
    liveness.heartbeat("a", now=0.0)
    liveness.heartbeat("b", now=0.0)
    liveness.ended("b")  # clean exit: ConnectionEnded(clean=True) already sent
    assert "a" in liveness and "b" not in liveness
    assert liveness.expired(now=5.0) == []  # exactly the timeout: still alive
    assert liveness.expired(now=5.5) == ["a"]
    assert liveness.expired(now=100.0) == []
    liveness.heartbeat("c", now=10.0)
    liveness.heartbeat("c", now=3.0)  # a late, out-of-order beat does not age it
    assert liveness.expired(now=14.0) == []


def test_liveness_timeout_must_be_positive() -> None:
    with pytest.raises(MQError):
        Liveness(timeout=0)


# --- Invariants over random histories ------------------------------------------------

HANDLES = st.integers(min_value=1, max_value=3)
CONNECTIONS = st.sampled_from([CREATOR, OTHER])
EVENTS: st.SearchStrategy[Event] = st.one_of(
    st.builds(Open, HANDLES, CONNECTIONS, st.sampled_from([IO, C.MQOO_OUTPUT]), st.just("u")),
    st.builds(Close, HANDLES, st.sampled_from(DELETE_OPTIONS)),
    st.builds(Put, HANDLES, st.booleans(), st.booleans()),
    st.builds(Get, HANDLES, st.booleans()),
    st.builds(Commit, CONNECTIONS),
    st.builds(Backout, CONNECTIONS),
    st.builds(ConnectionEnded, CONNECTIONS, st.booleans()),
    st.builds(AdminDelete, st.booleans()),
    st.just(QMgrStarted()),
)


@settings(max_examples=300)
@given(st.sampled_from([SYSTEM_DEFAULT_MODEL, SYSTEM_PERMANENT_MODEL]), st.lists(EVENTS))
def test_lifecycle_invariants_hold_for_any_history(model: str, events: list[Event]) -> None:
    state = created(model)
    deletions = 0
    for event in events:
        outcome = step(state, event)
        if not outcome.ok:
            assert outcome.state == state  # a refused call changes nothing
            assert outcome.effects == ()
        new = outcome.state
        assert new.depth >= 0
        assert all(w.puts >= 0 and w.gets >= 0 and (w.puts or w.gets) for w in new.work.values())
        if new.deleted:
            assert not new.handles and not new.work and not new.logically_deleted
        if new.logically_deleted:
            assert new.handles or new.work  # otherwise it would have been deleted
        deletions += outcome.effects.count(QueueEffect.DELETE_PHYSICALLY)
        assert (QueueEffect.DELETE_PHYSICALLY in outcome.effects) == (
            new.deleted and not state.deleted
        )
        if state.definition.is_temporary_dynamic and isinstance(event, Put) and event.persistent:
            assert not outcome.ok  # never a persistent message on a temporary queue
        state = new
    assert deletions == (1 if state.deleted else 0)
