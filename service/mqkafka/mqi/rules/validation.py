"""MQRC_OPTIONS_ERROR (2046) rules of MQOPEN, MQPUT, MQPUT1, MQGET, MQCLOSE and MQSUB.

Seed 003 ("Rules for validating MQI options") and reference §9.3 as tables: one row per
seed bullet, the seed's sentence beside it, options named as in CMQC. A checker walks the
table and raises ``MQMIError(MQCC_FAILED, MQRC_OPTIONS_ERROR)`` naming the first broken row.

Zero-valued constants (``MQOO_BIND_AS_Q_DEF``, ``MQSO_NON_DURABLE``, ``MQGMO_NO_WAIT`` ...)
can never be seen in a bit mask, so a row that names them only constrains its non-zero
members; the seed's own notes say so for BIND_AS_Q_DEF and NON_DURABLE. Such members stay
in the table as the seed wrote them, so a reader can compare the two line by line.

One row per call is not from seed 003: bits that are no MQ option for that call at all.
MQ's description of reason 2046 ("the Options parameter or field contains options that are
not valid, or a combination of options that is not valid") covers them (UNCERTAIN-lite).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache

from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import failed


class Call(StrEnum):
    MQOPEN = "MQOPEN"
    MQPUT = "MQPUT"
    MQPUT1 = "MQPUT1"
    MQGET = "MQGET"
    MQCLOSE = "MQCLOSE"
    MQSUB = "MQSUB"


@dataclass(frozen=True)
class SubContext:
    """What MQSUB rules need besides Options.

    ``existing_options`` are the Options of the subscription being altered or resumed
    (``None`` when there is none); ``sub_level`` is ``MQSD.SubLevel``.
    """

    existing_options: int | None = None
    sub_level: int = 1


NO_CONTEXT = SubContext()


def _mask(names: tuple[str, ...]) -> int:
    value = 0
    for name in names:
        value |= int(getattr(C, name))  # AttributeError at import for a misspelt name
    return value


# Each row turns its option names into bit masks once, when the table is built; a check is
# then a few integer operations per row.


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One row: ``name`` is stable (tests cite it), ``seed`` is the sentence it encodes."""

    name: str
    seed: str
    note: str = ""

    def violated(self, options: int, context: SubContext) -> bool:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class AtLeastOne(Rule):
    """At least one of ``members`` must be specified (only non-zero members can be seen)."""

    members: tuple[str, ...]

    @cached_property
    def _members(self) -> int:
        return _mask(self.members)

    def violated(self, options: int, context: SubContext) -> bool:
        return options & self._members == 0


@dataclass(frozen=True, kw_only=True)
class AtMostOne(Rule):
    """Only one of ``members`` is allowed (each member is one bit, or zero)."""

    members: tuple[str, ...]

    def __post_init__(self) -> None:
        if any(_mask((name,)).bit_count() > 1 for name in self.members):
            raise AssertionError(f"{self.name}: a member is not a single option bit")

    @cached_property
    def _members(self) -> int:
        return _mask(self.members)

    def violated(self, options: int, context: SubContext) -> bool:
        return (options & self._members).bit_count() > 1


@dataclass(frozen=True, kw_only=True)
class NotWith(Rule):
    """``option`` is not allowed together with any of ``others``."""

    option: str
    others: tuple[str, ...]

    @cached_property
    def _masks(self) -> tuple[int, int]:
        return _mask((self.option,)), _mask(self.others)

    def violated(self, options: int, context: SubContext) -> bool:
        option, others = self._masks
        return bool(options & option) and bool(options & others)


@dataclass(frozen=True, kw_only=True)
class Requires(Rule):
    """If any of ``triggers`` is specified, at least one of ``needs`` must be too."""

    triggers: tuple[str, ...]
    needs: tuple[str, ...]

    @cached_property
    def _masks(self) -> tuple[int, int]:
        return _mask(self.triggers), _mask(self.needs)

    def violated(self, options: int, context: SubContext) -> bool:
        triggers, needs = self._masks
        return bool(options & triggers) and not options & needs


@dataclass(frozen=True, kw_only=True)
class NotAllowed(Rule):
    """``option`` is not allowed on this call."""

    option: str

    @cached_property
    def _option(self) -> int:
        return _mask((self.option,))

    def violated(self, options: int, context: SubContext) -> bool:
        return bool(options & self._option)


@dataclass(frozen=True, kw_only=True)
class OnlyAlongside(Rule):
    """If ``option`` is specified, nothing but ``allowed`` may accompany it."""

    option: str
    allowed: tuple[str, ...]

    @cached_property
    def _masks(self) -> tuple[int, int]:
        return _mask((self.option,)), ~_mask((self.option, *self.allowed))

    def violated(self, options: int, context: SubContext) -> bool:
        option, others = self._masks
        return bool(options & option) and bool(options & others)


@dataclass(frozen=True, kw_only=True)
class OnlyDefined(Rule):
    """Every set bit must be an option this call knows (a negative MQLONG sets bit 31)."""

    known: tuple[str, ...]

    @cached_property
    def _unknown(self) -> int:
        return ~_mask(self.known)

    def violated(self, options: int, context: SubContext) -> bool:
        return options & self._unknown != 0


@dataclass(frozen=True, kw_only=True)
class NewPublicationsOnlyWith(Rule):
    """NEW_PUBLICATIONS_ONLY with CREATE, or with ALTER when the original had it."""

    def violated(self, options: int, context: SubContext) -> bool:
        if not options & C.MQSO_NEW_PUBLICATIONS_ONLY or options & C.MQSO_CREATE:
            return False
        original = context.existing_options
        had_it = original is not None and bool(original & C.MQSO_NEW_PUBLICATIONS_ONLY)
        return not (options & C.MQSO_ALTER and had_it)


@dataclass(frozen=True, kw_only=True)
class PublicationsOnRequestLevel(Rule):
    """PUBLICATIONS_ON_REQUEST is not allowed with SubLevel greater than 1."""

    def violated(self, options: int, context: SubContext) -> bool:
        return bool(options & C.MQSO_PUBLICATIONS_ON_REQUEST) and context.sub_level > 1


def _names(*groups: str) -> tuple[str, ...]:
    """Option names written as the seed lists them: blank-separated, in one or more strings."""
    return tuple(name for group in groups for name in group.split())


_BROWSE = "MQGMO_BROWSE_FIRST MQGMO_BROWSE_MSG_UNDER_CURSOR MQGMO_BROWSE_NEXT"
_INPUT = "MQOO_INPUT_EXCLUSIVE MQOO_INPUT_SHARED MQOO_INPUT_AS_Q_DEF"
_DEFINED = "(MQRC_OPTIONS_ERROR: the Options contain options that are not valid)"

OPEN_RULES: tuple[Rule, ...] = (
    AtLeastOne(
        name="open.access_required",
        seed="At least one of the following must be specified: MQOO_BROWSE, "
        "MQOO_INPUT_EXCLUSIVE, MQOO_INPUT_SHARED, MQOO_INPUT_AS_Q_DEF, MQOO_INQUIRE, "
        "MQOO_OUTPUT, MQOO_SET, MQOO_BIND_ON_OPEN, MQOO_BIND_NOT_FIXED, MQOO_BIND_ON_GROUP, "
        "MQOO_BIND_AS_Q_DEF",
        # Reference §10.11 choice: BIND_AS_Q_DEF is 0, so read literally Options == 0 would
        # pass; we answer 2046 because no access was requested (UNCERTAIN).
        note="§10.11: Options without any non-zero member (e.g. 0) -> 2046",
        members=_names(
            "MQOO_BROWSE",
            _INPUT,
            "MQOO_INQUIRE MQOO_OUTPUT MQOO_SET MQOO_BIND_ON_OPEN MQOO_BIND_NOT_FIXED",
            "MQOO_BIND_ON_GROUP MQOO_BIND_AS_Q_DEF",
        ),
    ),
    AtMostOne(
        name="open.one_read_ahead",
        seed="Only one of the following is allowed: MQOO_READ_AHEAD, MQOO_NO_READ_AHEAD, "
        "MQOO_READ_AHEAD_AS_Q_DEF",
        note="MQOO_READ_AHEAD_AS_Q_DEF is zero and never conflicts",
        members=_names("MQOO_READ_AHEAD MQOO_NO_READ_AHEAD MQOO_READ_AHEAD_AS_Q_DEF"),
    ),
    AtMostOne(
        name="open.one_input",
        seed="Only one of the following is allowed: MQOO_INPUT_EXCLUSIVE, MQOO_INPUT_SHARED, "
        "MQOO_INPUT_AS_Q_DEF",
        members=_names(_INPUT),
    ),
    AtMostOne(
        name="open.one_bind",
        seed="Only one of the following is allowed: MQOO_BIND_ON_OPEN, MQOO_BIND_NOT_FIXED, "
        "MQOO_BIND_ON_GROUP, MQOO_BIND_AS_Q_DEF",
        note="seed note: MQOO_BIND_AS_Q_DEF is zero, so it never gives MQRC_OPTIONS_ERROR",
        members=_names(
            "MQOO_BIND_ON_OPEN MQOO_BIND_NOT_FIXED MQOO_BIND_ON_GROUP MQOO_BIND_AS_Q_DEF"
        ),
    ),
    Requires(
        name="open.save_all_context_needs_input",
        seed="If MQOO_SAVE_ALL_CONTEXT is specified, one of the MQOO_INPUT_* options must "
        "also be specified.",
        triggers=_names("MQOO_SAVE_ALL_CONTEXT"),
        needs=_names(_INPUT),
    ),
    Requires(
        name="open.context_needs_output",
        seed="If one of the MQOO_SET_*_CONTEXT or MQOO_PASS_*_CONTEXT options are specified, "
        "MQOO_OUTPUT must also be specified.",
        triggers=_names(
            "MQOO_SET_IDENTITY_CONTEXT MQOO_SET_ALL_CONTEXT",
            "MQOO_PASS_IDENTITY_CONTEXT MQOO_PASS_ALL_CONTEXT",
        ),
        needs=_names("MQOO_OUTPUT"),
    ),
    Requires(
        name="open.co_op_needs_browse",
        seed="If MQOO_CO_OP is specified, MQOO_BROWSE must also be specified",
        triggers=_names("MQOO_CO_OP"),
        needs=_names("MQOO_BROWSE"),
    ),
    Requires(
        name="open.no_multicast_needs_output",
        seed="If MQOO_NO_MULTICAST is specified, MQOO_OUTPUT must also be specified.",
        triggers=_names("MQOO_NO_MULTICAST"),
        needs=_names("MQOO_OUTPUT"),
    ),
    OnlyDefined(
        name="open.defined_bits",
        seed=_DEFINED,
        known=_names(
            "MQOO_BROWSE",
            _INPUT,
            "MQOO_INQUIRE MQOO_OUTPUT MQOO_SET MQOO_SAVE_ALL_CONTEXT",
            "MQOO_PASS_IDENTITY_CONTEXT MQOO_PASS_ALL_CONTEXT",
            "MQOO_SET_IDENTITY_CONTEXT MQOO_SET_ALL_CONTEXT",
            "MQOO_ALTERNATE_USER_AUTHORITY MQOO_FAIL_IF_QUIESCING",
            "MQOO_BIND_ON_OPEN MQOO_BIND_NOT_FIXED MQOO_BIND_ON_GROUP",
            "MQOO_RESOLVE_NAMES MQOO_CO_OP MQOO_RESOLVE_LOCAL_Q",
            "MQOO_NO_READ_AHEAD MQOO_READ_AHEAD MQOO_NO_MULTICAST",
        ),
    ),
)

_PUT_KNOWN = _names(
    "MQPMO_SYNCPOINT MQPMO_NO_SYNCPOINT MQPMO_DEFAULT_CONTEXT MQPMO_NEW_MSG_ID",
    "MQPMO_NEW_CORREL_ID MQPMO_PASS_IDENTITY_CONTEXT MQPMO_PASS_ALL_CONTEXT",
    "MQPMO_SET_IDENTITY_CONTEXT MQPMO_SET_ALL_CONTEXT MQPMO_ALTERNATE_USER_AUTHORITY",
    "MQPMO_FAIL_IF_QUIESCING MQPMO_NO_CONTEXT MQPMO_LOGICAL_ORDER",
    "MQPMO_ASYNC_RESPONSE MQPMO_SYNC_RESPONSE MQPMO_RESOLVE_LOCAL_Q",
    "MQPMO_WARN_IF_NO_SUBS_MATCHED MQPMO_RETAIN MQPMO_MD_FOR_OUTPUT_ONLY",
    "MQPMO_SCOPE_QMGR MQPMO_SUPPRESS_REPLYTO MQPMO_NOT_OWN_SUBS",
)

_PUT_COMMON: tuple[Rule, ...] = (
    AtMostOne(
        name="put.syncpoint_pair",
        seed="The combination of MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT is not allowed.",
        members=_names("MQPMO_SYNCPOINT MQPMO_NO_SYNCPOINT"),
    ),
    AtMostOne(
        name="put.one_context",
        seed="Only one of the following is allowed: MQPMO_DEFAULT_CONTEXT, MQPMO_NO_CONTEXT, "
        "MQPMO_PASS_ALL_CONTEXT, MQPMO_PASS_IDENTITY_CONTEXT, MQPMO_SET_ALL_CONTEXT, "
        "MQPMO_SET_IDENTITY_CONTEXT",
        members=_names(
            "MQPMO_DEFAULT_CONTEXT MQPMO_NO_CONTEXT MQPMO_PASS_ALL_CONTEXT",
            "MQPMO_PASS_IDENTITY_CONTEXT MQPMO_SET_ALL_CONTEXT MQPMO_SET_IDENTITY_CONTEXT",
        ),
    ),
    AtMostOne(
        name="put.one_response",
        seed="Only one of the following is allowed: MQPMO_ASYNC_RESPONSE, "
        "MQPMO_SYNC_RESPONSE, MQPMO_RESPONSE_AS_TOPIC_DEF, MQPMO_RESPONSE_AS_Q_DEF",
        note="the two MQPMO_RESPONSE_AS_*_DEF are zero and never conflict",
        members=_names(
            "MQPMO_ASYNC_RESPONSE MQPMO_SYNC_RESPONSE",
            "MQPMO_RESPONSE_AS_TOPIC_DEF MQPMO_RESPONSE_AS_Q_DEF",
        ),
    ),
)

PUT_RULES: tuple[Rule, ...] = (
    *_PUT_COMMON,
    NotAllowed(
        name="put.no_alternate_user_authority",
        seed="MQPMO_ALTERNATE_USER_AUTHORITY is not allowed (it is valid only on the MQPUT1 call).",
        option="MQPMO_ALTERNATE_USER_AUTHORITY",
    ),
    OnlyDefined(name="put.defined_bits", seed=_DEFINED, known=_PUT_KNOWN),
)

PUT1_RULES: tuple[Rule, ...] = (
    # "the same as for the MQPUT call, except ... MQPMO_ALTERNATE_USER_AUTHORITY is allowed":
    # the MQPUT-only row is simply absent from this table.
    *_PUT_COMMON,
    NotAllowed(
        name="put1.no_logical_order",
        seed="MQPMO_LOGICAL_ORDER is not allowed.",
        option="MQPMO_LOGICAL_ORDER",
    ),
    OnlyDefined(name="put1.defined_bits", seed=_DEFINED, known=_PUT_KNOWN),
)

GET_RULES: tuple[Rule, ...] = (
    AtMostOne(
        name="get.one_syncpoint",
        seed="Only one of the following is allowed: MQGMO_NO_SYNCPOINT, MQGMO_SYNCPOINT, "
        "MQGMO_SYNCPOINT_IF_PERSISTENT",
        members=_names("MQGMO_NO_SYNCPOINT MQGMO_SYNCPOINT MQGMO_SYNCPOINT_IF_PERSISTENT"),
    ),
    AtMostOne(
        name="get.one_browse",
        seed="Only one of the following is allowed: MQGMO_BROWSE_FIRST, "
        "MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, MQGMO_MSG_UNDER_CURSOR",
        members=_names(_BROWSE, "MQGMO_MSG_UNDER_CURSOR"),
    ),
    NotWith(
        name="get.syncpoint_not_with_browse_or_lock",
        seed="MQGMO_SYNCPOINT is not allowed with any of the following: MQGMO_BROWSE_FIRST, "
        "MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, MQGMO_LOCK, MQGMO_UNLOCK",
        option="MQGMO_SYNCPOINT",
        others=_names(_BROWSE, "MQGMO_LOCK MQGMO_UNLOCK"),
    ),
    NotWith(
        name="get.syncpoint_if_persistent_not_with",
        seed="MQGMO_SYNCPOINT_IF_PERSISTENT is not allowed with any of the following: "
        "MQGMO_BROWSE_FIRST, MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT, "
        "MQGMO_COMPLETE_MSG, MQGMO_UNLOCK",
        option="MQGMO_SYNCPOINT_IF_PERSISTENT",
        others=_names(_BROWSE, "MQGMO_COMPLETE_MSG MQGMO_UNLOCK"),
    ),
    Requires(
        name="get.mark_skip_backout_needs_syncpoint",
        seed="MQGMO_MARK_SKIP_BACKOUT requires MQGMO_SYNCPOINT to be specified.",
        triggers=_names("MQGMO_MARK_SKIP_BACKOUT"),
        needs=_names("MQGMO_SYNCPOINT"),
    ),
    NotWith(
        name="get.wait_not_with_set_signal",
        seed="The combination of MQGMO_WAIT and MQGMO_SET_SIGNAL is not allowed.",
        option="MQGMO_WAIT",
        others=_names("MQGMO_SET_SIGNAL"),
    ),
    Requires(
        name="get.lock_needs_browse",
        seed="If MQGMO_LOCK is specified, one of the following must also be specified: "
        "MQGMO_BROWSE_FIRST, MQGMO_BROWSE_MSG_UNDER_CURSOR, MQGMO_BROWSE_NEXT",
        triggers=_names("MQGMO_LOCK"),
        needs=_names(_BROWSE),
    ),
    OnlyAlongside(
        name="get.unlock_alone",
        seed="If MQGMO_UNLOCK is specified, only the following values are allowed: "
        "MQGMO_NO_SYNCPOINT, MQGMO_NO_WAIT",
        # Reference §10.12 choice: read literally, so FAIL_IF_QUIESCING or
        # ACCEPT_TRUNCATED_MSG with UNLOCK is 2046 too (NO_WAIT is zero, always allowed).
        note="§10.12: literal reading",
        option="MQGMO_UNLOCK",
        allowed=_names("MQGMO_NO_SYNCPOINT MQGMO_NO_WAIT"),
    ),
    OnlyDefined(
        name="get.defined_bits",
        seed=_DEFINED,
        known=_names(
            "MQGMO_WAIT MQGMO_SYNCPOINT MQGMO_NO_SYNCPOINT MQGMO_SET_SIGNAL",
            _BROWSE,
            "MQGMO_ACCEPT_TRUNCATED_MSG MQGMO_MARK_SKIP_BACKOUT MQGMO_MSG_UNDER_CURSOR",
            "MQGMO_LOCK MQGMO_UNLOCK MQGMO_SYNCPOINT_IF_PERSISTENT MQGMO_FAIL_IF_QUIESCING",
            "MQGMO_CONVERT MQGMO_LOGICAL_ORDER MQGMO_COMPLETE_MSG MQGMO_ALL_MSGS_AVAILABLE",
            "MQGMO_ALL_SEGMENTS_AVAILABLE MQGMO_MARK_BROWSE_HANDLE MQGMO_MARK_BROWSE_CO_OP",
            "MQGMO_UNMARK_BROWSE_CO_OP MQGMO_UNMARK_BROWSE_HANDLE MQGMO_UNMARKED_BROWSE_MSG",
            "MQGMO_PROPERTIES_FORCE_MQRFH2 MQGMO_NO_PROPERTIES MQGMO_PROPERTIES_IN_HANDLE",
            "MQGMO_PROPERTIES_COMPATIBILITY",
        ),
    ),
)

CLOSE_RULES: tuple[Rule, ...] = (
    AtMostOne(
        name="close.delete_pair",
        seed="The combination of MQCO_DELETE and MQCO_DELETE_PURGE is not allowed.",
        members=_names("MQCO_DELETE MQCO_DELETE_PURGE"),
    ),
    AtMostOne(
        name="close.one_sub_disposition",
        seed="Only one of the following is allowed: MQCO_KEEP_SUB, MQCO_REMOVE_SUB",
        members=_names("MQCO_KEEP_SUB MQCO_REMOVE_SUB"),
    ),
    OnlyDefined(
        name="close.defined_bits",
        seed=_DEFINED,
        known=_names("MQCO_DELETE MQCO_DELETE_PURGE MQCO_KEEP_SUB MQCO_REMOVE_SUB MQCO_QUIESCE"),
    ),
)

SUB_RULES: tuple[Rule, ...] = (
    AtLeastOne(
        name="sub.action_required",
        seed="At least one of the following must be specified: MQSO_ALTER, MQSO_RESUME, "
        "MQSO_CREATE",
        members=_names("MQSO_ALTER MQSO_RESUME MQSO_CREATE"),
    ),
    AtMostOne(
        name="sub.one_durability",
        seed="Only one of the following is allowed: MQSO_DURABLE, MQSO_NON_DURABLE",
        note="seed note: MQSO_NON_DURABLE is zero, so this row can never fire",
        members=_names("MQSO_DURABLE MQSO_NON_DURABLE"),
    ),
    NotWith(
        name="sub.group_sub_not_managed",
        seed="The combination of MQSO_GROUP_SUB and MQSO_MANAGED is not allowed.",
        option="MQSO_GROUP_SUB",
        others=_names("MQSO_MANAGED"),
    ),
    Requires(
        name="sub.group_sub_needs_set_correl_id",
        seed="MQSO_GROUP_SUB requires MQSO_SET_CORREL_ID to be specified.",
        triggers=_names("MQSO_GROUP_SUB"),
        needs=_names("MQSO_SET_CORREL_ID"),
    ),
    AtMostOne(
        name="sub.one_userid_policy",
        seed="Only one of the following is allowed: MQSO_ANY_USERID, MQSO_FIXED_USERID",
        members=_names("MQSO_ANY_USERID MQSO_FIXED_USERID"),
    ),
    NewPublicationsOnlyWith(
        name="sub.new_publications_only_with",
        seed="MQSO_NEW_PUBLICATIONS_ONLY is allowed in combination with: MQSO_CREATE; "
        "MQSO_ALTER, if MQSO_NEW_PUBLICATIONS_ONLY was set on the original subscription",
    ),
    PublicationsOnRequestLevel(
        name="sub.publications_on_request_level",
        seed="The combination of MQSO_PUBLICATIONS_ON_REQUEST and SubLevel greater than 1 is "
        "not allowed.",
    ),
    AtMostOne(
        name="sub.one_wildcard_scheme",
        seed="Only one of the following is allowed: MQSO_WILDCARD_CHAR, MQSO_WILDCARD_TOPIC",
        members=_names("MQSO_WILDCARD_CHAR MQSO_WILDCARD_TOPIC"),
    ),
    Requires(
        name="sub.no_multicast_needs_managed",
        seed="MQSO_NO_MULTICAST requires MQSO_MANAGED to be specified.",
        triggers=_names("MQSO_NO_MULTICAST"),
        needs=_names("MQSO_MANAGED"),
    ),
    OnlyDefined(
        name="sub.defined_bits",
        seed=_DEFINED,
        known=_names(
            "MQSO_ALTER MQSO_CREATE MQSO_RESUME MQSO_DURABLE MQSO_GROUP_SUB MQSO_MANAGED",
            "MQSO_SET_IDENTITY_CONTEXT MQSO_NO_MULTICAST MQSO_FIXED_USERID MQSO_ANY_USERID",
            "MQSO_PUBLICATIONS_ON_REQUEST MQSO_NEW_PUBLICATIONS_ONLY MQSO_FAIL_IF_QUIESCING",
            "MQSO_ALTERNATE_USER_AUTHORITY MQSO_WILDCARD_CHAR MQSO_WILDCARD_TOPIC",
            "MQSO_SET_CORREL_ID MQSO_SCOPE_QMGR MQSO_NO_READ_AHEAD MQSO_READ_AHEAD",
        ),
    ),
)

RULES: dict[Call, tuple[Rule, ...]] = {
    Call.MQOPEN: OPEN_RULES,
    Call.MQPUT: PUT_RULES,
    Call.MQPUT1: PUT1_RULES,
    Call.MQGET: GET_RULES,
    Call.MQCLOSE: CLOSE_RULES,
    Call.MQSUB: SUB_RULES,
}


def violations(call: Call, options: int, context: SubContext = NO_CONTEXT) -> list[Rule]:
    """Every row of ``call``'s table that ``options`` break, in table order."""
    return [rule for rule in RULES[call] if rule.violated(options, context)]


@lru_cache(maxsize=4096)  # applications use a handful of option values, again and again
def first_violation(call: Call, options: int, context: SubContext = NO_CONTEXT) -> Rule | None:
    """The first row of ``call``'s table that ``options`` break, or None."""
    return next((rule for rule in RULES[call] if rule.violated(options, context)), None)


def check(call: Call, options: int, context: SubContext = NO_CONTEXT) -> None:
    """Raise ``MQMIError(MQCC_FAILED, MQRC_OPTIONS_ERROR)`` naming the first broken row."""
    rule = first_violation(call, options, context)
    if rule is not None:
        raise failed(RC.OPTIONS_ERROR, f"{call} {rule.name}: {rule.seed}")


def check_open_options(options: int) -> None:
    check(Call.MQOPEN, options)


def check_put_options(options: int) -> None:
    check(Call.MQPUT, options)


def check_put1_options(options: int) -> None:
    check(Call.MQPUT1, options)


def check_get_options(options: int) -> None:
    check(Call.MQGET, options)


def check_close_options(options: int) -> None:
    check(Call.MQCLOSE, options)


def check_sub_options(
    options: int, existing_sub_options: int | None = None, sub_level: int = 1
) -> None:
    """MQSUB rules; pass the original subscription's Options when altering or resuming."""
    check(Call.MQSUB, options, SubContext(existing_sub_options, sub_level))


__all__ = [
    "RULES",
    "Call",
    "Rule",
    "SubContext",
    "check",
    "check_close_options",
    "check_get_options",
    "check_open_options",
    "check_put1_options",
    "check_put_options",
    "check_sub_options",
    "first_violation",
    "violations",
]
