"""Find where cards are: whole-card outlines, and lone card corners where outlines merge.

Cards are light, nearly colourless rectangles. No single threshold separates them from every
table (dark felt, light wood, a white cloth, uneven lamp light), so several masks are tried and
their outlines pooled; the classifier later decides which outlines really hold a card:

- global Otsu on a "paper" image (bright and unsaturated),
- a local threshold (brighter than the neighbourhood) for uneven light,
- regions enclosed by edges, for light tables where brightness alone cannot tell.

Each outline becomes a quadrilateral: the convex hull approximated to four corners, each side
then refitted as a straight line so rounded card corners do not pull the corners inwards.
Closed edge loops are traced as well (the classic "find squares").

Where outlines fail (overlapping or fanned cards, a card half under a book, a card touching
something as light as itself) two kinds of lone corner are proposed instead:

- every roughly square convex corner of a blob, as a card frame;
- every rank-above-suit pair of ink glyphs on light paper, the rank's long axis giving the
  card's up-down direction and its height the card's size;
- every place where two straight edges on paper meet at a near-right angle (a card lying on
  another), at the card widths of the outlines read surely.

All of these are only proposals; the classifier decides which show an index.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import (
    CARD_ASPECT,
    Quad,
    corner_homography,
    order_quad,
    quad_area,
    quad_iou,
    quarter_turn,
)

MIN_CARD_WIDTH_PX = 28
"""Narrowest card, in working-image pixels, whose index can still be read: its rank glyph is
then about 4 px tall."""

MIN_CARD_AREA_PX = 0.8 * CARD_ASPECT * MIN_CARD_WIDTH_PX**2
"""Smallest blob area, in square pixels, worth fitting a card to (with slack for tilt)."""

MAX_CARD_AREA = 1.0
"""Largest outline as a share of the image: a photo of one card filling the frame."""

MIN_SIDE_RATIO = 0.33
"""Smallest short-side to long-side ratio of a card outline: a poker card (0.72) seen at the
steepest supported tilt (45 degrees) foreshortened along its length, with slack."""

MIN_QUAD_FILL = 0.86
"""Least share of its fitted quadrilateral a blob must fill to count as one whole card; two
overlapping cards or a card with a corner covered fill less."""

PADDING_PX = 6
"""Dark frame added around the image so a card that fills the photo still has an outline."""

CORNER_ANGLE_RANGE = (55.0, 125.0)
"""Interior angles, in degrees, of blob corners that may be a card corner (90 degrees seen at
up to 45 degrees tilt)."""

CLOSE_INDEX = 0.012
"""Width of the wider closing, as a share of the photo's long side: about the size of an index
glyph on a small card, which thresholds cut out of the card's mask."""

EDGE_PERCENTILE = 93.0
"""Percentile of gradient strength taken as Canny's high threshold: card outlines are among the
strongest edges in a table photo, whatever its exposure."""

LOCAL_MARGIN = 12
"""Grey levels by which card paper must outshine its neighbourhood in the local threshold."""

HULL_APPROX = 0.01
"""Tolerance, as a share of the perimeter, for simplifying a blob's convex hull before its four
longest sides are taken as the card's sides."""

DUPLICATE_IOU = 0.85
"""Outlines from different masks overlapping this much are the same outline."""


@dataclass(frozen=True)
class Prepared:
    """The working image and the derived images the detectors share."""

    bgr: NDArray[np.uint8]
    gray: NDArray[np.uint8]
    paper: NDArray[np.uint8]
    """Brightness minus saturation: high on white card stock, lower on coloured tables."""

    @functools.cached_property
    def edges(self) -> NDArray[np.uint8]:
        """Canny edges of `gray` (see `_edge_map`), found once: three detectors trace them."""
        return _edge_map(self.gray)

    @functools.cached_property
    def edge_contours(self) -> Sequence[cv2.typing.MatLike]:
        """Every trace of `edges` (outer borders and holes), found once: two detectors fit them."""
        contours, _ = cv2.findContours(self.edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        return contours


def prepare(bgr: NDArray[np.uint8]) -> Prepared:
    """Compute the grey and "paper" images used by the detectors."""
    gray = cast(NDArray[np.uint8], cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    paper = cv2.subtract(hsv[:, :, 2], cv2.multiply(hsv[:, :, 1], np.array([0.6])))
    return Prepared(bgr=bgr, gray=gray, paper=cast(NDArray[np.uint8], paper))


def _odd(value: float) -> int:
    return max(3, int(value) // 2 * 2 + 1)


def card_masks(prepared: Prepared) -> list[NDArray[np.uint8]]:
    """Binary masks (255 = maybe card) from the complementary thresholds described above."""
    h, w = prepared.gray.shape
    scale = max(h, w)
    paper = cv2.GaussianBlur(prepared.paper, (5, 5), 0)
    _, otsu = cv2.threshold(paper, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Brighter than the surroundings by a margin; the block spans about two cards.
    local = cv2.adaptiveThreshold(
        paper, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, _odd(scale / 6), -LOCAL_MARGIN
    )
    return [cast(NDArray[np.uint8], otsu), cast(NDArray[np.uint8], local), _edge_regions(prepared.edges)]


def _edge_map(gray: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Canny edges with thresholds set from the photo's own gradient strengths."""
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1)
    magnitude = cv2.magnitude(gx, gy)
    high = float(np.clip(np.percentile(magnitude[::4, ::4], EDGE_PERCENTILE), 40.0, 400.0))
    edges = cv2.Canny(blurred, 0.4 * high, high)
    return cast(NDArray[np.uint8], cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))))


def _edge_regions(edges: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Regions enclosed by strong edges (card outlines on a light table)."""
    # Everything not an edge and not connected to the photo border is an enclosed region.
    regions = cv2.bitwise_not(edges)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(regions, connectivity=4)
    touching = set(np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])).tolist())
    keep = np.zeros(count, np.uint8)
    for label in range(1, count):
        if label not in touching and stats[label, cv2.CC_STAT_AREA] >= 0.5 * MIN_CARD_AREA_PX:
            keep[label] = 255
    filled = keep[labels]
    # Give back the edge width the dilation took off the region.
    return cast(NDArray[np.uint8], cv2.dilate(filled, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))))


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
    h, w = prepared.gray.shape
    image_area = float(h * w)
    blobs: list[Blob] = []
    small = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    large = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_odd(CLOSE_INDEX * max(h, w)),) * 2)
    for mask in masks:
        # Close the ink of pips inside the card and open away thin bridges; a second, wider
        # closing also fills index glyphs that bite into a small card's edge. The closed mask
        # is kept unopened as well: a court card's picture leaves only a thin ring of white
        # border, which the opening would cut.
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, small)
        fine = cv2.morphologyEx(closed, cv2.MORPH_OPEN, small)
        for variant in (closed, fine, cv2.morphologyEx(fine, cv2.MORPH_CLOSE, large)):
            padded = cv2.copyMakeBorder(
                variant, PADDING_PX, PADDING_PX, PADDING_PX, PADDING_PX, cv2.BORDER_CONSTANT, value=0
            )
            contours, _ = cv2.findContours(padded, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            for contour in contours:
                area = float(cv2.contourArea(contour))
                if MIN_CARD_AREA_PX <= area <= MAX_CARD_AREA * image_area:
                    shifted = np.asarray(contour, np.int32) - PADDING_PX
                    blobs.append(Blob(contour=shifted, quad=fit_quad(shifted), area=area, lone_corners=True))
    # Closed edge loops (the classic "find squares" approach) catch cards touching each other
    # or lying on a table as light as they are.
    for contour in prepared.edge_contours:
        area = float(cv2.contourArea(contour))
        if MIN_CARD_AREA_PX <= area <= MAX_CARD_AREA * image_area:
            quad = fit_quad(contour.astype(np.int32))
            if quad is not None:
                blobs.append(Blob(contour=contour.astype(np.int32), quad=quad, area=area, lone_corners=False))
    return blobs


GAP_BRIDGE = 0.012
"""Gaps in a card's traced outline, as a share of the photo's long side (15 pixels at working
size), that are bridged before it is traced again: in a dim, noisy photo of cards on a table
nearly as light as they are, the edges of a card's sides break into pieces a few pixels
apart."""

OUTLINE_SUPPORT = 0.75
"""Share of an unclosed outline's four sides (their middle 80 %) that must lie on edges: a
card's straight sides are there with a gap or two; print, pips and texture whose hull
happens to be four-sided are not."""

HULL_RECT_FILL = 0.75
"""Least share of its smallest enclosing rectangle a card outline's hull fills: a card seen so
steeply that its near side looks twice as long as its far side fills three quarters."""


def broken_outline_blobs(prepared: Prepared) -> list[Blob]:
    """Whole-card outlines in the edges that `find_blobs` cannot fit.

    `find_blobs` fits edge loops that fill their quad. In a dim, noisy photo of cards on a
    table nearly as light as they are, a card's traced outline breaks into pieces, or joins
    print and texture into a loop that does not fill the card. So the loops are fitted again
    by their hulls, and the edges are traced once more with their gaps bridged
    (`GAP_BRIDGE`); a quad is kept when its trace fills it or when the edges run along its
    sides (`OUTLINE_SUPPORT`).
    """
    h, w = prepared.gray.shape
    image_area = float(h * w)
    edges = prepared.edges
    bridge = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_odd(GAP_BRIDGE * max(h, w)),) * 2)
    bridged, _ = cv2.findContours(
        cv2.morphologyEx(edges, cv2.MORPH_CLOSE, bridge), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE
    )
    blobs = []
    for contours, unbridged in ((prepared.edge_contours, True), (bridged, False)):
        for contour in _card_sized(contours):
            area = float(cv2.contourArea(contour))
            if unbridged and area < MIN_CARD_AREA_PX:
                continue  # an open trace, unbridged: not one card's outline
            hull_area = float(cv2.contourArea(cv2.convexHull(contour)))
            if not MIN_CARD_AREA_PX <= hull_area <= MAX_CARD_AREA * image_area:
                continue
            (_, _), (a, b), _ = cv2.minAreaRect(contour)
            if hull_area < HULL_RECT_FILL * a * b:
                continue  # not four-sided (fitting is the costly step, so rule it out first)
            quad = fit_quad(contour, filled=False)
            if quad is None:
                continue
            fills = area >= MIN_QUAD_FILL * quad_area(quad)
            if not fills and _edge_support(edges, quad) < OUTLINE_SUPPORT:
                continue
            blobs.append(Blob(contour=contour, quad=quad, area=hull_area, lone_corners=False))
    return blobs


def _card_sized(contours: Sequence[cv2.typing.MatLike]) -> list[NDArray[np.int32]]:
    """The contours whose bounding box could hold a card (tens of thousands of specks of
    texture are ruled out in one array pass)."""
    if not contours:
        return []
    counts = np.array([len(c) for c in contours])
    points = np.concatenate(contours).reshape(-1, 2)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    low, high = np.minimum.reduceat(points, starts), np.maximum.reduceat(points, starts)
    boxes = np.prod(high - low + 1, axis=1)
    return [np.asarray(contours[int(i)], np.int32) for i in np.flatnonzero(boxes >= MIN_CARD_AREA_PX)]


def _edge_support(edges: NDArray[np.uint8], quad: Quad) -> float:
    """Share of points along the middle 80 % of the quad's sides that lie on an edge."""
    h, w = edges.shape
    steps = np.linspace(0.1, 0.9, 40)[:, None]
    points = np.concatenate([quad[i] + steps * (quad[(i + 1) % 4] - quad[i]) for i in range(4)])
    x, y = np.round(points[:, 0]).astype(int), np.round(points[:, 1]).astype(int)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    return float((edges[y[inside], x[inside]] > 0).sum()) / len(points)


def fit_quad(contour: NDArray[np.int32], filled: bool = True) -> Quad | None:
    """The card outline of a blob, or None if the blob is not one whole card. A `filled`
    contour bounds a region, which must fill most of the quad; an unfilled one is a traced
    line, judged by the caller.

    The four sides are the four longest sides of the blob's convex hull, so a corner cut off
    (rounded, or an index glyph joined to a printed border line) does not move the corners:
    they are where the sides meet.
    """
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    poly = np.asarray(cv2.approxPolyDP(hull, HULL_APPROX * perimeter, True), np.float64).reshape(-1, 2)
    if len(poly) < 4:
        return None
    lengths = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    longest = np.sort(np.argsort(-lengths)[:4])  # keep the hull's own order
    lines = [(poly[i], np.roll(poly, -1, axis=0)[i] - poly[i]) for i in longest]
    corners = []
    for (p, u), (q, v) in zip(lines, lines[1:] + lines[:1], strict=True):
        matrix = np.array([[u[0], -v[0]], [u[1], -v[1]]])
        if abs(np.linalg.det(matrix)) < 1e-6 * float(np.linalg.norm(u) * np.linalg.norm(v)):
            return None
        t = np.linalg.solve(matrix, q - p)
        corners.append(p + t[0] * u)
    rough = np.array(corners)
    if np.abs(rough - rough.mean(axis=0)).max() > perimeter:
        return None  # two near-parallel sides meeting far away: not a quadrilateral
    quad = _refine_sides(contour.reshape(-1, 2).astype(np.float64), rough)
    if quad is None:
        return None
    quad = order_quad(quad)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if sides.min() / sides.max() < MIN_SIDE_RATIO:
        return None
    fitted = quad_area(quad)
    if fitted <= 0 or (filled and float(cv2.contourArea(contour)) / fitted < MIN_QUAD_FILL):
        return None
    if not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    return quad


def _refine_sides(points: NDArray[np.float64], corners: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Fit a line to the contour points along each side and intersect neighbouring lines."""
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        direction = b - a
        length = float(np.linalg.norm(direction))
        if length < 4:
            return None
        unit = direction / length
        normal = quarter_turn(unit)
        rel = points - a
        along = rel @ unit
        across = rel @ normal
        # The middle 70 % of the side, away from the rounded corners.
        near = (along > 0.15 * length) & (along < 0.85 * length) & (np.abs(across) < max(3.0, 0.04 * length))
        if near.sum() < 5:
            lines.append((a, unit))
            continue
        vx, vy, x0, y0 = cv2.fitLine(points[near].astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    result = []
    for i in range(4):
        p, u = lines[i - 1]
        q, v = lines[i]
        matrix = np.array([[u[0], -v[0]], [u[1], -v[1]]])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return None
        t = np.linalg.solve(matrix, q - p)
        result.append(p + t[0] * u)
    refined = np.array(result)
    # A refit that moves a corner far from the rough corner has locked onto something else.
    if np.abs(refined - corners).max() > 0.25 * math.sqrt(max(quad_area(corners), 1.0)):
        return None
    return refined


def unique_quads(blobs: list[Blob]) -> list[Quad]:
    """The distinct card outlines among `blobs` (the masks often find the same card)."""
    quads: list[Quad] = []
    for blob in sorted(blobs, key=lambda b: -b.area):
        if blob.quad is None:
            continue
        if all(quad_iou(blob.quad, kept) < DUPLICATE_IOU for kept in quads):
            quads.append(blob.quad)
    return quads


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


CORNER_APPROX = 0.006
"""Polygon tolerance for blob outlines, as a share of the perimeter: fine enough to keep the
small steps a fanned hand's corners make."""

MIN_TOP_SIDE = 0.08
MIN_LONG_SIDE = 0.12
"""Shortest visible top and long side at a lone corner, in card widths. An object or another
card can touch a card right beside its index, so these are far below the index's own size;
they only reject the kinks of ragged, textured blobs."""

WIDTH_MERGE = 0.12
"""Card-width guesses closer than this (relative) are the same guess."""

SAME_CORNER_DISTANCE = 0.04
SAME_CORNER_COS = 0.985
"""Corner frames closer than this many card widths and turned less than 10 degrees apart are
one corner: a patch's classifier tolerates that much misplacement."""

MAX_LONE_CORNERS = 400
"""Upper bound on lone-corner proposals per photo, which bounds the time a busy table costs."""


def outline_polygon(contour: NDArray[np.int32]) -> NDArray[np.float64]:
    """A blob's outline simplified to straight sides, as (n, 2) points."""
    perimeter = cv2.arcLength(contour, True)
    approx = cv2.approxPolyDP(contour, max(1.5, CORNER_APPROX * perimeter), True)
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
    lo, hi = CORNER_ANGLE_RANGE
    for i in range(n):
        here, before, after = approx[i], approx[i - 1], approx[(i + 1) % n]
        a, b = before - here, after - here
        la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if la < 3 or lb < 3:
            continue
        cross = a[0] * b[1] - a[1] * b[0]
        # Convex when the turn at this vertex has the polygon's own orientation.
        if (cross > 0) == (signed > 0):
            continue
        angle = math.degrees(math.acos(float(np.clip(a @ b / (la * lb), -1.0, 1.0))))
        if not lo <= angle <= hi:
            continue
        ua, ub = a / la, b / lb
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
    for width in sorted(w for w in widths if w >= MIN_CARD_WIDTH_PX):
        if not kept or width > kept[-1] * (1 + WIDTH_MERGE):
            kept.append(width)
    return kept


def corner_homographies(
    blobs: list[Blob], widths: list[float], explained: list[Quad]
) -> list[NDArray[np.float64]]:
    """Card frames at the lone corners of every blob not already read as one whole card.

    `widths` are card widths known from whole cards in the photo; without them each blob's
    own `width_guesses` are used. Blobs whose outline matches one of the `explained` quads are
    skipped. The masks often trace the same corner several times; each place, direction and
    width is kept once, largest blobs first, at most `MAX_LONE_CORNERS`.
    """
    homographies: list[NDArray[np.float64]] = []
    seen = np.zeros((MAX_LONE_CORNERS, 5))  # origin x, y, top-side direction x, y, card width
    for blob in sorted(blobs, key=lambda b: -b.area):
        if not blob.lone_corners:
            continue
        if blob.quad is not None and any(quad_iou(blob.quad, quad) > DUPLICATE_IOU for quad in explained):
            continue
        guesses = widths or width_guesses(blob)
        for frame in corner_frames(blob.contour):
            for width in guesses:
                if frame.x_length < MIN_TOP_SIDE * width or frame.y_length < MIN_LONG_SIDE * width:
                    continue
                key = np.array([frame.origin[0], frame.origin[1], frame.x_unit[0], frame.x_unit[1], width])
                if _seen_corner(key, seen[: len(homographies)]):
                    continue
                seen[len(homographies)] = key
                homographies.append(frame_homography(frame, width))
                if len(homographies) >= MAX_LONE_CORNERS:
                    return homographies
    return homographies


SQUARE_SKEW = math.radians(10)
"""A lone corner whose sides meet further than this from a right angle is also proposed
squared up (see `squared_homographies`)."""


def squared_homographies(homography: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """The corner frame `homography`, skewed more than `SQUARE_SKEW`, squared up on each side.

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
    if abs(float(x_axis @ y_axis)) / (width * length) <= math.sin(SQUARE_SKEW):
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
        (np.abs(seen[:, 4] - key[4]) < WIDTH_MERGE * width)
        & (np.hypot(seen[:, 0] - key[0], seen[:, 1] - key[1]) < SAME_CORNER_DISTANCE * width)
        & (seen[:, 2] * key[2] + seen[:, 3] * key[3] > SAME_CORNER_COS)
    )
    return bool(same.any())


def frame_homography(frame: CornerFrame, card_width: float) -> NDArray[np.float64]:
    """Affine map from card coordinates to the image for a card `card_width` px wide at `frame`."""
    return corner_homography(frame.origin, frame.x_unit * card_width, frame.y_unit * card_width)


def card_corners_from_frame(homography: NDArray[np.float64]) -> Quad:
    """Image corners of the whole card implied by a corner frame (TL, TR, BR, BL)."""
    card = np.array([[[0.0, 0.0], [1.0, 0.0], [1.0, CARD_ASPECT], [0.0, CARD_ASPECT]]])
    return cast(Quad, cv2.perspectiveTransform(card, homography)[0])


# Corners where two straight card edges meet -------------------------------------------------

SEGMENT_MIN_LENGTH = 0.2
"""Shortest straight edge, in card widths, taken as a card's side: about the visible length of
a side beside an index when the card lying on it covers the rest."""

SEGMENT_GAP = 0.12
"""How far, in card widths, an edge may stop short of (or run past) the corner it makes with
another: rounded card corners and blur end the straight part a little before the corner."""

MAX_SEGMENTS = 200
"""The longest straight edges kept per photo, which bounds the pairs tried."""

MAX_SEGMENT_CORNERS = 150
"""Upper bound on edge-corner proposals per photo."""

NEAR_EXPLAINED = 0.1
"""An edge corner this close (in card widths) to a corner of a surely read outline is that
card's own corner, already read."""


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
        minLineLength=max(6, int(SEGMENT_MIN_LENGTH * smallest)),
        maxLineGap=4,
    )
    if found is None:
        return []
    segments = found[:, 0].astype(np.float64)
    lengths = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    order = np.argsort(-lengths)[:MAX_SEGMENTS]
    segments, lengths = segments[order], lengths[order]
    starts, ends = segments[:, :2], segments[:, 2:]
    units = (ends - starts) / lengths[:, None]
    # Every pair's crossing point, from p_i + s u_i = p_j + t u_j.
    i, j = np.triu_indices(len(segments), 1)
    cross = units[i, 0] * units[j, 1] - units[i, 1] * units[j, 0]
    # |sin| of the angle between them: within CORNER_ANGLE_RANGE, at least the sine at its ends.
    steep = np.abs(cross) >= min(math.sin(math.radians(a)) for a in CORNER_ANGLE_RANGE)
    i, j, cross = i[steep], j[steep], cross[steep]
    delta = starts[j] - starts[i]
    s_i = (delta[:, 0] * units[j, 1] - delta[:, 1] * units[j, 0]) / cross
    corners = starts[i] + s_i[:, None] * units[i]
    gap = SEGMENT_GAP * smallest
    keep = np.ones(len(i), bool)
    away = []
    for k in (i, j):
        # Positions of the segment's two ends along its line, measured from the corner.
        t0 = np.einsum("nk,nk->n", starts[k] - corners, units[k])
        t1 = np.einsum("nk,nk->n", ends[k] - corners, units[k])
        first_nearer = np.abs(t0) < np.abs(t1)
        near, far = np.where(first_nearer, t0, t1), np.where(first_nearer, t1, t0)
        keep &= (np.abs(near) <= gap) & (np.abs(far) >= SEGMENT_MIN_LENGTH * smallest)
        away.append(units[k] * np.sign(far)[:, None])
    homographies: list[NDArray[np.float64]] = []
    seen = np.zeros((MAX_SEGMENT_CORNERS, 5))
    explained_corners = np.concatenate(explained) if explained else np.zeros((0, 2))
    for n in np.flatnonzero(keep):
        origin, a, b = corners[n], away[0][n], away[1][n]
        if _near_any(explained_corners, origin, NEAR_EXPLAINED * smallest):
            continue
        x_unit, y_unit = (a, b) if _right_handed(a, b) else (b, a)
        for width in widths:
            key = np.array([origin[0], origin[1], x_unit[0], x_unit[1], width])
            if _seen_corner(key, seen[: len(homographies)]):
                continue
            seen[len(homographies)] = key
            homographies.append(corner_homography(origin, x_unit * width, y_unit * width))
            if len(homographies) >= MAX_SEGMENT_CORNERS:
                return homographies
    return homographies


def _near_any(points: NDArray[np.float64], origin: NDArray[np.float64], radius: float) -> bool:
    """Whether any of `points` (n, 2) lies within `radius` of `origin`."""
    return bool(len(points)) and float(np.hypot(*(points - origin).T).min()) < radius


# Index glyphs found directly ------------------------------------------------------------------

GLYPH_MIN_PX = 4
"""Smallest glyph height, in pixels, that could be a readable rank."""

GLYPH_MAX_SHARE = 0.13
"""Largest glyph height as a share of the photo's long side (a card filling the frame has a
rank glyph about this size)."""

INK_CONTRAST = 0.7
"""A pixel is ink when darker than this share of the brightest paper near it."""

INK_RED = 45
"""Or when its red channel exceeds both others by this many grey levels (red suits)."""

FRAME_LINE_SHARE = 0.04
"""Straight thin strokes at least this share of the photo's long side long are frame lines
around court-card pictures, not print of an index (see `_long_lines`)."""

TABLE_CORE_RADII = (2, 3)
"""Erosion radii, in pixels, that find dark table (`_dark_table`): strokes up to about twice
as wide vanish. The first finds narrow table between cards too; the second leaves a thicker
rank alone (see `find_glyphs`)."""

TABLE_MARGIN = 2
"""Pixels of margin cut around the dark table found."""

FREED_PAPER_BRIGHTNESS = 0.9
"""The paper around a glyph that only the coarser table cut sets free must be at least this
share of the photo's brightest grey: card stock. On a textured table that cut also frees the
table's own narrow dark streaks, which lie on lighter table (a striped light table measured
0.80-0.84), not on card stock."""

PAPER_WINDOW = 0.04
"""Neighbourhood, as a share of the photo's long side, whose brightest grey is taken as the
paper around a glyph: wider than any stroke, narrow enough to stay on the card."""

PAPER_BRIGHTNESS = 0.5
"""The paper around a glyph must be at least this share of the photo's brightest grey (98th
percentile): card stock is the lightest thing in a table photo, bar glare."""

INK_DEPTH = 0.75
"""A glyph's mean grey must be at most this share of the paper around it (printed indices are
dark or saturated red; table texture and shading are not). Thin strokes of a small rank, red
ones above all, blur to about 0.65 of the paper, so the bar sits above that."""

RANK_TO_SUIT = (0.6, 2.1)
"""Distance from rank centre to suit centre, in rank-glyph sizes, over every deck rendered. The
low end is a wide serif "A" with its suit tucked just under it (0.65)."""

SUIT_TO_RANK_SIZE = (0.4, 1.25)
"""Size of the suit glyph relative to the rank glyph in an index."""

RANK_SHARE_OF_WIDTH = (0.15, 0.2)
"""Rank glyph height in card widths, over the decks rendered (0.135-0.225); each value gives
one card-size hypothesis."""

RANK_CENTRE = (0.1, 0.14)
"""Where the rank glyph's centre sits, in card widths from the card's corner (median deck)."""

TYPICAL_SUIT_RATIO = 0.75
TYPICAL_SPACING = 1.15
"""Suit size over rank size, and rank-to-suit distance over rank size, of a typical index."""

EDGE_WINDOW = 2.5
"""Half-width, in rank sizes, of the window whose edges give a glyph pair's orientation: it
reaches the card's top and side edges beside the index."""

MIN_COHERENCE = 0.15
"""Folded edge directions must agree at least this much (0 = none, 1 = all parallel or
square) to be trusted over the rank-to-suit direction."""

SAME_DIRECTION = math.radians(8)
"""Directions closer than this give the same frame, near enough for the classifier."""

MAX_SUIT_OFFSET = math.radians(35)
"""Largest angle between the rank-to-suit direction and the card's down direction: decks set
the suit under the rank, at most slightly to one side."""

MAX_GLYPH_PAIRS = 250
"""Upper bound on glyph pairs read per photo (each at every `RANK_SHARE_OF_WIDTH`)."""

JOINED_ELONGATION = (1.6, 5.0)
"""Length over breadth of one ink component that may be a whole index, its rank and suit run
together (small or blurred print, or a deck that sets them close): about 2-4 over the decks
rendered, and 4.5 for a narrow "J" touching its suit, while pips and most court-card print are
squatter."""

JOINED_WIDTHS = (2.5, 3.1, 3.9)
"""Card widths, in lengths of a joined index, to try: the index runs 0.25-0.4 card widths over
the decks rendered."""

JOINED_LENGTH_IN_RANKS = 2.1
"""Length of a joined index in rank-glyph heights (rank, gap, suit of a typical index)."""

MAX_JOINED = 60
"""Upper bound on joined-index components read per photo, the most index-like first."""


@dataclass(frozen=True)
class Glyphs:
    """Connected ink components that could be index glyphs."""

    centres: NDArray[np.float64]
    """(n, 2) centroids in pixels."""
    sizes: NDArray[np.float64]
    """Longer side of each bounding box, in pixels."""
    axes: NDArray[np.float64]
    """(n, 2) unit vectors along each component's long axis (second moments)."""
    lengths: NDArray[np.float64]
    breadths: NDArray[np.float64]
    """Extent along and across the long axis, in pixels (of a bar with the same moments)."""

    def moved(self, offset: NDArray[np.float64]) -> Glyphs:
        """The same glyphs, found in a crop whose corner is `offset` in the photo."""
        return replace(self, centres=self.centres + offset)

    def where(self, which: NDArray[np.bool_]) -> Glyphs:
        """The glyphs that `which` picks."""
        return Glyphs(*(getattr(self, f.name)[which] for f in fields(Glyphs)))

    def plus(self, other: Glyphs) -> Glyphs:
        """These glyphs, then `other`'s."""
        names = [f.name for f in fields(Glyphs)]
        return Glyphs(*(np.concatenate([getattr(self, name), getattr(other, name)]) for name in names))


def paper_regions(masks: list[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    """Where cards may be: card-sized regions of the masks with every hole filled."""
    filled = np.zeros_like(masks[0])
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        big = [c for c in contours if cv2.contourArea(c) >= MIN_CARD_AREA_PX]
        cv2.drawContours(filled, big, -1, 255, thickness=cv2.FILLED)
    return filled


def find_glyphs(prepared: Prepared, paper_mask: NDArray[np.uint8]) -> Glyphs:
    """Dark or red ink blobs lying on light paper inside `paper_mask` (255 = maybe card).

    Dark table is cut out of the ink first (`_dark_table`), so that an index touching its
    card's edge stands alone. A thick rank touching the edge, or touching a picture frame that
    touches it, can be taken for table with it and vanish; the blobs a coarser cut sets free
    are looked at again, and those that are glyphs the first look missed are added.
    """
    h, w = prepared.gray.shape
    max_px = GLYPH_MAX_SHARE * max(h, w)
    line_px = FRAME_LINE_SHARE * max(h, w)
    gray = prepared.gray
    window = _odd(PAPER_WINDOW * max(h, w))
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (window, window))
    paper = np.asarray(cv2.dilate(gray, square), np.uint8)
    brightest = float(np.percentile(gray[::4, ::4], 98))
    dark = (gray.astype(np.float32) < INK_CONTRAST * paper.astype(np.float32)).astype(np.uint8)
    bgr = prepared.bgr.astype(np.int16)
    red = (bgr[:, :, 2] - np.maximum(bgr[:, :, 0], bgr[:, :, 1])) > INK_RED
    on_paper = ((dark > 0) | red) & (paper_mask > 0)
    table, broad_table = _dark_table(dark, max_px)
    first = _ink_glyphs(on_paper & (table == 0), gray, paper, max_px, line_px, PAPER_BRIGHTNESS * brightest)
    freed = (on_paper & (table > 0) & (broad_table == 0)).astype(np.uint8)
    if not freed.any():
        return first
    # Only blobs that a freed pixel belongs to are looked at again: around those pixels, as
    # far as a glyph reaches.
    x, y, box_w, box_h = cv2.boundingRect(freed)
    reach = math.ceil(max_px)
    x0, y0 = max(x - reach, 0), max(y - reach, 0)
    x1, y1 = min(x + box_w + reach, w), min(y + box_h + reach, h)
    around = np.s_[y0:y1, x0:x1]
    left = (on_paper[around] & (broad_table[around] == 0)).astype(np.uint8)
    _, labels = cv2.connectedComponents(left, connectivity=8)
    touched = np.zeros(int(labels.max()) + 1, np.bool_)
    touched[labels[freed[around] > 0]] = True
    touched[0] = False
    again = _ink_glyphs(
        touched[labels], gray[around], paper[around], max_px, line_px, FREED_PAPER_BRIGHTNESS * brightest
    )
    more = again.moved(np.array([x0, y0], np.float64))
    return first.plus(more.where(~_found_before(more, first)))


def _found_before(these: Glyphs, found: Glyphs) -> NDArray[np.bool_]:
    """Which of `these` glyphs are one of `found` again: the same centre and size (each within
    a tenth of the size)."""
    if not (len(these.sizes) and len(found.sizes)):
        return np.zeros(len(these.sizes), np.bool_)
    offsets = these.centres[:, None, :] - found.centres[None, :, :]
    sizes = these.sizes[:, None]
    apart = np.hypot(offsets[..., 0], offsets[..., 1])
    alike = (apart <= 0.1 * sizes) & (np.abs(found.sizes[None, :] - sizes) <= 0.1 * sizes)
    return np.asarray(alike.any(axis=1), np.bool_)


def _ink_glyphs(
    ink: NDArray[np.bool_],
    gray: NDArray[np.uint8],
    paper: NDArray[np.uint8],
    max_px: float,
    line_px: float,
    min_paper: float,
) -> Glyphs:
    """The components of `ink`, long thin lines cut away (`_long_lines`), that are shaped like
    glyphs and are crisp ink on paper at least `min_paper` bright."""
    h, w = gray.shape
    mask = ink.astype(np.uint8)
    mask = _erase(mask, _long_lines(mask, line_px))
    count, found, stats, middles = cv2.connectedComponentsWithStats(mask, connectivity=8)
    labels = np.asarray(found, np.int32)
    centres = np.asarray(middles, np.float64)
    widths = stats[1:, cv2.CC_STAT_WIDTH].astype(np.float64)
    heights = stats[1:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    sizes = np.maximum(widths, heights)
    fill = areas / np.maximum(widths * heights, 1.0)
    ys, xs = np.nonzero(labels)
    which = labels[ys, xs]
    # Print on a card is crisp ink on bright paper; texture on a table is neither.
    ink_sum = np.bincount(which, weights=gray[ys, xs], minlength=count)[1:]
    ink_level = ink_sum / np.maximum(areas, 1.0)
    cx = np.clip(np.round(centres[1:, 0]).astype(int), 0, w - 1)
    cy = np.clip(np.round(centres[1:, 1]).astype(int), 0, h - 1)
    paper_level = paper[cy, cx].astype(np.float64)
    bright = paper_level >= min_paper
    crisp = ink_level <= INK_DEPTH * paper_level
    shaped = (sizes >= GLYPH_MIN_PX) & (sizes <= max_px) & (fill > 0.12) & (fill < 0.97)
    keep = shaped & bright & crisp
    axes, lengths, breadths = _principal_axes(ys, xs, which, count, centres)
    return Glyphs(centres[1:], sizes, axes[1:], lengths[1:], breadths[1:]).where(keep)


def _long_lines(ink: NDArray[np.uint8], min_length: float) -> NDArray[np.int32]:
    """Long, thin straight strokes of `ink`, as (n, 4) segments x1, y1, x2, y2.

    On many court cards the index touches the thin line framing the picture; joined to it the
    rank is one big component and no longer a glyph. Glyph strokes are short or curved, so
    cutting the long straight thin lines sets the index free and leaves glyphs whole.
    """
    # Strokes up to about four pixels wide do not survive a 5 x 5 opening: those are thin.
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
    thin = cv2.subtract(ink, cv2.morphologyEx(ink, cv2.MORPH_OPEN, square))
    length = max(int(min_length), 8)
    lines = cv2.HoughLinesP(thin, 1, math.pi / 360, threshold=length // 2, minLineLength=length, maxLineGap=2)
    return np.zeros((0, 4), np.int32) if lines is None else np.asarray(lines[:, 0], np.int32)


def _erase(ink: NDArray[np.uint8], lines: NDArray[np.int32]) -> NDArray[np.uint8]:
    """`ink` with `lines` (see `_long_lines`) erased."""
    for x1, y1, x2, y2 in lines:
        cv2.line(ink, (int(x1), int(y1)), (int(x2), int(y2)), 0, 5)
    return ink


def _principal_axes(
    ys: NDArray[np.intp],
    xs: NDArray[np.intp],
    which: NDArray[np.int32],
    count: int,
    centres: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Long-axis unit vector, length and breadth of every labelled component, from its pixels
    (`ys`, `xs`, labelled `which`).

    A uniform bar of length L has variance L**2 / 12 along itself, so sqrt(12 * eigenvalue)
    gives the extent of the bar with the same second moments.
    """
    dx = xs - centres[which, 0]
    dy = ys - centres[which, 1]
    areas = np.maximum(np.bincount(which, minlength=count).astype(np.float64), 1.0)
    sxx = np.bincount(which, weights=dx * dx, minlength=count) / areas
    syy = np.bincount(which, weights=dy * dy, minlength=count) / areas
    sxy = np.bincount(which, weights=dx * dy, minlength=count) / areas
    spread = np.sqrt(((sxx - syy) / 2) ** 2 + sxy**2)
    major = (sxx + syy) / 2 + spread
    minor = np.maximum((sxx + syy) / 2 - spread, 0.0)
    angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    axes = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    return axes, np.sqrt(12 * major), np.sqrt(12 * minor)


def _dark_table(dark: NDArray[np.uint8], max_px: float) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """Dark regions too big to be print, grown by a few pixels: as found at the finest scale,
    and without the parts of those no wider than a thick stroke.

    A small card's index can touch its edge; on a dark table the glyph then joins the table
    in the ink mask. Thin strokes do not survive an erosion, broad table does, so the table
    found that way (and a margin) is cut out and the glyph stands alone again. A thick rank
    can survive the erosion, and so be taken for table when it touches the card's edge; eroded
    again, the table keeps only its broad parts.
    """
    fine, coarse = TABLE_CORE_RADII
    table = _big_parts(np.asarray(cv2.erode(dark, _disc(fine)), np.uint8), max_px)
    broad = _big_parts(np.asarray(cv2.erode(table, _disc(coarse - fine)), np.uint8), max_px)
    return (
        np.asarray(cv2.dilate(table, _disc(fine + TABLE_MARGIN)), np.uint8),
        np.asarray(cv2.dilate(broad, _disc(coarse + TABLE_MARGIN)), np.uint8),
    )


def _big_parts(mask: NDArray[np.uint8], max_px: float) -> NDArray[np.uint8]:
    """The components of `mask` too big to be print (wider or taller than `max_px`)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    big = (stats[:, cv2.CC_STAT_WIDTH] > max_px) | (stats[:, cv2.CC_STAT_HEIGHT] > max_px)
    big[0] = False
    return np.asarray(big[labels], np.uint8)


def _disc(radius: int) -> NDArray[np.uint8]:
    """An elliptical structuring element `radius` pixels around its centre."""
    side = 2 * radius + 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)), np.uint8)


@dataclass(frozen=True)
class EdgeOrientation:
    """Summed-area tables of edge strength and of its direction folded to a quarter turn.

    Card edges are the longest straight lines near an index, and a card's two edges at a
    corner are a quarter turn apart; folding angles four times over (the angle of a vector
    (cos 4a, sin 4a)) makes both vote for one direction, while curved print cancels out.
    """

    cos4: NDArray[np.float64]
    sin4: NDArray[np.float64]
    strength: NDArray[np.float64]

    def dominant(self, centre: NDArray[np.float64], half: float) -> tuple[float, float]:
        """(angle mod 90 degrees in radians, coherence 0..1) of the edges in a square window."""
        h, w = self.strength.shape[0] - 1, self.strength.shape[1] - 1
        x0, y0 = max(int(centre[0] - half), 0), max(int(centre[1] - half), 0)
        x1, y1 = min(int(centre[0] + half) + 1, w), min(int(centre[1] + half) + 1, h)
        if x1 <= x0 or y1 <= y0:
            return 0.0, 0.0

        def total(table: NDArray[np.float64]) -> float:
            return float(table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0])

        c, s, m = total(self.cos4), total(self.sin4), total(self.strength)
        if m <= 0:
            return 0.0, 0.0
        return math.atan2(s, c) / 4.0, math.hypot(c, s) / m


def edge_orientation(gray: NDArray[np.uint8]) -> EdgeOrientation:
    """Summed-area tables of folded edge direction for `gray` (see `EdgeOrientation`)."""
    blurred = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    # Squaring favours strong, straight card edges over faint texture.
    weight = magnitude * magnitude
    return EdgeOrientation(
        cos4=np.asarray(cv2.integral(weight * np.cos(4 * angle)), np.float64),
        sin4=np.asarray(cv2.integral(weight * np.sin(4 * angle)), np.float64),
        strength=np.asarray(cv2.integral(weight), np.float64),
    )


def glyph_homographies(glyphs: Glyphs, edges: EdgeOrientation) -> list[NDArray[np.float64]]:
    """Card frames for index-like glyph pairs and for single components shaped like an index."""
    return pair_homographies(glyphs, edges) + joined_index_homographies(glyphs, edges)


def pair_homographies(glyphs: Glyphs, edges: EdgeOrientation) -> list[NDArray[np.float64]]:
    """Card frames for the most index-like rank-above-suit pairs of glyphs.

    The pair says roughly which way is down (rank to suit; decks set the suit a little to one
    side, and "10" is two glyphs side by side). The straight edges around the rank usually
    say it exactly: of the four directions a quarter turn apart that they give, the one
    nearest the rank-to-suit direction is down. In a fan the edges of several cards mix, so
    the rank-to-suit direction is proposed as well when the two differ. The rank's size gives the card's
    size and the frame's corner is placed where the median deck puts it. Pairs are ranked by
    how typical their size ratio and spacing are (pips pair up too, but are equal in size and
    further apart) and at most `MAX_GLYPH_PAIRS` are kept.
    """
    centres, sizes = glyphs.centres.astype(np.float32), glyphs.sizes.astype(np.float32)
    n = len(sizes)
    if n < 2:
        return []
    dx = centres[None, :, 0] - centres[:, None, 0]
    dy = centres[None, :, 1] - centres[:, None, 1]
    distance = np.hypot(dx, dy)
    # Two digits side by side ("10") also make a rank: add each close, same-height pair.
    similar = np.abs(sizes[None, :] - sizes[:, None]) < 0.25 * sizes[:, None]
    beside = similar & (distance < 1.1 * sizes[:, None]) & (distance > 0.3 * sizes[:, None])
    first, second = np.nonzero(np.triu(beside, 1))
    rank_centres = np.concatenate([centres, (centres[first] + centres[second]) / 2])
    rank_sizes = np.concatenate([sizes, np.maximum(sizes[first], sizes[second])])
    dx = centres[None, :, 0] - rank_centres[:, None, 0]
    dy = centres[None, :, 1] - rank_centres[:, None, 1]
    spacing = np.hypot(dx, dy) / rank_sizes[:, None]
    ratio = sizes[None, :] / rank_sizes[:, None]
    ok = (
        (spacing >= RANK_TO_SUIT[0])
        & (spacing <= RANK_TO_SUIT[1])
        & (ratio >= SUIT_TO_RANK_SIZE[0])
        & (ratio <= SUIT_TO_RANK_SIZE[1])
    )
    ranks, suits = np.nonzero(ok)
    if ranks.size == 0:
        return []
    oddness = np.abs(np.log(ratio[ranks, suits] / TYPICAL_SUIT_RATIO)) + np.abs(
        np.log(spacing[ranks, suits] / TYPICAL_SPACING)
    )
    homographies = []
    for k in np.argsort(oddness, kind="stable")[:MAX_GLYPH_PAIRS]:
        r, s = ranks[k], suits[k]
        towards = math.atan2(float(dy[r, s]), float(dx[r, s]))
        centre = rank_centres[r].astype(np.float64)
        homographies += _index_frames(centre, float(rank_sizes[r]), towards, edges)
    return homographies


def joined_index_homographies(glyphs: Glyphs, edges: EdgeOrientation) -> list[NDArray[np.float64]]:
    """Card frames for single ink components shaped like a whole index (rank and suit joined).

    Either end of the long axis may be the rank, so both ways are proposed; the most typically
    shaped `MAX_JOINED` components are kept.
    """
    elongation = glyphs.lengths / np.maximum(glyphs.breadths, 1e-6)
    rank_sizes = glyphs.lengths / JOINED_LENGTH_IN_RANKS
    ok = (
        (elongation >= JOINED_ELONGATION[0])
        & (elongation <= JOINED_ELONGATION[1])
        & (rank_sizes >= GLYPH_MIN_PX)
    )
    chosen = np.nonzero(ok)[0]
    typical = math.sqrt(JOINED_ELONGATION[0] * JOINED_ELONGATION[1])
    chosen = chosen[np.argsort(np.abs(np.log(elongation[chosen] / typical)), kind="stable")][:MAX_JOINED]
    homographies = []
    for k in chosen:
        rank = float(rank_sizes[k])
        widths = [float(glyphs.lengths[k]) * factor for factor in JOINED_WIDTHS]
        for sign in (1.0, -1.0):
            down = sign * glyphs.axes[k]
            centre = glyphs.centres[k] - down * (glyphs.lengths[k] - rank) / 2
            towards = math.atan2(float(down[1]), float(down[0]))
            homographies += _index_frames(centre, rank, towards, edges, widths)
    return homographies


def _index_frames(
    centre: NDArray[np.float64],
    rank_size: float,
    towards: float,
    edges: EdgeOrientation,
    widths: list[float] | None = None,
) -> list[NDArray[np.float64]]:
    """Card frames for a rank glyph at `centre`, the card's down direction near `towards`
    (radians), snapped to the card edges around it when they are clear; the card widths to try
    are `widths`, or those the rank's size gives (`RANK_SHARE_OF_WIDTH`)."""
    directions = [towards]
    angle, coherence = edges.dominant(centre, EDGE_WINDOW * rank_size)
    if coherence >= MIN_COHERENCE:
        # Of angle + k * 90 degrees, the one nearest the rank-to-suit direction.
        snapped = angle + round((towards - angle) / (math.pi / 2)) * math.pi / 2
        if abs(towards - snapped) <= SAME_DIRECTION:
            directions = [snapped]
        elif abs(towards - snapped) <= MAX_SUIT_OFFSET:
            directions = [snapped, towards]
    homographies = []
    for direction in directions:
        down = np.array([math.cos(direction), math.sin(direction)])
        across = -quarter_turn(down)  # right-handed: across x down > 0 on screen
        for width in widths or [rank_size / share for share in RANK_SHARE_OF_WIDTH]:
            origin = centre - RANK_CENTRE[0] * width * across - RANK_CENTRE[1] * width * down
            homographies.append(corner_homography(origin, across * width, down * width))
    return homographies
