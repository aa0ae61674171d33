"""Skunk lines and game points against docs/RULES.md's table, at every line's edge."""

from __future__ import annotations

import json

import pytest

from scorer.errors import MatchError
from scorer.rules import GameRules, Line, SkunkKind, judge, preset, triple_line

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
