"""Idempotent provisioning of the system topics declared in ``topics/catalogue.toml``.

Creates what is missing, raises partition counts that are below the declaration and sets the
declared configs. It never deletes a topic, never lowers a partition count or a topic's
``max.message.bytes`` (an operator may have raised it) and never touches a config the
catalogue does not name, so running it at every start is safe (``mqk serve`` and
every MQI connection do). Two things it refuses rather than repairs, each in one line: a state
topic that exists with another ``cleanup.policy`` than declared (it may hold other data; a
compacted topic is what makes the state survive), and, where topics may not be created
(``--no-create-topics``), every system topic that is missing.

Every queue topic, the catalogue's and those the MQI and the service make for other queues,
takes the catalogue's ``[defaults.queue_config]`` (:func:`queue_topic_config`).

The catalogue ships inside the package (``mqkafka.resources``); ``MQK_TOPICS`` names another.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqkafka import resources
from mqkafka.kafka import clients, topicadmin
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaEdgeError
from mqkafka.mq.errors import MQError
from mqkafka.state.kinds import Changelog, changelogs
from mqkafka.wire.names import queue_to_topic, validate_object_name


class ProvisionError(KafkaEdgeError):
    """The cluster's system topics are not as the catalogue needs them (one line)."""


class CatalogueError(ProvisionError):
    """The catalogue file (``MQK_TOPICS``) cannot be used: ``FILE:LINE: problem``, one line."""


@dataclass(frozen=True)
class TopicSpec:
    """One declared topic: a queue (named by MQ rules) or a state topic (a Kafka name)."""

    name: str
    kind: str  # "queue" or "state"
    partitions: int
    replication_factor: int
    purpose: str
    config: Mapping[str, str] = field(default_factory=dict)

    def topic(self, prefix: str = "") -> str:
        if self.kind == "queue":
            return queue_to_topic(self.name, prefix)
        return prefix + self.name


def catalogue_path() -> Path | None:
    """The catalogue named by ``MQK_TOPICS``; None: the one shipped in the package."""
    named = os.environ.get("MQK_TOPICS")
    return Path(named) if named else None


def load_catalogue(path: Path | None = None) -> list[TopicSpec]:
    """The declared topics. A catalogue that cannot be used is a ``CatalogueError`` naming
    the file, the line and the problem."""
    return _load(path).specs


def queue_topic_config(path: Path | None = None) -> dict[str, str]:
    """The configs every queue topic is made with (``[defaults.queue_config]``)."""
    return dict(_load(path).queue_config)


@dataclass(frozen=True)
class _Catalogue:
    specs: list[TopicSpec]
    queue_config: Mapping[str, str]


def _load(path: Path | None) -> _Catalogue:
    chosen = path or catalogue_path()
    if chosen is None:
        return _parse_catalogue(resources.catalogue_text(), "catalogue.toml (packaged)")
    try:
        raw = chosen.read_bytes()
    except OSError as error:
        raise CatalogueError(f"{chosen}: cannot read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise CatalogueError(f"{chosen}:{line}: not UTF-8 text") from None
    return _parse_catalogue(text, str(chosen))


_KINDS = ("queue", "state")
_ENTRY_KEYS = ("name", "partitions", "replication_factor", "purpose", "config")
_DEFAULT_KEYS = ("partitions", "replication_factor")
_QUEUE_CONFIG = "queue_config"  # [defaults.queue_config]: every queue topic's configs
# configs a topic may hold higher than declared: provisioning raises them, never lowers them
_AT_LEAST = frozenset({"max.message.bytes"})
_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
_TOML_WHERE = re.compile(r"(.*) \(at (?:line (\d+), column (\d+)|end of document)\)", re.DOTALL)
_Table = tuple[str, int]  # a table's name and, for [[array]] tables, which one
_ROOT: _Table = ("", 0)


class _Bad(Exception):
    """A problem found in the parsed document, with the table and key it is about."""

    def __init__(self, problem: str, table: _Table = _ROOT, key: str = "") -> None:
        super().__init__(problem)
        self.problem, self.table, self.key = problem, table, key


def _parse_catalogue(text: str, source: str) -> _Catalogue:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _TOML_WHERE.fullmatch(str(error))
        if found is None:
            raise CatalogueError(f"{source}: {error}") from None
        problem, line, column = found.groups()
        where = f"{line}: {problem} (column {column})" if line else f"{_last(text)}: {problem}"
        raise CatalogueError(f"{source}:{where}") from None
    try:
        return _specs(doc)
    except _Bad as bad:
        line = _line_of(_key_lines(text), bad.table, bad.key)
        raise CatalogueError(f"{source}:{line}: {bad.problem}") from None


def _specs(doc: dict[str, Any]) -> _Catalogue:
    for name in doc:
        if name not in (*_KINDS, "defaults"):
            raise _Bad(f"unknown table {name!r} (defaults, queue, state)", (name, 0), name)
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise _Bad("'defaults' is a table: [defaults]", key="defaults")
    where: _Table = ("defaults", 0)
    for key in defaults:
        if key not in (*_DEFAULT_KEYS, _QUEUE_CONFIG):
            known = ", ".join((*_DEFAULT_KEYS, _QUEUE_CONFIG))
            raise _Bad(f"unknown key {key!r} ({known})", where, key)
    base = {key: _count(defaults.get(key, 1), where, key) for key in _DEFAULT_KEYS}
    queue_config = _config(defaults.get(_QUEUE_CONFIG, {}), where, _QUEUE_CONFIG)
    specs: list[TopicSpec] = []
    seen: set[tuple[str, str]] = set()
    for kind in _KINDS:
        entries = doc.get(kind, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise _Bad(f"{kind!r} is an array of tables: [[{kind}]]", key=kind)
        for index, entry in enumerate(entries):
            where = (kind, index)
            for key in entry:
                if key not in _ENTRY_KEYS:
                    raise _Bad(f"unknown key {key!r} ({', '.join(_ENTRY_KEYS)})", where, key)
            name = entry.get("name")
            if not isinstance(name, str):
                raise _Bad(f"a [[{kind}]] needs a name (a string)", where, "name")
            if kind == "queue":
                try:
                    validate_object_name(name)
                except MQError as error:
                    problem = f"queue {error.detail.removeprefix('object name ')}"
                    raise _Bad(problem, where, "name") from None
            elif not _KAFKA_TOPIC.fullmatch(name):
                raise _Bad(f"state topic {name!r} is not 1-249 of A-Z a-z 0-9 . _ -", where, "name")
            if (kind, name) in seen:
                raise _Bad(f"{kind} {name!r} is declared twice", where, "name")
            seen.add((kind, name))
            purpose = entry.get("purpose", "")
            if not isinstance(purpose, str):
                raise _Bad("purpose is a string", where, "purpose")
            specs.append(
                TopicSpec(
                    name=name,
                    kind=kind,
                    partitions=_count(
                        entry.get("partitions", base["partitions"]), where, "partitions"
                    ),
                    replication_factor=_count(
                        entry.get("replication_factor", base["replication_factor"]),
                        where,
                        "replication_factor",
                    ),
                    purpose=purpose,
                    config={
                        **(queue_config if kind == "queue" else {}),
                        **_config(entry.get("config", {}), where),
                    },
                )
            )
    return _Catalogue(specs, queue_config)


def _count(value: object, where: _Table, key: str) -> int:
    """Partitions or replicas: a whole number from 1 (TOML's true is not one); replicas may
    also be -1, the cluster's default.replication.factor."""
    replicas = key == "replication_factor"
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (value < 1 and not (replicas and value == -1))
    ):
        allowed = "from 1, or -1 for the cluster's default" if replicas else "from 1"
        raise _Bad(f"{key} is a whole number {allowed}, not {value!r}", where, key)
    return value


def _config(value: object, where: _Table, name: str = "config") -> dict[str, str]:
    """Topic configs as Kafka takes them: text, with TOML numbers and booleans spelt out."""
    if not isinstance(value, dict):
        raise _Bad(f"{name} is a table of topic configs", where, name)
    config = {}
    for key, setting in value.items():
        if isinstance(setting, bool):
            config[key] = "true" if setting else "false"
        elif isinstance(setting, str | int | float):
            config[key] = str(setting)
        else:
            raise _Bad(f"{name} {key!r} is a string, number or boolean", where, f"{name}.{key}")
    return config


def _key_lines(text: str) -> dict[_Table, dict[str, int]]:
    """Where tables and keys are written: table -> {"": its header's line, key: line}. A scan
    of the usual layout (one key per line, ``[state.config]`` inside the last ``[[state]]``,
    ``[defaults.queue_config]`` inside ``[defaults]``);
    a key it does not find is reported at its table's line."""
    found: dict[_Table, dict[str, int]] = {_ROOT: {}}
    arrays: dict[str, int] = {}
    table, prefix = _ROOT, ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("[["):
            name = line[2:].split("]]", 1)[0].strip()
            arrays[name] = arrays.get(name, -1) + 1
            table, prefix = (name, arrays[name]), ""
            found[table] = {"": number}
        elif line.startswith("["):
            name = line[1:].split("]", 1)[0].strip()
            head, _, rest = name.partition(".")
            head = head.strip()
            if rest and (head in arrays or (head, 0) in found):  # [defaults.queue_config] too
                table, prefix = (head, arrays.get(head, 0)), rest.strip() + "."
                found[table].setdefault(rest.strip(), number)
            else:
                table, prefix = (name, 0), ""
                found.setdefault(table, {"": number})
        elif "=" in line and not line.startswith("#"):
            key = line.split("=", 1)[0].strip().strip("\"'")
            found.setdefault(table, {}).setdefault(prefix + key, number)
    return found


def _line_of(found: dict[_Table, dict[str, int]], table: _Table, key: str) -> int:
    keys = found.get(table)
    if keys is None:  # not a [table]: a key of the root (``queue = 1``)
        keys, key = found[_ROOT], table[0]
    for candidate in (key, key.split(".", 1)[0], ""):
        if candidate in keys:
            return keys[candidate]
    return 1


def _last(text: str) -> int:
    return max(len(text.splitlines()), 1)


def spec_named(name: str, specs: list[TopicSpec] | None = None) -> TopicSpec:
    for spec in specs if specs is not None else load_catalogue():
        if spec.name == name:
            return spec
    raise KeyError(name)


def with_state_topics(
    specs: Iterable[TopicSpec], declared: Iterable[Changelog] | None = None
) -> list[TopicSpec]:
    """``specs``, then every state topic of the registry (``mqkafka.state.kinds``: the state
    kinds' changelogs and the MQI's, or ``declared``) that ``specs`` do not declare, as the
    registry declares it: so a new state kind's topic is provisioned from its one entry."""
    specs = list(specs)
    named = {s.name for s in specs if s.kind == "state"}
    return specs + [
        TopicSpec(c.topic, "state", c.partitions, -1, c.purpose, dict(c.config))
        for c in (changelogs() if declared is None else declared)
        if c.topic not in named
    ]


def system_topics() -> list[TopicSpec]:
    """Every topic provisioning makes: the catalogue's, then the registry's state topics the
    catalogue does not declare."""
    return with_state_topics(load_catalogue())


def apply_catalogue(
    kafka: ClientConfig | str | Any,
    *,
    prefix: str = "",
    specs: Iterable[TopicSpec] | None = None,
    create: bool = True,
    timeout: float = 30.0,
) -> list[str]:
    """Bring the cluster in line with the catalogue; returns the actions taken (may be empty).

    ``kafka``: where (bootstrap servers, a client configuration, or an admin client made by
    :mod:`mqkafka.kafka.clients`). ``create=False``: change nothing, only check that every
    declared topic exists. ``specs`` None: ``system_topics()``."""
    if isinstance(kafka, str):
        kafka = ClientConfig(kafka)
    admin = clients.admin(kafka) if isinstance(kafka, ClientConfig) else kafka
    specs = system_topics() if specs is None else list(specs)
    existing = topicadmin.existing_topics(admin, timeout)
    missing = [s for s in specs if s.topic(prefix) not in existing]
    present = [s for s in specs if s.topic(prefix) in existing]
    _refuse_wrong_policy(admin, present, prefix, timeout)
    if not create:
        if missing:
            names = ", ".join(s.topic(prefix) for s in missing)
            raise ProvisionError(
                f"system topics missing and --no-create-topics given: {names} "
                "(create them with 'mqk topics apply', or let the service create them)"
            )
        return []
    created = topicadmin.create_topics(
        admin,
        [
            topicadmin.TopicRequest(
                s.topic(prefix), s.partitions, s.replication_factor, dict(s.config)
            )
            for s in missing
        ],
        timeout,
    )
    actions = [f"created {topic}" for topic in created]
    grow = {
        s.topic(prefix): s.partitions for s in present if existing[s.topic(prefix)] < s.partitions
    }
    topicadmin.raise_partitions(admin, grow, timeout)
    actions += [f"raised partitions of {topic}" for topic in grow]
    configured = [s for s in present if s.config]
    current = topicadmin.topic_configs(admin, [s.topic(prefix) for s in configured], timeout)
    for spec in configured:
        have = current.get(spec.topic(prefix), {})
        drift = {k: v for k, v in spec.config.items() if not _holds(k, have.get(k), v)}
        if drift:
            topicadmin.set_topic_configs(admin, spec.topic(prefix), drift)
            actions.append(f"set {', '.join(sorted(drift))} on {spec.topic(prefix)}")
    return actions


def _holds(name: str, have: str | None, declared: str) -> bool:
    """Whether a topic's config ``have`` is as declared (or, for ``_AT_LEAST``, above it)."""
    if have == declared:
        return True
    if name in _AT_LEAST and have is not None and have.isdigit() and declared.isdigit():
        return int(have) >= int(declared)
    return False


def _refuse_wrong_policy(admin: Any, present: list[TopicSpec], prefix: str, timeout: float) -> None:
    declared = {
        s.topic(prefix): s.config["cleanup.policy"] for s in present if "cleanup.policy" in s.config
    }
    if not declared:
        return
    current = topicadmin.topic_configs(admin, declared, timeout)
    for topic, policy in declared.items():
        have = current.get(topic, {}).get("cleanup.policy")
        if have is not None and set(have.split(",")) != set(policy.split(",")):
            raise ProvisionError(
                f"topic {topic} exists with cleanup.policy={have}, but it holds state and must "
                f"be {policy}: delete it or point --namespace elsewhere"
            )
