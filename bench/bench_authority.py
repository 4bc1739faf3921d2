"""What identity assurance and authority on every delivery cost (issue 20); prints figures,
asserts nothing.

    python -m bench.bench_authority [--rounds 15] [--batch 2000]

In-process, through the service's ``Dispatcher`` (decode, identity check, plans or engine,
records built, activity events), in four configurations side by side, rounds interleaved,
best of ``--rounds``:

- ``no ACL``: allow-all, identity off (the default);
- ``ACL 100``: 100 rules, the ones that decide for the bench's users last (so an uncached
  decision walks all of them), subscribe authority asked for every copy;
- ``hmac``: ``--identity hmac``, every record signed by its sender (signed beforehand: the
  sender's cost is printed apart);
- ``ACL 100 + hmac``: both.

Fan-out 1: 50 topics with one subscription each (five subscriber userids), publications
round the topics with bodies of 64-1,024 random bytes and a new MsgId each, as MQ puts them;
with the service's publication plans (as ``mqk serve`` runs) and without them (every
publication through the engine and the matcher, where the per-copy check lives). RegSub/s:
new subscriptions, each RegSub a REQUEST answered with a reply. Kafka is not in the
measurement: the records are built, not produced (``bench_service`` measures the service on
Kafka; what this adds is all on the dispatcher's side). Rates are of CPU time on the
dispatcher's thread; the Python function calls per message are printed beside them, a cost
the load of a shared machine does not move.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import random
import time

from bench.bench_fanout import NoReplica, Record, TopicsExist
from mqkafka.activity.builder import ActivityRecorder
from mqkafka.client.kafka_pubsub import command_message
from mqkafka.engine.authority import ALLOW_ALL, AclPolicy, AuthorityPort
from mqkafka.engine.context import EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.identity.guard import IdentityGuard
from mqkafka.identity.keys import UserKey, new_key
from mqkafka.identity.signing import signed_headers
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.config import ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.service.tuning import tune_collector, tune_malloc
from mqkafka.wire.names import queue_to_topic

TOPICS = 50
SUBSCRIBERS = [f"sub{i}" for i in range(5)]
PUBLISHER = "pub"
USERS = [PUBLISHER, *SUBSCRIBERS]
KEYS = {user: new_key(user) for user in USERS}


def acl_100() -> AclPolicy:
    """96 rules for other departments, then the 4 that decide for the bench's users."""
    rules = []
    for i in range(24):
        rules += [
            f"deny  subscribe dept{i} Dept{i}/Secret/#",
            f"allow subscribe dept{i} Dept{i}/#",
            f"allow publish   dept{i} Dept{i}/#",
            f"allow put       dept{i} DEPT{i}.*",
        ]
    rules += [
        "allow put       *   SYSTEM.BROKER.*",
        "allow put       *   BENCH.*",
        "allow subscribe sub* Bench/#",
        "allow publish   pub Bench/#",
    ]
    assert len(rules) == 100
    return AclPolicy.parse("\n".join(rules))


class Config:
    def __init__(self, name: str, authority: AuthorityPort, hmac: bool, plans: bool) -> None:
        self.name, self.authority, self.hmac, self.plans = name, authority, hmac, plans

    def dispatcher(self) -> Dispatcher:
        filters = SelectorFilterPort()
        queues = QueueDirectory(TopicsExist())
        ctx = EngineContext(
            config=EngineConfig(), filters=filters, queues=queues, authority=self.authority
        )
        return Dispatcher(
            state=EngineState(filters=filters),
            ctx=ctx,
            replica=NoReplica(),  # type: ignore[arg-type]
            outputs=Outputs(ServiceConfig(bootstrap="unused:9092"), queues),
            metrics=Metrics(),
            activity=ActivityRecorder("mqk-activity", "QM1", "bench"),
            plans=self.plans,
            identity=self.guard(),
        )

    def guard(self) -> IdentityGuard | None:
        return IdentityGuard(KEYS, self.authority) if self.hmac else None


def signed(record: Record, user: str) -> Record:
    """The record as a client holding ``user``'s key puts it."""
    key: UserKey = KEYS[user]
    record._headers = signed_headers(key, record.topic(), record.value(), record.headers())
    return record


def regsubs(first: int, count: int, hmac: bool) -> list[Record]:
    batch = []
    for i in range(first, first + count):
        user = SUBSCRIBERS[i % len(SUBSCRIBERS)]
        md = MQMD(
            MsgType=MQMT.REQUEST,
            MsgId=os.urandom(24),
            ReplyToQ="BENCH.REPLIES",
            UserIdentifier=user,
        )
        pairs = [("Command", "RegSub"), ("Topic", f"Bench/New/{i}"), ("QName", f"BENCH.N{i}")]
        put_md, value = command_message(pairs, md=md)
        record = Record(CONTROL_QUEUE, value, put_md, i)
        batch.append(signed(record, user) if hmac else record)
    return batch


def publications(count: int, hmac: bool, rng: random.Random) -> list[Record]:
    batch = []
    for i in range(count):
        md = MQMD(MsgId=os.urandom(24), UserIdentifier=PUBLISHER)
        pairs = [("Command", "Publish"), ("Topic", f"Bench/T{i % TOPICS}")]
        body = os.urandom(rng.randint(64, 1024))
        put_md, value = command_message(pairs, body=body, md=md)
        record = Record(DEFAULT_STREAM, value, put_md, i)
        batch.append(signed(record, PUBLISHER) if hmac else record)
    return batch


def subscribed(config: Config) -> Dispatcher:
    d = config.dispatcher()
    batch = []
    for k in range(TOPICS):
        user = SUBSCRIBERS[k % len(SUBSCRIBERS)]
        md = MQMD(
            MsgType=MQMT.REQUEST,
            MsgId=os.urandom(24),
            ReplyToQ="BENCH.REPLIES",
            UserIdentifier=user,
        )
        pairs = [("Command", "RegSub"), ("Topic", f"Bench/T{k}"), ("QName", f"BENCH.SUB{k}")]
        put_md, value = command_message(pairs, md=md)
        record = Record(CONTROL_QUEUE, value, put_md, k)
        batch.append(signed(record, user) if config.hmac else record)
    out = d.handle(batch)
    d.committed()
    replies = [r for r in out if r.topic == queue_to_topic("BENCH.REPLIES")]
    assert len(replies) == TOPICS, f"{config.name}: {len(replies)} replies"
    return d


def timed(d: Dispatcher, batch: list[Record]) -> tuple[float, int]:
    """CPU seconds of this thread (on a machine shared by many, waiting for a core is not
    the dispatcher's cost) and the records made."""
    gc.collect()  # each configuration starts from the same collector state: otherwise the
    # collections, deterministic, fall on the same configuration every round
    started = time.thread_time()
    made = len(d.handle(batch))
    seconds = time.thread_time() - started
    d.committed()
    return seconds, made


def calls_per_message(d: Dispatcher, batch: list[Record], guard: IdentityGuard | None) -> float:
    """Python function calls per message: a cost no noise moves."""
    d.identity = guard
    profile = cProfile.Profile()
    profile.runcall(d.handle, batch)
    d.committed()
    total: int = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
    return total / len(batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(20)
    acl = acl_100()
    shapes: list[tuple[str, AuthorityPort, bool]] = [
        ("no ACL", ALLOW_ALL, False),
        ("ACL 100", acl, False),
        ("hmac", ALLOW_ALL, True),
        ("ACL 100 + hmac", acl, True),
    ]
    tune_malloc()  # the memory settings `mqk serve` runs with
    tune_collector()
    # inputs first (signing included): only the dispatcher is timed
    pubs = {
        hmac: [publications(args.batch, hmac, rng) for _ in range(args.rounds)]
        for hmac in (False, True)
    }
    regs = {
        hmac: [regsubs(r * args.batch, args.batch, hmac) for r in range(args.rounds)]
        for hmac in (False, True)
    }
    sample = publications(1000, False, rng)
    started = time.perf_counter()
    for record in sample:
        signed(record, PUBLISHER)
    sign_us = (time.perf_counter() - started) / 1000 * 1e6
    runs: list[tuple[str, Config, Dispatcher]] = []
    for plans in (True, False):
        for name, authority, hmac in shapes:
            config = Config(name, authority, hmac, plans)
            runs.append(("plans" if plans else "engine", config, subscribed(config)))
    reg_runs = [(c, c.dispatcher()) for _, c, _ in runs[:4]]
    order = [id(c) for _, c, _ in runs]  # the order printed
    gc.collect()
    gc.freeze()  # the inputs and the subscriptions: never scanned again
    best_pub = {id(c): float("inf") for _, c, _ in runs}
    best_reg = {id(c): float("inf") for c, _ in reg_runs}
    copies = {id(c): 0 for _, c, _ in runs}
    for r in range(args.rounds):  # interleaved, best of: the machine is shared
        rng.shuffle(runs)  # and in a new order each round: no configuration always follows another
        rng.shuffle(reg_runs)
        for _, config, d in runs:
            d.identity = config.guard()  # a fresh replay memory: each round's MsgIds are new
            seconds, made = timed(d, pubs[config.hmac][r])
            best_pub[id(config)] = min(best_pub[id(config)], seconds)
            copies[id(config)] = made
        for config, d in reg_runs:
            seconds, _ = timed(d, regs[config.hmac][r])
            best_reg[id(config)] = min(best_reg[id(config)], seconds)
    calls = {
        id(c): calls_per_message(d, publications(500, c.hmac, rng), c.guard()) for _, c, d in runs
    }
    reg_calls = {
        id(c): calls_per_message(d, regsubs(10**6, 500, c.hmac), c.guard()) for c, d in reg_runs
    }
    print(f"fan-out 1, {TOPICS} topics, 64-1,024-byte random bodies, new MsgId each; CPU "
          f"time, best of {args.rounds} interleaved rounds of {args.batch}")  # fmt: skip
    base: dict[str, float] = {}
    runs.sort(key=lambda run: order.index(id(run[1])))
    reg_runs.sort(key=lambda run: order.index(id(run[0])))
    for path, config, _ in runs:
        rate = args.batch / best_pub[id(config)]
        base.setdefault(path, rate)
        records = copies[id(config)] / args.batch
        print(
            f"  {path:6} {config.name:15} {rate:9,.0f} publications/s  "
            f"{rate / base[path]:5.2f}x of no ACL  {calls[id(config)]:5.0f} calls each "
            f"({records:.1f} records)"
        )
    print(f"RegSub (new subscriptions, each answered), batches of {args.batch}")
    reg_base = 0.0
    for config, _ in reg_runs:
        rate = args.batch / best_reg[id(config)]
        reg_base = reg_base or rate
        print(
            f"  {config.name:22} {rate:9,.0f} RegSub/s  {rate / reg_base:5.2f}x  "
            f"{reg_calls[id(config)]:5.0f} calls each"
        )
    print(f"the sender's side: signing one publication {sign_us:.1f} µs (HMAC-SHA256, body digest)")


if __name__ == "__main__":
    main()
