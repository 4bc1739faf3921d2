"""Seed 003 "Rules for validating MQI options", through the real calls on Kafka.

One case per rule of ``mqkafka.mqi.rules.validation.RULES`` (a test checks that none is missing):
the options break that rule and no other, and the call - MQOPEN, MQPUT, MQPUT1, MQGET,
MQCLOSE or MQSUB as the connected API makes it - fails with MQCC_FAILED and
MQRC_OPTIONS_ERROR (2046), changing nothing. The two rules the seed's notes say can never
fire (zero-valued members) are checked the other way round: the call is not refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, PMO, SD, MQMIError
from mqkafka.mqi.kafkaqm.pubsub import Subscription
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.validation import RULES, Call, SubContext, first_violation

pytestmark = pytest.mark.kafka

IN = C.MQOO_INPUT_SHARED


@dataclass(frozen=True)
class Case:
    call: Call
    rule: str
    options: int
    sub_level: int = 1


CASES = [
    # MQOPEN
    Case(Call.MQOPEN, "open.access_required", C.MQOO_FAIL_IF_QUIESCING),
    Case(Call.MQOPEN, "open.one_read_ahead", IN | C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD),
    Case(Call.MQOPEN, "open.one_input", C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE),
    Case(Call.MQOPEN, "open.one_bind", C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED),
    Case(Call.MQOPEN, "open.save_all_context_needs_input", C.MQOO_BROWSE | C.MQOO_SAVE_ALL_CONTEXT),
    Case(Call.MQOPEN, "open.context_needs_output", IN | C.MQOO_SET_ALL_CONTEXT),
    Case(Call.MQOPEN, "open.co_op_needs_browse", IN | C.MQOO_CO_OP),
    Case(Call.MQOPEN, "open.no_multicast_needs_output", IN | C.MQOO_NO_MULTICAST),
    Case(Call.MQOPEN, "open.defined_bits", IN | 0x40000000),
    # MQPUT
    Case(Call.MQPUT, "put.syncpoint_pair", C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT),
    Case(Call.MQPUT, "put.one_context", C.MQPMO_NO_CONTEXT | C.MQPMO_SET_ALL_CONTEXT),
    Case(Call.MQPUT, "put.one_response", C.MQPMO_ASYNC_RESPONSE | C.MQPMO_SYNC_RESPONSE),
    Case(Call.MQPUT, "put.no_alternate_user_authority", C.MQPMO_ALTERNATE_USER_AUTHORITY),
    Case(Call.MQPUT, "put.defined_bits", 0x20000000),
    # MQPUT1
    Case(Call.MQPUT1, "put.syncpoint_pair", C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT),
    Case(Call.MQPUT1, "put.one_context", C.MQPMO_DEFAULT_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT),
    Case(Call.MQPUT1, "put.one_response", C.MQPMO_ASYNC_RESPONSE | C.MQPMO_SYNC_RESPONSE),
    Case(Call.MQPUT1, "put1.no_logical_order", C.MQPMO_LOGICAL_ORDER),
    Case(Call.MQPUT1, "put1.defined_bits", 0x20000000),
    # MQGET
    Case(Call.MQGET, "get.one_syncpoint", C.MQGMO_SYNCPOINT | C.MQGMO_NO_SYNCPOINT),
    Case(Call.MQGET, "get.one_browse", C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT),
    Case(Call.MQGET, "get.syncpoint_not_with_browse_or_lock",
         C.MQGMO_SYNCPOINT | C.MQGMO_BROWSE_NEXT),
    Case(Call.MQGET, "get.syncpoint_if_persistent_not_with",
         C.MQGMO_SYNCPOINT_IF_PERSISTENT | C.MQGMO_COMPLETE_MSG),
    Case(Call.MQGET, "get.mark_skip_backout_needs_syncpoint", C.MQGMO_MARK_SKIP_BACKOUT),
    Case(Call.MQGET, "get.wait_not_with_set_signal", C.MQGMO_WAIT | C.MQGMO_SET_SIGNAL),
    Case(Call.MQGET, "get.lock_needs_browse", C.MQGMO_LOCK),
    Case(Call.MQGET, "get.unlock_alone", C.MQGMO_UNLOCK | C.MQGMO_ACCEPT_TRUNCATED_MSG),
    Case(Call.MQGET, "get.defined_bits", 0x40000000),
    # MQCLOSE
    Case(Call.MQCLOSE, "close.delete_pair", C.MQCO_DELETE | C.MQCO_DELETE_PURGE),
    Case(Call.MQCLOSE, "close.one_sub_disposition", C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB),
    Case(Call.MQCLOSE, "close.defined_bits", 0x100),
    # MQSUB
    Case(Call.MQSUB, "sub.action_required", C.MQSO_DURABLE),
    Case(Call.MQSUB, "sub.group_sub_not_managed",
         C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_MANAGED | C.MQSO_SET_CORREL_ID),
    Case(Call.MQSUB, "sub.group_sub_needs_set_correl_id", C.MQSO_CREATE | C.MQSO_GROUP_SUB),
    Case(Call.MQSUB, "sub.one_userid_policy",
         C.MQSO_CREATE | C.MQSO_ANY_USERID | C.MQSO_FIXED_USERID),
    Case(Call.MQSUB, "sub.new_publications_only_with", C.MQSO_ALTER | C.MQSO_NEW_PUBLICATIONS_ONLY),
    Case(Call.MQSUB, "sub.publications_on_request_level",
         C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST, sub_level=2),
    Case(Call.MQSUB, "sub.one_wildcard_scheme",
         C.MQSO_CREATE | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC),
    Case(Call.MQSUB, "sub.no_multicast_needs_managed", C.MQSO_CREATE | C.MQSO_NO_MULTICAST),
    Case(Call.MQSUB, "sub.defined_bits", C.MQSO_CREATE | 0x400),
]  # fmt: skip

# Rows that can never fire: their only other member is zero (the seed's own notes).
NEVER_FIRES = {"sub.one_durability": C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_NON_DURABLE}


def test_every_rule_of_seed_003_has_a_case() -> None:
    covered = {(case.call, case.rule) for case in CASES}
    every = {(call, rule.name) for call, rules in RULES.items() for rule in rules}
    assert every - covered == {(Call.MQSUB, rule) for rule in NEVER_FIRES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.call}-{c.rule}")
def test_each_case_breaks_exactly_its_rule(case: Case) -> None:
    violation = first_violation(case.call, case.options, SubContext(None, case.sub_level))
    assert violation is not None and violation.name == case.rule


@pytest.fixture(scope="module")
def setup(kafka_bootstrap: str, namespace: str) -> Iterator[tuple[QueueManager, str]]:
    import uuid

    qmgr = QueueManager("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    name = f"SEED3.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name)
    qmgr.put1(name, b"stays")
    yield qmgr, name
    qmgr.disconnect()


def call_with(case: Case, qmgr: QueueManager, name: str) -> Callable[[], object]:
    if case.call is Call.MQOPEN:
        return lambda: Queue(qmgr, name, case.options)
    if case.call is Call.MQPUT:
        queue = Queue(qmgr, name, C.MQOO_OUTPUT)
        return lambda: queue.put(b"x", MD(), PMO(Options=case.options))
    if case.call is Call.MQPUT1:
        return lambda: qmgr.put1(name, b"x", MD(), PMO(Options=case.options))
    if case.call is Call.MQGET:
        queue = Queue(qmgr, name, IN | C.MQOO_BROWSE)
        return lambda: queue.get(None, MD(), GMO(Options=case.options))
    if case.call is Call.MQCLOSE:
        queue = Queue(qmgr, name, C.MQOO_OUTPUT)
        return lambda: queue.close(case.options)
    sd = SD(Options=case.options, ObjectString=b"Seed/003", SubLevel=case.sub_level)
    return lambda: Subscription(qmgr).sub(sub_desc=sd, sub_queue=Queue(qmgr, name, IN))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.call}-{c.rule}")
def test_the_call_fails_with_options_error(case: Case, setup: tuple[QueueManager, str]) -> None:
    """S3: "This section lists the situations that produce an MQRC_OPTIONS_ERROR reason code
    from an MQOPEN, MQPUT, MQPUT1, MQGET, MQCLOSE, or MQSUB call." """
    qmgr, name = setup
    call = call_with(case, qmgr, name)
    with pytest.raises(MQMIError) as raised:
        call()
    assert (raised.value.comp, raised.value.reason) == (C.MQCC_FAILED, RC.OPTIONS_ERROR)
    assert case.rule in raised.value.detail
    assert qmgr.queue_depth(name) == 1  # nothing was put, nothing was got


def test_durable_and_non_durable_together_is_no_options_error(
    setup: tuple[QueueManager, str],
) -> None:
    """S3 note: "as the value of MQSO_NON_DURABLE is zero, specifying it with MQSO_DURABLE
    does not result in reason code MQRC_OPTIONS_ERROR"."""
    qmgr, name = setup
    sd = SD(Options=NEVER_FIRES["sub.one_durability"], ObjectString=b"Seed/003")
    with pytest.raises(MQMIError) as raised:  # refused later, for another reason
        Subscription(qmgr).sub(sub_desc=sd, sub_queue=Queue(qmgr, name, IN))
    assert raised.value.reason == RC.SUB_NAME_ERROR  # a durable subscription needs a name


def test_bind_as_q_def_with_another_bind_option_is_no_options_error(
    setup: tuple[QueueManager, str],
) -> None:
    """S3 note: "as the value of MQOO_BIND_AS_Q_DEF is zero, specifying it with either of the
    other two bind options does not result in reason code MQRC_OPTIONS_ERROR"."""
    qmgr, name = setup
    Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_BIND_AS_Q_DEF | C.MQOO_BIND_ON_OPEN).close()
