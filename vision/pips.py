"""The colour of a number card's pips, against the suit its index was read as.

A card's index is small, and where it is blurred or seen far off, its suit glyph is a few
pixels that the classifier may read as the other colour's. The pips of a number card (two to
ten) are many times larger and printed in its suit's colour, so their ink tells red from black
where the index cannot. Courts (their picture mixes colours) and aces (a deck may print its
ace's one pip in any colour, and its ornament) are not asked.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.classify import LUMA
from vision.geometry import CARD_ASPECT, Quad

NUMBER_RANKS = "23456789T"
"""The ranks whose middle is pips of the suit's colour."""

EDGE_MARGIN = 0.08
"""Card widths kept clear of each side of the card: an outline a little off takes in the table
there."""

INDEX_CORNER = (0.22, 0.36)
"""Width and height, in card widths, of the corners kept clear at each of the card's four
corners: the indices, whose reading is what is asked about."""

PIP_SPAN = 60.0
"""Fewest grey levels of ink below the paper around it (the 98th percentile of `_ink_depth`)
for the ink's colour to be told: a faint card's colour is noise."""

PIP_INK_PIXELS = 40
"""Fewest pixels of ink (at least half `PIP_SPAN`'s depth) whose colour is told, of the
card's 100 x 140."""

PIP_RED = 0.3
"""Redness (red over the larger of blue and green, the card's colours balanced so that its
paper is white, as a share of the ink's depth) of the card's ink from which it is red. On the
development photos of vision/README.md ("The pips' colour against the index's suit"), the
number cards read surely from whole outlines measured 0.40 or more when red and 0.09 at most
when black (0.71 and 0.02 in the shared photos)."""

_CARD_PX = 100
"""Width of the card frame the card is sampled into, in pixels."""

_PIP_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (31, 31))
"""Wider than a pip at `_CARD_PX` (0.15-0.2 card widths): the paper around each pip."""


def _looked_at(width: int, height: int) -> NDArray[np.bool_]:
    """The pixels of a card frame whose ink is measured: all but its edges and index corners."""
    ys, xs = np.mgrid[0:height, 0:width] / float(width)
    aspect = height / width
    e, (cw, ch) = EDGE_MARGIN, INDEX_CORNER
    inside = (xs >= e) & (xs <= 1.0 - e) & (ys >= e) & (ys <= aspect - e)
    left, right, top, bottom = xs < cw, xs > 1.0 - cw, ys < ch, ys > aspect - ch
    corners = (left & top) | (right & top) | (left & bottom) | (right & bottom)
    looked: NDArray[np.bool_] = inside & ~corners
    return looked


_LOOKED_AT = _looked_at(_CARD_PX, round(_CARD_PX * CARD_ASPECT))


def pip_redness(bgr: NDArray[np.uint8], quad: Quad) -> float | None:
    """The redness of the ink on the card whose corners are `quad` (its top-left first, in
    `bgr`'s pixels), away from its edges and index corners, as `PIP_RED` measures it; None
    where the card shows too little ink to tell (`PIP_SPAN`, `PIP_INK_PIXELS`)."""
    width, height = _CARD_PX, round(_CARD_PX * CARD_ASPECT)
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    to_frame = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), frame)
    card = cv2.warpPerspective(bgr, to_frame, (width, height), flags=cv2.INTER_LINEAR).astype(np.float32)
    # Balanced so that the paper is white: a lamp's colour scales each channel alike over the
    # card, ink and paper, and blurred ink is part paper.
    looked = card[_LOOKED_AT]
    gray = looked @ LUMA
    white = np.maximum(np.median(looked[gray >= np.percentile(gray, 70.0)], axis=0), 1.0)
    scale = float(white @ LUMA) / white
    # How far each pixel lies below the paper around it (a black-hat): a pip's ink, not the
    # light falling off across the card.
    depth = cv2.morphologyEx((card * scale) @ LUMA, cv2.MORPH_BLACKHAT, _PIP_KERNEL)[_LOOKED_AT]
    span = float(np.percentile(depth, 98.0))
    if span < PIP_SPAN:
        return None
    inked = depth >= span / 2.0
    if np.count_nonzero(inked) < PIP_INK_PIXELS:
        return None
    ink = looked[inked] * scale
    return float(np.median(ink[:, 2] - np.maximum(ink[:, 0], ink[:, 1]))) / span


def pips_disagree(bgr: NDArray[np.uint8], quad: Quad, card: str) -> bool:
    """Whether the pips of the card at `quad`, read as `card` ("TD"), are clearly of the other
    colour than its suit's (`pip_redness`); False for courts and aces, and where the middle
    cannot tell."""
    if card[0] not in NUMBER_RANKS:
        return False
    redness = pip_redness(bgr, quad)
    if redness is None:
        return False
    return (redness >= PIP_RED) != (card[1] in "HD")
