"""Plain-English rulings for show counts a player might dispute, each naming its rule in docs/RULES.md.

The engine's total is right; these notes say *why* when a count looks wrong at the table: four
hearts in the crib that score nothing, a heart starter that cannot finish three hearts in hand, a
jack turned up that is not nobs, Q-K-A that is no run, a hand of nothing ("nineteen").

>>> for note in rulings("2H 4H 6H 8H", "KC", crib=True):
...     print(note)
Crib flush: a crib flush needs all five cards of one suit, the four crib cards and the starter; \
the starter KC is not a heart, so these four hearts score nothing for flush.
Nineteen: these cards score nothing ("nineteen" is the table's name for a zero hand, \
because no show can score exactly 19).
>>> rulings("5H 6C 7S 8D", "9C")
[]
"""

from __future__ import annotations

from scorer.cards import Card, CardsLike, Rank, Suit, parse_cards
from scorer.errors import DuplicateCardError
from scorer.show import Score, score_show

__all__ = ["rulings"]

_SUIT_SINGULAR = {Suit.SPADES: "spade", Suit.HEARTS: "heart", Suit.DIAMONDS: "diamond", Suit.CLUBS: "club"}

# Rank triples that would be runs if the ace were also high (docs/RULES.md: A is low, K is the top).
_WRAPS = ((Rank.QUEEN, Rank.KING, Rank.ACE), (Rank.KING, Rank.ACE, Rank.TWO))


def rulings(
    hand: CardsLike, starter: Card | str, crib: bool = False, *, score: Score | None = None
) -> list[str]:
    """Notes on the surprising parts of a show's count, in counting order (empty when none apply).

    ``score`` is the show's ``Score`` when the caller already has it (it saves a recount); it
    must be the score of these cards. Raise ``CardError`` for bad cards as ``score_show`` does.

    >>> rulings("JH 5C 5S 5D", "5H")
    []
    >>> for note in rulings("JC 2H 4H 6H", "8H"):
    ...     print(note)
    Flush: a flush needs all four hand cards of one suit; the starter cannot complete it. \
The starter and three hand cards are hearts, but the JC is not, so there is no flush.
    His nobs: nobs is the jack of the starter's suit (hearts), so the JC scores no nobs.
    Nineteen: these cards score nothing ("nineteen" is the table's name for a zero hand, \
because no show can score exactly 19).
    """
    cards = parse_cards(hand, 4, "hand cards (the starter goes separately)")
    cut = starter if isinstance(starter, Card) else Card.parse(starter)
    if score is None:
        score = score_show(cards, cut, crib)
    else:
        if cut in cards:
            raise DuplicateCardError(f"duplicate card {str(cut)!r}: it is both in the hand and the starter")
        stray = sorted({c for item in score.items for c in item.cards} - {*cards, cut})
        if stray:
            raise ValueError(f"the score given is not for these cards: it names {' '.join(map(str, stray))}")
    notes = _runs(cards, cut) + _flush(cards, cut, crib) + _jacks(cards, cut)
    if score.total == 0:
        notes.append(
            'Nineteen: these cards score nothing ("nineteen" is the table\'s name for a zero hand, '
            "because no show can score exactly 19)."
        )
    return notes


def _runs(cards: list[Card], starter: Card) -> list[str]:
    """The ace is low: Q-K-A and K-A-2 are no runs."""
    ranks = {c.rank for c in (*cards, starter)}
    wraps = ["-".join(r.symbol for r in w) for w in _WRAPS if ranks.issuperset(w)]
    if not wraps:
        return []
    what = " and ".join(wraps)
    verb = "is not a run" if len(wraps) == 1 else "are not runs"
    return [f"Runs: the ace is low and the king is the top card, so {what} {verb}."]


def _flush(cards: list[Card], starter: Card, crib: bool) -> list[str]:
    """Hand flush 4 or 5, crib flush only with all five, and the starter never completes one."""
    suit = cards[0].suit
    if all(c.suit is suit for c in cards):
        one = _SUIT_SINGULAR[suit]
        if starter.suit is suit:
            if crib:
                return []
            return [
                f"Flush with the starter: the four hand cards and the starter are all {suit.word}, "
                "so the flush is 5, not 4."
            ]
        if crib:
            return [
                "Crib flush: a crib flush needs all five cards of one suit, the four crib cards and "
                f"the starter; the starter {starter} is not a {one}, so these four {suit.word} score "
                "nothing for flush."
            ]
        return [
            f"Flush: the four hand cards are {suit.word}, a flush of 4. A hand flush is the four hand "
            f"cards; the starter only adds a fifth, and the {starter} is not a {one}, so it stays 4."
        ]
    odd = [c for c in cards if c.suit is not starter.suit]
    if len(odd) != 1:
        return []
    if crib:
        return [
            "Crib flush: a crib flush needs all five cards of one suit. The starter and three crib "
            f"cards are {starter.suit.word}, but the {odd[0]} is not, so there is no flush."
        ]
    return [
        "Flush: a flush needs all four hand cards of one suit; the starter cannot complete it. "
        f"The starter and three hand cards are {starter.suit.word}, but the {odd[0]} is not, "
        "so there is no flush."
    ]


def _jacks(cards: list[Card], starter: Card) -> list[str]:
    """His nobs is only the jack of the starter's suit; a jack starter is heels, not nobs."""
    notes: list[str] = []
    others = [str(c) for c in cards if c.rank is Rank.JACK and c.suit is not starter.suit]
    if others:
        which = " and the ".join(others)
        verb = "scores" if len(others) == 1 else "score"
        notes.append(
            f"His nobs: nobs is the jack of the starter's suit ({starter.suit.word}), "
            f"so the {which} {verb} no nobs."
        )
    if starter.rank is Rank.JACK:
        notes.append(
            f"His heels: the starter is the {starter}, so the dealer pegged 2 when it was cut, "
            "not in the show; a jack starter gives no nobs."
        )
    return notes
