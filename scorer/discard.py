"""The discard advisor: which cards to lay away to the crib, ranked by expected points.

For every possible throw it gives the kept hand's points over every starter still unseen (mean,
min, max) and the crib's expected points, counted exactly over every way the crib can be
completed, all unseen cards equally likely. The crib counts for the dealer and against the
others: ``net = hand mean + crib mean`` for the dealer, ``hand mean - crib mean`` otherwise.

Counting facts this module relies on (docs/RULES.md, "The deal"):

* Two players hold 6 and throw 2 (C(6,2) = 15 throws); 46 cards are unseen. The crib is
  completed by the opponent's 2 cards and cut by a starter: C(46,2) * 44 = 45,540 equally likely
  (crib, starter) deals per throw.
* Three players hold 5 and throw 1 (5 throws); the crib is completed by the other two players'
  throws and one card from the deck. Four players hold 5 and throw 1; the crib is completed by
  the other three players' throws. Either way 3 of the 47 unseen cards join the crib and a
  fourth is the starter: C(47,3) * 44 = 713,460 deals per throw.
* Heels (a jack turned as starter) pegs 2 for the dealer but is not a crib point, and the
  unseen cards are the same whatever is thrown, so it cannot change which throw is best.

Rather than score every one of those deals, the sums are split the way the scoring splits:

* Fifteens, pairs and runs depend only on the five ranks. Counting how many ordered tuples of
  distinct unseen cards have each rank sequence is a product of falling factorials of the
  unseen rank counts; one matrix product with ``rank_scores()`` then sums the rank points for
  every throw at once.
* A crib flush needs the throw and every other crib card and the starter in one suit.
* His nobs needs the jack of the starter's suit in the crib: thrown by me, or among the
  unknown crib cards.

All sums are integers, so every mean is an exact fraction, rounded once to a float.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import perm

import numpy as np
from numpy.typing import NDArray

from scorer.cards import DECK, Card, CardsLike, Rank, Suit, parse_cards
from scorer.errors import CardError
from scorer.i18n import N_, _
from scorer.rules import HAND_SIZE, SHOW_CARDS
from scorer.tables import rank_scores, score_many

__all__ = ["HandStats", "DiscardOption", "advise", "rank_of", "HELD", "THROWN"]

HELD = {2: 6, 3: 5, 4: 5}
"""Cards dealt to each player, by number of players."""
THROWN = {2: 2, 3: 1, 4: 1}
"""Cards each player lays away to the crib, by number of players."""
_DEALT = {
    2: N_("cards for a 2-player deal"),
    3: N_("cards for a 3-player deal"),
    4: N_("cards for a 4-player deal"),
}
"""How the count message names a deal's cards, by number of players."""
_THROW = N_("cards in the throw")

_CRIB_FLUSH = 5
"""A crib flush scores only with all five cards (crib and starter) in one suit."""
_RANKS = 13
"""Ranks ace to king; the tables index them 0..12."""


@dataclass(frozen=True, slots=True)
class HandStats:
    """The kept hand's show points over every unseen starter."""

    mean: float
    min: int
    max: int


@dataclass(frozen=True, slots=True)
class DiscardOption:
    """One way to lay away: what goes to the crib, what is kept, and what each is worth."""

    throw: tuple[Card, ...]
    keep: tuple[Card, ...]
    hand: HandStats
    crib_mean: float
    net: float

    def to_json(self) -> dict[str, object]:
        """The CLI's and API's JSON, means unrounded.

        ``{"throw": ["2C", "9D"], "keep": [...], "hand": {"mean": ..., "min": 14, "max": 29},
        "crib": {"mean": ...}, "net": ...}``
        """
        return {
            "throw": [str(c) for c in self.throw],
            "keep": [str(c) for c in self.keep],
            "hand": {"mean": self.hand.mean, "min": self.hand.min, "max": self.hand.max},
            "crib": {"mean": self.crib_mean},
            "net": self.net,
        }


def advise(cards: CardsLike, players: int = 2, dealer: bool = False) -> list[DiscardOption]:
    """Every throw from a dealt hand with its expected points, best net first.

    ``players`` is 2 (six cards dealt), 3 or 4 (five cards dealt). ``dealer`` says whose crib
    it is: with four players the crib belongs to a partnership, so pass ``dealer=True`` when
    your partner deals too. Ties on net go to the higher hand mean (points in hand are
    certain to be yours), then to the throw of lower cards (rank, then suit S H D C).

    Raise ``ValueError`` for a player count other than 2, 3 or 4, ``CardError`` for a bad
    token or the wrong number of cards and ``DuplicateCardError`` for a repeated card.

    >>> best = advise("5H 5C 5S JD 2C 9D", players=2, dealer=True)[0]
    >>> [str(c) for c in best.throw], best.hand.min, best.hand.max
    (['2C', '9D'], 14, 29)
    """
    if players not in HELD:
        raise ValueError(_("players must be 2, 3 or 4, not %(value)s", value=repr(players)))
    dealt = parse_cards(cards, HELD[players], _DEALT[players])
    throws = list(combinations(dealt, THROWN[players]))
    keeps = [tuple(c for c in dealt if c not in t) for t in throws]
    unseen = [c for c in DECK if c not in dealt]

    hand_sums, hand_mins, hand_maxs = _hand_sums(keeps, unseen)
    unknown = HAND_SIZE - THROWN[players]  # a crib holds a hand's four cards, whoever fills it
    crib_sums, deals = _crib_sums(throws, unseen, unknown)
    sign = 1 if dealer else -1

    ranked: list[tuple[tuple[Fraction, Fraction, tuple[int, ...]], DiscardOption]] = []
    for throw, keep, h_sum, h_min, h_max, c_sum in zip(
        throws, keeps, hand_sums, hand_mins, hand_maxs, crib_sums, strict=True
    ):
        hand_mean = Fraction(h_sum, len(unseen))
        crib_mean = Fraction(c_sum, deals)
        net = hand_mean + sign * crib_mean
        option = DiscardOption(
            throw=throw,
            keep=keep,
            hand=HandStats(float(hand_mean), h_min, h_max),
            crib_mean=float(crib_mean),
            net=float(net),
        )
        ranked.append(((-net, -hand_mean, tuple(sorted(c.index for c in throw))), option))
    ranked.sort(key=lambda pair: pair[0])
    return [option for _key, option in ranked]


def rank_of(options: Sequence[DiscardOption], throw: CardsLike) -> tuple[int, float]:
    """Where a throw stands among ``options``: its 1-based rank and the net points it loses.

    The rank counts the options strictly better, so a throw tied with the best is rank 1.
    Raise ``CardError`` when the throw is not one of the options.

    >>> options = advise("5H 5C 5S JD 2C 9D", dealer=True)
    >>> rank_of(options, "9D 2C")
    (1, 0.0)
    """
    if not options:
        raise CardError(_("there are no discard options to rank the throw among"))
    size = len(options[0].throw)
    chosen = frozenset(parse_cards(throw, size, _THROW))
    for option in options:
        if frozenset(option.throw) == chosen:
            better = sum(1 for o in options if o.net > option.net)
            best = max(o.net for o in options)
            return better + 1, best - option.net
    dealt = sorted({c for o in options for c in o.throw + o.keep})
    raise CardError(_("throw %(throw)s is not from the cards dealt: %(dealt)s",
                      throw=repr(" ".join(map(str, sorted(chosen)))), dealt=" ".join(map(str, dealt))))


def _hand_sums(
    keeps: Sequence[tuple[Card, ...]], unseen: Sequence[Card]
) -> tuple[list[int], list[int], list[int]]:
    """Sum, min and max of each kept hand's points over every unseen starter."""
    hands = np.array([[c.index for c in k] for k in keeps], dtype=np.int64)
    starters = np.array([c.index for c in unseen], dtype=np.int64)
    n = len(starters)
    scores = score_many(np.repeat(hands, n, axis=0), np.tile(starters, len(keeps)))
    grid = scores.reshape(len(keeps), n).astype(np.int64)
    return (
        [int(v) for v in grid.sum(axis=1)],
        [int(v) for v in grid.min(axis=1)],
        [int(v) for v in grid.max(axis=1)],
    )


def _crib_sums(
    throws: Sequence[tuple[Card, ...]], unseen: Sequence[Card], unknown: int
) -> tuple[list[int], int]:
    """Each throw's crib points summed over every completion, and the number of completions.

    A completion is an ordered tuple of ``unknown`` distinct unseen cards joining the crib,
    then a distinct unseen starter; there are ``perm(len(unseen), unknown + 1)`` of them, each
    equally likely. Counting ordered tuples keeps every count a plain product of falling
    factorials; the mean is the same as over unordered crib cards.
    """
    n_unseen = len(unseen)
    drawn = unknown + 1  # the unknown crib cards and the starter
    deals = perm(n_unseen, drawn)
    rank_counts = np.zeros(_RANKS, dtype=np.int64)
    suit_counts = {s: 0 for s in Suit}
    for c in unseen:
        rank_counts[c.rank - 1] += 1
        suit_counts[c.suit] += 1

    # Rank points: how many ordered draws have each rank sequence, then one product with the
    # table sliced by the thrown ranks (the table is symmetric, so slot order is free).
    ways = _rank_ways(rank_counts, drawn)
    table = _table_by_throw(SHOW_CARDS - drawn)
    rank_points = table @ ways  # one entry per sequence of thrown ranks, row-major

    # His nobs from an unseen jack: it takes one of the unknown crib slots and the starter is
    # another unseen card of its suit; the remaining slots are filled from the rest.
    jack_nobs = sum(
        unknown * (suit_counts[c.suit] - 1) * perm(n_unseen - 2, unknown - 1)
        for c in unseen
        if c.rank is Rank.JACK
    )

    sums: list[int] = []
    for throw in throws:
        row = 0
        for c in throw:
            row = row * _RANKS + (c.rank - 1)
        total = int(rank_points[row]) + jack_nobs
        suit = throw[0].suit
        if all(c.suit is suit for c in throw):
            total += _CRIB_FLUSH * perm(suit_counts[suit], drawn)
        for c in throw:
            if c.rank is Rank.JACK:
                # My thrown jack scores when the starter is of its suit, whatever else comes.
                total += suit_counts[c.suit] * perm(n_unseen - 1, unknown)
        sums.append(total)
    return sums, deals


@cache
def _rank_grid(drawn: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every rank sequence of ``drawn`` cards, and how many earlier slots share each slot's rank."""
    grid = np.indices((_RANKS,) * drawn, dtype=np.int64).reshape(drawn, -1)
    earlier = np.zeros_like(grid)
    for j in range(drawn):
        for i in range(j):
            earlier[j] += grid[i] == grid[j]
    grid.setflags(write=False)
    earlier.setflags(write=False)
    return grid, earlier


def _rank_ways(rank_counts: NDArray[np.int64], drawn: int) -> NDArray[np.int64]:
    """Ordered draws of distinct cards per rank sequence: a product of falling factorials.

    A factor can only go negative after an earlier factor of the same rank reached zero, so
    every product is a true count.
    """
    grid, earlier = _rank_grid(drawn)
    ways = np.ones(grid.shape[1], dtype=np.int64)
    for j in range(drawn):
        ways *= rank_counts[grid[j]] - earlier[j]
    return ways


@cache
def _table_by_throw(thrown: int) -> NDArray[np.int64]:
    """``rank_scores()`` as a matrix: a row per thrown rank sequence, a column per drawn one."""
    table = rank_scores().astype(np.int64).reshape(_RANKS**thrown, -1)
    table.setflags(write=False)
    return table
