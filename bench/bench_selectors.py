"""Selector evaluation speed on one core (issue 6 targets).

Prints evaluations/s for
- a three-clause filter over ``usr`` properties (target ≥ 200,000/s),
- a JSON-body path filter, each evaluation on a new publication so that its body is parsed
  every time (target ≥ 50,000/s),
- the same body filter over an XML body, and compile time per filter, for reference.

Each figure is the best of a few timed repeats, so a busy neighbour on the machine costs less.
Run: ``python -m bench.bench_selectors [--seconds S]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping

from mqkafka.selectors import DictMessageView, compile_selector

USR_FILTER = "colour = 'red' AND size > 10 AND weight BETWEEN 1.5 AND 5"
JSON_FILTER = "Body.Score.Home > 2 AND Body.Score.Team = 'Reds'"
JSON_BODY = (
    b'{"Score": {"Home": 3, "Away": 1, "Team": "Reds", "Minute": 87},'
    b' "Match": {"Venue": "North Park", "Attendance": 41234}}'
)
XML_BODY = (
    b"<Score><Home>3</Home><Away>1</Away><Team>Reds</Team><Minute>87</Minute>"
    b"<Match><Venue>North Park</Venue><Attendance>41234</Attendance></Match></Score>"
)


class Publication:
    """A minimal MessageView, new per publication as the engine's view is (so no parse is
    remembered from the previous evaluation)."""

    __slots__ = ("__weakref__", "body", "msd")
    properties: Mapping[str, object] = {}
    mqmd_fields: Mapping[str, object] = {}
    body_format = ""

    def __init__(self, body: bytes, msd: str | None) -> None:
        self.body, self.msd = body, msd


def rate(work: Callable[[], object], seconds: float, repeats: int = 3) -> float:
    """Best calls/s over ``repeats`` runs of about ``seconds`` each."""
    batch = 1000
    best = 0.0
    for _ in range(repeats):
        calls, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            for _ in range(batch):
                work()
            calls += batch
        best = max(best, calls / elapsed)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    args = parser.parse_args(argv)

    usr = compile_selector(USR_FILTER)
    usr_view = DictMessageView({"colour": "red", "size": 12, "weight": 2.5, "other": "x"})
    assert usr.matches(usr_view)
    body = compile_selector(JSON_FILTER)
    assert body.matches(Publication(JSON_BODY, "json")) and body.matches(
        Publication(XML_BODY, None)
    )

    figures = [
        ("three-clause usr filter", rate(lambda: usr.matches(usr_view), args.seconds), 200_000),
        (
            "JSON body path filter",
            rate(lambda: body.matches(Publication(JSON_BODY, "json")), args.seconds),
            50_000,
        ),
        (
            "XML body path filter",
            rate(lambda: body.matches(Publication(XML_BODY, None)), args.seconds),
            None,
        ),
        ("compile (usr filter)", rate(lambda: compile_selector(USR_FILTER), args.seconds), None),
    ]
    print(f"{'case':<26} {'per second':>12}  target")
    for name, per_second, target in figures:
        verdict = (
            "" if target is None else f"≥ {target:,}  {'met' if per_second >= target else 'MISSED'}"
        )
        print(f"{name:<26} {per_second:>12,.0f}  {verdict}")
    print(f"usr filter:  {USR_FILTER}")
    print(f"body filter: {JSON_FILTER} ({len(JSON_BODY)}-byte JSON, {len(XML_BODY)}-byte XML)")


if __name__ == "__main__":
    main()
