"""Cards and notation: every form docs/RULES.md allows, the value type's contracts, and the errors."""

from __future__ import annotations

import pickle

import pytest

from scorer.cards import DECK, Card, Rank, Suit, parse_cards
from scorer.errors import CardError, DuplicateCardError

# Written out independently of the engine's tables (a round trip alone can hide a mapping bug
# that is wrong in both directions).
RANK_TEXT = "A 2 3 4 5 6 7 8 9 T J Q K".split()
RANK_NAMES = "ace two three four five six seven eight nine ten jack queen king".split()
COUNT_VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
SUIT_TEXT = "S H D C".split()
SUIT_NAMES = ["spades", "hearts", "diamonds", "clubs"]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("5H", "5H"),
        ("5h", "5H"),
        ("10H", "TH"),
        ("10h", "TH"),
        ("TH", "TH"),
        ("th", "TH"),
        ("tH", "TH"),
        ("5♥", "5H"),
        ("j♣", "JC"),
        ("J♣", "JC"),
        ("as", "AS"),
        ("AS", "AS"),
        ("q♦", "QD"),
        ("K♠", "KS"),
        ("10♦", "TD"),
        ("10d", "TD"),
        ("2c", "2C"),
        (" 9D ", "9D"),
        ("5♡", "5H"),
        ("5♢", "5D"),
        ("5♤", "5S"),
        ("5♧", "5C"),
        ("5♥\ufe0f", "5H"),  # the heart from a phone's emoji keyboard carries a variation selector
        ("k♠\ufe0e", "KS"),
    ],
)
def test_parse_every_notation(token: str, expected: str) -> None:
    assert str(Card.parse(token)) == expected


@pytest.mark.parametrize("rank_index", range(13))
@pytest.mark.parametrize("suit_index", range(4))
def test_rank_and_suit_of_every_card(rank_index: int, suit_index: int) -> None:
    card = Card.parse(RANK_TEXT[rank_index] + SUIT_TEXT[suit_index])
    assert int(card.rank) == rank_index + 1
    assert card.suit.value == SUIT_TEXT[suit_index]
    assert card.value == COUNT_VALUES[rank_index]
    assert card.rank.count == COUNT_VALUES[rank_index]
    assert card.name == f"{RANK_NAMES[rank_index]} of {SUIT_NAMES[suit_index]}"


def test_all_52_cards_round_trip() -> None:
    codes = [r + s for r in RANK_TEXT for s in SUIT_TEXT]
    assert [str(Card.parse(code)) for code in codes] == codes
    assert [str(c) for c in DECK] == codes
    assert all(Card.parse(str(c)) == c for c in DECK)
    assert len(set(DECK)) == 52


def test_deck_indices_are_table_positions() -> None:
    assert [c.index for c in DECK] == list(range(52))
    assert all(Card.from_index(i) is c for i, c in enumerate(DECK))
    # Rank-major with suits in S H D C order: the 5 of hearts is the 4th rank's second suit.
    assert Card.parse("5H").index == 4 * 4 + 1
    assert Card.parse("KC").index == 51


@pytest.mark.parametrize("text", ["5H", "TD", "AS", "KC", "JC"])
def test_repr_recreates_the_card(text: str) -> None:
    card = Card.parse(text)
    assert repr(card) == f"Card.parse('{text}')"
    assert eval(repr(card)) == card


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("TD", "ten of diamonds", "10♦"),
        ("AS", "ace of spades", "A♠"),
        ("QH", "queen of hearts", "Q♥"),
        ("5C", "five of clubs", "5♣"),
        ("JC", "jack of clubs", "J♣"),
    ],
)
def test_names_and_labels(text: str, name: str, label: str) -> None:
    card = Card.parse(text)
    assert card.name == name
    assert card.label == label


def test_rank_count_and_symbols() -> None:
    assert [r.count for r in Rank] == COUNT_VALUES
    assert [r.symbol for r in Rank] == RANK_TEXT
    assert [r.word for r in Rank] == RANK_NAMES
    assert [int(r) for r in Rank] == list(range(1, 14))
    assert [s.symbol for s in Suit] == ["♠", "♥", "♦", "♣"]
    assert [s.red for s in Suit] == [False, True, True, False]
    assert [s.word for s in Suit] == SUIT_NAMES


def test_order_is_rank_then_suit() -> None:
    shuffled = parse_cards("KS 2H AS TC AD 2S")
    assert [str(c) for c in sorted(shuffled)] == ["AS", "AD", "2S", "2H", "TC", "KS"]
    assert Card.parse("AC") < Card.parse("2S")
    assert Card.parse("5S") < Card.parse("5H") < Card.parse("5D") < Card.parse("5C")
    assert Card.parse("KS") > Card.parse("QC")
    assert Card.parse("9D") <= Card.parse("9D")
    with pytest.raises(TypeError):
        _ = Card.parse("5H") < "5H"  # type: ignore[operator]


def test_equal_cards_hash_alike_whatever_the_notation() -> None:
    same = [Card.parse(t) for t in ("TH", "10h", "t♥", "10♥")]
    assert len(set(same)) == 1
    assert {Card.parse("TH"): "x"}[Card.parse("10h")] == "x"
    assert Card.parse("TH") != Card.parse("TD")
    assert Card.parse("TH") != "TH"


def test_card_is_immutable_and_pickles() -> None:
    card = Card.parse("5H")
    with pytest.raises(AttributeError):
        card.rank = Rank.SIX
    assert pickle.loads(pickle.dumps(card)) == card


@pytest.mark.parametrize(
    "text",
    ["5h, 5c 5s J♦ 5D", "5H,5C,5S,JD,5D", "5H , 5C,  5S\tJD\n5D", "  5h 5c 5s jd 5d  ", "5♥ 5♣ 5♠ J♦ 5♦"],
)
def test_parse_cards_separators(text: str) -> None:
    assert [str(c) for c in parse_cards(text)] == ["5H", "5C", "5S", "JD", "5D"]


def test_parse_cards_keeps_order_and_accepts_sequences() -> None:
    assert [str(c) for c in parse_cards("KS 10h as")] == ["KS", "TH", "AS"]
    mixed = parse_cards([Card.parse("KS"), "10h", "as"])
    assert mixed == [Card.parse("KS"), Card.parse("TH"), Card.parse("AS")]
    assert parse_cards("") == []


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("5H 5X 5S", ["'5X'", "position 2", "suit"]),
        ("1H", ["'1H'", "position 1", "rank"]),
        ("5H 6H 11H", ["'11H'", "position 3", "rank"]),
        ("5H 5", ["'5'", "position 2", "suit is missing"]),
        ("QH KC ZZ", ["'ZZ'", "position 3"]),
        ("5H 5♥♥", ["'5♥♥'", "position 2", "rank"]),
        ("H5", ["'H5'", "position 1"]),
    ],
)
def test_bad_token_names_token_and_position(text: str, fragments: list[str]) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_non_text_token_names_its_position() -> None:
    with pytest.raises(CardError, match=r"card at position 2 must be text like '5H', not 5"):
        parse_cards([Card.parse("5H"), 5])  # type: ignore[list-item]


def test_card_parse_error_names_token() -> None:
    with pytest.raises(CardError, match=r"bad card '5X'"):
        Card.parse("5X")
    with pytest.raises(CardError, match=r"empty card"):
        Card.parse("  ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5H 5H", "duplicate card '5H' at positions 1 and 2"),
        ("TH 2C 10h", "duplicate card 'TH' at positions 1 and 3"),
        ("as 2c 3d AS", "duplicate card 'AS' at positions 1 and 4"),
        ("J♣ jc", "duplicate card 'JC' at positions 1 and 2"),
    ],
)
def test_duplicates_are_refused(text: str, message: str) -> None:
    with pytest.raises(DuplicateCardError) as info:
        parse_cards(text)
    assert str(info.value) == message
    assert isinstance(info.value, CardError)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("text", "count", "message"),
    [
        ("5H 6H", 4, "expected 4 cards, got 2: 5H 6H"),
        ("", 4, "expected 4 cards, got 0"),
        ("5H 6H 7H 8H 9H", 4, "expected 4 cards, got 5: 5H 6H 7H 8H 9H"),
    ],
)
def test_count_mismatch(text: str, count: int, message: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text, count)
    assert str(info.value) == message


def test_count_mismatch_names_what_was_expected() -> None:
    with pytest.raises(CardError, match=r"^expected 6 cards to discard from, got 1: 5H$"):
        parse_cards("5h", 6, "cards to discard from")
