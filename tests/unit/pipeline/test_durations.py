"""Durations on the command line (``--watermark 2m``) and in Spark's interval text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.pipeline.durations import UNIT_SECONDS, parse_seconds, spark_interval


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("90s", 90), ("2m", 120), ("2 minutes", 120), ("1.5h", 5400), (" 10 SEC ", 10),
     ("0", 0)],
)  # fmt: skip
def test_a_duration_is_a_number_and_a_unit(text: str, seconds: float) -> None:
    assert parse_seconds(text) == seconds


@pytest.mark.parametrize("text", ["", "m", "-5s", "2 fortnights", "1e3s", "2m30s"])
def test_anything_else_is_an_options_error(text: str) -> None:
    with pytest.raises(MQError) as raised:
        parse_seconds(text)
    assert raised.value.reason == RC.OPTIONS_ERROR


@given(st.integers(0, 10**6), st.sampled_from(sorted(UNIT_SECONDS)))
def test_every_unit_multiplies(number: int, unit: str) -> None:
    assert parse_seconds(f"{number}{unit}") == number * UNIT_SECONDS[unit]


@pytest.mark.parametrize(
    ("seconds", "text"), [(120, "120000 milliseconds"), (0.25, "250 milliseconds")]
)
def test_spark_gets_whole_milliseconds(seconds: float, text: str) -> None:
    assert spark_interval(seconds) == text
