"""Client connections the way pymqi programs make them: MQCD, MQSCO, MQCSP and ``MQSERVER``.

A pymqi client names its queue manager's listener in a channel definition
(``CD(ChannelName=..., ConnectionName="host(port)")``), in the ``MQSERVER`` environment
variable (``CHANNEL/TCP/host(port)``), or in ``pymqi.connect``'s ``conn_info``. Here the
listener is Kafka: each ``host(port)`` of a connection name is a bootstrap server. Which
one is used, first that is given:

| source | example |
|---|---|
| ``bootstrap_servers=`` (this product's keyword) | ``"broker:9092"`` |
| ``MQK_BOOTSTRAP_SERVERS`` (else ``bootstrap.servers`` of ``$MQK_KAFKA_CONFIG``) | ``"k:9092"`` |
| ``conn_info`` / ``CD.ConnectionName`` | ``"broker(9092),broker2(9092)"`` |
| ``MQSERVER`` | ``"DEV.APP.SVRCONN/TCP/broker(9092)"`` |

The environment's Kafka wins over the program's connection name: an MQ program names MQ's
listener, often hard-coded (IBM's getting-started sample connects to ``localhost(1414)``),
and runs unchanged where ``MQK_BOOTSTRAP_SERVERS`` says where Kafka is (``make run`` prints
it). A program's ``host(port)`` is used as Kafka's address only when the environment names
none.

The channel name, TLS settings (SCO) and password are accepted and not used: Kafka's own
client settings (``producer_config``) carry security. ``MQK_NAMESPACE`` chooses the namespace
when the program does not (the broker service reads the same variable).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from mqkafka.kafka.clientconfig import ClientConfigError, load_client_config
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import failed
from mqkafka.mqi.rules.structs import MQStruct, _chars

KAFKA_DEFAULT_PORT = 9092  # a connection name without "(port)": Kafka's port, not MQ's 1414
_HOST_PORT = re.compile(r"\s*([^(\s]+)\s*\(\s*(\d+)\s*\)\s*")


def text(value: str | bytes | None) -> str | None:
    """A name argument as pymqi programs pass it (``str`` or ``bytes``, maybe blank-padded)."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray):
        value = bytes(value).split(b"\0", 1)[0].decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"a name must be str or bytes, not {type(value).__name__}")
    return value.rstrip(" ")


def bootstrap_of(conn_name: str) -> str:
    """Kafka bootstrap servers of an MQ connection name (``host(port)[,host(port)...]``)."""
    hosts = []
    for part in conn_name.split(","):
        match = _HOST_PORT.fullmatch(part)
        if match:
            hosts.append(f"{match.group(1)}:{match.group(2)}")
        elif part.strip():
            host = part.strip()
            hosts.append(host if ":" in host else f"{host}:{KAFKA_DEFAULT_PORT}")
    if not hosts:
        raise failed(RC.Q_MGR_NAME_ERROR, f"no host in connection name {conn_name!r}")
    return ",".join(hosts)


def parse_mqserver(value: str) -> tuple[str, str, str]:
    """``(channel, transport, connection name)`` of an ``MQSERVER`` value.

    MQ refuses a malformed MQSERVER at MQCONN with MQRC_Q_MGR_NAME_ERROR (2058); only TCP is
    a transport Kafka can stand behind.
    """
    parts = [part.strip() for part in value.split("/", 2)]
    if len(parts) != 3 or not all(parts):
        raise failed(RC.Q_MGR_NAME_ERROR, f"MQSERVER is not CHANNEL/TCP/host(port): {value!r}")
    channel, transport, conn_name = parts
    if transport.upper() != "TCP":
        raise failed(RC.Q_MGR_NAME_ERROR, f"MQSERVER transport {transport!r}: only TCP")
    return channel, transport.upper(), conn_name


def client_bootstrap(
    conn_info: str | bytes | None,
    bootstrap_servers: str | None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The bootstrap servers a connection uses (the module's table, first found)."""
    env = os.environ if environ is None else environ
    if bootstrap_servers:
        return bootstrap_servers
    found = env.get("MQK_BOOTSTRAP_SERVERS", "").strip() or _from_client_config(env).strip()
    if found:
        return found
    conn_name = text(conn_info)
    if conn_name:
        return bootstrap_of(conn_name)
    mqserver = env.get("MQSERVER", "").strip()
    if mqserver:
        return bootstrap_of(parse_mqserver(mqserver)[2])
    raise failed(
        RC.Q_MGR_NOT_AVAILABLE,
        "no MQK_BOOTSTRAP_SERVERS, bootstrap.servers in $MQK_KAFKA_CONFIG, conn_info, "
        "CD.ConnectionName or MQSERVER",
    )


def _from_client_config(env: Mapping[str, str]) -> str:
    """``bootstrap.servers`` of the Kafka client properties file ($MQK_KAFKA_CONFIG)."""
    try:
        return load_client_config(environ=env).bootstrap
    except ClientConfigError as error:
        if "no Kafka bootstrap servers" in str(error):
            return ""
        raise failed(RC.Q_MGR_NOT_AVAILABLE, str(error)) from None


def environment_options(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Settings a program's environment gives (``MQK_NAMESPACE``)."""
    env = os.environ if environ is None else environ
    namespace = env.get("MQK_NAMESPACE")
    return {"namespace": namespace} if namespace else {}


@dataclass(init=False)
class CD(MQStruct):
    """MQCD, the channel definition of a client connection (pymqi's fields and defaults,
    without the exit and list pointers, which only mean something to a C client)."""

    _reason: ClassVar[int] = RC.CD_ERROR

    ChannelName: bytes = _chars(C.MQ_CHANNEL_NAME_LENGTH)
    Version: int = C.MQCD_VERSION_11
    ChannelType: int = C.MQCHT_SENDER
    TransportType: int = C.MQXPT_LU62
    Desc: bytes = _chars(C.MQ_CHANNEL_DESC_LENGTH)
    QMgrName: bytes = _chars(C.MQ_Q_MGR_NAME_LENGTH)
    XmitQName: bytes = _chars(C.MQ_Q_NAME_LENGTH)
    ShortConnectionName: bytes = _chars(C.MQ_SHORT_CONN_NAME_LENGTH)
    MCAName: bytes = _chars(C.MQ_MCA_NAME_LENGTH)
    ModeName: bytes = _chars(C.MQ_MODE_NAME_LENGTH)
    TpName: bytes = _chars(C.MQ_TP_NAME_LENGTH)
    BatchSize: int = 50
    DiscInterval: int = 6000
    ShortRetryCount: int = 10
    ShortRetryInterval: int = 60
    LongRetryCount: int = 999999999
    LongRetryInterval: int = 1200
    SecurityExit: bytes = _chars(C.MQ_EXIT_NAME_LENGTH)
    MsgExit: bytes = _chars(C.MQ_EXIT_NAME_LENGTH)
    SendExit: bytes = _chars(C.MQ_EXIT_NAME_LENGTH)
    ReceiveExit: bytes = _chars(C.MQ_EXIT_NAME_LENGTH)
    SeqNumberWrap: int = 999999999
    MaxMsgLength: int = 4194304
    PutAuthority: int = C.MQPA_DEFAULT
    DataConversion: int = C.MQCDC_NO_SENDER_CONVERSION
    SecurityUserData: bytes = _chars(C.MQ_EXIT_DATA_LENGTH)
    MsgUserData: bytes = _chars(C.MQ_EXIT_DATA_LENGTH)
    SendUserData: bytes = _chars(C.MQ_EXIT_DATA_LENGTH)
    ReceiveUserData: bytes = _chars(C.MQ_EXIT_DATA_LENGTH)
    UserIdentifier: bytes = _chars(C.MQ_USER_ID_LENGTH)
    Password: bytes = _chars(C.MQ_PASSWORD_LENGTH)
    MCAUserIdentifier: bytes = _chars(C.MQ_USER_ID_LENGTH)
    MCAType: int = C.MQMCAT_PROCESS
    ConnectionName: bytes = _chars(C.MQ_CONN_NAME_LENGTH)
    RemoteUserIdentifier: bytes = _chars(C.MQ_USER_ID_LENGTH)
    RemotePassword: bytes = _chars(C.MQ_PASSWORD_LENGTH)
    MsgRetryExit: bytes = _chars(C.MQ_EXIT_NAME_LENGTH)
    MsgRetryUserData: bytes = _chars(C.MQ_EXIT_DATA_LENGTH)
    MsgRetryCount: int = 10
    MsgRetryInterval: int = 1000
    HeartbeatInterval: int = 300
    BatchInterval: int = 0
    NonPersistentMsgSpeed: int = C.MQNPMS_FAST
    StrucLength: int = 0
    ExitNameLength: int = C.MQ_EXIT_NAME_LENGTH
    ExitDataLength: int = C.MQ_EXIT_DATA_LENGTH
    MsgExitsDefined: int = 0
    SendExitsDefined: int = 0
    ReceiveExitsDefined: int = 0
    ClustersDefined: int = 0
    NetworkPriority: int = 0
    LongMCAUserIdLength: int = 0
    LongRemoteUserIdLength: int = 0
    MCASecurityId: bytes = _chars(C.MQ_SECURITY_ID_LENGTH)
    RemoteSecurityId: bytes = _chars(C.MQ_SECURITY_ID_LENGTH)
    SSLCipherSpec: bytes = _chars(C.MQ_SSL_CIPHER_SPEC_LENGTH)
    SSLPeerName: bytes = _chars(1024)
    SSLPeerNameLength: int = 0
    SSLClientAuth: int = 0
    KeepAliveInterval: int = -1
    LocalAddress: bytes = _chars(C.MQ_LOCAL_ADDRESS_LENGTH)
    BatchHeartbeat: int = 0
    CLWLChannelRank: int = 0
    CLWLChannelPriority: int = 0
    CLWLChannelWeight: int = 50
    ChannelMonitoring: int = 0
    ChannelStatistics: int = 0
    SharingConversations: int = 10
    PropertyControl: int = C.MQPROP_COMPATIBILITY
    MaxInstances: int = 999999999
    MaxInstancesPerClient: int = 999999999
    ClientChannelWeight: int = 0
    ConnectionAffinity: int = 1
    BatchDataLimit: int = 5000
    UseDLQ: int = 2
    DefReconnect: int = 0
    CertificateLabel: bytes = _chars(C.MQ_CERT_LABEL_LENGTH)


@dataclass(init=False)
class SCO(MQStruct):
    """MQSCO, the TLS configuration options (accepted; Kafka's client settings carry TLS)."""

    _reason: ClassVar[int] = RC.OPTIONS_ERROR

    StrucId: bytes = _chars(4, C.MQSCO_STRUC_ID)
    Version: int = C.MQSCO_VERSION_5
    KeyRepository: bytes = _chars(C.MQ_SSL_KEY_REPOSITORY_LENGTH)
    CryptoHardware: bytes = _chars(C.MQ_SSL_CRYPTO_HARDWARE_LENGTH)
    AuthInfoRecCount: int = 0
    AuthInfoRecOffset: int = 0
    KeyResetCount: int = C.MQSCO_RESET_COUNT_DEFAULT
    FipsRequired: int = 0
    CertificateValPolicy: int = 0
    CertificateLabel: bytes = _chars(C.MQ_CERT_LABEL_LENGTH)
    KeyRepoPassword: bytes = _chars(C.MQ_CSP_PASSWORD_LENGTH)
    HTTPSKeyStore: bytes = _chars(C.MQ_SSL_KEY_REPOSITORY_LENGTH)


@dataclass(init=False)
class CSP(MQStruct):
    """MQCSP, the security parameters: a user id here is the connection's user."""

    _reason: ClassVar[int] = RC.CSP_ERROR

    StrucId: bytes = _chars(4, C.MQCSP_STRUC_ID)
    Version: int = C.MQCSP_VERSION_1
    AuthenticationType: int = C.MQCSP_AUTH_NONE
    CSPUserId: bytes = _chars(1024)
    CSPPassword: bytes = _chars(C.MQ_CSP_PASSWORD_LENGTH)
    Token: bytes = _chars(8192)
    InitialKey: bytes = _chars(C.MQ_CSP_PASSWORD_LENGTH)


# pymqi's lower-case spellings.
cd, sco, csp = CD, SCO, CSP

__all__ = [
    "CD",
    "CSP",
    "SCO",
    "bootstrap_of",
    "cd",
    "client_bootstrap",
    "csp",
    "environment_options",
    "parse_mqserver",
    "sco",
    "text",
]
