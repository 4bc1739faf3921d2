"""The broker service as operators watch it: its workers (the members of its consumer group
and the partitions each one holds) and its rates, from its Prometheus endpoint.

A rate is the change of a counter between two samples over the seconds between them; the
counters are the service's own (service/metrics.py), so a restarted worker (counters back to
zero) gives no negative rate: that interval is skipped.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException
from mqkafka.kafka.groups import SERVICE_GROUP

TIMEOUT = 5.0
HIDDEN = "not authorised to describe"  # the state of a group this principal may not see
# what each rate counts: (metric sample name, reason label values to leave out)
RATES = {
    "commands": "mqk_commands_total",
    "publications": "mqk_publications_total",
    "deliveries": "mqk_deliveries_total",
    "errors": "mqk_command_outcomes_total",  # those whose reason is not 0
    "dead_letters": "mqk_dead_letters_total",
}


@dataclass(frozen=True)
class Worker:
    member_id: str
    client_id: str
    host: str
    partitions: tuple[str, ...]  # "TOPIC[p]"


@dataclass(frozen=True)
class ServiceState:
    group: str
    state: str
    workers: tuple[Worker, ...]

    @property
    def running(self) -> bool:
        return bool(self.workers)

    @property
    def hidden(self) -> bool:
        """This principal may not describe the service's group (an application user under
        the shipped ACLs, issue 35): whether a worker runs cannot be told from here."""
        return self.state == HIDDEN


@dataclass(frozen=True)
class Sample:
    """The service's counters at one moment (seconds of ``time.monotonic``)."""

    at: float
    counters: dict[str, float] = field(default_factory=dict)
    gauges: dict[str, float] = field(default_factory=dict)
    problem: str | None = None  # why the endpoint could not be read


def service_state(config: ClientConfig, namespace: str = "") -> ServiceState:
    """Who serves this namespace now (an empty list of workers: no service runs)."""
    group = namespace + SERVICE_GROUP
    admin = clients.admin(config)
    try:
        description = admin.describe_consumer_groups([group], request_timeout=TIMEOUT)[
            group
        ].result()
    except KafkaException as error:
        code = error.args[0].code() if error.args and hasattr(error.args[0], "code") else None
        hidden = code == KafkaError.GROUP_AUTHORIZATION_FAILED
        return ServiceState(group, HIDDEN if hidden else "unknown", ())
    # a worker is a member per topic it reads (its lanes, kafka/lanes.py), one client id
    held: dict[str, set[str]] = {}
    first: dict[str, tuple[str, str]] = {}
    for member in sorted(description.members, key=lambda m: len(m.group_instance_id or "")):
        assigned = member.assignment.topic_partitions if member.assignment else []
        held.setdefault(member.client_id, set()).update(
            f"{tp.topic}[{tp.partition}]" for tp in assigned
        )
        first.setdefault(member.client_id, (member.member_id, member.host))
    workers = [
        Worker(first[client][0], client, first[client][1], tuple(sorted(names, key=_by_number)))
        for client, names in held.items()
    ]
    state = getattr(description.state, "name", str(description.state)).lower()
    return ServiceState(group, state, tuple(sorted(workers, key=lambda w: w.client_id)))


def _by_number(name: str) -> tuple[str, int]:
    """ "TOPIC[p]" in topic order, then partition number (2 before 10)."""
    topic, _, rest = name.rpartition("[")
    return topic, int(rest.rstrip("]") or 0)


def parse_metrics(text: str, at: float) -> Sample:
    counters = dict.fromkeys(RATES, 0.0)
    gauges: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            for rate, name in RATES.items():
                if sample.name != name:
                    continue
                if rate == "errors" and sample.labels.get("reason") == "0":
                    continue
                counters[rate] += sample.value
            if family.type == "gauge" and not sample.labels and "_created" not in sample.name:
                gauges[sample.name] = sample.value
    return Sample(at, counters, gauges)


def sample(url: str) -> Sample:
    """Read the endpoint once; a Sample with ``problem`` set when it does not answer."""
    at = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            text = answer.read().decode()
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return Sample(at, problem=f"{url}: {reason}")
    return parse_metrics(text, at)


def rates(before: Sample, after: Sample) -> dict[str, float] | None:
    """Per second between two samples; None when either failed, no time passed, or a counter
    went back (the worker restarted)."""
    seconds = after.at - before.at
    if before.problem or after.problem or seconds <= 0:
        return None
    result = {}
    for name in RATES:
        change = after.counters.get(name, 0.0) - before.counters.get(name, 0.0)
        if change < 0:
            return None
        result[name] = change / seconds
    return result


__all__ = ["Sample", "ServiceState", "Worker", "parse_metrics", "rates", "sample", "service_state"]
