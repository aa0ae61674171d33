"""The discard advisor against hand-worked cribs and independent enumerations.

How the brute force is sized (the suite must stay fast on two cores):

* Hands: every throw of every deal below is checked against ``score_show`` over all 46 or 47
  starters (at most 690 shows a deal).
* Cribs, two players, full deck: a pure-Python ``score_show`` enumeration of all 45,540
  completions costs about 0.2 s a throw, so it runs for two chosen throws per deal (a suited
  throw holding a jack, which exercises flush and nobs, and one other).
* Cribs, three and four players, full deck: 713,460 completions a throw is ~3 s of
  ``score_show``, so the full deck is enumerated with ``score_many`` (numpy, every completion
  listed, no counting shortcuts) for every throw, and the pure-Python ``score_show`` brute
  force runs on every throw with the unseen cards cut down to a dozen, through the same private
  ``_crib_sums`` the advisor calls.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from scorer.cards import DECK, Card, parse_cards
from scorer.discard import DiscardOption, _crib_sums, advise, rank_of
from scorer.errors import CardError, DuplicateCardError
from scorer.show import score_show
from scorer.tables import score_many

# Exact means from the engine are single roundings of a fraction; sums of two are within this.
NET_TOLERANCE = 1e-12


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def unseen_after(dealt: tuple[Card, ...]) -> list[Card]:
    return [c for c in DECK if c not in dealt]


def brute_crib(throw: tuple[Card, ...], unseen: list[Card], unknown: int) -> Fraction:
    """Mean crib points over every set of ``unknown`` unseen cards and every other starter."""
    total = 0
    deals = 0
    for extra in combinations(unseen, unknown):
        crib = [*throw, *extra]
        for starter in unseen:
            if starter not in extra:
                total += score_show(crib, starter, crib=True).total
                deals += 1
    return Fraction(total, deals)


def enumerated_crib(throw: tuple[Card, ...], unseen: list[Card], unknown: int) -> Fraction:
    """The same mean with every completion listed and scored by ``score_many``."""
    idx = np.array([c.index for c in unseen])
    n = len(idx)
    extra = np.array(list(combinations(range(n), unknown)))
    starters = np.arange(n)
    free = (extra[:, :, None] != starters[None, None, :]).all(axis=1)
    rows, cols = np.nonzero(free)
    thrown = np.tile([c.index for c in throw], (len(rows), 1))
    hands = np.column_stack([thrown, idx[extra[rows]]])
    scores = score_many(hands, idx[cols], crib=True).astype(np.int64)
    return Fraction(int(scores.sum()), len(rows))


def option_for(options: list[DiscardOption], throw: str) -> DiscardOption:
    wanted = set(cards(throw))
    return next(o for o in options if set(o.throw) == wanted)


# ---- hand-worked facts -------------------------------------------------------------------


def test_keeping_555j_is_worked_by_hand() -> None:
    # 5-5-5-J always has four fifteens and a pair royal (14). A ten-card starter adds three
    # fifteens (+6; a jack also pairs, +2), the 5D makes 29, a diamond starter adds nobs for JD.
    # Over the 46 unseen: 5D 29; TQK 9 x 20 + 3 x 21; J 3 x 22; 30 others 14 each, 7 of them
    # diamonds: 29 + 243 + 66 + 427 = 765.
    options = advise("5H 5C 5S JD 2C 9D", players=2, dealer=True)
    keep = option_for(options, "2C 9D")
    assert keep.keep == cards("5H 5C 5S JD")
    assert (keep.hand.min, keep.hand.max) == (14, 29)
    assert keep.hand.mean == float(Fraction(765, 46))
    assert options[0] is keep


def test_crib_with_an_unseen_jack_worked_by_hand() -> None:
    # Throw 5H 5C; the opponent's two and the starter are JS 5S KH in some order. Three 5s with a
    # J and a K: seven fifteens and a pair royal, 20; plus nobs when JS is in the crib and 5S is
    # the starter: 20 + 21 + 20.
    sums, deals = _crib_sums([cards("5H 5C")], list(cards("JS 5S KH")), 2)
    assert Fraction(sums[0], deals) == Fraction(61, 3)


def test_crib_with_a_thrown_jack_worked_by_hand() -> None:
    # J 2 3 5 7 has three fifteens (J5, J23, 357) and no run; the thrown JH adds nobs only
    # when 5H is the starter: 6 + 6 + 7.
    sums, deals = _crib_sums([cards("JH 2C")], list(cards("5H 3S 7D")), 2)
    assert Fraction(sums[0], deals) == Fraction(19, 3)


def test_crib_flush_needs_the_starter_too() -> None:
    # All even values: no fifteen, pair or run, so only a flush can score.
    sums, deals = _crib_sums([cards("2H 4H")], list(cards("6H 8H KH")), 2)
    assert Fraction(sums[0], deals) == 5
    sums, deals = _crib_sums([cards("2H 4H")], list(cards("6H 8H KS")), 2)
    assert sums[0] == 0 and deals == 6


def test_a_four_card_hand_flush_counts_worked_by_hand() -> None:
    # 2-4-6-8 of hearts: flush 4 with every starter (5 with one of the 9 unseen hearts). All
    # even, so only an odd starter makes fifteens: two each for A 3 5 7 9 (+4); 3, 5 and 7
    # also make a run of three (+3); 2 4 6 8 pair (+2). Unseen: A 3 5 7 9 T J four each,
    # 2 4 6 8 Q K three each. 4x8 + 12x11 + 4x8 + 12x6 + 8x4 + 6x4 = 324, plus 9 hearts.
    options = advise("2H 4H 6H 8H KS QS", players=2)
    keep = option_for(options, "KS QS")
    assert keep.hand.mean == float(Fraction(333, 46))
    assert (keep.hand.min, keep.hand.max) == (4, 12)


def test_symmetric_throws_tie_and_the_tie_is_broken_by_suit_order() -> None:
    # Swapping hearts and spades maps throwing 5H onto throwing 5S, so they tie exactly.
    options = advise("5H 5C 5S JD 2C", players=3)
    five_s, five_h = option_for(options, "5S"), option_for(options, "5H")
    assert five_s.net == five_h.net
    assert options.index(five_s) + 1 == options.index(five_h)
    assert rank_of(options, "5H") == rank_of(options, "5S")
    assert rank_of(options, "5H")[0] == options.index(five_s) + 1


# ---- against brute force -----------------------------------------------------------------

FULL_DECK_TWO_PLAYER = [
    ("5H 5C 5S JD 2C 9D", True, ["5H 5C", "2C 9D"]),
    ("JH 4H 7H 8H 9C KS", False, ["JH 4H", "9C KS"]),
]


@pytest.mark.parametrize(("dealt", "dealer", "checked"), FULL_DECK_TWO_PLAYER)
def test_two_player_deal_matches_brute_force(dealt: str, dealer: bool, checked: list[str]) -> None:
    hand = cards(dealt)
    unseen = unseen_after(hand)
    options = advise(dealt, players=2, dealer=dealer)
    assert len(options) == 15
    for o in options:
        shows = [score_show(o.keep, s).total for s in unseen]
        assert o.hand.mean == float(Fraction(sum(shows), 46))
        assert (o.hand.min, o.hand.max) == (min(shows), max(shows))
    for throw in checked:
        o = option_for(options, throw)
        assert o.crib_mean == float(brute_crib(o.throw, unseen, 2))


FULL_DECK_FIVE_CARD = [
    ("5H 5C 5S JD 2C", 3, True),
    ("JH 4H 7H 8H 9C", 3, False),
    ("JS QS KS 3D 4C", 4, True),
    ("AH 2H 6D 9S JC", 4, False),
]


@pytest.mark.parametrize(("dealt", "players", "dealer"), FULL_DECK_FIVE_CARD)
def test_five_card_deal_matches_full_enumeration(dealt: str, players: int, dealer: bool) -> None:
    hand = cards(dealt)
    unseen = unseen_after(hand)
    options = advise(dealt, players=players, dealer=dealer)
    assert len(options) == 5
    for o in options:
        shows = [score_show(o.keep, s).total for s in unseen]
        assert o.hand.mean == float(Fraction(sum(shows), 47))
        assert (o.hand.min, o.hand.max) == (min(shows), max(shows))
        assert o.crib_mean == float(enumerated_crib(o.throw, unseen, 3))


# Small unseen sets rich in what the counting splits on: jacks of several suits, one suit in
# depth, pairs, runs and fifteens.
SMALL_UNSEEN = [
    ("JH JS 5H 5D TH 4H 6C 7H QS 2H AH 9H", "5S 5C JD 3H 8H 4C", 2),
    ("JC 5C 6C 7C 8C KD JD 5S 4H 3H 2S", "JH 5H 6H 9C 7S", 3),
    ("AS 2S 3S 4S JS 5D 5C TD JD KC QC 9H", "JC 6S 4D 5H 3C", 3),
]


@pytest.mark.parametrize(("unseen_text", "dealt", "unknown"), SMALL_UNSEEN)
def test_crib_sums_match_brute_force_on_a_small_unseen_set(
    unseen_text: str, dealt: str, unknown: int
) -> None:
    unseen = list(cards(unseen_text))
    hand = cards(dealt)
    throws = list(combinations(hand, 4 - unknown))
    sums, deals = _crib_sums(throws, unseen, unknown)
    for throw, total in zip(throws, sums, strict=True):
        assert Fraction(total, deals) == brute_crib(throw, unseen, unknown), throw


# ---- ranking -------------------------------------------------------------------------------


@pytest.mark.parametrize(("dealt", "players", "dealer"), [
    ("5H 5C 5S JD 2C 9D", 2, True),
    ("5H 5C 5S JD 2C 9D", 2, False),
    ("7C 8D 8S 9H KC", 3, False),
    ("7C 8D 8S 9H KC", 4, True),
])
def test_net_is_hand_plus_or_minus_crib_and_best_comes_first(
    dealt: str, players: int, dealer: bool
) -> None:
    options = advise(dealt, players=players, dealer=dealer)
    sign = 1 if dealer else -1
    for o in options:
        assert o.net == pytest.approx(o.hand.mean + sign * o.crib_mean, abs=NET_TOLERANCE)
        assert sorted(o.throw + o.keep) == sorted(cards(dealt))
    nets = [o.net for o in options]
    assert nets == sorted(nets, reverse=True)
    worst = options[-1]
    rank, lost = rank_of(options, [str(c) for c in reversed(worst.throw)])
    assert rank == 1 + sum(1 for n in nets if n > worst.net)
    assert lost == pytest.approx(nets[0] - worst.net, abs=NET_TOLERANCE)
    assert rank_of(options, options[0].throw) == (1, 0.0)


def test_the_crib_turns_a_dealers_throw_into_a_pones_mistake() -> None:
    # Throwing 5-5 to your own crib is strong; to the opponent's it gives points away.
    dealt = "5H 5C JS QD 8C 9H"
    as_dealer = advise(dealt, dealer=True)
    as_pone = advise(dealt, dealer=False)
    fives_d, fives_p = option_for(as_dealer, "5H 5C"), option_for(as_pone, "5H 5C")
    assert fives_d.crib_mean == fives_p.crib_mean
    assert rank_of(as_dealer, "5H 5C")[0] < rank_of(as_pone, "5H 5C")[0]


def test_to_json_shape() -> None:
    o = option_for(advise("5H 5C 5S JD 2C 9D", dealer=True), "2C 9D")
    data = o.to_json()
    assert data == {
        "throw": ["2C", "9D"],
        "keep": ["5H", "5C", "5S", "JD"],
        "hand": {"mean": float(Fraction(765, 46)), "min": 14, "max": 29},
        "crib": {"mean": o.crib_mean},
        "net": o.net,
    }


# ---- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(("dealt", "players", "error", "message"), [
    ("5H 5C 5S JD 2C", 2, CardError, "expected 6 cards for a 2-player deal, got 5"),
    ("5H 5C 5S JD 2C 9D", 3, CardError, "expected 5 cards for a 3-player deal, got 6"),
    ("5H 5C 5S JD", 4, CardError, "expected 5 cards for a 4-player deal, got 4"),
    ("5H 5C 5S JD 2C 5H", 2, DuplicateCardError, "duplicate card '5H' at positions 1 and 6"),
    ("5H 5C 5S JD 1C", 3, CardError, "bad card '1C' at position 5"),
    ("5H 5C 5S JD 2C", 5, ValueError, "players must be 2, 3 or 4, not 5"),
])
def test_bad_deals_are_refused(dealt: str, players: int, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        advise(dealt, players=players)


def test_rank_of_refuses_a_throw_not_dealt() -> None:
    options = advise("5H 5C 5S JD 2C 9D")
    with pytest.raises(CardError, match="throw '2C 3D' is not from the cards dealt"):
        rank_of(options, "2C 3D")
    with pytest.raises(CardError, match="expected 2 cards in the throw, got 1"):
        rank_of(options, "2C")
    with pytest.raises(CardError, match="no discard options"):
        rank_of([], "2C 9D")
