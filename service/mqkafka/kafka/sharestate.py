"""How many messages a queue holds: the share group's own count, asked of Kafka directly.

A queue's depth is the number of its records its share group has not yet acknowledged
(accepted, rejected or archived). Kafka 4.2 reports it as the ``Lag`` of
DescribeShareGroupOffsets (API 90, version 1; KIP-1226) together with the share-partition
start offset (SPSO: every record below it is done with). confluent-kafka 2.16 has no call for
it, so this module speaks that one request (plus FindCoordinator) over a plain socket.

| answer | meaning |
|---|---|
| ``start >= 0, lag >= 0`` | ``lag`` messages left, none of them below ``start`` |
| ``start == -1`` / ``lag == -1`` | the group has not started: every record counts |

The connection follows the client settings as every other client does: TLS and SASL (PLAIN,
SCRAM) through ``kafka/saslauth.py`` (issue 35: a secured cluster was never asked, and a browse
there showed every record from the log start); anything that fails (GSSAPI or OAUTHBEARER, not
spoken here, included) raises ``MQError`` with ``MQRC_RESOURCE_PROBLEM`` and callers fall back
to what they can see without it.
"""

from __future__ import annotations

import functools
import socket
import struct
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from mqkafka.kafka import saslauth
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.primitives import (
    NO_TAGS,
    Reader,
    Truncated,
    compact_array,
    compact_string,
    request_header,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

FIND_COORDINATOR, FIND_COORDINATOR_VERSION = 10, 4
DESCRIBE_SHARE_GROUP_OFFSETS, DESCRIBE_VERSION = 90, 1
COORDINATOR_KEY_GROUP = 0
UNKNOWN = -1

_P = ParamSpec("_P")
_T = TypeVar("_T")


@dataclass(frozen=True)
class ShareOffsets:
    """One partition of a share group: its start offset and its lag (-1 when unknown)."""

    partition: int
    start: int
    lag: int
    # Kafka's id of the topic (the key of its share state: sharelog); not part of the figures
    topic_id: bytes = field(default=b"", compare=False)


def got_unseen(offsets: ShareOffsets, records: int, known: int) -> int:
    """How many records from ``offsets.start`` were got (acknowledged) though this reader
    knows of only ``known`` of them, ``records`` the committed records from the start to the
    partition's end (records, not offsets: :mod:`~mqkafka.kafka.recordcount`).

    Kafka's start offset trails the acknowledgements: it stays on a batch a getter acquired
    until the whole batch is done (measured: start 1, lag 3 for five records of which the
    first two were got, until the getter closed), and records got out of order lie above it.
    The lag, its count of records not acknowledged, is exact: ``records - lag`` records
    above the start are done with. A browser hides that many of the oldest records it cannot
    tell apart itself (issue 35): exact when getters take messages in order, as MQGET without
    a selection does; a message another process got out of order (by MsgId) may instead hide
    an older one until Kafka's start passes it. Unknown offsets or lag: nothing is hidden."""
    if offsets.start < 0 or offsets.lag < 0 or records < 0:
        return 0
    return max(records - offsets.lag - known, 0)


def may_hide(
    offsets: dict[int, ShareOffsets], spans: dict[int, tuple[int, int]]
) -> dict[int, tuple[int, int]]:
    """The ``spans`` (partition: start, end offsets) worth counting in records: those longer
    than their lag, where something may have been got (:func:`got_unseen`)."""
    return {
        p: (start, end)
        for p, (start, end) in spans.items()
        if p in offsets and offsets[p].lag >= 0 and start >= 0 and end - start > offsets[p].lag
    }


# ---- the requests and their answers (primitives: kafka/primitives.py) -----------------------


def _answer(parse: Callable[_P, _T]) -> Callable[_P, _T]:
    """An answer that runs short is MQRC_RESOURCE_PROBLEM, as Kafka's errors in it are."""

    @functools.wraps(parse)
    def parsed(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return parse(*args, **kwargs)
        except Truncated as error:
            raise MQError(RC.RESOURCE_PROBLEM, f"malformed Kafka response: {error}") from None

    return parsed


def describe_request(group: str, topic: str, partitions: Sequence[int]) -> bytes:
    return describe_groups_request({group: (topic, partitions)})


def describe_groups_request(wanted: Mapping[str, tuple[str, Sequence[int]]]) -> bytes:
    """One request for many share groups: group → (its topic, the partitions asked)."""
    groups = []
    for group, (topic, partitions) in wanted.items():
        body_partitions = compact_array([struct.pack(">i", p) for p in partitions])
        topics = compact_array([compact_string(topic) + body_partitions + NO_TAGS])
        groups.append(compact_string(group) + topics + NO_TAGS)
    return compact_array(groups) + NO_TAGS


def parse_describe(data: bytes, version: int) -> dict[int, ShareOffsets]:
    """The partitions of a DescribeShareGroupOffsets response (header already removed)."""
    found: dict[int, ShareOffsets] = {}
    for offsets in parse_describe_groups(data, version, strict=True).values():
        found.update(offsets)
    return found


@_answer
def parse_describe_groups(
    data: bytes, version: int, *, strict: bool = False
) -> dict[str, dict[int, ShareOffsets]]:
    """Each group's partitions; a group or partition that answered an error is left out
    (``strict``: raises MQError instead)."""
    reader = Reader(data)
    reader.int32()  # throttle time
    result: dict[str, dict[int, ShareOffsets]] = {}
    for _ in range(reader.count()):
        group = reader.compact_string() or ""
        found: dict[int, ShareOffsets] = {}
        failed = False
        for _ in range(reader.count()):
            reader.compact_string()  # topic name
            topic_id = reader.uuid()
            for _ in range(reader.count()):
                partition = reader.int32()
                start = reader.int64()
                reader.int32()  # leader epoch
                lag = reader.int64() if version >= 1 else UNKNOWN
                error = reader.int16()
                message = reader.compact_string()
                reader.skip_tags()
                if error and strict:
                    raise MQError(RC.RESOURCE_PROBLEM, f"share offsets error {error}: {message}")
                if error:
                    failed = True
                else:
                    found[partition] = ShareOffsets(partition, start, lag, topic_id)
            reader.skip_tags()
        error = reader.int16()
        message = reader.compact_string()
        reader.skip_tags()
        if error and strict:
            raise MQError(RC.RESOURCE_PROBLEM, f"share group error {error}: {message}")
        if not error and not failed:
            result[group] = found
    return result


@_answer
def parse_coordinators(data: bytes) -> dict[str, tuple[str, int]]:
    """Every key FindCoordinator answered with a coordinator (keys in error left out)."""
    reader = Reader(data)
    reader.int32()  # throttle time
    found: dict[str, tuple[str, int]] = {}
    for _ in range(reader.count()):
        key = reader.compact_string()
        reader.int32()  # node id
        host = reader.compact_string()
        port = reader.int32()
        error = reader.int16()
        reader.compact_string()
        reader.skip_tags()
        if not error and host is not None and key is not None:
            found[key] = (host, port)
    return found


@_answer
def parse_coordinator(data: bytes) -> tuple[str, int]:
    reader = Reader(data)
    reader.int32()  # throttle time
    for _ in range(reader.count()):
        reader.compact_string()  # key
        reader.int32()  # node id
        host = reader.compact_string()
        port = reader.int32()
        error = reader.int16()
        message = reader.compact_string()
        reader.skip_tags()
        if error or host is None:
            raise MQError(RC.RESOURCE_PROBLEM, f"FindCoordinator error {error}: {message}")
        return host, port
    raise MQError(RC.RESOURCE_PROBLEM, "FindCoordinator answered no coordinator")


# ---- the socket side ------------------------------------------------------------------------


class ShareStateClient:
    """Asks the group coordinator for share offsets; one connection, reused, thread-safe."""

    def __init__(self, config: ClientConfig, timeout: float = 10.0) -> None:
        self._settings = dict(config.settings)  # security.protocol, sasl.*, ssl.*
        first = config.bootstrap.split(",")[0].strip()
        host, _, port = first.rpartition(":")
        self._bootstrap = (host.strip("[]") or "localhost", int(port or 9092))
        self._timeout = timeout
        self._lock = threading.Lock()
        self._coordinators: dict[str, tuple[str, int]] = {}
        self._sockets: dict[tuple[str, int], socket.socket] = {}
        self._correlation = 0
        self._topic_ids: dict[str, bytes] = {}  # group -> the id its last answer gave

    def topic_id(self, group: str) -> bytes | None:
        """The topic id the group's last offsets answer carried (the key of its per-record
        state: :mod:`.sharelog`)."""
        return self._topic_ids.get(group)

    def offsets(self, group: str, topic: str, partitions: Sequence[int]) -> dict[int, ShareOffsets]:
        with self._lock:
            try:
                coordinator = self._coordinators.get(group)
                if coordinator is None:
                    body = struct.pack(">b", COORDINATOR_KEY_GROUP) + compact_array(
                        [compact_string(group)]
                    )
                    reply = self._call(
                        self._bootstrap, FIND_COORDINATOR, FIND_COORDINATOR_VERSION, body + NO_TAGS
                    )
                    coordinator = self._coordinators[group] = parse_coordinator(reply)
                reply = self._call(
                    coordinator,
                    DESCRIBE_SHARE_GROUP_OFFSETS,
                    DESCRIBE_VERSION,
                    describe_request(group, topic, partitions),
                )
                found = parse_describe(reply, DESCRIBE_VERSION)
                for offsets in found.values():
                    if offsets.topic_id:
                        self._topic_ids[group] = offsets.topic_id
                return found
            except (OSError, struct.error, Truncated) as error:
                self._drop_all()
                raise MQError(RC.RESOURCE_PROBLEM, f"share offsets unavailable: {error}") from None
            except MQError:
                self._coordinators.pop(group, None)
                raise

    def offsets_of_groups(
        self, wanted: Mapping[str, tuple[str, Sequence[int]]]
    ) -> dict[str, dict[int, ShareOffsets]]:
        """Many share groups at once (group → (topic, partitions)): one FindCoordinator for
        the groups not yet located, then their offsets over the one connection kept to each
        coordinator. A group Kafka answers with an error is left out: the caller counts it
        another way."""
        with self._lock:
            try:
                missing = [g for g in wanted if g not in self._coordinators]
                if missing:
                    keys = compact_array([compact_string(g) for g in missing])
                    body = struct.pack(">b", COORDINATOR_KEY_GROUP) + keys + NO_TAGS
                    reply = self._call(
                        self._bootstrap, FIND_COORDINATOR, FIND_COORDINATOR_VERSION, body
                    )
                    self._coordinators.update(parse_coordinators(reply))
                by_coordinator: dict[tuple[str, int], dict[str, tuple[str, Sequence[int]]]] = {}
                for group, asked in wanted.items():
                    address = self._coordinators.get(group)
                    if address is not None:
                        by_coordinator.setdefault(address, {})[group] = asked
                found: dict[str, dict[int, ShareOffsets]] = {}
                for address, groups in by_coordinator.items():
                    for group, one in groups.items():
                        # a group a request: Kafka 4.2 answers one in about a millisecond, and
                        # a request of 50 now in 15 ms, now in 2 s (measured: issue 35)
                        reply = self._call(
                            address, DESCRIBE_SHARE_GROUP_OFFSETS, DESCRIBE_VERSION,
                            describe_groups_request({group: one}),
                        )  # fmt: skip
                        found.update(parse_describe_groups(reply, DESCRIBE_VERSION))
                for group in wanted:
                    if group not in found:
                        self._coordinators.pop(group, None)  # moved, or not there: ask again
                return found
            except (OSError, struct.error, Truncated) as error:
                self._drop_all()
                raise MQError(RC.RESOURCE_PROBLEM, f"share offsets unavailable: {error}") from None

    def _call(self, address: tuple[str, int], api_key: int, version: int, body: bytes) -> bytes:
        sock = self._sockets.get(address)
        if sock is None:
            sock = saslauth.connect(address, self._settings, self._timeout)
            self._sockets[address] = sock
        self._correlation += 1
        payload = request_header(api_key, version, self._correlation, flexible=True) + body
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        (size,) = struct.unpack(">i", saslauth.receive(sock, 4))
        reader = Reader(saslauth.receive(sock, size))
        if reader.int32() != self._correlation:
            raise MQError(RC.RESOURCE_PROBLEM, "Kafka response out of order")
        reader.skip_tags()  # response header v1
        return reader.rest()

    def _drop_all(self) -> None:
        for sock in self._sockets.values():
            sock.close()
        self._sockets.clear()
        self._coordinators.clear()

    def close(self) -> None:
        with self._lock:
            self._drop_all()


__all__ = [
    "ShareOffsets",
    "ShareStateClient",
    "got_unseen",
    "may_hide",
    "parse_describe",
]
