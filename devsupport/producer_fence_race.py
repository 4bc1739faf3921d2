"""Does a transactional producer whose init_transactions timed out while Kafka was away fence
the successor that takes its place? (``kafka.txrecovery._renew_producer``.)

A local broker is stopped with a transaction open; a second producer's init_transactions
times out meanwhile, and a third one's init begins, Kafka still away (the recovery tries
again while it is). Kafka starts again; the third one's init returns and it commits a few
transactions. With ``alive`` the second one is still open then (a destroy not yet done):
its InitProducerId, tried again inside librdkafka, lands after the third's and fences it at
its first transaction, 0.2-0.7 s after its init (librdkafka 2.16, Kafka 4.2: 5 cycles of
5). With ``closed`` it was purged and closed first, as ``txcalls.retire_producer`` does: 4
of 4 held their epoch.

    .venv/bin/python -m devsupport.producer_fence_race alive closed
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localbroker import LocalBroker, port_in_use
from mqkafka.kafka.txcalls import retire_producer

TOPIC = "fence-race"


def _init_until_done(producer: Any, result: list[str]) -> None:
    """init_transactions tried again while it times out, as the recovery does."""
    for _ in range(30):
        try:
            producer.init_transactions(10)
            result.append("ok")
            return
        except clients.KafkaException as error:
            if not error.args[0].retriable():
                result.append(error.args[0].name())
                return
    result.append("never")


def cycle(broker: LocalBroker, config: ClientConfig, port: int, mode: str, n: int) -> str:
    role = {"transactional.id": f"fence-race-{mode}-{n}"}
    first = clients.producer(config, role)
    first.init_transactions(60)
    first.begin_transaction()
    first.produce(TOPIC, b"open")
    first.flush(10)
    broker.stop()
    second = clients.producer(config, role)
    try:
        second.init_transactions(3)
    except clients.KafkaException as error:
        print(f"{mode}: the second producer's init: {error.args[0].name()}", flush=True)
    del first
    if mode == "closed":
        retire_producer(second).result(10)
    third = clients.producer(config, role)
    result: list[str] = []
    initialising = threading.Thread(target=_init_until_done, args=(third, result))
    initialising.start()
    while port_in_use(port):
        time.sleep(0.5)
    broker.start(port=port, timeout=180)
    back = time.monotonic()
    initialising.join()
    if result != ["ok"]:
        return f"the third producer's init: {result}"
    inited = time.monotonic() - back
    for done in range(20):
        try:
            third.begin_transaction()
            third.produce(TOPIC, b"after")
            third.commit_transaction(10)
        except clients.KafkaException as error:
            return (f"fenced at its transaction {done + 1}, {time.monotonic() - back - inited:.2f}"
                    f" s after its init ({error.args[0].name()})")  # fmt: skip
        time.sleep(0.25)
    return "held its epoch for 20 transactions"


def main(modes: list[str]) -> None:
    broker = LocalBroker(Path(tempfile.mkdtemp()) / "kafka", heap="512m")
    bootstrap = broker.start(timeout=180).bootstrap
    port = int(bootstrap.rsplit(":", 1)[1])
    config = ClientConfig(bootstrap)
    try:
        admin = clients.admin(config)
        admin.create_topics([clients.NewTopic(TOPIC, 1, 1)])[TOPIC].result(30)
        for n, mode in enumerate(modes):
            print(f"{mode}: the third producer {cycle(broker, config, port, mode, n)}", flush=True)
    finally:
        broker.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or ["alive", "closed"])
