"""Benchmark of the pure MQI core; prints figures, asserts nothing.

    python -m bench.bench_mqi [--n 200000] [--seed 7]

Measures, on one core, what the MQI adapter pays per call before it touches Kafka:
option validation (valid and invalid options of each call), DynamicQName generation,
lifecycle transitions of a dynamic queue, and catalogue records (encode, decode, replay).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from collections.abc import Callable

from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.catalogue import Catalogue, CatalogueRecord, QueueDefinition
from mqkafka.mqi.rules.dynamic import (
    Close,
    Commit,
    Event,
    Get,
    Open,
    Put,
    QueueState,
    resolve_dynamic_name,
    step,
)
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import GMO, MD
from mqkafka.mqi.rules.validation import Call, check


def rate(label: str, n: int, run: Callable[[], object]) -> None:
    start = time.perf_counter()
    run()
    elapsed = time.perf_counter() - start
    print(f"{label:<48} {n / elapsed:>12,.0f} /s   ({elapsed * 1e6 / n:6.2f} µs each)")


def bench_validation(n: int) -> None:
    valid = {
        Call.MQOPEN: C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING,
        Call.MQPUT: C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING,
        Call.MQGET: C.MQGMO_WAIT | C.MQGMO_SYNCPOINT | C.MQGMO_CONVERT,
        Call.MQCLOSE: C.MQCO_NONE,
        Call.MQSUB: C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED,
    }
    for call, options in valid.items():

        def run(call: Call = call, options: int = options) -> None:
            for _ in range(n):
                check(call, options)

        rate(f"check {call} (valid options)", n, run)

    def invalid() -> None:
        for _ in range(n):
            with contextlib.suppress(MQMIError):
                check(Call.MQGET, C.MQGMO_WAIT | C.MQGMO_SET_SIGNAL)

    rate("check MQGET (invalid: raises MQMIError 2046)", n, invalid)


def bench_names(n: int, rng: random.Random) -> None:
    taken: set[str] = set()

    def run() -> None:
        for _ in range(n):
            taken.add(
                resolve_dynamic_name("AMQ.*", taken.__contains__, lambda: rng.getrandbits(64))
            )

    rate("resolve DynamicQName 'AMQ.*' (unique, checked)", n, run)
    print(f"{'  distinct names generated':<48} {len(taken):>12,}")


def bench_lifecycle(n: int) -> None:
    definition = QueueDefinition(
        "AMQ.0000000000000001",
        definition_type=C.MQQDT_TEMPORARY_DYNAMIC,
        max_depth=10**9,
        creator="c1",
    )
    events: list[Event] = [
        Put(1, False, syncpoint=True),
        Commit("c1"),
        Get(1, syncpoint=True),
        Commit("c1"),
    ]
    state = step(
        QueueState(definition), Open(1, "c1", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT, "u", True)
    ).state

    def run() -> None:
        current = state
        for _ in range(n // len(events)):
            for event in events:
                current = step(current, event).state
        assert not step(current, Close(1)).state.handles

    rate("lifecycle step (put/commit/get/commit cycle)", n - n % len(events), run)


def bench_catalogue(n: int) -> None:
    definitions = [
        QueueDefinition(f"AMQ.{i:016X}", definition_type=C.MQQDT_TEMPORARY_DYNAMIC, creator=f"c{i}")
        for i in range(n)
    ]
    records: list[CatalogueRecord] = []
    rate(
        "catalogue record encode", n, lambda: records.extend(map(CatalogueRecord.put, definitions))
    )
    rate("catalogue replay (decode + apply)", n, lambda: Catalogue.replay(records))
    size = sum(len(r.value or b"") for r in records) / n
    print(f"{'  bytes per catalogue record':<48} {size:>12,.0f}")


def bench_structs(n: int) -> None:
    def run() -> None:
        for _ in range(n):
            md = MD(Format=C.MQFMT_STRING, Persistence=C.MQPER_NOT_PERSISTENT)
            GMO(Options=C.MQGMO_WAIT, WaitInterval=1000)
            md.to_mqmd()

    rate("MD + GMO build and MD.to_mqmd()", n, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bench_validation(args.n)
    bench_names(args.n // 4, rng)
    bench_lifecycle(args.n)
    bench_catalogue(args.n // 10)
    bench_structs(args.n // 10)


if __name__ == "__main__":
    main()
