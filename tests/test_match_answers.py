"""What the board answers a screen: who plays next, who deals next, the cards of each hand.

Every expected seat and card below is worked by hand from RULES.md ("The deal", "The play"):
the player on the dealer's left leads; after a go the next player after the one who played last
leads; the deal passes to the left; the loser of a game deals the next one first.
"""

from __future__ import annotations

from scorer.match import Match, MatchState, Phase, new_match_settings

Event = dict[str, object]


def table(players: int, first_dealer: int = 0, games: int = 3) -> Match:
    names = ["Ann", "Bob", "Cat", "Dan"][:players]
    length = {"kind": "best_of", "games": games}
    return Match(new_match_settings(names, first_dealer=first_dealer, length=length))


def run(match: Match, *events: Event) -> Match:
    for event in events:
        match = match.apply(event)
    return match


def plays(text: str) -> Event:
    return {"type": "peg", "plays": text}


def correction(player: int, points: int) -> Event:
    return {"type": "correction", "player": player, "points": points, "reason": "set up"}


# --------------------------------------------------------------------------- next to play


def test_the_dealers_left_leads_then_turns_go_round() -> None:
    m = table(3)  # Ann deals: Bob (her left) leads, then Cat, then Ann
    assert m.state.next_to_play == 1
    m = run(m, {"type": "starter", "card": "5D"})
    assert m.state.next_to_play == 1
    m = run(m, plays("Bob:9H"))
    assert m.state.next_to_play == 2
    m = run(m, plays("Cat:TS"))
    assert m.state.next_to_play == 0


def test_after_a_go_and_with_a_player_out_of_cards() -> None:
    # Ann deals; Bob holds AS AH 2C 2D, Ann KS QS JS TS. Counts: AS 1, KS 11, AH 12, QS 22, 2C 24;
    # Ann cannot play (a ten would make 34): go, Bob plays 2D (26, a pair: 2). Nobody can play:
    # Bob pegs 1 for the go and, Bob being out of cards, Ann leads JS (10) and plays TS (20),
    # the last card (1). Bob 3, Ann 1.
    m = run(table(2), {"type": "starter", "card": "5D"}, plays("Bob:AS Ann:KS Bob:AH Ann:QS Bob:2C"))
    state = m.state
    assert state.cards_left == (2, 1)
    assert state.played_by(1) == ("AS", "AH", "2C") and state.played_by(0) == ("KS", "QS")
    assert state.next_to_play == 0  # Ann's turn: she says go (not logged), so Bob plays on
    m = run(m, plays("Bob:2D"))
    assert m.state.cards_left == (2, 0)
    assert m.state.next_to_play == 0  # the one after Bob, who played last, leads the new count
    m = run(m, plays("Ann:JS"))
    assert m.state.next_to_play == 0  # Bob has no card left: Ann plays on
    m = run(m, plays("Ann:TS"))
    assert m.state.scores == (1, 3)
    assert m.state.cards_left == (0, 0)
    assert m.state.next_to_play is None  # all eight cards are in
    assert m.state.known_hands == (("KS", "QS", "JS", "TS"), ("AS", "AH", "2C", "2D"))


def test_nobody_plays_outside_the_play() -> None:
    m = run(table(2), {"type": "starter", "card": "5D"}, {"type": "show", "player": 1, "points": 4})
    assert m.state.phase is Phase.SHOW and m.state.next_to_play is None
    cutting = Match(new_match_settings(["Ann", "Bob"]))
    assert cutting.state.phase is Phase.CUT and cutting.state.next_to_play is None


def test_a_show_makes_the_whole_hand_known() -> None:
    m = run(table(2), {"type": "starter", "card": "5D"}, plays("Bob:TS Ann:5H"))
    assert m.state.known_hands == (("5H",), ("TS",))
    # The rest of the play is pegged as a number (Bob's last card), so its cards stay unknown and
    # the show may follow; a play entered only by its cards must be finished first.
    m = run(m, {"type": "peg", "player": 1, "points": 1})
    m = run(m, {"type": "show", "player": 1, "hand": "TS 5C 5S JD"})
    assert m.state.known_hands == (("5H",), ("TS", "5C", "5S", "JD"))
    assert m.state.cards_left == (3, 3)  # cards of the play not entered as played
    m = run(m, {"type": "show", "player": 0, "points": 2}, {"type": "crib", "points": 0})
    # The crib ends the hand: Bob deals hand 2 and nothing of it is known yet.
    assert (m.state.hand, m.state.dealer) == (2, 1)
    assert m.state.known_hands == ((), ()) and m.state.cards_left == (4, 4) and m.state.next_to_play == 0


# --------------------------------------------------------------------------- next dealer


def test_the_deal_passes_to_the_left() -> None:
    assert table(2).state.next_dealer == 1
    assert table(3, first_dealer=2).state.next_dealer == 0
    assert table(4, first_dealer=1).state.next_dealer == 2
    m = run(table(2), {"type": "starter", "card": None}, {"type": "show", "player": 1, "points": 2},
            {"type": "show", "player": 0, "points": 2}, {"type": "crib", "points": 2})
    assert (m.state.dealer, m.state.next_dealer) == (1, 0)


def _next_dealer_after_the_game(m: Match) -> int | None:
    state: MatchState = m.state
    assert state.phase is Phase.GAME_OVER
    following = m.apply({"type": "next_game"}).state
    assert following.dealer == state.next_dealer  # what next_game does, asked ahead
    return state.next_dealer


def test_the_loser_deals_the_next_game() -> None:
    assert _next_dealer_after_the_game(run(table(2), correction(0, 121))) == 1
    assert _next_dealer_after_the_game(run(table(2), correction(1, 121))) == 0


def test_three_players_the_lowest_deals_and_a_tie_goes_left() -> None:
    m = run(table(3), correction(1, 10), correction(2, 5), correction(0, 121))
    assert _next_dealer_after_the_game(m) == 2  # Cat has the lowest score
    m = run(table(3), correction(1, 5), correction(2, 5), correction(0, 121))
    assert _next_dealer_after_the_game(m) == 1  # Bob and Cat tie: Bob sits first to Ann's left
    m = run(table(3, first_dealer=1), correction(0, 5), correction(2, 5), correction(1, 121))
    assert _next_dealer_after_the_game(m) == 2  # the tie again: Cat is first to Bob's left


def test_partners_the_losing_sides_player_next_to_the_left_deals() -> None:
    # Partners: Ann & Cat (seats 0, 2) against Bob & Dan (1, 3).
    m = run(table(4, first_dealer=0), correction(0, 121))
    assert _next_dealer_after_the_game(m) == 1  # Bob is the losers' player left of Ann
    m = run(table(4, first_dealer=1), correction(0, 121))
    assert _next_dealer_after_the_game(m) == 3  # left of Bob, the losers' next player is Dan
    m = run(table(4, first_dealer=1), correction(1, 121))
    assert _next_dealer_after_the_game(m) == 2  # Ann & Cat lost: Cat sits left of Bob


def test_nobody_deals_after_the_match_or_before_the_cut() -> None:
    m = run(table(2, games=1), correction(0, 121))
    assert m.state.phase is Phase.MATCH_OVER and m.state.next_dealer is None
    assert Match(new_match_settings(["Ann", "Bob"])).state.next_dealer is None


def test_the_answers_stay_out_of_the_api_json() -> None:
    state = run(table(2), {"type": "starter", "card": "5D"}, plays("Bob:TS")).state
    assert not {"next_to_play", "next_dealer", "cards_left", "known_hands"} & set(state.to_json())
