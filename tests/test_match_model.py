"""The match package's seams: events read once at the edge, and a state copied whole.

``parse_event`` must accept exactly what the match accepted before it existed and refuse the
rest with the same words (a player or a stored log sees them); a ``Match`` must never share a
mutable part of its state with the match it came from, whatever fields the state grows.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field, fields

import pytest

from scorer.errors import MatchError
from scorer.match import (
    ABSENT,
    EVENT_TYPES,
    Correction,
    Crib,
    Cut,
    Match,
    Muggins,
    NextGame,
    Peg,
    SettingsChange,
    Show,
    Starter,
    Void,
    new_match_settings,
    parse_event,
)
from scorer.match.engine import Engine
from scorer.match.settings import Settings
from scorer.match.state import EngineState, HandState, copy_whole

Event = dict[str, object]

# One event of each type, with optional keys given and left out.
VALID: list[tuple[Event, object]] = [
    ({"type": "cut", "cards": ["5H", None]}, Cut({}, cards=["5H", None])),
    ({"type": "starter", "card": None, "heels": True}, Starter({}, card=None, heels=True)),
    ({"type": "starter", "card": "JD"}, Starter({}, card="JD")),
    ({"type": "peg", "plays": "Ann:5H Bob:TS", "claimed": [None, 2]},
     Peg({}, plays="Ann:5H Bob:TS", claimed=[None, 2])),
    ({"type": "peg", "player": 1, "points": 2}, Peg({}, player=1, points=2)),
    ({"type": "show", "player": 1, "hand": "5H 5C 5S JD", "claimed": 27},
     Show({}, player=1, hand="5H 5C 5S JD", claimed=27)),
    ({"type": "crib", "points": 4}, Crib({}, points=4)),
    ({"type": "muggins", "player": 0, "seq": 7, "points": 2, "from": 1},
     Muggins({}, player=0, seq=7, points=2, from_=1)),
    ({"type": "correction", "side": 1, "points": -2, "reason": "pegged twice"},
     Correction({}, points=-2, reason="pegged twice", side=1)),
    ({"type": "void", "seq": 3}, Void({}, seq=3)),
    ({"type": "next_game"}, NextGame({})),
    ({"type": "settings", "players": ["Ann", "Bob"], "scores_only": True},
     SettingsChange({}, players=["Ann", "Bob"], scores_only=True)),
]


def test_every_event_type_has_a_class() -> None:
    assert sorted(str(event["type"]) for event, _ in VALID) == sorted([*EVENT_TYPES, "peg", "starter"])


@pytest.mark.parametrize(
    ("event", "expected"), VALID, ids=lambda v: str(v["type"]) if isinstance(v, dict) else ""
)
def test_parse_event_reads_each_key_and_round_trips(event: Event, expected: object) -> None:
    parsed = parse_event(event)
    assert parsed == expected
    assert parsed.type == event["type"]
    assert parsed.to_json() == event
    assert list(parsed.to_json()) == list(event)  # the order kept, as a store keeps it
    assert parse_event(parsed.to_json()) == parsed


def test_a_key_left_out_is_absent_and_a_null_is_kept() -> None:
    left_out = parse_event({"type": "crib", "points": 4})
    assert isinstance(left_out, Crib) and left_out.player is ABSENT and left_out.claimed is ABSENT
    null = parse_event({"type": "crib", "points": 4, "player": None})
    assert isinstance(null, Crib) and null.player is None


def test_parse_event_copies_so_the_caller_cannot_change_it() -> None:
    event: Event = {"type": "cut", "cards": ["5H", "KD"]}
    parsed = parse_event(event)
    event["cards"].append("2C")  # type: ignore[attr-defined]
    assert isinstance(parsed, Cut) and parsed.cards == ["5H", "KD"]


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ("starter JD", "an event must be an object with a type, not 'starter JD'"),
        ({"type": "shuffle"},
         "unknown event type 'shuffle' (one of cut, starter, peg, show, crib, muggins, correction, void, "
         "next_game, settings)"),
        ({"card": "JD"},
         "unknown event type None (one of cut, starter, peg, show, crib, muggins, correction, void, "
         "next_game, settings)"),
        ({"type": "show", "points": 4}, "a show event needs player"),
        ({"type": "muggins", "player": 0}, "a muggins event needs points, seq"),
        ({"type": "show", "player": 1, "points": 4, "cards": "x"},
         "a show event takes claimed, hand, player, points, not 'cards'"),
        ({"type": "next_game", "x": 1}, "a next_game event takes nothing else, not 'x'"),
        ({"type": "void", "seq": 1, "from": 2}, "a void event takes reason, seq, not 'from'"),
        ({"type": "starter", "card": {1, 2}}, "an event must be plain JSON: Object of type set is not JSON "
                                              "serializable"),
    ],
)
def test_parse_event_refuses_with_the_match_messages(event: object, message: str) -> None:
    with pytest.raises(MatchError) as parsed:
        parse_event(event)
    assert str(parsed.value) == message
    match = Match(new_match_settings(["Ann", "Bob"], first_dealer=0))
    with pytest.raises(MatchError) as applied:
        match.apply(event)  # type: ignore[arg-type]
    assert str(applied.value) == message
    with pytest.raises(MatchError) as replayed:
        Match(match.settings, [event])  # type: ignore[list-item]
    assert str(replayed.value).endswith(f": {message}")


# -------------------------------------------------------------------- the state copied whole

SETTINGS = Settings.from_json(new_match_settings(["Ann", "Bob"], first_dealer=0, muggins=True))
LOG: list[Event] = [
    {"type": "starter", "card": "5D"},
    {"type": "peg", "plays": "Bob:TS Ann:5H", "claimed": [0, 0]},  # Ann's fifteen 2, claimed 0
    # 20 (Bob's pair 2) 21 26 28, Bob's go at 28, 31 (Ann 2) | 10, Bob's last card 1
    {"type": "peg", "plays": "Bob:5C Ann:AH Bob:5S Ann:2H Ann:3H Bob:JD"},
    {"type": "muggins", "player": 1, "seq": 2, "points": 2},
    {"type": "show", "player": 1, "hand": "TS 5C 5S JD", "claimed": 10},  # 21 (see test_match)
]


def _engine() -> Engine:
    return Engine.replay(SETTINGS, [parse_event(e) for e in LOG])


def _snapshot(state: EngineState) -> dict[str, object]:
    return {f.name: copy.deepcopy(getattr(state, f.name)) for f in fields(state)}


@pytest.mark.parametrize("event", [
    {"type": "correction", "player": 0, "points": 3, "reason": "fix"},
    {"type": "muggins", "player": 0, "seq": 5, "points": 11},
    {"type": "peg", "plays": "Bob:5C"},  # refused (the show has begun), after nothing moved
    {"type": "void", "seq": 4},  # replaces the state with a replay
    {"type": "void", "seq": 2},  # refused: the muggins #3 would have nothing to claim
])
def test_applying_an_event_leaves_every_field_of_the_earlier_state_as_it_was(event: Event) -> None:
    engine = _engine()
    before = _snapshot(engine.st)
    hand_before = copy.deepcopy(engine.st.hand)
    assert engine.st.misses and engine.st.claimed and engine.st.hand is not None  # every kind is live
    twin = engine.copy()
    with contextlib.suppress(MatchError):  # a refused event may leave the copy part-moved
        twin.apply(parse_event(event))
    assert _snapshot(engine.st) == before
    assert engine.st.hand == hand_before
    # ... and the same through the public Match.
    match = Match(SETTINGS, LOG)
    board, history = match.state, match.history
    with contextlib.suppress(MatchError):
        match.apply(event)
    assert (match.state, match.history) == (board, history)


def _mutable(value: object) -> bool:
    return isinstance(value, list | dict | set | HandState)


def test_a_copy_shares_no_mutable_field_with_its_original() -> None:
    state = _engine().st
    twin = copy_whole(state)
    assert twin == state
    for name in [f.name for f in fields(state)]:
        value = getattr(state, name)
        if _mutable(value):
            assert getattr(twin, name) is not value, name
    assert state.hand is not None and twin.hand is not None
    for name in [f.name for f in fields(state.hand)]:
        value = getattr(state.hand, name)
        if _mutable(value):
            assert getattr(twin.hand, name) is not value, name


@dataclass(slots=True)
class _GrownHand(HandState):
    """The hand state as a later change might grow it."""

    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _StrangeHand(HandState):
    buffer: bytearray = field(default_factory=bytearray)


def test_a_new_field_is_copied_not_shared_or_else_refused() -> None:
    grown = _GrownHand(1, 0, 0, (1, 0), notes=["a"])
    twin = copy_whole(grown)
    twin.notes.append("b")
    assert grown.notes == ["a"]
    with pytest.raises(TypeError, match="no rule for a bytearray"):
        copy_whole(_StrangeHand(1, 0, 0, (1, 0)))
