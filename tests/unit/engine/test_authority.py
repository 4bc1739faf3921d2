"""The authority port: allow-all by default, an ACL file, partial authority as warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqkafka.engine.authority import ALLOW_ALL, AclError, AclPolicy
from mqkafka.engine.topicspace import ROOT
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from mqkafka.mq.topics import Namespace
from mqkafka.service.aclfile import load_acl_policy
from tests.unit.engine.driver import BrokerDriver

RULES = """
# queues
allow put      *      SYSTEM.BROKER.*
allow put      fred   FRED.*
allow put      *      APP.REPLY
allow browse   fred   *
# topics
deny  subscribe *     Sport/Secret/#
allow subscribe *     Sport/#
allow publish   fred  *
allow *         admin *
"""


@pytest.mark.parametrize(
    ("method", "args", "allowed"),
    [
        ("may_put", ("bob", "SYSTEM.BROKER.CONTROL.QUEUE"), True),
        ("may_put", ("bob", "FRED.Q"), False),
        ("may_put", ("fred", "FRED.Q"), True),
        ("may_browse", ("fred", "SYSTEM.BROKER.DEFAULT.STREAM"), True),
        ("may_browse", ("bob", "SYSTEM.BROKER.DEFAULT.STREAM"), False),
        ("may_subscribe", ("bob", ROOT, "Sport/Soccer/#"), True),
        ("may_subscribe", ("bob", ROOT, "Sport/Secret/x"), False),  # first matching rule
        ("may_subscribe", ("bob", ROOT, "News"), False),  # no rule: no
        ("may_subscribe", ("bob", Namespace.subpoint("Sport"), "Soccer"), True),  # <ns>/<topic>
        ("may_publish", ("fred", ROOT, "anything"), True),
        ("may_publish", ("bob", ROOT, "anything"), False),
        ("may_publish", ("admin", ROOT, "anything"), True),
    ],
)
def test_acl_decisions(method: str, args: tuple[object, ...], allowed: bool) -> None:
    policy = AclPolicy.parse(RULES)
    assert getattr(policy, method)(*args) is allowed
    assert getattr(ALLOW_ALL, method)(*args) is True


def test_acl_loads_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "acl.txt"
    path.write_text(RULES, encoding="utf-8")
    assert load_acl_policy(path).may_put("fred", "FRED.X")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"allow put fred",
            "acl.txt:2: a rule is 'allow|deny ACTION USER RESOURCE': 3 words, not 4",
        ),
        (
            b"allow put * Q extra",
            "acl.txt:2: a rule is 'allow|deny ACTION USER RESOURCE': 5 words, not 4",
        ),
        (b"permit put * *", "acl.txt:2: a rule starts with allow or deny, not 'permit'"),
        (b"Allow put * *", "acl.txt:2: a rule starts with allow or deny, not 'Allow'"),
        (
            b"allow read * *",
            "acl.txt:2: unknown action 'read' (one of put, browse, subscribe, publish, setid or *)",
        ),
        (
            b"\n  deny  put\t*",
            "acl.txt:3: a rule is 'allow|deny ACTION USER RESOURCE': 3 words, not 4",
        ),
        (
            b"allow \x1b[2J * *",  # a control character is shown escaped, not sent to a terminal
            "acl.txt:2: unknown action '\\x1b[2J'"
            " (one of put, browse, subscribe, publish, setid or *)",
        ),
        (
            b"allow put * Q\rallow x * Q",
            "acl.txt:3: unknown action 'x' (one of put, browse, subscribe, publish, setid or *)",
        ),
        (b"allow put * Q\nallow put * \xff", "acl.txt:3: not UTF-8 text (byte 0xff)"),
    ],
)
def test_a_malformed_acl_file_is_one_line_naming_file_line_and_problem(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "acl.txt"
    path.write_bytes(b"# ok\n" + content)
    with pytest.raises(AclError) as raised:
        load_acl_policy(path)
    assert str(raised.value) == message.replace("acl.txt", str(path))
    assert "\n" not in str(raised.value) and "\r" not in str(raised.value)


def test_a_byte_order_mark_is_not_part_of_the_first_rule(tmp_path: Path) -> None:
    path = tmp_path / "acl.txt"
    path.write_bytes(b"\xef\xbb\xbfallow put * Q\n")
    assert load_acl_policy(path).may_put("anyone", "Q")


def test_parsed_text_is_named_as_given() -> None:
    with pytest.raises(AclError, match=r"^rules:1: unknown action 'get'"):
        AclPolicy.parse("allow get * *", "rules")


def test_an_unreadable_acl_file_is_named_with_the_reason(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    with pytest.raises(AclError) as raised:
        load_acl_policy(missing)
    assert str(raised.value) == f"{missing}: cannot read: No such file or directory"


def test_partial_topics_are_a_warning_naming_the_topics_left_out() -> None:
    """ "if only some topics are authorised, only those are registered and a warning response
    lists the others" (§2.7)."""
    broker = BrokerDriver(authority=AclPolicy.parse(RULES + "\nallow put * Q"))
    outcome = broker.register_subscriber("Sport/A", "News", "Sport/Secret", queue="Q")
    assert outcome.completion is Completion.WARNING
    assert [(i.reason, i.value) for i in outcome.response.reasons] == [
        (RC.CF_NOT_AUTHORIZED, "News"),
        (RC.CF_NOT_AUTHORIZED, "Sport/Secret"),
    ]
    assert [s.key.topic.text for s in broker.state.subscriptions] == ["Sport/A"]


def test_denied_put_to_the_control_queue_is_an_error() -> None:
    broker = BrokerDriver(authority=AclPolicy.parse("allow subscribe * *\nallow put * APP.REPLY"))
    assert broker.register_subscriber("T", queue="Q").reason == RC.CF_NOT_AUTHORIZED
    assert len(broker.state.subscriptions) == 0


def test_partial_publish_and_delete_are_warnings() -> None:
    broker = BrokerDriver(
        authority=AclPolicy.parse("allow put * *\nallow publish * Open/#\nallow subscribe * *")
    )
    broker.register_subscriber("#", queue="Q")
    outcome = broker.publish("Open/1", "Closed/1", retain=True)
    assert outcome.completion is Completion.WARNING
    assert [m.topic for m in broker.drain("Q")] == ["Open/1"]
    deleted = broker.delete_publication("Open/1", "Closed/1")
    assert deleted.completion is Completion.WARNING and len(broker.state.retained) == 0


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("deny subscribe carol Secret/*", "topic 'Secret/*' is not an MQ topic filter"),
        ("allow publish * Sport?", "topic 'Sport?' is not an MQ topic filter"),
        ("allow publish * [AB]/x", "topic '[AB]/x' is not an MQ topic filter"),
        ("deny subscribe * Secret#", "topic 'Secret#': # and + are wildcards only as a whole"),
        ("deny subscribe * a/b+/c", "topic 'a/b+/c': # and + are wildcards only as a whole"),
        ("deny * * Secret*", "action * takes the resource * only, not 'Secret*'"),
        ("allow put alice ALICE.#", "queue 'ALICE.#': # and + are topic wildcards"),
    ],
)
def test_a_topic_rule_that_is_no_mq_topic_filter_is_refused(rule: str, problem: str) -> None:
    """Issue 35 point 2: a shell pattern would be a literal topic and deny nothing."""
    with pytest.raises(AclError) as raised:
        AclPolicy.parse(f"# rules\n{rule}", "acl.txt")
    assert str(raised.value).startswith(f"acl.txt:2: {problem}")
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("flt", "allowed"),
    [
        ("#", True),  # overlaps the denied filter: accepted, each publication checked
        ("+/Plans", True),
        ("Secret", False),  # all it could receive is denied
        ("Secret/#", False),
        ("Secret/+/Plans", False),
        ("Public/#", True),
    ],
)
def test_a_subscription_is_judged_by_the_rule_that_covers_it(flt: str, allowed: bool) -> None:
    policy = AclPolicy.parse("deny subscribe carol Secret/#\nallow subscribe * #")
    assert policy.may_subscribe("carol", ROOT, flt) is allowed
    assert policy.may_subscribe("alice", ROOT, flt) is True


@pytest.mark.parametrize(
    ("topic", "allowed"),
    [("Secret", False), ("Secret/Plans", False), ("Secret/a/b", False), ("Secrets", True)],
)
def test_a_publication_topic_is_matched_as_mq_matches_it(topic: str, allowed: bool) -> None:
    policy = AclPolicy.parse("deny subscribe carol Secret/#\nallow subscribe * *")
    assert policy.may_subscribe("carol", ROOT, topic) is allowed
