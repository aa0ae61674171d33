"""Table-driven show scoring with numpy, for bulk work (the distribution, the discard advisor).

The fifteens, pairs and runs of a show depend only on its five ranks, so they are looked up in
``rank_scores()``, a dense 13**5 table indexed by the five ranks in any order (371,293 entries,
int8). Flush and nobs depend on suits and are added per deal. ``score_many`` must agree with
``scorer.show.score_show`` on every one of the 12,994,800 (hand, starter) deals.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

__all__ = ["rank_scores", "score_many", "JACK"]

JACK = 10
"""0-based rank index of the jack (ranks are 0 = ace .. 12 = king in this module)."""


@cache
def rank_scores() -> NDArray[np.int8]:
    """Fifteens + pairs + runs for five ranks (0-based), shape (13, 13, 13, 13, 13)."""
    grid = np.indices((13,) * 5, dtype=np.int8).reshape(5, -1)  # (5, 371293)
    values = np.minimum(grid + 1, 10).astype(np.int16)
    score = np.zeros(grid.shape[1], dtype=np.int16)
    for n in (2, 3, 4, 5):
        for sub in combinations(range(5), n):
            score += 2 * (values[list(sub)].sum(axis=0) == 15)
    for i, j in combinations(range(5), 2):
        score += 2 * (grid[i] == grid[j])
    counts = np.zeros((13, grid.shape[1]), dtype=np.int16)
    for i in range(5):
        np.add.at(counts, (grid[i], np.arange(grid.shape[1])), 1)
    # Longest run first: a window of L consecutive ranks all present scores L per combination.
    done = np.zeros(grid.shape[1], dtype=bool)
    for length in (5, 4, 3):
        for start in range(0, 14 - length):
            window = counts[start : start + length]
            ways = window.prod(axis=0)
            hit = (ways > 0) & ~done
            score += np.where(hit, ways * length, 0).astype(np.int16)
            done |= hit
    return score.astype(np.int8).reshape((13,) * 5)


def score_many(
    hands: NDArray[np.integer], starters: NDArray[np.integer], crib: bool = False
) -> NDArray[np.int16]:
    """Show totals for many deals at once.

    ``hands`` is (N, 4) card indices (``Card.index``: rank-major, suit in S H D C order),
    ``starters`` is (N,). The caller guarantees five distinct cards per deal.

    >>> from scorer.cards import parse_cards
    >>> h = np.array([[c.index for c in parse_cards("5H 5C 5S JD")]])
    >>> int(score_many(h, np.array([parse_cards("5D")[0].index]))[0])
    29
    """
    hands = np.asarray(hands)
    starters = np.asarray(starters)
    ranks = hands // 4
    suits = hands % 4
    srank = starters // 4
    ssuit = starters % 4
    total = rank_scores()[ranks[:, 0], ranks[:, 1], ranks[:, 2], ranks[:, 3], srank].astype(np.int16)
    four = (suits[:, 1] == suits[:, 0]) & (suits[:, 2] == suits[:, 0]) & (suits[:, 3] == suits[:, 0])
    five = four & (ssuit == suits[:, 0])
    total += np.where(five, 5, 0 if crib else np.where(four, 4, 0)).astype(np.int16)
    nobs = ((ranks == JACK) & (suits == ssuit[:, None])).any(axis=1)
    total += nobs.astype(np.int16)
    result: NDArray[np.int16] = total
    return result
