"""The numpy path: the full distribution against docs/RULES.md, and ``score_many`` against ``score_show``.

Why the agreement tests below cover all 12,994,800 deals without scoring each one:

* Both scorers split a show into a rank part and a suit part. ``score_show`` takes fifteens,
  pairs and runs from a template keyed by the five sorted ranks, then adds flush and nobs.
  ``score_many`` looks the rank part up in ``rank_scores()[r0, r1, r2, r3, starter]`` and then adds
  flush and nobs. Flush and nobs read only the suits of the four hand cards, the starter's suit,
  and which hand cards are jacks; nothing else about the ranks.
* ``test_rank_table_is_symmetric`` shows ``rank_scores()`` is unchanged by a swap and by a 5-cycle
  of its axes, which generate every permutation, so the order of the ranks never matters.
* ``test_rank_part_agrees_for_every_rank_pattern`` then compares the rank part for each of the
  6,175 multisets of five ranks (at most four of a rank), once for every rank it holds that could
  be the starter, so with the symmetry every rank tuple of every deal is covered.
* ``test_suit_part_agrees_for_every_suit_pattern`` compares the flush and nobs part for every
  hand suit pattern (4**4), starter suit, and choice of which hand cards and starter are jacks
  that real cards can make, as a hand and as a crib, against docs/RULES.md's flush and nobs rules.
* Every deal's total is its rank part plus its suit part, equal in both scorers by the two tests
  above. ``test_random_deals_agree`` checks whole totals on random deals, in case either scorer
  ever stops splitting that way.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement, product
from math import comb, perm

import numpy as np
import pytest

from scorer.cards import DECK, Card, parse_cards
from scorer.show import ScoreKind, score_show
from scorer.tables import JACK, Distribution, distribution, rank_scores, score_many

# Typed from docs/RULES.md's table: score -> (hand deals, crib deals). The independent truth.
RULES_TABLE: dict[int, tuple[int, int]] = {
    0: (1_009_008, 1_022_208),
    1: (99_792, 99_792),
    2: (2_813_796, 2_839_800),
    3: (505_008, 508_908),
    4: (2_855_676, 2_868_960),
    5: (697_508, 703_496),
    6: (1_800_268, 1_787_176),
    7: (751_324, 755_320),
    8: (1_137_236, 1_118_336),
    9: (361_224, 358_368),
    10: (388_740, 378_240),
    11: (51_680, 43_880),
    12: (317_340, 310_956),
    13: (19_656, 16_548),
    14: (90_100, 88_132),
    15: (9_168, 9_072),
    16: (58_248, 57_288),
    17: (11_196, 11_196),
    18: (2_708, 2_264),
    20: (8_068, 7_828),
    21: (2_496, 2_472),
    22: (444, 444),
    23: (356, 356),
    24: (3_680, 3_680),
    28: (76, 76),
    29: (4, 4),
}
RULES_MEANS = {False: 4.7692, True: 4.7348}
ALL_DEALS = comb(52, 4) * 48

RANK_KINDS = (ScoreKind.FIFTEEN, ScoreKind.PAIR, ScoreKind.RUN)
SUIT_KINDS = (ScoreKind.FLUSH, ScoreKind.NOBS)
# Random whole deals checked on top of the exhaustive split; about 0.3 s of score_show.
RANDOM_DEALS = 20_000
RANDOM_SEED = 20_240_601


def card(rank: int, suit: int) -> Card:
    """The card of 0-based ``rank`` (0 = ace) and suit index ``suit`` (S H D C)."""
    return DECK[rank * 4 + suit]


def points(cards: list[Card], starter: Card, crib: bool, kinds: tuple[ScoreKind, ...]) -> int:
    return sum(i.points for i in score_show(cards, starter, crib=crib).items if i.kind in kinds)


@pytest.mark.parametrize("crib", [False, True], ids=["hand", "crib"])
def test_distribution_matches_rules_table(crib: bool) -> None:
    d = distribution(crib=crib)
    expected = {score: pair[crib] for score, pair in RULES_TABLE.items()}
    assert d.crib is crib
    assert d.counts == expected
    assert list(d.counts) == sorted(d.counts)
    assert d.deals == ALL_DEALS == 12_994_800
    assert round(d.mean, 4) == RULES_MEANS[crib]


def test_distribution_json_is_the_cli_shape() -> None:
    payload = distribution().to_json()
    assert payload["mean"] == 4.7692
    counts = payload["counts"]
    assert isinstance(counts, dict)
    assert counts["0"] == 1_009_008 and counts["29"] == 4
    assert "19" not in counts and list(counts) == [str(s) for s in sorted(RULES_TABLE)]


def test_distribution_mean_is_unrounded() -> None:
    d = Distribution(counts={0: 2, 29: 1}, crib=False)
    assert d.deals == 3
    assert d.mean == 29 / 3
    assert d.to_json() == {"counts": {"0": 2, "29": 1}, "mean": 9.6667}


def test_no_hand_scores_the_impossible_numbers() -> None:
    for crib in (False, True):
        assert not {19, 25, 26, 27} & set(distribution(crib=crib).counts)


@pytest.mark.parametrize(
    ("hand", "starter", "crib", "total"),
    [
        ("5H 5C 5S JD", "5D", False, 29),  # docs/RULES.md's top hand
        ("2H 4H 6H 8H", "KC", False, 4),  # four-card flush, all even so no fifteen
        ("2H 4H 6H 8H", "KC", True, 0),  # a crib flush needs the starter too
        ("2H 4H 6H 8H", "KH", True, 5),
        ("3S 3H 4D 4C", "5S", False, 20),  # double double run 16 + fifteens 3-3-4-5 twice
        ("3S 3H 3D 4C", "5S", False, 21),  # triple run 15 + fifteens 3-3-4-5 three times
        ("JS 2H 7D 9C", "AS", False, 1),  # nobs alone
        ("JS 2H 7D 9C", "AH", False, 0),  # jack of another suit
    ],
)
def test_score_many_known_hands(hand: str, starter: str, crib: bool, total: int) -> None:
    hands = np.array([[c.index for c in parse_cards(hand)]])
    starters = np.array([Card.parse(starter).index])
    assert int(score_many(hands, starters, crib=crib)[0]) == total


def test_rank_table_is_symmetric() -> None:
    table = rank_scores()
    # A transposition and a 5-cycle generate all 120 orders of the five axes.
    assert np.array_equal(table, table.transpose(1, 0, 2, 3, 4))
    assert np.array_equal(table, table.transpose(1, 2, 3, 4, 0))


def rank_pattern_deals() -> list[tuple[tuple[int, ...], list[Card], Card]]:
    """One deal per (multiset of five ranks, rank of the starter): 23,647 of them."""
    deals = []
    for ranks in combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        # The k-th card of a rank takes suit k, so the five cards are distinct.
        five = [card(r, ranks[:i].count(r)) for i, r in enumerate(ranks)]
        for s in sorted(set(ranks)):
            cut = max(i for i, r in enumerate(ranks) if r == s)
            deals.append((ranks, five[:cut] + five[cut + 1 :], five[cut]))
    return deals


def test_rank_part_agrees_for_every_rank_pattern() -> None:
    deals = rank_pattern_deals()
    assert len({ranks for ranks, _, _ in deals}) == 6_175
    assert len(deals) == 23_647
    table = rank_scores()
    hands = np.array([[c.index for c in hand] for _, hand, _ in deals])
    starters = np.array([s.index for _, _, s in deals])
    for crib in (False, True):
        many = score_many(hands, starters, crib=crib)
        for (_, hand, starter), total in zip(deals, many.tolist(), strict=True):
            shown = score_show(hand, starter, crib=crib)
            rank_part = sum(i.points for i in shown.items if i.kind in RANK_KINDS)
            looked_up = int(table[(*(c.rank - 1 for c in hand), starter.rank - 1)])
            assert (rank_part, shown.total) == (looked_up, total), (hand, starter, crib)


def rule_suit_points(hand: list[Card], starter: Card, crib: bool) -> int:
    """Flush and nobs straight from docs/RULES.md's table."""
    flush = 0
    if len({c.suit for c in hand}) == 1:
        if starter.suit is hand[0].suit:
            flush = 5
        elif not crib:
            flush = 4
    nobs = sum(1 for c in hand if c.rank == JACK + 1 and c.suit is starter.suit)
    return flush + nobs


def test_suit_part_agrees_for_every_suit_pattern() -> None:
    plain_ranks = (0, 1, 2, 3)  # ace to four: never jacks, never equal to each other
    plain_starter = 8  # nine
    deals: list[tuple[list[Card], Card]] = []
    for suits in product(range(4), repeat=4):
        for starter_suit in range(4):
            for jacks in product((False, True), repeat=4):
                for starter_jack in (False, True):
                    hand = [
                        card(JACK if j else r, s) for j, r, s in zip(jacks, plain_ranks, suits, strict=True)
                    ]
                    starter = card(JACK if starter_jack else plain_starter, starter_suit)
                    if len({*hand, starter}) == 5:  # only patterns real cards can make
                        deals.append((hand, starter))
    # k hand jacks in distinct suits, the other 4 - k cards any suit, then the starter: a plain
    # card of any suit or a jack of a suit no hand jack has.
    assert len(deals) == sum(comb(4, k) * 4 ** (4 - k) * perm(4, k) * (8 - k) for k in range(5)) == 18_144
    table = rank_scores()
    hands = np.array([[c.index for c in hand] for hand, _ in deals])
    starters = np.array([s.index for _, s in deals])
    rank_part = table[(*(hands.T // 4), starters // 4)].astype(np.int16)
    for crib in (False, True):
        many_suit = (score_many(hands, starters, crib=crib) - rank_part).tolist()
        for (hand, starter), from_many in zip(deals, many_suit, strict=True):
            expected = rule_suit_points(hand, starter, crib)
            from_show = points(hand, starter, crib, SUIT_KINDS)
            assert (from_show, from_many) == (expected, expected), (hand, starter, crib)


def test_random_deals_agree() -> None:
    rng = random.Random(RANDOM_SEED)
    deals = [rng.sample(DECK, 5) for _ in range(RANDOM_DEALS)]
    hands = np.array([[c.index for c in d[:4]] for d in deals])
    starters = np.array([d[4].index for d in deals])
    for crib in (False, True):
        many = score_many(hands, starters, crib=crib).tolist()
        shown = [score_show(d[:4], d[4], crib=crib).total for d in deals]
        assert shown == many
