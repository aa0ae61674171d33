"""The show: known-answer hands worked by hand from docs/RULES.md, the itemization, speech, JSON, errors."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pytest

from scorer.cards import Card, Rank, parse_cards
from scorer.errors import CardError, DuplicateCardError
from scorer.show import Score, ScoreItem, ScoreKind, number_word, score_show

HANDS_FILE = Path(__file__).parent / "data" / "hands.txt"
KIND_ORDER = [ScoreKind.FIFTEEN, ScoreKind.PAIR, ScoreKind.RUN, ScoreKind.FLUSH, ScoreKind.NOBS]
MIN_KNOWN_HANDS = 70
"""The brief for the known-answer file: at least 70 shows, at least 60 of them distinct deals."""
MIN_DISTINCT_DEALS = 60


@dataclass(frozen=True)
class KnownHand:
    """One line of hands.txt."""

    line: int
    hand: str
    starter: str
    crib: bool
    total: int
    notes: str


def _load_known_hands() -> list[KnownHand]:
    out: list[KnownHand] = []
    for number, raw in enumerate(HANDS_FILE.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        fields = [f.strip() for f in text.split("|")]
        if len(fields) != 5 or fields[2] not in ("hand", "crib"):
            raise ValueError(
                f"{HANDS_FILE.name} line {number}: expected 'hand | starter | hand|crib | total | notes'"
            )
        hand, starter, kind, total, notes = fields
        out.append(KnownHand(number, hand, starter, kind == "crib", int(total), notes))
    return out


KNOWN = _load_known_hands()


def _show(known: KnownHand) -> Score:
    return score_show(known.hand, known.starter, crib=known.crib)


def _cards(text: str) -> frozenset[Card]:
    return frozenset(parse_cards(text))


def _card_sets(items: tuple[ScoreItem, ...]) -> Counter[frozenset[Card]]:
    return Counter(frozenset(i.cards) for i in items)


# --- The known-answer file --------------------------------------------------------------------


def test_known_hand_file_is_big_and_varied() -> None:
    deals = {(frozenset(parse_cards(k.hand)), Card.parse(k.starter), k.crib) for k in KNOWN}
    assert len(KNOWN) >= MIN_KNOWN_HANDS
    assert len(deals) >= MIN_DISTINCT_DEALS
    totals = {k.total for k in KNOWN}
    assert {0, 1, 4, 5, 12, 15, 16, 20, 21, 23, 24, 28, 29} <= totals


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"line{k.line}")
def test_notes_breakdown_ends_in_the_total(known: KnownHand) -> None:
    """Every worked breakdown says "= N" for the total, or "nineteen" for a zero hand."""
    sums = re.findall(r"= (\d+)", known.notes)
    if sums:
        assert int(sums[-1]) == known.total
    else:
        assert known.notes.startswith("nineteen") and known.total == 0


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"line{k.line}")
def test_known_hand_total(known: KnownHand) -> None:
    assert _show(known).total == known.total, known.notes


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"line{k.line}")
def test_every_item_is_what_its_kind_says(known: KnownHand) -> None:
    """Each item names cards that really make it, for the points docs/RULES.md gives."""
    hand = parse_cards(known.hand)
    starter = Card.parse(known.starter)
    five = {*hand, starter}
    score = _show(known)
    for item in score.items:
        assert set(item.cards) <= five and len(set(item.cards)) == len(item.cards)
        if item.kind is ScoreKind.FIFTEEN:
            assert sum(c.value for c in item.cards) == 15 and item.points == 2
        elif item.kind is ScoreKind.PAIR:
            assert len(item.cards) == 2 and item.cards[0].rank == item.cards[1].rank and item.points == 2
        elif item.kind is ScoreKind.RUN:
            ranks = sorted(int(c.rank) for c in item.cards)
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks))) and len(ranks) >= 3
            assert item.points == len(ranks)
        elif item.kind is ScoreKind.FLUSH:
            assert len({c.suit for c in item.cards}) == 1
            assert set(hand) <= set(item.cards)
            assert item.points == len(item.cards) == (5 if starter in item.cards else 4)
            assert not (known.crib and item.points == 4)
        else:
            assert item.kind is ScoreKind.NOBS and item.points == 1
            assert item.cards[0] in hand and item.cards[0].rank is Rank.JACK
            assert item.cards[0].suit is starter.suit
    # No fifteen is missed or counted twice: compare with every subset of the five.
    subsets = [frozenset(s) for n in range(2, 6) for s in combinations(five, n)]
    fifteens = Counter(s for s in subsets if sum(c.value for c in s) == 15)
    assert _card_sets(score.by_kind(ScoreKind.FIFTEEN)) == fifteens
    pairs = Counter(frozenset(p) for p in combinations(five, 2) if p[0].rank == p[1].rank)
    assert _card_sets(score.by_kind(ScoreKind.PAIR)) == pairs


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"line{k.line}")
def test_items_in_counting_order(known: KnownHand) -> None:
    """Players count fifteens, then pairs, then runs, then the flush, then nobs."""
    positions = [KIND_ORDER.index(i.kind) for i in _show(known).items]
    assert positions == sorted(positions)


# --- Itemization of the key cases -------------------------------------------------------------


def test_top_hand_items() -> None:
    score = score_show("5H 5C 5S JD", "5D")
    fives = parse_cards("5H 5C 5S 5D")
    jack = Card.parse("JD")
    expected_fifteens = Counter(
        [frozenset((f, jack)) for f in fives] + [frozenset(t) for t in combinations(fives, 3)]
    )
    assert _card_sets(score.by_kind(ScoreKind.FIFTEEN)) == expected_fifteens
    assert _card_sets(score.by_kind(ScoreKind.PAIR)) == Counter(frozenset(p) for p in combinations(fives, 2))
    assert score.by_kind(ScoreKind.RUN) == ()
    assert score.by_kind(ScoreKind.FLUSH) == ()
    assert score.by_kind(ScoreKind.NOBS) == (ScoreItem(ScoreKind.NOBS, (jack,), 1),)
    assert score.total == 29


def test_jack_starter_is_not_nobs() -> None:
    score = score_show("5H 5C 5S 5D", "JD")
    assert score.by_kind(ScoreKind.NOBS) == ()
    assert len(score.by_kind(ScoreKind.FIFTEEN)) == 8
    assert score.total == 28


def test_jack_of_another_suit_is_not_nobs() -> None:
    assert score_show("5H 5C 5S JC", "5D").by_kind(ScoreKind.NOBS) == ()


@pytest.mark.parametrize(
    ("hand", "starter", "runs", "run_points", "pairs"),
    [
        # double run: one pair inside a run of three, two runs
        ("3H 3C 4S 5D", "KC", ["3H 4S 5D", "3C 4S 5D"], 3, ["3H 3C"]),
        # triple run: a pair royal inside a run of three, three runs
        ("3H 3C 3S 4D", "5C", ["3H 4D 5C", "3C 4D 5C", "3S 4D 5C"], 3, ["3H 3C", "3H 3S", "3C 3S"]),
        # double double run: two pairs inside a run of three, four runs
        ("3H 3C 4S 4D", "5C", ["3H 4S 5C", "3H 4D 5C", "3C 4S 5C", "3C 4D 5C"], 3, ["3H 3C", "4S 4D"]),
        # double run of four
        ("3H 3C 4S 5D", "6C", ["3H 4S 5D 6C", "3C 4S 5D 6C"], 4, ["3H 3C"]),
        # run of five: one run, no pair
        ("AH 2C 3S 4D", "5C", ["AH 2C 3S 4D 5C"], 5, []),
        # a pair beside a run is not part of it
        ("KH KC 3S 4D", "5C", ["3S 4D 5C"], 3, ["KH KC"]),
        # Q-K-A is no run; A-2-3 is
        ("QH KC AS 2D", "3C", ["AS 2D 3C"], 3, []),
        ("JH QC KS AD", "2C", ["JH QC KS"], 3, []),
    ],
)
def test_run_and_pair_items(
    hand: str, starter: str, runs: list[str], run_points: int, pairs: list[str]
) -> None:
    score = score_show(hand, starter)
    run_items = score.by_kind(ScoreKind.RUN)
    assert _card_sets(run_items) == Counter(_cards(r) for r in runs)
    assert all(r.points == run_points for r in run_items)
    assert _card_sets(score.by_kind(ScoreKind.PAIR)) == Counter(_cards(p) for p in pairs)


@pytest.mark.parametrize(
    ("hand", "starter", "crib", "flush_cards"),
    [
        ("2H 4H 6H 8H", "KC", False, "2H 4H 6H 8H"),
        ("2H 4H 6H 8H", "KH", False, "2H 4H 6H 8H KH"),
        ("2H 4H 6H 8H", "KH", True, "2H 4H 6H 8H KH"),
        ("2H 4H 6H 8H", "KC", True, None),
        ("2H 4H 6H 8C", "KH", False, None),
        ("2H 4H 6H 8C", "KH", True, None),
    ],
)
def test_flush_items(hand: str, starter: str, crib: bool, flush_cards: str | None) -> None:
    flush = score_show(hand, starter, crib=crib).by_kind(ScoreKind.FLUSH)
    if flush_cards is None:
        assert flush == ()
    else:
        (item,) = flush
        assert frozenset(item.cards) == _cards(flush_cards)
        assert item.points == len(item.cards)


def test_crib_differs_from_hand_only_by_the_four_card_flush() -> None:
    assert score_show("AH 3H 5H 7H", "9C").total == 8
    assert score_show("AH 3H 5H 7H", "9C", crib=True).total == 4
    assert score_show("AH 3H 5H 7H", "9H").total == score_show("AH 3H 5H 7H", "9H", crib=True).total == 9


def test_exact_items_of_a_small_hand() -> None:
    """Cards within an item are listed in rank order, suits S H D C."""
    score = score_show("AH AC 4S 5D", "6C")
    assert score.items == (
        ScoreItem(ScoreKind.FIFTEEN, tuple(parse_cards("4S 5D 6C")), 2),
        ScoreItem(ScoreKind.PAIR, tuple(parse_cards("AH AC")), 2),
        ScoreItem(ScoreKind.RUN, tuple(parse_cards("4S 5D 6C")), 3),
    )


def test_accepts_cards_and_mixed_tokens() -> None:
    text = score_show("5H 5C 5S JD", "5D")
    objects = score_show(parse_cards("5H 5C 5S JD"), Card.parse("5D"))
    mixed = score_show(["5h", Card.parse("5C"), "5♠", "j♦"], "5d")
    assert text == objects == mixed


def test_hand_order_does_not_matter() -> None:
    assert score_show("JD 5S 5C 5H", "5D") == score_show("5H 5C 5S JD", "5D")


# --- Speech and JSON --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "starter", "crib", "spoken"),
    [
        (
            "5H 5C 5S JD", "5D", False,
            "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
            "fifteen fourteen, fifteen sixteen, a double pair royal is twenty-eight "
            "and his nobs is twenty-nine",
        ),
        ("3H 3C 4S 5D", "KC", False, "fifteen two, fifteen four and a double run of three is twelve"),
        ("KH KC 5S 2D", "8C", False, "fifteen two, fifteen four, fifteen six and a pair is eight"),
        ("KH KC 3S 4D", "5C", False, "fifteen two, fifteen four, a pair is six and a run of three is nine"),
        ("3H 3C 3S 4D", "5C", False,
         "fifteen two, fifteen four, fifteen six and a triple run of three is twenty-one"),
        ("3H 3C 4S 4D", "5C", False, "fifteen two, fifteen four and a double double run of three is twenty"),
        ("3H 3C 4S 5D", "6C", False, "fifteen two, fifteen four and a double run of four is fourteen"),
        ("AH 7C 7S 7D", "8C", False,
         "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve "
         "and a pair royal is eighteen"),
        ("5H 5C 5S TD", "TC", False,
         "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, "
         "fifteen fourteen, a pair royal is twenty and a pair is twenty-two"),
        ("TH JH QH KH", "5H", False,
         "fifteen two, fifteen four, fifteen six, fifteen eight, a run of four is twelve, "
         "a flush of five is seventeen and his nobs is eighteen"),
        ("2H 4H 6H 8H", "KC", False, "a flush of four is four"),
        ("JH 2C 4S 6D", "8H", False, "his nobs is one"),
        ("AH 2C 3S 4D", "5C", False, "fifteen two and a run of five is seven"),
        ("2H 4H 6H 8H", "KC", True, "nineteen: no score"),
        ("2H 4C 6S 8D", "QC", False, "nineteen: no score"),
    ],
)
def test_spoken(hand: str, starter: str, crib: bool, spoken: str) -> None:
    assert score_show(hand, starter, crib=crib).spoken() == spoken


def test_json_shape() -> None:
    data = score_show("AH AC 4S 5D", "6C").to_json()
    assert data == {
        "total": 7,
        "items": [
            {"kind": "fifteen", "cards": ["4S", "5D", "6C"], "points": 2},
            {"kind": "pair", "cards": ["AH", "AC"], "points": 2},
            {"kind": "run", "cards": ["4S", "5D", "6C"], "points": 3},
        ],
    }
    assert json.loads(json.dumps(data)) == data


def test_json_of_the_top_hand() -> None:
    data = score_show("5H 5C 5S JD", "5D").to_json()
    assert list(data) == ["total", "items"]
    assert data["total"] == 29
    items = data["items"]
    assert isinstance(items, list)
    assert [i["kind"] for i in items] == ["fifteen"] * 8 + ["pair"] * 6 + ["nobs"]
    assert all(list(i) == ["kind", "cards", "points"] for i in items)
    assert items[-1] == {"kind": "nobs", "cards": ["JD"], "points": 1}
    assert all(isinstance(c, str) for i in items for c in i["cards"])
    assert sum(i["points"] for i in items) == 29
    assert json.loads(json.dumps(data, ensure_ascii=True)) == data


def test_empty_json() -> None:
    assert score_show("2H 4C 6S 8D", "QC").to_json() == {"total": 0, "items": []}


@pytest.mark.parametrize(
    ("n", "word"),
    [(0, "zero"), (1, "one"), (15, "fifteen"), (19, "nineteen"), (20, "twenty"), (21, "twenty-one"),
     (29, "twenty-nine"), (30, "thirty"), (61, "sixty-one"), (100, "one hundred"),
     (121, "one hundred twenty-one")],
)
def test_number_word(n: int, word: str) -> None:
    assert number_word(n) == word


# --- Errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "starter", "error", "message"),
    [
        ("5H 5C 5S", "5D", CardError,
         r"^expected 4 hand cards \(the starter goes separately\), got 3: 5H 5C 5S$"),
        ("5H 5C 5S JD 5D", "6D", CardError, r"^expected 4 hand cards .*, got 5: 5H 5C 5S JD 5D$"),
        ("", "5D", CardError, r"^expected 4 hand cards .*, got 0$"),
        ("5H 5C 5S 5h", "JD", DuplicateCardError, r"^duplicate card '5H' at positions 1 and 4$"),
        ("5H 5C 5S JD", "5h", DuplicateCardError,
         r"^duplicate card '5H': it is both in the hand and the starter$"),
        ("5H 5C 5X JD", "5D", CardError, r"^bad card '5X' at position 3: it must end in a suit"),
        ("5H 5C 5S J", "5D", CardError, r"^bad card 'J' at position 4: the suit is missing"),
        ("5H 1C 5S JD", "5D", CardError, r"^bad card '1C' at position 2: rank must be one of"),
        ("5H 5C 5S JD", "5X", CardError, r"^bad card '5X': it must end in a suit"),
        ("5H 5C 5S JD", "", CardError, r"^empty card$"),
    ],
)
def test_errors_name_the_bad_input(hand: str, starter: str, error: type[CardError], message: str) -> None:
    with pytest.raises(error, match=message) as info:
        score_show(hand, starter)
    assert isinstance(info.value, ValueError)


def test_duplicate_card_objects_are_refused() -> None:
    five_h = Card.parse("5H")
    with pytest.raises(DuplicateCardError, match=r"duplicate card '5H' at positions 1 and 2"):
        score_show([five_h, five_h, Card.parse("5S"), Card.parse("JD")], "5D")
    with pytest.raises(DuplicateCardError, match=r"both in the hand and the starter"):
        score_show(parse_cards("5H 5C 5S JD"), five_h)


def test_starter_must_be_one_card() -> None:
    with pytest.raises(CardError, match=r"starter must be one card like '5D', not 5"):
        score_show("5H 5C 5S JD", 5)  # type: ignore[arg-type]
