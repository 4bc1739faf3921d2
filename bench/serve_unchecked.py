"""``mqk`` with issue 19 point 1's destination checks taken out, for ``bench_resilience``'s
"checks" figure only: fan-out-1 throughput with and without them, side by side.

Out: the per-record size check (``RecordFit.records``), the size bound of a replayed plan
(its one compare stays; the bound is made unreachable), ``Outputs.fits`` (dead letters), the
refresh of the topic limits (``describe_configs``) and the reserved-name check of a queue's
topic. Run as ``python bench/serve_unchecked.py serve ...`` (the bench writes a wrapper).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def uncheck() -> None:
    from mqkafka.engine.effects import Deliver
    from mqkafka.service.fitting import RecordFit
    from mqkafka.service.limits import TopicLimits
    from mqkafka.service.outputs import Outputs
    from mqkafka.service.queues import QueueDirectory
    from mqkafka.wire.names import queue_to_topic

    def records(self: Any, effects: list[Any], queue: str, forwarded: Any) -> list[Any]:
        record_of = self.outputs.record
        built = []
        for effect in effects:
            record = record_of(effect, queue)
            if forwarded is not None and type(effect) is Deliver:
                record = record._replace(headers=[*(record.headers or ()), *forwarded])
            built.append(record)
        return built

    def topic_of(self: Any, queue: str) -> str:
        topic: str | None = self._topics.get(queue)
        if topic is None:
            topic = self._topics[queue] = queue_to_topic(queue, self._namespace)
        return topic

    RecordFit.records = records  # type: ignore[method-assign]
    RecordFit.max_value = lambda self, plan: 1 << 62  # type: ignore[method-assign]
    Outputs.fits = lambda self, record: True  # type: ignore[method-assign]
    TopicLimits.refresh_if_due = lambda self: None  # type: ignore[method-assign]
    QueueDirectory.topic_of = topic_of  # type: ignore[method-assign]


if __name__ == "__main__":
    uncheck()
    from mqkafka.cli import main

    sys.argv[0] = "mqk"
    sys.exit(main())
