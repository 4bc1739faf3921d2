"""Every lane of the transactional loop a member of its group, or replaced.

After a broker's restart one lane's client (the control queue's) was left with no broker to
ask: librdkafka 2.16's re-bootstrap during the outage decommissioned its group coordinator,
and then "no broker available for coordinator query" for minutes, while the stream's lane
rejoined and served; the group was stable without the control queue's lane, and no command
was answered (the restart test, 1 run in ~20; ``devsupport/lanes_restart_stress.py``, 1
outage in 10, with librdkafka's cgrp lines). Without the re-bootstrap
(``metadata.recovery.strategy=none``) it was worse: both lanes stuck so, the group empty (1
restart test run of 2). Whatever leaves a lane out, its client holds no member id then; a
lane that holds none for longer than a join can take, while Kafka answers (the producer, if
no lane can ask: ``txrecovery._kafka_answers``), is replaced.

:class:`LaneWatch` is a mixin of :class:`~mqkafka.kafka.txloop.TransactionalLoop` (through
``txrecovery``): it works on the loop's consumer and flags, declared below.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from typing import Any

from mqkafka.kafka.lanes import TopicLanes
from mqkafka.kafka.txcalls import close_in_background

log = logging.getLogger(__name__)

LANE_WATCH_EVERY = 5.0  # seconds between looks at whether every lane is a member of the group
# Replaced consumers whose close has not returned, at most. A fenced consumer's close returns
# at once (librdkafka 2.16, the broker up: a few ms), so this many still closing means
# librdkafka is stuck: a further fence ends the loop rather than piling up clients and their
# threads (a restarted process starts clean).
MAX_CLOSING = 4


class LaneWatch:
    # the loop's own, set by TransactionalLoop.__init__
    consumer: Any
    _consumer_settings: dict[str, Any]
    _away_since: float | None
    _closing: list[Future[None]]  # closes of replaced consumers, until seen to have returned
    _lanes_watched = 0.0  # when the lanes were last looked at (monotonic)

    def _consumer_renewed(self) -> None:
        raise NotImplementedError  # the recovery's

    def _kafka_answers(self, timeout: float = 5.0, *, producer: bool = False) -> bool:
        raise NotImplementedError  # the recovery's

    def _watch_lanes(self) -> None:
        """Every lane a member of the group, or replaced: one that has held no member id for
        a rebalance timeout and a session (a join is answered within the rebalance timeout)
        while Kafka answers is no member and not joining, however it came to be so; a new
        client for it joins in its place, said in one line. Whether Kafka answers is asked
        then, of the lanes or else of the producer (when every lane lost its brokers, the
        loop's own word, Kafka away, never changes); while it does not, the watch starts
        again."""
        lanes = self.consumer
        now = time.monotonic()
        if not isinstance(lanes, TopicLanes) or now - self._lanes_watched < LANE_WATCH_EVERY:
            return
        self._lanes_watched = now
        settings = self._consumer_settings
        grace = (int(settings.get("max.poll.interval.ms", 300_000))
                 + int(settings.get("session.timeout.ms", 10_000))) / 1000.0  # fmt: skip
        late = lanes.unjoined(grace, now)
        if not late:
            return
        if not self._kafka_answers(producer=True):
            lanes.watch_again()  # counted from Kafka's return
            return
        self._closing = [closed for closed in self._closing if not closed.done()]
        for topic in late:
            if len(self._closing) >= MAX_CLOSING:
                return  # librdkafka stuck in closes: not piled up (a fence ends the loop)
            log.warning("the consumer of %s has been no member of the group for %.0fs with "
                        "Kafka answering: a new one takes its place", topic, grace)  # fmt: skip
            self._closing.append(close_in_background(lanes.replace(topic), wait=0))
            self._consumer_renewed()


__all__ = ["LANE_WATCH_EVERY", "MAX_CLOSING", "LaneWatch"]
