"""What a pipeline command prints: one line per stage, one line on Ctrl-C."""

from __future__ import annotations

import io
import os
import signal
import threading

import pytest

from mqkafka.pipeline import console


def test_a_stage_is_one_line_with_its_time() -> None:
    out = io.StringIO()
    stage = console.Stage(out)
    with stage("Starting Spark"):
        pass
    with pytest.raises(ValueError), stage("Reading"):
        raise ValueError
    assert out.getvalue() == "Starting Spark ... 0s\nReading ... failed\n"


def test_ctrl_c_ends_the_stage_line_and_says_so_once(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(console, "stage", console.Stage(out))
    cancelled: list[str] = []
    before = signal.getsignal(signal.SIGINT)  # another test's SparkContext may have set its own
    on_first = lambda: cancelled.append(threading.current_thread().name)  # noqa: E731
    with console.Interrupts(on_first) as interrupts:
        with console.stage("Processing"):
            os.kill(os.getpid(), signal.SIGINT)  # handled: no KeyboardInterrupt
        assert interrupts.stopping is not None
        interrupts.stopping.join(10)
        # cancelled on a thread of its own: py4j's connection of the main thread is mid-call
        assert interrupts.requested and cancelled == ["mqk-interrupt"]
    assert out.getvalue() == (
        "Processing ... interrupted\nmqk: interrupted: stopping (Ctrl-C again to quit at once)\n"
    )
    assert signal.getsignal(signal.SIGINT) is before
