"""Bad input on the command line gets one plain message and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException

from mqkafka import cli
from mqkafka.cli import ops, subs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0102", b"\x01\x02" + bytes(22)),  # padded to MQ's 24 bytes
        ("ab" * 24, b"\xab" * 24),
    ],
)
def test_a_correl_id_is_hex_of_at_most_24_bytes(text: str, expected: bytes) -> None:
    assert ops.correl_id(text) == expected


@pytest.mark.parametrize(
    ("text", "says"), [("zz", "not hexadecimal"), ("ab" * 25, "at most 24"), ("abc", "not hex")]
)
def test_a_bad_correl_id_is_refused_by_the_parser(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        ops.correl_id(text)


def test_a_bad_correl_id_on_the_command_line_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["subscribe", "A/#", "--queue", "Q", "--correl-id", "zz"])
    assert exit_.value.code == 2
    assert "--correl-id: 'zz' is not hexadecimal" in capsys.readouterr().err


def test_kafka_that_does_not_answer_is_named_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unreachable(args: argparse.Namespace) -> int:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT, "Broker transport failure"))

    monkeypatch.setattr(subs, "sub_list", unreachable)
    assert cli.main(["sub", "list", "--bootstrap-servers", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mqk: Kafka at 127.0.0.1:1 failed:") and "transport" in err


@pytest.mark.parametrize(
    ("flt", "reason", "says"),
    [
        ("Score >> 2", 3150, "'>'"),  # the broker refused it: say where
        ("Score > 2", 3150, None),  # it compiles here: nothing to add
        ("Score > 2 AND 1 > 2", 2504, "always false"),  # refused as always false: say so
        ("Score >> 2", 3073, None),  # another reason: not the filter's fault
        (None, 3150, None),
    ],
)
def test_a_refused_filter_is_explained_where_it_is_wrong(
    flt: str | None, reason: int, says: str | None
) -> None:
    explained = ops.filter_error(flt, reason)
    if says is None:
        assert explained is None
    else:
        assert explained is not None and explained.startswith("filter: ") and says in explained


def test_a_diff_of_a_snapshot_that_is_not_there_names_those_that_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "tables" / "snapshots" / "subscriptions"
    (root / "snapshot=20261122T172328516987Z").mkdir(parents=True)
    argv = ["pipeline", "diff", "subscriptions", "20261122T172328516987Z", "NOPE"]
    argv += ["--tables", str(tmp_path / "tables"), "--bootstrap-servers", "127.0.0.1:1"]
    assert cli.main(argv) == 2  # before any Spark session is started
    err = capsys.readouterr().err
    assert "no snapshot 'NOPE'" in err and "there are: 20261122T172328516987Z" in err


@pytest.mark.parametrize(
    ("interrupt", "said"),
    [
        (KeyboardInterrupt(), ["mqk: interrupted"]),  # Ctrl-C anywhere: one line
        (cli.common.Interrupted(), []),  # the command said its own line already
    ],
)
def test_ctrl_c_gives_one_line_and_exit_code_130(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    interrupt: BaseException,
    said: list[str],
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise interrupt

    monkeypatch.setattr(subs, "sub_list", interrupted)
    assert cli.main(["sub", "list", "--bootstrap-servers", "127.0.0.1:1"]) == 130
    assert capsys.readouterr().err.splitlines() == said
