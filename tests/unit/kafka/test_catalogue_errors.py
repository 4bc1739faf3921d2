"""A catalogue file (``topics/catalogue.toml`` format, named by ``MQK_TOPICS``) that cannot be
used is one line naming the file, the line and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqkafka.kafka.clients import MAX_RECORD_BYTES
from mqkafka.kafka.localbroker import BASE_CONFIG
from mqkafka.kafka.provision import CatalogueError, _holds, load_catalogue, queue_topic_config
from mqkafka.mqi.rules.catalogue import DEFAULT_MAX_MSG_LENGTH

GOOD = """\
[defaults]
partitions = 2

[[queue]]
name = "SYSTEM.BROKER.CONTROL.QUEUE"
partitions = 1

[[state]]
name = "mqk-retained"
[state.config]
"cleanup.policy" = "compact"
"segment.ms" = 3600000
"""


def test_the_shipped_catalogue_loads() -> None:
    names = [spec.name for spec in load_catalogue()]
    assert "SYSTEM.BROKER.CONTROL.QUEUE" in names and "mqk-subscriptions" in names


def test_the_shipped_queue_topics_take_what_the_producers_and_the_local_broker_take() -> None:
    """MQ's 4 MiB MaxMsgLength in a record: topics, producers and the local broker agree."""
    assert queue_topic_config() == {"max.message.bytes": str(MAX_RECORD_BYTES)}
    assert all(
        s.config["max.message.bytes"] == str(MAX_RECORD_BYTES)
        for s in load_catalogue()
        if s.kind == "queue"
    )
    assert BASE_CONFIG["message.max.bytes"] == str(MAX_RECORD_BYTES)
    assert MAX_RECORD_BYTES >= DEFAULT_MAX_MSG_LENGTH + 64 * 1024


def test_a_good_file_loads_with_its_defaults_and_configs_as_text(tmp_path: Path) -> None:
    path = tmp_path / "catalogue.toml"
    path.write_text(GOOD, encoding="utf-8")
    queue, state = load_catalogue(path)
    assert (queue.name, queue.kind, queue.partitions, queue.replication_factor) == (
        "SYSTEM.BROKER.CONTROL.QUEUE",
        "queue",
        1,
        1,
    )
    assert (state.kind, state.partitions) == ("state", 2)  # the [defaults] partitions
    assert state.config == {"cleanup.policy": "compact", "segment.ms": "3600000"}


def test_every_queue_topic_takes_the_queue_config_and_its_own_over_it(tmp_path: Path) -> None:
    path = tmp_path / "catalogue.toml"
    path.write_text(
        '[defaults]\npartitions = 2\n[defaults.queue_config]\n"max.message.bytes" = 5000\n\n'
        '[[queue]]\nname = "Q1"\n\n[[queue]]\nname = "Q2"\n[queue.config]\n"segment.ms" = 1\n'
        '\n[[state]]\nname = "mqk-x"\n',
        encoding="utf-8",
    )
    q1, q2, state = load_catalogue(path)
    assert q1.config == {"max.message.bytes": "5000"} and q1.partitions == 2
    assert q2.config == {"max.message.bytes": "5000", "segment.ms": "1"}
    assert state.config == {}  # a state topic is no queue
    assert queue_topic_config(path) == {"max.message.bytes": "5000"}


def test_mqk_topics_names_the_catalogue_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[[queue]]\nname = "Q1"\n', encoding="utf-8")
    monkeypatch.setenv("MQK_TOPICS", str(path))
    assert [spec.name for spec in load_catalogue()] == ["Q1"]


Q = '[[queue]]\nname = "Q1"\n'  # a good entry to put problems after (lines 1-2)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # TOML syntax: tomllib's own words, at its line
        (Q + "partitions = \n", "3: Invalid value (column 14)"),
        (Q + '[[queue]\nname = "Q2"\n', "3: Expected ']]' at the end of an array declaration"),
        (Q + 'name = "Q2"\npartitions = 1\n', "3: Cannot overwrite a value (column 12)"),
        (Q + 'name = "Q2"', "3: Cannot overwrite a value"),  # at the end of the document
        (Q + 'purpose = "never closed', "3: Unterminated string"),
        # the catalogue's own rules, at the line of the key (or table) at fault
        (Q + "partitions = 0\n", "3: partitions is a whole number from 1, not 0"),
        (Q + 'partitions = "4"\n', "3: partitions is a whole number from 1, not '4'"),
        (Q + "partitions = true\n", "3: partitions is a whole number from 1, not True"),
        (Q + "replication_factor = 1.5\n", "3: replication_factor is a whole number from 1"),
        (Q + "partition = 4\n", "3: unknown key 'partition' (name, partitions,"),
        (Q + "\n[[queue]]\npartitions = 2\n", "4: a [[queue]] needs a name (a string)"),
        (Q + "\n[[queue]]\nname = 7\n", "5: a [[queue]] needs a name (a string)"),
        (Q + '\n[[queue]]\nname = "BAD NAME"\n', "5: queue 'BAD NAME' is not 1-48 characters"),
        (Q + '\n[[queue]]\nname = "Q1"\n', "5: queue 'Q1' is declared twice"),
        (Q + '[[state]]\nname = "mqk retained"\n', "4: state topic 'mqk retained' is not 1-249"),
        (Q + "purpose = 3\n", "3: purpose is a string"),
        (Q + "config = 3\n", "3: config is a table of topic configs"),
        (Q + '[queue.config]\n"segment.ms" = [1, 2]\n', "4: config 'segment.ms' is a string,"),
        (Q + "[defaults]\npartitions = -1\n", "4: partitions is a whole number from 1, not -1"),
        (Q + "[defaults]\nretention = 1\n", "4: unknown key 'retention' (partitions, replicati"),
        (Q + "[defaults]\nqueue_config = 1\n", "4: queue_config is a table of topic configs"),
        (
            Q + '[defaults]\npartitions = 1\n[defaults.queue_config]\n"a" = [1]\n',
            "6: queue_config 'a' is a string, number or boolean",
        ),
        (Q + "\n[[queues]]\nname = 'Q2'\n", "4: unknown table 'queues' (defaults, queue, state)"),
        ("queue = 'Q1'\n", "1: 'queue' is an array of tables: [[queue]]"),
        ("# fine\n\ndefaults = 1\n", "3: 'defaults' is a table: [defaults]"),
        (b"# caf\xe9\n", "1: not UTF-8 text"),
    ],
)
def test_a_bad_catalogue_is_one_line_naming_file_line_and_problem(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    path = tmp_path / "catalogue.toml"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(CatalogueError) as raised:
        load_catalogue(path)
    said = str(raised.value)
    assert said.startswith(f"{path}:{message}"), said
    assert "\n" not in said


def test_an_unreadable_catalogue_is_named_with_the_reason(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    with pytest.raises(CatalogueError) as raised:
        load_catalogue(missing)
    assert str(raised.value) == f"{missing}: cannot read: No such file or directory"


@pytest.mark.parametrize(
    ("name", "have", "declared", "holds"),
    [
        ("max.message.bytes", "5242880", "5242880", True),
        ("max.message.bytes", "9000000", "5242880", True),  # an operator raised it: kept
        ("max.message.bytes", "1048588", "5242880", False),  # raised to the declaration
        ("max.message.bytes", None, "5242880", False),
        ("segment.ms", "9000000", "3600000", False),  # any other config: as declared
        ("cleanup.policy", "compact", "compact", True),
    ],
)
def test_provisioning_raises_max_message_bytes_and_never_lowers_it(
    name: str, have: str | None, declared: str, holds: bool
) -> None:
    assert _holds(name, have, declared) is holds
