"""The public API: DictMessageView validation, Selector values, the FilterPort adapter."""

from __future__ import annotations

import dataclasses

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors import DictMessageView, Selector, SelectorFilterPort, compile_selector


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"properties": {"": 1}}, RC.RFH_ERROR),
        ({"properties": {1: 1}}, RC.RFH_ERROR),
        ({"properties": {"p": [1]}}, RC.RFH_ERROR),
        ({"properties": {"p": object()}}, RC.RFH_ERROR),
        ({"mqmd_fields": {1: 1}}, RC.MD_ERROR),
        ({"body": "text"}, RC.FORMAT_ERROR),
    ],
)
def test_dict_message_view_validates_when_built(kwargs: dict[str, object], reason: RC) -> None:
    with pytest.raises(MQError) as caught:
        DictMessageView(**kwargs)  # type: ignore[arg-type]
    assert caught.value.reason == reason


def test_dict_message_view_is_a_frozen_copy() -> None:
    properties: dict[str, object] = {"p": 1}
    view = DictMessageView(properties)
    properties["p"] = 2
    assert view.properties["p"] == 1
    with pytest.raises(TypeError):
        view.properties["p"] = 3  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.body = b"x"  # type: ignore[misc]


def test_selector_is_a_frozen_value_compared_by_text() -> None:
    first, second = compile_selector("a = 1"), compile_selector("a = 1")
    assert first == second
    assert "a = 1" in repr(first)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.text = "b = 1"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("properties", "evaluated", "matched"),
    [({"a": 1}, True, True), ({"a": 2}, False, False), ({}, None, False)],
)
def test_evaluate_is_three_valued_and_matches_is_two_valued(
    properties: dict[str, object], evaluated: bool | None, matched: bool
) -> None:
    selector: Selector = compile_selector("a = 1")
    view = DictMessageView(properties)
    assert selector.evaluate(view) is evaluated
    assert selector.matches(view) is matched


def test_a_bare_value_as_the_whole_filter_is_three_valued_too() -> None:
    selector = compile_selector("flag")
    assert selector.evaluate(DictMessageView({"flag": True})) is True
    assert selector.evaluate(DictMessageView({"flag": False})) is False
    assert selector.evaluate(DictMessageView({"flag": 1})) is None


def test_filter_port_compiles_to_a_compiled_filter() -> None:
    compiled = SelectorFilterPort().compile("colour = 'red'")
    assert compiled.text == "colour = 'red'"
    assert compiled.matches(DictMessageView({"colour": "red"}))
    assert not compiled.matches(DictMessageView({"colour": "blue"}))
