"""The stated bound on reaping a crashed creator's temporary dynamic queues (seed 004: they
"are deleted when the application that issued the MQOPEN call that created the queue ...
terminates"): a reaping client - the broker service's included - deletes them within
``reap_bound`` of the creator's last heartbeat.

The keeper's schedule is played over the real ``ConnectionTable``: every heartbeat interval
it writes its own beat and then reaps with the beats read back so far, its own latest not
yet among them (the worst case the bound allows for).
"""

from __future__ import annotations

import pytest

from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat
from mqkafka.mqi.kafkaqm.reaper import reap_bound

CREATOR_LAST_BEAT = 100.0


def reaped_at(heartbeat_interval: float, liveness_timeout: float, phase: float) -> float:
    """When the reaper's keeper, whose rounds fall at ``phase`` + k intervals, first sees the
    creator (silent since ``CREATOR_LAST_BEAT``) as ended."""
    table = ConnectionTable(liveness_timeout)
    table.apply("creator", Heartbeat("creator").encode(), CREATOR_LAST_BEAT)
    read_back: list[float] = []
    at = CREATOR_LAST_BEAT + phase
    while True:
        for beat in read_back:
            table.apply("reaper", Heartbeat("reaper").encode(), beat)
        if "creator" in table.expired():
            return at
        read_back.append(at)  # this round's beat: read back by the next round
        at += heartbeat_interval


SETTINGS = [(2.0, 10.0), (0.5, 3.0), (1.0, 1.5)]  # the defaults; the tests'; a tight one
PHASES = [0.0, 0.001, 0.25, 0.5, 0.999]  # where the keeper's rounds fall, in intervals


@pytest.mark.parametrize(("heartbeat_interval", "liveness_timeout"), SETTINGS)
def test_a_silent_creator_is_reaped_within_the_bound_and_not_before_its_timeout(
    heartbeat_interval: float, liveness_timeout: float
) -> None:
    bound = reap_bound(heartbeat_interval, liveness_timeout)
    delays = [
        reaped_at(heartbeat_interval, liveness_timeout, phase * heartbeat_interval)
        - CREATOR_LAST_BEAT
        for phase in PHASES
    ]
    assert all(liveness_timeout < delay <= bound for delay in delays), (delays, bound)
    # the second interval of the bound is needed: some phase takes more than one
    assert max(delays) > liveness_timeout + heartbeat_interval, delays


def test_the_bound_is_two_heartbeat_intervals_past_the_liveness_timeout() -> None:
    assert reap_bound(2.0, 10.0) == 14.0
