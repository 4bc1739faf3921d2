"""What a pipeline command prints: one line per stage, one line on Ctrl-C."""

from __future__ import annotations

import io
import os
import signal
import socket
import threading
import time

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
            while interrupts.stopping is None:  # the watcher thread acts on it
                time.sleep(0.01)
        interrupts.stopping.join(10)
        # cancelled on a thread of its own: py4j's connection of the main thread is mid-call
        assert interrupts.requested and cancelled == ["mqk-interrupt"]
    assert out.getvalue() == (
        "Processing ... interrupted\nmqk: interrupted: stopping (Ctrl-C again to quit at once)\n"
    )
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_taken_by_another_thread_acts_while_the_main_thread_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The main thread blocked in a call (py4j waiting for Spark) runs no Python handler;
    the kernel may hand SIGINT to another thread: the cancel must happen all the same."""
    monkeypatch.setattr(console, "stage", console.Stage(io.StringIO()))
    main_end, other_end = socket.socketpair()

    def cancel() -> None:
        other_end.send(b"cancelled")

    with console.Interrupts(cancel):
        taker = threading.Thread(target=lambda: signal.pthread_kill(threading.get_ident(), 2))
        taker.start()
        main_end.settimeout(60)  # a guard only: the cancel answers at once
        assert main_end.recv(64) == b"cancelled"  # woken by the cancel, not by the signal
        taker.join()
    main_end.close()
    other_end.close()
