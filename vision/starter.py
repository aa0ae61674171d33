"""Which card lies apart: the starter of a show, from the card outlines alone.

Players lay the cut card apart from the four hand cards (on the deck, or a hand-width away) and
the hand cards together. So the cards are joined into groups by the gaps between their outlines,
measured in card widths (each gap against the two cards' own size, so a tilted camera's near and
far cards are judged alike), the way single-linkage clustering joins them: the widest link of
the minimum spanning tree is the gap between the two groups that lie furthest apart. A card is
said to lie apart only when that widest link cuts off that one card, the link is wide, and every
other link is narrow, several times narrower. Otherwise nobody can tell which card is the
starter from where the cards lie, and the answer is None: a wrong starter costs the player a
wrong count, no starter only a tap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
from numpy.typing import NDArray

__all__ = ["APART_GAP", "APART_RATIO", "CARD_ASPECT", "TOGETHER_GAP", "card_gap", "lying_apart"]

CARD_ASPECT = 88.0 / 63.0
"""Height over width of a poker card: a card's width is the square root of its area over this
(whichever way it is turned; bridge cards, narrower, come out a little narrower still)."""

APART_GAP = 0.5
"""A card lies apart only if the gap between its outline and its nearest card is at least this
many card widths (players leave a card width to a hand-width, one to four)..."""

TOGETHER_GAP = 0.8
"""...every other card is joined to the rest by gaps of at most this many card widths (the hand
lies together: a row or a block, an edge's width or so between cards)..."""

APART_RATIO = 3.0
"""...and the card's gap is at least this many times the widest of those. Tuned with the two
above on generated development shows (typical camera, seeds 8,200,001-8,200,111 with the
starter apart and 8,200,001-8,200,081 of the ordinary ones, where the starter may lie only an
edge's width beside the hand), on the outlines the recogniser found: 108 of 111 starters apart
found, none wrong; 35 of 81 ordinary starters found, none wrong. A ratio of 2 let one ordinary
show through wrong (a scattered hand card 0.8 card widths out, the hand's widest gap 0.4).
Measured on other seeds by ``python -m vision.evaluate --synthetic N``.

Retuned on 2026-12-02 on development shows read by the committed model (seeds 8,200,001-200
and 5,500,001-200, each with the starter apart and ordinary: 800 shows): where a starter apart
was missed with every card found, a hand card read from its index alone had an outline about
two thirds of a card wide, and the hand's gaps measured against it came out at 0.64-0.75. At
0.8 instead of 0.6, 389 of the 400 starters apart were found instead of 386, and no ordinary
show more was wrong (1 of 400 either way). Checked on seeds 7,100,001-200 (400 shows more):
195 of 200 apart against 194, ordinary wrong 2 of 200 either way. Measuring the gaps against
at least the photo's median card as well found two more starters apart on the development
seeds, but named a hand card on one more ordinary show of seeds 7,100,001-200; left out."""

Point = tuple[float, float]


def lying_apart(quads: Sequence[Sequence[Point]] | Sequence[NDArray[np.float64]]) -> int | None:
    """The index of the one card lying apart from the others (each card its four corners), or
    None when no card clearly does (fewer than three cards, or no single clear gap)."""
    if len(quads) < 3:
        return None
    polygons = [np.asarray(q, dtype=np.float64).reshape(4, 2) for q in quads]
    widths = [math.sqrt(abs(_area(p)) / CARD_ASPECT) for p in polygons]
    if min(widths) <= 0 or not all(np.isfinite(p).all() for p in polygons):
        return None
    sizes = np.array(widths)
    gaps = _gaps(np.stack(polygons)) / ((sizes[:, None] + sizes[None, :]) / 2)
    links = _spanning_tree(gaps)
    links.sort(key=lambda link: -link[0])
    (widest, a, b), narrower = links[0], links[1][0]
    if widest < APART_GAP or narrower > TOGETHER_GAP or widest < APART_RATIO * narrower:
        return None
    # The widest link cuts the tree in two; the card apart is the side that is one card alone.
    alone = [end for end in (a, b) if sum(1 for _, x, y in links if end in (x, y)) == 1]
    if len(alone) != 1:
        return None  # two groups of several cards, or only two cards joined
    return alone[0]


def card_gap(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """The distance between two convex outlines (four corners each), 0 when they touch or overlap."""
    return float(_gaps(np.stack([np.asarray(a, np.float64), np.asarray(b, np.float64)]))[0, 1])


def _area(p: NDArray[np.float64]) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def _gaps(polygons: NDArray[np.float64]) -> NDArray[np.float64]:
    """`card_gap` between every two of the convex outlines `polygons` (n, 4, 2): (n, n), each
    pair's gap worked out in one array pass with every other pair's. A deal photo's fifty
    outlines make 1,225 pairs; looping over them in Python took 60-70 ms of the starter's look
    at a bridge deal (bench/bench_recognise.py), this 4-6 ms, and numpy's per-call cost on
    two-element vectors made a loop of array calls slower still."""
    count = len(polygons)
    gaps = np.zeros((count, count))
    if count < 2:
        return gaps
    i, j = np.triu_indices(count, 1)
    a, b = polygons[i], polygons[j]  # (pairs, 4, 2)
    touching = _any_inside(a, b) | _any_inside(b, a)
    # Side k of a (p to q) against side l of b (r to s): (pairs, 4, 4).
    p, q = a[:, :, None, :], np.roll(a, -1, axis=1)[:, :, None, :]
    r, s = b[:, None, :, :], np.roll(b, -1, axis=1)[:, None, :, :]
    crossing = (_cross(p, q, r) * _cross(p, q, s) < 0) & (_cross(r, s, p) * _cross(r, s, q) < 0)
    apart = np.minimum(
        np.minimum(_point_segment(p, r, s), _point_segment(q, r, s)),
        np.minimum(_point_segment(r, p, q), _point_segment(s, p, q)),
    )
    nearest = np.where(crossing, 0.0, apart).min(axis=(1, 2))
    gaps[i, j] = gaps[j, i] = np.where(touching, 0.0, nearest)
    return gaps


def _cross(o: NDArray[np.float64], u: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    """The cross product of u - o and v - o, over the last axis (x, y)."""
    across: NDArray[np.float64] = (u[..., 0] - o[..., 0]) * (v[..., 1] - o[..., 1])
    return across - (u[..., 1] - o[..., 1]) * (v[..., 0] - o[..., 0])


def _any_inside(points: NDArray[np.float64], polygons: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether any of each pair's four `points` (pairs, 4, 2) lies inside its convex polygon
    (pairs, 4, 2), either winding, its edges included."""
    starts = polygons[:, None, :, :]
    ends = np.roll(polygons, -1, axis=1)[:, None, :, :]
    signs = _cross(starts, ends, points[:, :, None, :])  # (pairs, point, side)
    inside: NDArray[np.bool_] = np.all(signs >= 0, axis=2) | np.all(signs <= 0, axis=2)
    return cast("NDArray[np.bool_]", np.any(inside, axis=1))


def _point_segment(
    point: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The distance from `point` to the segment from `a` to `b` (broadcast over the leading axes)."""
    abx, aby = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
    length = abx * abx + aby * aby
    along = (point[..., 0] - a[..., 0]) * abx + (point[..., 1] - a[..., 1]) * aby
    ratio = np.divide(along, length, out=np.zeros_like(along), where=length != 0)
    t = np.minimum(1.0, np.maximum(0.0, ratio))
    return cast(
        "NDArray[np.float64]",
        np.hypot(point[..., 0] - (a[..., 0] + t * abx), point[..., 1] - (a[..., 1] + t * aby)),
    )


def _spanning_tree(gaps: NDArray[np.float64]) -> list[tuple[float, int, int]]:
    """The minimum spanning tree's links (gap, card, card), by Prim's algorithm: each link the
    least (gap, card in the tree, card joined) of all, ties to the lower numbers. Each card out
    of the tree keeps its least link into it, updated as each card joins: the same links as
    looking at every pair at every step, in a tenth of the time (a bridge deal's 41-48 cards:
    2.5-3.8 ms → 0.3-0.4)."""
    count = len(gaps)
    joined = np.zeros(count, bool)
    joined[0] = True
    nearest, via = gaps[0].copy(), np.zeros(count, np.int64)
    links = []
    for _ in range(count - 1):
        out = np.flatnonzero(~joined)
        j = int(out[np.lexsort((out, via[out], nearest[out]))[0]])
        links.append((float(nearest[j]), int(via[j]), j))
        joined[j] = True
        closer = ((gaps[j] < nearest) | ((gaps[j] == nearest) & (j < via))) & ~joined
        nearest[closer], via[closer] = gaps[j][closer], j
    return links
