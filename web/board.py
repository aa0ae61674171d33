"""The drawn cribbage board: hole and peg positions for an SVG, per side, front and back peg.

Each side has a track of ``target - 1`` holes in two rows, out along the top row and back
along the bottom one in groups of five, like a real board, plus the game hole at the left end;
score 0 sits in the start hole beside it. Skunk lines of the match's rules are marked where
they fall inside a row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Board", "Peg", "layout", "WIDTH"]

WIDTH = 400.0
"""SVG user units across; the drawing scales to the screen."""

GROUP = 5
"""Holes per group on a board."""

_LEFT = 40.0
"""First hole's x: room on the left for the start and game holes."""
_RIGHT = 392.0
"""Last hole's x."""
_GROUP_GAP = 0.5
"""Extra space between groups, as a fraction of the hole spacing."""
_ROW_GAP = 16.0
"""Distance between a side's out row and back row."""
_SIDE_GAP = 30.0
"""Distance from one side's out row to the next side's."""
_TOP = 16.0
"""y of the first out row."""
_START_X = 27.0
_GAME_X = 13.0
HOLE_R = 1.9
PEG_R = 5.2


@dataclass(frozen=True, slots=True)
class Peg:
    """One peg: its side, its score, where it sits, and whether it is the front peg."""

    side: int
    score: int
    x: float
    y: float
    front: bool


@dataclass(frozen=True, slots=True)
class Board:
    """Everything the SVG needs: size, one path of all holes, the pegs and the skunk ticks."""

    height: float
    holes: str
    pegs: tuple[Peg, ...]
    ticks: tuple[tuple[float, float, float], ...]
    rows: tuple[tuple[int, float, float], ...]
    peg_r: float = PEG_R


def _row_x(target: int) -> list[float]:
    per_row = (target - 1) // 2
    groups = per_row // GROUP
    step = (_RIGHT - _LEFT) / (per_row - 1 + (groups - 1) * _GROUP_GAP)
    return [_LEFT + i * step + (i // GROUP) * _GROUP_GAP * step for i in range(per_row)]


def _place(score: int, target: int, xs: Sequence[float], y_out: float) -> tuple[float, float]:
    """Where a peg on ``score`` sits: start hole, out row, back row or the game hole."""
    per_row = len(xs)
    if score <= 0:
        return _START_X, y_out
    if score >= target:
        return _GAME_X, y_out + _ROW_GAP / 2
    if score <= per_row:
        return xs[score - 1], y_out
    return xs[2 * per_row - score], y_out + _ROW_GAP


def layout(target: int, scores: Sequence[int], backs: Sequence[int], lines: Sequence[int] = ()) -> Board:
    """Board geometry for ``target`` (121 or 61) with each side's front and back peg.

    ``lines`` are losing scores that end a skunk band (90 means "90 or less"); each is marked
    between its hole and the next when both are in the same row.
    """
    xs = _row_x(target)
    per_row = len(xs)
    parts: list[str] = []
    pegs: list[Peg] = []
    ticks: list[tuple[float, float, float]] = []
    rows: list[tuple[int, float, float]] = []
    for side, (score, back) in enumerate(zip(scores, backs, strict=True)):
        y_out = _TOP + side * (_ROW_GAP + _SIDE_GAP)
        rows.append((side, y_out, y_out + _ROW_GAP))
        for y in (y_out, y_out + _ROW_GAP):
            parts.extend(f"M{x - HOLE_R:.1f} {y:.1f}a{HOLE_R} {HOLE_R} 0 1 0 {2 * HOLE_R} 0"
                         f"a{HOLE_R} {HOLE_R} 0 1 0 {-2 * HOLE_R} 0" for x in xs)
        for x, y in ((_START_X, y_out), (_GAME_X, y_out + _ROW_GAP / 2)):
            parts.append(f"M{x - HOLE_R:.1f} {y:.1f}a{HOLE_R} {HOLE_R} 0 1 0 {2 * HOLE_R} 0"
                         f"a{HOLE_R} {HOLE_R} 0 1 0 {-2 * HOLE_R} 0")
        for at in lines:
            if 0 < at < 2 * per_row and at != per_row:
                (x1, y), (x2, _) = _place(at, target, xs, y_out), _place(at + 1, target, xs, y_out)
                ticks.append(((x1 + x2) / 2, y - 5, y + 5))
        if back != score:
            bx, by = _place(back, target, xs, y_out)
            pegs.append(Peg(side, back, bx, by, front=False))
        fx, fy = _place(score, target, xs, y_out)
        pegs.append(Peg(side, score, fx, fy, front=True))
    height = 2 * _TOP + len(scores) * (_ROW_GAP + _SIDE_GAP) - _SIDE_GAP
    return Board(height, "".join(parts), tuple(pegs), tuple(ticks), tuple(rows))
