"""Hypothesis: random command sequences never raise anything but MQError inside the engine,
keep the state's invariants, change nothing on error, and deliver exactly what the naive
matching rule says."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.engine.effects import Deliver
from mqkafka.mq.responses import Completion
from mqkafka.mq.topics import Scheme, TopicString, matches
from tests.unit.engine.driver import BrokerDriver, Outcome

QUEUES = ["Q1", "Q2"]
CORRELS = [None, b"A" * 24, b"B" * 24]
USERS = ["fred", "bob"]
FILTERS = ["a", "a/b", "a/#", "+/b", "#", "a/+", "b"]
TOPICS = ["a", "a/b", "b", "a/b/c", "c/b"]
NAMES = [None, "n1", "n2"]
IDENTITIES = [None, "i", "j"]
SUB_POINTS = [None, "SP"]
REG_OPTIONS = [
    "",
    "PubOnReqOnly",
    "NewPubsOnly",
    "VariableUserId",
    "InformIfRet",
    "JoinShared",
    "JoinExcl",
    "AddName",
    "NoAlter",
    "Pers",
    "FullResp",
]
DEREG_OPTIONS = ["", "DeregAll", "LeaveOnly", "VariableUserId"]
PUB_OPTIONS = ["", "RetainPub", "OtherSubsOnly", "RetainPub OtherSubsOnly"]

who = st.fixed_dictionaries(
    {
        "queue": st.sampled_from(QUEUES),
        "correl_id": st.sampled_from(CORRELS),
        "user": st.sampled_from(USERS),
        "sub_point": st.sampled_from(SUB_POINTS),
    }
)
register = st.tuples(
    st.just("RegSub"),
    st.lists(st.sampled_from(FILTERS), min_size=1, max_size=2),
    who,
    st.fixed_dictionaries(
        {
            "options": st.sampled_from(REG_OPTIONS),
            "sub_name": st.sampled_from(NAMES),
            "sub_identity": st.sampled_from(IDENTITIES),
        }
    ),
)
deregister = st.tuples(
    st.just("DeregSub"),
    st.lists(st.sampled_from(FILTERS), max_size=2),
    who,
    st.fixed_dictionaries(
        {
            "options": st.sampled_from(DEREG_OPTIONS),
            "sub_name": st.sampled_from(NAMES),
            "sub_identity": st.sampled_from(IDENTITIES),
        }
    ),
)
update = st.tuples(
    st.just("ReqUpdate"),
    st.lists(st.sampled_from(FILTERS), min_size=1, max_size=1),
    who,
    st.fixed_dictionaries({"sub_name": st.sampled_from(NAMES)}),
)
publish = st.tuples(
    st.just("Publish"),
    st.lists(st.sampled_from(TOPICS), min_size=1, max_size=2),
    who,
    st.fixed_dictionaries({"pub_options": st.sampled_from(PUB_OPTIONS)}),
)
delete: st.SearchStrategy[tuple[str, list[str], dict[str, object], dict[str, object]]] = st.tuples(
    st.just("DeletePub"),
    st.lists(st.sampled_from(FILTERS), min_size=1, max_size=1),
    who,
    st.just({}),
)
commands = st.lists(
    st.one_of(register, deregister, update, publish, delete), min_size=1, max_size=25
)


def snapshot(broker: BrokerDriver) -> tuple[object, ...]:
    state = broker.state
    return (
        sorted(map(repr, state.subscriptions)),
        sorted(map(repr, state.retained)),
        sorted(map(repr, state.publishers)),
    )


def expected_copies(
    broker: BrokerDriver, verb: str, topics: list[str], who: dict[str, object], options: str
) -> int:
    """The naive rule: one copy per (topic, pushing subscription whose filter selects it)."""
    if verb != "Publish" or "OtherSubsOnly" in options:
        return -1  # not checked
    namespace = "SP" if who["sub_point"] else ""
    count = 0
    for topic in dict.fromkeys(topics):
        for sub in broker.state.subscriptions:
            if sub.key.namespace.name != namespace or "PUBLISH_ON_REQUEST_ONLY" in repr(
                sub.options
            ):
                continue
            if matches(sub.key.topic, TopicString(topic)) and sub.key.topic.scheme is Scheme.TOPIC:
                count += 1
    return count


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands, st.booleans())
def test_random_command_sequences(
    sequence: list[tuple[str, list[str], dict[str, object], dict[str, object]]], wire: bool
) -> None:
    broker = BrokerDriver(wire=wire)
    for verb, topics, who, extra in sequence:
        before = snapshot(broker)
        empty_before = {s.key for s in broker.state.subscriptions if not s.identities}
        copies = expected_copies(broker, verb, topics, who, str(extra.get("pub_options", "")))
        kwargs = {**who, **extra}
        if verb == "Publish":
            kwargs["queue_put"] = "SYSTEM.BROKER.DEFAULT.STREAM"
        elif verb == "DeletePub":
            kwargs["queue_put"] = "SYSTEM.BROKER.DEFAULT.STREAM"
            kwargs = {k: v for k, v in kwargs.items() if k in ("sub_point", "user", "queue_put")}
        outcome: Outcome = broker.command(verb, topics, **kwargs)  # type: ignore[arg-type]
        # The driver already ran check_invariants(); every command is answered.
        assert len(outcome.replies) + len(outcome.dead_letters) == 1, outcome
        if outcome.dead_letters:
            assert snapshot(broker) == before
            continue
        response = outcome.response
        assert response.completion in Completion
        if response.completion is Completion.ERROR:
            assert snapshot(broker) == before, f"{verb} failed with {response} but changed state"
            assert not [e for e in outcome.effects if isinstance(e, Deliver)]
        if copies >= 0 and response.completion is Completion.OK:
            assert len(outcome.deliveries) == copies
        leaving = verb == "DeregSub" and extra.get("sub_identity") is not None
        if leaving and "LeaveOnly" not in str(extra.get("options")):
            # "does not delete the subscription unless the subscription identity list becomes
            # empty as a result of removing the identity" (S2): no set is left empty by it.
            emptied = {s.key for s in broker.state.subscriptions if not s.identities}
            assert emptied <= empty_before
        for sub in broker.state.subscriptions:
            assert sub.exclusive is None or sub.exclusive in sub.identities
            assert sub.name is None or not sub.name.startswith("MQ")
