"""The listener's connection thread's CPU per asynchronous put, without IBM's client: an
in-process listener fed over a loopback socket with async MQPUT segments as the 9.4 Java
client sends them (MQMD v2 with a MsgId of its own pool each, MQPMO v2 with
MQPMO_ASYNC_RESPONSE | MQPMO_NO_SYNCPOINT, 256 bytes), all sent at once; an MQSTAT then says
they all succeeded. The figure is the connection thread's own CPU clock (not the process's:
the MQI's Kafka clients run in threads of their own), a round's CPU over its puts.

    python -m bench.bench_channel_asyncput --n 20000 --rounds 5 [--profile FILE]

Each round is run three ways in turn: the plain path (the put stream switched off: each
segment through read_segment and Session.call), the put stream (module putstream), and
bench_channel's Python MQI put loop (256 bytes, a fresh non-persistent MD each) in the
benchmark's own thread, whose CPU is compared with the connection thread's.

``--profile``: the connection's thread runs under cProfile for one more round, stats to FILE.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import statistics
import struct
import threading
import time
import uuid

from tests.integration.channel.conftest import connect_qmgr
from tests.integration.channel.rawclient import BIG, RawClient

from bench.kafka_env import kafka
from mqkafka.channel.codec import stat, verbs
from mqkafka.channel.codec.mqstructs import PMO_KIND, md_bytes, new_struct
from mqkafka.channel.codec.segments import Header, SegType
from mqkafka.channel.server import Listener
from mqkafka.channel.settings import ListenerSettings
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.rules.structs import MD

QUEUE = "BENCH.ASYNCPUT.Q"


def put_segments(hobj: int, count: int, first: int, size: int = 256) -> bytes:
    """``count`` async MQPUT segments (TSH, big-endian), MsgIds counted up as the client's."""
    pmo = new_struct(PMO_KIND, 2, BIG, Options=C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT)
    tail = pmo.to_bytes(BIG) + struct.pack(">i", size) + bytes(size)
    pool = b"AMQ " + os.urandom(12)
    out = bytearray()
    for i in range(first, first + count):
        md = md_bytes(MD(Format=b"MQSTR", MsgId=pool + i.to_bytes(8, "big")), BIG, 2)
        rest = md + tail
        body = verbs.ApiHeader(16 + len(rest), 0, 0, hobj).to_bytes(BIG) + rest
        out += Header(SegType.MQPUT, length=28 + len(body)).to_bytes() + body
    return bytes(out)


def async_status(client: RawClient, hobj: int) -> stat.PutStatus:
    rest = stat.stat_bytes(stat.STAT_TYPE_ASYNC_ERROR, stat.new_sts(BIG), BIG)
    comp, reason, _, out = client.verb(SegType.MQSTAT, rest, hobj)
    assert comp == 0, reason
    return stat.parse_sts(out[4:], BIG)


def thread_cpu(thread: threading.Thread) -> float:
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="async puts a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", help="one more round under cProfile, its stats here")
    args = parser.parse_args()
    with kafka() as bootstrap:
        ns = f"b{uuid.uuid4().hex[:8]}."
        apply_catalogue(bootstrap, prefix=ns)
        qmgr = connect_qmgr(bootstrap, ns)  # a fresh catalogue may still elect its leader
        qmgr.define_queue(QUEUE, max_depth=10_000_000)
        settings = ListenerSettings(bootstrap, namespace=ns, port=0)
        listener = Listener(settings)
        _, port = listener.start()
        threading.Thread(target=listener.serve, daemon=True).start()
        client = RawClient(port)
        assert client.conn() == 0
        hobj = client.open(QUEUE, C.MQOO_OUTPUT)
        thread = next(iter(listener.threads.values()))
        warm = put_segments(hobj, 2_000, 0)
        client.sock.sendall(warm)
        assert async_status(client, hobj).succeeded == 2_000
        connection = next(iter(listener.connections.values()))
        stream_take = connection.put_stream.take
        ways = ("plain", "stream", "python")
        per_put: dict[str, list[float]] = {way: [] for way in ways}  # the thread's CPU
        per_put_all: dict[str, list[float]] = {way: [] for way in ways}  # the process's
        rates: dict[str, list[float]] = {way: [] for way in ways}
        py_queue = Queue(qmgr, QUEUE, C.MQOO_OUTPUT)
        body = bytes(256)
        sent = 2_000
        for index in range(args.rounds * 3):  # the plain path, the put stream, the Python MQI
            way = ways[index % 3]
            if way == "python":  # bench_channel's Python MQI loop, in this (its own) thread
                cpu, all_cpu, began = time.thread_time(), time.process_time(), time.perf_counter()
                for _ in range(args.n):
                    py_queue.put(body, MD(Persistence=C.MQPER_NOT_PERSISTENT))
                rates[way].append(args.n / (time.perf_counter() - began))
                per_put[way].append((time.thread_time() - cpu) / args.n)
                per_put_all[way].append((time.process_time() - all_cpu) / args.n)
                continue
            connection.put_stream.take = stream_take if way == "stream" else _never  # type: ignore[method-assign]
            blob = put_segments(hobj, args.n, sent)
            sent += args.n
            cpu, all_cpu = thread_cpu(thread), time.process_time()
            began = time.perf_counter()
            client.sock.sendall(blob)
            status = async_status(client, hobj)
            wall = time.perf_counter() - began
            per_put[way].append((thread_cpu(thread) - cpu) / args.n)
            per_put_all[way].append((time.process_time() - all_cpu) / args.n)
            rates[way].append(args.n / wall)
            assert status.succeeded == args.n and status.failed == 0, status
        py_queue.close()
        connection.put_stream.take = stream_take  # type: ignore[method-assign]
        if args.profile:
            profile_round(client, hobj, args.n, sent, args.profile)
        client.sock.close()
        listener.stop()
        qmgr.disconnect()
    print(f"async MQPUT, {args.n} a round, {args.rounds} rounds each way, in turn; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(
        "  CPU a put, us (the putting thread: the listener's connection thread, or the Python"
        " MQI's; and the whole process, Kafka's client threads included), medians"
    )
    for way in ways:
        print(f"  {way:6} thread " + " ".join(f"{c * 1e6:.1f}" for c in per_put[way])
              + f"  median {statistics.median(per_put[way]) * 1e6:.1f};"
              f" process median {statistics.median(per_put_all[way]) * 1e6:.1f};"
              f" puts a second (wall, noisy) median "
              f"{statistics.median(rates[way]):,.0f}")  # fmt: skip


def _never(pending: bool) -> bool:
    """The put stream switched off: every segment the plain way."""
    return False


def profile_round(client: RawClient, hobj: int, count: int, first: int, path: str) -> None:
    """One round with the listener's connection thread under cProfile (its ``_serve``'s
    calls from the next segment on: the profiler is switched on by a hook the thread runs)."""
    from mqkafka.channel import session as session_module

    profile = cProfile.Profile()
    original = session_module.Session.call
    state = {"on": False}

    def call(self: session_module.Session, seg_type: int, order: str, body: bytes) -> object:
        if not state["on"]:
            state["on"] = True
            profile.enable()
        return original(self, seg_type, order, body)

    session_module.Session.call = call  # type: ignore[method-assign,assignment]
    try:
        client.sock.sendall(put_segments(hobj, count, first))
        async_status(client, hobj)
    finally:
        session_module.Session.call = original  # type: ignore[method-assign]
    time.sleep(0.1)
    # the profile was enabled in the connection's thread; it is dumped from there on its next call
    done = threading.Event()

    def dump(self: session_module.Session, seg_type: int, order: str, body: bytes) -> object:
        profile.disable()
        profile.dump_stats(path)
        done.set()
        return original(self, seg_type, order, body)

    session_module.Session.call = dump  # type: ignore[method-assign,assignment]
    try:
        async_status(client, hobj)
    finally:
        session_module.Session.call = original  # type: ignore[method-assign]
    done.wait(5)


if __name__ == "__main__":
    main()
