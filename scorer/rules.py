"""Rule facts of the table, and skunk lines and game points (docs/RULES.md, "Skunks").

The facts every layer shares live here once: ``HAND_SIZE`` (the four-card hand), ``SHOW_CARDS``
(those four and the starter), ``SEAT_LETTERS`` (seat labels A B C D), ``MAX_SHOW_POINTS`` and
``IMPOSSIBLE_SHOW_POINTS`` (what a show can total), and ``as_whole``, the one reader of a whole
number from JSON.

A game is won the moment a side reaches the target (121, or 61 "once around"), so the winner's
score is always the target and the margin is read from the loser's final score alone. Each
preset is a list of *lines*: a loser at or below a line's score loses by that line's margin,
and the harshest line that applies sets the game points. Above every line the win is plain.

=========================  =====================  ===================  ====================
121-point game             ``home``               ``acc``              ``lurch``
=========================  =====================  ===================  ====================
plain (loser 91 or more)   1 game                 2 game points        1 game
skunk (loser 61–90)        2 games                3 game points        (no line)
double skunk (31–60)       4 games                3 game points        2 games (a lurch)
triple skunk (30 or less)  off: as double         off: as double       (no line)
=========================  =====================  ===================  ====================

The lines are fractions of the target, so a 61-point game scales the same way (docs/RULES.md): a
loser who has not reached three quarters of the target is skunked, one who has not reached half
is double skunked (``home``, and ``acc`` for its skunk and double lines) or lurched
(``lurch``), and one who has not reached a quarter would be triple skunked where a custom rule
turns that on. "Not reached" is strict, so the line is the largest score below the fraction:

* 121 points: skunk 90 or less, double 60 or less, triple 30 or less;
* 61 points: skunk 45 or less, double (or lurch) 30 or less, triple 15 or less.

``acc`` reports a double skunk by name but awards nothing extra for it (ACC rule 12: 3 game
points for any skunk), so the kind still shows in the match's statistics. The triple skunk is
a house rule, off in those three; the ``triple`` preset is ``home`` with it on (a loser who has
not reached a quarter: 30 or less of 121, 15 or less of 61), worth 8 game points, home's
doubling carried one line further. ``sixty-one-thirty`` is the common 61-point table rule, for
61-point games only: one line, a skunk worth 2 for a loser on 30 or less, and no double.
``presets_for(target)`` lists the presets a target may use, ``preset_lines(name, target)``
their lines in words.

Custom values: any plain value and any set of lines (each kind at most once, harsher lines at
lower scores and worth at least as much), under the preset name ``custom``.

>>> r = preset("home", 121)
>>> judge(0, 87, r)  # doctest: +NORMALIZE_WHITESPACE
GameResult(winner=0, winner_score=121, loser_score=87, skunk=SkunkKind.SKUNK, game_points=2,
           preset='home', each=())
>>> judge(1, 45, preset("lurch", 61)).skunk
SkunkKind.PLAIN
>>> judge(1, 30, preset("lurch", 61)).game_points
2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise

from scorer.errors import MatchError
from scorer.i18n import N_, _, digits, ngettext

__all__ = [
    "SkunkKind", "Line", "GameRules", "GameResult", "Margin", "ThreePlayerSkunk", "judge", "judge_each",
    "preset",
    "triple_line", "PRESETS", "NAMED_PRESETS", "SIXTY_ONE_THIRTY", "TRIPLE", "CUSTOM", "TARGETS",
    "MAX_GAME_POINTS", "presets_for", "preset_lines",
    "HAND_SIZE", "SHOW_CARDS", "SEAT_LETTERS", "MAX_SHOW_POINTS", "IMPOSSIBLE_SHOW_POINTS", "as_whole",
]

HAND_SIZE = 4
"""Cards each player keeps for the play and the show, and cards in the crib, at every table size
(6 or 5 dealt, the rest laid away)."""

SHOW_CARDS = HAND_SIZE + 1
"""Cards in a show: the hand (or the crib) and the starter."""

SEAT_LETTERS = "ABCD"
"""Seat labels, clockwise from seat 0: one letter per seat of the largest table."""

MAX_SHOW_POINTS = 29
"""The top hand or crib (5-5-5-J with the fourth 5 of the jack's suit)."""

IMPOSSIBLE_SHOW_POINTS = frozenset({19, 25, 26, 27})
"""Show totals no hand or crib can make (docs/RULES.md)."""

TARGETS = (121, 61)
"""The two game lengths in points: "twice around" and "once around" the board."""

PRESETS = ("home", "acc", "lurch")
"""The three classic presets of docs/RULES.md, for either target (what screens listed first)."""

TRIPLE = "triple"
"""``home`` with a triple skunk line: a loser who has not reached a quarter of the target."""

SIXTY_ONE_THIRTY = "sixty-one-thirty"
"""The common 61-point table rule: one line, a skunk for a loser on 30 or less, and no double."""

NAMED_PRESETS = (*PRESETS, TRIPLE, SIXTY_ONE_THIRTY)
"""Every named preset; ``presets_for`` says which fit a target."""

CUSTOM = "custom"
"""The preset name of rules set by hand."""

MAX_GAME_POINTS = 99
"""Most game points one game may be worth under custom values: a guard against typos (the
presets top out at 4)."""


class SkunkKind(Enum):
    """How far the loser of a game fell short: the margin kind a result reports."""

    PLAIN = "plain"
    """The loser passed every line of the rules: an ordinary win."""
    SKUNK = "skunk"
    """The loser did not reach three quarters of the target (90 or less of 121)."""
    DOUBLE = "double"
    """Double skunk: the loser did not reach half the target (60 or less of 121)."""
    TRIPLE = "triple"
    """Triple skunk, a house rule: the loser did not reach a quarter (30 or less of 121)."""
    LURCH = "lurch"
    """The older British rule: the loser did not reach half the target and loses a double game."""

    def __repr__(self) -> str:
        return f"SkunkKind.{self.name}"

    @property
    def label(self) -> str:
        """Words for screens, in the current language: ``"plain win"``, ``"double skunk"``, ``"lurch"``."""
        return _(_LABELS[self])


_LABELS = {
    SkunkKind.PLAIN: N_("plain win"),
    SkunkKind.SKUNK: N_("skunk"),
    SkunkKind.DOUBLE: N_("double skunk"),
    SkunkKind.TRIPLE: N_("triple skunk"),
    SkunkKind.LURCH: N_("lurch"),
}

# The lines the skunk kinds must keep between them: each listed kind sits strictly below the
# one before it (a double skunk is a harsher loss than a skunk, a triple harsher still).
_SKUNK_ORDER = (SkunkKind.SKUNK, SkunkKind.DOUBLE, SkunkKind.TRIPLE)


def _below(target: int, numerator: int, denominator: int) -> int:
    """The largest score that has not reached ``numerator/denominator`` of ``target``."""
    return (target * numerator - 1) // denominator


@dataclass(frozen=True, slots=True)
class Line:
    """One margin line: a loser with ``at_most`` points or fewer loses by ``kind``."""

    kind: SkunkKind
    at_most: int
    points: int

    def to_json(self) -> dict[str, object]:
        """``{"kind": "skunk", "at_most": 90, "points": 2}``."""
        return {"kind": self.kind.value, "at_most": self.at_most, "points": self.points}


@dataclass(frozen=True, slots=True)
class GameRules:
    """The value of a won game: points for a plain win and the margin lines, harshest last."""

    name: str
    target: int
    plain: int
    lines: tuple[Line, ...]

    def __post_init__(self) -> None:
        _check_rules(self)

    @classmethod
    def custom(cls, target: int, plain: int, lines: Sequence[Line]) -> GameRules:
        """Rules set by hand; raise ``MatchError`` naming the first bad value."""
        return cls(CUSTOM, target, plain, tuple(sorted(lines, key=lambda ln: -ln.at_most)))

    @classmethod
    def from_json(cls, target: int, data: Mapping[str, object]) -> GameRules:
        """Custom rules from ``{"plain": 1, "lines": [{"kind": "skunk", "at_most": 90, "points": 2}]}``."""
        if not isinstance(data, Mapping):
            raise MatchError(_("custom rules must be an object with plain and lines, not %(value)s",
                               value=repr(data)))
        unknown = set(data) - {"plain", "lines"}
        if unknown:
            raise MatchError(_("custom rules: unknown key %(key)s (use plain and lines)",
                               key=repr(sorted(unknown)[0])))
        plain = as_whole(data.get("plain"), _("custom rules: plain (game points for a plain win)"))
        raw = data.get("lines", [])
        if not isinstance(raw, list):
            raise MatchError(_("custom rules: lines must be a list, not %(value)s", value=repr(raw)))
        lines: list[Line] = []
        for i, item in enumerate(raw, 1):
            if not isinstance(item, Mapping) or set(item) != {"kind", "at_most", "points"}:
                raise MatchError(_("custom rules: line %(line)s must have exactly kind, at_most and points: "
                                   "%(value)s", line=digits(i), value=repr(item)))
            kind_text = item["kind"]
            kinds = [k.value for k in SkunkKind if k is not SkunkKind.PLAIN]
            if kind_text not in kinds:
                raise MatchError(_("custom rules: line %(line)s kind must be one of %(kinds)s, not %(value)s",
                                   line=digits(i), kinds=", ".join(kinds), value=repr(kind_text)))
            at_most = as_whole(item["at_most"], _("custom rules: line %(line)s at_most", line=digits(i)))
            points = as_whole(item["points"], _("custom rules: line %(line)s points", line=digits(i)))
            lines.append(Line(SkunkKind(kind_text), at_most, points))
        return cls.custom(target, plain, lines)

    def to_json(self) -> dict[str, object]:
        """``{"name": "home", "target": 121, "plain": 1, "lines": [...]}``."""
        return {
            "name": self.name, "target": self.target, "plain": self.plain,
            "lines": [ln.to_json() for ln in self.lines],
        }

    def describe(self) -> str:
        """One line for screens.

        >>> preset("home", 61).describe()
        'home: plain win 1, skunk (45 or less) 2, double skunk (30 or less) 4'
        """
        parts = [_("plain win %(points)s", points=digits(self.plain))]
        parts += [_("%(kind)s (%(at_most)s or less) %(points)s", kind=ln.kind.label,
                    at_most=digits(ln.at_most), points=digits(ln.points)) for ln in self.lines]
        return _("%(preset)s: %(lines)s", preset=self.name, lines=", ".join(parts))

    def lines_text(self) -> list[str]:
        """One line of words per margin, the plain win first.

        >>> preset("home", 61).lines_text()[1]
        'skunk (loser on 45 or less): 2 game points'
        """
        def worth(points: int) -> str:
            return ngettext("%(num)s game point", "%(num)s game points", points)

        above = self.lines[0].at_most + 1 if self.lines else 0
        out = [_("plain win (loser on %(score)s or more): %(worth)s",
                 score=digits(above), worth=worth(self.plain))]
        out += [_("%(kind)s (loser on %(score)s or less): %(worth)s",
                  kind=ln.kind.label, score=digits(ln.at_most), worth=worth(ln.points)) for ln in self.lines]
        return out


def as_whole(value: object, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int (in ``low..high`` when given); raise ``MatchError`` naming ``what``.

    JSON's ``true`` is no number here, though Python counts it as 1.

    >>> as_whole(True, "points")
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: points must be a whole number, not True
    >>> as_whole(30, "hand points", 0, MAX_SHOW_POINTS)
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: hand points must be 0 to 29, not 30
    """
    if not isinstance(value, int) or isinstance(value, bool):
        raise MatchError(_("%(what)s must be a whole number, not %(value)s", what=what, value=repr(value)))
    if low is not None and high is not None and not low <= value <= high:
        raise MatchError(_("%(what)s must be %(low)s to %(high)s, not %(value)s", what=what, low=digits(low),
                           high=digits(high), value=digits(value)))
    return value


def _check_rules(rules: GameRules) -> None:
    """Raise ``MatchError`` for rules no table could mean."""
    if rules.target not in TARGETS:
        raise MatchError(_("target must be 121 or 61 points, not %(value)s", value=repr(rules.target)))
    if not 0 <= rules.plain <= MAX_GAME_POINTS:
        raise MatchError(_("a plain win must be worth 0 to %(most)s game points, not %(value)s",
                           most=digits(MAX_GAME_POINTS), value=repr(rules.plain)))
    seen: set[SkunkKind] = set()
    for ln in rules.lines:
        if ln.kind is SkunkKind.PLAIN:
            raise MatchError(_("a plain win has no line: set its value as plain"))
        if ln.kind in seen:
            raise MatchError(_("the %(kind)s line is given twice", kind=ln.kind.label))
        seen.add(ln.kind)
        if not 0 <= ln.at_most < rules.target:
            raise MatchError(_("the %(kind)s line must be a loser's score from 0 to %(most)s, not %(value)s",
                               kind=ln.kind.label, most=digits(rules.target - 1), value=repr(ln.at_most)))
        if not 0 <= ln.points <= MAX_GAME_POINTS:
            raise MatchError(_("a %(kind)s must be worth 0 to %(most)s game points, not %(value)s",
                               kind=ln.kind.label, most=digits(MAX_GAME_POINTS), value=repr(ln.points)))
    ordered = list(rules.lines)
    if ordered != sorted(ordered, key=lambda ln: -ln.at_most):
        raise MatchError(_("lines must be listed from the highest score to the lowest"))
    for upper, lower in pairwise(ordered):
        if upper.at_most == lower.at_most:
            raise MatchError(_("the %(upper)s and %(lower)s lines are both at %(score)s",
                               upper=upper.kind.label, lower=lower.kind.label, score=digits(upper.at_most)))
    at = {ln.kind: ln.at_most for ln in ordered}
    present = [k for k in _SKUNK_ORDER if k in at]
    for milder, harsher in pairwise(present):
        if at[harsher] >= at[milder]:
            raise MatchError(_("the %(harsher)s line (%(harsher_at)s) must be below the %(milder)s line "
                               "(%(milder_at)s)", harsher=harsher.label, harsher_at=digits(at[harsher]),
                               milder=milder.label, milder_at=digits(at[milder])))
    worth = rules.plain
    for ln in ordered:
        if ln.points < worth:
            raise MatchError(_("a %(kind)s (loser %(at_most)s or less) must be worth at least the milder "
                               "margin above it (%(worth)s game points), not %(points)s",
                               kind=ln.kind.label, at_most=digits(ln.at_most), worth=digits(worth),
                               points=digits(ln.points)))
        worth = ln.points


def preset(name: str, target: int = 121) -> GameRules:
    """The named preset of docs/RULES.md for a 121- or 61-point game.

    >>> [(ln.kind.value, ln.at_most, ln.points) for ln in preset("acc").lines]
    [('skunk', 90, 3), ('double', 60, 3)]
    """
    if target not in TARGETS:
        raise MatchError(_("target must be 121 or 61 points, not %(value)s", value=repr(target)))
    three_quarters, half = _below(target, 3, 4), _below(target, 1, 2)
    if name == "home":
        lines = (Line(SkunkKind.SKUNK, three_quarters, 2), Line(SkunkKind.DOUBLE, half, 4))
        return GameRules(name, target, 1, lines)
    if name == "acc":
        lines = (Line(SkunkKind.SKUNK, three_quarters, 3), Line(SkunkKind.DOUBLE, half, 3))
        return GameRules(name, target, 2, lines)
    if name == "lurch":
        return GameRules(name, target, 1, (Line(SkunkKind.LURCH, half, 2),))
    if name == TRIPLE:
        # home's doubling carried one line further: 1, 2, 4, then 8 for a triple skunk.
        triple = (
            Line(SkunkKind.SKUNK, three_quarters, 2), Line(SkunkKind.DOUBLE, half, 4),
            Line(SkunkKind.TRIPLE, _below(target, 1, 4), 8),
        )
        return GameRules(name, target, 1, triple)
    if name == SIXTY_ONE_THIRTY:
        if target != _SIXTY_ONE:
            raise MatchError(_("the %(preset)s preset is for 61-point games (a skunk at 30 or less, no "
                               "double); for %(target)s choose %(presets)s or custom",
                               preset=SIXTY_ONE_THIRTY, target=digits(target),
                               presets=", ".join(presets_for(target))))
        return GameRules(name, target, 1, (Line(SkunkKind.SKUNK, half, 2),))
    if name == CUSTOM:
        raise MatchError(_("custom rules need their values: a plain win's worth and the lines"))
    raise MatchError(_("unknown preset %(name)s: choose %(presets)s or custom", name=repr(name),
                       presets=", ".join(NAMED_PRESETS)))


_SIXTY_ONE = 61


def presets_for(target: int) -> tuple[str, ...]:
    """The named presets a game to ``target`` may use, in the order a screen lists them.

    >>> presets_for(61)
    ('home', 'sixty-one-thirty', 'acc', 'lurch', 'triple')
    >>> presets_for(121)
    ('home', 'acc', 'lurch', 'triple')
    """
    if target not in TARGETS:
        raise MatchError(_("target must be 121 or 61 points, not %(value)s", value=repr(target)))
    if target == _SIXTY_ONE:
        return ("home", SIXTY_ONE_THIRTY, "acc", "lurch", TRIPLE)
    return (*PRESETS, TRIPLE)


def preset_lines(name: str, target: int) -> list[str]:
    """A preset's lines for a target, one line of words each, the plain win first (for screens).

    >>> preset_lines("sixty-one-thirty", 61)
    ['plain win (loser on 31 or more): 1 game point', 'skunk (loser on 30 or less): 2 game points']
    >>> preset_lines("triple", 121)[-1]
    'triple skunk (loser on 30 or less): 8 game points'
    """
    return preset(name, target).lines_text()


def triple_line(target: int) -> int:
    """The conventional triple-skunk line, a quarter of the target, for custom rules.

    >>> triple_line(121), triple_line(61)
    (30, 15)
    """
    if target not in TARGETS:
        raise MatchError(_("target must be 121 or 61 points, not %(value)s", value=repr(target)))
    return _below(target, 1, 4)


class ThreePlayerSkunk(Enum):
    """Who a three-player game's win is judged against (docs/RULES.md, "Skunks")."""

    RUNNER_UP = "runner-up"
    """Only the runner-up, the best of the two losers: the win is as big as its smallest margin."""
    EACH_LOSER = "each-loser"
    """Each loser on their own: every loser on a line adds that line's extra over a plain win."""

    def __repr__(self) -> str:
        return f"ThreePlayerSkunk.{self.name}"


@dataclass(frozen=True, slots=True)
class Margin:
    """One loser judged on their own: their side, final score and margin kind."""

    side: int
    loser_score: int
    skunk: SkunkKind

    def to_json(self) -> dict[str, object]:
        """``{"side": 2, "loser_score": 30, "skunk": "double", "skunk_label": "double skunk"}``."""
        return {
            "side": self.side, "loser_score": self.loser_score, "skunk": self.skunk.value,
            "skunk_label": self.skunk.label,
        }


@dataclass(frozen=True, slots=True)
class GameResult:
    """A won game: the winning side, both scores, the margin kind and the game points awarded.

    ``preset`` names the rules that valued the win (a named preset or ``"custom"``), as
    docs/RULES.md asks the engine to report. ``each`` is empty when one loser was judged (the
    loser of a two-sided game, or a three-player runner-up); judged loser by loser (``judge_each``)
    it holds every loser's ``Margin``, ``loser_score`` is the runner-up's and ``skunk`` the
    harshest margin.
    """

    winner: int
    winner_score: int
    loser_score: int
    skunk: SkunkKind
    game_points: int
    preset: str
    each: tuple[Margin, ...] = ()

    @property
    def margin(self) -> int:
        """Points between the winner and the loser."""
        return self.winner_score - self.loser_score

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a result."""
        out: dict[str, object] = {
            "winner": self.winner, "winner_score": self.winner_score, "loser_score": self.loser_score,
            "margin": self.margin, "skunk": self.skunk.value, "skunk_label": self.skunk.label,
            "game_points": self.game_points, "preset": self.preset,
        }
        if self.each:  # only for a win judged loser by loser, so a stored match answers as before
            out["each_loser"] = [m.to_json() for m in self.each]
        return out

    def skunked(self, side: int) -> bool:
        """Whether ``side`` lost this game by a margin (on one of the lines)."""
        if side == self.winner:
            return False
        if self.each:
            return any(m.side == side and m.skunk is not SkunkKind.PLAIN for m in self.each)
        return self.skunk is not SkunkKind.PLAIN

    @property
    def skunks_given(self) -> int:
        """How many losers the winner skunked (at most one unless judged loser by loser)."""
        if self.each:
            return sum(1 for m in self.each if m.skunk is not SkunkKind.PLAIN)
        return 0 if self.skunk is SkunkKind.PLAIN else 1


def judge(winner: int, loser_score: int, rules: GameRules) -> GameResult:
    """Value the win of side ``winner`` (who reached the target) over a loser on ``loser_score``.

    With three players ``loser_score`` is the runner-up's: the win is only as big as its
    smallest margin.
    """
    if not 0 <= as_whole(loser_score, "the loser's score") < rules.target:
        raise MatchError(_("the loser's score must be 0 to %(most)s, not %(value)s",
                           most=digits(rules.target - 1), value=repr(loser_score)))
    kind, points = SkunkKind.PLAIN, rules.plain
    for ln in rules.lines:
        if loser_score <= ln.at_most:
            kind, points = ln.kind, ln.points
    return GameResult(winner, rules.target, loser_score, kind, points, rules.name)


def judge_each(winner: int, losers: Mapping[int, int], rules: GameRules) -> GameResult:
    """Value a win judging each loser (side to final score) on their own.

    The win is worth a plain win plus, for every loser on a line, that line's extra over a
    plain win: under ``home`` at 121, losers on 95 and 50 make 1 + 0 + 3 = 4 game points, losers
    on 80 and 50 make 1 + 1 + 3 = 5.

    >>> r = judge_each(0, {1: 80, 2: 50}, preset("home"))
    >>> r.game_points, r.skunk, r.loser_score, [m.skunk for m in r.each]
    (5, SkunkKind.DOUBLE, 80, [SkunkKind.SKUNK, SkunkKind.DOUBLE])
    """
    if not losers:
        raise MatchError(_("a win needs at least one loser"))
    judged = {side: judge(winner, score, rules) for side, score in sorted(losers.items())}
    extra = sum(r.game_points - rules.plain for r in judged.values())
    worst = min(judged.values(), key=lambda r: r.loser_score)
    margins = tuple(Margin(side, r.loser_score, r.skunk) for side, r in judged.items())
    runner_up = max(losers.values())
    return GameResult(winner, rules.target, runner_up, worst.skunk, rules.plain + extra, rules.name, margins)
