"""Properties that must hold for every deal (Hypothesis): the show, the notation, the play's turns."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import DECK, Card, Rank, parse_cards
from scorer.errors import MatchError
from scorer.match import Match, Phase, new_match_settings
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


# ------------------------------------------------------------------- the play's turn order
#
# An independent model of the play (docs/RULES.md, "The play"), written here from the rules and
# sharing no code with the engine: the player on the dealer's left leads; the player to the left
# plays next; a player who holds a card that keeps the count at 31 or less must play one, and one
# who holds none says go; when nobody can play the count starts again, led by the next player
# after the one who played last (passing players with no cards left).

RULE_PLAYS = settings(max_examples=120, deadline=None, database=None)
NAMES = ("Ann", "Bob", "Cat", "Dan")
Play = tuple[int, Card]


def _fits(count: int, card: Card) -> bool:
    return count + card.value <= 31


def _legal_play(hands: dict[int, list[Card]], order: list[int], rnd: random.Random) -> list[Play]:
    """A play by the rules: each player in turn plays a random card that fits, or says go."""
    held = {seat: list(cards) for seat, cards in hands.items()}
    plays: list[Play] = []
    count, at, last = 0, 0, -1  # ``at``: position in ``order`` of the player whose turn it is
    while any(held.values()):
        if not any(_fits(count, c) for cards in held.values() for c in cards):
            count, at = 0, last + 1  # nobody can play: the next after the last to play leads
            continue
        seat = order[at % len(order)]
        fitting = [c for c in held[seat] if _fits(count, c)]
        if fitting:
            card = rnd.choice(fitting)
            held[seat].remove(card)
            plays.append((seat, card))
            count += card.value
            last = at % len(order)
        at += 1
    return plays


def _is_legal(plays: list[Play], order: list[int]) -> bool:
    """Whether ``plays`` is a play the rules allow for the hands its own labels give."""
    held: dict[int, list[Card]] = {seat: [] for seat in order}
    for seat, card in plays:
        held[seat].append(card)
    if any(len(cards) != 4 for cards in held.values()):
        return False
    count, at, last = 0, 0, -1
    for seat, card in plays:
        able = [order[(at + k) % len(order)] for k in range(len(order))]
        able = [s for s in able if any(_fits(count, c) for c in held[s])]
        if not able:  # nobody can play: a new count, led by the next after the last to play
            count, at = 0, last + 1
            able = [s for s in (order[(at + k) % len(order)] for k in range(len(order))) if held[s]]
        if seat != able[0] or not _fits(count, card):
            return False
        held[seat].remove(card)
        count += card.value
        last = at = order.index(seat)
        at += 1
    return True


def _peg_events(plays: list[Play], rnd: random.Random) -> list[dict[str, object]]:
    """The plays as 1 to 3 peg events, labelled by name, seat letter or seat number."""
    cuts = sorted(rnd.sample(range(1, len(plays)), rnd.randint(0, 2)))
    events: list[dict[str, object]] = []
    for chunk in (plays[a:b] for a, b in zip([0, *cuts], [*cuts, len(plays)], strict=True)):
        style = rnd.randrange(3)
        if style == 0:
            events.append({"type": "peg", "plays": " ".join(f"{NAMES[s]}:{c}" for s, c in chunk)})
        elif style == 1:
            events.append({"type": "peg", "plays": " ".join(f"{'ABCD'[s]}:{c}" for s, c in chunk)})
        else:
            events.append({"type": "peg", "plays": [[s, str(c)] for s, c in chunk]})
    return events


def _deal(rnd: random.Random, order: list[int]) -> tuple[dict[int, list[Card]], list[Card], Card]:
    deck = list(DECK)
    rnd.shuffle(deck)
    hands = {seat: deck[4 * k:4 * k + 4] for k, seat in enumerate(order)}
    n = len(order)
    return hands, deck[4 * n:4 * n + 4], deck[4 * n + 4]


def _table(players: int, dealer: int) -> tuple[Match, list[int]]:
    match = Match(new_match_settings(list(NAMES[:players]), first_dealer=dealer))
    return match, [(dealer + k) % players for k in range(1, players + 1)]


@RULE_PLAYS
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]))
def test_random_legal_games_are_all_accepted(seed: int, players: int) -> None:
    """Whole hands played by the rules are taken; a show before the last card never is."""
    rnd = random.Random(seed)
    match, order = _table(players, rnd.randrange(players))
    for _ in range(4):
        state = match.state
        if state.phase is not Phase.STARTER:
            break
        order = list(state.counting_order)
        hands, crib, starter = _deal(rnd, order)
        match = match.apply({"type": "starter", "card": str(starter)})
        plays = _legal_play(hands, order, rnd)
        assert _is_legal(plays, order)  # the two halves of the model agree
        events = _peg_events(plays, rnd)
        for k, event in enumerate(events):
            if match.state.phase is not Phase.PLAY:
                break
            if 0 < k == len(events) - 1:  # some cards are in, not all
                first = order[0]
                early = {"type": "show", "player": first, "hand": " ".join(map(str, hands[first]))}
                with pytest.raises(MatchError, match="the play is not finished"):
                    match.apply(early)
            match = match.apply(event)
        for seat in order:
            if match.state.phase is not Phase.SHOW and match.state.phase is not Phase.PLAY:
                break
            match = match.apply({"type": "show", "player": seat, "hand": " ".join(map(str, hands[seat]))})
        if match.state.phase is Phase.CRIB:
            match = match.apply({"type": "crib", "hand": " ".join(map(str, crib))})


def _taken(match: Match, plays: list[Play], rnd: random.Random) -> bool:
    try:
        for event in _peg_events(plays, rnd):
            match = match.apply(event)
    except MatchError:
        return False
    return True


@RULE_PLAYS
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), data=st.data())
def test_a_play_with_players_changed_is_taken_only_if_the_rules_allow_it(
    seed: int, players: int, data: st.DataObject
) -> None:
    """One play's player changed is always refused (someone would hold 5 cards and someone 3);
    two plays of different players with their players swapped (everyone still holds 4) are taken
    exactly when the model finds them legal for the hands they make."""
    rnd = random.Random(seed)
    match, order = _table(players, rnd.randrange(players))
    hands, _, starter = _deal(rnd, order)
    match = match.apply({"type": "starter", "card": str(starter)})
    plays = _legal_play(hands, order, rnd)
    at = data.draw(st.integers(0, len(plays) - 1))
    (seat, card), then = plays[at], data.draw(st.integers(0, len(plays) - 1))
    other = data.draw(st.sampled_from([s for s in order if s != seat]))
    relabelled = [*plays[:at], (other, card), *plays[at + 1:]]
    assert not _is_legal(relabelled, order)
    assert not _taken(match, relabelled, rnd), relabelled
    if plays[then][0] == seat:
        return
    swapped = list(plays)
    swapped[at], swapped[then] = (plays[then][0], card), (seat, plays[then][1])
    assert _taken(match, swapped, rnd) == _is_legal(swapped, order), swapped
