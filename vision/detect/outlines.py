"""Stage 2, outlines: whole-card outlines fitted to the light blobs of the masks and to the
traced edges.

Each outline becomes a quadrilateral: the convex hull approximated to four corners, each side
then refitted as a straight line so rounded card corners do not pull the corners inwards.
Closed edge loops are traced as well (the classic "find squares"), and edges traced with gaps
are bridged and fitted again. Each outline is proposed at both index corners
(`outline_proposals`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from threading import Event
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect.prepare import PREPARE, Prepared, card_sized_contours, ellipse_morphology, odd_kernel
from vision.detect.proposal import Proposal, Stage, card_corners_from_frame, stop_if
from vision.geometry import (
    ROTATE_HALF_TURN,
    Quad,
    card_homography,
    corner_homography,
    order_quad,
    quad_area,
    quad_iou,
    row_lengths,
)


@dataclass(frozen=True)
class OutlineThresholds:
    """What makes a blob or an edge trace one whole card's outline."""

    max_card_area: float = 1.0
    """Largest outline as a share of the image: a photo of one card filling the frame."""
    min_side_ratio: float = 0.33
    """Smallest short-side to long-side ratio of a card outline: a poker card (0.72) seen at the
    steepest supported tilt (45 degrees) foreshortened along its length, with slack."""
    min_quad_fill: float = 0.86
    """Least share of its fitted quadrilateral a blob must fill to count as one whole card; two
    overlapping cards or a card with a corner covered fill less."""
    close_index: float = 0.012
    """Width of the wider closing, as a share of the photo's long side: about the size of an index
    glyph on a small card, which thresholds cut out of the card's mask."""
    hull_approx: float = 0.01
    """Tolerance, as a share of the perimeter, for simplifying a blob's convex hull before its four
    longest sides are taken as the card's sides."""
    duplicate_iou: float = 0.85
    """Outlines from different masks overlapping this much are the same outline."""
    gap_bridge: float = 0.012
    """Gaps in a card's traced outline, as a share of the photo's long side (15 pixels at working
    size), that are bridged before it is traced again: in a dim, noisy photo of cards on a table
    nearly as light as they are, the edges of a card's sides break into pieces a few pixels
    apart."""
    outline_support: float = 0.75
    """Share of an unclosed outline's four sides (their middle 80 %) that must lie on edges: a
    card's straight sides are there with a gap or two; print, pips and texture whose hull
    happens to be four-sided are not."""
    hull_rect_fill: float = 0.75
    """Least share of its smallest enclosing rectangle a card outline's hull fills: a card seen so
    steeply that its near side looks twice as long as its far side fills three quarters."""
    square_ratio: float = 0.8
    """Outlines whose short side is at least this share of the long side are read both ways up,
    because steep tilt can make a card's long side look the shorter."""
    inner_box: float = 0.15
    """Share of a blob's bounding box cut off each side to leave the middle box looked at for ink
    (`_inked`): inside any card whatever its turn, short of its indices."""
    min_inner_edges: float = 0.002
    """Least share of edge pixels in a blob's middle box (`inner_box`) for it to be fitted as a
    card: a card's pips, picture or index leave edges there. The cards read surely from their
    outlines in 360 development photos (shows typical and harsh, held hands, crowded tables,
    procedural decks) had 0.010 at least (the procedural decks), 0.017-0.054 in the other sets;
    the squares of a pastel checked cloth, plain inside, have none (and 8-58 % of each set's
    blobs, a card-sized patch of table or paper, none either)."""
    border_inset: float = 0.04
    """Where an outline's border is looked at (`paper_outlines`): this share of the card's width
    and length inside its sides, on a card's white margin, short of its index and picture."""
    max_border_saturation: float = 120.0
    """Highest median HSV saturation (0-255) of an outline's border that can be a card's paper.
    Card stock is nearly colourless: the cards read surely from their outlines in 200 generated
    development shows (typical and harsh light, tinted lamps), 60 held hands, 20 crowded tables
    and 100 shows of procedural decks had 23-33 (median) and 80 at most. The squares of a
    checkered tablecloth, each an enclosed edge region of a card's size, have 170-180."""


OUTLINES = OutlineThresholds()


@dataclass(frozen=True)
class Blob:
    """One connected light region and the card outline fitted to it, if it is card-shaped."""

    contour: NDArray[np.int32]
    quad: Quad | None
    area: float
    lone_corners: bool
    """Whether its outline is a region's edge, whose corners may be read one by one (False for
    traced edge lines, whose kinks are mostly print on the cards)."""


def find_blobs(prepared: Prepared, masks: list[NDArray[np.uint8]]) -> list[Blob]:
    """Card-sized light regions from every mask, and closed edge outlines, with their quads."""
    return mask_blobs(prepared, masks) + edge_loop_blobs(prepared)


def mask_blobs(prepared: Prepared, masks: list[NDArray[np.uint8]], stop: Event | None = None) -> list[Blob]:
    """Card-sized light regions from every mask, with their quads (`find_blobs` without the
    edge loops). `stop`: when set, raises `Stopped` at its next step (see `stop_if`)."""
    h, w = prepared.gray.shape
    image_area = float(h * w)
    blobs: list[Blob] = []
    small = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    large = odd_kernel(OUTLINES.close_index * max(h, w))
    for mask in masks:
        # Close the ink of pips inside the card, open away thin bridges, and close again wider,
        # which also fills index glyphs that bite into a small card's edge. The closed mask is
        # traced unopened as well: a court card's picture leaves only a thin ring of white
        # border, which the opening would cut. The opened mask is not traced before its wider
        # closing: its outlines are the other two's all but always, and not fitting them took
        # 5-8 % off a show's reading (vision/README.md, step 2).
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, small)
        opened = cv2.morphologyEx(closed, cv2.MORPH_OPEN, small)
        for variant in (closed, ellipse_morphology(opened, cv2.MORPH_CLOSE, large)):
            stop_if(stop)
            # OpenCV traces the mask inside a frame of background of its own, so a card that
            # fills the photo still has an outline (the same contours, point for point, as a
            # frame added here gave on 720 masks of development and shared photos).
            contours, _ = cv2.findContours(variant, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            for contour in contours:
                area = float(cv2.contourArea(contour))
                if PREPARE.min_card_area_px <= area <= OUTLINES.max_card_area * image_area:
                    points = np.asarray(contour, np.int32)
                    # A blob with no print inside keeps its lone corners, but fits no outline.
                    quad = _fit(prepared, points) if _inked(prepared, points) else None
                    blobs.append(Blob(contour=points, quad=quad, area=area, lone_corners=True))
    return blobs


def edge_loop_blobs(prepared: Prepared) -> list[Blob]:
    """Closed loops of the traced edges that fill a card's quad, with their quads."""
    h, w = prepared.gray.shape
    image_area = float(h * w)
    blobs: list[Blob] = []
    # Closed edge loops (the classic "find squares" approach) catch cards touching each other
    # or lying on a table as light as they are.
    for contour in prepared.edge_contours:
        area = float(cv2.contourArea(contour))
        sized = PREPARE.min_card_area_px <= area <= OUTLINES.max_card_area * image_area
        if sized and _inked(prepared, contour):
            quad = _fit(prepared, contour)
            if quad is not None:
                blobs.append(Blob(contour=contour, quad=quad, area=area, lone_corners=False))
    return blobs


def broken_outline_blobs(prepared: Prepared) -> list[Blob]:
    """Whole-card outlines in the edges that `find_blobs` cannot fit.

    `find_blobs` fits edge loops that fill their quad. In a dim, noisy photo of cards on a
    table nearly as light as they are, a card's traced outline breaks into pieces, or joins
    print and texture into a loop that does not fill the card. So the loops are fitted again
    by their hulls, and the edges are traced once more with their gaps bridged
    (`OUTLINES.gap_bridge`); a quad is kept when its trace fills it or when the edges run along its
    sides (`OUTLINES.outline_support`).
    """
    h, w = prepared.gray.shape
    image_area = float(h * w)
    edges = prepared.edges
    bridge = odd_kernel(OUTLINES.gap_bridge * max(h, w))
    bridged, _ = cv2.findContours(
        ellipse_morphology(edges, cv2.MORPH_CLOSE, bridge), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE
    )
    blobs = []
    for contours, unbridged in ((prepared.edge_contours, True), (card_sized_contours(bridged), False)):
        for contour in contours:
            area = float(cv2.contourArea(contour))
            if unbridged and area < PREPARE.min_card_area_px:
                continue  # an open trace, unbridged: not one card's outline
            if not _inked(prepared, contour):
                continue
            hull = cv2.convexHull(contour)
            hull_area = float(cv2.contourArea(hull))
            if not PREPARE.min_card_area_px <= hull_area <= OUTLINES.max_card_area * image_area:
                continue
            # From the hull, which OpenCV takes of the contour first: the same rectangle, to
            # the bit (9,092 traces of 100 photos), in an eighth of the time.
            (_, _), (a, b), _ = cv2.minAreaRect(hull)
            if hull_area < OUTLINES.hull_rect_fill * a * b:
                continue  # not four-sided (fitting is the costly step, so rule it out first)
            quad = _fit(prepared, contour, filled=False, hull=hull)
            if quad is None:
                continue
            fills = area >= OUTLINES.min_quad_fill * quad_area(quad)
            if not fills and _edge_support(edges, quad) < OUTLINES.outline_support:
                continue
            blobs.append(Blob(contour=contour, quad=quad, area=hull_area, lone_corners=False))
    return blobs


def _fit(
    prepared: Prepared,
    contour: NDArray[np.int32],
    filled: bool = True,
    hull: cv2.typing.MatLike | None = None,
) -> Quad | None:
    """`fit_quad(contour, filled, hull)`, fitted once per distinct contour in a photo
    (`Prepared.fits`): the fill test is the only step `filled` changes, so it is made here, on
    the outline fitted without it."""
    points = np.ascontiguousarray(contour, np.int32)
    key = hashlib.blake2b(points.tobytes(), digest_size=16).digest()
    if key in prepared.fits:
        quad = prepared.fits[key]
    else:
        quad = prepared.fits[key] = fit_quad(points, filled=False, hull=hull)
    if quad is None or not filled:
        return quad
    return quad if float(cv2.contourArea(points)) / quad_area(quad) >= OUTLINES.min_quad_fill else None


def _inked(prepared: Prepared, contour: NDArray[np.int32]) -> bool:
    """Whether the middle of the blob's bounding box (`OUTLINES.inner_box`) has edges enough to
    be a card's print (`OUTLINES.min_inner_edges`): four lookups, where fitting a card to a blob
    is the outline stage's costly step (a pastel checked tablecloth has a thousand blobs, each
    square found by every mask)."""
    x, y, w, h = cv2.boundingRect(contour)
    cut_x, cut_y = int(OUTLINES.inner_box * w), int(OUTLINES.inner_box * h)
    x0, y0, x1, y1 = x + cut_x, y + cut_y, x + w - cut_x, y + h - cut_y
    if x1 <= x0 or y1 <= y0:
        return False
    sums = prepared.edge_sums
    inked = int(sums[y1, x1]) - int(sums[y0, x1]) - int(sums[y1, x0]) + int(sums[y0, x0])
    return inked >= OUTLINES.min_inner_edges * (x1 - x0) * (y1 - y0)


def _side_points(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """40 points along the middle 80 % of each side of each quad (n x 4 x 2), side after side:
    n x 160 x 2."""
    steps = np.linspace(0.1, 0.9, 40)[None, None, :, None]
    starts, ends = quads[:, :, None, :], np.roll(quads, -1, axis=1)[:, :, None, :]
    return cast("NDArray[np.float64]", (starts + steps * (ends - starts)).reshape(len(quads), -1, 2))


def _edge_support(edges: NDArray[np.uint8], quad: Quad) -> float:
    """Share of points along the middle 80 % of the quad's sides that lie on an edge."""
    h, w = edges.shape
    points = _side_points(quad[None])[0]
    x, y = np.round(points[:, 0]).astype(int), np.round(points[:, 1]).astype(int)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    return float((edges[y[inside], x[inside]] > 0).sum()) / len(points)


def fit_quad(
    contour: NDArray[np.int32], filled: bool = True, hull: cv2.typing.MatLike | None = None
) -> Quad | None:
    """The card outline of a blob, or None if the blob is not one whole card. A `filled`
    contour bounds a region, which must fill most of the quad; an unfilled one is a traced
    line, judged by the caller.

    The four sides are the four longest sides of the blob's convex hull, so a corner cut off
    (rounded, or an index glyph joined to a printed border line) does not move the corners:
    they are where the sides meet.

    A photo fits a few hundred blobs, most of them a few hundred points long, so the small
    sums here are worked on plain floats: numpy's call on a 2-vector costs more than the
    arithmetic (its arrays took three quarters of the fitting time, 240 us a blob). `hull`:
    the contour's convex hull (`cv2.convexHull`), when the caller has it already: a textured
    blob's takes a millisecond.
    """
    outline = cv2.convexHull(contour) if hull is None else hull
    perimeter = cv2.arcLength(outline, True)
    poly = np.asarray(cv2.approxPolyDP(outline, OUTLINES.hull_approx * perimeter, True), np.float64).reshape(
        -1, 2
    )
    if len(poly) < 4:
        return None
    steps = np.concatenate((poly[1:], poly[:1])) - poly
    longest = np.sort(np.argsort(-row_lengths(steps))[:4])  # keep the hull's own order
    starts, directions = poly[longest].tolist(), steps[longest].tolist()
    lines = [(*start, *step) for start, step in zip(starts, directions, strict=True)]
    corners = []
    for (px, py, ux, uy), (qx, qy, vx, vy) in zip(lines, lines[1:] + lines[:1], strict=True):
        corner = _meet(px, py, ux, uy, qx, qy, vx, vy, 1e-6 * math.hypot(ux, uy) * math.hypot(vx, vy))
        if corner is None:
            return None
        corners.append(corner)
    # Their middle as `np.mean` works it out (from 0, the corners in turn, then divided).
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = corners
    middle_x, middle_y = (0.0 + ax + bx + cx + dx) / 4.0, (0.0 + ay + by + cy + dy) / 4.0
    if max(max(abs(x - middle_x), abs(y - middle_y)) for x, y in corners) > perimeter:
        return None  # two near-parallel sides meeting far away: not a quadrilateral
    quad = _refine_sides(contour.reshape(-1, 2).astype(np.float64), corners)
    if quad is None:
        return None
    quad = order_quad(quad)
    sides = row_lengths(quad - np.concatenate((quad[1:], quad[:1])))
    if sides.min() / sides.max() < OUTLINES.min_side_ratio:
        return None
    fitted = quad_area(quad)
    if fitted <= 0 or (filled and float(cv2.contourArea(contour)) / fitted < OUTLINES.min_quad_fill):
        return None
    if not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    return quad


def _meet(
    px: float, py: float, ux: float, uy: float, qx: float, qy: float, vx: float, vy: float, tolerance: float
) -> tuple[float, float] | None:
    """Where the line through (`px`, `py`) along (`ux`, `uy`) meets the line through (`qx`,
    `qy`) along (`vx`, `vy`), or None when they are parallel: the determinant of (u, -v) no
    bigger than `tolerance`. Cramer's rule on plain floats (np.linalg for a 2 x 2 system cost a
    fifth of a photo's outline fitting)."""
    determinant = vx * uy - ux * vy
    if abs(determinant) < tolerance:
        return None
    t = (vx * (qy - py) - vy * (qx - px)) / determinant
    return px + t * ux, py + t * uy


def _refine_sides(points: NDArray[np.float64], rough: list[tuple[float, float]]) -> Quad | None:
    """Fit a line to the contour points along each side and intersect neighbouring lines.

    The four sides are measured in one pass over the points (a whole contour: a thousand points
    on average, up to a hundred thousand round a textured blob): each point's distance along
    each side from its start, and across it, from one product with the sides' directions.
    `rough`: the corners to start from."""
    lines: list[tuple[float, float, float, float]] = []  # a point on each side, and its unit
    lengths = []
    for (ax, ay), (bx, by) in zip(rough, rough[1:] + rough[:1], strict=True):
        length = math.hypot(bx - ax, by - ay)
        if length < 4:
            return None
        lines.append((ax, ay, (bx - ax) / length, (by - ay) / length))
        lengths.append(length)
    # Along each side, then across it (the unit turned a quarter turn, as `quarter_turn` does).
    axes = np.array([(ux, uy) for _, _, ux, uy in lines] + [(-uy, ux) for _, _, ux, uy in lines])
    starts = [ax * ux + ay * uy for ax, ay, ux, uy in lines] + [ay * ux - ax * uy for ax, ay, ux, uy in lines]
    measured = points @ axes.T
    measured -= starts
    along, across = measured[:, :4], np.abs(measured[:, 4:], out=measured[:, 4:])
    # The middle 70 % of each side, away from the rounded corners (worked in place: a textured
    # blob's contour has a hundred thousand points).
    near = along > [0.15 * length for length in lengths]
    near &= along < [0.85 * length for length in lengths]
    near &= across < [max(3.0, 0.04 * length) for length in lengths]
    # Each side's points are picked by a row of its own from the points made float32 once: the
    # same points, in order (106.9 -> 94.6 us a refit, over 2,695 refits of development shows).
    fine, sides = points.astype(np.float32), np.ascontiguousarray(near.T)
    for i, count in enumerate(np.count_nonzero(sides, axis=1).tolist()):
        if count >= 5:
            fitted = cv2.fitLine(fine[sides[i]], cv2.DIST_L2, 0, 0.01, 0.01)
            vx, vy, x0, y0 = fitted.ravel().tolist()
            lines[i] = (x0, y0, vx, vy)
    result = []
    for i in range(4):
        corner = _meet(*lines[i - 1], *lines[i], 1e-6)
        if corner is None:
            return None
        result.append(corner)
    # A refit that moves a corner far from the rough corner has locked onto something else.
    moved = max(max(abs(x - a), abs(y - b)) for (x, y), (a, b) in zip(result, rough, strict=True))
    if moved > 0.25 * math.sqrt(max(quad_area(np.array(rough)), 1.0)):
        return None
    return np.array(result)


def paper_outlines(prepared: Prepared, blobs: list[Blob]) -> list[Blob]:
    """The blobs whose outline could be a card's: fitted, and with a border of colourless paper
    (`OUTLINES.max_border_saturation`, looked at along the middle 80 % of each side,
    `OUTLINES.border_inset` inside it).

    Any enclosed region of a card's size and shape is fitted, and on a patterned table there are
    hundreds: the squares of a checkered cloth. Each outline is read at both index corners, so a
    generated show on a green checkered cloth took 5 s of CPU, 6,400 outline proposals, and the
    app's photo worker refused it as too complex. Their saturated borders rule them out here,
    in one array pass, before they are compared and read."""
    fitted = [blob for blob in blobs if blob.quad is not None]
    if not fitted:
        return []
    quads = np.array([blob.quad for blob in fitted])
    # Each corner moved towards the middle by twice the inset: every side moves in by the
    # inset's share of the card's width or length (exactly so for a rectangle).
    middles = quads.mean(axis=1, keepdims=True)
    inner = middles + (quads - middles) * (1.0 - 2.0 * OUTLINES.border_inset)
    points = _side_points(inner)
    h, w = prepared.saturation.shape
    x = np.clip(np.round(points[..., 0]).astype(np.intp), 0, w - 1)
    y = np.clip(np.round(points[..., 1]).astype(np.intp), 0, h - 1)
    border = np.median(prepared.saturation[y, x], axis=1)
    return [blob for blob, s in zip(fitted, border, strict=True) if s <= OUTLINES.max_border_saturation]


def unique_quads(blobs: list[Blob]) -> list[Quad]:
    """The distinct card outlines among `blobs` (the masks often find the same card).

    Each outline is compared only with the kept ones whose bounding box overlaps its own, in
    one array test: `quad_iou` finds no overlap between the others, by the same comparison. A
    photo of a busy table can give well over a thousand outlines, and comparing every pair took
    seconds (a generated show on a patterned table: 1,557 outlines, 207,000 pairs, 2.3 s)."""
    quads: list[Quad] = []
    lows = np.empty((len(blobs), 2))
    highs = np.empty((len(blobs), 2))
    for blob in sorted(blobs, key=lambda b: -b.area):
        if blob.quad is None:
            continue
        low, high = blob.quad.min(axis=0), blob.quad.max(axis=0)
        k = len(quads)
        near = np.flatnonzero(~((lows[:k] >= high).any(axis=1) | (low >= highs[:k]).any(axis=1)))
        if all(quad_iou(blob.quad, quads[i]) < OUTLINES.duplicate_iou for i in near):
            lows[k], highs[k] = low, high
            quads.append(blob.quad)
    return quads


def outline_proposals(quads: list[Quad]) -> list[Proposal]:
    """Both index corners of every whole-card outline (read both ways up when squarish)."""
    proposals: list[Proposal] = []
    outline = 0
    for quad in quads:
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        ways = [quad]
        if (sides[0] + sides[2]) / (sides[1] + sides[3]) > OUTLINES.square_ratio:
            ways.append(np.roll(quad, -1, axis=0))
        for way in ways:
            homography = card_homography(way)
            proposals.append(Proposal(homography, outline, way, Stage.OUTLINE))
            proposals.append(
                Proposal(homography @ ROTATE_HALF_TURN, outline, np.roll(way, -2, axis=0), Stage.OUTLINE)
            )
            outline += 1
            # The same two corners as lone square frames sized by the top edge: right even
            # when the outline is of the visible part of a card only.
            for start in (0, 2):
                turned = np.roll(way, -start, axis=0)
                top, side = turned[1] - turned[0], turned[3] - turned[0]
                width = float(np.linalg.norm(top))
                if width >= 1.0 and float(np.linalg.norm(side)) >= 1.0:
                    homography = corner_homography(turned[0], top, side / np.linalg.norm(side) * width)
                    proposals.append(
                        Proposal(homography, None, card_corners_from_frame(homography), Stage.OUTLINE_CORNER)
                    )
    return proposals
