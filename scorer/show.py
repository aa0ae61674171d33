"""Counting a hand or crib in the show: fifteens, pairs, runs, flush and nobs.

Counting facts this module relies on (docs/RULES.md):

* A show is 4 cards plus the starter. There are C(52,4) * 48 = 12,994,800 (hand, starter) deals.
* Of the 26 subsets of two or more of the five cards, each totalling 15 scores 2.
* Pairs are scored per pair of equal rank: three of a rank is 3 pairs (6), four is 6 pairs (12).
* Runs are counted at their longest length, once per way of choosing one card of each rank.
  With five cards only one run of distinct ranks can exist, so a double run (3-3-4-5) is two
  runs of three and a pair (8), a triple run (3-3-3-4-5) is 15, a double double run (3-3-4-4-5) 16.
* The top hand is 29: 5-5-5-J plus the fourth 5 of the jack's suit (eight fifteens 16, pair
  royal of four 12, nobs 1). 19, 25, 26 and 27 cannot be made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from itertools import combinations
from operator import attrgetter, itemgetter

from scorer.cards import HAND_CARDS, Card, CardsLike, Rank, parse_cards
from scorer.errors import CardError, DuplicateCardError
from scorer.i18n import N_, _, join_phrases, number_words

__all__ = ["ScoreKind", "ScoreItem", "Score", "score_show", "number_word", "PAIR_NAMES"]


class ScoreKind(Enum):
    """Every kind of score the engine awards, in the show, the play or for the starter."""

    FIFTEEN = "fifteen"
    """Cards totalling 15: 2 points (each combination in the show; the count reaching 15 in play)."""
    PAIR = "pair"
    """Two cards of a rank: 2 points (in play a pair royal is 6 and a double pair royal 12)."""
    RUN = "run"
    """Three or more consecutive ranks, any order: one point per card."""
    FLUSH = "flush"
    """Four hand cards of one suit (4), or five with the starter (5); a crib needs all five."""
    NOBS = "nobs"
    """The jack in hand or crib of the starter's suit: 1 point."""
    HEELS = "heels"
    """The starter is a jack: 2 points to the dealer (also "his nibs")."""
    GO = "go"
    """Last card before nobody can play without passing 31: 1 point."""
    THIRTY_ONE = "thirty-one"
    """The count reaches exactly 31: 2 points, and no go point."""
    LAST = "last"
    """The final card of the whole play: 1 point (not when it made 31)."""


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One award: its kind, the cards that make it, and its points."""

    kind: ScoreKind
    cards: tuple[Card, ...]
    points: int

    def to_json(self) -> dict[str, object]:
        """``{"kind": "fifteen", "cards": ["5H", "JD"], "points": 2}``."""
        return {"kind": self.kind.value, "cards": [str(c) for c in self.cards], "points": self.points}


def number_word(n: int) -> str:
    """A cribbage number (0..121) in words, in the current language (``scorer.i18n.number_words``).

    >>> number_word(29), number_word(121)
    ('twenty-nine', 'one hundred twenty-one')
    """
    return number_words(n)


PAIR_NAMES = {2: N_("pair"), 6: N_("pair royal"), 12: N_("double pair royal")}
"""What players call two, three or four cards of a rank, by their points (in the show and in the
play alike); marked for translation, translated where shown."""

# The combinations as players name them, by how many pairs (outside a run) or runs make them; each
# is a whole sentence with the running total, since word order differs between languages.
_PAIR_PHRASES = {
    1: N_("a pair is %(total)s"),
    3: N_("a pair royal is %(total)s"),
    6: N_("a double pair royal is %(total)s"),
}
_RUN_PHRASES = {
    1: N_("a run of %(length)s is %(total)s"),
    2: N_("a double run of %(length)s is %(total)s"),
    3: N_("a triple run of %(length)s is %(total)s"),
    4: N_("a double double run of %(length)s is %(total)s"),
}


@dataclass(frozen=True, slots=True)
class Score:
    """An itemized show score; ``items`` are in the order players count aloud."""

    items: tuple[ScoreItem, ...]

    @property
    def total(self) -> int:
        """Sum of the items' points."""
        return sum(i.points for i in self.items)

    def by_kind(self, kind: ScoreKind) -> tuple[ScoreItem, ...]:
        """The items of one kind."""
        return tuple(i for i in self.items if i.kind is kind)

    def to_json(self) -> dict[str, object]:
        """The CLI's and API's JSON: ``{"total": 29, "items": [...]}``."""
        return {"total": self.total, "items": [i.to_json() for i in self.items]}

    def spoken(self) -> str:
        """The count as said at the table.

        >>> score_show("5H 5C 5S JD", "5D").spoken()
        'fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, \
fifteen fourteen, fifteen sixteen, a double pair royal is twenty-eight and his nobs is twenty-nine'
        >>> score_show("3H 3C 4S 5D", "KC").spoken()
        'fifteen two, fifteen four and a double run of three is twelve'
        >>> score_show("2H 4C 6S 8D", "QC").spoken()
        'nineteen: no score'
        """
        phrases: list[str] = []
        running = 0
        for item in self.by_kind(ScoreKind.FIFTEEN):
            running += item.points
            phrases.append(_("fifteen %(total)s", total=number_words(running)))
        for phrase, params, points in self._combinations():
            running += points
            phrases.append(_(phrase, total=number_words(running), **params))
        for item in self.items:
            if item.kind is ScoreKind.FLUSH:
                running += item.points
                phrases.append(_("a flush of %(points)s is %(total)s",
                                 points=number_words(item.points), total=number_words(running)))
            elif item.kind is ScoreKind.NOBS:
                running += item.points
                phrases.append(_("his nobs is %(total)s", total=number_words(running)))
        if not phrases:
            return _("nineteen: no score")
        # docs/DESIGN.md's cadence: "fifteen two, fifteen four and a pair is six" (no comma before "and").
        return join_phrases(phrases)

    def _combinations(self) -> list[tuple[str, dict[str, str], int]]:
        """Pairs and runs named the way players say them (double run, pair royal, ...): each as its
        untranslated sentence (a ``N_`` constant), its parameters besides the total, and its points."""
        runs = self.by_kind(ScoreKind.RUN)
        pairs = self.by_kind(ScoreKind.PAIR)
        run_ranks = {c.rank for r in runs for c in r.cards}
        inside = [p for p in pairs if p.cards[0].rank in run_ranks]
        outside = [p for p in pairs if p.cards[0].rank not in run_ranks]
        out: list[tuple[str, dict[str, str], int]] = []
        by_rank: dict[Rank, int] = {}
        for p in outside:
            by_rank[p.cards[0].rank] = by_rank.get(p.cards[0].rank, 0) + 1
        for n_pairs in by_rank.values():
            out.append((_PAIR_PHRASES[n_pairs], {}, 2 * n_pairs))
        if runs:
            length = len(runs[0].cards)
            points = sum(r.points for r in runs) + sum(p.points for p in inside)
            out.append((_RUN_PHRASES[len(runs)], {"length": number_words(length)}, points))
        return out


# A show's fifteens, pairs and runs depend only on the five ranks. For each sorted rank tuple we
# cache the awards as (kind, getter of the cards' positions, points) so a repeated rank pattern
# costs only the card lookups. There are 6,175 sorted rank tuples with at most four of a rank.
# The cache is keyed by 0-based ranks (``Card.index >> 2``): ints hash in C, Rank members do not.
_Template = tuple[tuple[ScoreKind, tuple[int, ...], int], ...]
_Plan = tuple[tuple[ScoreKind, Callable[[list[Card]], tuple[Card, ...]], int], ...]
_PLANS: dict[tuple[int, ...], _Plan] = {}
_SUBSETS = tuple(s for n in (2, 3, 4, 5) for s in combinations(range(5), n))


def _template(ranks: tuple[int, ...]) -> _Template:
    """The rank-only awards for five cards sorted by rank."""
    values = [min(r, 10) for r in ranks]
    out: list[tuple[ScoreKind, tuple[int, ...], int]] = []
    for sub in _SUBSETS:
        if sum(values[i] for i in sub) == 15:
            out.append((ScoreKind.FIFTEEN, sub, 2))
    for i, j in combinations(range(5), 2):
        if ranks[i] == ranks[j]:
            out.append((ScoreKind.PAIR, (i, j), 2))
    # Longest stretch of consecutive distinct ranks; with five cards at most one can reach 3.
    distinct = sorted(set(ranks))
    best: list[int] = []
    stretch = [distinct[0]]
    for r in distinct[1:]:
        stretch = [*stretch, r] if r == stretch[-1] + 1 else [r]
        if len(stretch) > len(best):
            best = stretch
    if len(stretch) > len(best):
        best = stretch
    if len(best) >= 3:
        choices: list[tuple[int, ...]] = [()]
        for r in best:
            choices = [(*c, i) for c in choices for i in range(5) if ranks[i] == r]
        out.extend((ScoreKind.RUN, c, len(best)) for c in choices)
    return tuple(out)


def _plan(rank_indices: tuple[int, ...]) -> _Plan:
    """``_template`` for 0-based ranks, each award's positions as one C-level getter."""
    # Rank awards always hold two cards or more, so each getter returns a tuple.
    return tuple(
        (kind, itemgetter(*pos), pts) for kind, pos, pts in _template(tuple(r + 1 for r in rank_indices))
    )


_sort_key = attrgetter("index")


def score_show(hand: CardsLike, starter: Card | str, crib: bool = False) -> Score:
    """Score four cards with the starter, as a hand or (``crib=True``) as the crib.

    Raise ``CardError`` for a bad token or a hand that is not four cards, and
    ``DuplicateCardError`` when a card repeats (the starter included).

    >>> s = score_show("5H 5C 5S JD", "5D")
    >>> s.total
    29
    >>> score_show("2H 4H 6H 8H", "KC", crib=True).total  # a crib flush needs all five
    0
    """
    # Hot path (the bulk callers pass four Card objects): plain int and identity checks, which
    # the Card class's Python-level __eq__ and __hash__ would make several times slower.
    cards: list[Card] | None = None
    if isinstance(hand, (list, tuple)) and len(hand) == 4:
        h0, h1, h2, h3 = hand
        if (
            type(h0) is Card and type(h1) is Card and type(h2) is Card and type(h3) is Card
            and len({h0.index, h1.index, h2.index, h3.index}) == 4
        ):
            cards = [h0, h1, h2, h3]
    if cards is None:
        cards = parse_cards(hand, 4, HAND_CARDS)
    if type(starter) is not Card:
        if not isinstance(starter, str):
            raise CardError(_("starter must be one card like '5D', not %(value)s", value=repr(starter)))
        starter = Card.parse(starter)
    s_index = starter.index
    c0, c1, c2, c3 = cards
    if s_index == c0.index or s_index == c1.index or s_index == c2.index or s_index == c3.index:
        raise DuplicateCardError(
            _("duplicate card %(card)s: it is both in the hand and the starter", card=repr(str(starter)))
        )
    five = sorted((c0, c1, c2, c3, starter), key=_sort_key)
    f0, f1, f2, f3, f4 = five
    ranks = (f0.index >> 2, f1.index >> 2, f2.index >> 2, f3.index >> 2, f4.index >> 2)
    plan = _PLANS.get(ranks)
    if plan is None:
        plan = _PLANS[ranks] = _plan(ranks)
    items = [ScoreItem(kind, get(five), pts) for kind, get, pts in plan]
    suit = c0.suit
    if c1.suit is suit and c2.suit is suit and c3.suit is suit:
        if starter.suit is suit:
            items.append(ScoreItem(ScoreKind.FLUSH, tuple(five), 5))
        elif not crib:
            items.append(ScoreItem(ScoreKind.FLUSH, tuple(sorted(cards, key=_sort_key)), 4))
    jack = Rank.JACK
    starter_suit = starter.suit
    for c in cards:
        if c.rank is jack and c.suit is starter_suit:
            items.append(ScoreItem(ScoreKind.NOBS, (c,), 1))
    return Score(tuple(items))


def total_of(items: Iterable[ScoreItem]) -> int:
    """Sum of points of any items."""
    return sum(i.points for i in items)
