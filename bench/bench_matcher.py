"""Benchmark of the indexed subscription matcher; prints figures, asserts nothing.

    python -m bench.bench_matcher [--subs 1000 1000000] [--pubs 200000] [--seed 7] [--rounds 9]

For each size it builds a SubscriptionIndex of mixed subscriptions over a realistic topic
tree ``Sport/<sport>/<team>/<event>/<detail>`` (exact, ``+``, ``#``, character-scheme exact,
``*``, ``?``, plus a fixed handful of broad ones such as ``Sport/#`` and ``*``), then
matches publications on random topics of that tree on one core, counting every key each
publication reaches: cold (result cache off, every publication runs through the index),
cold on 50 topics only (the same work with the CPU caches holding what it touches: the
difference to cold is memory latency, not index work) and warm (result cache on; topics
repeat as publishers repeat them). The number of teams grows with
the number of subscriptions, so a publication reaches a handful of subscriptions at every
size: what is measured is the cost of the unrelated ones. Last, the smallest and the largest
index are timed cold in turn (``--rounds``), so that their ratio is taken side by side.

Targets: ≥ 100,000 publications/s with 1M subscriptions, ≤ 2× the time per publication of
1k, ≤ 1.5 GB RSS with 1M.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from mqkafka.engine.matcher import SubscriptionIndex
from mqkafka.mq.topics import DEFAULT_STREAM, Namespace, Scheme, TopicFilter, TopicString

SPORTS = ("Soccer", "Rugby", "Cricket", "Tennis", "Golf", "Hockey", "Baseball", "Basketball")
EVENTS = ("Score", "Fouls", "Cards", "Lineup", "Odds")
DETAILS = ("Home", "Away", "Live", "Final")
SUBS_PER_TEAM = 10
OTHER_STREAM = Namespace.stream("SPORT.ARCHIVE")
BROAD = (  # a fixed few that every size has: they match many publications
    ("Sport/#", Scheme.TOPIC),
    ("Sport/Soccer/#", Scheme.TOPIC),
    ("#/Final", Scheme.TOPIC),
    ("*", Scheme.CHAR),
    ("Sport/Tennis/*", Scheme.CHAR),
)


def rss_mb() -> float:
    """Resident set size now (VmRSS), in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def team_topic(team: int, event: str, detail: str) -> str:
    return f"Sport/{SPORTS[team % len(SPORTS)]}/team-{team}/{event}/{detail}"


# Each maker turns (team, random) into one subscription; the weights are the mix.
Maker = Callable[[int, random.Random], tuple[str, Scheme]]


def _exact(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    return team_topic(team, rnd.choice(EVENTS), rnd.choice(DETAILS)), Scheme.TOPIC


def _plus(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    return team_topic(team, "+", rnd.choice(DETAILS)), Scheme.TOPIC


def _hash(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    base = team_topic(team, rnd.choice(EVENTS), "#")
    return (base if rnd.random() < 0.5 else base.rsplit("/", 2)[0] + "/#"), Scheme.TOPIC


def _hash_middle(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    return f"Sport/#/team-{team}/{rnd.choice(EVENTS)}/#", Scheme.TOPIC


def _char_exact(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    return team_topic(team, rnd.choice(EVENTS), rnd.choice(DETAILS)), Scheme.CHAR


def _char_star(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    if rnd.random() < 0.5:
        return team_topic(team, rnd.choice(EVENTS), "*"), Scheme.CHAR
    return team_topic(team, rnd.choice(EVENTS)[:2] + "*", "").rstrip("/"), Scheme.CHAR


def _char_question(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    # `?` for fixed-width parts: any five-letter event (`?????`), or Home/Away's last letter
    if rnd.random() < 0.5:
        return team_topic(team, "?????", rnd.choice(DETAILS)), Scheme.CHAR
    return team_topic(team, rnd.choice(EVENTS), rnd.choice(DETAILS)[:3] + "?"), Scheme.CHAR


def _char_team_range(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    # team-12? covers team-120..team-129: one event and detail of ten teams
    topic = team_topic(team, rnd.choice(EVENTS), rnd.choice(DETAILS))
    return topic.replace(f"team-{team}/", f"team-{team}"[:-1] + "?/"), Scheme.CHAR


def _char_middle(team: int, rnd: random.Random) -> tuple[str, Scheme]:
    # `*` between literal levels: indexed by tail (…/Score) or by anchor (…/team-5/…)
    if rnd.random() < 0.5:
        return f"Sport/*/team-{team}/{rnd.choice(EVENTS)}", Scheme.CHAR
    return f"Sport/*/team-{team}/*", Scheme.CHAR


MIX: tuple[tuple[Maker, float], ...] = (
    (_exact, 0.35),
    (_plus, 0.12),
    (_hash, 0.12),
    (_hash_middle, 0.03),
    (_char_exact, 0.12),
    (_char_star, 0.12),
    (_char_question, 0.08),
    (_char_team_range, 0.02),
    (_char_middle, 0.04),
)


@dataclass(frozen=True)
class Run:
    """Publications matched on one core (CPU time of this process, so that other work on
    the machine does not count against the matcher)."""

    pubs: int
    seconds: float
    keys_matched: int

    @property
    def per_second(self) -> float:
        return self.pubs / self.seconds

    @property
    def microseconds(self) -> float:
        return self.seconds / self.pubs * 1e6


@dataclass(frozen=True)
class Figures:
    subs: int
    build_seconds: float
    rss_mb: float
    index_mb: float
    cold: Run  # result cache off: every publication runs through the whole index
    hot: Run  # as cold, on 50 topics: what the index work costs once memory is in cache
    warm: Run  # result cache on, topics repeating as publishers repeat them


def subscriptions(count: int, rnd: random.Random) -> list[tuple[int, Namespace, TopicFilter]]:
    """Keyed by sequence number, as the engine keys its index."""
    teams = max(20, count // SUBS_PER_TEAM)
    makers = [maker for maker, _ in MIX]
    weights = [weight for _, weight in MIX]
    subs = [(i, DEFAULT_STREAM, TopicFilter(*flt)) for i, flt in enumerate(BROAD)]
    for i in range(len(subs), count):
        maker = rnd.choices(makers, weights)[0]
        namespace = OTHER_STREAM if i % 20 == 0 else DEFAULT_STREAM
        subs.append((i, namespace, TopicFilter(*maker(rnd.randrange(teams), rnd))))
    return subs


def publications(count: int, subs: int, rnd: random.Random) -> list[TopicString]:
    """``count`` publications on a pool of up to 20,000 topics (a topic is published ~10
    times in 200,000 publications)."""
    teams = max(20, subs // SUBS_PER_TEAM)
    pool = [
        TopicString(team_topic(rnd.randrange(teams), rnd.choice(EVENTS), rnd.choice(DETAILS)))
        for _ in range(min(count, 20_000))
    ]
    return [pool[rnd.randrange(len(pool))] for _ in range(count)]


def build_index(subs: list[tuple[int, Namespace, TopicFilter]]) -> SubscriptionIndex[int]:
    """The index of ``subs``, result cache off; the collector is left disabled: the build
    allocates millions of long-lived objects, and GC passes over them only cost."""
    index: SubscriptionIndex[int] = SubscriptionIndex(cache_size=0)
    gc.disable()
    for key, namespace, flt in subs:
        index.add(key, namespace, flt)
    return index


def publish(index: SubscriptionIndex[int], topics: list[TopicString]) -> Run:
    matched = 0
    match = index.match
    started = time.process_time()
    for topic in topics:
        matched += len(match(DEFAULT_STREAM, topic))
    return Run(len(topics), time.process_time() - started, matched)


@dataclass(frozen=True)
class Built:
    """An index kept after its figures, with its publications, for the alternating runs."""

    index: SubscriptionIndex[int]
    topics: list[TopicString]


def measure(count: int, pubs: int, seed: int) -> tuple[Figures, Built]:
    rnd = random.Random(seed)
    gc.collect()
    before = rss_mb()
    subs = subscriptions(count, rnd)
    started = time.process_time()
    index = build_index(subs)
    build = time.process_time() - started
    gc.enable()
    gc.collect()
    rss = rss_mb()
    topics = publications(pubs, count, rnd)
    gc.freeze()  # what is built stays; keep the collector off it while publishing
    cold = publish(index, topics)
    hot = publish(index, [topics[i % 50] for i in range(len(topics))])
    index.cache_size = 65_536
    warm = publish(index, topics)
    gc.unfreeze()
    index.cache_size = 0
    del subs
    gc.collect()
    return Figures(count, build, rss, rss - before, cold, hot, warm), Built(index, topics)


def alternate(small: Built, large: Built, rounds: int) -> tuple[float, float, float]:
    """Cold time per publication (µs) of each index, medians of ``rounds`` runs taken in
    turn, and the median of the rounds' ratios: a shared machine's speed drifts by up to
    1.5x within minutes, which the one-after-the-other figures above take in whole."""
    share = len(small.topics) // rounds
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(rounds):
        part = slice(round_ * share, (round_ + 1) * share)
        for built, seen in ((small, times[0]), (large, times[1])):
            seen.append(publish(built.index, built.topics[part]).microseconds)
    ratios = [large_us / small_us for small_us, large_us in zip(*times, strict=True)]
    return statistics.median(times[0]), statistics.median(times[1]), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subs", type=int, nargs="+", default=[1_000, 1_000_000])
    parser.add_argument("--pubs", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    results = []
    kept: list[Built] = []  # the smallest and the largest index, for alternating runs
    for count in sorted(args.subs):
        figures, built = measure(count, args.pubs, args.seed)
        results.append(figures)
        kept = [*kept[:1], built]
        print(
            f"{figures.subs:>9,} subscriptions: built in {figures.build_seconds:.2f} s CPU"
            f" ({figures.subs / figures.build_seconds:,.0f}/s); RSS {figures.rss_mb:.1f} MB"
            f" (+{figures.index_mb:.1f} MB for subscriptions and index)"
        )
        for name, run in (
            ("cold (no result cache)", figures.cold),
            ("cold, 50 topics", figures.hot),
            ("warm (result cache)", figures.warm),
        ):
            print(
                f"    {name:<23}{run.pubs:,} publications: {run.per_second:>9,.0f}/s,"
                f" {run.microseconds:6.2f} µs each, {run.keys_matched / run.pubs:.2f} keys each"
            )
    if len(results) > 1:
        small, large = results[0], results[-1]
        print(
            f"time per publication, {large.subs:,} vs {small.subs:,} subscriptions:"
            f" cold {large.cold.microseconds / small.cold.microseconds:.2f}x,"
            f" cold on 50 topics {large.hot.microseconds / small.hot.microseconds:.2f}x,"
            f" warm {large.warm.microseconds / small.warm.microseconds:.2f}x"
        )
        gc.freeze()
        small_us, large_us, ratio = alternate(kept[0], kept[-1], args.rounds)
        print(
            f"cold, the two in turn ({args.rounds} rounds, medians): {small.subs:,}"
            f" {small_us:.2f} µs, {large.subs:,} {large_us:.2f} µs ({1e6 / large_us:,.0f}/s);"
            f" ratio {ratio:.2f}x"
        )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MB")


if __name__ == "__main__":
    main()
