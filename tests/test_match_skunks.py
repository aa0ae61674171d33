"""Three players: the skunk judged against the runner-up only, or against each loser.

docs/RULES.md, "Skunks": with ``runner-up`` (what every match stored before the setting means)
the win is as big as its smallest margin; with ``each-loser`` every loser on a line adds that
line's extra over a plain win. Worked by hand for ``home`` at 121 (plain 1, skunk 2 at 90 or
less, double 4 at 60 or less) and ``acc`` (plain 2, skunk and double 3).
"""

from __future__ import annotations

import pytest

from scorer.errors import MatchError
from scorer.match import Match, Phase, Settings, new_match_settings
from scorer.rules import SkunkKind, ThreePlayerSkunk

NAMES = ["Ann", "Bob", "Cat"]


def finish(judging: str | None, bob: int, cat: int, preset: str = "home", **more: object) -> Match:
    """Ann wins a three-player game to 121 with Bob on ``bob`` and Cat on ``cat``."""
    match = Match(new_match_settings(NAMES, first_dealer=0, preset=preset, three_player_skunk=judging,
                                     **more))  # type: ignore[arg-type]
    for seat, points in ((1, bob), (2, cat), (0, 121)):
        match = match.apply({"type": "correction", "player": seat, "points": points, "reason": "set up"})
    return match


@pytest.mark.parametrize(("bob", "cat", "runner_up", "each", "kind", "words"), [
    # Bob skunked (80), Cat double skunked (50): runner-up 2; each 1 + 1 + 3 = 5.
    (80, 50, 2, 5, SkunkKind.DOUBLE, "Ann won 121–80–50 (Bob skunk, Cat double skunk)"),
    # Bob plain (95), Cat double (50): runner-up 1; each 1 + 0 + 3 = 4.
    (95, 50, 1, 4, SkunkKind.DOUBLE, "Ann won 121–95–50 (Cat double skunk)"),
    # Both plain: 1 either way.
    (100, 95, 1, 1, SkunkKind.PLAIN, "Ann won 121–100–95"),
    # Both skunked on 70 and 61: runner-up 2; each 1 + 1 + 1 = 3.
    (70, 61, 2, 3, SkunkKind.SKUNK, "Ann won 121–70–61 (Bob skunk, Cat skunk)"),
])
def test_game_points_by_each_loser_and_by_the_runner_up(
    bob: int, cat: int, runner_up: int, each: int, kind: SkunkKind, words: str
) -> None:
    default = finish(None, bob, cat).state
    assert default.result is not None and default.result.game_points == runner_up
    assert default.result.each == () and "each_loser" not in default.result.to_json()
    assert finish("runner-up", bob, cat).state == default
    judged = finish("each-loser", bob, cat)
    result = judged.state.result
    assert result is not None and judged.state.phase is Phase.MATCH_OVER
    assert (result.game_points, result.skunk, result.loser_score) == (each, kind, bob)
    assert judged.state.game_points == (each, 0, 0)
    assert judged.state.prompt == "Ann won the match"  # a single game: no "1–0" hiding a player
    assert judged.history[-1].text.endswith(f"game over: {words}; Ann won the match")
    assert result.to_json()["each_loser"] == [
        {"side": 1, "loser_score": bob, "skunk": judge_kind(bob).value, "skunk_label": judge_kind(bob).label},
        {"side": 2, "loser_score": cat, "skunk": judge_kind(cat).value, "skunk_label": judge_kind(cat).label},
    ]


def judge_kind(score: int) -> SkunkKind:
    """home at 121, by hand: 91 or more plain, 61-90 skunk, 60 or less double."""
    return SkunkKind.PLAIN if score >= 91 else SkunkKind.SKUNK if score >= 61 else SkunkKind.DOUBLE


def test_acc_each_loser_adds_each_skunks_extra_point() -> None:
    result = finish("each-loser", 80, 50, preset="acc").state.result
    assert result is not None and result.game_points == 2 + 1 + 1


def test_skunks_given_and_received_count_each_loser() -> None:
    ann, bob, cat = finish("each-loser", 95, 50).stats()
    assert (ann.skunks_given, bob.skunks_received, cat.skunks_received) == (1, 0, 1)
    ann, bob, cat = finish("each-loser", 80, 50).stats()
    assert (ann.skunks_given, bob.skunks_received, cat.skunks_received) == (2, 1, 1)
    # The runner-up rule, as before: one skunk given, and both losers received it.
    ann, bob, cat = finish(None, 80, 50).stats()
    assert (ann.skunks_given, bob.skunks_received, cat.skunks_received) == (1, 1, 1)
    ann, bob, cat = finish(None, 95, 50).stats()
    assert (ann.skunks_given, bob.skunks_received, cat.skunks_received) == (0, 0, 0)


def test_a_points_match_counts_each_losers_game_points() -> None:
    length = {"kind": "points", "points": 5}
    assert finish("each-loser", 80, 50, length=length).state.phase is Phase.MATCH_OVER  # 5 game points
    runner_up = finish("runner-up", 80, 50, length=length).state
    assert runner_up.phase is Phase.GAME_OVER and runner_up.game_points == (2, 0, 0)


def test_the_setting_is_written_only_when_each_loser_is_judged() -> None:
    three = new_match_settings(NAMES)
    # Runner-up is what every match stored before the setting existed was judged by: it is the
    # default, left out, so an old match's settings read back exactly as they were stored.
    assert "three_player_skunk" not in three
    assert Settings.from_json(three).three_player_skunk is ThreePlayerSkunk.RUNNER_UP
    assert new_match_settings(NAMES, three_player_skunk="runner-up") == three
    each = new_match_settings(NAMES, three_player_skunk="each-loser")
    assert each["three_player_skunk"] == "each-loser"
    assert Settings.from_json(each).to_json() == each
    assert "three_player_skunk" not in new_match_settings(["Ann", "Bob"])
    assert "three_player_skunk" not in new_match_settings(["Ann", "Bob", "Cat", "Dan"])
    with pytest.raises(MatchError) as info:
        new_match_settings(NAMES, three_player_skunk="everyone")
    assert str(info.value) == "three_player_skunk must be runner-up or each-loser, not 'everyone'"
    with pytest.raises(MatchError) as info:
        new_match_settings(["Ann", "Bob"], three_player_skunk="each-loser")
    assert str(info.value) == (
        "three_player_skunk each-loser is for three players; with 2 there is one losing side"
    )
    assert "three_player_skunk" not in new_match_settings(["Ann", "Bob"], three_player_skunk="runner-up")
