"""The engine's state: one dataclass, copied whole before an event is applied.

A ``Match`` never changes, yet the engine's handlers move pegs and record cards as they go. So
``Match.apply`` works on a copy: ``copy_whole`` copies every field of the state by its type, read
from ``dataclasses.fields`` (lists, dicts, sets and counters of immutable values, nested state
dataclasses, immutable values shared as they are). A field of a kind it does not know is refused
with ``TypeError`` rather than shared, so a new field can never leak between versions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any, TypeVar

from scorer.cards import Card
from scorer.match.events import Event
from scorer.match.records import Entry, FinishedGame, Miss, Phase
from scorer.rules import GameResult

__all__ = ["CRIB", "STARTER", "Owner", "AwardKey", "HandState", "EngineState", "copy_whole"]

CRIB = "crib"
STARTER = "starter"
Owner = int | str
"""Who holds a card in a hand's deal: a seat, the crib or the starter."""

AwardKey = tuple[int, str, str, int]
"""A play award as (play index, player label, kind, points), to tell new awards from old."""


@dataclass(slots=True)
class HandState:
    """The hand being played: its dealer, the cards seen so far and who has counted."""

    number: int
    dealer: int
    first_dealer: int  # of this game: the next game's dealer is found from it
    order: tuple[int, ...]
    starter: Card | None = None
    plays: list[tuple[int, Card]] = field(default_factory=list)
    awarded: Counter[AwardKey] = field(default_factory=Counter)
    owners: dict[Card, Owner] = field(default_factory=dict)
    counted: list[int] = field(default_factory=list)
    pegged: dict[int, int] = field(default_factory=dict)
    events: int = 0
    by_points: bool = False  # some of the play was pegged as numbers: its cards are not all entered


@dataclass(slots=True)
class EngineState:
    """Everything the replay has built from the log so far."""

    phase: Phase
    scores: list[int]
    backs: list[int]
    game_points: list[int]
    games_won: list[int]
    log: list[Event] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    voided: dict[int, int] = field(default_factory=dict)  # undone seq -> the undo's seq
    game: int = 1
    games: list[FinishedGame] = field(default_factory=list)
    match_winner: int | None = None
    result: GameResult | None = None
    # Open misses by (event, seat); every miss this replay made; the ones claimed.
    misses: dict[tuple[int, int], Miss] = field(default_factory=dict)
    made_misses: set[tuple[int, int]] = field(default_factory=set)
    claimed: set[tuple[int, int]] = field(default_factory=set)
    cutting: tuple[int, ...] = ()
    hand: HandState | None = None  # None only while cutting for the first deal
    hand_number: int = 1


_SHARED = (
    int, str, float, bool, type(None), Enum, tuple, frozenset, Card, GameResult, Entry, Miss, FinishedGame,
)
"""Values immutable all through (tuples and frozen records of immutable values): shared between copies."""

_State = TypeVar("_State", EngineState, HandState)


def _copied(value: Any) -> Any:
    if isinstance(value, Counter):
        return Counter(value)
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, set):
        return set(value)
    if isinstance(value, HandState):
        return copy_whole(value)
    if isinstance(value, _SHARED):
        return value
    raise TypeError(f"copy_whole has no rule for a {type(value).__name__}: say how to copy it")


def copy_whole(state: _State) -> _State:
    """A copy of ``state`` sharing nothing mutable with it, field by field."""
    return replace(state, **{f.name: _copied(getattr(state, f.name)) for f in fields(state)})
