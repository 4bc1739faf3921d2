"""How long ``mqk queue list`` (and the console's Queues page: the same ``QueueReader``) takes
for many queues: every queue's depth and readers, asked of Kafka.

    python -m bench.bench_listing [--queues 100]

Makes ``--queues`` queues through the MQI (DEFINE QLOCAL: topic, share group, catalogue), puts
a message on every other one and gets one back from every fourth (so share groups have
started and acknowledged), then times ``QueueReader.list()`` a few times and prints the best
and the median, and the depth it counted (the check that nothing was skipped).
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid

from bench.kafka_env import kafka
from mqkafka.kafka.clientconfig import load_client_config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queues", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with kafka() as bootstrap:
        import mqkafka.mqi as pymqi
        from mqkafka.mqi import CMQC
        from mqkafka.query.queues import QueueReader

        namespace = f"bl{uuid.uuid4().hex[:6]}."
        config = load_client_config(bootstrap)
        qmgr = pymqi.connect("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        names = [f"LIST.Q{i:04d}" for i in range(args.queues)]
        began = time.monotonic()
        for i, name in enumerate(names):
            qmgr.define_queue(name)
            if i % 2 == 0:
                queue = pymqi.Queue(qmgr, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
                queue.put(b"one")
                queue.put(b"two")
                if i % 4 == 0:
                    queue.get(
                        None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
                    )
                queue.close()
        qmgr.disconnect()
        expected = sum(2 - (i % 4 == 0) for i in range(0, args.queues, 2))
        print(f"{args.queues} queues made in {time.monotonic() - began:.1f} s")
        times, depth = [], None
        reader = QueueReader(config, namespace)
        try:
            for _ in range(args.rounds):
                began = time.monotonic()
                views = reader.list()
                times.append(time.monotonic() - began)
                depth = sum(v.depth or 0 for v in views if v.name.startswith("LIST."))
        finally:
            reader.close()
        print(
            f"queue list of {len(views)} queues: best {min(times):.3f} s, median "
            f"{statistics.median(times):.3f} s over {args.rounds} rounds; depth counted "
            f"{depth} of {expected} put and not got"
        )


if __name__ == "__main__":
    main()
