"""``mqk kafka start|stop|status``, ``mqk topics apply|list``, ``mqk run`` and ``mqk stop``."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.kafka.brokerjars import BrokerError
from mqkafka.kafka.localbroker import LocalBroker, pid_alive
from mqkafka.kafka.localcluster import LocalCluster
from mqkafka.kafka.provision import apply_catalogue, system_topics


def register(sub: Any) -> None:
    kafka = sub.add_parser("kafka", help="the local single-node Apache Kafka broker")
    kafka_sub = kafka.add_subparsers(dest="action", required=True, metavar="ACTION")
    start = kafka_sub.add_parser("start", help="start it; prints the bootstrap servers last")
    start.add_argument("--port", type=int, help="listener port (default: a free one)")
    start.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for it")
    start.add_argument(
        "--security",
        choices=("plaintext", "sasl"),
        help="sasl: SASL/SCRAM-SHA-512 listener, ACLs, a service and an application user "
        "(fixed when the broker's home is first made; default: as made, else plaintext)",
    )
    start.add_argument(
        "--brokers",
        type=int,
        default=1,
        help="3 or more: a replicated KRaft cluster (replication factor 3, "
        "min.insync.replicas 2) in its own MQK_HOME",
    )
    start.set_defaults(func=kafka_start)
    kafka_sub.add_parser("stop", help="stop it").set_defaults(func=kafka_stop)
    acls = kafka_sub.add_parser(
        "acls", help="the Kafka ACLs of the service and application users; --apply sets them"
    )
    add_bootstrap(acls)
    acls.add_argument("--apply", action="store_true", help="create them (as an admin user)")
    acls.add_argument("--service-user", default="mqk-service")
    acls.add_argument("--app-user", default="mqk-app")
    acls.add_argument(
        "--app-queues",
        default="APP.",
        help="the prefix of the queues the application user owns (default APP.; one per "
        "application principal keeps applications' queues apart)",
    )
    acls.add_argument(
        "--without-share-state",
        dest="share_state",
        action="store_false",
        help="do not let the application user read Kafka's __share_group_state (every share "
        "group's progress: offsets, no messages); browse then counts what was got from the "
        "lag and the getters' answers, which may show a message a getter got out of order "
        "just before it crashed",
    )
    acls.set_defaults(func=kafka_acls)
    kafka_sub.add_parser("status", help="say whether it runs and where").set_defaults(
        func=kafka_status
    )

    topics = sub.add_parser("topics", help="the system topics of topics/catalogue.toml")
    topics_sub = topics.add_subparsers(dest="action", required=True, metavar="ACTION")
    apply = topics_sub.add_parser("apply", help="create or update them (idempotent)")
    add_bootstrap(apply)
    apply.set_defaults(func=topics_apply)
    listing = topics_sub.add_parser(
        "list", help="show the catalogue (the system topics; every queue: mqk queue list)"
    )
    listing.add_argument("--namespace", default="")
    listing.add_argument("--json", action="store_true", help="JSON for scripts")
    listing.set_defaults(func=topics_list)

    run = sub.add_parser("run", help="start Kafka, provision topics, start the broker service")
    run.add_argument(
        "--metrics-port", type=int, default=9464, help="the service's Prometheus port (9464)"
    )
    run.set_defaults(func=run_stack)
    sub.add_parser("stop", help="stop what 'mqk run' started").set_defaults(func=stop_stack)


def _broker() -> LocalBroker:
    return LocalBroker()


def kafka_start(args: argparse.Namespace) -> int:
    began = time.monotonic()
    try:
        broker = LocalBroker(security=args.security)
        if args.brokers > 1:
            if args.security == "sasl" or args.port is not None:
                raise UserError("--brokers takes neither --security sasl nor --port")
            info = LocalCluster(brokers=args.brokers).start(timeout=max(args.timeout, 180))
        else:
            info = broker.start(port=args.port, timeout=args.timeout)
    except BrokerError as error:
        raise UserError(str(error)) from None
    how = "SASL/SCRAM-SHA-512 with ACLs" if info.security == "sasl" else "plaintext"
    if info.nodes:
        how = f"{len(info.nodes)} brokers, replication factor 3, min.insync.replicas 2"
    print(f"Kafka {info.version} running (pid {info.pid}, {how}, {time.monotonic() - began:.1f}s)")
    print(f"data: {Path(info.home) / 'data'}  log: {broker.log_file}")
    for user, path in (info.client_files or {}).items():
        print(f"client properties for {user}: {path}  (--kafka-config / MQK_KAFKA_CONFIG)")
    print(info.bootstrap)
    return 0


def kafka_acls(args: argparse.Namespace) -> int:
    from mqkafka.kafka import clients, localsecurity

    bindings = localsecurity.acl_bindings(
        args.namespace, args.service_user, args.app_user, args.app_queues, args.share_state
    )
    for line in localsecurity.describe(bindings):
        print(line)
    if args.apply:
        count = localsecurity.apply_acls(clients.admin(client_of(args)), bindings)
        print(f"{count} ACL bindings set", file=sys.stderr)
    return 0


def kafka_stop(args: argparse.Namespace) -> int:
    stopped = _broker().stop()
    print("Kafka stopped" if stopped else "Kafka was not running")
    return 0


def kafka_status(args: argparse.Namespace) -> int:
    broker = _broker()
    info = broker.info()
    if info is None:
        print(f"Kafka is not running (home {broker.home})")
        return 3
    print(f"Kafka {info.version} is running at {info.bootstrap} (pid {info.pid})")
    print(f"data: {broker.data_dir}  log: {broker.log_file}")
    return 0


def topics_apply(args: argparse.Namespace) -> int:
    client = client_of(args)
    actions = apply_catalogue(client, prefix=args.namespace)
    for action in actions:
        print(action)
    print(f"topics up to date on {client.bootstrap} ({len(actions)} change(s))")
    return 0


def topics_list(args: argparse.Namespace) -> int:
    if args.json:
        from mqkafka.cli.output import print_json

        print_json([
            {"topic": spec.topic(args.namespace), "kind": spec.kind,
             "partitions": spec.partitions, "purpose": spec.purpose, "config": dict(spec.config)}
            for spec in system_topics()
        ])  # fmt: skip
        return 0
    for spec in system_topics():
        print(f"{spec.topic(args.namespace):40} {spec.kind:6} {spec.partitions:3}  {spec.purpose}")
    return 0


def run_stack(args: argparse.Namespace) -> int:
    broker = _broker()
    try:
        info = broker.start()
    except BrokerError as error:
        raise UserError(str(error)) from None
    actions = apply_catalogue(info.bootstrap)
    print(f"Kafka {info.version}: {info.bootstrap} (log {broker.log_file})")
    print(f"system topics: {len(system_topics())} declared, {len(actions)} change(s) applied")
    pid = _start_service(broker.home, info.bootstrap, args.metrics_port)
    print(
        f"broker service: running (pid {pid}, log {broker.home / 'serve.log'},"
        f" metrics :{args.metrics_port})"
    )
    made = define_developer_queues(info.bootstrap)
    said = ", ".join(made) if made else "already defined"
    print(f"developer queues, as IBM MQ's developer container has them: {said}")
    try:
        pid = _start_listener(broker.home, info.bootstrap)
        print(
            f"MQ client listener: 127.0.0.1:{LISTENER_PORT} (pid {pid}, log "
            f"{broker.home / 'listen.log'}): MQ classes for Java and JMS connect with host "
            f"127.0.0.1, port {LISTENER_PORT}, channel DEV.APP.SVRCONN, queue manager QM1"
        )
    except UserError as error:  # the stack works without it (port 1414 taken, say)
        print(f"MQ client listener: not started: {error}")
    print()
    bin_dir = Path(sys.executable).parent  # the virtualenv's, where `mqk` is installed
    print("\n".join(next_steps(info.bootstrap, broker.home, bin_dir, shutil.which("mqk"))))
    return 0


# What IBM MQ's developer container defines, so that IBM's tutorials and samples (and the
# pymqi examples here) find their queues on the local stack: three local queues, a dead-letter
# queue and a model queue for temporary dynamic reply queues.
DEVELOPER_QUEUES = ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE")
DEVELOPER_MODEL_QUEUE = "DEV.APP.MODEL.QUEUE"


def define_developer_queues(bootstrap: str) -> list[str]:
    """Defines the developer queues that are missing (a second ``mqk run`` keeps what the
    first defined, and their messages); returns the names defined now."""
    import mqkafka.mqi as pymqi
    from mqkafka.mq.reasons import RC

    C = pymqi.CMQC
    qmgr = pymqi.connect("QM1", bootstrap_servers=bootstrap)
    definitions: list[tuple[str, dict[str, int]]] = [(q, {}) for q in DEVELOPER_QUEUES]
    model = {"queue_type": C.MQQT_MODEL, "definition_type": C.MQQDT_TEMPORARY_DYNAMIC}
    definitions.append((DEVELOPER_MODEL_QUEUE, model))
    made = []
    try:
        for name, attributes in definitions:
            try:
                qmgr.define_queue(name, **attributes)
            except pymqi.MQMIError as error:
                if error.reason != RC.OBJECT_ALREADY_EXISTS:
                    raise UserError(f"{name}: cannot define it: {error}") from None
            else:
                made.append(name)
    finally:
        qmgr.disconnect()
    return made


def next_steps(bootstrap: str, home: Path, bin_dir: Path, mqk_on_path: str | None) -> list[str]:
    """What to type after ``mqk run``. The shell that typed ``make run`` has neither the
    Makefile's ``MQK_HOME`` (without it ``mqk stop`` looks in ``~/.mqk`` and finds nothing)
    nor, often, the virtualenv's ``bin`` on its PATH."""
    steps = ["Next:", f"  export MQK_BOOTSTRAP_SERVERS={bootstrap} MQK_HOME={home}"]
    if mqk_on_path is None or Path(mqk_on_path).parent.resolve() != bin_dir.resolve():
        steps.append(f'  export PATH="{bin_dir}:$PATH"')
    return [
        *steps,
        "  mqk subscribe 'Sport/#' --queue MY.QUEUE    # RegSub",
        "  mqk publish Sport/Soccer '4-1' --retain      # Publish",
        "  mqk sub list; mqk retained list              # the broker's state",
        "  mqk stop                                     # stop the service and Kafka",
    ]


def _service_pid(home: Path) -> int | None:
    try:
        pid = int((home / "serve.pid").read_text())
    except (OSError, ValueError):
        return None
    return pid if pid_alive(pid) else None


def _start_service(home: Path, bootstrap: str, metrics_port: int, timeout: float = 120.0) -> int:
    running = _service_pid(home)
    if running is not None:
        return running
    log_path = home / "serve.log"
    with log_path.open("ab") as log:
        since = log.tell()  # the log is kept across runs: an older "broker ready" is not this one
        proc = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "serve", "--bootstrap-servers", bootstrap,
             "--metrics-port", str(metrics_port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    (home / "serve.pid").write_text(str(proc.pid))
    wait_until_ready(proc, log_path, since, timeout)
    return proc.pid


LISTENER_PORT = 1414


def _start_listener(home: Path, bootstrap: str, timeout: float = 120.0) -> int:
    """``mqk listen`` on port 1414 beside the service (``listen.pid``, ``listen.log``)."""
    running = _pid_of(home / "listen.pid")
    if running is not None:
        return running
    log_path = home / "listen.log"
    with log_path.open("ab") as log:
        since = log.tell()
        proc = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "listen", "--bootstrap-servers", bootstrap,
             "--port", str(LISTENER_PORT)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    (home / "listen.pid").write_text(str(proc.pid))
    wait_until_ready(proc, log_path, since, timeout, marker="channel: listening on")
    return proc.pid


def _pid_of(path: Path) -> int | None:
    try:
        pid = int(path.read_text())
    except (OSError, ValueError):
        return None
    return pid if pid_alive(pid) else None


def wait_until_ready(
    proc: subprocess.Popen[bytes],
    log_path: Path,
    since: int,
    timeout: float,
    marker: str = "broker ready",
) -> None:
    """Until the service ``proc`` logs "broker ready" after byte ``since`` of its log; a
    UserError if it exits first or takes longer than ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        exited = proc.poll() is not None  # before reading: all it wrote is then in the log
        with log_path.open("rb") as log:
            log.seek(since)
            written = log.read().decode(errors="replace")
        if marker in written:
            return
        if exited:
            tail = "\n".join(written.splitlines()[-20:])
            raise UserError(f"the broker service exited during start-up:\n{tail}")
        time.sleep(0.2)
    raise UserError(f"the broker service did not become ready; see {log_path}")


def stop_stack(args: argparse.Namespace) -> int:
    home = _broker().home
    listener = _pid_of(home / "listen.pid")
    if listener is not None:
        os.kill(listener, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while pid_alive(listener) and time.monotonic() < deadline:
            time.sleep(0.2)
        print("MQ client listener stopped")
    (home / "listen.pid").unlink(missing_ok=True)
    pid = _service_pid(home)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        print("broker service stopped")
    (home / "serve.pid").unlink(missing_ok=True)
    return kafka_stop(args)
