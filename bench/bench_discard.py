"""Time the discard advisor (every throw, exact crib) against two enumerations of every deal.

    .venv/bin/python bench/bench_discard.py [--deals 50] [--enum-deals 5] [--brute-deals 1] [--seed 6]

Methods, per deal (all throws of one dealt hand):

* ``advise``: the library (rank-sequence counts times the ``rank_scores`` table).
* ``enumerate (numpy)``: every completion of the crib listed and scored with ``score_many``
  (45,540 a throw for two players, 713,460 for three or four).
* ``brute force (score_show)``: the same completions scored one by one in pure Python; about
  3 s a two-player deal and 16 s a five-card deal, so it runs on ``--brute-deals`` deals only.

Every enumerated deal is also checked: the column ``max |diff|`` is the largest difference of
crib means from ``advise`` (0 means agreement to the last bit). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.cards import DECK, Card
from scorer.discard import HELD, THROWN, advise
from scorer.show import score_show
from scorer.tables import score_many

CRIB_CARDS = 4
"""A crib holds four cards; those not thrown by me are unknown."""

CribMeans = dict[frozenset[Card], float]


def deal(rng: random.Random, players: int) -> list[Card]:
    """A random hand for one player."""
    return rng.sample(DECK, HELD[players])


def by_advise(dealt: Sequence[Card], players: int, dealer: bool) -> CribMeans:
    """The library's crib means per throw."""
    return {frozenset(o.throw): o.crib_mean for o in advise(dealt, players, dealer)}


def by_numpy(dealt: Sequence[Card], players: int, dealer: bool) -> CribMeans:
    """Crib means from every completion scored by ``score_many``."""
    unknown = CRIB_CARDS - THROWN[players]
    unseen = np.array([c.index for c in DECK if c not in dealt])
    n = len(unseen)
    extra = np.array(list(combinations(range(n), unknown)))
    free = (extra[:, :, None] != np.arange(n)[None, None, :]).all(axis=1)
    rows, cols = np.nonzero(free)
    others = unseen[extra[rows]]
    starters = unseen[cols]
    out: CribMeans = {}
    for throw in combinations(dealt, THROWN[players]):
        thrown = np.tile([c.index for c in throw], (len(rows), 1))
        scores = score_many(np.column_stack([thrown, others]), starters, crib=True)
        out[frozenset(throw)] = float(Fraction(int(scores.astype(np.int64).sum()), len(rows)))
    return out


def by_score_show(dealt: Sequence[Card], players: int, dealer: bool) -> CribMeans:
    """Crib means from every completion scored by ``score_show``, one at a time."""
    unknown = CRIB_CARDS - THROWN[players]
    unseen = [c for c in DECK if c not in dealt]
    out: CribMeans = {}
    for throw in combinations(dealt, THROWN[players]):
        total = deals = 0
        for extra in combinations(unseen, unknown):
            crib = [*throw, *extra]
            for starter in unseen:
                if starter not in extra:
                    total += score_show(crib, starter, crib=True).total
                    deals += 1
        out[frozenset(throw)] = float(Fraction(total, deals))
    return out


Method = Callable[[Sequence[Card], int, bool], CribMeans]


def measure(
    method: Method, hands: Sequence[tuple[list[Card], bool]], players: int
) -> tuple[list[float], float]:
    """Milliseconds per deal, and the largest crib-mean difference from ``advise``."""
    times: list[float] = []
    worst = 0.0
    for dealt, dealer in hands:
        start = time.perf_counter()
        means = method(dealt, players, dealer)
        times.append((time.perf_counter() - start) * 1e3)
        if method is not by_advise:
            truth = by_advise(dealt, players, dealer)
            worst = max(worst, max(abs(means[k] - truth[k]) for k in truth))
    return times, worst


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50, help="deals timed with advise")
    parser.add_argument("--enum-deals", type=int, default=5, help="deals enumerated with numpy")
    parser.add_argument("--brute-deals", type=int, default=1, help="deals brute-forced with score_show")
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    # The first call builds the 13**5 rank table (cached for the life of the process).
    first = deal(rng, 2)
    start = time.perf_counter()
    advise(first, 2, True)
    cold_ms = (time.perf_counter() - start) * 1e3

    print(f"first call, building the rank table: {cold_ms:.0f} ms\n")
    print("| players | method | deals | median ms/deal | max ms/deal | max \\|diff\\| of crib means |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for players in (2, 3, 4):
        hands = [(deal(rng, players), i % 2 == 0) for i in range(args.deals)]
        runs: list[tuple[str, Method, int]] = [
            ("advise", by_advise, args.deals),
            ("enumerate (numpy)", by_numpy, args.enum_deals),
            ("brute force (score_show)", by_score_show, args.brute_deals),
        ]
        for name, method, count in runs:
            if count <= 0:
                continue
            times, worst = measure(method, hands[:count], players)
            diff = "—" if method is by_advise else f"{worst:.1e}"
            print(
                f"| {players} | {name} | {len(times)} | {statistics.median(times):.2f} "
                f"| {max(times):.2f} | {diff} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
