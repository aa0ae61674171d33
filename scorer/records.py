"""A group's records over the years: standings, head-to-head, averages and big hands.

Pure computation, in two steps, so a group page never replays its whole history:

1. ``summarise(match, stamps)`` reduces one replayed match to a ``MatchSummary``: per player
   what they counted, pegged and won, each finished game's winner, skunks and end time, and
   every hand of 28 or 29. It is plain JSON (``to_json`` / ``from_json``), so a store can keep it
   beside the match keyed by the match's last ``seq``: a match's summary changes only when an
   event lands, and is computed once per new ``seq``.
2. ``group_records(roster, summaries)`` adds the summaries up into ``GroupRecords``.

Everything counts only effective events (an undone event counts for nothing; the undo itself
counts for nothing), exactly as ``Match.stats()`` does.

Players are people by name: a group's roster spells each name once and its matches use that
spelling. With partners, a game won by a side is won by both partners; head-to-head counts a
game once for each winner against each player of a losing side (with three players the winner
beats both others, and the two losers have no result between them).

>>> from scorer.match import Match, new_match_settings
>>> m = Match(new_match_settings(["Ann", "Bob"], target=61, first_dealer=0))
>>> for e in [{"type": "starter", "card": None}, {"type": "peg", "player": 1, "points": 31},
...           {"type": "show", "player": 1, "points": 24}, {"type": "show", "player": 0, "points": 2},
...           {"type": "crib", "points": 6}, {"type": "starter", "card": None},
...           {"type": "peg", "player": 1, "points": 6}]:
...     m = m.apply(e)
>>> s = summarise(m)  # Bob 55 to Ann's 8 after a hand, then pegs out: 61-8
>>> s.players["Bob"].games_won, s.players["Ann"].skunks_received
(1, 1)
>>> r = group_records(["Ann", "Bob"], [s])
>>> [(p.name, p.tally.games_won, p.tally.matches_won) for p in r.players]
[('Bob', 1, 1), ('Ann', 0, 0)]
>>> r.head_to_head[0].to_json()
{'players': ['Ann', 'Bob'], 'games': [0, 1]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any

from scorer.i18n import _
from scorer.match import Match
from scorer.match.records import Entry

__all__ = [
    "SUMMARY_VERSION",
    "BIG_HAND",
    "BigHand",
    "GameRecord",
    "PlayerTally",
    "MatchSummary",
    "summarise",
    "PlayerRecord",
    "HeadToHead",
    "GroupRecords",
    "group_records",
    "race",
]

SUMMARY_VERSION = 1
"""Bumped whenever ``MatchSummary``'s meaning changes: a stored summary of another version is
recomputed from the match's events, never trusted."""
BIG_HAND = 28
"""Hands (and cribs) of this many points or more are listed with their cards and dates: only 28
and 29 are possible, 216 and 4 deals in 12,994,800 (docs/RULES.md)."""


@dataclass(frozen=True, slots=True)
class BigHand:
    """A hand or crib of 28 or 29: who, what it scored, its cards (None when entered as a number)."""

    player: str
    points: int
    hand: str | None
    starter: str | None
    crib: bool
    when: str | None
    match_id: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "points": self.points,
            "hand": self.hand,
            "starter": self.starter,
            "crib": self.crib,
            "when": self.when,
        }


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: the winners' and losers' names, who was skunked, when it was won."""

    winners: tuple[str, ...]
    losers: tuple[str, ...]
    skunked: tuple[str, ...]
    scores: tuple[int, ...]
    when: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "winners": list(self.winners),
            "losers": list(self.losers),
            "skunked": list(self.skunked),
            "scores": list(self.scores),
            "when": self.when,
        }


@dataclass(slots=True)
class PlayerTally:
    """One player's sums over one match (or many): what ``Match.stats()`` counts, plus game
    points and matches won, and how often each hand total was counted."""

    games_played: int = 0
    games_won: int = 0
    matches_won: int = 0
    game_points: int = 0
    skunks_given: int = 0
    skunks_received: int = 0
    hands_counted: int = 0
    hand_points: int = 0
    cribs_counted: int = 0
    crib_points: int = 0
    hands_played: int = 0
    peg_points: int = 0
    highest_hand: int | None = None
    show_totals: dict[int, int] = field(default_factory=dict)

    def add(self, other: PlayerTally) -> None:
        """Add ``other``'s sums to these."""
        for name in (
            "games_played",
            "games_won",
            "matches_won",
            "game_points",
            "skunks_given",
            "skunks_received",
            "hands_counted",
            "hand_points",
            "cribs_counted",
            "crib_points",
            "hands_played",
            "peg_points",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.highest_hand is not None:
            self.highest_hand = max(self.highest_hand or 0, other.highest_hand)
        for total, n in other.show_totals.items():
            self.show_totals[total] = self.show_totals.get(total, 0) + n

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {name: getattr(self, name) for name in self.__slots__}
        out["show_totals"] = {str(k): v for k, v in sorted(self.show_totals.items())}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerTally:
        values = dict(data)
        values["show_totals"] = {int(k): int(v) for k, v in data["show_totals"].items()}
        return cls(**values)


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """What one match adds to its group's records (see the module docstring)."""

    players: dict[str, PlayerTally]
    games: tuple[GameRecord, ...]
    big_hands: tuple[BigHand, ...]
    winners: tuple[str, ...]
    """The players of the side that won the match; empty while it goes on."""

    def to_json(self) -> dict[str, object]:
        return {
            "version": SUMMARY_VERSION,
            "players": {n: t.to_json() for n, t in self.players.items()},
            "games": [g.to_json() for g in self.games],
            "big_hands": [b.to_json() for b in self.big_hands],
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchSummary:
        """A summary read back; ``ValueError`` for one of another ``SUMMARY_VERSION``."""
        if data.get("version") != SUMMARY_VERSION:
            raise ValueError(_("summary version %(found)s is not %(expected)s",
                               found=repr(data.get("version")), expected=SUMMARY_VERSION))
        return cls(
            {n: PlayerTally.from_json(t) for n, t in data["players"].items()},
            tuple(
                GameRecord(
                    tuple(g["winners"]),
                    tuple(g["losers"]),
                    tuple(g["skunked"]),
                    tuple(g["scores"]),
                    g["when"],
                )
                for g in data["games"]
            ),
            tuple(
                BigHand(b["player"], b["points"], b["hand"], b["starter"], b["crib"], b["when"])
                for b in data["big_hands"]
            ),
            tuple(data["winners"]),
        )


def _stamp(stamps: Sequence[datetime] | None, seq: int) -> str | None:
    if stamps is None or not 1 <= seq <= len(stamps):
        return None
    return stamps[seq - 1].isoformat()


def _effective(entries: Iterable[Entry]) -> list[Entry]:
    return [e for e in entries if not e.voided and e.type != "void"]


def summarise(match: Match, stamps: Sequence[datetime] | None = None) -> MatchSummary:
    """``match`` reduced to what its group's records need; ``stamps[seq - 1]`` is when event
    ``seq`` was stored (games and big hands are dated by them)."""
    s = match.settings
    names = s.players
    sides = [
        tuple(names[seat] for seat in range(len(names)) if s.side_of(seat) == side)
        for side in range(len(s.sides))
    ]
    state = match.state
    history = _effective(match.history)
    tallies = {name: PlayerTally() for name in names}
    for stat in match.stats():
        t = tallies[stat.name]
        t.hands_counted, t.hand_points, t.highest_hand = (
            stat.hands_counted,
            stat.hand_points,
            stat.highest_hand,
        )
        t.cribs_counted, t.crib_points = stat.cribs_counted, stat.crib_points
        t.hands_played, t.peg_points = stat.hands_played, stat.peg_points
        t.games_won, t.skunks_given, t.skunks_received = (
            stat.games_won,
            stat.skunks_given,
            stat.skunks_received,
        )
    big: list[BigHand] = []
    for e in history:
        if e.type in ("show", "crib") and e.player is not None:
            points = e.points[e.player]
            if e.type == "show":
                totals = tallies[names[e.player]].show_totals
                totals[points] = totals.get(points, 0) + 1
            if points >= BIG_HAND:
                hand = e.event.get("hand")
                cards = (
                    (" ".join(str(c) for c in hand) if isinstance(hand, list) else str(hand))
                    if hand
                    else None
                )
                big.append(
                    BigHand(
                        names[e.player],
                        points,
                        cards,
                        match.starter_of(e) if cards else None,
                        e.type == "crib",
                        _stamp(stamps, e.seq),
                    )
                )
    # A game is won by the last effective event of its number (next_game entries open the next).
    ended: dict[int, int] = {}
    for e in history:
        if e.type not in ("next_game", "cut"):
            ended[e.game] = e.seq
    games = []
    for g in state.games:
        winners = sides[g.result.winner]
        losers = tuple(n for side, players in enumerate(sides) if side != g.result.winner for n in players)
        skunked = tuple(n for side, players in enumerate(sides) if g.result.skunked(side) for n in players)
        games.append(
            GameRecord(winners, losers, skunked, tuple(g.scores), _stamp(stamps, ended.get(g.number, 0)))
        )
        for n in names:
            tallies[n].games_played += 1
    for side, players in enumerate(sides):
        for n in players:
            tallies[n].game_points = state.game_points[side]
            tallies[n].matches_won = int(state.match_winner == side)
    winners = sides[state.match_winner] if state.match_winner is not None else ()
    return MatchSummary(tallies, tuple(games), tuple(big), winners)


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One player's standing in the group, over every match of it."""

    name: str
    tally: PlayerTally

    @property
    def average_hand(self) -> float | None:
        t = self.tally
        return t.hand_points / t.hands_counted if t.hands_counted else None

    @property
    def average_crib(self) -> float | None:
        t = self.tally
        return t.crib_points / t.cribs_counted if t.cribs_counted else None

    @property
    def average_pegging(self) -> float | None:
        t = self.tally
        return t.peg_points / t.hands_played if t.hands_played else None

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a player's standing."""
        t = self.tally
        return {
            "name": self.name,
            "games_played": t.games_played,
            "games_won": t.games_won,
            "matches_won": t.matches_won,
            "game_points": t.game_points,
            "skunks_given": t.skunks_given,
            "skunks_received": t.skunks_received,
            "average_hand": _rounded(self.average_hand),
            "average_crib": _rounded(self.average_crib),
            "average_pegging": _rounded(self.average_pegging),
            "highest_hand": t.highest_hand,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Games won by each of two players against the other."""

    players: tuple[str, str]
    games: tuple[int, int]

    def to_json(self) -> dict[str, object]:
        return {"players": list(self.players), "games": list(self.games)}


@dataclass(frozen=True, slots=True)
class GroupRecords:
    """A group's records: players by standing, every pair that met, big hands, games in order."""

    players: tuple[PlayerRecord, ...]
    head_to_head: tuple[HeadToHead, ...]
    big_hands: tuple[BigHand, ...]
    games: tuple[GameRecord, ...]

    def player(self, name: str) -> PlayerRecord | None:
        return next((p for p in self.players if p.name == name), None)


def group_records(roster: Sequence[str], summaries: Sequence[MatchSummary]) -> GroupRecords:
    """The records of a group with ``roster`` from its matches' summaries, oldest match first.

    Players are ranked by games won, then matches won, then game points, then roster order; a
    name in a match but not on the roster (an imported match) is listed after the roster.
    """
    order = list(roster)
    tallies = {name: PlayerTally() for name in order}
    wins: dict[tuple[str, str], int] = {}
    big: list[BigHand] = []
    games: list[GameRecord] = []
    for summary in summaries:
        for name, tally in summary.players.items():
            if name not in tallies:
                order.append(name)
                tallies[name] = PlayerTally()
            tallies[name].add(tally)
        for game in summary.games:
            games.append(game)
            for w in game.winners:
                for loser in game.losers:
                    wins[(w, loser)] = wins.get((w, loser), 0) + 1
        big.extend(summary.big_hands)
    position = {name: i for i, name in enumerate(order)}
    ranked = sorted(
        order,
        key=lambda n: (-tallies[n].games_won, -tallies[n].matches_won, -tallies[n].game_points, position[n]),
    )
    pairs = []
    for a, b in combinations(order, 2):
        ab, ba = wins.get((a, b), 0), wins.get((b, a), 0)
        if ab or ba:
            pairs.append(HeadToHead((a, b), (ab, ba)))
    big.sort(key=lambda h: (-h.points, h.when or ""))
    return GroupRecords(
        tuple(PlayerRecord(n, tallies[n]) for n in ranked), tuple(pairs), tuple(big), tuple(games)
    )


def race(match: Match, game: int) -> list[tuple[int, ...]]:
    """Every side's score after each effective scoring event of game ``game`` (1-based), from
    0-0: the points a chart of the game's race draws."""
    points = [tuple(0 for _ in match.settings.sides)]
    for e in _effective(match.history):
        if e.game == game and any(e.deltas):
            points.append(tuple(a + d for a, d in zip(points[-1], e.deltas, strict=True)))
    return points
