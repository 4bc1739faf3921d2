"""A replicated Kafka on this machine: ``mqk kafka start --brokers 3``.

Three KRaft nodes, each broker and controller in one JVM (a quorum of three voters), every
internal topic and every topic created with the cluster's defaults replicated three times with
``min.insync.replicas`` 2: one node may stop while producers with ``acks=all`` (idempotent and
transactional ones, as the service's) keep writing. Node 1 lives in the home itself, as the
one-node broker does; node N in ``home/node-N``. ``broker.json`` names every node, so
``mqk kafka status``/``stop`` and the bootstrap list cover them all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from mqkafka.kafka.brokerjars import KAFKA_VERSION, BrokerError, ensure_jars, require_tool
from mqkafka.kafka.localbroker import (
    BASE_CONFIG,
    LOG4J2,
    BrokerInfo,
    LocalBroker,
    default_home,
    free_port,
    jvm_options,
    pid_alive,
    port_in_use,
    random_cluster_id,
    wait_until_ready,
)

REPLICATED: dict[str, str] = {
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
}


class LocalCluster:
    def __init__(
        self,
        home: Path | None = None,
        *,
        brokers: int = 3,
        cache: Path | None = None,
        version: str = KAFKA_VERSION,
        heap: str = "768m",
    ) -> None:
        if brokers < 3:
            raise BrokerError("a replicated cluster has 3 brokers or more")
        self.home = (home or default_home()).resolve()
        self.brokers = brokers
        self.cache = cache
        self.version = version
        self.heap = heap
        self._single = LocalBroker(self.home, cache=cache, version=version)

    def node_dir(self, node: int) -> Path:
        return self.home if node == 1 else self.home / f"node-{node}"

    def info(self) -> BrokerInfo | None:
        return self._single.info()

    def start(self, timeout: float = 180.0) -> BrokerInfo:
        running = self.info()
        if running is not None and running.nodes:
            wait_until_ready(
                running.bootstrap, timeout=timeout, alive=lambda: True, brokers=self.brokers
            )
            return running
        if running is not None or (
            (self.home / "data" / "meta.properties").exists()
            and not (self.home / "cluster-id").exists()
        ):
            raise BrokerError(
                f"{self.home} holds a one-node broker; give the cluster another MQK_HOME"
            )
        java = require_tool("java", "run the Kafka brokers")
        libs = ensure_jars(self.version, self.cache)
        self.home.mkdir(parents=True, exist_ok=True)
        id_file = self.home / "cluster-id"
        if not id_file.exists():
            id_file.write_text(random_cluster_id())
        cluster_id = id_file.read_text().strip()
        ports = [self._ports(n) for n in range(1, self.brokers + 1)]
        voters = ",".join(f"{n}@127.0.0.1:{c}" for n, (_, c) in enumerate(ports, start=1))
        procs = []
        for node, (port, cport) in enumerate(ports, start=1):
            self._write_config(node, port, cport, voters)
            self._format(java, libs, node, cluster_id)
            procs.append(self._launch(java, libs, node, port))
        nodes = [
            [n, p.pid, port, c]
            for n, (p, (port, c)) in enumerate(zip(procs, ports, strict=True), start=1)
        ]
        info = BrokerInfo(
            procs[0].pid, ports[0][0], ports[0][1], str(self.home), self.version, time.time(),
            nodes=nodes,
        )  # fmt: skip
        self._single.state_file.write_text(json.dumps(info.__dict__))
        try:
            wait_until_ready(
                info.bootstrap, timeout=timeout, brokers=self.brokers,
                alive=lambda: all(p.poll() is None for p in procs),
            )  # fmt: skip
        except BrokerError as failure:
            self.stop()
            raise BrokerError(f"{failure}\n--- tail of {self._single.log_file} ---\n"
                              f"{self._single.log_tail()}") from None  # fmt: skip
        return info

    def _ports(self, node: int) -> tuple[int, int]:
        """The node's last ports where still free (what users exported still holds)."""
        found: dict[str, int] = {}
        try:
            for line in (self.node_dir(node) / "server.properties").read_text().splitlines():
                if line.startswith("listeners="):
                    for listener in line.split("=", 1)[1].split(","):
                        name, _, address = listener.partition("://")
                        found[name] = int(address.rsplit(":", 1)[1])
        except (OSError, ValueError):
            pass
        port, cport = found.get("PLAINTEXT"), found.get("CONTROLLER")
        return (
            port if port is not None and not port_in_use(port) else free_port(),
            cport if cport is not None and not port_in_use(cport) else free_port(),
        )

    def _write_config(self, node: int, port: int, cport: int, voters: str) -> None:
        folder = self.node_dir(node)
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            **BASE_CONFIG,
            **REPLICATED,
            "node.id": str(node),
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
            "log.dirs": str(folder / "data"),
        }
        text = "".join(f"{key}={value}\n" for key, value in config.items())
        (folder / "server.properties").write_text("# written by mqk; regenerated at start\n" + text)

    def _format(self, java: str, libs: Path, node: int, cluster_id: str) -> None:
        folder = self.node_dir(node)
        if (folder / "data" / "meta.properties").exists():
            return
        cmd = [
            java, "-Xmx256m", "-cp", f"{libs}/*", "kafka.tools.StorageTool", "format",
            "--config", str(folder / "server.properties"), "--cluster-id", cluster_id,
            "--feature", "share.version=1", "--ignore-formatted",
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise BrokerError(f"formatting node {node} failed:\n{done.stdout}{done.stderr}")

    def _launch(self, java: str, libs: Path, node: int, port: int) -> subprocess.Popen[bytes]:
        folder = self.node_dir(node)
        log4j = folder / "log4j2.properties"
        log4j.write_text(LOG4J2)
        log_file = folder / "kafka.log"
        cmd = [
            java, f"-Xmx{self.heap}", "-Xms128m", "-XX:+UseG1GC", "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={log4j}", f"-Dmqk.log.file={log_file}", *jvm_options(),
            "-cp", f"{libs}/*", "kafka.Kafka", str(folder / "server.properties"),
        ]  # fmt: skip
        with log_file.open("ab") as log:
            log.write(f"\n=== mqk: starting node {node} on 127.0.0.1:{port} ===\n".encode())
            log.flush()
            return subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, cwd=folder,
            )  # fmt: skip

    def kill_node(self, node: int) -> None:
        """SIGKILL one node (a broker and controller lost at once)."""
        info = self.info()
        if info is None or not info.nodes:
            raise BrokerError("the cluster is not running")
        pid = next(n[1] for n in info.nodes if n[0] == node)
        os.kill(pid, signal.SIGKILL)
        while pid_alive(pid):
            time.sleep(0.05)

    def stop(self) -> bool:
        return self._single.stop()


__all__ = ["REPLICATED", "LocalCluster"]
