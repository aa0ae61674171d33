"""Stage 4, glyphs: dark or red ink blobs on light paper that could be an index's rank or suit.

Long thin straight strokes are cut out of the ink first (on many court cards the rank touches
the line framing the picture), and so is dark table (what survives an erosion that thin
strokes do not), so that an index touching its card's edge stands alone. The blobs that a
coarser table cut sets free are looked at again, on paper nearly as bright as card stock.
Read untold, the glyphs are looked for a third time with the shorter straight lines among
broader strokes cut (the edge of a card lying over another, drawn by its border and shadow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from threading import Event

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect.prepare import Prepared, odd_kernel
from vision.detect.proposal import Share, stop_if


@dataclass(frozen=True)
class GlyphThresholds:
    """What is ink, what is paper, what is table, and what size a glyph may be."""

    min_px: int = 4
    """Smallest glyph height, in pixels, that could be a readable rank."""
    max_share: float = 0.13
    """Largest glyph height as a share of the photo's long side (a card filling the frame has a
    rank glyph about this size)."""
    ink_contrast: float = 0.7
    """A pixel is ink when darker than this share of the brightest paper near it."""
    ink_red: int = 45
    """Or when its red channel exceeds both others by this many grey levels (red suits)..."""
    red_over_paper: int = 30
    """... and by this many more than the card stock's own (`paper_redness`): under warm light,
    or on cream or pink stock, the paper itself is 50 levels redder than it is green, and was
    all taken for red ink, one component the size of the cards, so no glyph was found."""
    frame_line_share: float = 0.04
    """Straight thin strokes at least this share of the photo's long side long are frame lines
    around court-card pictures, not print of an index (see `_long_lines`)."""
    short_line_share: float = 0.02
    """Straight thin strokes at least this share of the photo's long side long are cut too, for
    the glyphs looked for again (`glyph_sets`): on a small card (100-150 pixels wide at the
    working size) the frame around a court card's picture shows shorter than
    `frame_line_share` between the cards over it, and the index touching it (a king's K) is no
    glyph until it is cut."""
    thin_stroke_px: int = 5
    """Strokes narrower than this many pixels (what an opening this wide removes) are the thin
    ones the frame lines and the shorter lines are looked for in (`_strokes`), and those lines
    are cut this wide (`_erase`)."""
    broad_stroke_px: int = 9
    """Strokes narrower than this many pixels (what an opening this wide removes) are looked in
    for the straight lines cut for the third set of glyphs (`glyph_sets`), those lines cut this
    wide: in a deal laid out to show, the edge of the card lying over a strip of another runs
    beside the strip's index, drawn by the deck's dark border and the card's shadow 5 to 9
    pixels wide at the working size, broader than the thin strokes (`thin_stroke_px`) the other
    cuts look in. An index touching it (npm's svg-cards prints its rank up to the border) is no
    glyph until it is cut."""
    table_core_radii: tuple[int, int] = (2, 3)
    """Erosion radii, in pixels, that find dark table (`_dark_table`): strokes up to about twice
    as wide vanish. The first finds narrow table between cards too; the second leaves a thicker
    rank alone (see `find_glyphs`)."""
    table_margin: int = 2
    """Pixels of margin cut around the dark table found."""
    freed_paper_brightness: float = 0.9
    """The paper around a glyph that only the coarser table cut sets free must be at least this
    share of the photo's brightest grey: card stock. On a textured table that cut also frees the
    table's own narrow dark streaks, which lie on lighter table (a striped light table measured
    0.80-0.84), not on card stock. Glyph pairs on card stock are also read past the pairs'
    budget (`vision.detect.index_pairs.pair_homographies`)."""
    paper_window: float = 0.04
    """Neighbourhood, as a share of the photo's long side, whose brightest grey is taken as the
    paper around a glyph: wider than any stroke, narrow enough to stay on the card."""
    paper_brightness: float = 0.5
    """The paper around a glyph must be at least this share of the photo's brightest grey (98th
    percentile): card stock is the lightest thing in a table photo, bar glare."""
    ink_depth: float = 0.75
    """A glyph's mean grey must be at most this share of the paper around it (printed indices are
    dark or saturated red; table texture and shading are not). Thin strokes of a small rank, red
    ones above all, blur to about 0.65 of the paper, so the bar sits above that."""


GLYPHS = GlyphThresholds()


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
    papers: NDArray[np.float64]
    """Grey of the paper around each glyph, as a share of the photo's brightest grey (see
    `GlyphThresholds.paper_brightness`)."""

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


_NO_GLYPHS = Glyphs(np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0))
"""No glyph at all."""


def find_glyphs(prepared: Prepared, paper_mask: NDArray[np.uint8]) -> Glyphs:
    """Every glyph of `glyph_sets`, in one."""
    found, more, broad = glyph_sets(prepared, paper_mask)
    return found.plus(more).plus(broad)


_DARK_BELOW = np.ceil(np.float32(GLYPHS.ink_contrast) * np.arange(256, dtype=np.float32)).astype(np.uint8)
"""For each paper grey, the greys darker than `GLYPHS.ink_contrast` of it are those below this:
`gray < ink_contrast * paper` worked in float32, as one table lookup and one comparison (a
whole number is below a bound exactly when it is below the bound rounded up). The same pixels
for all 65,536 pairs of greys: 0.4 ms a photo against 3.9 for the float32 images."""


def glyph_sets(
    prepared: Prepared,
    paper_mask: NDArray[np.uint8],
    stop: Event | None = None,
    broad: bool = True,
    share: Share | None = None,
) -> tuple[Glyphs, Glyphs, Glyphs]:
    """Dark or red ink blobs lying on light paper inside `paper_mask` (255 = maybe card): those
    found with frame lines cut (`frame_line_share`), those that only cutting the shorter
    lines too (`short_line_share`) sets free, and those that only cutting the shorter lines
    among broader strokes (`broad_stroke_px`) sets free.

    Dark table is cut out of the ink first (`_dark_table`), so that an index touching its
    card's edge stands alone. A thick rank touching the edge, or touching a picture frame that
    touches it, can be taken for table with it and vanish; the blobs a coarser cut sets free
    are looked at again, and those that are glyphs the first look missed are added to the
    first set. The short lines' cut can break a big rank's straight stroke, so its glyphs are
    kept apart (see `vision.detect.index_pairs.glyph_proposals`).

    `stop`: when set, the search raises `Stopped` at its next step (see `stop_if`). `broad`:
    whether to look for the third set (without, it is empty). `share`: where the looks after
    the first (the shorter lines' cut, the broad lines' and the coarser table cut's) are forked,
    for another thread to take (see `Share`); they need only the first look's ink and cut.
    """
    h, w = prepared.gray.shape
    max_px = GLYPHS.max_share * max(h, w)
    line_px = GLYPHS.frame_line_share * max(h, w)
    gray = prepared.gray
    window = odd_kernel(GLYPHS.paper_window * max(h, w))
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (window, window))
    paper = np.asarray(cv2.dilate(gray, square), np.uint8)
    brightest = float(np.percentile(gray[::4, ::4], 98))
    dark = np.less(gray, cv2.LUT(paper, _DARK_BELOW)).view(np.uint8)
    share = share or Share()
    tables = share.fork(_dark_table, dark, max_px)
    # Red over the larger of green and blue, worked in OpenCV's int16 as numpy's would: the
    # same values without the photo copied to int16 (1.3 ms against 0.8).
    blue, green, red_channel = cv2.split(prepared.bgr)
    redness = np.asarray(cv2.subtract(red_channel, cv2.max(blue, green), dtype=cv2.CV_16S), np.int16)
    red = redness > max(GLYPHS.ink_red, paper_redness(redness, gray, brightest) + GLYPHS.red_over_paper)
    on_paper = ((dark > 0) | red) & (paper_mask > 0)
    stop_if(stop)
    table, broad_table = share.join(tables)
    ink = (on_paper & (table == 0)).astype(np.uint8)
    stop_if(stop)
    # The frame lines and the shorter lines are looked for in the same thin strokes.
    thin, width = _strokes(ink, GLYPHS.thin_stroke_px), GLYPHS.thin_stroke_px
    cut = _erase(ink.copy(), _straight_lines(thin, line_px), width)
    looks = _Looks(gray, paper, max_px, GLYPHS.paper_brightness * brightest, brightest)
    stop_if(stop)
    first = _mask_glyphs(cut, looks)
    stop_if(stop)
    short_px = GLYPHS.short_line_share * max(h, w)
    short = share.fork(_lines_cut, width, short_px, cut, looks, stop, thin)
    broadly = share.fork(_lines_cut, GLYPHS.broad_stroke_px, short_px, cut, looks, stop) if broad else None
    freed = share.fork(_freed, on_paper, table, broad_table, first, line_px, looks, stop)
    # Joined in the order forked: a thread that helps takes them from the last.
    shorter = share.join(short)
    broader = _NO_GLYPHS if broadly is None else share.join(broadly)
    found = share.join(freed)
    return found, *_new_sets(found, shorter, broader)


@dataclass(frozen=True)
class _Looks:
    """What every look for glyphs reads them by (`_mask_glyphs`)."""

    gray: NDArray[np.uint8]
    """The grey photo (or the part of it looked in)."""
    paper: NDArray[np.uint8]
    """The brightest grey near each pixel."""
    max_px: float
    """The largest glyph size."""
    min_paper: float
    """The least brightness of the paper around a glyph."""
    brightest: float
    """The photo's brightest grey."""

    def within(self, around: tuple[slice, slice], min_paper: float | None = None) -> _Looks:
        """The same looks in the part `around` of the photo (at least `min_paper` bright, if
        given)."""
        paper = self.min_paper if min_paper is None else min_paper
        return replace(self, gray=self.gray[around], paper=self.paper[around], min_paper=paper)


def _lines_cut(
    width: int,
    min_length: float,
    cut: NDArray[np.uint8],
    looks: _Looks,
    stop: Event | None,
    strokes: NDArray[np.uint8] | None = None,
) -> Glyphs:
    """The glyphs that cutting, `width` pixels wide, the straight lines at least `min_length`
    long among `strokes` (by default the strokes of `cut` narrower than `width`) out of the ink
    with its frame lines `cut` sets free."""
    stop_if(stop)
    lines = _straight_lines(_strokes(cut, width) if strokes is None else strokes, min_length)
    stop_if(stop)
    return _cut_again(lines, width, cut, looks)


def _freed(
    on_paper: NDArray[np.bool_],
    table: NDArray[np.uint8],
    broad_table: NDArray[np.uint8],
    first: Glyphs,
    line_px: float,
    looks: _Looks,
    stop: Event | None,
) -> Glyphs:
    """The `first` glyphs, and after them those that only the coarser table cut (`broad_table`
    in place of `table`) sets free on card stock (`freed_paper_brightness`)."""
    stop_if(stop)
    freed = (on_paper & (table > 0) & (broad_table == 0)).astype(np.uint8)
    if not freed.any():
        return first
    h, w = looks.gray.shape
    # Only blobs that a freed pixel belongs to are looked at again: around those pixels, as
    # far as a glyph reaches.
    x, y, box_w, box_h = cv2.boundingRect(freed)
    reach = math.ceil(looks.max_px)
    x0, y0 = max(x - reach, 0), max(y - reach, 0)
    x1, y1 = min(x + box_w + reach, w), min(y + box_h + reach, h)
    around = np.s_[y0:y1, x0:x1]
    left = (on_paper[around] & (broad_table[around] == 0)).astype(np.uint8)
    on_stock = looks.within(around, GLYPHS.freed_paper_brightness * looks.brightest)
    again = _ink_glyphs(_components_touching(left, freed[around] > 0), line_px, on_stock)
    more = again.moved(np.array([x0, y0], np.float64))
    return first.plus(more.where(~_found_before(more, first)))


def _new_sets(found: Glyphs, short: Glyphs, broad: Glyphs) -> tuple[Glyphs, Glyphs]:
    """The glyphs of `short` not `found` before, and those of `broad` found in neither. The
    broad cut, wider, trims a glyph a thin line's cut set free before, and the glyph trimmed
    is kept: taken for the same glyph when within a third of its size instead of a tenth,
    three of the sixteen cards the broad cut found in 50 development deals were lost."""
    short = short.where(~_found_before(short, found))
    return short, broad.where(~_found_before(broad, found.plus(short)))


def paper_redness(redness: NDArray[np.int16], gray: NDArray[np.uint8], brightest: float) -> float:
    """How much redder than green or blue the card stock is: the median `redness` (red over the
    larger of green and blue) of the brightest pixels (within 5 % of `brightest`, the photo's
    98th percentile grey), on every fourth row and column."""
    sample = np.s_[::4, ::4]
    bright = gray[sample] >= 0.95 * brightest
    return float(np.median(redness[sample][bright])) if bright.any() else 0.0


def _found_before(these: Glyphs, found: Glyphs) -> NDArray[np.bool_]:
    """Which of `these` glyphs are one of `found` again: the same centre and size (each within
    a tenth of the size)."""
    if not (len(these.sizes) and len(found.sizes)):
        return np.zeros(len(these.sizes), np.bool_)
    rows = rows_at_once(len(found.sizes))
    before = np.zeros(len(these.sizes), np.bool_)
    for start in range(0, len(these.sizes), rows):
        block = slice(start, start + rows)
        offsets = these.centres[block, None, :] - found.centres[None, :, :]
        sizes = these.sizes[block, None]
        apart = np.hypot(offsets[..., 0], offsets[..., 1])
        alike = (apart <= 0.1 * sizes) & (np.abs(found.sizes[None, :] - sizes) <= 0.1 * sizes)
        before[block] = alike.any(axis=1)
    return before


PAIRWISE_AT_ONCE = 2**18
"""Glyph pairs compared at once, a block of rows at a time (`_found_before`,
`vision.detect.index_pairs.pair_homographies`): 1 MiB for each float32 matrix of a block, about
6 MiB with a block's temporaries. A patterned tablecloth can give thousands of glyphs, and the
whole matrices of 3,760 (a generated show on a checkered cloth) took more than a photo worker's
200 MiB of address space, which refused the photo as too large; the blocks find the same pairs.
Blocks of 2^20 pairs left that photo needing 162-165 MiB, these 147-148 (the outlines found
meanwhile on the other thread need their share); a photo of 500 glyphs or fewer is one block."""


def rows_at_once(columns: int) -> int:
    """How many rows of a pairwise matrix `columns` wide make a block of `PAIRWISE_AT_ONCE`."""
    return max(1, PAIRWISE_AT_ONCE // max(columns, 1))


def _ink_glyphs(ink: NDArray[np.bool_], line_px: float, looks: _Looks) -> Glyphs:
    """The components of `ink`, long thin lines cut away (`_long_lines`), that are shaped like
    glyphs and are crisp ink on paper (`_mask_glyphs`)."""
    mask = ink.astype(np.uint8)
    cut = _erase(mask, _long_lines(mask, line_px), GLYPHS.thin_stroke_px)
    return _mask_glyphs(cut, looks)


def _cut_again(lines: NDArray[np.int32], width: int, cut: NDArray[np.uint8], looks: _Looks) -> Glyphs:
    """The glyphs (`_mask_glyphs`) among the components that cutting `lines` (`width` pixels
    wide) out of `cut` (the ink with its longer thin lines cut) leaves beside a cut: only those
    can be new."""
    shorter = _erase(cut.copy(), lines, width)
    severed = cv2.dilate(cv2.subtract(cut, shorter), np.ones((3, 3), np.uint8))
    mask = _components_touching(shorter, severed > 0).astype(np.uint8)
    x, y, box_w, box_h = cv2.boundingRect(mask)
    if not box_w:
        return _NO_GLYPHS
    # Read where the new components lie: the whole photo costs as much as the first look.
    around = np.s_[y : y + box_h, x : x + box_w]
    found = _mask_glyphs(mask[around], looks.within(around))
    return found.moved(np.array([x, y], np.float64))


def _components_touching(mask: NDArray[np.uint8], seeds: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The pixels of the components of `mask` (8-connected) that a `seeds` pixel lies on."""
    count, found = cv2.connectedComponents(mask, connectivity=8)
    labels = np.asarray(found, np.int32)
    touched = np.zeros(int(count), np.bool_)
    touched[labels[seeds]] = True
    touched[0] = False
    return np.asarray(np.take(touched, labels), np.bool_)  # take: half the time of touched[labels]


def components_with_stats(
    mask: NDArray[np.uint8],
) -> tuple[int, NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """`cv2.connectedComponentsWithStats(mask, connectivity=8)`: the count, labels, statistics
    and centroids of the 8-connected components of `mask`, to the last bit, by Grana's
    block-based labelling (BBDT). OpenCV's default for 8-connectivity, Spaghetti, walks the
    same 2 x 2 blocks in the same order and so numbers the components alike, but gathers the
    statistics in about twice the time: on the dark ink of 10 development shows (1280 x 960)
    7.7 against 4.4 ms a mask, and on the same eroded (`_dark_table`) 7.5 against 3.5, the
    same arrays out."""
    count, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_GRANA
    )
    return (
        int(count),
        np.asarray(labels, np.int32),
        np.asarray(stats, np.int32),
        np.asarray(centroids, np.float64),
    )


def _mask_glyphs(mask: NDArray[np.uint8], looks: _Looks) -> Glyphs:
    """The components of the 0/1 `mask` that are shaped like glyphs (at most `looks.max_px`) and
    are crisp ink on paper at least `looks.min_paper` bright (`looks.brightest`: the photo's
    brightest grey, for `Glyphs.papers`)."""
    gray, paper = looks.gray, looks.paper
    h, w = gray.shape
    count, found, stats, middles = components_with_stats(mask)
    labels = np.asarray(found, np.int32)
    centres = np.asarray(middles, np.float64)
    widths = stats[1:, cv2.CC_STAT_WIDTH].astype(np.float64)
    heights = stats[1:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    sizes = np.maximum(widths, heights)
    fill = areas / np.maximum(widths * heights, 1.0)
    ys, xs = _ink_pixels(mask)
    which = labels[ys, xs]
    # Print on a card is crisp ink on bright paper; texture on a table is neither.
    ink_sum = np.bincount(which, weights=gray[ys, xs], minlength=count)[1:]
    ink_level = ink_sum / np.maximum(areas, 1.0)
    cx = np.clip(np.round(centres[1:, 0]).astype(int), 0, w - 1)
    cy = np.clip(np.round(centres[1:, 1]).astype(int), 0, h - 1)
    paper_level = paper[cy, cx].astype(np.float64)
    bright = paper_level >= looks.min_paper
    crisp = ink_level <= GLYPHS.ink_depth * paper_level
    shaped = (sizes >= GLYPHS.min_px) & (sizes <= looks.max_px) & (fill > 0.12) & (fill < 0.97)
    keep = shaped & bright & crisp
    axes, lengths, breadths = _principal_axes(ys, xs, which, count, centres)
    papers = paper_level / max(looks.brightest, 1.0)  # a black photo has no brightest grey
    return Glyphs(centres[1:], sizes, axes[1:], lengths[1:], breadths[1:], papers).where(keep)


def _ink_pixels(mask: NDArray[np.uint8]) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """The rows and columns of `mask`'s nonzero pixels, row after row, as `np.nonzero` gives
    them: by OpenCV's `findNonZero`, 0.9 ms for a photo's ink (1280 x 960) where numpy took 4.3
    on the labels and 5.4 on the mask itself."""
    points = cv2.findNonZero(mask)
    if points is None:
        return np.zeros(0, np.int32), np.zeros(0, np.int32)
    return np.asarray(points[:, 0, 1], np.int32), np.asarray(points[:, 0, 0], np.int32)


def _long_lines(ink: NDArray[np.uint8], min_length: float) -> NDArray[np.int32]:
    """Long, thin straight strokes of `ink`, as (n, 4) segments x1, y1, x2, y2.

    On many court cards the index touches the thin line framing the picture; joined to it the
    rank is one big component and no longer a glyph. Glyph strokes are short or curved, so
    cutting the long straight thin lines sets the index free and leaves glyphs whole.
    """
    return _straight_lines(_strokes(ink, GLYPHS.thin_stroke_px), min_length)


def _strokes(ink: NDArray[np.uint8], side: int) -> NDArray[np.uint8]:
    """The strokes of `ink` narrower than `side` pixels: those a `side` x `side` opening
    removes."""
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (side, side))
    return np.asarray(cv2.subtract(ink, cv2.morphologyEx(ink, cv2.MORPH_OPEN, square)), np.uint8)


def _straight_lines(thin: NDArray[np.uint8], min_length: float) -> NDArray[np.int32]:
    """The straight lines at least `min_length` long in the `thin` strokes (see `_long_lines`)."""
    length = max(int(min_length), 8)
    lines = cv2.HoughLinesP(thin, 1, math.pi / 360, threshold=length // 2, minLineLength=length, maxLineGap=2)
    return np.zeros((0, 4), np.int32) if lines is None else np.asarray(lines[:, 0], np.int32)


def _erase(ink: NDArray[np.uint8], lines: NDArray[np.int32], width: int) -> NDArray[np.uint8]:
    """`ink` with `lines` (see `_long_lines`) erased, `width` pixels wide."""
    for x1, y1, x2, y2 in lines:
        cv2.line(ink, (int(x1), int(y1)), (int(x2), int(y2)), 0, width)
    return ink


def _principal_axes(
    ys: NDArray[np.int32],
    xs: NDArray[np.int32],
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
    fine, coarse = GLYPHS.table_core_radii
    table = _big_parts(np.asarray(cv2.erode(dark, _disc(fine)), np.uint8), max_px)
    broad = _big_parts(np.asarray(cv2.erode(table, _disc(coarse - fine)), np.uint8), max_px)
    return (
        np.asarray(cv2.dilate(table, _disc(fine + GLYPHS.table_margin)), np.uint8),
        np.asarray(cv2.dilate(broad, _disc(coarse + GLYPHS.table_margin)), np.uint8),
    )


def _big_parts(mask: NDArray[np.uint8], max_px: float) -> NDArray[np.uint8]:
    """The components of `mask` too big to be print (wider or taller than `max_px`)."""
    _, labels, stats, _ = components_with_stats(mask)
    big = (stats[:, cv2.CC_STAT_WIDTH] > max_px) | (stats[:, cv2.CC_STAT_HEIGHT] > max_px)
    big[0] = False
    return np.asarray(np.take(big, labels), np.uint8)


def _disc(radius: int) -> NDArray[np.uint8]:
    """An elliptical structuring element `radius` pixels around its centre."""
    side = 2 * radius + 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)), np.uint8)
