"""Stored matches replay as they did when they were stored.

``tests/data/games/recorded.json`` holds, for every scripted game of ``tests/data/games/*.txt``
under every preset its script values, the settings and events as a store keeps them and what
the engine answered for them (board, statistics, every history line with its points) when it
was recorded, at commit 01c6eb6, before the engine refused impossible plays and before the
settings had a three-player skunk choice. Settings without the keys added since must mean the
behaviour they had: the same board, the same lines, the same numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.match import Match

RECORDED = Path(__file__).parent / "data" / "games" / "recorded.json"
GAMES: dict[str, dict[str, object]] = json.loads(RECORDED.read_text(encoding="utf-8"))


def test_every_scripted_game_is_recorded() -> None:
    scripts = sorted(p.name for p in RECORDED.parent.glob("*.txt"))
    assert sorted({name.split()[0] for name in GAMES}) == scripts
    assert len(GAMES) == 3 * len(scripts)  # home, acc and lurch for each


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_stored_match_replays_as_recorded(name: str) -> None:
    recorded = GAMES[name]
    settings = recorded["settings"]
    assert isinstance(settings, dict) and "three_player_skunk" not in settings  # stored before it existed
    events = recorded["events"]
    assert isinstance(events, list)
    answer = Match(settings, events).to_json()
    assert answer["state"] == recorded["state"]
    assert answer["stats"] == recorded["stats"]
    history = answer["history"]
    assert isinstance(history, list)
    lines = [{k: e[k] for k in ("seq", "text", "points", "deltas", "unscored")} for e in history]
    assert lines == recorded["history"]
