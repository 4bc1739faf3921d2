"""Seed 003 "Rules for validating MQI options": one named test per rule, table-driven.

Each test cites the seed sentence it checks and lists option combinations that break the
rule and combinations that do not (including the zero-valued constants the seed's notes
mention). A combination that does not break the rule under test may still break another
row; the tests ask only about their own row, and the public ``check_*`` functions are
tested separately with fully valid calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.validation import (
    RULES,
    Call,
    SubContext,
    check,
    check_close_options,
    check_get_options,
    check_open_options,
    check_put1_options,
    check_put_options,
    check_sub_options,
    violations,
)


def breaks(call: Call, rule: str, options: int, context: SubContext | None = None) -> bool:
    """True when ``options`` break the row named ``rule``; such options must raise 2046."""
    assert rule in {r.name for r in RULES[call]}, f"no row {rule} for {call}"
    ctx = context or SubContext()
    broken = rule in [r.name for r in violations(call, options, ctx)]
    if broken:
        with pytest.raises(MQMIError) as raised:
            check(call, options, ctx)
        assert (raised.value.comp, raised.value.reason) == (C.MQCC_FAILED, 2046)
    return broken


# --- MQOPEN ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (0, True),  # reference §10.11 choice: Options == 0 is MQRC_OPTIONS_ERROR
        (C.MQOO_BIND_AS_Q_DEF, True),  # the only zero-valued member cannot be "specified"
        (C.MQOO_FAIL_IF_QUIESCING, True),
        (C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_SAVE_ALL_CONTEXT, True),
        (C.MQOO_BROWSE, False),
        (C.MQOO_INPUT_EXCLUSIVE, False),
        (C.MQOO_INPUT_SHARED, False),
        (C.MQOO_INPUT_AS_Q_DEF, False),
        (C.MQOO_INQUIRE, False),
        (C.MQOO_OUTPUT, False),
        (C.MQOO_SET, False),
        (C.MQOO_BIND_ON_OPEN, False),
        (C.MQOO_BIND_NOT_FIXED, False),
        (C.MQOO_BIND_ON_GROUP, False),
    ],
)
def test_open_needs_at_least_one_access_or_bind_option(options: int, broken: bool) -> None:
    """S3 MQOPEN: "At least one of the following must be specified: MQOO_BROWSE,
    MQOO_INPUT_EXCLUSIVE, ... MQOO_BIND_AS_Q_DEF"."""
    assert breaks(Call.MQOPEN, "open.access_required", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_INPUT_SHARED | C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD, True),
        (C.MQOO_INPUT_SHARED | C.MQOO_READ_AHEAD, False),
        (C.MQOO_INPUT_SHARED | C.MQOO_NO_READ_AHEAD, False),
        (C.MQOO_INPUT_SHARED | C.MQOO_READ_AHEAD | C.MQOO_READ_AHEAD_AS_Q_DEF, False),
        (C.MQOO_INPUT_SHARED | C.MQOO_NO_READ_AHEAD | C.MQOO_READ_AHEAD_AS_Q_DEF, False),
    ],
)
def test_open_only_one_read_ahead_option(options: int, broken: bool) -> None:
    """S3 MQOPEN: "Only one of the following is allowed: MQOO_READ_AHEAD,
    MQOO_NO_READ_AHEAD, MQOO_READ_AHEAD_AS_Q_DEF" (the last is zero: never conflicts)."""
    assert breaks(Call.MQOPEN, "open.one_read_ahead", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INPUT_SHARED, True),
        (C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INPUT_AS_Q_DEF, True),
        (C.MQOO_INPUT_SHARED | C.MQOO_INPUT_AS_Q_DEF, True),
        (C.MQOO_INPUT_EXCLUSIVE | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_AS_Q_DEF, True),
        (C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE, False),
        (C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT, False),
        (C.MQOO_INPUT_AS_Q_DEF, False),
    ],
)
def test_open_only_one_input_option(options: int, broken: bool) -> None:
    """S3 MQOPEN note 1: "Only one of the following is allowed: MQOO_INPUT_EXCLUSIVE,
    MQOO_INPUT_SHARED, MQOO_INPUT_AS_Q_DEF"."""
    assert breaks(Call.MQOPEN, "open.one_input", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED, True),
        (C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_ON_GROUP, True),
        (C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP, True),
        # Seed note: BIND_AS_Q_DEF is zero, so with another bind option it is no error.
        (C.MQOO_OUTPUT | C.MQOO_BIND_AS_Q_DEF | C.MQOO_BIND_ON_OPEN, False),
        (C.MQOO_OUTPUT | C.MQOO_BIND_AS_Q_DEF | C.MQOO_BIND_NOT_FIXED, False),
        (C.MQOO_OUTPUT | C.MQOO_BIND_AS_Q_DEF | C.MQOO_BIND_ON_GROUP, False),
    ],
)
def test_open_only_one_bind_option(options: int, broken: bool) -> None:
    """S3 MQOPEN note 2: "Only one of the following is allowed: MQOO_BIND_ON_OPEN,
    MQOO_BIND_NOT_FIXED, MQOO_BIND_ON_GROUP, MQOO_BIND_AS_Q_DEF" and "as the value of
    MQOO_BIND_AS_Q_DEF is zero, specifying it with either of the other two bind options
    does not result in reason code MQRC_OPTIONS_ERROR"."""
    assert breaks(Call.MQOPEN, "open.one_bind", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_OUTPUT, True),
        (C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_BROWSE, True),
        (C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_INPUT_EXCLUSIVE, False),
        (C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_INPUT_SHARED, False),
        (C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_INPUT_AS_Q_DEF, False),
    ],
)
def test_open_save_all_context_needs_input(options: int, broken: bool) -> None:
    """S3 MQOPEN: "If MQOO_SAVE_ALL_CONTEXT is specified, one of the MQOO_INPUT_* options
    must also be specified"."""
    assert breaks(Call.MQOPEN, "open.save_all_context_needs_input", options) is broken


@pytest.mark.parametrize(
    "context",
    [
        C.MQOO_SET_IDENTITY_CONTEXT,
        C.MQOO_SET_ALL_CONTEXT,
        C.MQOO_PASS_IDENTITY_CONTEXT,
        C.MQOO_PASS_ALL_CONTEXT,
    ],
)
@pytest.mark.parametrize(
    ("access", "broken"), [(C.MQOO_INPUT_SHARED, True), (C.MQOO_OUTPUT, False)]
)
def test_open_set_or_pass_context_needs_output(context: int, access: int, broken: bool) -> None:
    """S3 MQOPEN: "If one of the MQOO_SET_*_CONTEXT or MQOO_PASS_*_CONTEXT options are
    specified, MQOO_OUTPUT must also be specified"."""
    assert breaks(Call.MQOPEN, "open.context_needs_output", context | access) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_CO_OP | C.MQOO_INPUT_SHARED, True),
        (C.MQOO_CO_OP | C.MQOO_BROWSE, False),
    ],
)
def test_open_co_op_needs_browse(options: int, broken: bool) -> None:
    """S3 MQOPEN: "If MQOO_CO_OP is specified, MQOO_BROWSE must also be specified"."""
    assert breaks(Call.MQOPEN, "open.co_op_needs_browse", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQOO_NO_MULTICAST | C.MQOO_INPUT_SHARED, True),
        (C.MQOO_NO_MULTICAST | C.MQOO_OUTPUT, False),
    ],
)
def test_open_no_multicast_needs_output(options: int, broken: bool) -> None:
    """S3 MQOPEN: "If MQOO_NO_MULTICAST is specified, MQOO_OUTPUT must also be
    specified"."""
    assert breaks(Call.MQOPEN, "open.no_multicast_needs_output", options) is broken


# --- MQPUT and MQPUT1 ------------------------------------------------------------------

PUT_CALLS = [Call.MQPUT, Call.MQPUT1]


@pytest.mark.parametrize("call", PUT_CALLS)
@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT, True),
        (C.MQPMO_SYNCPOINT, False),
        (C.MQPMO_NO_SYNCPOINT, False),
        (C.MQPMO_NONE, False),
    ],
)
def test_put_syncpoint_and_no_syncpoint_not_together(
    call: Call, options: int, broken: bool
) -> None:
    """S3 MQPUT (and MQPUT1, "the rules are the same"): "The combination of MQPMO_SYNCPOINT
    and MQPMO_NO_SYNCPOINT is not allowed"."""
    assert breaks(call, "put.syncpoint_pair", options) is broken


_CONTEXTS = [
    C.MQPMO_DEFAULT_CONTEXT,
    C.MQPMO_NO_CONTEXT,
    C.MQPMO_PASS_ALL_CONTEXT,
    C.MQPMO_PASS_IDENTITY_CONTEXT,
    C.MQPMO_SET_ALL_CONTEXT,
    C.MQPMO_SET_IDENTITY_CONTEXT,
]


@pytest.mark.parametrize("call", PUT_CALLS)
@pytest.mark.parametrize(
    ("options", "broken"),
    [(a | b, True) for i, a in enumerate(_CONTEXTS) for b in _CONTEXTS[i + 1 :]]
    + [(a, False) for a in _CONTEXTS],
)
def test_put_only_one_context_option(call: Call, options: int, broken: bool) -> None:
    """S3 MQPUT: "Only one of the following is allowed: MQPMO_DEFAULT_CONTEXT,
    MQPMO_NO_CONTEXT, MQPMO_PASS_ALL_CONTEXT, MQPMO_PASS_IDENTITY_CONTEXT,
    MQPMO_SET_ALL_CONTEXT, MQPMO_SET_IDENTITY_CONTEXT"."""
    assert breaks(call, "put.one_context", options) is broken


@pytest.mark.parametrize("call", PUT_CALLS)
@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQPMO_ASYNC_RESPONSE | C.MQPMO_SYNC_RESPONSE, True),
        (C.MQPMO_ASYNC_RESPONSE | C.MQPMO_RESPONSE_AS_Q_DEF, False),
        (C.MQPMO_SYNC_RESPONSE | C.MQPMO_RESPONSE_AS_TOPIC_DEF, False),
        (C.MQPMO_RESPONSE_AS_Q_DEF | C.MQPMO_RESPONSE_AS_TOPIC_DEF, False),
    ],
)
def test_put_only_one_response_option(call: Call, options: int, broken: bool) -> None:
    """S3 MQPUT: "Only one of the following is allowed: MQPMO_ASYNC_RESPONSE,
    MQPMO_SYNC_RESPONSE, MQPMO_RESPONSE_AS_TOPIC_DEF, MQPMO_RESPONSE_AS_Q_DEF" (the two
    *_AS_*_DEF are zero, so they never conflict)."""
    assert breaks(call, "put.one_response", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQPMO_ALTERNATE_USER_AUTHORITY, True),
        (C.MQPMO_ALTERNATE_USER_AUTHORITY | C.MQPMO_NO_SYNCPOINT, True),
        (C.MQPMO_NO_SYNCPOINT | C.MQPMO_LOGICAL_ORDER, False),
    ],
)
def test_put_alternate_user_authority_not_allowed(options: int, broken: bool) -> None:
    """S3 MQPUT: "MQPMO_ALTERNATE_USER_AUTHORITY is not allowed (it is valid only on the
    MQPUT1 call)"."""
    assert breaks(Call.MQPUT, "put.no_alternate_user_authority", options) is broken


def test_put1_allows_alternate_user_authority() -> None:
    """S3 MQPUT1: "MQPMO_ALTERNATE_USER_AUTHORITY is allowed"."""
    assert violations(Call.MQPUT1, C.MQPMO_ALTERNATE_USER_AUTHORITY) == []
    check_put1_options(C.MQPMO_ALTERNATE_USER_AUTHORITY | C.MQPMO_SET_ALL_CONTEXT)


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQPMO_LOGICAL_ORDER, True),
        (C.MQPMO_LOGICAL_ORDER | C.MQPMO_SYNCPOINT, True),
        (C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID, False),
    ],
)
def test_put1_logical_order_not_allowed(options: int, broken: bool) -> None:
    """S3 MQPUT1: "MQPMO_LOGICAL_ORDER is not allowed"."""
    assert breaks(Call.MQPUT1, "put1.no_logical_order", options) is broken


# --- MQGET -----------------------------------------------------------------------------

_SYNCPOINTS = [C.MQGMO_NO_SYNCPOINT, C.MQGMO_SYNCPOINT, C.MQGMO_SYNCPOINT_IF_PERSISTENT]
_BROWSES = [
    C.MQGMO_BROWSE_FIRST,
    C.MQGMO_BROWSE_MSG_UNDER_CURSOR,
    C.MQGMO_BROWSE_NEXT,
    C.MQGMO_MSG_UNDER_CURSOR,
]


@pytest.mark.parametrize(
    ("options", "broken"),
    [(a | b, True) for i, a in enumerate(_SYNCPOINTS) for b in _SYNCPOINTS[i + 1 :]]
    + [(sum(_SYNCPOINTS), True)]
    + [(a, False) for a in _SYNCPOINTS],
)
def test_get_only_one_syncpoint_option(options: int, broken: bool) -> None:
    """S3 MQGET: "Only one of the following is allowed: MQGMO_NO_SYNCPOINT,
    MQGMO_SYNCPOINT, MQGMO_SYNCPOINT_IF_PERSISTENT"."""
    assert breaks(Call.MQGET, "get.one_syncpoint", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [(a | b, True) for i, a in enumerate(_BROWSES) for b in _BROWSES[i + 1 :]]
    + [(a, False) for a in _BROWSES],
)
def test_get_only_one_browse_or_cursor_option(options: int, broken: bool) -> None:
    """S3 MQGET: "Only one of the following is allowed: MQGMO_BROWSE_FIRST,
    MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, MQGMO_MSG_UNDER_CURSOR"."""
    assert breaks(Call.MQGET, "get.one_browse", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_SYNCPOINT | C.MQGMO_BROWSE_FIRST, True),
        (C.MQGMO_SYNCPOINT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR, True),
        (C.MQGMO_SYNCPOINT | C.MQGMO_BROWSE_NEXT, True),
        (C.MQGMO_SYNCPOINT | C.MQGMO_LOCK, True),
        (C.MQGMO_SYNCPOINT | C.MQGMO_UNLOCK, True),
        (C.MQGMO_SYNCPOINT | C.MQGMO_MSG_UNDER_CURSOR, False),
        (C.MQGMO_SYNCPOINT | C.MQGMO_COMPLETE_MSG, False),
        (C.MQGMO_NO_SYNCPOINT | C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK, False),
    ],
)
def test_get_syncpoint_not_with_browse_or_lock(options: int, broken: bool) -> None:
    """S3 MQGET: "MQGMO_SYNCPOINT is not allowed with any of the following:
    MQGMO_BROWSE_FIRST, MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, MQGMO_LOCK,
    MQGMO_UNLOCK"."""
    assert breaks(Call.MQGET, "get.syncpoint_not_with_browse_or_lock", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_BROWSE_FIRST, True),
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR, True),
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_BROWSE_NEXT, True),
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_COMPLETE_MSG, True),
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_UNLOCK, True),
        # LOCK is not in this list (it is in MQGMO_SYNCPOINT's): no error from this row.
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_LOCK, False),
        (C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_WAIT, False),
    ],
)
def test_get_syncpoint_if_persistent_not_with(options: int, broken: bool) -> None:
    """S3 MQGET: "MQGMO_SYNCPOINT_IF_PERSISTENT is not allowed with any of the following:
    MQGMO_BROWSE_FIRST, MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, MQGMO_COMPLETE_MSG,
    MQGMO_UNLOCK"."""
    assert breaks(Call.MQGET, "get.syncpoint_if_persistent_not_with", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_MARK_SKIP_BACKOUT, True),
        (C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_NO_SYNCPOINT, True),
        (C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_SYNCPOINT_IF_PERSISTENT, True),
        (C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_SYNCPOINT, False),
    ],
)
def test_get_mark_skip_backout_needs_syncpoint(options: int, broken: bool) -> None:
    """S3 MQGET: "MQGMO_MARK_SKIP_BACKOUT requires MQGMO_SYNCPOINT to be specified"."""
    assert breaks(Call.MQGET, "get.mark_skip_backout_needs_syncpoint", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_WAIT | C.MQGMO_SET_SIGNAL, True),
        (C.MQGMO_WAIT, False),
        (C.MQGMO_SET_SIGNAL | C.MQGMO_NO_WAIT, False),
    ],
)
def test_get_wait_not_with_set_signal(options: int, broken: bool) -> None:
    """S3 MQGET: "The combination of MQGMO_WAIT and MQGMO_SET_SIGNAL is not allowed"."""
    assert breaks(Call.MQGET, "get.wait_not_with_set_signal", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_LOCK, True),
        (C.MQGMO_LOCK | C.MQGMO_MSG_UNDER_CURSOR, True),
        (C.MQGMO_LOCK | C.MQGMO_BROWSE_FIRST, False),
        (C.MQGMO_LOCK | C.MQGMO_BROWSE_MSG_UNDER_CURSOR, False),
        (C.MQGMO_LOCK | C.MQGMO_BROWSE_NEXT, False),
    ],
)
def test_get_lock_needs_a_browse_option(options: int, broken: bool) -> None:
    """S3 MQGET: "If MQGMO_LOCK is specified, one of the following must also be specified:
    MQGMO_BROWSE_FIRST, MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT"."""
    assert breaks(Call.MQGET, "get.lock_needs_browse", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQGMO_UNLOCK, False),
        (C.MQGMO_UNLOCK | C.MQGMO_NO_SYNCPOINT, False),
        (C.MQGMO_UNLOCK | C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT, False),
        (C.MQGMO_UNLOCK | C.MQGMO_WAIT, True),
        (C.MQGMO_UNLOCK | C.MQGMO_BROWSE_NEXT, True),
        # Reference §10.12 choice: the literal reading also refuses these two.
        (C.MQGMO_UNLOCK | C.MQGMO_FAIL_IF_QUIESCING, True),
        (C.MQGMO_UNLOCK | C.MQGMO_ACCEPT_TRUNCATED_MSG, True),
    ],
)
def test_get_unlock_only_with_no_syncpoint_and_no_wait(options: int, broken: bool) -> None:
    """S3 MQGET: "If MQGMO_UNLOCK is specified, only the following values are allowed:
    MQGMO_NO_SYNCPOINT, MQGMO_NO_WAIT"."""
    assert breaks(Call.MQGET, "get.unlock_alone", options) is broken


# --- MQCLOSE ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQCO_DELETE | C.MQCO_DELETE_PURGE, True),
        (C.MQCO_DELETE, False),
        (C.MQCO_DELETE_PURGE, False),
        (C.MQCO_NONE, False),
    ],
)
def test_close_delete_and_delete_purge_not_together(options: int, broken: bool) -> None:
    """S3 MQCLOSE: "The combination of MQCO_DELETE and MQCO_DELETE_PURGE is not allowed"."""
    assert breaks(Call.MQCLOSE, "close.delete_pair", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB, True),
        (C.MQCO_KEEP_SUB, False),
        (C.MQCO_REMOVE_SUB | C.MQCO_QUIESCE, False),
    ],
)
def test_close_only_one_of_keep_sub_and_remove_sub(options: int, broken: bool) -> None:
    """S3 MQCLOSE: "Only one of the following is allowed: MQCO_KEEP_SUB, MQCO_REMOVE_SUB"."""
    assert breaks(Call.MQCLOSE, "close.one_sub_disposition", options) is broken


# --- MQSUB -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (0, True),
        (C.MQSO_DURABLE | C.MQSO_MANAGED, True),
        (C.MQSO_ALTER, False),
        (C.MQSO_RESUME, False),
        (C.MQSO_CREATE, False),
        (C.MQSO_CREATE | C.MQSO_RESUME, False),
    ],
)
def test_sub_needs_alter_resume_or_create(options: int, broken: bool) -> None:
    """S3 MQSUB: "At least one of the following must be specified: MQSO_ALTER, MQSO_RESUME,
    MQSO_CREATE"."""
    assert breaks(Call.MQSUB, "sub.action_required", options) is broken


@pytest.mark.parametrize(
    "options",
    [
        C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_NON_DURABLE,
        C.MQSO_CREATE | C.MQSO_NON_DURABLE,
        C.MQSO_CREATE | C.MQSO_DURABLE,
    ],
)
def test_sub_durable_with_non_durable_is_no_error(options: int) -> None:
    """S3 MQSUB: "Only one of the following is allowed: MQSO_DURABLE, MQSO_NON_DURABLE" and
    its note: "as the value of MQSO_NON_DURABLE is zero, specifying it with MQSO_DURABLE
    does not result in reason code MQRC_OPTIONS_ERROR"."""
    assert C.MQSO_NON_DURABLE == 0
    assert breaks(Call.MQSUB, "sub.one_durability", options) is False


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_MANAGED | C.MQSO_SET_CORREL_ID, True),
        (C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID, False),
        (C.MQSO_CREATE | C.MQSO_MANAGED, False),
    ],
)
def test_sub_group_sub_not_with_managed(options: int, broken: bool) -> None:
    """S3 MQSUB: "The combination of MQSO_GROUP_SUB and MQSO_MANAGED is not allowed"."""
    assert breaks(Call.MQSUB, "sub.group_sub_not_managed", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQSO_CREATE | C.MQSO_GROUP_SUB, True),
        (C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID, False),
        (C.MQSO_CREATE | C.MQSO_SET_CORREL_ID, False),
    ],
)
def test_sub_group_sub_needs_set_correl_id(options: int, broken: bool) -> None:
    """S3 MQSUB: "MQSO_GROUP_SUB requires MQSO_SET_CORREL_ID to be specified"."""
    assert breaks(Call.MQSUB, "sub.group_sub_needs_set_correl_id", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQSO_CREATE | C.MQSO_ANY_USERID | C.MQSO_FIXED_USERID, True),
        (C.MQSO_CREATE | C.MQSO_ANY_USERID, False),
        (C.MQSO_CREATE | C.MQSO_FIXED_USERID, False),
    ],
)
def test_sub_only_one_userid_policy(options: int, broken: bool) -> None:
    """S3 MQSUB: "Only one of the following is allowed: MQSO_ANY_USERID,
    MQSO_FIXED_USERID"."""
    assert breaks(Call.MQSUB, "sub.one_userid_policy", options) is broken


_NPO = C.MQSO_NEW_PUBLICATIONS_ONLY


@pytest.mark.parametrize(
    ("options", "original", "broken"),
    [
        (C.MQSO_CREATE | _NPO, None, False),
        (C.MQSO_CREATE | C.MQSO_ALTER | _NPO, None, False),
        (C.MQSO_ALTER | _NPO, C.MQSO_CREATE | _NPO, False),
        (C.MQSO_ALTER | _NPO, C.MQSO_CREATE, True),  # original subscription did not have it
        (C.MQSO_ALTER | _NPO, None, True),  # no original subscription to have had it
        (C.MQSO_RESUME | _NPO, C.MQSO_CREATE | _NPO, True),
        (C.MQSO_RESUME, C.MQSO_CREATE | _NPO, False),
    ],
)
def test_sub_new_publications_only_with_create_or_matching_alter(
    options: int, original: int | None, broken: bool
) -> None:
    """S3 MQSUB: "MQSO_NEW_PUBLICATIONS_ONLY is allowed in combination with: MQSO_CREATE;
    MQSO_ALTER, if MQSO_NEW_PUBLICATIONS_ONLY was set on the original subscription"."""
    context = SubContext(existing_options=original)
    assert breaks(Call.MQSUB, "sub.new_publications_only_with", options, context) is broken


@pytest.mark.parametrize(("sub_level", "broken"), [(0, False), (1, False), (2, True), (9, True)])
def test_sub_publications_on_request_not_with_sub_level_above_1(
    sub_level: int, broken: bool
) -> None:
    """S3 MQSUB: "The combination of MQSO_PUBLICATIONS_ON_REQUEST and SubLevel greater than
    1 is not allowed"."""
    options = C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST
    context = SubContext(sub_level=sub_level)
    assert breaks(Call.MQSUB, "sub.publications_on_request_level", options, context) is broken
    assert breaks(Call.MQSUB, "sub.publications_on_request_level", C.MQSO_CREATE, context) is (
        False
    )


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQSO_CREATE | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC, True),
        (C.MQSO_CREATE | C.MQSO_WILDCARD_CHAR, False),
        (C.MQSO_CREATE | C.MQSO_WILDCARD_TOPIC, False),
    ],
)
def test_sub_only_one_wildcard_scheme(options: int, broken: bool) -> None:
    """S3 MQSUB: "Only one of the following is allowed: MQSO_WILDCARD_CHAR,
    MQSO_WILDCARD_TOPIC"."""
    assert breaks(Call.MQSUB, "sub.one_wildcard_scheme", options) is broken


@pytest.mark.parametrize(
    ("options", "broken"),
    [
        (C.MQSO_CREATE | C.MQSO_NO_MULTICAST, True),
        (C.MQSO_CREATE | C.MQSO_NO_MULTICAST | C.MQSO_MANAGED, False),
    ],
)
def test_sub_no_multicast_needs_managed(options: int, broken: bool) -> None:
    """S3 MQSUB: "MQSO_NO_MULTICAST requires MQSO_MANAGED to be specified"."""
    assert breaks(Call.MQSUB, "sub.no_multicast_needs_managed", options) is broken


# --- Bits that are no option of the call (MQRC_OPTIONS_ERROR's own description) -----


@pytest.mark.parametrize(
    ("call", "rule", "options", "broken"),
    [
        (Call.MQOPEN, "open.defined_bits", C.MQOO_OUTPUT | 0x01000000, True),
        (Call.MQOPEN, "open.defined_bits", -1, True),  # negative MQLONG: bit 31 set
        (Call.MQOPEN, "open.defined_bits", C.MQOO_OUTPUT | C.MQOO_RESOLVE_NAMES, False),
        (Call.MQPUT, "put.defined_bits", C.MQPMO_SYNCPOINT | 0x1, True),
        (Call.MQPUT, "put.defined_bits", C.MQPMO_RETAIN | C.MQPMO_NOT_OWN_SUBS, False),
        (Call.MQPUT1, "put1.defined_bits", 0x00100000, True),
        (Call.MQGET, "get.defined_bits", 0x00080000, True),
        (Call.MQGET, "get.defined_bits", C.MQGMO_BROWSE_HANDLE, False),
        (Call.MQCLOSE, "close.defined_bits", 0x10, True),
        (Call.MQCLOSE, "close.defined_bits", C.MQCO_QUIESCE | C.MQCO_DELETE, False),
        (Call.MQSUB, "sub.defined_bits", C.MQSO_CREATE | 0x400, True),
        (Call.MQSUB, "sub.defined_bits", C.MQSO_CREATE | C.MQSO_SCOPE_QMGR, False),
    ],
)
def test_bits_that_are_no_option_of_the_call(
    call: Call, rule: str, options: int, broken: bool
) -> None:
    """MQRC_OPTIONS_ERROR: "The Options parameter or field contains options that are not
    valid" — e.g. a GMO option passed to MQCLOSE (UNCERTAIN-lite, not seed 003)."""
    assert breaks(call, rule, options) is broken


# --- The public checkers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("checker", "options"),
    [
        (check_open_options, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING),
        (check_open_options, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_BIND_ON_OPEN),
        (check_open_options, C.MQOO_BROWSE | C.MQOO_CO_OP | C.MQOO_INPUT_SHARED),
        (check_put_options, C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_LOGICAL_ORDER),
        (check_put1_options, C.MQPMO_SYNCPOINT | C.MQPMO_ALTERNATE_USER_AUTHORITY),
        (check_get_options, C.MQGMO_WAIT | C.MQGMO_SYNCPOINT | C.MQGMO_CONVERT),
        (check_get_options, C.MQGMO_BROWSE_FIRST | C.MQGMO_LOCK | C.MQGMO_NO_SYNCPOINT),
        (check_close_options, C.MQCO_DELETE_PURGE | C.MQCO_REMOVE_SUB),
        (check_sub_options, C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED),
    ],
)
def test_valid_calls_pass(checker: object, options: int) -> None:
    assert callable(checker)
    assert checker(options) is None


@pytest.mark.parametrize(
    ("checker", "options"),
    [
        (check_open_options, 0),
        (check_put_options, C.MQPMO_ALTERNATE_USER_AUTHORITY),
        (check_put1_options, C.MQPMO_LOGICAL_ORDER),
        (check_get_options, C.MQGMO_WAIT | C.MQGMO_SET_SIGNAL),
        (check_close_options, C.MQCO_DELETE | C.MQCO_DELETE_PURGE),
        (check_sub_options, C.MQSO_DURABLE),
    ],
)
def test_invalid_calls_raise_options_error(checker: object, options: int) -> None:
    assert callable(checker)
    with pytest.raises(MQMIError) as raised:
        checker(options)
    error = raised.value
    assert isinstance(error, MQError)  # one exception root
    assert (error.comp, error.reason) == (2, 2046)
    assert "OPTIONS_ERROR" in error.errorAsString()


def test_check_sub_options_passes_original_options_and_sub_level() -> None:
    check_sub_options(C.MQSO_ALTER | _NPO, existing_sub_options=_NPO)
    with pytest.raises(MQMIError):
        check_sub_options(C.MQSO_ALTER | _NPO, existing_sub_options=0)
    with pytest.raises(MQMIError):
        check_sub_options(C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST, sub_level=2)


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1), st.sampled_from(list(Call)))
def test_check_raises_exactly_when_a_row_is_broken(options: int, call: Call) -> None:
    broken = violations(call, options)
    if broken:
        with pytest.raises(MQMIError) as raised:
            check(call, options)
        assert raised.value.reason == 2046
        assert broken[0].name in raised.value.detail  # the first broken row is named
    else:
        check(call, options)


def test_every_row_has_a_seed_sentence_and_a_unique_name() -> None:
    for call, rules in RULES.items():
        own = [r.name for r in rules]
        assert len(own) == len(set(own)), call
        assert all(r.seed for r in rules), call


def test_every_row_is_cited_by_a_test_in_this_module() -> None:
    source = Path(__file__).read_text()
    untested = {r.name for rules in RULES.values() for r in rules if f'"{r.name}"' not in source}
    assert untested == set()
