"""Client connections as pymqi programs make them: connection names, MQSERVER, CD/SCO/CSP."""

from __future__ import annotations

from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.channel import bootstrap_of, client_bootstrap, parse_mqserver, text
from mqkafka.mqi.rules.errors import MQMIError


@pytest.mark.parametrize(
    ("conn_name", "bootstrap"),
    [
        ("broker(9092)", "broker:9092"),
        (" broker ( 9092 ) ", "broker:9092"),
        ("a(1),b(2)", "a:1,b:2"),
        ("127.0.0.1(37423)", "127.0.0.1:37423"),
        ("broker", "broker:9092"),  # no port: Kafka's, not MQ's 1414
        ("broker:9093", "broker:9093"),
    ],
)
def test_a_connection_name_names_kafka_bootstrap_servers(conn_name: str, bootstrap: str) -> None:
    assert bootstrap_of(conn_name) == bootstrap


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("DEV.APP.SVRCONN/TCP/broker(9092)", ("DEV.APP.SVRCONN", "TCP", "broker(9092)")),
        ("CH/tcp/a(1),b(2)", ("CH", "TCP", "a(1),b(2)")),
    ],
)
def test_mqserver_is_channel_transport_connection_name(
    value: str, parsed: tuple[str, str, str]
) -> None:
    assert parse_mqserver(value) == parsed


@pytest.mark.parametrize("value", ["broker(9092)", "CH/TCP/", "CH/LU62/host(1)", "//"])
def test_a_malformed_mqserver_is_2058(value: str) -> None:
    with pytest.raises(MQMIError) as raised:
        parse_mqserver(value)
    assert raised.value.reason == RC.Q_MGR_NAME_ERROR


@pytest.mark.parametrize(
    ("conn_info", "bootstrap_servers", "environ", "expected"),
    [
        (b"h(3)", "k:1", {"MQSERVER": "C/TCP/m(2)", "MQK_BOOTSTRAP_SERVERS": "e:4"}, "k:1"),
        # the environment's Kafka wins over the program's MQ listener (IBM's samples say 1414)
        (b"localhost(1414)", None, {"MQK_BOOTSTRAP_SERVERS": "e:4"}, "e:4"),
        (b"h(3)", None, {"MQSERVER": "C/TCP/m(2)", "MQK_BOOTSTRAP_SERVERS": "e:4"}, "e:4"),
        (None, None, {"MQSERVER": "C/TCP/m(2)", "MQK_BOOTSTRAP_SERVERS": "e:4"}, "e:4"),
        (b"h(3)", None, {"MQSERVER": "C/TCP/m(2)"}, "h:3"),
        ("h(3)", None, {"MQK_BOOTSTRAP_SERVERS": " "}, "h:3"),
        (None, None, {"MQSERVER": "C/TCP/m(2)"}, "m:2"),
        (None, None, {"MQK_BOOTSTRAP_SERVERS": "e:4"}, "e:4"),
    ],
)
def test_the_first_source_given_names_the_servers(
    conn_info: bytes | str | None,
    bootstrap_servers: str | None,
    environ: dict[str, str],
    expected: str,
) -> None:
    assert client_bootstrap(conn_info, bootstrap_servers, environ) == expected


def test_the_client_config_files_servers_win_over_the_connection_name(tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("bootstrap.servers=f:5\nsecurity.protocol=PLAINTEXT\n")
    environ = {"MQK_KAFKA_CONFIG": str(config)}
    assert client_bootstrap(b"localhost(1414)", None, environ) == "f:5"
    assert client_bootstrap(None, None, {**environ, "MQK_BOOTSTRAP_SERVERS": "e:4"}) == "e:4"
    config.write_text("security.protocol=PLAINTEXT\n")  # no servers in it: the program's
    assert client_bootstrap(b"localhost(1414)", None, environ) == "localhost:1414"


def test_no_source_at_all_is_2059() -> None:
    with pytest.raises(MQMIError) as raised:
        client_bootstrap(None, None, {})
    assert raised.value.reason == RC.Q_MGR_NOT_AVAILABLE


@pytest.mark.parametrize(
    ("value", "expected"),
    [(b"QM1", "QM1"), ("QM1", "QM1"), (b"QM1     ", "QM1"), (b"QM1\0\0", "QM1"), (None, None)],
)
def test_names_are_str_or_bytes(value: str | bytes | None, expected: str | None) -> None:
    assert text(value) == expected


def test_a_name_of_another_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        text(7)  # type: ignore[arg-type]


def test_cd_takes_what_ibm_samples_set() -> None:
    cd = pymqi.CD()
    cd.ChannelName = "DEV.APP.SVRCONN"  # type: ignore[assignment]  # str, as samples do
    cd.ConnectionName = b"localhost(1414)"
    cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
    cd.TransportType = pymqi.CMQC.MQXPT_TCP
    cd.SSLCipherSpec = "ANY_TLS12"  # type: ignore[assignment]
    assert (cd.ChannelName, cd.ConnectionName) == (b"DEV.APP.SVRCONN", b"localhost(1414)")
    assert (cd.ChannelType, cd.TransportType) == (6, 2)


@pytest.mark.parametrize(
    ("struct", "field", "default"),
    [
        (pymqi.CD, "ChannelType", C.MQCHT_SENDER),
        (pymqi.CD, "TransportType", C.MQXPT_LU62),
        (pymqi.CD, "MaxMsgLength", 4194304),
        (pymqi.SCO, "StrucId", b"SCO "),
        (pymqi.SCO, "KeyRepository", b""),
        (pymqi.CSP, "StrucId", b"CSP "),
        (pymqi.CSP, "AuthenticationType", C.MQCSP_AUTH_NONE),
    ],
)
def test_structure_defaults_are_pymqis(struct: type, field: str, default: object) -> None:
    assert getattr(struct(), field) == default


def test_an_unknown_cd_field_is_2277_and_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as raised:
        pymqi.CD(NoSuchField=1)
    assert isinstance(raised.value, MQMIError) and raised.value.reason == RC.CD_ERROR


@pytest.mark.parametrize(
    ("alias", "struct"),
    [
        ("md", "MD"),
        ("gmo", "GMO"),
        ("pmo", "PMO"),
        ("od", "OD"),
        ("sd", "SD"),
        ("cd", "CD"),
        ("sco", "SCO"),
        ("cno", "CNO"),
        ("csp", "CSP"),
        ("cmho", "CMHO"),
        ("pd", "PD"),
        ("smpo", "SMPO"),
        ("impo", "IMPO"),
    ],
)
def test_pymqis_lower_case_spellings(alias: str, struct: str) -> None:
    assert getattr(pymqi, alias) is getattr(pymqi, struct)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MQCHT_CLNTCONN", 6),
        ("MQCHT_SVRCONN", 7),
        ("MQXPT_TCP", 2),
        ("MQDC_MANAGED", 1),
        ("MQDC_PROVIDED", 2),
        ("MQCHK_REQUIRED_ADMIN", 2),
        ("MQCA_Q_MGR_NAME", 2015),
        ("MQIA_INHIBIT_PUT", 10),
        ("MQIA_INHIBIT_GET", 9),
        ("MQRFH_STRUC_ID", b"RFH "),
        ("MQTYPE_STRING", 1024),
    ],
)
def test_constants_pymqi_programs_import(name: str, value: object) -> None:
    for module in (pymqi.CMQC, pymqi.CMQXC, pymqi.CMQCFC):
        assert getattr(module, name) == value


def test_pyiferror_and_mqmierror_share_pymqis_base() -> None:
    assert issubclass(pymqi.PYIFError, pymqi.Error) and issubclass(pymqi.MQMIError, pymqi.Error)
    assert str(pymqi.PYIFError("not connected")) == "PYMQI Error: not connected"
