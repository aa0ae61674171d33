"""Stage 1, prepare: the working image's grey and "paper" images, its edges, and the masks of
where cards may be.

Cards are light, nearly colourless rectangles. No single threshold separates them from every
table (dark felt, light wood, a white cloth, uneven lamp light), so several masks are made and
their outlines pooled; the classifier later decides which outlines really hold a card:

- global Otsu on a "paper" image (bright and unsaturated),
- a local threshold (brighter than the neighbourhood) for uneven light,
- regions enclosed by edges, for light tables where brightness alone cannot tell.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import CARD_ASPECT, build_pyramid


@dataclass(frozen=True)
class PrepareThresholds:
    """The card size every stage assumes at least, and the thresholds of the masks."""

    min_card_width_px: int = 28
    """Narrowest card, in working-image pixels, whose index can still be read: its rank glyph is
    then about 4 px tall."""
    edge_percentile: float = 93.0
    """Percentile of gradient strength taken as Canny's high threshold: card outlines are among the
    strongest edges in a table photo, whatever its exposure."""
    local_margin: int = 12
    """Grey levels by which card paper must outshine its neighbourhood in the local threshold."""
    notch: float = 0.012
    """Widest gap, as a share of the image's long side, through which a hole in a card's paper
    may open to the table and still be filled (`paper_and_notches`): an index printed up to the
    card's edge, its rank's ring broken by the edge, left one about 12 px wide on a card 110 px
    wide in the 1280 px working image (development show 8,800,057), where this is 15 px."""
    notched_fill: float = 0.35
    """Least share of its upright bounding box a region must fill to have its notches closed
    (`paper_and_notches`): a card turned 45 degrees fills half of its box."""

    @property
    def min_card_area_px(self) -> float:
        """Smallest blob area, in square pixels, worth fitting a card to (with slack for tilt)."""
        return 0.8 * CARD_ASPECT * self.min_card_width_px**2


PREPARE = PrepareThresholds()


@dataclass(frozen=True)
class Prepared:
    """The working image and the derived images the detectors share, each made once, when
    first asked for: an untold reading starts the edges on its second thread as soon as the
    grey image is made (`vision.recognise.find_candidates`), and makes the rest meanwhile."""

    bgr: NDArray[np.uint8]
    gray: NDArray[np.uint8]

    @functools.cached_property
    def _paper_and_saturation(self) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
        hsv = cv2.cvtColor(self.bgr, cv2.COLOR_BGR2HSV)
        saturation = np.ascontiguousarray(hsv[:, :, 1], np.uint8)
        paper = cv2.subtract(hsv[:, :, 2], cv2.multiply(saturation, np.array([0.6])))
        return cast(NDArray[np.uint8], paper), saturation

    @property
    def paper(self) -> NDArray[np.uint8]:
        """Brightness minus saturation: high on white card stock, lower on coloured tables."""
        return self._paper_and_saturation[0]

    @property
    def saturation(self) -> NDArray[np.uint8]:
        """HSV saturation (0-255): low on card stock whatever the light, high on a coloured table
        (see `vision.detect.paper_outlines`)."""
        return self._paper_and_saturation[1]

    @functools.cached_property
    def pyramid(self) -> list[NDArray[np.uint8]]:
        """The working image's pyramid (`geometry.build_pyramid`), which the index corners are
        read from."""
        return build_pyramid(self.bgr)

    @functools.cached_property
    def edges(self) -> NDArray[np.uint8]:
        """Canny edges of `gray` (see `_edge_map`), found once: three detectors trace them."""
        return _edge_map(self.gray)

    @functools.cached_property
    def edge_sums(self) -> NDArray[np.int32]:
        """The summed-area table of `edges` (1 per edge pixel), one row and column larger: the
        edge pixels in any upright box in four lookups (`vision.detect.outlines`)."""
        return cast(NDArray[np.int32], cv2.integral(np.minimum(self.edges, 1), sdepth=cv2.CV_32S))

    @functools.cached_property
    def enclosed(self) -> NDArray[np.uint8]:
        """The last card mask (see `card_masks`): regions enclosed by strong edges, made once: a
        reading told how many cards to expect looks at it first
        (`vision.recognise.edge_outlines`)."""
        return _edge_regions(self.edges)

    @functools.cached_property
    def fits(self) -> dict[bytes, NDArray[np.float64] | None]:
        """The card outline fitted to each distinct contour (by a digest of its points), as
        `vision.detect.outlines` fits it without its fill test: the masks and their variants
        trace a fifth of a photo's contours more than once, point for point."""
        return {}

    @functools.cached_property
    def edge_contours(self) -> list[NDArray[np.int32]]:
        """The traces of `edges` (outer borders and holes) whose bounding box could hold a card
        (`card_sized_contours`), found once: two detectors fit them, and a busy table's edges
        trace twenty thousand specks, 1-3 ms to rule out."""
        contours, _ = cv2.findContours(self.edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        return card_sized_contours(contours)


def card_sized_contours(contours: Sequence[cv2.typing.MatLike]) -> list[NDArray[np.int32]]:
    """The contours whose bounding box could hold a card (tens of thousands of specks of
    texture are ruled out in one array pass)."""
    if not contours:
        return []
    counts = np.array([len(c) for c in contours])
    points = np.concatenate(contours).reshape(-1, 2)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    low, high = np.minimum.reduceat(points, starts), np.maximum.reduceat(points, starts)
    boxes = np.prod(high - low + 1, axis=1)
    return [np.asarray(contours[int(i)], np.int32) for i in np.flatnonzero(boxes >= PREPARE.min_card_area_px)]


def prepare(bgr: NDArray[np.uint8]) -> Prepared:
    """The images the detectors share, for a working-size BGR image: its grey image now, the
    others as they are first asked for (see `Prepared`)."""
    return Prepared(bgr=bgr, gray=cast(NDArray[np.uint8], cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)))


def odd_kernel(value: float) -> int:
    """The odd kernel size nearest below `value`, at least 3."""
    return max(3, int(value) // 2 * 2 + 1)


ELLIPSE_IN_RECTANGLES_FROM = 15
"""Least side of an elliptical structuring element that `ellipse_morphology` works as
rectangles: OpenCV works an ellipse by each of its pixels in turn (169 for 15 x 15), a rectangle
by a row and a column. Closing a 1280 x 960 mask took 3.5-4.3 ms with 15 x 15 as one ellipse
and 2.5-3.0 as rectangles, 5.5-5.9 and 3.1-3.8 with 19 x 19; at 13 x 13 the two were even,
and smaller ellipses are sooner as one (three runs each)."""


@functools.cache
def ellipse_rectangles(size: int) -> tuple[tuple[int, int], ...]:
    """OpenCV's elliptical structuring element `size` x `size` as centred rectangles (width,
    height), widest first, whose union it is: one for each width its rows take, as tall as its
    rows of that width or wider. Its rows are centred and grow to the middle one, so those rows
    lie together round the middle row."""
    widths = np.count_nonzero(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)), axis=1)
    rectangles = []
    for width in sorted(set(widths.tolist()), reverse=True):
        rows = np.flatnonzero(widths >= width)
        rectangles.append((int(width), int(rows[-1] - rows[0] + 1)))
    return tuple(rectangles)


def ellipse_morphology(image: cv2.typing.MatLike, operation: int, size: int) -> NDArray[np.uint8]:
    """`cv2.morphologyEx(image, operation, ellipse)` with OpenCV's elliptical element `size` x
    `size` (`operation`: `cv2.MORPH_DILATE`, `MORPH_ERODE`, `MORPH_CLOSE` or `MORPH_OPEN`), the
    same pixels, sooner for a large ellipse (`ELLIPSE_IN_RECTANGLES_FROM`).

    A dilation by a union of shapes is the largest of the dilations by each (an erosion the
    least of the erosions), and a rectangle's is its row's and then its column's, as OpenCV
    works it; each rectangle's row here grows from the one before, narrower (see
    `ellipse_rectangles`). Outside the image counts for nothing either way, as OpenCV's
    default border does."""
    if operation not in (cv2.MORPH_DILATE, cv2.MORPH_ERODE, cv2.MORPH_CLOSE, cv2.MORPH_OPEN):
        raise ValueError(f"ellipse_morphology works dilate, erode, close and open, not operation {operation}")
    if size < ELLIPSE_IN_RECTANGLES_FROM:
        ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        return np.asarray(cv2.morphologyEx(image, operation, ellipse), np.uint8)
    if operation == cv2.MORPH_CLOSE:
        return _by_rectangles(_by_rectangles(image, size, True), size, False)
    if operation == cv2.MORPH_OPEN:
        return _by_rectangles(_by_rectangles(image, size, False), size, True)
    return _by_rectangles(image, size, operation == cv2.MORPH_DILATE)


def _by_rectangles(image: cv2.typing.MatLike, size: int, dilate: bool) -> NDArray[np.uint8]:
    """`image` dilated (`dilate`) or eroded by the ellipse `size` x `size`, as the union of its
    rectangles (`ellipse_rectangles`), narrowest first."""
    step, join = (cv2.dilate, cv2.max) if dilate else (cv2.erode, cv2.min)
    done: cv2.typing.MatLike | None = None
    rows, row_width = image, 1
    for width, height in reversed(ellipse_rectangles(size)):
        if width > row_width:
            rows = step(rows, cv2.getStructuringElement(cv2.MORPH_RECT, (width - row_width + 1, 1)))
            row_width = width
        rectangle = step(rows, cv2.getStructuringElement(cv2.MORPH_RECT, (1, height)))
        done = rectangle if done is None else join(done, rectangle, dst=done)
    assert done is not None  # every ellipse has a row
    return np.asarray(done, np.uint8)


def card_masks(prepared: Prepared) -> list[NDArray[np.uint8]]:
    """Binary masks (255 = maybe card) from the complementary thresholds described above."""
    h, w = prepared.gray.shape
    scale = max(h, w)
    paper = cv2.GaussianBlur(prepared.paper, (5, 5), 0)
    _, otsu = cv2.threshold(paper, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Brighter than the surroundings by a margin; the block spans about two cards.
    local = cv2.adaptiveThreshold(
        paper,
        255,
        cv2.ADAPTIVE_THRESH_MEAN_C,
        cv2.THRESH_BINARY,
        odd_kernel(scale / 6),
        -PREPARE.local_margin,
    )
    return [cast(NDArray[np.uint8], otsu), cast(NDArray[np.uint8], local), prepared.enclosed]


def _edge_map(gray: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Canny edges with thresholds set from the photo's own gradient strengths (those of every
    fourth row and column: `sampled_gradient`)."""
    blurred = np.asarray(cv2.GaussianBlur(gray, (5, 5), 0), np.uint8)
    high = float(np.clip(np.percentile(sampled_gradient(blurred), PREPARE.edge_percentile), 40.0, 400.0))
    edges = cv2.Canny(blurred, 0.4 * high, high)
    return cast(NDArray[np.uint8], cv2.dilate(edges, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))))


GRADIENT_STEP = 4
"""Every this many rows and columns, the gradient's strength is sampled for Canny's thresholds."""


def sampled_gradient(blurred: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The strength of the 3 x 3 Sobel gradient of `blurred` (OpenCV's, borders reflected as
    BORDER_REFLECT_101 reflects them) at every `GRADIENT_STEP`-th row and column from the first:
    `cv2.magnitude` of the two `cv2.Sobel` images, taken at those pixels, but worked out there
    alone, in whole numbers until the square root. The whole images and their magnitude took
    4-7 ms of a photo (three float images written and dropped) to give a sixteenth of their
    pixels; this takes under 1. The square root is the correctly rounded one, where OpenCV's
    magnitude is off by an ulp or two: the percentile taken from them moved by at most 1.2e-7
    of itself over 532 photos (the shared ones, 240 generated, each at full and half size),
    and Canny's thresholds, which it rounds down to whole numbers, not at all."""
    height, width = blurred.shape
    step = GRADIENT_STEP
    framed = cv2.copyMakeBorder(blurred, 1, 1, 1, 1, cv2.BORDER_REFLECT_101).astype(np.int32)
    rows, columns = -(-height // step), -(-width // step)
    # The rows above, at and below each sampled pixel, then the columns left of, at and right of it.
    above, level, below = (framed[dy : dy + step * rows : step] for dy in range(3))

    def at(row: NDArray[np.int32], dx: int) -> NDArray[np.int32]:
        return row[:, dx : dx + step * columns : step]

    across = (at(above, 2) - at(above, 0)) + 2 * (at(level, 2) - at(level, 0)) + (at(below, 2) - at(below, 0))
    down = (at(below, 0) + 2 * at(below, 1) + at(below, 2)) - (at(above, 0) + 2 * at(above, 1) + at(above, 2))
    return cast(NDArray[np.float32], np.sqrt((across * across + down * down).astype(np.float32)))


def _edge_regions(edges: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Regions enclosed by strong edges (card outlines on a light table)."""
    # Everything not an edge and not connected to the photo border is an enclosed region.
    regions = cv2.bitwise_not(edges)
    # Only the regions' areas are wanted: counted from the labels, not with OpenCV's statistics
    # (bounding boxes and centroids besides), which took three times the labelling's time.
    count, found = cv2.connectedComponents(regions, connectivity=4)
    labels = np.asarray(found, np.int32)
    touching = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    big = np.bincount(labels.ravel(), minlength=count) >= 0.5 * PREPARE.min_card_area_px
    big[0] = False  # the edges themselves
    big[touching] = False
    # np.take: the same pixels as indexing by the labels, in half the time (0.9 against 1.7 ms).
    filled = np.take(np.where(big, np.uint8(255), np.uint8(0)), labels)
    # Give back the edge width the dilation took off the region.
    return cast(NDArray[np.uint8], cv2.dilate(filled, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))))


def paper_regions(masks: list[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    """Where cards may be: card-sized regions of the masks with every hole filled."""
    return _filled(masks[0].shape, [[contour for contour, _ in sized] for sized in _mask_regions(masks)])


def paper_and_notches(masks: list[NDArray[np.uint8]]) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """`paper_regions`, and the same with each card-like region's notches closed too: every hole
    that opens to the table through a gap narrower than `PrepareThresholds.notch`. The glyph
    search looks for ink on the second.

    An index printed up to the card's edge (some decks' court cards) is a notch in the masks,
    not a hole, and its ink joins the picture inside the frame: filling only the outer contour
    left the index, and the picture behind it, off the paper where glyphs are looked for (a
    development show lost a queen of hearts so). Each region is closed on its own, so two
    regions, or a card and a light streak of the table, are not joined across the table
    between them. The straight-edge search keeps the first: its Hough transform answers to
    every edge pixel let in, and with the notches let in too it found and lost cards by chance."""
    per_mask = _mask_regions(masks)
    paper = _filled(masks[0].shape, [[contour for contour, _ in sized] for sized in per_mask])
    notched = paper.copy()
    h, w = paper.shape
    size = odd_kernel(PREPARE.notch * max(h, w))
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))
    for contour, area in (each for sized in per_mask for each in sized):
        x, y, cw, ch = cv2.boundingRect(contour)
        if area < PREPARE.notched_fill * cw * ch:
            # A streak of a wooden table or a cloth's pattern, thin and winding: taken as it is
            # (closing every streak too took up to 0.1 s on a development photo).
            continue
        x0, y0 = max(x - size, 0), max(y - size, 0)
        x1, y1 = min(x + cw + size, w), min(y + ch + size, h)
        region = _filled((y1 - y0, x1 - x0), [[contour]], (-x0, -y0))
        closed = cv2.morphologyEx(region, cv2.MORPH_CLOSE, kernel)
        outer, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(region, outer, -1, 255, thickness=cv2.FILLED)
        np.maximum(notched[y0:y1, x0:x1], region, out=notched[y0:y1, x0:x1])
    return paper, notched


def _mask_regions(masks: list[NDArray[np.uint8]]) -> list[list[tuple[cv2.typing.MatLike, float]]]:
    """For each mask, the outer contours of its regions of at least `min_card_area_px`, with
    their areas."""
    per_mask = []
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        sized = ((contour, float(cv2.contourArea(contour))) for contour in contours)
        per_mask.append([(contour, area) for contour, area in sized if area >= PREPARE.min_card_area_px])
    return per_mask


def _filled(
    shape: tuple[int, ...], groups: list[list[cv2.typing.MatLike]], offset: tuple[int, int] = (0, 0)
) -> NDArray[np.uint8]:
    """A blank image of `shape` with each group of contours (moved by `offset`) drawn filled, a
    group at a time: drawn together, contours that overlap (one mask's over another's) would
    cancel where they overlap."""
    filled = np.zeros(shape, np.uint8)
    for contours in groups:
        cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED, offset=offset)
    return filled


@dataclass(frozen=True)
class ShadowLift:
    """Where a photo's light is dim on paper-coloured ground, and the photo lifted there."""

    photo: NDArray[np.uint8]
    """The BGR photo as taken."""
    gain: NDArray[np.float32]
    """How much each pixel is raised (1.0 where it is left as taken)."""

    @functools.cached_property
    def pixels(self) -> NDArray[np.uint8]:
        """The BGR photo with each such place raised to the photo's lit level: made when first
        asked for, as most photos' `gain` is looked at and the lifted photo never read."""
        lifted = np.clip(self.photo.astype(np.float32) * self.gain[:, :, None], 0, 255)
        return cast(NDArray[np.uint8], lifted.astype(np.uint8))


SHADOW_WINDOW = 0.03
"""Size of the closing, as a share of the photo's long side, whose result is taken as the light
falling on a place (`lift_shadow`): wider than an index's strokes, narrower than an arm's
shadow."""
SHADOW_LIGHT = (0.3, 0.8)
"""The light, as shares of the photo's lit level, that `lift_shadow` takes for a shadow on
paper: a player's arm leaves 35-65 % of a lamp's (`vision.synth.CAST_SHADOW_LIGHT`); darker is a
dark table, brighter is light that varies across the photo."""
SHADOW_SATURATION = 60
"""Most HSV saturation (0-255) about a place that `lift_shadow` lifts: card paper and a light
table stay nearly colourless in a shadow; a coloured table is left as it is."""


def lift_shadow(bgr: NDArray[np.uint8]) -> ShadowLift:
    """`bgr` with the places in a shadow (`SHADOW_LIGHT`, `SHADOW_SATURATION`) lifted to the
    photo's lit level: the light is the grey image's closing (`SHADOW_WINDOW`), and the lit
    level its 95th percentile. Worked at half size; the gain is smoothed a little so that a
    shadow's soft edge is lifted smoothly."""
    h, w = bgr.shape[:2]
    half = cv2.resize(bgr, (max(w // 2, 1), max(h // 2, 1)), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
    size = odd_kernel(SHADOW_WINDOW * max(h, w) / 2)
    light = ellipse_morphology(gray, cv2.MORPH_CLOSE, size).astype(np.float32)
    colour = ellipse_morphology(cv2.cvtColor(half, cv2.COLOR_BGR2HSV)[:, :, 1], cv2.MORPH_ERODE, size)
    lit = float(np.percentile(light, 95))
    low, high = SHADOW_LIGHT
    shaded = (light >= low * lit) & (light <= high * lit) & (colour <= SHADOW_SATURATION)
    raised = np.where(shaded, lit / np.maximum(light, 1.0), np.float32(1.0)).astype(np.float32)
    smooth = cv2.GaussianBlur(raised, (0, 0), 1.5)
    gain = np.asarray(cv2.resize(smooth, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    return ShadowLift(photo=bgr, gain=gain)
