"""Rulings: the plain-English notes for counts a player might dispute, each naming its rule."""

from __future__ import annotations

import pytest

from scorer.cards import Card, parse_cards
from scorer.errors import CardError, DuplicateCardError
from scorer.rulings import rulings
from scorer.show import ScoreKind, score_show

NINETEEN = (
    'Nineteen: these cards score nothing ("nineteen" is the table\'s name for a zero hand, '
    "because no show can score exactly 19)."
)


def test_crib_four_of_a_suit_with_another_starter() -> None:
    assert rulings("AH 3H 5H 7H", "9C", crib=True) == [
        "Crib flush: a crib flush needs all five cards of one suit, the four crib cards and the starter; "
        "the starter 9C is not a heart, so these four hearts score nothing for flush."
    ]
    assert score_show("AH 3H 5H 7H", "9C", crib=True).by_kind(ScoreKind.FLUSH) == ()


def test_hand_four_of_a_suit_with_another_starter() -> None:
    assert rulings("AH 3H 5H 7H", "9C") == [
        "Flush: the four hand cards are hearts, a flush of 4. A hand flush is the four hand cards; "
        "the starter only adds a fifth, and the 9C is not a heart, so it stays 4."
    ]
    (flush,) = score_show("AH 3H 5H 7H", "9C").by_kind(ScoreKind.FLUSH)
    assert flush.points == 4


def test_hand_four_of_a_suit_with_starter_of_that_suit() -> None:
    assert rulings("AH 3H 5H 7H", "9H") == [
        "Flush with the starter: the four hand cards and the starter are all hearts, "
        "so the flush is 5, not 4."
    ]
    (flush,) = score_show("AH 3H 5H 7H", "9H").by_kind(ScoreKind.FLUSH)
    assert flush.points == 5


def test_five_card_crib_flush_needs_no_note() -> None:
    assert rulings("AH 3H 5H 7H", "9H", crib=True) == []


@pytest.mark.parametrize(
    ("hand", "crib", "note"),
    [
        (
            "AH 3H 5H 7C", False,
            "Flush: a flush needs all four hand cards of one suit; the starter cannot complete it. "
            "The starter and three hand cards are hearts, but the 7C is not, so there is no flush.",
        ),
        (
            "AH 3S 5H 7H", True,
            "Crib flush: a crib flush needs all five cards of one suit. The starter and three crib cards "
            "are hearts, but the 3S is not, so there is no flush.",
        ),
    ],
)
def test_three_of_a_suit_plus_the_starter(hand: str, crib: bool, note: str) -> None:
    notes = rulings(hand, "9H", crib=crib)
    assert notes == [note]
    assert score_show(hand, "9H", crib=crib).by_kind(ScoreKind.FLUSH) == ()


def test_two_of_a_suit_plus_the_starter_needs_no_note() -> None:
    assert rulings("AH 3H 5C 7C", "9H") == []


def test_jack_starter_is_heels_not_nobs() -> None:
    notes = rulings("5H 5C 5S 5D", "JD")
    assert notes == [
        "His heels: the starter is the JD, so the dealer pegged 2 when it was cut, not in the show; "
        "a jack starter gives no nobs."
    ]
    assert score_show("5H 5C 5S 5D", "JD").total == 28


def test_jack_of_another_suit() -> None:
    assert rulings("5H 5C 5S JC", "5D") == [
        "His nobs: nobs is the jack of the starter's suit (diamonds), so the JC scores no nobs."
    ]


def test_two_jacks_of_other_suits_and_a_jack_starter() -> None:
    assert rulings("JC JS 5H 5D", "JH") == [
        "His nobs: nobs is the jack of the starter's suit (hearts), so the JC and the JS score no nobs.",
        "His heels: the starter is the JH, so the dealer pegged 2 when it was cut, not in the show; "
        "a jack starter gives no nobs.",
    ]


def test_nobs_itself_needs_no_note() -> None:
    assert rulings("5H 5C 5S JD", "5D") == []


def test_only_the_wrong_jack_is_named() -> None:
    assert rulings("JD JC 2S 4H", "8D") == [
        "His nobs: nobs is the jack of the starter's suit (diamonds), so the JC scores no nobs."
    ]


@pytest.mark.parametrize(
    ("hand", "starter", "what"),
    [
        ("QH KC AS 2D", "3C", "Q-K-A and K-A-2 are not runs"),
        ("JH QC KS AD", "2C", "Q-K-A and K-A-2 are not runs"),
        ("QH KC AS 9D", "9C", "Q-K-A is not a run"),
        ("KH AC 2S 7D", "7C", "K-A-2 is not a run"),
    ],
)
def test_ace_is_low(hand: str, starter: str, what: str) -> None:
    notes = rulings(hand, starter)
    assert f"Runs: the ace is low and the king is the top card, so {what}." in notes


def test_no_run_note_without_a_wrap() -> None:
    assert not any(n.startswith("Runs:") for n in rulings("QH KC 2S 3D", "9C"))


def test_zero_hand_is_nineteen() -> None:
    assert rulings("2H 4C 6S 8D", "QC") == [NINETEEN]
    assert rulings("QH KC AS 7D", "3C") == [
        "Runs: the ace is low and the king is the top card, so Q-K-A is not a run.",
        NINETEEN,
    ]


def test_notes_come_in_counting_order() -> None:
    assert [n.split(":")[0] for n in rulings("JC 2H 4H 6H", "8H")] == ["Flush", "His nobs", "Nineteen"]


@pytest.mark.parametrize(
    ("hand", "starter", "crib"),
    [("5H 6C 7S 8D", "9C", False), ("3H 3C 4S 5D", "KC", True), ("TH JC QS KD", "5C", False)],
)
def test_plain_counts_need_no_notes(hand: str, starter: str, crib: bool) -> None:
    assert rulings(hand, starter, crib=crib) == []


def test_a_score_given_is_used_and_checked() -> None:
    score = score_show("2H 4C 6S 8D", "QC")
    assert rulings(parse_cards("2H 4C 6S 8D"), Card.parse("QC"), score=score) == [NINETEEN]
    other = score_show("5H 5C 5S JD", "5D")
    with pytest.raises(ValueError, match=r"^the score given is not for these cards: it names 5H JD$"):
        rulings("5S 5C 2H 3H", "5D", score=other)
    with pytest.raises(DuplicateCardError, match=r"'5D': it is both in the hand and the starter"):
        rulings("5S 5C 5D 3H", "5D", score=other)


@pytest.mark.parametrize(
    ("hand", "starter", "message"),
    [
        ("5H 5C 5S", "5D", r"expected 4 hand cards"),
        ("5H 5C 5X JD", "5D", r"'5X' at position 3"),
        ("5H 5C 5S JD", "5X", r"bad card '5X'"),
        ("5H 5C 5S JD", "5H", r"both in the hand and the starter"),
    ],
)
def test_bad_cards(hand: str, starter: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        rulings(hand, starter)
