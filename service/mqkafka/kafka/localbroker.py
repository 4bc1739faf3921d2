"""A real single-node Apache Kafka (KRaft, broker and controller in one JVM) for this machine.

Its jars come from Maven Central (``brokerjars``). A broker lives in a home directory
(``$MQK_HOME``, default ``~/.mqk``) holding its data, its ``server.properties``, its log file
and a ``broker.json`` state file naming its pid and ports, so that ``mqk kafka status`` and
``mqk kafka stop`` find it from any shell.

Failures (no Java, no Maven, a port in use, a broker that dies or never answers) raise
:class:`BrokerError` with a plain message and the tail of the broker log; nothing here waits
without a deadline.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mqkafka.kafka import localsecurity
from mqkafka.kafka.brokerjars import KAFKA_VERSION, BrokerError, ensure_jars, require_tool
from mqkafka.kafka.clients import MAX_RECORD_BYTES

LOG_TAIL_LINES = 40

# Settings for a one-node cluster: every internal topic with replication factor 1 and few
# partitions (so the first consumer group, transaction or share group starts quickly), share
# groups on (KIP-932, used by the MQI for destructive MQGET), explicit topic creation only (an
# unknown queue is an error, as in MQ), and a log cleaner that wakes often enough for
# compacted state topics to be cleaned while tests watch.
BASE_CONFIG: Mapping[str, str] = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "num.partitions": "1",
    "default.replication.factor": "1",
    "min.insync.replicas": "1",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "10",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "10",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "share.coordinator.state.topic.num.partitions": "10",
    "group.initial.rebalance.delay.ms": "0",
    # The MQI releases records a getter may not take (get by CorrelId); the most deliveries
    # before Kafka archives a record makes its requeue fallback rarer.
    "group.share.delivery.count.limit": "10",
    "auto.create.topics.enable": "false",
    # a topic made without max.message.bytes (by another tool) takes what queue topics take
    "message.max.bytes": str(MAX_RECORD_BYTES),
    "delete.topic.enable": "true",
    "log.cleaner.backoff.ms": "1000",
    "log.retention.check.interval.ms": "30000",
}

LOG4J2 = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:mqk.log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.apache.name = org.apache.kafka
logger.apache.level = INFO
"""


def jvm_options() -> list[str]:
    """Extra JVM options for the broker, from ``$KAFKA_OPTS`` as Kafka's own scripts take them
    (after mqk's, so they win: the test suite's brokers run on the C1 compiler only, which
    halves a start on two cores)."""
    return shlex.split(os.environ.get("KAFKA_OPTS", ""))


@dataclass(frozen=True)
class BrokerInfo:
    """What ``broker.json`` records about a started broker."""

    pid: int
    port: int
    controller_port: int
    home: str
    version: str
    started_at: float
    security: str = "plaintext"  # or "sasl": SCRAM users and ACLs (kafka/localsecurity.py)
    client_files: dict[str, str] | None = None  # user -> properties file (sasl)
    nodes: list[list[int]] | None = None  # a cluster's [node id, pid, port, controller port]

    @property
    def bootstrap(self) -> str:
        ports = [node[2] for node in self.nodes] if self.nodes else [self.port]
        return ",".join(f"127.0.0.1:{port}" for port in ports)


def default_home() -> Path:
    return Path(os.environ.get("MQK_HOME") or Path.home() / ".mqk")


# Listening ports are taken below Linux's ephemeral range (32768-60999 by default): a client
# that keeps reconnecting to a stopped broker's ephemeral port can be handed that very port as
# its own source port and connect to itself (TCP simultaneous open), which then holds the port
# and the broker cannot start on it again.
LISTEN_PORTS = range(20000, 32000)


def free_port() -> int:
    for _ in range(200):
        port = random.choice(LISTEN_PORTS)
        if not port_in_use(port):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # all taken: any
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped) is not alive for our purposes.
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def kafka_processes(home: Path) -> list[int]:
    """Pids of ``kafka.Kafka`` JVMs started from ``home`` (ours, whatever broker.json says):
    its own broker, and a local cluster's nodes in ``home/node-N``."""
    configs = {str(home / "server.properties")}
    configs |= {str(path) for path in home.glob("node-*/server.properties")}
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv]
        if "kafka.Kafka" in words and configs & set(words) and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def random_cluster_id() -> str:
    """Kafka's cluster id form: a UUID as 22 characters of URL-safe base64. Not one that
    starts with '-' (1 in 64): the storage tool would read it as an option and refuse to
    format ("--cluster-id: expected one argument"), as Kafka's own Uuid.randomUuid avoids."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


class LocalBroker:
    """One broker home: start, stop and status of the JVM that serves it."""

    def __init__(
        self,
        home: Path | None = None,
        *,
        cache: Path | None = None,
        version: str = KAFKA_VERSION,
        heap: str = "1g",
        extra_config: Mapping[str, str] | None = None,
        security: str | None = None,
    ) -> None:
        self.home = (home or default_home()).resolve()
        self.cache = cache
        self.version = version
        self.heap = heap
        self.extra_config = dict(extra_config or {})
        formatted = (self.home / "data" / "meta.properties").exists()
        had = localsecurity.home_security(self.home)
        if security is not None and formatted and security != had:
            raise BrokerError(
                f"the broker in {self.home} was made with security '{had}'; to have "
                f"'{security}', stop it and remove {self.home} (or use another MQK_HOME)"
            )
        self.security = security or had
        self.credentials = (
            localsecurity.Credentials.of_home(self.home) if self.security == "sasl" else None
        )
        self._tls_port = 0  # the SASL_SSL listener's, chosen at each start

    def admin_settings(self) -> dict[str, str]:
        """Client settings with the admin user's rights (empty for a plaintext broker)."""
        if self.credentials is None:
            return {}
        return self.credentials.client_settings(localsecurity.ADMIN)

    # --- paths -------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_file(self) -> Path:
        return self.home / "kafka.log"

    @property
    def config_file(self) -> Path:
        return self.home / "server.properties"

    @property
    def state_file(self) -> Path:
        return self.home / "broker.json"

    # --- state -------------------------------------------------------------------------
    def info(self) -> BrokerInfo | None:
        """The recorded broker if its process still runs; stale records are removed."""
        try:
            info = BrokerInfo(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if pid_alive(info.pid):
            return info
        self.state_file.unlink(missing_ok=True)
        return None

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        try:
            text = self.log_file.read_text(errors="replace").splitlines()
        except OSError:
            return "(no broker log yet)"
        return "\n".join(text[-lines:])

    # --- start -------------------------------------------------------------------------
    def start(self, port: int | None = None, timeout: float = 120.0) -> BrokerInfo:
        """Start the broker (or find it running) and return once it answers metadata requests."""
        running = self.info()
        if running is not None:
            wait_until_ready(
                running.bootstrap, timeout=timeout, alive=lambda: True,
                settings=self.admin_settings(),
            )  # fmt: skip
            return running
        java = require_tool("java", "run the Kafka broker")
        libs = ensure_jars(self.version, self.cache)
        if port is not None and port_in_use(port):
            raise BrokerError(f"port {port} on 127.0.0.1 is already in use; choose another one")
        attempts = 1 if port is not None else 3
        # the address of the last start where still free, so what users exported still holds
        ports = (port, None) if port is not None else self._last_ports()
        last: BrokerError | None = None
        for _ in range(attempts):
            try:
                return self._start_once(
                    java, libs, ports[0] or free_port(), ports[1] or free_port(), timeout
                )
            except _PortRace as race:  # a free port was taken between picking and binding
                last = BrokerError(str(race))
                ports = (port, None)
        assert last is not None
        raise last

    def _last_ports(self) -> tuple[int | None, int | None]:
        """The client and controller ports of the last start, those not in use now."""
        try:
            lines = self.config_file.read_text().splitlines()
        except OSError:
            return None, None
        found: dict[str, int] = {}
        for line in lines:
            if line.startswith("listeners="):
                for listener in line.split("=", 1)[1].split(","):
                    name, _, address = listener.partition("://")
                    with contextlib.suppress(ValueError):
                        found[name] = int(address.rsplit(":", 1)[1])
        client = found.get("PLAINTEXT", found.get(localsecurity.CLIENT_LISTENER))
        controller = found.get("CONTROLLER")
        return (
            None if client is None or port_in_use(client) else client,
            None if controller is None or port_in_use(controller) else controller,
        )

    def _start_once(
        self, java: str, libs: Path, port: int, cport: int, timeout: float
    ) -> BrokerInfo:
        self.home.mkdir(parents=True, exist_ok=True)
        self._write_config(port, cport)
        self._format_storage(java, libs)
        log4j = self.home / "log4j2.properties"
        log4j.write_text(LOG4J2)
        cmd = [
            java, f"-Xmx{self.heap}", "-Xms256m", "-XX:+UseG1GC",
            "-Djava.awt.headless=true", f"-Dlog4j2.configurationFile={log4j}",
            f"-Dmqk.log.file={self.log_file}", *jvm_options(),
            "-cp", f"{libs}/*", "kafka.Kafka", str(self.config_file),
        ]  # fmt: skip
        with self.log_file.open("ab") as log:
            log.write(
                f"\n=== mqk: starting Kafka {self.version} on 127.0.0.1:{port} ===\n".encode()
            )
            log.flush()
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.home,
            )
        info = BrokerInfo(
            proc.pid, port, cport, str(self.home), self.version, time.time(), self.security
        )
        if self.credentials is not None:
            files = localsecurity.write_client_files(
                self.home, self.credentials, info.bootstrap,
                f"127.0.0.1:{self._tls_port}", localsecurity.tls_files(self.home)[1],
            )  # fmt: skip
            info = dataclasses.replace(info, client_files={u: str(p) for u, p in files.items()})
        self.state_file.write_text(json.dumps(info.__dict__))
        try:
            wait_until_ready(
                info.bootstrap, timeout=timeout, alive=lambda: proc.poll() is None,
                settings=self.admin_settings(),
            )  # fmt: skip
            if self.credentials is not None:
                self._apply_acls(info.bootstrap)
        except BrokerError as failure:
            self._kill(proc.pid)
            self.state_file.unlink(missing_ok=True)
            tail = self.log_tail()
            if "Address already in use" in tail:
                raise _PortRace(f"a port was taken while the broker started:\n{tail}") from None
            raise BrokerError(f"{failure}\n--- tail of {self.log_file} ---\n{tail}") from None
        return info

    def _apply_acls(self, bootstrap: str) -> None:
        from mqkafka.kafka import clients
        from mqkafka.kafka.clientconfig import ClientConfig

        admin = clients.admin(ClientConfig(bootstrap, self.admin_settings()))
        localsecurity.apply_acls(admin)

    def _write_config(self, port: int, cport: int) -> None:
        config = dict(BASE_CONFIG)
        config.update(
            {
                "controller.quorum.voters": f"1@127.0.0.1:{cport}",
                "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "log.dirs": str(self.data_dir),
            }
        )
        if self.credentials is not None:
            self._tls_port = free_port()
            keystore, _ = localsecurity.tls_files(self.home)
            config.update(
                localsecurity.broker_config(self.credentials, port, cport, self._tls_port, keystore)
            )
        config.update(self.extra_config)
        text = "".join(f"{key}={value}\n" for key, value in config.items())
        self.config_file.write_text("# written by mqk; regenerated at every start\n" + text)

    def _format_storage(self, java: str, libs: Path) -> None:
        if (self.data_dir / "meta.properties").exists():
            return  # already formatted: keep the data across restarts
        cmd = [
            java, "-Xmx256m", "-cp", f"{libs}/*", "kafka.tools.StorageTool", "format",
            "--config", str(self.config_file), "--cluster-id", random_cluster_id(),
            "--feature", "share.version=1", "--ignore-formatted",
        ]  # fmt: skip
        if self.credentials is not None:
            cmd += localsecurity.storage_arguments(self.credentials)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise BrokerError("formatting the broker storage failed:\n" + done.stdout + done.stderr)

    # --- stop --------------------------------------------------------------------------
    def stop(self, timeout: float = 30.0) -> bool:
        """Stop our broker; True when one was running. Leaves no JVM of this home behind."""
        info = self.info()
        pids = set(kafka_processes(self.home))
        if info is not None:
            pids.add(info.pid)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while any(pid_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in pids:
            self._kill(pid)
        self.state_file.unlink(missing_ok=True)
        return bool(pids)

    @staticmethod
    def _kill(pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while pid_alive(pid) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.05)

    def wipe(self) -> None:
        """Stop and remove everything in the home (data, log, config)."""
        self.stop()
        shutil.rmtree(self.home, ignore_errors=True)


class _PortRace(BrokerError):
    pass


def wait_until_ready(
    bootstrap: str,
    *,
    timeout: float,
    alive: Callable[[], bool],
    settings: Mapping[str, str] | None = None,
    brokers: int = 1,
) -> None:
    """Block until ``brokers`` brokers at ``bootstrap`` answer a metadata request, or raise."""
    from mqkafka.kafka import clients
    from mqkafka.kafka.clientconfig import ClientConfig

    admin = clients.admin(ClientConfig(bootstrap, settings or {}), {"log_level": 0})
    deadline = time.monotonic() + timeout
    while True:
        if not alive():
            raise BrokerError("the Kafka broker process exited during start-up")
        try:
            metadata = admin.list_topics(timeout=2)
            if len(metadata.brokers) >= brokers:
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise BrokerError(
                f"the Kafka broker did not answer on {bootstrap} within {timeout:.0f}s"
            )
        time.sleep(0.3)
