"""A match of cribbage as an append-only log of events, replayed to its state (RULES.md).

Nothing here knows of HTTP or databases: a store keeps the settings and the events (plain JSON
dicts, each with its 1-based sequence number, its position in the log) and the web layer
replays them with ``Match(settings, events)`` to show the board and validate the next event.
Nothing is ever deleted: an undo is a ``void`` event naming the event it undoes.

Quick tour
----------

>>> settings = new_match_settings(["Ann", "Bob"], first_dealer=0, length={"kind": "best_of", "games": 3})
>>> m = Match(settings)
>>> m.state.phase, m.state.dealer, m.state.prompt
(Phase.STARTER, 0, 'game 1, hand 1: Ann deals; turn the starter')
>>> m = m.apply({"type": "starter", "card": "JD"})  # his heels: 2 to the dealer, Ann
>>> m = m.apply({"type": "peg", "plays": "Bob:5H Ann:TS Bob:5C Ann:5S"})  # Ann 15-2, pair 2
>>> m.state.scores
(6, 0)
>>> m = m.apply({"type": "show", "player": 1, "hand": "5H 5C 4D 6D"})
>>> m.history[-1].text
"Bob's hand 5H 5C 4D 6D with JD: 16 (fifteen two, fifteen four, fifteen six, fifteen eight and a \
double run of three is sixteen)"
>>> m.state.scores, m.state.backs, m.state.to_count
((6, 16), (2, 0), 0)
>>> m.check({"type": "crib", "points": 4})
Traceback (most recent call last):
...
scorer.errors.MatchError: the crib is counted after every hand: Ann counts next
>>> m = m.apply({"type": "void", "seq": 3, "reason": "wrong hand"})
>>> m.state.scores, m.history[2].voided_by
((6, 0), 4)

Settings
--------

``new_match_settings(players, ...)`` validates and returns the normalised JSON dict (store it
as is; ``Settings.from_json`` reads it back)::

    {"players": ["Ann", "Bob"],          # 2 or 3 individuals, or 4 in two partnerships
     "partnerships": false,              # true exactly when there are 4 players
     "target": 121,                      # or 61
     "preset": "home",                   # home, acc, lurch (scorer.rules) or custom
     "custom": null,                     # with "custom": {"plain": 1, "lines": [...]}
     "length": {"kind": "best_of", "games": 3},   # or {"kind": "points", "points": 7}
     "muggins": false,
     "first_dealer": 0}                  # a seat, or null to cut for the deal

Seats are numbered 0..n-1 clockwise round the table, so seat ``d + 1`` sits on the left of the
dealer ``d``. The deal passes to the left (it alternates with two players). With four players
partners sit opposite: side 0 is seats 0 and 2, side 1 is seats 1 and 3, and partners' points
go to one score. Otherwise each player is a side of its own (side ``i`` is seat ``i``). Scores,
game points and results are per side; statistics are per player.

Match length: ``best_of`` N (odd) games is won by the first side to win N // 2 + 1 games,
each won game counting once whatever its margin; ``points`` P is won by the first side to
reach P game points, where the preset's skunk values count. With three players a best-of
match goes on until one side has the games it needs.

Events
------

Every event is a dict with a ``"type"``; unknown keys are refused so a typo never passes
silently. ``player`` is a seat number; ``seq`` names an earlier event by its sequence number.
Cards are text (``"5H 5C 5S JD"``) or lists of tokens, in the notation of RULES.md.

``cut``: ``{"cards": ["5H", "KD"]}``, one card per seat, when ``first_dealer`` is null. The
    lowest rank deals (ace low); when several tie for lowest, exactly those players cut again
    (``null`` for the others): ``{"cards": ["2C", null, "2H"]}`` then ``["9S", null, "4D"]``.
``starter``: ``{"card": "JD"}``. A jack pegs 2 to the dealer for his heels at once. The card
    may be ``null`` when the players do not enter cards; then ``"heels": true`` pegs the 2.
    Entering a ``peg`` or the first ``show`` before any starter skips it for that hand (a
    show with cards then needs a starter, so it is refused).
``peg``: points in the play, as often as needed while the play lasts:
    ``{"player": 1, "points": 2}``, or the cards as played, so the companion counts them:
    ``{"plays": "Ann:5H Bob:TS Ann:5D"}`` (labels are players' names without spaces,
    case-insensitive, or seat letters A B C D) or ``{"plays": [[0, "5H"], [1, "TS"]]}``.
    Plays entered over several events are one play: each event scores only its new cards
    (and a go earned by the card before them). The first card must be led by the player on
    the dealer's left; after all 4 cards of every player the last card pegs 1.
    ``"claimed": [null, 3]`` (one entry per seat) is what each player pegged for these cards,
    for muggins.
``show``: ``{"player": 1, "hand": "5H 5C 5S JD"}`` counted by the engine with the hand's
    starter, optionally ``"claimed": 27`` (what the player announced), or
    ``{"player": 1, "points": 8}`` when the cards are not entered. Hands count in order: the
    player on the dealer's left first, round to the dealer. The first show ends the play.
``crib``: ``{"hand": "2C 3C KD QH"}`` (crib rules: only a five-card flush) or
    ``{"points": 4}``, after every hand; ``"player"`` may be given and must be the dealer.
    The crib ends the hand: the deal passes left.
``muggins``: ``{"player": 0, "seq": 7, "points": 2}``: seat 0 claims points that event 7
    under-claimed. ``"from": 1`` names whose points when event 7 was a play with several
    under-claims. Only with muggins on, by a player of another side than the one who missed
    them (with three players either opponent, the first claim wins), within the same hand or
    before anything is entered in the next one. The claimant pegs the lesser of the claim and
    the true missing amount (ACC rule 10), once per miss.
``correction``: ``{"player": 0, "points": -2, "reason": "pegged twice"}`` (or ``"side"``):
    adds or takes points by hand; never below 0.
``void``: ``{"seq": 7, "reason": "typo"}`` undoes event 7: the state becomes what the log would
    give without it. Refused when that log would be invalid (the message names the event that
    would break: undo that one first), for a void (enter the undone event again instead) and
    for an event already undone.
``next_game``: ``{}`` starts the next game once one is won. The loser deals first (with three
    players the lowest score, with partners the loser's player next to the left of the
    previous game's first dealer; ties go to the first such player to that left).

Claims and muggins
------------------

A ``claimed`` total is checked against the engine's count. Over-claims are refused with the
itemized count. An under-claim with muggins off is corrected (the player pegs the true count);
with muggins on the player pegs only the claim and the difference waits for a ``muggins``
event. Shows entered as numbers have no engine count to settle a claim against.

Refusals
--------

``apply`` and ``check`` raise ``MatchError`` (a ``ValueError``) with a message a player can act
on: a show out of turn names who counts next, a score after the game names the result ("the
game is over: Ann won 121–87 (skunk); start the next game"), a hand of 19 or over 29, a card
twice in one hand's deal ("5H appears twice in hand 3's deal: Bob's hand and the crib").
The game ends the moment a side reaches the target, even mid-play or mid-show; the rest of
that event's points and the hand's later counts are never scored (the score stays at the
target).

The API
-------

``Match(settings, events=())`` (or ``Match.replay``) replays a stored log; ``settings`` is the
dict above or a ``Settings``. A bad stored event raises ``MatchError("event #7 (show): ...")``.
A ``Match`` never changes: ``match.apply(event)`` returns a new one with the event appended
(raising ``MatchError`` and leaving ``match`` as it was when refused), ``match.check(event)``
only validates. To append, store ``new.events[-1]`` (the event as a plain-JSON copy) under
sequence number ``match.next_seq``. Undo re-replays the log, so it costs one replay.

``match.state`` is a ``MatchState``, the board (all per side unless said):

* ``phase`` (``Phase``: cut, starter, play, show, crib, game_over, match_over), ``expected``
  (the event types accepted now, "muggins" only while a miss is open, "void" while anything
  can be undone) and ``prompt`` (a line for the screen: "game 1, hand 3: Bob to count");
* ``game`` and ``hand`` (1-based, the hand within the game), ``dealer`` and ``crib_owner``
  (seats), ``counting_order`` (seats, left of the dealer first, dealer last; the crib follows),
  ``counted`` (seats that have counted), ``to_count`` (next seat to count, None when the crib
  or nothing is due), ``starter`` ("JD" or None), ``plays`` (this hand's ``(seat, "5H")``),
  ``cutting`` (seats still to cut);
* ``scores`` and ``backs`` (the front and the back peg: the score before the side last moved);
* ``result`` (this game's ``GameResult`` once won: ``winner`` side, ``winner_score``,
  ``loser_score``, ``skunk`` a ``SkunkKind``, ``game_points``, ``preset``), ``games``
  (``FinishedGame``: number, first dealer, hands, final scores, result), ``games_won``,
  ``game_points``, ``match_winner`` (a side or None) and ``muggins_open`` (``Miss``: seq,
  player, points).

``match.history`` has one ``Entry`` per logged event, index ``seq - 1``: ``seq``, ``event``,
``type``, ``game``, ``hand``, ``player``, ``points`` (per seat, what the event scored before
the target cut it short), ``deltas`` (per side, what the pegs moved), ``unscored``, ``text``
(one line: "Bob's hand 5H 5C 5S JD with 5D: 29 (fifteen two, ...)"), ``score`` (the
itemized ``Score`` of a show or crib with cards), ``pegging`` (the play's new ``PegEvent``
awards, players by name) and ``voided_by`` (the undo's seq). ``match.stats()`` gives one
``PlayerStats`` per seat: hands and cribs counted with their points and averages, the
highest hand, points pegged per hand played, muggins points taken, games won, skunks given
and received. ``match.to_json()`` is ``{"settings", "sides", "next_seq", "state",
"history", "stats"}``, every part from the ``to_json`` of these records.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import cast

from scorer.cards import Card, Rank, parse_cards
from scorer.errors import MatchError
from scorer.pegging import PegEvent, parse_plays, score_pegging
from scorer.rules import (
    CUSTOM,
    HAND_SIZE,
    IMPOSSIBLE_SHOW_POINTS,
    MAX_SHOW_POINTS,
    PRESETS,
    SEAT_LETTERS,
    TARGETS,
    GameResult,
    GameRules,
    SkunkKind,
    as_whole,
    judge,
    preset,
)
from scorer.show import Score, score_show

__all__ = [
    "Phase", "LengthKind", "MatchLength", "Settings", "new_match_settings",
    "Entry", "Miss", "FinishedGame", "MatchState", "PlayerStats", "Match",
    "EVENT_TYPES", "MAX_NAME_LENGTH", "MAX_BEST_OF", "MAX_MATCH_POINTS", "MAX_SHOW_POINTS",
    "IMPOSSIBLE_SHOW_POINTS", "MAX_PLAY_POINTS", "MAX_REASON_LENGTH", "HAND_SIZE",
]

MAX_NAME_LENGTH = 30
"""Longest player name in characters: fits a phone's score line."""
MAX_BEST_OF = 99
"""Most games in a best-of match: a guard against typos."""
MAX_MATCH_POINTS = 999
"""Most game points a points match may run to: a guard against typos."""
MAX_PLAY_POINTS = 60
"""Most points one player may peg in one hand's play when entered as numbers: four cards of at
most 15 each (a card pegs at most 14, the fourth of a rank making 31, or 13 with a go). More is
a typo."""
MAX_REASON_LENGTH = 200
"""Longest reason for a correction or undo, in characters."""

_HEELS_POINTS = 2


class Phase(Enum):
    """Where the match stands: what the next event may be."""

    CUT = "cut"
    """Cutting for the first deal; only ``cut`` events."""
    STARTER = "starter"
    """A hand is dealt: the starter is next (or the play, or the first show, skipping it)."""
    PLAY = "play"
    """Pegging: ``peg`` events until the first show."""
    SHOW = "show"
    """Counting hands in order; ``MatchState.to_count`` is next."""
    CRIB = "crib"
    """Every hand is counted; the dealer's crib is next."""
    GAME_OVER = "game_over"
    """A side reached the target; ``next_game`` starts the next."""
    MATCH_OVER = "match_over"
    """A side won the match; only ``void`` remains."""

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


EVENT_TYPES = ("cut", "starter", "peg", "show", "crib", "muggins", "correction", "void", "next_game")
"""Every event type, in the order they appear in a hand's life."""

# Required and optional keys of each event type, besides "type".
_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "cut": (frozenset({"cards"}), frozenset()),
    "starter": (frozenset({"card"}), frozenset({"heels"})),
    "peg": (frozenset(), frozenset({"player", "points", "plays", "claimed"})),
    "show": (frozenset({"player"}), frozenset({"hand", "points", "claimed"})),
    "crib": (frozenset(), frozenset({"player", "hand", "points", "claimed"})),
    "muggins": (frozenset({"player", "seq", "points"}), frozenset({"from"})),
    "correction": (frozenset({"points", "reason"}), frozenset({"player", "side"})),
    "void": (frozenset({"seq"}), frozenset({"reason"})),
    "next_game": (frozenset(), frozenset()),
}


# ----------------------------------------------------------------------------------- settings


class LengthKind(Enum):
    """How a match is decided."""

    BEST_OF = "best_of"
    """The first side to win a majority of N games (each win counts once)."""
    POINTS = "points"
    """The first side to reach N game points (skunks count as the preset says)."""


@dataclass(frozen=True, slots=True)
class MatchLength:
    """A match's length: best of ``count`` games, or first to ``count`` game points."""

    kind: LengthKind
    count: int

    def to_json(self) -> dict[str, object]:
        """``{"kind": "best_of", "games": 3}`` or ``{"kind": "points", "points": 7}``."""
        key = "games" if self.kind is LengthKind.BEST_OF else "points"
        return {"kind": self.kind.value, key: self.count}

    @property
    def wins_needed(self) -> int:
        """Games a side must win in a best-of match."""
        return self.count // 2 + 1

    def describe(self) -> str:
        """``"best of 3 games"`` or ``"first to 7 game points"``."""
        if self.kind is LengthKind.BEST_OF:
            return "a single game" if self.count == 1 else f"best of {self.count} games"
        return f"first to {self.count} game points"


def _read_length(data: object) -> MatchLength:
    if data is None:
        return MatchLength(LengthKind.BEST_OF, 1)
    if not isinstance(data, Mapping):
        raise MatchError(f"length must be like {{'kind': 'best_of', 'games': 3}}, not {data!r}")
    kind = data.get("kind")
    if kind == LengthKind.BEST_OF.value:
        if set(data) != {"kind", "games"}:
            raise MatchError(f"a best-of length has exactly kind and games: {dict(data)!r}")
        games = as_whole(data["games"], "length games", 1, MAX_BEST_OF)
        if games % 2 == 0:
            raise MatchError(f"a best-of match needs an odd number of games, not {games}")
        return MatchLength(LengthKind.BEST_OF, games)
    if kind == LengthKind.POINTS.value:
        if set(data) != {"kind", "points"}:
            raise MatchError(f"a points length has exactly kind and points: {dict(data)!r}")
        return MatchLength(LengthKind.POINTS, as_whole(data["points"], "length points", 1, MAX_MATCH_POINTS))
    raise MatchError(f"length kind must be best_of or points, not {kind!r}")


@dataclass(frozen=True, slots=True)
class Settings:
    """A match's settings, fixed at creation."""

    players: tuple[str, ...]
    target: int
    rules: GameRules
    length: MatchLength
    muggins: bool
    first_dealer: int | None

    @property
    def partnerships(self) -> bool:
        """Four players play as two partnerships."""
        return len(self.players) == 4

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each side: partners opposite with four players, else one seat each."""
        if self.partnerships:
            return ((0, 2), (1, 3))
        return tuple((seat,) for seat in range(len(self.players)))

    def side_of(self, seat: int) -> int:
        """The side a seat plays for."""
        return seat % 2 if self.partnerships else seat

    def side_name(self, side: int) -> str:
        """``"Ann"``, or ``"Ann & Cat"`` for a partnership."""
        return " & ".join(self.players[seat] for seat in self.sides[side])

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Settings:
        """Read and validate settings; raise ``MatchError`` naming the first bad value."""
        if not isinstance(data, Mapping):
            raise MatchError(f"settings must be an object, not {data!r}")
        known = {"players", "partnerships", "target", "preset", "custom", "length", "muggins", "first_dealer"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise MatchError(f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(known))})")
        raw_players = data.get("players")
        if not isinstance(raw_players, list | tuple) or not 2 <= len(raw_players) <= 4:
            raise MatchError(f"players must be a list of 2, 3 or 4 names, not {raw_players!r}")
        players: list[str] = []
        for i, name in enumerate(raw_players, 1):
            if not isinstance(name, str) or not name.strip():
                raise MatchError(f"player {i} needs a name, not {name!r}")
            clean = " ".join(name.split())
            if len(clean) > MAX_NAME_LENGTH:
                raise MatchError(f"player {i}'s name is longer than {MAX_NAME_LENGTH} characters: {clean!r}")
            if clean.casefold() in (p.casefold() for p in players):
                raise MatchError(f"two players are called {clean!r}: give each a different name")
            players.append(clean)
        partnerships = data.get("partnerships", len(players) == 4)
        if not isinstance(partnerships, bool):
            raise MatchError(f"partnerships must be true or false, not {partnerships!r}")
        if partnerships != (len(players) == 4):
            raise MatchError(
                "four players play in two partnerships (partners opposite), and only four do: "
                f"got {len(players)} players with partnerships {str(partnerships).lower()}"
            )
        target = as_whole(data.get("target", 121), "target", min(TARGETS), max(TARGETS))
        if target not in TARGETS:
            raise MatchError(f"target must be 121 or 61 points, not {target!r}")
        name = data.get("preset", "home")
        custom = data.get("custom")
        if name == CUSTOM:
            if not isinstance(custom, Mapping):
                raise MatchError("custom rules need their values: custom = {'plain': 1, 'lines': [...]}")
            rules = GameRules.from_json(target, custom)
        elif name in PRESETS:
            if custom is not None:
                raise MatchError(f"custom values go with preset 'custom', not {name!r}")
            rules = preset(str(name), target)
        else:
            raise MatchError(f"unknown preset {name!r}: choose home, acc, lurch or custom")
        length = _read_length(data.get("length"))
        muggins = data.get("muggins", False)
        if not isinstance(muggins, bool):
            raise MatchError(f"muggins must be true or false, not {muggins!r}")
        first = data.get("first_dealer")
        first_dealer = None if first is None else as_whole(first, "first_dealer", 0, len(players) - 1)
        return cls(tuple(players), target, rules, length, muggins, first_dealer)

    def to_json(self) -> dict[str, object]:
        """The normalised settings dict (what ``new_match_settings`` returns)."""
        custom = None
        if self.rules.name == CUSTOM:
            custom = {"plain": self.rules.plain, "lines": [ln.to_json() for ln in self.rules.lines]}
        return {
            "players": list(self.players), "partnerships": self.partnerships, "target": self.target,
            "preset": self.rules.name, "custom": custom, "length": self.length.to_json(),
            "muggins": self.muggins, "first_dealer": self.first_dealer,
        }


def new_match_settings(
    players: Sequence[str],
    *,
    target: int = 121,
    preset: str = "home",
    custom: Mapping[str, object] | None = None,
    length: Mapping[str, object] | None = None,
    muggins: bool = False,
    first_dealer: int | None = None,
    partnerships: bool | None = None,
) -> dict[str, object]:
    """Validated, normalised settings for a new match (see the module docstring).

    >>> new_match_settings(["Ann", "Bob", "Cat", "Dan"], target=61)["partnerships"]
    True
    >>> new_match_settings(["Ann", "ann"])
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: two players are called 'ann': give each a different name
    """
    data: dict[str, object] = {
        "players": list(players), "target": target, "preset": preset, "custom": custom,
        "length": length, "muggins": muggins, "first_dealer": first_dealer,
    }
    if partnerships is not None:
        data["partnerships"] = partnerships
    return Settings.from_json(data).to_json()


# ------------------------------------------------------------------------------ state records


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of the log as the match read it.

    ``points`` is what the event gave each player (before the score stopped at the target),
    ``deltas`` the change to each side's score, ``unscored`` the points it could not peg
    because the game had been won. ``score`` is the itemized show count when the cards were
    entered, ``pegging`` the play's new awards. A voided entry keeps what it did when it was
    applied; ``voided_by`` names the undo.
    """

    seq: int
    event: Mapping[str, object]
    game: int
    hand: int
    player: int | None
    points: tuple[int, ...]
    deltas: tuple[int, ...]
    unscored: int
    text: str
    score: Score | None = None
    pegging: tuple[PegEvent, ...] = ()
    voided_by: int | None = None

    @property
    def type(self) -> str:
        """The event's type."""
        return str(self.event["type"])

    @property
    def voided(self) -> bool:
        """Whether a later ``void`` undid this event."""
        return self.voided_by is not None

    def to_json(self) -> dict[str, object]:
        """The API's JSON of one history line."""
        return {
            "seq": self.seq, "type": self.type, "event": dict(self.event), "game": self.game,
            "hand": self.hand, "player": self.player, "points": list(self.points),
            "deltas": list(self.deltas), "unscored": self.unscored, "text": self.text,
            "score": self.score.to_json() if self.score is not None else None,
            "pegging": [e.to_json() for e in self.pegging], "voided": self.voided,
            "voided_by": self.voided_by,
        }


@dataclass(frozen=True, slots=True)
class Miss:
    """Points a player under-claimed with muggins on, open to an opponent's claim."""

    seq: int
    player: int
    points: int
    game: int
    hand: int

    def to_json(self) -> dict[str, object]:
        """``{"seq": 7, "player": 1, "points": 2}``."""
        return {"seq": self.seq, "player": self.player, "points": self.points}


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A won game: its number, who dealt first, how many hands, the final scores and the result."""

    number: int
    first_dealer: int
    hands: int
    scores: tuple[int, ...]
    result: GameResult

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a finished game."""
        return {
            "number": self.number, "first_dealer": self.first_dealer, "hands": self.hands,
            "scores": list(self.scores), "result": self.result.to_json(),
        }


@dataclass(frozen=True, slots=True)
class MatchState:
    """The board after the log: what a screen shows and what the next event may be.

    ``scores`` and ``backs`` are per side (the front peg and the back peg, the score before
    the side's last move). ``counting_order`` lists the seats that count this hand, left of
    the dealer first and the dealer last; ``to_count`` is the next of them (None once the crib
    is due or outside the show). ``expected`` lists the event types accepted now.
    """

    phase: Phase
    game: int
    hand: int
    dealer: int | None
    counting_order: tuple[int, ...]
    counted: tuple[int, ...]
    to_count: int | None
    starter: str | None
    plays: tuple[tuple[int, str], ...]
    scores: tuple[int, ...]
    backs: tuple[int, ...]
    cutting: tuple[int, ...]
    expected: tuple[str, ...]
    prompt: str
    result: GameResult | None
    games: tuple[FinishedGame, ...]
    games_won: tuple[int, ...]
    game_points: tuple[int, ...]
    match_winner: int | None
    muggins_open: tuple[Miss, ...]

    @property
    def crib_owner(self) -> int | None:
        """The crib is the dealer's."""
        return self.dealer

    def to_json(self) -> dict[str, object]:
        """The API's JSON of the board."""
        return {
            "phase": self.phase.value, "game": self.game, "hand": self.hand, "dealer": self.dealer,
            "crib_owner": self.crib_owner, "counting_order": list(self.counting_order),
            "counted": list(self.counted), "to_count": self.to_count, "starter": self.starter,
            "plays": [[seat, card] for seat, card in self.plays], "scores": list(self.scores),
            "backs": list(self.backs), "cutting": list(self.cutting), "expected": list(self.expected),
            "prompt": self.prompt, "result": self.result.to_json() if self.result else None,
            "games": [g.to_json() for g in self.games], "games_won": list(self.games_won),
            "game_points": list(self.game_points), "match_winner": self.match_winner,
            "muggins_open": [m.to_json() for m in self.muggins_open],
        }


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's numbers over the match's effective (not voided) events.

    Hands and cribs count the points the player scored for them (a muggins under-claim
    scores the claim); pegging is per hand dealt in which anything was entered.
    """

    player: int
    name: str
    hands_counted: int
    hand_points: int
    highest_hand: int | None
    cribs_counted: int
    crib_points: int
    hands_played: int
    peg_points: int
    muggins_points: int
    games_won: int
    skunks_given: int
    skunks_received: int

    @property
    def average_hand(self) -> float | None:
        """Mean points per hand counted."""
        return self.hand_points / self.hands_counted if self.hands_counted else None

    @property
    def average_crib(self) -> float | None:
        """Mean points per crib counted."""
        return self.crib_points / self.cribs_counted if self.cribs_counted else None

    @property
    def average_pegging(self) -> float | None:
        """Mean points pegged in the play per hand played."""
        return self.peg_points / self.hands_played if self.hands_played else None

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a player's statistics."""
        return {
            "player": self.player, "name": self.name, "hands_counted": self.hands_counted,
            "hand_points": self.hand_points, "average_hand": self.average_hand,
            "highest_hand": self.highest_hand, "cribs_counted": self.cribs_counted,
            "crib_points": self.crib_points, "average_crib": self.average_crib,
            "hands_played": self.hands_played, "peg_points": self.peg_points,
            "average_pegging": self.average_pegging, "muggins_points": self.muggins_points,
            "games_won": self.games_won, "skunks_given": self.skunks_given,
            "skunks_received": self.skunks_received,
        }


# ------------------------------------------------------------------------------ event fields


def _seq_ref(event: Mapping[str, object], key: str, seq: int) -> int:
    """The earlier event named by ``event[key]``, for an event that will be number ``seq``."""
    if seq == 1:
        raise MatchError(f"{key}: there is no earlier event to name")
    return as_whole(event[key], f"{key} (an earlier event's number)", 1, seq - 1)


def _cards(value: object, count: int, what: str) -> list[Card]:
    if not isinstance(value, str | list):
        raise MatchError(f"{what} must be cards like '5H 5C 5S JD', not {value!r}")
    try:
        # parse_cards checks every token's type itself and names a bad one.
        return parse_cards(cast("str | list[str]", value), count, what)
    except ValueError as err:
        raise MatchError(f"{what}: {err}") from None


def _reason(event: Mapping[str, object], required: bool) -> str:
    value = event.get("reason")
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise MatchError("give a reason, like 'pegged twice'")
    if len(value) > MAX_REASON_LENGTH:
        raise MatchError(f"the reason is longer than {MAX_REASON_LENGTH} characters")
    return " ".join(value.split())


def _as_json(event: object) -> dict[str, object]:
    """A plain-JSON copy of ``event``, so the log holds exactly what a store can keep."""
    if not isinstance(event, Mapping):
        raise MatchError(f"an event must be an object with a type, not {event!r}")
    try:
        copy = json.loads(json.dumps(dict(event), allow_nan=False))
    except (TypeError, ValueError) as err:
        raise MatchError(f"an event must be plain JSON: {err}") from None
    except RecursionError:
        raise MatchError("an event must be plain JSON: it is nested too deeply") from None
    kind = copy.get("type")
    if kind not in EVENT_TYPES:
        raise MatchError(f"unknown event type {kind!r} (one of {', '.join(EVENT_TYPES)})")
    required, optional = _KEYS[kind]
    keys = set(copy) - {"type"}
    missing = sorted(required - keys)
    if missing:
        raise MatchError(f"a {kind} event needs {', '.join(missing)}")
    unknown = sorted(keys - required - optional)
    if unknown:
        allowed = ", ".join(sorted(required | optional)) or "nothing else"
        raise MatchError(f"a {kind} event takes {allowed}, not {unknown[0]!r}")
    return dict(copy)


# ----------------------------------------------------------------------------------- replay

_CRIB = "crib"
_STARTER = "starter"
_Owner = int | str
"""Who holds a card in a hand's deal: a seat, the crib or the starter."""

_AwardKey = tuple[int, str, str, int]
"""A play award as (play index, player label, kind, points), to tell new awards from old."""


@dataclass
class _Hand:
    """The hand being played: its dealer, the cards seen so far and who has counted."""

    number: int
    dealer: int
    first_dealer: int  # of this game: the next game's dealer is found from it
    order: tuple[int, ...]
    starter: Card | None = None
    plays: list[tuple[int, Card]] = field(default_factory=list)
    awarded: Counter[_AwardKey] = field(default_factory=Counter)
    owners: dict[Card, _Owner] = field(default_factory=dict)
    counted: list[int] = field(default_factory=list)
    pegged: dict[int, int] = field(default_factory=dict)
    events: int = 0

    def clone(self) -> _Hand:
        return replace(
            self, plays=list(self.plays), awarded=Counter(self.awarded), owners=dict(self.owners),
            counted=list(self.counted), pegged=dict(self.pegged),
        )


class _Engine:
    """The replay: applies one event at a time, refusing what cannot happen.

    ``Match`` clones the engine before applying a new event, so a refused event leaves the
    match as it was even though handlers change state as they go.
    """

    def __init__(self, settings: Settings) -> None:
        self.s = settings
        self.n = len(settings.players)
        sides = len(settings.sides)
        self.log: list[dict[str, object]] = []
        self.entries: list[Entry] = []
        self.voided: dict[int, int] = {}
        self.game = 1
        self.scores = [0] * sides
        self.backs = [0] * sides
        self.games: list[FinishedGame] = []
        self.game_points = [0] * sides
        self.games_won = [0] * sides
        self.match_winner: int | None = None
        self.result: GameResult | None = None
        # Open misses by (event, seat); every miss this replay made; the ones claimed.
        self.misses: dict[tuple[int, int], Miss] = {}
        self.made_misses: set[tuple[int, int]] = set()
        self.claimed: set[tuple[int, int]] = set()
        self.cutting: tuple[int, ...] = ()
        self.hand: _Hand | None = None  # None only while cutting for the first deal
        self.hand_number = 1
        self.phase = Phase.CUT
        if settings.first_dealer is None:
            self.cutting = tuple(range(self.n))
        else:
            self._deal(1, settings.first_dealer, settings.first_dealer)
        # Per-event accumulators, reset by apply().
        self._points = [0] * self.n
        self._deltas = [0] * sides
        self._unscored = 0

    def clone(self) -> _Engine:
        twin = _Engine.__new__(_Engine)
        twin.__dict__.update(self.__dict__)
        for name in ("log", "entries", "scores", "backs", "games", "game_points", "games_won"):
            setattr(twin, name, list(getattr(self, name)))
        twin.voided = dict(self.voided)
        twin.misses = dict(self.misses)
        twin.made_misses = set(self.made_misses)
        twin.claimed = set(self.claimed)
        twin.hand = self.hand.clone() if self.hand is not None else None
        return twin

    # -- names ----------------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.s.players[seat]

    def side_name(self, side: int) -> str:
        return self.s.side_name(side)

    def _result_words(self, result: GameResult) -> str:
        words = f"{self.side_name(result.winner)} won {result.winner_score}–{result.loser_score}"
        return words if result.skunk is SkunkKind.PLAIN else f"{words} ({result.skunk.label})"

    def _match_words(self) -> str:
        side = self.match_winner
        if side is None:
            return ""
        if self.s.length.kind is LengthKind.BEST_OF:
            others = max(w for i, w in enumerate(self.games_won) if i != side)
            return f"{self.side_name(side)} won the match {self.games_won[side]}–{others} in games"
        others = max(p for i, p in enumerate(self.game_points) if i != side)
        return f"{self.side_name(side)} won the match {self.game_points[side]}–{others} in game points"

    # -- applying ---------------------------------------------------------------------------

    def apply(self, event: dict[str, object]) -> None:
        """Apply one event (already a plain-JSON dict with a known type and keys)."""
        seq = len(self.log) + 1
        self._points = [0] * self.n
        self._deltas = [0] * len(self.scores)
        self._unscored = 0
        before = list(self.scores)
        handler = getattr(self, "_on_" + str(event["type"]))
        entry: Entry = handler(seq, event)
        for side, delta in enumerate(self._deltas):
            if delta:
                self.backs[side] = before[side]
        self.log.append(event)
        self.entries.append(entry)

    def _entry(
        self, seq: int, event: dict[str, object], text: str, player: int | None = None,
        score: Score | None = None, pegging: tuple[PegEvent, ...] = (),
    ) -> Entry:
        if self._unscored:
            text += f" ({self._unscored} not scored: the game was already won)"
        over = self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
        if self.result is not None and any(self._deltas) and over:
            text += f"; game over: {self._result_words(self.result)}"
            if self.match_winner is not None:
                text += f"; {self._match_words()}"
        return Entry(
            seq, event, self.game, self.hand_number, player, tuple(self._points), tuple(self._deltas),
            self._unscored, text, score, pegging,
        )

    def _seat(self, value: object, what: str = "player") -> int:
        return as_whole(value, f"{what} (a seat)", 0, self.n - 1)

    def _dealt(self) -> _Hand:
        """The current (or last) hand; refuse while cutting for the first deal."""
        if self.hand is None:
            who = " and ".join(self.name(s) for s in self.cutting)
            raise MatchError(f"cut for the first deal first ({who} to cut)")
        return self.hand

    def _in_hand(self) -> _Hand:
        """The hand in progress; refuse scoring before the first deal or once the game is won."""
        hand = self._dealt()
        if self.phase is Phase.MATCH_OVER:
            raise MatchError(f"the match is over: {self._match_words()}")
        if self.phase is Phase.GAME_OVER and self.result is not None:
            raise MatchError(f"the game is over: {self._result_words(self.result)}; start the next game")
        return hand

    def _touch(self, hand: _Hand) -> None:
        """Count an event in ``hand``; the first one closes the previous hand's muggins window."""
        if hand.events == 0:
            self.misses = {k: m for k, m in self.misses.items() if m.hand == hand.number}
        hand.events += 1

    def _peg(self, seat: int, points: int) -> None:
        """Peg ``points`` that ``seat`` scored for its side."""
        self._credit(self.s.side_of(seat), points, seat)

    def _credit(self, side: int, points: int, seat: int | None = None) -> None:
        """Move ``side``'s peg (``seat`` scored the points, if a player did); win at the target.

        Once the game is won, points are not pegged: they count as unscored.
        """
        if self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            self._unscored += max(points, 0)
            return
        new = min(self.s.target, self.scores[side] + points)
        gained = new - self.scores[side]
        self.scores[side] = new
        self._deltas[side] += gained
        if seat is not None:
            self._points[seat] += points
        self._unscored += points - gained
        if new >= self.s.target:
            self._win(side)

    def _win(self, side: int) -> None:
        hand = self._dealt()
        loser = max(score for i, score in enumerate(self.scores) if i != side)
        result = judge(side, loser, self.s.rules)
        self.games.append(FinishedGame(self.game, hand.first_dealer, hand.number, tuple(self.scores), result))
        self.result = result
        self.game_points[side] += result.game_points
        self.games_won[side] += 1
        self.misses.clear()
        length = self.s.length
        if length.kind is LengthKind.BEST_OF:
            decided = self.games_won[side] >= length.wins_needed
        else:
            decided = self.game_points[side] >= length.count
        if decided:
            self.match_winner = side
            self.phase = Phase.MATCH_OVER
        else:
            self.phase = Phase.GAME_OVER

    def _deal(self, number: int, dealer: int, first_dealer: int) -> None:
        order = tuple((dealer + k) % self.n for k in range(1, self.n + 1))
        self.hand = _Hand(number, dealer, first_dealer, order)
        self.hand_number = number
        self.phase = Phase.STARTER

    def _own(self, hand: _Hand, card: Card, owner: _Owner) -> None:
        """Record who holds ``card`` in this deal; refuse a card seen elsewhere."""
        held = hand.owners.get(card)
        if held is not None and held != owner:
            raise MatchError(
                f"{card} appears twice in hand {hand.number}'s deal: "
                f"{self._owner_words(owner)} and {self._owner_words(held)}"
            )
        hand.owners[card] = owner

    def _owner_words(self, owner: _Owner) -> str:
        if owner == _CRIB:
            return "the crib"
        if owner == _STARTER:
            return "the starter"
        return f"{self.name(int(owner))}'s hand"

    # -- the cut -------------------------------------------------------------------------

    def _on_cut(self, seq: int, event: dict[str, object]) -> Entry:
        if self.phase is not Phase.CUT:
            if self.s.first_dealer is not None:
                raise MatchError(f"no cut: {self.name(self.s.first_dealer)} was chosen to deal first")
            raise MatchError("the first dealer is already decided")
        raw = event["cards"]
        if not isinstance(raw, list) or len(raw) != self.n:
            raise MatchError(f"a cut gives one card per seat ({self.n}), null for a player not cutting")
        cut: dict[int, Card] = {}
        for seat, token in enumerate(raw):
            if seat in self.cutting:
                if token is None:
                    raise MatchError(f"{self.name(seat)} must cut")
                card = _cards([token], 1, f"{self.name(seat)}'s cut")[0]
                for other, seen in cut.items():
                    if seen == card:
                        raise MatchError(f"{card} is cut by both {self.name(other)} and {self.name(seat)}")
                cut[seat] = card
            elif token is not None:
                raise MatchError(
                    f"only {' and '.join(self.name(s) for s in self.cutting)} cut again; "
                    f"{self.name(seat)}'s card must be null"
                )
        low = min(card.rank for card in cut.values())
        tied = tuple(seat for seat, card in cut.items() if card.rank == low)
        shown = ", ".join(f"{self.name(seat)} {card}" for seat, card in cut.items())
        if len(tied) > 1:
            self.cutting = tied
            who = " and ".join(self.name(s) for s in tied)
            return self._entry(seq, event, f"cut for deal: {shown}; {who} tie low and cut again")
        self.cutting = ()
        self._deal(1, tied[0], tied[0])
        return self._entry(seq, event, f"cut for deal: {shown}; {self.name(tied[0])} deals")

    # -- a hand ------------------------------------------------------------------------------

    def _on_starter(self, seq: int, event: dict[str, object]) -> Entry:
        hand = self._in_hand()
        if self.phase is not Phase.STARTER:
            turned = f" ({hand.starter})" if hand.starter else ""
            raise MatchError(f"hand {hand.number}'s starter was already turned{turned} or the play has begun")
        heels_flag = event.get("heels", False)
        if not isinstance(heels_flag, bool):
            raise MatchError(f"heels must be true or false, not {heels_flag!r}")
        raw = event["card"]
        self._touch(hand)
        self.phase = Phase.PLAY
        dealer = self.name(hand.dealer)
        if raw is None:
            text = f"hand {hand.number}: starter not entered"
            if heels_flag:
                self._peg(hand.dealer, _HEELS_POINTS)
                text += f"; his heels, {_HEELS_POINTS} for {dealer}"
            return self._entry(seq, event, text, hand.dealer if heels_flag else None)
        if heels_flag:
            raise MatchError("heels comes from the card: give heels only when the starter is not entered")
        card = _cards([raw], 1, "the starter")[0]
        self._own(hand, card, _STARTER)
        hand.starter = card
        if card.rank is Rank.JACK:
            self._peg(hand.dealer, _HEELS_POINTS)
            return self._entry(
                seq, event, f"hand {hand.number} starter {card}: his heels, {_HEELS_POINTS} for {dealer}",
                hand.dealer,
            )
        return self._entry(seq, event, f"hand {hand.number} starter {card}")

    def _on_peg(self, seq: int, event: dict[str, object]) -> Entry:
        hand = self._in_hand()
        if self.phase in (Phase.SHOW, Phase.CRIB):
            raise MatchError(f"the play of hand {hand.number} is over: the show has begun")
        if ("points" in event) == ("plays" in event):
            raise MatchError("a peg event gives either points (with player) or plays")
        if "plays" in event:
            if "player" in event:
                raise MatchError("plays name their players; leave out player")
            return self._peg_plays(seq, event, hand)
        if "claimed" in event:
            raise MatchError("claimed goes with plays, which the companion counts")
        if "player" not in event:
            raise MatchError("say who pegs: player")
        seat = self._seat(event["player"])
        left = MAX_PLAY_POINTS - hand.pegged.get(seat, 0)
        points = as_whole(event["points"], "points pegged", 1, MAX_PLAY_POINTS)
        if points > left:
            raise MatchError(
                f"{self.name(seat)} cannot peg {points} more in one hand's play "
                f"(already {hand.pegged.get(seat, 0)}, at most {MAX_PLAY_POINTS})"
            )
        self._touch(hand)
        self.phase = Phase.PLAY
        hand.pegged[seat] = hand.pegged.get(seat, 0) + points
        self._peg(seat, points)
        return self._entry(seq, event, f"{self.name(seat)} pegs {points}", seat)

    def _read_plays(self, raw: object) -> list[tuple[int, Card]]:
        if isinstance(raw, str):
            try:
                pairs = parse_plays(raw)
            except ValueError as err:
                raise MatchError(f"plays: {err}") from None
            return [(self._seat_by_label(label, i), card) for i, (label, card) in enumerate(pairs, 1)]
        if not isinstance(raw, list) or not raw:
            raise MatchError(
                f"plays must be text like 'Ann:5H Bob:TS' or a list of [seat, card], not {raw!r}"
            )
        out: list[tuple[int, Card]] = []
        for i, item in enumerate(raw, 1):
            if not isinstance(item, list) or len(item) != 2:
                raise MatchError(f"play {i} must be [seat, card], not {item!r}")
            who, token = item
            if isinstance(who, str):
                seat = self._seat_by_label(who, i)
            else:
                seat = self._seat(who, f"play {i}'s player")
            card = _cards([token], 1, f"play {i}'s card")[0]
            if any(card == c for _, c in out):
                raise MatchError(f"plays: {card} is played twice")
            out.append((seat, card))
        return out

    def _seat_by_label(self, label: str, position: int) -> int:
        for seat, name in enumerate(self.s.players):
            if name.casefold() == label.casefold():
                return seat
        letter = label.upper()
        if len(letter) == 1 and letter in SEAT_LETTERS[: self.n]:
            return SEAT_LETTERS.index(letter)
        names = ", ".join(self.s.players)
        raise MatchError(
            f"play {position}: no player {label!r} (use a name: {names}, or a seat letter "
            f"{' '.join(SEAT_LETTERS[: self.n])})"
        )

    def _peg_plays(self, seq: int, event: dict[str, object], hand: _Hand) -> Entry:
        new = self._read_plays(event["plays"])
        if not new:
            raise MatchError("plays: no cards")
        total = HAND_SIZE * self.n
        if len(hand.plays) + len(new) > total:
            raise MatchError(
                f"the play has {total} cards and {len(hand.plays)} are in; {len(new)} more is too many"
            )
        if not hand.plays and new[0][0] != hand.order[0]:
            raise MatchError(
                f"{self.name(hand.order[0])} leads the play (the player on the dealer's left), "
                f"not {self.name(new[0][0])}"
            )
        for seat, card in new:
            if any(card == played for _, played in hand.plays):
                raise MatchError(f"{card} was already played in hand {hand.number}")
            self._own(hand, card, seat)
            held = sum(1 for owner in hand.owners.values() if owner == seat)
            if held > HAND_SIZE:
                raise MatchError(f"{self.name(seat)} has only {HAND_SIZE} cards to play")
        claims = self._read_claims(event.get("claimed"))
        everything = hand.plays + new
        try:
            pegging = score_pegging(
                [(str(seat), card) for seat, card in everything], complete=len(everything) == total
            )
        except ValueError as err:
            raise MatchError(f"plays: {err}") from None
        earlier = Counter(hand.awarded)
        fresh: list[PegEvent] = []
        for award in pegging.events:
            key = (award.index, award.player, award.kind.value, award.points)
            if earlier[key]:
                earlier[key] -= 1
            else:
                fresh.append(award)
        true = dict.fromkeys(range(self.n), 0)
        for award in fresh:
            true[int(award.player)] += award.points
        allowance = dict(true)
        for seat, claim in claims.items():
            if claim > true[seat]:
                items = ", ".join(
                    f"{a.kind.value} {a.points}" for a in fresh if int(a.player) == seat
                ) or "nothing"
                raise MatchError(
                    f"{self.name(seat)} claims {claim} but these plays peg {true[seat]} for them: {items}"
                )
            if self.s.muggins:
                allowance[seat] = claim
        self._touch(hand)
        self.phase = Phase.PLAY
        hand.plays.extend(new)
        hand.awarded.update((a.index, a.player, a.kind.value, a.points) for a in fresh)
        for award in fresh:
            seat = int(award.player)
            pts = min(award.points, allowance[seat])
            allowance[seat] -= pts
            if pts:
                self._peg(seat, pts)
        for seat, claim in claims.items():
            if self.s.muggins and claim < true[seat] and self.phase is Phase.PLAY:
                self._miss(Miss(seq, seat, true[seat] - claim, self.game, hand.number))
        for seat in range(self.n):
            hand.pegged[seat] = hand.pegged.get(seat, 0) + true[seat]
        shown = " ".join(f"{self.name(seat)}:{card}" for seat, card in new)
        pegged = ", ".join(f"{self.name(s)} {self._points[s]}" for s in range(self.n) if self._points[s])
        text = f"the play: {shown}" + (f"; {pegged}" if pegged else "; nothing pegged")
        text += self._claim_notes(claims, true)
        renamed = tuple(replace(a, player=self.name(int(a.player))) for a in fresh)
        return self._entry(seq, event, text, None, pegging=renamed)

    def _miss(self, miss: Miss) -> None:
        self.misses[(miss.seq, miss.player)] = miss
        self.made_misses.add((miss.seq, miss.player))

    def _read_claims(self, raw: object) -> dict[int, int]:
        if raw is None:
            return {}
        if not isinstance(raw, list) or len(raw) != self.n:
            raise MatchError(f"claimed must list one entry per seat ({self.n}), null where no claim")
        return {
            seat: as_whole(value, f"{self.name(seat)}'s claim", 0, MAX_PLAY_POINTS)
            for seat, value in enumerate(raw) if value is not None
        }

    def _claim_notes(self, claims: Mapping[int, int], true: Mapping[int, int]) -> str:
        notes = []
        for seat, claim in claims.items():
            if claim < true[seat]:
                if self.s.muggins:
                    notes.append(f"{self.name(seat)} claimed {claim}: {true[seat] - claim} open to muggins")
                else:
                    notes.append(f"{self.name(seat)} claimed {claim}, corrected to {true[seat]}")
        return "".join(f"; {note}" for note in notes)

    def _show_points(self, event: dict[str, object], kind: str) -> int:
        if "claimed" in event:
            raise MatchError("claimed goes with the cards: a number is taken as said")
        points = as_whole(event["points"], f"{kind} points", 0, MAX_SHOW_POINTS)
        if points in IMPOSSIBLE_SHOW_POINTS:
            raise MatchError(f"no {kind} can score {points} (19, 25, 26 and 27 are impossible)")
        return points

    def _count_cards(
        self, event: dict[str, object], hand: _Hand, owner: _Owner, what: str
    ) -> tuple[list[Card], Score, int | None]:
        if hand.starter is None:
            raise MatchError(
                f"hand {hand.number}'s starter was not entered: count {what} as points, "
                "or undo back to the starter"
            )
        cards = _cards(event["hand"], HAND_SIZE, f"{what} cards (the starter goes separately)")
        for card in cards:
            self._own(hand, card, owner)
        if isinstance(owner, int):
            missing = [c for c, o in hand.owners.items() if o == owner and c not in cards]
            if missing:
                raise MatchError(
                    f"{self.name(owner)} played {' '.join(map(str, missing))} in hand {hand.number}, "
                    f"but {what} entered does not hold it"
                )
        score = score_show(cards, hand.starter, crib=owner == _CRIB)
        raw = event.get("claimed")
        claim = None if raw is None else as_whole(raw, "claimed", 0, MAX_SHOW_POINTS)
        if claim is not None and claim > score.total:
            raise MatchError(
                f"{what} claims {claim} but {' '.join(map(str, cards))} with {hand.starter} counts "
                f"{score.total}: {score.spoken()}"
            )
        return cards, score, claim

    def _on_show(self, seq: int, event: dict[str, object]) -> Entry:
        hand = self._in_hand()
        seat = self._seat(event["player"])
        if self.phase is Phase.CRIB:
            raise MatchError(f"every hand of hand {hand.number} is counted: the crib is next")
        who = self.name(seat)
        due = hand.order[len(hand.counted)]
        if seat in hand.counted:
            raise MatchError(f"{who} already counted this hand; {self.name(due)} counts next")
        if seat != due:
            raise MatchError(
                f"{self.name(due)} counts next: the player on the dealer's left counts first, "
                "the dealer last"
            )
        return self._count(seq, event, hand, seat, f"{who}'s hand")

    def _on_crib(self, seq: int, event: dict[str, object]) -> Entry:
        hand = self._in_hand()
        if "player" in event and self._seat(event["player"]) != hand.dealer:
            raise MatchError(f"the crib is {self.name(hand.dealer)}'s: the dealer counts it")
        if self.phase is not Phase.CRIB:
            due = hand.order[len(hand.counted)]
            raise MatchError(f"the crib is counted after every hand: {self.name(due)} counts next")
        return self._count(seq, event, hand, None, f"{self.name(hand.dealer)}'s crib")

    def _count(self, seq: int, event: dict[str, object], hand: _Hand, seat: int | None, what: str) -> Entry:
        """Score a hand (``seat``) or the crib (``seat`` None) and move the hand on."""
        if ("hand" in event) == ("points" in event):
            raise MatchError(f"{what} gives either hand (the cards) or points")
        score: Score | None = None
        claim: int | None = None
        cards: list[Card] = []
        if "hand" in event:
            cards, score, claim = self._count_cards(event, hand, _CRIB if seat is None else seat, what)
            true = score.total
        else:
            true = self._show_points(event, "crib" if seat is None else "hand")
        counter = hand.dealer if seat is None else seat
        pegs = true if claim is None or not self.s.muggins else claim
        self._touch(hand)
        if seat is not None:
            hand.counted.append(seat)
            self.phase = Phase.SHOW if len(hand.counted) < self.n else Phase.CRIB
        self._peg(counter, pegs)
        text = f"{what}: {true}"
        if score is not None:
            shown = " ".join(map(str, cards))
            text = f"{what} {shown} with {hand.starter}: {true} ({score.spoken()})"
        if claim is not None and claim < true:
            if self.s.muggins:
                text += f"; claimed {claim}: {true - claim} open to muggins"
                if self.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
                    self._miss(Miss(seq, counter, true - claim, self.game, hand.number))
            else:
                text += f"; claimed {claim}, corrected to {true}"
        entry = self._entry(seq, event, text, counter, score=score)
        if seat is None and self.phase is Phase.CRIB:
            self._deal(hand.number + 1, (hand.dealer + 1) % self.n, hand.first_dealer)
        return entry

    # -- muggins, corrections, undo, next game ---------------------------------------------

    def _on_muggins(self, seq: int, event: dict[str, object]) -> Entry:
        if not self.s.muggins:
            raise MatchError("muggins is off in this match: a wrong claim is simply corrected")
        self._in_hand()
        claimant = self._seat(event["player"])
        target = _seq_ref(event, "seq", seq)
        points = as_whole(event["points"], "points claimed", 1, MAX_PLAY_POINTS)
        victim = None if "from" not in event else self._seat(event["from"], "from")
        side = self.s.side_of(claimant)
        open_here = [m for (s, _), m in self.misses.items() if s == target]
        if victim is not None:
            open_here = [m for m in open_here if m.player == victim]
        if not open_here:
            raise MatchError(self._why_no_miss(target, victim))
        opposing = [m for m in open_here if self.s.side_of(m.player) != side]
        if not opposing:
            raise MatchError(f"{self.name(claimant)} cannot claim their own side's points")
        if len(opposing) > 1:
            raise MatchError(f"#{target} has several under-claims: say whose with from")
        miss = opposing[0]
        award = min(points, miss.points)
        del self.misses[(miss.seq, miss.player)]
        self.claimed.add((miss.seq, miss.player))
        self._peg(claimant, award)
        text = f"muggins! {self.name(claimant)} takes {award} {self.name(miss.player)} missed in #{target}"
        if award < points:
            text += f" (claimed {points}; only {miss.points} was missed)"
        return self._entry(seq, event, text, claimant)

    def _why_no_miss(self, target: int, victim: int | None) -> str:
        """Why event ``target`` has no open miss (of ``victim``) to claim."""
        entry = self.entries[target - 1]
        if entry.voided or entry.type == "void":
            return f"#{target} was undone" if entry.voided else f"#{target} is an undo"
        if entry.type not in ("peg", "show", "crib") or "claimed" not in entry.event:
            return f"#{target} has no claimed total to challenge (muggins needs the cards and a claim)"
        made = {k for k in self.made_misses if k[0] == target and (victim is None or k[1] == victim)}
        if not made:
            who = f" by {self.name(victim)}" if victim is not None else ""
            return f"nothing was missed{who} in #{target}: the claim was the full count"
        if made <= self.claimed:
            return f"the points missed in #{target} were already claimed"
        return f"too late to claim #{target}: muggins is called in that hand, before the next one begins"

    def _on_correction(self, seq: int, event: dict[str, object]) -> Entry:
        hand = self._in_hand()
        if ("player" in event) == ("side" in event):
            raise MatchError("a correction names either a player or a side")
        reason = _reason(event, required=True)
        seat: int | None = None
        if "player" in event:
            seat = self._seat(event["player"])
            side = self.s.side_of(seat)
        else:
            side = as_whole(event["side"], f"side (0 to {len(self.scores) - 1})", 0, len(self.scores) - 1)
        points = as_whole(event["points"], "correction points", -self.s.target, self.s.target)
        if points == 0:
            raise MatchError("a correction of 0 changes nothing")
        if self.scores[side] + points < 0:
            raise MatchError(
                f"{self.side_name(side)} has {self.scores[side]}: a correction of {points} goes below 0"
            )
        self._touch(hand)
        self._credit(side, points, seat)
        who = self.name(seat) if seat is not None else self.side_name(side)
        return self._entry(seq, event, f"correction: {who} {points:+d} ({reason})", seat)

    def _on_next_game(self, seq: int, event: dict[str, object]) -> Entry:
        if self.phase is Phase.MATCH_OVER:
            raise MatchError(f"the match is over: {self._match_words()}")
        if self.phase is not Phase.GAME_OVER or self.result is None:
            raise MatchError(f"game {self.game} is still being played")
        previous = self._dealt().first_dealer
        losers = [i for i in range(len(self.scores)) if i != self.result.winner]
        low = min(self.scores[i] for i in losers)
        last = {i for i in losers if self.scores[i] == low}
        # The losing seat first to the left of the previous first dealer: with two players the
        # loser, with three the lowest score, with partners the loser side's next player.
        seats = [(previous + k) % self.n for k in range(1, self.n + 1)]
        dealer = next(seat for seat in seats if self.s.side_of(seat) in last)
        self.game += 1
        self.scores = [0] * len(self.scores)
        self.backs = [0] * len(self.scores)
        self.result = None
        self.misses.clear()
        self._deal(1, dealer, dealer)
        return self._entry(seq, event, f"game {self.game}: {self.name(dealer)} deals first")

    def _on_void(self, seq: int, event: dict[str, object]) -> Entry:
        target = _seq_ref(event, "seq", seq)
        reason = _reason(event, required=False)
        old = self.entries[target - 1]
        if old.type == "void":
            raise MatchError(f"#{target} is an undo; to restore #{old.event['seq']}, enter it again")
        if old.voided:
            raise MatchError(f"#{target} was already undone by #{old.voided_by}")
        voided = {**self.voided, target: seq}
        fresh = _Engine(self.s)
        for k, (logged, entry) in enumerate(zip(self.log, self.entries, strict=True), 1):
            if logged["type"] == "void" or k in voided:
                fresh.log.append(logged)
                fresh.entries.append(replace(entry, voided_by=voided.get(k)))
                continue
            try:
                fresh.apply(logged)
            except MatchError as err:
                raise MatchError(
                    f"undoing #{target} would leave #{k} ({entry.text}) impossible: {err}; undo #{k} first"
                ) from None
        fresh.voided = voided
        self.__dict__.update(fresh.__dict__)
        # The replay's last event left its accumulators behind; the undo itself pegs nothing.
        self._points = [0] * self.n
        self._deltas = [0] * len(self.scores)
        self._unscored = 0
        text = f"undo #{target}: {old.text}" + (f" ({reason})" if reason else "")
        return self._entry(seq, event, text)

    # -- the board -------------------------------------------------------------------------

    def _expected(self) -> tuple[str, ...]:
        undo = ("void",) if any(not e.voided and e.type != "void" for e in self.entries) else ()
        claims = ("muggins",) if self._open_misses() else ()
        by_phase: dict[Phase, tuple[str, ...]] = {
            Phase.CUT: ("cut",),
            Phase.STARTER: ("starter", "peg", "show", "correction"),
            Phase.PLAY: ("peg", "show", "correction"),
            Phase.SHOW: ("show", "correction"),
            Phase.CRIB: ("crib", "correction"),
            Phase.GAME_OVER: ("next_game",),
            Phase.MATCH_OVER: (),
        }
        return by_phase[self.phase] + claims + undo

    def _open_misses(self) -> tuple[Miss, ...]:
        hand = self.hand
        if hand is None or self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            return ()
        return tuple(
            m for m in self.misses.values()
            if m.hand == hand.number or (m.hand == hand.number - 1 and hand.events == 0)
        )

    def _prompt(self) -> str:
        if self.phase is Phase.CUT:
            return "cut for the first deal: " + ", ".join(self.name(s) for s in self.cutting)
        if self.phase is Phase.MATCH_OVER:
            return self._match_words()
        if self.phase is Phase.GAME_OVER and self.result is not None:
            return f"{self._result_words(self.result)}: start the next game"
        hand = self._dealt()
        where = f"game {self.game}, hand {hand.number}: "
        if self.phase is Phase.STARTER:
            return where + f"{self.name(hand.dealer)} deals; turn the starter"
        if self.phase is Phase.PLAY:
            if hand.plays:
                return where + f"the play, {len(hand.plays)} of {HAND_SIZE * self.n} cards played"
            return where + f"the play, {self.name(hand.order[0])} leads"
        if self.phase is Phase.SHOW:
            return where + f"{self.name(hand.order[len(hand.counted)])} to count"
        return where + f"{self.name(hand.dealer)} to count the crib"

    def state(self) -> MatchState:
        hand = self.hand
        showing = hand is not None and self.phase in (Phase.STARTER, Phase.PLAY, Phase.SHOW)
        return MatchState(
            phase=self.phase,
            game=self.game,
            hand=self.hand_number,
            dealer=hand.dealer if hand is not None else None,
            counting_order=hand.order if hand is not None else (),
            counted=tuple(hand.counted) if hand is not None else (),
            to_count=hand.order[len(hand.counted)] if hand is not None and showing else None,
            starter=str(hand.starter) if hand is not None and hand.starter else None,
            plays=tuple((seat, str(card)) for seat, card in hand.plays) if hand is not None else (),
            scores=tuple(self.scores),
            backs=tuple(self.backs),
            cutting=self.cutting,
            expected=self._expected(),
            prompt=self._prompt(),
            result=self.result,
            games=tuple(self.games),
            games_won=tuple(self.games_won),
            game_points=tuple(self.game_points),
            match_winner=self.match_winner,
            muggins_open=self._open_misses(),
        )


# ------------------------------------------------------------------------------------ match


class Match:
    """A match replayed from its settings and events; immutable: ``apply`` returns a new one.

    Raise ``MatchError`` naming the first event (by sequence number) that cannot be applied.
    """

    __slots__ = ("settings", "_engine")

    settings: Settings
    _engine: _Engine

    def __init__(
        self, settings: Settings | Mapping[str, object], events: Iterable[Mapping[str, object]] = ()
    ) -> None:
        self.settings = settings if isinstance(settings, Settings) else Settings.from_json(settings)
        self._engine = _Engine(self.settings)
        for seq, event in enumerate(events, 1):
            try:
                self._engine.apply(_as_json(event))
            except MatchError as err:
                kind = event.get("type") if isinstance(event, Mapping) else None
                raise MatchError(f"event #{seq} ({kind}): {err}") from None

    @classmethod
    def replay(
        cls, settings: Settings | Mapping[str, object], events: Iterable[Mapping[str, object]]
    ) -> Match:
        """Same as ``Match(settings, events)``."""
        return cls(settings, events)

    def apply(self, event: Mapping[str, object]) -> Match:
        """A new match with ``event`` appended; raise ``MatchError`` (and change nothing) if refused."""
        engine = self._engine.clone()
        engine.apply(_as_json(event))
        twin = Match.__new__(Match)
        twin.settings = self.settings
        twin._engine = engine
        return twin

    def check(self, event: Mapping[str, object]) -> None:
        """Raise ``MatchError`` if ``event`` cannot be appended now; change nothing."""
        self.apply(event)

    @property
    def events(self) -> tuple[Mapping[str, object], ...]:
        """The log: every event as appended (plain JSON), voids and voided ones included."""
        return tuple(self._engine.log)

    @property
    def next_seq(self) -> int:
        """The sequence number the next event will get."""
        return len(self._engine.log) + 1

    @property
    def state(self) -> MatchState:
        """The board after the whole log."""
        return self._engine.state()

    @property
    def history(self) -> tuple[Entry, ...]:
        """Every event with its effect, in log order (index ``seq - 1``)."""
        return tuple(self._engine.entries)

    def side_name(self, side: int) -> str:
        """``"Ann"``, or ``"Ann & Cat"`` for a partnership."""
        return self.settings.side_name(side)

    def stats(self) -> tuple[PlayerStats, ...]:
        """Per-player statistics from the effective events and the finished games."""
        s = self.settings
        n = len(s.players)
        hands = [0] * n
        hand_points = [0] * n
        highest: list[int | None] = [None] * n
        cribs = [0] * n
        crib_points = [0] * n
        pegged = [0] * n
        muggins = [0] * n
        played: set[tuple[int, int]] = set()
        for e in self._engine.entries:
            if e.voided or e.type in ("void", "cut", "next_game"):
                continue
            if e.type != "muggins":
                played.add((e.game, e.hand))
            if e.type == "show" and e.player is not None:
                p = e.points[e.player]
                hands[e.player] += 1
                hand_points[e.player] += p
                top = highest[e.player]
                highest[e.player] = p if top is None else max(top, p)
            elif e.type == "crib" and e.player is not None:
                cribs[e.player] += 1
                crib_points[e.player] += e.points[e.player]
            elif e.type == "peg":
                for seat in range(n):
                    pegged[seat] += e.points[seat]
            elif e.type == "muggins" and e.player is not None:
                muggins[e.player] += e.points[e.player]
        games = self._engine.games
        out = []
        for seat in range(n):
            side = s.side_of(seat)
            won = sum(1 for g in games if g.result.winner == side)
            skunks = [g.result for g in games if g.result.skunk is not SkunkKind.PLAIN]
            given = sum(1 for r in skunks if r.winner == side)
            received = len(skunks) - given
            out.append(PlayerStats(
                seat, s.players[seat], hands[seat], hand_points[seat], highest[seat], cribs[seat],
                crib_points[seat], len(played), pegged[seat], muggins[seat], won, given, received,
            ))
        return tuple(out)

    def to_json(self) -> dict[str, object]:
        """Everything the API serves: settings, board, history and statistics."""
        return {
            "settings": self.settings.to_json(),
            "sides": [self.side_name(i) for i in range(len(self.settings.sides))],
            "next_seq": self.next_seq,
            "state": self.state.to_json(),
            "history": [e.to_json() for e in self.history],
            "stats": [p.to_json() for p in self.stats()],
        }
