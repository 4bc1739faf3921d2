"""Prometheus metrics of one worker, in its own registry (no process globals).

Served on ``--metrics-port`` at ``/metrics``: commands and publications processed, replies by
reason code, dead letters by reason, deliveries, put-to-delivery latency, transactions and
aborts, state sizes and the consumer lag of every assigned partition.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server
from prometheus_client.core import HistogramMetricFamily

from mqkafka.state.kinds import STATE_KINDS, AnyKind, StateKinds

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class CountingHistogram:
    """A Prometheus histogram that takes one observation for many events at once.

    Every copy of a publication has the same put-to-commit latency; ``observe(value, count)``
    records them in one step, where prometheus_client's Histogram costs ~1 us per copy.
    """

    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...]) -> None:
        self.name = name
        self.documentation = documentation
        self._bounds = list(buckets)
        self._counts = [0] * (len(buckets) + 1)  # the last one: above every bound
        self._sum = 0.0

    def observe(self, value: float, count: int = 1) -> None:
        self._counts[bisect_left(self._bounds, value)] += count  # a bound is "le"
        self._sum += value * count

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(self.name, self.documentation)
        counts = list(self._counts)
        buckets, running = [], 0
        for bound, count in zip([*map(str, self._bounds), "+Inf"], counts, strict=True):
            running += count
            buckets.append((bound, running))
        family.add_metric([], buckets, sum_value=self._sum)
        yield family


class Metrics:
    def __init__(self, kinds: StateKinds = STATE_KINDS) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.commands = Counter("mqk_commands", "Command messages processed", registry=r)
        self.publications = Counter(
            "mqk_publications", "Stream queue messages processed", registry=r
        )
        self.outcomes = Counter(
            "mqk_command_outcomes",
            "Commands processed, by command and reason code",
            ["command", "reason"],
            registry=r,
        )
        self.replies = Counter(
            "mqk_replies", "Replies sent, by reason code", ["reason"], registry=r
        )
        self.dead_letters = Counter(
            "mqk_dead_letters",
            "Messages put to the dead-letter queue, by reason",
            ["reason"],
            registry=r,
        )
        self.dropped = Counter(
            "mqk_dropped_messages",
            "Messages whose dead letter the dead-letter queue would not take (logged), by reason",
            ["reason"],
            registry=r,
        )
        self.deliveries = Counter("mqk_deliveries", "Publication copies delivered", registry=r)
        self.delivery_latency = CountingHistogram(
            "mqk_delivery_latency_seconds",
            "From the publication's put to the commit of its delivery",
            LATENCY_BUCKETS,
        )
        r.register(self.delivery_latency)
        self.transactions = Counter("mqk_transactions", "Transactions committed", registry=r)
        self.aborts = Counter("mqk_aborts", "Transactions aborted", registry=r)
        self.replica_records = Counter(
            "mqk_replica_records", "State records applied from the state topics", registry=r
        )
        self.ready = Gauge(
            "mqk_ready", "1 once the service has its state and serves, 0 as it stops", registry=r
        )
        # one gauge per state kind that declares one: how many values the worker holds
        self.state_gauges: dict[str, tuple[AnyKind, Gauge]] = {
            kind.name: (kind, Gauge(kind.gauge.name, kind.gauge.help, registry=r))
            for kind in kinds
            if kind.gauge is not None
        }
        self.consumer_lag = Gauge(
            "mqk_consumer_lag", "Records not yet processed", ["topic", "partition"], registry=r
        )

    def observe_state(self, state: Any) -> None:
        """Set the state gauges to what the engine ``state`` holds now."""
        for kind, gauge in self.state_gauges.values():
            gauge.set(kind.size(state))

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        start_http_server(port, addr=host, registry=self.registry)
