"""A match's settings: players, target, skunk rules, length, muggins, first dealer.

``new_match_settings`` validates and normalises them into the JSON dict a store keeps;
``Settings.from_json`` reads it back (the package docstring lists the keys).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from scorer.errors import MatchError
from scorer.i18n import _, digits, ngettext
from scorer.rules import CUSTOM, NAMED_PRESETS, TARGETS, GameRules, ThreePlayerSkunk, as_whole, preset

__all__ = ["LengthKind", "MatchLength", "Settings", "new_match_settings", "new_settings_json",
           "check_new_names", "MAX_NAME_LENGTH", "MAX_BEST_OF", "MAX_MATCH_POINTS"]

MAX_NAME_LENGTH = 30
"""Longest player name in characters: fits a phone's score line."""
MAX_BEST_OF = 99
"""Most games in a best-of match: a guard against typos."""
MAX_MATCH_POINTS = 999
"""Most game points a points match may run to: a guard against typos."""


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
            if self.count == 1:
                return _("a single game")
            return ngettext("best of %(num)s game", "best of %(num)s games", self.count)
        return ngettext("first to %(num)s game point", "first to %(num)s game points", self.count)


def _read_length(data: object) -> MatchLength:
    if data is None:
        return MatchLength(LengthKind.BEST_OF, 1)
    if not isinstance(data, Mapping):
        raise MatchError(_("length must be like {'kind': 'best_of', 'games': 3}, not %(value)s",
                           value=repr(data)))
    kind = data.get("kind")
    if kind == LengthKind.BEST_OF.value:
        if set(data) != {"kind", "games"}:
            raise MatchError(_("a best-of length has exactly kind and games: %(value)s",
                               value=repr(dict(data))))
        games = as_whole(data["games"], _("length games"), 1, MAX_BEST_OF)
        if games % 2 == 0:
            raise MatchError(_("a best-of match needs an odd number of games, not %(games)s",
                               games=digits(games)))
        return MatchLength(LengthKind.BEST_OF, games)
    if kind == LengthKind.POINTS.value:
        if set(data) != {"kind", "points"}:
            raise MatchError(_("a points length has exactly kind and points: %(value)s",
                               value=repr(dict(data))))
        points = as_whole(data["points"], _("length points"), 1, MAX_MATCH_POINTS)
        return MatchLength(LengthKind.POINTS, points)
    raise MatchError(_("length kind must be best_of or points, not %(value)s", value=repr(kind)))


def _read_skunk_judging(data: Mapping[str, object], players: Sequence[str]) -> ThreePlayerSkunk:
    """The three-player skunk choice: absent (as every match stored before it) is the runner-up."""
    raw = data.get("three_player_skunk", ThreePlayerSkunk.RUNNER_UP.value)
    choices = [c.value for c in ThreePlayerSkunk]
    if raw not in choices:
        raise MatchError(_("three_player_skunk must be %(first)s or %(second)s, not %(value)s",
                           first=choices[0], second=choices[1], value=repr(raw)))
    judging = ThreePlayerSkunk(raw)
    if judging is ThreePlayerSkunk.EACH_LOSER and len(players) != 3:
        raise MatchError(_(
            "three_player_skunk each-loser is for three players; with %(count)s there is one losing side",
            count=digits(len(players)),
        ))
    return judging


@dataclass(frozen=True, slots=True)
class Settings:
    """A match's settings, fixed at creation."""

    players: tuple[str, ...]
    target: int
    rules: GameRules
    length: MatchLength
    muggins: bool
    first_dealer: int | None
    three_player_skunk: ThreePlayerSkunk = ThreePlayerSkunk.RUNNER_UP
    """With three players, whether only the runner-up or each loser is judged for a skunk."""
    scores_only: bool = False
    """The table enters scores as numbers, never cards: screens ask for no starter."""

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
            raise MatchError(_("settings must be an object, not %(value)s", value=repr(data)))
        known = {
            "players", "partnerships", "target", "preset", "custom", "length", "muggins", "first_dealer",
            "three_player_skunk", "scores_only",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise MatchError(_("unknown setting %(key)s (known: %(keys)s)", key=repr(unknown[0]),
                               keys=", ".join(sorted(known))))
        raw_players = data.get("players")
        if not isinstance(raw_players, list | tuple) or not 2 <= len(raw_players) <= 4:
            raise MatchError(_("players must be a list of 2, 3 or 4 names, not %(value)s",
                               value=repr(raw_players)))
        players: list[str] = []
        for i, name in enumerate(raw_players, 1):
            if not isinstance(name, str) or not name.strip():
                raise MatchError(_("player %(number)s needs a name, not %(value)s", number=digits(i),
                                   value=repr(name)))
            clean = " ".join(name.split())
            if len(clean) > MAX_NAME_LENGTH:
                raise MatchError(_("player %(number)s's name is longer than %(most)s characters: %(name)s",
                                   number=digits(i), most=digits(MAX_NAME_LENGTH), name=repr(clean)))
            if clean.casefold() in (p.casefold() for p in players):
                raise MatchError(_("two players are called %(name)s: give each a different name",
                                   name=repr(clean)))
            players.append(clean)
        partnerships = data.get("partnerships", len(players) == 4)
        if not isinstance(partnerships, bool):
            raise MatchError(_("partnerships must be true or false, not %(value)s", value=repr(partnerships)))
        if partnerships != (len(players) == 4):
            raise MatchError(_(
                "four players play in two partnerships (partners opposite), and only four do: "
                "got %(count)s players with partnerships %(value)s",
                count=digits(len(players)), value=str(partnerships).lower(),
            ))
        target = as_whole(data.get("target", 121), _("target"), min(TARGETS), max(TARGETS))
        if target not in TARGETS:
            raise MatchError(_("target must be 121 or 61 points, not %(value)s", value=repr(target)))
        name = data.get("preset", "home")
        custom = data.get("custom")
        if name == CUSTOM:
            if not isinstance(custom, Mapping):
                raise MatchError(_("custom rules need their values: custom = {'plain': 1, 'lines': [...]}"))
            rules = GameRules.from_json(target, custom)
        elif name in NAMED_PRESETS:
            if custom is not None:
                raise MatchError(_("custom values go with preset 'custom', not %(name)s", name=repr(name)))
            rules = preset(str(name), target)
        else:
            raise MatchError(_("unknown preset %(name)s: choose %(presets)s or custom", name=repr(name),
                               presets=", ".join(NAMED_PRESETS)))
        length = _read_length(data.get("length"))
        muggins = data.get("muggins", False)
        if not isinstance(muggins, bool):
            raise MatchError(_("muggins must be true or false, not %(value)s", value=repr(muggins)))
        first = data.get("first_dealer")
        first_dealer = None if first is None else as_whole(first, "first_dealer", 0, len(players) - 1)
        judging = _read_skunk_judging(data, players)
        scores_only = data.get("scores_only", False)
        if not isinstance(scores_only, bool):
            raise MatchError(_("scores_only must be true or false, not %(value)s", value=repr(scores_only)))
        return cls(tuple(players), target, rules, length, muggins, first_dealer, judging, scores_only)

    def to_json(self) -> dict[str, object]:
        """The normalised settings dict (what ``new_match_settings`` returns)."""
        custom = None
        if self.rules.name == CUSTOM:
            custom = {"plain": self.rules.plain, "lines": [ln.to_json() for ln in self.rules.lines]}
        return {
            "players": list(self.players), "partnerships": self.partnerships, "target": self.target,
            "preset": self.rules.name, "custom": custom, "length": self.length.to_json(),
            "muggins": self.muggins, "first_dealer": self.first_dealer,
        } | (
            # Only the choice that changes what a game is worth is written: a settings dict stored
            # before the setting existed (runner-up judged) reads back byte for byte as it was.
            {"three_player_skunk": self.three_player_skunk.value}
            if self.three_player_skunk is not ThreePlayerSkunk.RUNNER_UP else {}
        ) | ({"scores_only": True} if self.scores_only else {})


_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that turn the direction of the text after them: a name holding one can make the
score line beside it read in another order than it was written."""
_BLANK_LETTERS = frozenset("\u115f\u1160\u180e\u2800\u3164\uffa0")
"""Letters and symbols that draw nothing (the Hangul fillers, the blank Braille cell)."""
_UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that show no mark of their own: controls, format characters (zero-width
spaces and joiners), unassigned code points, separators, and combining marks."""


def check_new_names(players: Sequence[object]) -> None:
    """Refuse player names for a new match that would show nothing, or reorder the text beside them.

    Names stored before this check still load: only a new match's names are judged.

    >>> check_new_names(["Ann", "\u200b\u200b"])
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: player 2 needs a name that shows on screen: '\u200b\u200b' has no visible letter
    >>> check_new_names(["Ann", "Bob\u202e"])
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: player 2's name holds a text-direction control (U+202E): remove it
    """
    for i, name in enumerate(players, 1):
        if not isinstance(name, str):
            continue  # Settings.from_json names what is wrong with it
        for char in name:
            if char in _BIDI_CONTROLS:
                code = f"U+{ord(char):04X}"
                raise MatchError(_(
                    "player %(number)s's name holds a text-direction control (%(code)s): remove it",
                    number=digits(i), code=code,
                ))
        if name.strip() and all(
            char in _BLANK_LETTERS or unicodedata.category(char) in _UNSEEN_CATEGORIES for char in name
        ):
            # ascii() spells each unseen character as its code, so the message shows what was sent.
            raise MatchError(_(
                "player %(number)s needs a name that shows on screen: %(name)s has no visible letter",
                number=digits(i), name=ascii(name),
            ))


def new_settings_json(data: Mapping[str, object]) -> dict[str, object]:
    """Validated, normalised settings JSON for a new match from a settings dict (the JSON API's)."""
    players = data.get("players")
    if isinstance(players, list | tuple):
        check_new_names(players)
    return Settings.from_json(data).to_json()


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
    three_player_skunk: str | None = None,
    scores_only: bool = False,
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
    if three_player_skunk is not None:
        data["three_player_skunk"] = three_player_skunk
    if scores_only:
        data["scores_only"] = scores_only
    return new_settings_json(data)
