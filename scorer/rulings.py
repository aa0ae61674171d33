"""Rulings for show counts a player might dispute, each naming its rule in docs/RULES.md.

Every note is a whole sentence in the current language (``scorer.i18n``); the doctests are English.

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

from scorer.cards import HAND_CARDS, Card, CardsLike, Rank, Suit, parse_cards
from scorer.errors import DuplicateCardError
from scorer.i18n import N_, _, current, join_phrases, ngettext
from scorer.show import Score, score_show

__all__ = ["rulings", "show_answer"]

_SUIT_SINGULAR = {
    Suit.SPADES: N_("spade"), Suit.HEARTS: N_("heart"), Suit.DIAMONDS: N_("diamond"), Suit.CLUBS: N_("club"),
}

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
    cards = parse_cards(hand, 4, HAND_CARDS)
    cut = starter if isinstance(starter, Card) else Card.parse(starter)
    if score is None:
        score = score_show(cards, cut, crib)
    else:
        if cut in cards:
            raise DuplicateCardError(
                _("duplicate card %(card)s: it is both in the hand and the starter", card=repr(str(cut)))
            )
        stray = sorted({c for item in score.items for c in item.cards} - {*cards, cut})
        if stray:
            raise ValueError(_("the score given is not for these cards: it names %(cards)s",
                               cards=" ".join(map(str, stray))))
    notes = _runs(cards, cut) + _flush(cards, cut, crib) + _jacks(cards, cut)
    if score.total == 0:
        notes.append(_(
            'Nineteen: these cards score nothing ("nineteen" is the table\'s name for a zero hand, '
            "because no show can score exactly 19)."
        ))
    return notes


def show_answer(hand: CardsLike, starter: Card | str, crib: bool = False) -> dict[str, object]:
    """The CLI's and API's JSON for a show: the itemized score, the count as said at the table,
    the rulings, and ``lang``, the language those texts are in (keys and item kinds stay English).

    >>> answer = show_answer("3H 3C 4S 5D", "KC")
    >>> answer["total"], answer["spoken"], answer["rulings"], answer["lang"]
    (12, 'fifteen two, fifteen four and a double run of three is twelve', [], 'en')
    """
    score = score_show(hand, starter, crib)
    return {
        **score.to_json(),
        "spoken": score.spoken(),
        "rulings": rulings(hand, starter, crib, score=score),
        "lang": current(),
    }


def _runs(cards: list[Card], starter: Card) -> list[str]:
    """The ace is low: Q-K-A and K-A-2 are no runs."""
    ranks = {c.rank for c in (*cards, starter)}
    wraps = ["-".join(r.symbol for r in w) for w in _WRAPS if ranks.issuperset(w)]
    if not wraps:
        return []
    return [ngettext("Runs: the ace is low and the king is the top card, so %(cards)s is not a run.",
                     "Runs: the ace is low and the king is the top card, so %(cards)s are not runs.",
                     len(wraps), cards=join_phrases(wraps))]


def _flush(cards: list[Card], starter: Card, crib: bool) -> list[str]:
    """Hand flush 4 or 5, crib flush only with all five, and the starter never completes one."""
    suit = cards[0].suit
    if all(c.suit is suit for c in cards):
        one = _(_SUIT_SINGULAR[suit])
        if starter.suit is suit:
            if crib:
                return []
            return [_(
                "Flush with the starter: the four hand cards and the starter are all %(suit)s, "
                "so the flush is 5, not 4.", suit=suit.word
            )]
        if crib:
            return [_(
                "Crib flush: a crib flush needs all five cards of one suit, the four crib cards and "
                "the starter; the starter %(starter)s is not a %(one)s, so these four %(suit)s score "
                "nothing for flush.", starter=str(starter), one=one, suit=suit.word
            )]
        return [_(
            "Flush: the four hand cards are %(suit)s, a flush of 4. A hand flush is the four hand "
            "cards; the starter only adds a fifth, and the %(starter)s is not a %(one)s, so it stays 4.",
            suit=suit.word, starter=str(starter), one=one
        )]
    odd = [c for c in cards if c.suit is not starter.suit]
    if len(odd) != 1:
        return []
    if crib:
        return [_(
            "Crib flush: a crib flush needs all five cards of one suit. The starter and three crib "
            "cards are %(suit)s, but the %(odd)s is not, so there is no flush.",
            suit=starter.suit.word, odd=str(odd[0])
        )]
    return [_(
        "Flush: a flush needs all four hand cards of one suit; the starter cannot complete it. "
        "The starter and three hand cards are %(suit)s, but the %(odd)s is not, "
        "so there is no flush.", suit=starter.suit.word, odd=str(odd[0])
    )]


def _jacks(cards: list[Card], starter: Card) -> list[str]:
    """His nobs is only the jack of the starter's suit; a jack starter is heels, not nobs."""
    notes: list[str] = []
    others = [str(c) for c in cards if c.rank is Rank.JACK and c.suit is not starter.suit]
    if others:
        which = others[0]
        for jack in others[1:]:
            which = _("%(earlier)s and the %(next)s", earlier=which, next=jack)
        notes.append(ngettext(
            "His nobs: nobs is the jack of the starter's suit (%(suit)s), so the %(cards)s scores no nobs.",
            "His nobs: nobs is the jack of the starter's suit (%(suit)s), so the %(cards)s score no nobs.",
            len(others), suit=starter.suit.word, cards=which
        ))
    if starter.rank is Rank.JACK:
        notes.append(_(
            "His heels: the starter is the %(starter)s, so the dealer pegged 2 when it was cut, "
            "not in the show; a jack starter gives no nobs.", starter=str(starter)
        ))
    return notes
