"""Filters: kept and compared as text by the engine, evaluated only by the port."""

from __future__ import annotations

import pytest

from mqkafka.engine.filters import PASS_ALL, PassAllFilter, PassAllFilterPort
from mqkafka.engine.ports import CompiledFilter
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from mqkafka.selectors import SelectorFilterPort
from tests.unit.engine.driver import BrokerDriver
from tests.unit.engine.fakes import EqualsFilterPort, usr


def test_the_default_port_keeps_filters_and_says_it_does_not_evaluate() -> None:
    compiled = PASS_ALL.compile("Body.Name LIKE 'Smit%'")
    assert compiled.text == "Body.Name LIKE 'Smit%'"
    assert isinstance(compiled, PassAllFilter)
    assert PassAllFilterPort.evaluates is False and compiled.evaluates is False
    assert "NOT evaluate" in (PassAllFilterPort.compile.__doc__ or "")


def test_with_the_default_port_every_publication_passes(broker: BrokerDriver) -> None:
    broker.register_subscriber("T", queue="Q", filter="colour = 'red'")
    broker.publish("T", body=b"blue", folders=[usr(colour="blue")])
    assert [m.body for m in broker.drain("Q")] == [b"blue"]


def test_filter_text_is_part_of_the_subscription(broker: BrokerDriver) -> None:
    """DeregSub "SubPoint, Filter ... must equal the original values; omit if the original
    omitted them" (§2.8): the same topic with two filters is two subscriptions."""
    broker.register_subscriber("T", queue="Q", filter="a = '1'")
    broker.register_subscriber("T", queue="Q", filter="a = '2'")
    broker.register_subscriber("T", queue="Q")
    assert len(broker.state.subscriptions) == 3
    assert (
        broker.deregister_subscriber("T", queue="Q", filter="a = '3'").reason
        == RC.CF_NOT_REGISTERED
    )
    assert broker.deregister_subscriber("T", queue="Q", filter="a = '2'").ok
    assert sorted(str(s.key.filter) for s in broker.state.subscriptions) == ["None", "a = '1'"]


def test_an_evaluating_port_selects_by_content() -> None:
    broker = BrokerDriver(filters=EqualsFilterPort())
    broker.register_subscriber("T", queue="RED", filter="colour = 'red'")
    broker.register_subscriber("T", queue="ALL")
    broker.publish("T", body=b"r", folders=[usr(colour="red")])
    broker.publish("T", body=b"b", folders=[usr(colour="blue")])
    broker.publish("T", body=b"none")
    assert [m.body for m in broker.drain("RED")] == [b"r"]
    assert [m.body for m in broker.drain("ALL")] == [b"r", b"b", b"none"]


def test_an_invalid_filter_is_refused_at_registration() -> None:
    broker = BrokerDriver(filters=EqualsFilterPort())
    assert (
        broker.register_subscriber("T", queue="Q", filter="colour LIKE 'r%'").reason
        == RC.CF_FILTER_ERROR
    )
    assert len(broker.state.subscriptions) == 0


@pytest.mark.parametrize(
    ("flt", "reason"),
    [
        ("1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        ("NOT TRUE", RC.SELECTOR_ALWAYS_FALSE),
        ("'a' = 'b' AND x > 1", RC.SELECTOR_ALWAYS_FALSE),
        ("x >", RC.CF_FILTER_ERROR),
    ],
)
def test_a_constant_false_filter_is_refused_as_always_false(flt: str, reason: int) -> None:
    """§8: "A selector that is constant-FALSE is rejected with MQRC_SELECTOR_ALWAYS_FALSE
    2504"; a syntax error stays MQRCCF_FILTER_ERROR 3150. Over the wire too: the reply's
    Reason is the selector's."""
    for wire in (False, True):
        broker = BrokerDriver(filters=SelectorFilterPort(), wire=wire)
        outcome = broker.register_subscriber("T", queue="Q", filter=flt)
        assert (outcome.completion, outcome.reason) == (Completion.ERROR, reason)
        assert len(broker.state.subscriptions) == 0


class CountingPort:
    """Counts compilations: a filter is compiled once, not per publication."""

    def __init__(self) -> None:
        self.compiled = 0

    def compile(self, text: str) -> CompiledFilter:
        self.compiled += 1
        return PASS_ALL.compile(text)


def test_filters_are_compiled_at_registration_not_per_publication() -> None:
    port = CountingPort()
    broker = BrokerDriver(filters=port)
    broker.register_subscriber("T", queue="Q", filter="x = 'y'")
    before = port.compiled
    for _ in range(20):
        broker.publish("T")
    assert port.compiled == before and len(broker.drain("Q")) == 20


class FailingFilter:
    text = "Body.x = 1"

    def matches(self, message: object) -> bool:
        from mqkafka.mq.errors import MQError

        raise MQError(RC.CONTENT_ERROR, "cannot parse the body")


class FailingPort:
    def compile(self, text: str) -> CompiledFilter:
        return FailingFilter() if text.startswith("Body") else PASS_ALL.compile(text)


def test_a_filter_that_cannot_evaluate_excludes_only_its_copy() -> None:
    """A selector that cannot read a publication (2554) must not stop it reaching others: that
    copy is left out and the publisher is warned."""
    from mqkafka.mq.responses import Completion

    broker = BrokerDriver(filters=FailingPort())
    broker.register_subscriber("T", queue="BODY", filter="Body.x = 1")
    broker.register_subscriber("T", queue="PLAIN")
    outcome = broker.publish("T", body=b"x")
    assert outcome.completion is Completion.WARNING and outcome.reason == RC.CONTENT_ERROR
    assert broker.drain("BODY") == [] and len(broker.drain("PLAIN")) == 1
