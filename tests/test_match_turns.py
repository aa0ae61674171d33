"""The engine refuses a play that cannot have happened (docs/RULES.md, "The play").

Every sequence below was worked by hand: whose turn it was, the count when a player was passed
over (a go), and who leads after a go or 31. The engine knows how many cards each player still
holds, not which: at 21 or less every card fits, so a player who still holds a card cannot have
said go; above 21 the go may be true, but a card of theirs that would have fitted then, played
later, proves it false.
"""

from __future__ import annotations

import pytest

from scorer.errors import MatchError
from scorer.match import Match, Phase, new_match_settings

Event = dict[str, object]


def table(players: int) -> Match:
    """Ann deals the first hand with the 5D turned: the player on her left leads."""
    names = ["Ann", "Bob", "Cat", "Dan"][:players]
    match = Match(new_match_settings(names, first_dealer=0, length={"kind": "best_of", "games": 3}))
    return match.apply({"type": "starter", "card": "5D"})


def plays(text: str) -> Event:
    return {"type": "peg", "plays": text}


def refused(match: Match, event: Event) -> str:
    with pytest.raises(MatchError) as info:
        match.apply(event)
    return str(info.value)


def test_two_players_a_go_at_five_is_impossible() -> None:
    m = table(2)
    message = refused(m, plays("Bob:5H Bob:TS"))
    assert message == (
        "Ann could not have said go at 5: Ann still holds 4 cards and every card fits under 31 "
        "(a card is worth at most 10). It was Ann's turn, not Bob's (Bob:TS)."
    )
    # Entered card by card it is the same refusal, and nothing of it is kept.
    m = m.apply(plays("Bob:5H"))
    assert refused(m, plays("Bob:TS")) == message
    assert m.state.plays == ((1, "5H"),) and m.state.scores == (0, 0)


def test_three_players_cat_is_passed_at_five() -> None:
    # Ann deals: Bob leads, Cat follows, then Ann.
    assert refused(table(3), plays("Bob:5H Ann:TC")).startswith(
        "Cat could not have said go at 5: Cat still holds 4 cards"
    )
    assert "It was Cat's turn, not Ann's (Ann:TC)." in refused(table(3), plays("Bob:5H Ann:TC"))


def test_four_players_dan_is_passed_at_fifteen() -> None:
    # Ann deals: Bob, Cat, Dan, Ann. Bob 5H (5), Cat TC (15), then Ann: Dan was passed at 15.
    assert refused(table(4), plays("Bob:5H Cat:TC Ann:2C")).startswith(
        "Dan could not have said go at 15: Dan still holds 4 cards"
    )


def test_a_go_above_twenty_one_is_taken_and_binds_the_cards_held() -> None:
    # Bob TS 10, Ann KS 20, Bob 2C 22; Ann is passed at 22 (a go: none of her cards is 9 or less),
    # Bob 3C 25, 4C 29 (run 2-3-4: 3). Nobody can play: Bob's go 1. Bob has no card left, so Ann
    # leads QS 10, JS 20, TH 30 (run T-J-Q: 3) and the last card (1): Ann 4, Bob 4.
    m = table(2).apply(plays("Bob:TS Ann:KS Bob:2C Bob:3C Bob:4C"))
    assert m.state.scores == (0, 3)
    done = m.apply(plays("Ann:QS Ann:JS Ann:TH"))
    assert done.state.scores == (4, 4)
    # A nine of Ann's would have made 31 at 22, so she held none when she said go.
    assert refused(m, plays("Ann:QS Ann:JS Ann:9H")) == (
        "Ann could not have played 9H: Ann said go at 22, yet 9H would have made 31 there, "
        "and a player who holds a card that fits must play it."
    )


def test_a_player_passed_over_cannot_play_again_in_that_count() -> None:
    # Bob TS 10, Ann KS 20, Bob 5C 25: Ann passed at 25, so Bob's 4C 29 is his; Ann's AC at 29
    # would have fitted at 25 (26).
    m = table(2).apply(plays("Bob:TS Ann:KS Bob:5C Bob:4C"))
    assert "Ann could not have played AC: Ann said go at 25, yet AC would have made 26 there" in refused(
        m, plays("Ann:AC")
    )


def test_after_thirty_one_the_next_player_leads() -> None:
    # Bob TS 10, Ann KS 20, Bob 5C 25, Ann 6D 31 (2): Bob, the next after Ann, leads.
    m = table(2).apply(plays("Bob:TS Ann:KS Bob:5C Ann:6D"))
    assert m.state.scores == (2, 0)
    assert refused(m, plays("Ann:2D")) == (
        "it was Bob's lead, not Ann's: after 31 the next player after Ann, who made it, leads the new count."
    )
    assert m.apply(plays("Bob:2D")).state.plays[-1] == (1, "2D")


def test_after_a_go_the_player_after_the_last_one_leads() -> None:
    # Three players, Ann deals: Bob TS 10, Cat KS 20, Ann QS 30. A card past 31 starts a new count,
    # led by Bob, the next after Ann who played last; Ann pegs the go.
    m = table(3).apply(plays("Bob:TS Cat:KS Ann:QS"))
    assert refused(m, plays("Cat:9H")) == (
        "it was Bob's lead, not Cat's: nobody could play on 30, so the next player after Ann, "
        "who played last, leads."
    )
    led = m.apply(plays("Bob:9H"))
    assert led.state.scores == (1, 0, 0)


def test_the_play_is_led_from_the_dealers_left() -> None:
    assert refused(table(3), plays("Cat:5H")) == (
        "Bob leads the play (the player on the dealer's left), not Cat"
    )


# ------------------------------------------------------------------ the show waits for the play

# Ann deals, the 5D turned (hand 1 of tests/data/games/two_players_121.txt): counts 10 13 18 20
# 25 31 (Ann 31, 2) | 10 14, and Ann's 4H is the last card (1).
SEVEN = "Bob:TS Ann:3C Bob:5H Ann:2C Bob:5C Ann:6S Bob:JD"


def test_a_show_before_the_last_card_is_refused() -> None:
    m = table(2).apply(plays(SEVEN))
    message = (
        "the play is not finished: Ann's last card is still to play "
        "(enter the rest of the play first: its go and last-card points are due)"
    )
    assert refused(m, {"type": "show", "player": 1, "hand": "5H 5C TS JD"}) == message
    assert refused(m, {"type": "show", "player": 1, "points": 21}) == message
    done = m.apply(plays("Ann:4H"))
    assert done.state.scores == (3, 0)
    shown = done.apply({"type": "show", "player": 1, "hand": "5H 5C TS JD"})
    assert shown.state.phase is Phase.SHOW and shown.state.scores == (3, 21)


def test_a_show_that_holds_the_missing_card_names_it() -> None:
    # Bob AS 1, Ann KH 11, Bob 2S 13, Ann QH 23; Bob says go (9S, TS), Ann 8H 31 (2); Bob leads 9S,
    # Ann JH 19, Bob TS 29: run 9-T-J (3) and the last card (1). Bob's show holds the TS not played.
    m = table(2).apply(plays("Bob:AS Ann:KH Bob:2S Ann:QH Ann:8H Bob:9S Ann:JH"))
    assert refused(m, {"type": "show", "player": 1, "hand": "AS 2S 9S TS"}) == (
        "the play is not finished: Bob's TS is still to play (enter Bob:TS as the play first, then the show)"
    )
    done = m.apply(plays("Bob:TS"))
    assert done.state.scores == (2, 4)
    assert done.apply({"type": "show", "player": 1, "hand": "AS 2S 9S TS"}).state.phase is Phase.SHOW


def test_a_play_pegged_by_numbers_still_takes_its_shows() -> None:
    m = table(2).apply({"type": "peg", "player": 0, "points": 3})
    assert m.apply({"type": "show", "player": 1, "points": 21}).state.scores == (3, 21)
    # Part of the play by cards, the rest as a number: the players' own count, taken as it comes.
    m = table(2).apply(plays("Bob:TS Ann:3C")).apply({"type": "peg", "player": 0, "points": 1})
    assert m.apply({"type": "show", "player": 1, "hand": "TS 5H 5C JD"}).state.phase is Phase.SHOW


def test_a_stored_log_that_breaks_the_turn_order_still_replays() -> None:
    # A log stored before these checks (or by another version) keeps its acknowledged scores:
    # Bob's skipped turn and the show before the play ended are replayed, not refused, and the
    # next event is judged on its own. Worked by hand: 5H then TS is fifteen for Bob (2).
    settings = new_match_settings(["Ann", "Bob"], first_dealer=0, length={"kind": "best_of", "games": 3})
    log: list[Event] = [
        {"type": "starter", "card": "5D"},
        plays("Bob:5H Bob:TS"),
        {"type": "show", "player": 1, "points": 4},
    ]
    stored = Match(settings, log)
    assert stored.state.scores == (0, 6)
    # Appended now, the same skipped turn is refused; the stored one still stands.
    fresh = Match(settings, log[:1])
    assert refused(fresh, log[1]).startswith("Ann could not have said go at 5")
    # New plays after the stored ones are judged from where the log stands: Ann leads at 15.
    after = Match(settings, log[:2]).apply(plays("Ann:6C"))
    assert after.state.scores == (0, 2)
    assert refused(after, plays("Ann:9C")).startswith("Bob could not have said go at 21")
    # And an undo of the stored skip is the log replayed without it.
    undone = stored.apply({"type": "void", "seq": 2})
    assert undone.state.scores == Match(settings, [log[0], log[2]]).state.scores == (0, 4)
