"""One ``mqk serve`` through many Kafka restarts: after each, is a command answered?

A diagnosis tool for the service's lanes (a consumer per input topic, static members of one
group): the restart test goes through two outages in minutes; this goes through one every
minute or so, of varied lengths (some shorter than the group's 10 s session, some longer),
killed (SIGKILL) or stopped (SIGTERM) in turn, publications going on meanwhile. After each
return a command to the control queue must be answered within ``--answer`` seconds; when it
is not, the group as Kafka sees it, the service's lines since the outage and (with
``--debug``) librdkafka's group lines (``debug=cgrp``, every line, through
``devsupport/rdkafka_debug``) are kept in ``--out``, and the run goes on or stops
(``--stop-on-hang``).

    .venv/bin/python -m devsupport.lanes_restart_stress --cycles 30 --debug
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka import clients
from mqkafka.kafka.brokerjars import BrokerError
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localbroker import LocalBroker, port_in_use
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic

HERE = Path(__file__).resolve().parent
MQK = str(Path(sys.executable).with_name("mqk"))


def _wait(check: object, timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(step)
    return False


class Service:
    """``mqk serve`` with its JSON lines kept."""

    def __init__(self, bootstrap: str, ns: str, state: Path, debug: Path | None) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if debug is not None:
            env |= {
                "MQK_KAFKA_DEBUG": "cgrp",
                "MQK_RDKAFKA_DEBUG_FILE": str(debug),
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(HERE / "rdkafka_debug"), env.get("PYTHONPATH")) if p
                ),
            }
        self.log: list[dict[str, object]] = []
        self.ready = threading.Event()
        self.proc = subprocess.Popen(
            [MQK, "serve", "--bootstrap-servers", bootstrap, "--namespace", ns,
             "--instance-id", "1", "--state-dir", str(state)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"msg": line.rstrip()}
            self.log.append(entry)
            if str(entry.get("msg", "")).startswith("broker ready"):
                self.ready.set()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def describe_group(bootstrap: str, group: str) -> str:
    """The group as Kafka sees it: state and each member's instance id and partitions."""
    try:
        admin = clients.admin(ClientConfig(bootstrap))
        found = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
    except Exception as error:  # a diagnosis only
        return f"{group}: not described ({error})"
    members = [
        f"{m.group_instance_id} {m.member_id} "
        f"{sorted((tp.topic, tp.partition) for tp in m.assignment.topic_partitions)}"
        for m in found.members or []
    ]
    return f"{found.state} {members}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--outage", type=float, nargs=2, default=(5.0, 30.0),
                        help="shortest and longest outage, seconds")  # fmt: skip
    parser.add_argument("--answer", type=float, default=120.0)
    parser.add_argument("--rate", type=float, default=50.0, help="publications a second")
    parser.add_argument("--debug", action="store_true", help="librdkafka's cgrp lines kept")
    parser.add_argument("--stop-on-hang", action="store_true")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "lanes-stress")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="lanes-stress-"))
    broker = LocalBroker(work / "kafka", heap="512m")
    info = broker.start(timeout=180)
    bootstrap, port = info.bootstrap, info.port
    ns = f"s{uuid.uuid4().hex[:6]}."
    apply_catalogue(bootstrap, prefix=ns)
    debug = args.out / f"{ns}cgrp.log" if args.debug else None
    service = Service(bootstrap, ns, work / "state", debug)
    if not service.ready.wait(180):
        print("mqk serve did not become ready", service.log[-10:])
        return 2
    client = KafkaPubSub(bootstrap, namespace=ns, user="tester")
    producer = clients.producer(ClientConfig(bootstrap), {"enable.idempotence": True})
    stream = queue_to_topic(DEFAULT_STREAM, ns)
    stop = threading.Event()

    def publish() -> None:  # the load: publications the whole time, buffered while away
        n = 0
        while not stop.is_set():
            md, value = command_message(
                [("Command", "Publish"), ("Topic", "Load/x")],
                body=f"p-{n}".encode(),
                md=MQMD(Persistence=MQPER.PERSISTENT),
            )
            with contextlib.suppress(BufferError):  # full while away: dropped, a load only
                producer.produce(stream, value, b"k", headers=mqmd_to_headers(md))
            producer.poll(0)
            n += 1
            time.sleep(1.0 / args.rate)

    assert client.register("Load/#", queue="APP.LOAD").ok  # type: ignore[union-attr]
    threading.Thread(target=publish, daemon=True).start()
    hangs = 0
    try:
        for cycle in range(1, args.cycles + 1):
            how = "SIGKILL" if cycle % 2 else "SIGTERM"
            outage = rng.uniform(*args.outage)
            went = len(service.log)
            mark = time.strftime("%H:%M:%S", time.gmtime())
            time.sleep(rng.uniform(0.0, 3.0))  # somewhere in a transaction, or between
            if how == "SIGKILL":
                running = broker.info()
                assert running is not None
                os.kill(running.pid, signal.SIGKILL)
                broker.stop()
            else:
                broker.stop()
            time.sleep(outage)
            _wait(lambda: not port_in_use(port), 60)
            try:
                broker.start(port=port, timeout=180)
            except BrokerError:
                broker.start(port=port, timeout=180)
            back = time.monotonic()
            if service.proc.poll() is not None:
                print(f"cycle {cycle}: the service ended, rc {service.proc.returncode}")
                print("\n".join(str(e.get("msg")) for e in service.log[went:]))
                return 1
            try:
                answer = client.register(f"Back/{cycle}", queue="APP.BACK", wait=args.answer)
                ok = answer is not None and answer.ok
                verdict = f"answered in {time.monotonic() - back:.1f} s"
            except TimeoutError:
                ok, verdict = False, f"NO ANSWER in {args.answer:.0f} s"
            group = describe_group(bootstrap, f"{ns}mqk-broker")
            load = os.getloadavg()[0]
            print(f"cycle {cycle} ({mark}): {how} {outage:.0f} s: {verdict}, load {load:.1f}"
                  f"{'' if ok else ': ' + group}", flush=True)  # fmt: skip
            for entry in service.log[went:]:  # the lanes and the state reader replaced, and why
                if "takes its place" in str(entry.get("msg", "")):
                    print(f"    {entry.get('ts')} {entry.get('msg')}", flush=True)
            if not ok:
                hangs += 1
                said = "\n".join(json.dumps(e) for e in service.log[went:])
                (args.out / f"{ns}hang{cycle}.txt").write_text(f"{group}\n{said}\n")
                if args.stop_on_hang:
                    break
        print(f"{hangs} unanswered of {cycle} returns")
    finally:
        stop.set()
        client.close()
        service.kill()
        broker.stop()
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
