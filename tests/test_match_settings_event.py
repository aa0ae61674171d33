"""Renaming the seats and turning "scores only" on or off during a match (the ``settings`` event).

A match started in one tap is "You v Opponent"; the players rename it later. Worked by hand: the
names change on the board, the prompt and the statistics, never the points; every earlier line of
the history keeps the names it was entered with; undoing the rename takes the old names back.
"""

from __future__ import annotations

import pytest

from scorer.errors import MatchError
from scorer.match import Match, new_match_settings


def quick() -> Match:
    return Match(new_match_settings(["You", "Opponent"], first_dealer=0))


def test_a_rename_changes_the_names_and_nothing_on_the_board() -> None:
    m = quick().apply({"type": "starter", "card": None}).apply({"type": "peg", "player": 1, "points": 2})
    m = m.apply({"type": "settings", "players": ["Ann", "Bob"]})
    assert m.settings.players == ("Ann", "Bob")
    assert m.state.scores == (0, 2)
    assert m.history[-1].text == "settings: You is now Ann; Opponent is now Bob"
    assert m.history[1].text == "Opponent pegs 2"  # as it was said then
    assert m.state.prompt == "game 1, hand 1: the play, Bob leads"
    assert [p.name for p in m.stats()] == ["Ann", "Bob"]
    assert m.to_json()["sides"] == ["Ann", "Bob"]


def test_undoing_a_rename_takes_the_old_names_back() -> None:
    m = quick().apply({"type": "settings", "players": ["Ann", "Opponent"]})
    m = m.apply({"type": "peg", "player": 0, "points": 3})
    m = m.apply({"type": "void", "seq": 1})
    assert m.settings.players == ("You", "Opponent")
    assert m.state.scores == (3, 0)


def test_a_replayed_log_reads_the_rename_back() -> None:
    m = quick().apply({"type": "settings", "players": ["Ann", "Bob"], "scores_only": True})
    again = Match(new_match_settings(["You", "Opponent"], first_dealer=0), m.events)
    assert again.settings == m.settings
    assert again.settings.scores_only


def test_scores_only_asks_for_no_starter() -> None:
    m = Match(new_match_settings(["Ann", "Bob"], first_dealer=0, scores_only=True))
    assert m.settings.to_json()["scores_only"] is True
    assert m.state.prompt == "game 1, hand 1: Ann deals; the play, Bob leads"
    m = m.apply({"type": "settings", "scores_only": False})
    assert m.history[-1].text == "settings: cards entered again"
    assert m.state.prompt == "game 1, hand 1: Ann deals; turn the starter"


def test_settings_left_at_the_default_are_stored_as_before() -> None:
    assert "scores_only" not in new_match_settings(["Ann", "Bob"])


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "settings"}, "a settings event needs players or scores_only"),
        ({"type": "settings", "players": ["Ann"]},
         "players must be a list of 2 names, one per seat, not ['Ann']"),
        ({"type": "settings", "players": ["Ann", "ann"]},
         "two players are called 'ann': give each a different name"),
        ({"type": "settings", "players": ["Ann", " "]}, "player 2 needs a name, not ' '"),
        ({"type": "settings", "players": ["Ann", "Bob\u202e"]},
         "player 2's name holds a text-direction control (U+202E): remove it"),
        ({"type": "settings", "scores_only": "yes"}, "scores_only must be true or false, not 'yes'"),
        ({"type": "settings", "players": ["You", "Opponent"]},
         "nothing to change: the settings are already so"),
        ({"type": "settings", "name": "Ann"}, "a settings event takes players, scores_only, not 'name'"),
    ],
)
def test_bad_settings_events_are_refused_and_change_nothing(event: dict[str, object], message: str) -> None:
    m = quick()
    with pytest.raises(MatchError) as err:
        m.apply(event)
    assert str(err.value) == message
    assert m.settings.players == ("You", "Opponent") and m.history == ()
