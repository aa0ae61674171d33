"""Stage 3, corners: lone card corners, for cards whose outline is lost (overlapping or fanned
cards, a card half under a book, a card touching something as light as itself):

- every roughly square convex corner of a blob that is not one card, as a card frame, at the
  card widths of the outlines read surely (or guesses from the blob);
- every place where two straight edges on paper meet at a near-right angle (a card lying on
  another), at the card widths of the outlines read surely;
- those of either kind whose sides meet well off square, squared up on each side.

All of these are only proposals; the classifier decides which show an index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect.outlines import OUTLINES, Blob
from vision.detect.prepare import PREPARE, Prepared
from vision.detect.proposal import Proposal, Stage, lone_proposals
from vision.geometry import CARD_ASPECT, Quad, corner_homography, quad_iou, quarter_turn


@dataclass(frozen=True)
class CornerThresholds:
    """What makes a blob corner or a meeting of two edges a card's corner, and how many are read."""

    angle_range: tuple[float, float] = (55.0, 125.0)
    """Interior angles, in degrees, of blob corners that may be a card corner (90 degrees seen at
    up to 45 degrees tilt)."""
    approx: float = 0.006
    """Polygon tolerance for blob outlines, as a share of the perimeter: fine enough to keep the
    small steps a fanned hand's corners make."""
    min_top_side: float = 0.08
    """Shortest visible top side at a lone corner, in card widths (see `min_long_side`)."""
    min_long_side: float = 0.12
    """Shortest visible top and long side at a lone corner, in card widths. An object or another
    card can touch a card right beside its index, so these are far below the index's own size;
    they only reject the kinks of ragged, textured blobs."""
    width_merge: float = 0.12
    """Card-width guesses closer than this (relative) are the same guess."""
    same_corner_distance: float = 0.04
    """Corner frames closer than this many card widths may be one corner (see `same_corner_cos`)."""
    same_corner_cos: float = 0.985
    """Corner frames closer than this many card widths and turned less than 10 degrees apart are
    one corner: a patch's classifier tolerates that much misplacement."""
    max_lone_corners: int = 400
    """Upper bound on lone-corner proposals per photo, which bounds the time a busy table costs."""
    square_skew: float = math.radians(10)
    """A lone corner whose sides meet further than this from a right angle is also proposed
    squared up (see `squared_homographies`)."""
    segment_min_length: float = 0.2
    """Shortest straight edge, in card widths, taken as a card's side: about the visible length of
    a side beside an index when the card lying on it covers the rest."""
    segment_gap: float = 0.12
    """How far, in card widths, an edge may stop short of (or run past) the corner it makes with
    another: rounded card corners and blur end the straight part a little before the corner."""
    slide_past: float = 0.06
    """An edge that stops further than this (in card widths) short of the corner it makes with
    another may be a card's own side ending at its own corner, the other edge a neighbour's
    side beyond a narrow gap (cards in a row, the table showing between them): that end is
    proposed as a corner too. Rounded card corners stop an edge short by less."""
    max_segments: int = 200
    """The longest straight edges kept per photo, which bounds the pairs tried."""
    max_segment_corners: int = 150
    """Upper bound on edge-corner proposals per photo."""
    near_explained: float = 0.1
    """An edge corner this close (in card widths) to a corner of a surely read outline, turned
    into that card, is that card's own corner, already read. Turned away from it, it is the
    corner of the card beside it in a row, laid edge to edge, whose top edge meets that card's
    side there (see `segment_corner_homographies`)."""


CORNERS = CornerThresholds()


@dataclass(frozen=True)
class CornerFrame:
    """A convex, roughly square blob corner where a card's index may be."""

    origin: NDArray[np.float64]
    x_unit: NDArray[np.float64]
    """Unit vector along the side that would be the card's short (top) side."""
    y_unit: NDArray[np.float64]
    """Unit vector along the side that would be the card's long side."""
    x_length: float
    y_length: float
    """Lengths of the two blob sides leaving the corner, in pixels."""


def outline_polygon(contour: NDArray[np.int32]) -> NDArray[np.float64]:
    """A blob's outline simplified to straight sides, as (n, 2) points."""
    perimeter = cv2.arcLength(contour, True)
    approx = cv2.approxPolyDP(contour, max(1.5, CORNERS.approx * perimeter), True)
    return np.asarray(approx, np.float64).reshape(-1, 2)


def corner_frames(contour: NDArray[np.int32]) -> list[CornerFrame]:
    """Convex corners of a blob with near-right angles, each as a right-handed card frame."""
    approx = outline_polygon(contour)
    n = len(approx)
    if n < 3:
        return []
    # Orientation of the polygon decides which turn is convex.
    x, y = approx[:, 0], approx[:, 1]
    signed = float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    frames: list[CornerFrame] = []
    lo, hi = CORNERS.angle_range
    # The vertices' sides as plain floats: numpy's per-call cost on two-element vectors was most
    # of this loop's time, run at every vertex of every blob a photo's lone corners come from.
    points = approx.tolist()
    for i in range(n):
        (hx, hy), (bx, by), (fx, fy) = points[i], points[i - 1], points[(i + 1) % n]
        a0, a1, b0, b1 = bx - hx, by - hy, fx - hx, fy - hy
        la, lb = math.sqrt(a0 * a0 + a1 * a1), math.sqrt(b0 * b0 + b1 * b1)
        if la < 3 or lb < 3:
            continue
        cross = a0 * b1 - a1 * b0
        # Convex when the turn at this vertex has the polygon's own orientation.
        if (cross > 0) == (signed > 0):
            continue
        angle = math.degrees(math.acos(min(1.0, max(-1.0, (a0 * b0 + a1 * b1) / (la * lb)))))
        if not lo <= angle <= hi:
            continue
        here = approx[i]
        ua, ub = np.array([a0 / la, a1 / la]), np.array([b0 / lb, b1 / lb])
        if _right_handed(ua, ub):
            frames.append(CornerFrame(here, ua, ub, la, lb))
        else:
            frames.append(CornerFrame(here, ub, ua, lb, la))
    return frames


def _right_handed(x_unit: NDArray[np.float64], y_unit: NDArray[np.float64]) -> bool:
    """Whether `x_unit` across a card's top and `y_unit` down its side make a card frame the
    right way round (cross(x, y) > 0 on screen, y pointing down), as an index is printed."""
    return bool(x_unit[0] * y_unit[1] - x_unit[1] * y_unit[0] > 0)


def width_guesses(blob: Blob) -> list[float]:
    """Card widths to try at a blob's lone corners when no whole card gives the size.

    The blob's longest straight side is most often the long side of its topmost card, else a
    short side; its narrow extent is about one card length for a fan or a row.
    """
    poly = outline_polygon(blob.contour)
    longest = float(np.linalg.norm(poly - np.roll(poly, -1, axis=0), axis=1).max()) if len(poly) > 1 else 0.0
    short = float(min(cv2.minAreaRect(blob.contour)[1]))
    return merge_widths([longest / CARD_ASPECT, longest, short / CARD_ASPECT, short * 0.5])


def merge_widths(widths: list[float]) -> list[float]:
    """Drop near-duplicate width guesses and those too small to read."""
    kept: list[float] = []
    for width in sorted(w for w in widths if w >= PREPARE.min_card_width_px):
        if not kept or width > kept[-1] * (1 + CORNERS.width_merge):
            kept.append(width)
    return kept


def corner_homographies(
    blobs: list[Blob], widths: list[float], explained: list[Quad]
) -> list[NDArray[np.float64]]:
    """Card frames at the lone corners of every blob not already read as one whole card.

    `widths` are card widths known from whole cards in the photo; without them each blob's
    own `width_guesses` are used. Blobs whose outline matches one of the `explained` quads are
    skipped. The masks often trace the same corner several times; each place, direction and
    width is kept once, largest blobs first, at most `CORNERS.max_lone_corners`.
    """
    homographies: list[NDArray[np.float64]] = []
    seen = np.zeros((CORNERS.max_lone_corners, 5))  # origin x, y, top-side direction x, y, card width
    for blob in sorted(blobs, key=lambda b: -b.area):
        if not blob.lone_corners:
            continue
        if blob.quad is not None and any(
            quad_iou(blob.quad, quad) > OUTLINES.duplicate_iou for quad in explained
        ):
            continue
        guesses = widths or width_guesses(blob)
        for frame in corner_frames(blob.contour):
            for width in guesses:
                if (
                    frame.x_length < CORNERS.min_top_side * width
                    or frame.y_length < CORNERS.min_long_side * width
                ):
                    continue
                key = np.array([frame.origin[0], frame.origin[1], frame.x_unit[0], frame.x_unit[1], width])
                if _seen_corner(key, seen[: len(homographies)]):
                    continue
                seen[len(homographies)] = key
                homographies.append(frame_homography(frame, width))
                if len(homographies) >= CORNERS.max_lone_corners:
                    return homographies
    return homographies


def squared_homographies(homography: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """The corner frame `homography`, skewed more than `CORNERS.square_skew`, squared up on each side.

    A lone corner's two sides are a card's top and long side, skewed when the camera is
    tilted, hence the frame as found. But a fanned card's corner can also be where its own top
    edge meets the edge of the card under it, sticking out beside it: keeping either side and
    turning the other to a right angle gives the frame the card has if the side kept is its
    own. The card width stays; an unskewed frame gives none.
    """
    x_axis, y_axis, origin = homography[:2, 0], homography[:2, 1], homography[:2, 2]
    width, length = float(np.linalg.norm(x_axis)), float(np.linalg.norm(y_axis))
    if width < 1.0 or length < 1.0:
        return []
    if abs(float(x_axis @ y_axis)) / (width * length) <= math.sin(CORNERS.square_skew):
        return []
    along_top, down = x_axis / width, y_axis / length
    # A quarter turn of one side makes the other, right-handed as a card frame is.
    return [
        corner_homography(origin, x_axis, quarter_turn(along_top) * width),
        corner_homography(origin, -quarter_turn(down) * width, down * width),
    ]


def _seen_corner(key: NDArray[np.float64], seen: NDArray[np.float64]) -> bool:
    """Whether a corner frame (origin x, y, top-side direction x, y, card width) is the same
    place, direction and size as one of `seen`, within tolerance."""
    width = np.minimum(seen[:, 4], key[4])
    same = (
        (np.abs(seen[:, 4] - key[4]) < CORNERS.width_merge * width)
        & (np.hypot(seen[:, 0] - key[0], seen[:, 1] - key[1]) < CORNERS.same_corner_distance * width)
        & (seen[:, 2] * key[2] + seen[:, 3] * key[3] > CORNERS.same_corner_cos)
    )
    return bool(same.any())


def frame_homography(frame: CornerFrame, card_width: float) -> NDArray[np.float64]:
    """Affine map from card coordinates to the image for a card `card_width` px wide at `frame`."""
    return corner_homography(frame.origin, frame.x_unit * card_width, frame.y_unit * card_width)


def segment_corner_homographies(
    prepared: Prepared, paper_mask: NDArray[np.uint8], widths: list[float], explained: list[Quad]
) -> list[NDArray[np.float64]]:
    """Card frames where two straight edges on or around paper meet at a near-right angle.

    A card lying on another in a row or a fan has its index corner in the middle of the light
    blob they make together, so it is no corner of any outline; its top and side edges are
    still straight lines (a shadow, the border print, the step between two papers) meeting at
    the corner. Needs the card widths of surely read outlines (`widths`); without them a
    straight edge says nothing about the size of the card it bounds.
    """
    widths = merge_widths(widths)
    if not widths:
        return []
    smallest = widths[0]
    blurred = cv2.GaussianBlur(prepared.gray, (3, 3), 0)
    edges = cv2.Canny(blurred, 40, 100)
    near_paper = cv2.dilate(paper_mask, cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7)))
    edges = cv2.bitwise_and(edges, near_paper)
    found = cv2.HoughLinesP(
        edges,
        1,
        math.pi / 180,
        threshold=max(8, int(0.1 * smallest)),
        minLineLength=max(6, int(CORNERS.segment_min_length * smallest)),
        maxLineGap=4,
    )
    if found is None:
        return []
    segments = found[:, 0].astype(np.float64)
    lengths = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    order = np.argsort(-lengths)[: CORNERS.max_segments]
    segments, lengths = segments[order], lengths[order]
    starts, ends = segments[:, :2], segments[:, 2:]
    units = (ends - starts) / lengths[:, None]
    # Every pair's crossing point, from p_i + s u_i = p_j + t u_j.
    i, j = np.triu_indices(len(segments), 1)
    cross = units[i, 0] * units[j, 1] - units[i, 1] * units[j, 0]
    # |sin| of the angle between them: within CORNERS.angle_range, at least the sine at its ends.
    steep = np.abs(cross) >= min(math.sin(math.radians(a)) for a in CORNERS.angle_range)
    i, j, cross = i[steep], j[steep], cross[steep]
    delta = starts[j] - starts[i]
    s_i = (delta[:, 0] * units[j, 1] - delta[:, 1] * units[j, 0]) / cross
    corners = starts[i] + s_i[:, None] * units[i]
    gap = CORNERS.segment_gap * smallest
    keep = np.ones(len(i), bool)
    away, short = [], []
    for k in (i, j):
        # Positions of the segment's two ends along its line, measured from the corner.
        t0 = np.einsum("nk,nk->n", starts[k] - corners, units[k])
        t1 = np.einsum("nk,nk->n", ends[k] - corners, units[k])
        first_nearer = np.abs(t0) < np.abs(t1)
        near, far = np.where(first_nearer, t0, t1), np.where(first_nearer, t1, t0)
        keep &= (np.abs(near) <= gap) & (np.abs(far) >= CORNERS.segment_min_length * smallest)
        away.append(units[k] * np.sign(far)[:, None])
        # How far the segment stops short of the corner (0 where it reaches or runs past it).
        short.append(np.maximum(near * np.sign(far), 0.0))
    homographies: list[NDArray[np.float64]] = []
    seen = np.zeros((CORNERS.max_segment_corners, 5))
    slide = CORNERS.slide_past * smallest
    for n in np.flatnonzero(keep):
        crossing, a, b = corners[n], away[0][n], away[1][n]
        x_unit, y_unit = (a, b) if _right_handed(a, b) else (b, a)
        # The crossing, and where a side that stops well short of it ends (see `slide_past`).
        sides = ((short[0][n], a), (short[1][n], b))
        origins = [crossing] + [crossing + gone * side for gone, side in sides if gone > slide]
        for origin in origins:
            # A point well inside the card cornered here, on the diagonal between its two sides.
            inside = origin + 0.2 * smallest * (a + b)
            if _own_corner(explained, origin, inside, CORNERS.near_explained * smallest):
                continue
            for width in widths:
                key = np.array([origin[0], origin[1], x_unit[0], x_unit[1], width])
                if _seen_corner(key, seen[: len(homographies)]):
                    continue
                seen[len(homographies)] = key
                homographies.append(corner_homography(origin, x_unit * width, y_unit * width))
                if len(homographies) >= CORNERS.max_segment_corners:
                    return homographies
    return homographies


def _own_corner(
    quads: list[Quad], origin: NDArray[np.float64], inside: NDArray[np.float64], radius: float
) -> bool:
    """Whether `origin` is within `radius` of a corner of one of `quads` whose card `inside` (a
    point the card cornered at `origin` would cover) lies in: that card's own corner. The next
    card of a row, under it, meets it there too, turned away from it."""
    for quad in quads:
        corners = np.asarray(quad, np.float64)
        if float(np.hypot(*(corners - origin).T).min()) >= radius:
            continue
        outline = corners.astype(np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(outline, (float(inside[0]), float(inside[1])), False) > 0:
            return True
    return False


def corner_proposals(blobs: list[Blob], widths: list[float], explained: list[Quad]) -> list[Proposal]:
    """Lone corners of blobs not read as one whole card, at the card widths given or guessed."""
    return lone_proposals(corner_homographies(blobs, merge_widths(widths), explained), Stage.BLOB_CORNER)


def segment_proposals(
    prepared: Prepared, paper: NDArray[np.uint8], widths: list[float], explained: list[Quad]
) -> list[Proposal]:
    """Lone corners where two straight edges meet on `paper` (a card lying on another), at the
    card widths given."""
    return lone_proposals(segment_corner_homographies(prepared, paper, widths, explained), Stage.EDGE_CORNER)


def squared_proposals(proposals: list[Proposal]) -> list[Proposal]:
    """The skewed ones of `proposals` (lone corners traced along edges) squared up on each side
    (see `squared_homographies`)."""
    return lone_proposals(
        [h for proposal in proposals for h in squared_homographies(proposal.homography)], Stage.SQUARED_CORNER
    )
