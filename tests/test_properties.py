"""Properties of the show and the notation that must hold for every deal (Hypothesis)."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import DECK, Card, Rank, parse_cards
from scorer.show import Score, ScoreKind, score_show
from scorer.tables import score_many

# Enough examples to shake out ordering and boundary bugs while the file runs in a few seconds on
# a shared 2-core CI machine; the exhaustive checks live in test_tables.py.
EXAMPLES = 300
QUICK = settings(max_examples=EXAMPLES, deadline=None, database=None)
BATCH = 64
"""Deals per example in the ``score_many`` agreement test (one numpy call scores a batch)."""

IMPOSSIBLE_TOTALS = {19, 25, 26, 27}
TOP_HAND = 29

deals = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)
"""Four hand cards then the starter."""


def _multiset(score: Score) -> Counter[tuple[ScoreKind, frozenset[Card], int]]:
    return Counter((i.kind, frozenset(i.cards), i.points) for i in score.items)


@QUICK
@given(deal=deals, data=st.data(), crib=st.booleans())
def test_hand_order_never_changes_the_score(deal: list[Card], data: st.DataObject, crib: bool) -> None:
    hand, starter = deal[:4], deal[4]
    shuffled = data.draw(st.permutations(hand))
    a = score_show(hand, starter, crib=crib)
    b = score_show(shuffled, starter, crib=crib)
    assert a.total == b.total
    assert _multiset(a) == _multiset(b)


@QUICK
@given(deal=deals)
def test_totals_are_possible_ones(deal: list[Card]) -> None:
    for crib in (False, True):
        total = score_show(deal[:4], deal[4], crib=crib).total
        assert 0 <= total <= TOP_HAND
        assert total not in IMPOSSIBLE_TOTALS


@QUICK
@given(deal=deals)
def test_crib_differs_only_by_a_four_card_flush(deal: list[Card]) -> None:
    """docs/RULES.md: the crib counts like a hand except that only a five-card flush scores."""
    hand, starter = deal[:4], deal[4]
    as_hand = score_show(hand, starter).total
    as_crib = score_show(hand, starter, crib=True).total
    four_card_flush = len({c.suit for c in hand}) == 1 and starter.suit is not hand[0].suit
    assert as_hand - as_crib == (4 if four_card_flush else 0)


@QUICK
@given(deal=deals)
def test_nobs_is_exactly_the_jack_of_the_starters_suit(deal: list[Card]) -> None:
    hand, starter = deal[:4], deal[4]
    nobs = score_show(hand, starter).by_kind(ScoreKind.NOBS)
    expected = [c for c in hand if c.rank is Rank.JACK and c.suit is starter.suit]
    assert [i.cards[0] for i in nobs] == expected


@QUICK
@given(card=st.sampled_from(DECK), data=st.data())
def test_parse_str_round_trip_in_any_notation(card: Card, data: st.DataObject) -> None:
    assert Card.parse(str(card)) == card
    assert eval(repr(card)) == card
    rank = str(card)[0]
    if rank == "T":
        rank = data.draw(st.sampled_from(["T", "t", "10"]))
    else:
        rank = data.draw(st.sampled_from([rank, rank.lower()]))
    suit = data.draw(st.sampled_from([str(card)[1], str(card)[1].lower(), card.suit.symbol]))
    pad = data.draw(st.sampled_from(["", " ", "\t"]))
    assert Card.parse(f"{pad}{rank}{suit}{pad}") == card


@QUICK
@given(cards=st.lists(st.sampled_from(DECK), min_size=1, max_size=8, unique=True), data=st.data())
def test_parse_cards_round_trip(cards: list[Card], data: st.DataObject) -> None:
    separators = st.sampled_from([" ", ",", ", ", " ,  ", "\n"])
    seps = data.draw(st.lists(separators, min_size=len(cards), max_size=len(cards)))
    text = "".join(str(c) + sep for c, sep in zip(cards, seps, strict=True))
    assert parse_cards(text) == cards


@QUICK
@given(batch=st.lists(deals, min_size=1, max_size=BATCH), crib=st.booleans())
def test_score_show_agrees_with_score_many(batch: list[list[Card]], crib: bool) -> None:
    hands = np.array([[c.index for c in deal[:4]] for deal in batch])
    starters = np.array([deal[4].index for deal in batch])
    fast = score_many(hands, starters, crib=crib)
    slow = [score_show(deal[:4], deal[4], crib=crib).total for deal in batch]
    assert fast.tolist() == slow
