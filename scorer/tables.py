"""Table-driven show scoring with numpy, for bulk work (the distribution, the discard advisor).

The fifteens, pairs and runs of a show depend only on its five ranks, so they are looked up in
``rank_scores()``, a dense 13**5 table indexed by the five ranks in any order (371,293 entries,
int8). Flush and nobs depend on suits and are added per deal. ``score_many`` must agree with
``scorer.show.score_show`` on every one of the 12,994,800 (hand, starter) deals.

Counting facts the distribution relies on (ranks 0-based here, so the jack is 10):

* A deal is a 4-card hand and a starter: C(52,4) * 48 = 270,725 * 48 = 12,994,800 deals.
* Grouping deals by the hand's rank multiset M (C(16,4) = 1,820 of them, a rank at most four
  times) and the starter's rank s leaves 23,647 groups with a starter left to cut. A group holds
  W * a deals, where W = prod over ranks of C(4, m_r) ways to pick the hand's suits and
  a = 4 - m_s starters of rank s are left; all of them share one rank score.
* Only suits remain, and they add just flush and nobs:

  - A hand flush needs four distinct ranks: 4 of its 256 suit choices. The starter joins it
    (5 points) on exactly one of the a starters when s is not in the hand, never when it is,
    since the starter's card of the flush suit is then in the hand.
  - Nobs needs a jack in the hand of the starter's suit, so never when the starter is a jack.
    Summing over the j-subset G of suits of the hand's jacks and the m_s-subset T of suits of the
    hand's rank-s cards, a starter of suit x scores nobs when x is in G and not in T: on average
    j/4 * (4 - m_s) starters, so W * j * a / 4 deals (an integer: C(4, j) * j = 4 * C(3, j - 1)).
  - A five-card flush holding a jack always has nobs too (the jack is of the starter's suit);
    a four-card flush never does (the starter is of another suit).

>>> d = distribution()
>>> d.deals, d.counts[29], round(d.mean, 4)
(12994800, 4, 4.7692)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from scorer.rules import HAND_SIZE

__all__ = ["rank_scores", "score_many", "JACK", "Distribution", "distribution"]

JACK = 10
"""0-based rank index of the jack (ranks are 0 = ace .. 12 = king in this module)."""

_RANKS = 13
_SUITS = 4
_SHOW = 5
"""Cards in a show: four in hand (or crib) and the starter."""
_MAX_BONUS = 6
"""Most points suits can add: a five-card flush with nobs."""
_MEAN_PLACES = 4
"""Decimal places of the mean in ``Distribution.to_json``, as docs/RULES.md quotes it."""
_CHOOSE_4 = np.array([1, 4, 6, 4, 1], dtype=np.int64)
"""C(4, m): ways to pick m suits of a rank."""


def _score_sorted_patterns(patterns: NDArray[np.int8]) -> NDArray[np.int8]:
    """Fifteens + pairs + runs for rows of five 0-based ranks (any order), vectorized over rows."""
    ranks = patterns.T.astype(np.int16)  # (5, P)
    values = np.minimum(ranks + 1, 10)
    score = np.zeros(ranks.shape[1], dtype=np.int16)
    for n in (2, 3, 4, 5):
        for sub in combinations(range(_SHOW), n):
            score += 2 * (values[list(sub)].sum(axis=0) == 15)
    for i, j in combinations(range(_SHOW), 2):
        score += 2 * (ranks[i] == ranks[j])
    counts = (ranks[:, :, None] == np.arange(_RANKS)).sum(axis=0, dtype=np.int16).T  # (13, P)
    # Longest run first: a window of L consecutive ranks all present scores L per combination.
    done = np.zeros(ranks.shape[1], dtype=bool)
    for length in (5, 4, 3):
        for start in range(0, _RANKS + 1 - length):
            ways = counts[start : start + length].prod(axis=0)
            hit = (ways > 0) & ~done
            score += np.where(hit, ways * length, 0).astype(np.int16)
            done |= hit
    return score.astype(np.int8)


def _code(ranks: NDArray[np.integer]) -> NDArray[np.int32]:
    """Base-13 code of rank rows (..., 5) -> (...), most significant first."""
    code = np.zeros(ranks.shape[:-1], dtype=np.int32)
    for i in range(ranks.shape[-1]):
        code = code * _RANKS + ranks[..., i]
    return code


@cache
def rank_scores() -> NDArray[np.int8]:
    """Fifteens + pairs + runs for five ranks (0-based), shape (13, 13, 13, 13, 13).

    Each of the 6,175 sorted rank patterns (at most four of a rank) is scored once; every index
    tuple of the dense table is then sorted and looked up, so the table is symmetric by
    construction. Five of a rank cannot be dealt; those 13 entries hold the same formula's value.
    """
    patterns = np.array(list(combinations_with_replacement(range(_RANKS), _SHOW)), dtype=np.int8)
    by_code = np.zeros(_RANKS**_SHOW, dtype=np.int8)
    by_code[_code(patterns)] = _score_sorted_patterns(patterns)
    grid = np.indices((_RANKS,) * _SHOW, dtype=np.int8).reshape(_SHOW, -1)
    table: NDArray[np.int8] = by_code[_code(np.sort(grid, axis=0).T)]
    return table.reshape((_RANKS,) * _SHOW)


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


@dataclass(frozen=True)
class Distribution:
    """How many of the 12,994,800 (hand, starter) deals make each show score."""

    counts: dict[int, int]
    """Score -> number of deals; only scores that occur, ascending."""
    crib: bool
    """True when the deals were counted as cribs (only a five-card flush scores)."""

    @property
    def deals(self) -> int:
        """Number of deals counted (12,994,800 for the full distribution)."""
        return sum(self.counts.values())

    @property
    def mean(self) -> float:
        """Mean score over the deals, unrounded."""
        return sum(score * n for score, n in self.counts.items()) / self.deals

    def to_json(self) -> dict[str, object]:
        """The CLI's and API's JSON: ``{"counts": {"0": 1009008, ...}, "mean": 4.7692}``."""
        return {
            "counts": {str(score): n for score, n in self.counts.items()},
            "mean": round(self.mean, _MEAN_PLACES),
        }


def distribution(crib: bool = False) -> Distribution:
    """Count every (4-card hand, starter) deal by its show score, as a hand or as the crib.

    Works on the 23,647 (hand rank multiset, starter rank) groups instead of the 12,994,800
    deals; the module docstring derives the group sizes and the flush and nobs counts.
    """
    hands = np.array(list(combinations_with_replacement(range(_RANKS), HAND_SIZE)), dtype=np.intp)
    mult = (hands[:, :, None] == np.arange(_RANKS)).sum(axis=1)  # (1820, 13): m_r
    ways = _CHOOSE_4[mult].prod(axis=1)[:, None]  # W: suit choices for the hand
    left = (_SUITS - mult).astype(np.int64)  # a: starters of each rank left, (1820, 13)
    rank_points = rank_scores()[hands[:, 0], hands[:, 1], hands[:, 2], hands[:, 3]]  # (1820, 13)

    flush_hands = np.where((mult <= 1).all(axis=1), _SUITS, 0)[:, None]
    jacks = mult[:, JACK][:, None]  # at most 1 where flush_hands > 0
    flush5 = flush_hands * (mult == 0)
    flush4 = flush_hands * left - flush5
    nobs = ways * jacks * left // _SUITS
    nobs[:, JACK] = 0
    flush5_nobs = flush5 * jacks
    plain_nobs = nobs - flush5_nobs
    plain = ways * left - flush_hands * left - plain_nobs

    bonus_weights = [
        (0, plain + (flush4 if crib else 0)),
        (1, plain_nobs),
        (4, np.zeros_like(flush4) if crib else flush4),
        (5, flush5 - flush5_nobs),
        (6, flush5_nobs),
    ]
    # Sized for the largest index formed, even where its weight is zero.
    totals = np.zeros(int(rank_points.max()) + _MAX_BONUS + 1, dtype=np.int64)
    for bonus, weight in bonus_weights:
        np.add.at(totals, (rank_points.astype(np.intp) + bonus).ravel(), weight.ravel())
    return Distribution(
        counts={score: int(n) for score, n in enumerate(totals.tolist()) if n}, crib=crib
    )
