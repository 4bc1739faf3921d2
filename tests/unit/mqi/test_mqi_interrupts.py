"""Where the share consumer blocks or loses what Python raised: Ctrl-C inside a librdkafka
callback reaches the program as KeyboardInterrupt (not as the SystemError confluent-kafka
2.16's ShareConsumer.poll leaves when it loses it), and MQCLOSE does not wait for ever on a
close that never returns."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from mqkafka.mqi.kafkaqm import lane as lanes
from mqkafka.mqi.kafkaqm.interrupts import LOST, Callbacks


def losing_poll(callback: Callable[[str], None]) -> Callable[[float], list[str]]:
    """A poll that calls ``callback`` and, as the client does, drops what it raised."""

    def poll(timeout: float) -> list[str]:
        try:
            callback("stats")
        except BaseException:  # the client swallows it and returns NULL
            raise SystemError(f"<method 'poll' of 'cimpl.ShareConsumer' objects> {LOST}") from None
        return ["record"]

    return poll


def interrupted(_: str) -> None:
    raise KeyboardInterrupt


class Leaving(Exception):
    pass


def leaving(_: str) -> None:
    raise Leaving("a handler of the program's own")


@pytest.mark.parametrize(
    ("callback", "raised"), [(interrupted, KeyboardInterrupt), (leaving, Leaving)]
)
def test_what_a_callback_raised_comes_out_of_the_call(
    callback: Callable[[str], None], raised: type[BaseException]
) -> None:
    callbacks = Callbacks()
    with pytest.raises(raised):
        callbacks.call(losing_poll(callbacks.guard(callback)), 0.25)
    assert callbacks.raised is None


def test_a_lost_exception_that_no_guard_saw_is_keyboard_interrupt() -> None:
    callbacks = Callbacks()  # the handler ran before the guard could note it
    with pytest.raises(KeyboardInterrupt):
        callbacks.call(losing_poll(interrupted), 0.25)


def test_a_call_whose_callbacks_return_returns_what_the_method_does() -> None:
    callbacks = Callbacks()
    seen: list[str] = []
    assert callbacks.call(losing_poll(callbacks.guard(seen.append)), 0.25) == ["record"]
    assert seen == ["stats"]


def test_any_other_system_error_is_left_alone() -> None:
    def broken(timeout: float) -> None:
        raise SystemError("something else")

    with pytest.raises(SystemError, match="something else"):
        Callbacks().call(broken, 0.25)


class HangingConsumer:
    """A share consumer whose close never returns (librdkafka 2.16, now and then)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.closing = threading.Event()

    def close(self) -> None:
        self.closing.set()
        self.release.wait()


def test_mqclose_does_not_wait_for_ever_on_a_share_consumer_that_never_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lanes, "CLOSE_WAIT", 0.2)
    lane = lanes.Lane.__new__(lanes.Lane)  # no client: only what close uses
    lane.consumer, lane.topic, lane._acks = HangingConsumer(), "Q", []
    lane._io, lane._noted, lane.unsent = threading.Lock(), threading.Lock(), 0
    lane.close()  # returns: the leaving is left to finish in the background
    assert lane.consumer.closing.is_set()
    lane.consumer.release.set()
