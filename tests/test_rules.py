"""Skunk lines and game points against docs/RULES.md's table, at every line's edge."""

from __future__ import annotations

import json

import pytest

from scorer.errors import MatchError
from scorer.match import new_match_settings
from scorer.rules import GameRules, Line, SkunkKind, judge, preset, preset_lines, presets_for, triple_line

PLAIN, SKUNK, DOUBLE, TRIPLE, LURCH = (
    SkunkKind.PLAIN, SkunkKind.SKUNK, SkunkKind.DOUBLE, SkunkKind.TRIPLE, SkunkKind.LURCH,
)

# docs/RULES.md, "Skunks": the loser's final score, and what each preset makes of it.
# 121 points: plain 91+, skunk 61-90, double 31-60, 30 or less triple (off: as double).
# 61 points: home skunk 45 or less, double 30 or less; lurch 30 or less.
TABLE = [
    # target, loser, home, acc, lurch
    (121, 120, (PLAIN, 1), (PLAIN, 2), (PLAIN, 1)),
    (121, 91, (PLAIN, 1), (PLAIN, 2), (PLAIN, 1)),
    (121, 90, (SKUNK, 2), (SKUNK, 3), (PLAIN, 1)),
    (121, 61, (SKUNK, 2), (SKUNK, 3), (PLAIN, 1)),
    (121, 60, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
    (121, 31, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
    (121, 30, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
    (121, 0, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
    (61, 60, (PLAIN, 1), (PLAIN, 2), (PLAIN, 1)),
    (61, 46, (PLAIN, 1), (PLAIN, 2), (PLAIN, 1)),
    (61, 45, (SKUNK, 2), (SKUNK, 3), (PLAIN, 1)),
    (61, 31, (SKUNK, 2), (SKUNK, 3), (PLAIN, 1)),
    (61, 30, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
    (61, 0, (DOUBLE, 4), (DOUBLE, 3), (LURCH, 2)),
]


@pytest.mark.parametrize(("target", "loser", "home", "acc", "lurch"), TABLE)
def test_presets_follow_the_rules_table(
    target: int, loser: int, home: tuple[SkunkKind, int], acc: tuple[SkunkKind, int],
    lurch: tuple[SkunkKind, int],
) -> None:
    for name, (kind, points) in (("home", home), ("acc", acc), ("lurch", lurch)):
        result = judge(1, loser, preset(name, target))
        assert (result.skunk, result.game_points, result.preset) == (kind, points, name), name
        assert (result.winner, result.winner_score, result.loser_score) == (1, target, loser)
        assert result.margin == target - loser


def test_a_custom_triple_skunk() -> None:
    rules = GameRules.custom(121, 1, [
        Line(SkunkKind.SKUNK, 90, 2), Line(SkunkKind.TRIPLE, triple_line(121), 6),
        Line(SkunkKind.DOUBLE, 60, 3),
    ])
    assert [ln.kind for ln in rules.lines] == [SKUNK, DOUBLE, TRIPLE]  # sorted by line
    assert [(r.skunk, r.game_points) for r in (judge(0, s, rules) for s in (91, 61, 31, 30))] == [
        (PLAIN, 1), (SKUNK, 2), (DOUBLE, 3), (TRIPLE, 6),
    ]
    assert rules.describe() == (
        "custom: plain win 1, skunk (90 or less) 2, double skunk (60 or less) 3, triple skunk (30 or less) 6"
    )
    assert triple_line(61) == 15


def test_custom_rules_from_json() -> None:
    rules = GameRules.from_json(61, {"plain": 2, "lines": [{"kind": "lurch", "at_most": 30, "points": 4}]})
    assert rules.to_json() == {
        "name": "custom", "target": 61, "plain": 2,
        "lines": [{"kind": "lurch", "at_most": 30, "points": 4}],
    }
    assert judge(0, 30, rules).game_points == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"plain": 1, "lines": [], "x": 1}, "custom rules: unknown key 'x'"),
        ({"plain": "1"}, "custom rules: plain (game points for a plain win) must be a whole number, not '1'"),
        ({"plain": 1, "lines": {}}, "lines must be a list"),
        ({"plain": 1, "lines": [{"kind": "skunk", "at_most": 90}]}, "line 1 must have exactly kind, at_most"),
        ({"plain": 1, "lines": [{"kind": "plain", "at_most": 90, "points": 1}]}, "kind must be one of"),
        ({"plain": 1, "lines": [{"kind": "skunk", "at_most": 90.0, "points": 2}]}, "at_most must be a whole"),
        ({"plain": 1, "lines": [{"kind": "skunk", "at_most": 121, "points": 2}]}, "from 0 to 120, not 121"),
        ({"plain": 100, "lines": []}, "a plain win must be worth 0 to 99 game points, not 100"),
        ({"plain": 2, "lines": [{"kind": "skunk", "at_most": 90, "points": 1}]}, "must be worth at least"),
        (
            {"plain": 1, "lines": [{"kind": "skunk", "at_most": 90, "points": 2},
                                   {"kind": "skunk", "at_most": 60, "points": 3}]},
            "the skunk line is given twice",
        ),
        (
            {"plain": 1, "lines": [{"kind": "skunk", "at_most": 60, "points": 2},
                                   {"kind": "double", "at_most": 90, "points": 3}]},
            "the double skunk line (90) must be below the skunk line (60)",
        ),
        (
            {"plain": 1, "lines": [{"kind": "skunk", "at_most": 60, "points": 2},
                                   {"kind": "lurch", "at_most": 60, "points": 3}]},
            "lines are both at 60",
        ),
    ],
)
def test_bad_custom_rules_are_refused(data: dict[str, object], message: str) -> None:
    with pytest.raises(MatchError) as info:
        GameRules.from_json(121, data)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: preset("home", 100), "target must be 121 or 61 points, not 100"),
        (lambda: preset("custom"), "custom rules need their values"),
        (lambda: preset("pub"), "unknown preset 'pub'"),
        (lambda: judge(0, 121, preset("home")), "the loser's score must be 0 to 120, not 121"),
        (lambda: judge(0, -1, preset("acc", 61)), "the loser's score must be 0 to 60, not -1"),
    ],
)
def test_bad_calls_are_refused(call: object, message: str) -> None:
    assert callable(call)
    with pytest.raises(MatchError) as info:
        call()
    assert message in str(info.value)


def test_results_are_plain_json() -> None:
    result = judge(0, 78, preset("home"))
    assert json.loads(json.dumps(result.to_json())) == {
        "winner": 0, "winner_score": 121, "loser_score": 78, "margin": 43, "skunk": "skunk",
        "skunk_label": "skunk", "game_points": 2, "preset": "home",
    }
    assert [k.label for k in SkunkKind] == ["plain win", "skunk", "double skunk", "triple skunk", "lurch"]
    assert repr(SkunkKind.LURCH) == "SkunkKind.LURCH"


# docs/RULES.md, "Skunks": the triple preset is home with a triple line at a quarter of the target
# (121: 30 or less; 61: 15 or less) worth 8; sixty-one-thirty has one line, a skunk at 30 or less of
# 61, worth 2, and a plain win of 1 above it.
TRIPLE_TABLE = [
    (121, 91, PLAIN, 1), (121, 90, SKUNK, 2), (121, 61, SKUNK, 2), (121, 60, DOUBLE, 4),
    (121, 31, DOUBLE, 4), (121, 30, TRIPLE, 8), (121, 0, TRIPLE, 8),
    (61, 46, PLAIN, 1), (61, 45, SKUNK, 2), (61, 31, SKUNK, 2), (61, 30, DOUBLE, 4),
    (61, 16, DOUBLE, 4), (61, 15, TRIPLE, 8), (61, 0, TRIPLE, 8),
]


@pytest.mark.parametrize(("target", "loser", "kind", "points"), TRIPLE_TABLE)
def test_the_triple_preset(target: int, loser: int, kind: SkunkKind, points: int) -> None:
    result = judge(0, loser, preset("triple", target))
    assert (result.skunk, result.game_points, result.preset) == (kind, points, "triple")


@pytest.mark.parametrize(("loser", "kind", "points"), [
    (60, PLAIN, 1), (45, PLAIN, 1), (31, PLAIN, 1), (30, SKUNK, 2), (15, SKUNK, 2), (0, SKUNK, 2),
])
def test_sixty_one_thirty(loser: int, kind: SkunkKind, points: int) -> None:
    result = judge(1, loser, preset("sixty-one-thirty", 61))
    assert (result.skunk, result.game_points, result.preset) == (kind, points, "sixty-one-thirty")


def test_sixty_one_thirty_is_for_sixty_one_point_games() -> None:
    with pytest.raises(MatchError) as info:
        preset("sixty-one-thirty", 121)
    assert str(info.value) == (
        "the sixty-one-thirty preset is for 61-point games (a skunk at 30 or less, no double); "
        "for 121 choose home, acc, lurch, triple or custom"
    )
    assert presets_for(61) == ("home", "sixty-one-thirty", "acc", "lurch", "triple")
    assert presets_for(121) == ("home", "acc", "lurch", "triple")


def test_preset_lines_in_words() -> None:
    assert preset_lines("home", 121) == [
        "plain win (loser on 91 or more): 1 game point",
        "skunk (loser on 90 or less): 2 game points",
        "double skunk (loser on 60 or less): 4 game points",
    ]
    assert preset_lines("acc", 61) == [
        "plain win (loser on 46 or more): 2 game points",
        "skunk (loser on 45 or less): 3 game points",
        "double skunk (loser on 30 or less): 3 game points",
    ]
    assert preset_lines("lurch", 61) == [
        "plain win (loser on 31 or more): 1 game point", "lurch (loser on 30 or less): 2 game points",
    ]
    assert preset_lines("triple", 61)[1:] == [
        "skunk (loser on 45 or less): 2 game points",
        "double skunk (loser on 30 or less): 4 game points",
        "triple skunk (loser on 15 or less): 8 game points",
    ]
    assert preset_lines("sixty-one-thirty", 61) == [
        "plain win (loser on 31 or more): 1 game point", "skunk (loser on 30 or less): 2 game points",
    ]
    for target in (121, 61):  # every preset a target lists has words for it
        assert all(preset_lines(name, target) for name in presets_for(target))


def test_the_new_presets_in_match_settings() -> None:
    assert new_match_settings(["Ann", "Bob"], target=61, preset="sixty-one-thirty")["preset"] == (
        "sixty-one-thirty"
    )
    assert new_match_settings(["Ann", "Bob"], preset="triple")["preset"] == "triple"
    with pytest.raises(MatchError, match="the sixty-one-thirty preset is for 61-point games"):
        new_match_settings(["Ann", "Bob"], target=121, preset="sixty-one-thirty")
    with pytest.raises(MatchError) as info:
        new_match_settings(["Ann", "Bob"], preset="quadruple")
    assert str(info.value) == (
        "unknown preset 'quadruple': choose home, acc, lurch, triple, sixty-one-thirty or custom"
    )
