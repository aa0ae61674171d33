"""Card geometry: canonical card coordinates, quadrilaterals and corner patches.

A card is measured in card widths: x runs 0..1 across the short side and y runs 0..`CARD_ASPECT`
down the long side, with the printed index in the top-left corner. Every card in an image is
described by a homography from these coordinates to image pixels; reading an index is then the
same operation for a whole-card outline (four corners known) and for a lone visible corner.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

CARD_ASPECT = 1.4
"""Height over width of the canonical card: poker cards are 88/63 = 1.397; bridge cards
(89/57 = 1.56) come out slightly squashed, which the training data includes."""

INDEX_BOX_WIDTH = 0.28
INDEX_BOX_HEIGHT = 0.49
"""Size, in card widths, of the corner region read for the index: every deck the project
renders prints its rank and suit inside 0.25 x 0.45 of the corner, and the margin absorbs
outlines found a little off the true card edge."""

PATCH_WIDTH_PX = 32
PATCH_HEIGHT_PX = 56
"""Pixel size of an index patch: the rank glyph comes out about 16-20 px tall, enough to tell
an 8 from a 6 while keeping features small."""

PATCH_PX_PER_CARD_WIDTH = PATCH_WIDTH_PX / INDEX_BOX_WIDTH
"""Sampling density of a patch in pixels per card width (about 114)."""

MAX_DOWNSAMPLE = 2.0
"""Most source pixels per patch pixel before a coarser pyramid level is used; warping from a
much finer image would alias thin strokes away."""

Quad = NDArray[np.float64]
"""Four (x, y) image points, shape (4, 2): top-left, top-right, bottom-right, bottom-left of a
card held upright (index corner first), i.e. clockwise on screen."""


def order_quad(points: NDArray[np.float64]) -> Quad:
    """Order four corners clockwise on screen, starting so that the first side is a short one.

    The card's upright direction is still ambiguous by 180 degrees (a card looks the same
    upside down, apart from its picture), so callers read both index corners.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    # The middle as `pts.mean(axis=0)` works it out (from 0, the rows in turn, then divided), and
    # the sides' lengths as `row_lengths`, on plain floats: a photo orders its outlines a few
    # hundred times, and numpy's calls on 2-vectors cost more than the arithmetic.
    xs, ys = pts[:, 0].tolist(), pts[:, 1].tolist()
    middle_x = (0.0 + xs[0] + xs[1] + xs[2] + xs[3]) / 4.0
    middle_y = (0.0 + ys[0] + ys[1] + ys[2] + ys[3]) / 4.0
    # Increasing angle is clockwise on screen (y points down).
    pts = pts[np.argsort(np.arctan2(pts[:, 1] - middle_y, pts[:, 0] - middle_x))]
    corners = pts.tolist()
    side = [_distance(a, b) for a, b in zip(corners, corners[1:] + corners[:1], strict=True)]
    # Sides 0 and 2 are opposite; start on the pair that is shorter on average.
    if side[0] + side[2] > side[1] + side[3]:
        pts = pts[_NEXT_CORNER]
    return cast(Quad, pts)


_NEXT_CORNER = np.array([1, 2, 3, 0])
"""Each corner's next one round a quad, as an index: `np.roll(quad, -1, axis=0)`."""


def _distance(a: list[float], b: list[float]) -> float:
    """The distance between two points, as `row_lengths` works it out."""
    x, y = a[0] - b[0], a[1] - b[1]
    return math.sqrt(x * x + y * y)


def row_lengths(vectors: NDArray[np.float64]) -> NDArray[np.float64]:
    """The length of each row, as `np.linalg.norm(vectors, axis=1)` works it out (to the last
    bit), without its checks: a photo fits and orders its outlines a few hundred times."""
    return cast("NDArray[np.float64]", np.sqrt(np.add.reduce(vectors * vectors, axis=1)))


def card_homography(quad: Quad) -> NDArray[np.float64]:
    """Homography from canonical card coordinates to image pixels for an ordered quad."""
    card = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, CARD_ASPECT], [0.0, CARD_ASPECT]], np.float32)
    matrix = cv2.getPerspectiveTransform(card, quad.astype(np.float32))
    return cast("NDArray[np.float64]", matrix)


def corner_homography(
    origin: NDArray[np.float64], x_axis: NDArray[np.float64], y_axis: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Affine card frame at a corner: card (0, 0) at `origin`, one card width along `x_axis`,
    and `y_axis` the image vector of one card width down the long side."""
    return np.array(
        [[x_axis[0], y_axis[0], origin[0]], [x_axis[1], y_axis[1], origin[1]], [0.0, 0.0, 1.0]],
        dtype=np.float64,
    )


def quarter_turn(vector: NDArray[np.float64]) -> NDArray[np.float64]:
    """`vector` turned a quarter turn clockwise on screen (y down): a card frame's top side
    turned into its long side, which is how a right-handed card frame has them."""
    return np.array([-vector[1], vector[0]], dtype=np.float64)


ROTATE_HALF_TURN = np.array([[-1.0, 0.0, 1.0], [0.0, -1.0, CARD_ASPECT], [0.0, 0.0, 1.0]])
"""Card-to-card map turning the card half a turn, so the bottom-right index reads as top-left."""


def half_move(move: NDArray[np.float64]) -> NDArray[np.float64]:
    """The move that, made twice, is `move` (an image-to-image homography, or a stack of them):
    its principal square root, by the Denman-Beavers iteration, which converges for a slide (a
    defective matrix, where an eigenvector split does not) as well as for a turn short of half
    a turn. Between two cards of a fan, one step on is the turn about the fan's pivot that
    takes the one to the other; half of it takes the one to where a card between them lies."""
    y = move / move[..., 2:3, 2:3]
    z = np.broadcast_to(np.eye(3), y.shape)
    for _ in range(_HALF_MOVE_STEPS):
        y, z = (y + np.linalg.inv(z)) / 2.0, (z + np.linalg.inv(y)) / 2.0
    halved: NDArray[np.float64] = y / y[..., 2:3, 2:3]
    return halved


_HALF_MOVE_STEPS = 8
"""Denman-Beavers steps for `half_move`: it converges quadratically; a turn of up to two
radians seen in perspective, made twice, gave the move back to 1e-12 in six."""


def card_width_px(homography: NDArray[np.float64]) -> float:
    """Length in image pixels of the card's top edge (one card width) under `homography`."""
    ends = cv2.perspectiveTransform(np.array([[[0.0, 0.0], [1.0, 0.0]]]), homography)[0]
    return float(np.linalg.norm(ends[1] - ends[0]))


def build_pyramid(gray_or_bgr: NDArray[np.uint8], levels: int = 4) -> list[NDArray[np.uint8]]:
    """Return the image and up to `levels - 1` successive half-size copies."""
    pyramid = [gray_or_bgr]
    for _ in range(levels - 1):
        if min(pyramid[-1].shape[:2]) < 64:
            break
        pyramid.append(cast("NDArray[np.uint8]", cv2.pyrDown(pyramid[-1])))
    return pyramid


def read_patch(pyramid: list[NDArray[np.uint8]], homography: NDArray[np.float64]) -> NDArray[np.uint8]:
    """Sample the index region at the card's top-left under `homography` into a patch."""
    return cast("NDArray[np.uint8]", read_patches(pyramid, [homography])[0])


REMAP_ROWS = 512
"""Patches sampled per `cv2.remap` call: working out their source points (7 kB of float32 a
map per patch) takes about 20 MB at most however many proposals a crowded photo has, inside a
photo worker's memory cap."""

_PATCH_X = np.arange(PATCH_WIDTH_PX, dtype=np.float32)
_PATCH_Y = np.arange(PATCH_HEIGHT_PX, dtype=np.float32)


def read_patches(
    pyramid: list[NDArray[np.uint8]], homographies: Sequence[NDArray[np.float64]]
) -> NDArray[np.uint8]:
    """Sample the index region at the card's top-left under each homography: patches of shape
    (n, PATCH_HEIGHT_PX, PATCH_WIDTH_PX) plus the image's channels.

    Each patch comes from the finest pyramid level that has at most `MAX_DOWNSAMPLE` source
    pixels per patch pixel. Every patch pixel's source point is worked out at once (float32,
    a few thousandths of a pixel at 4,000 px) and a photo's thousand patches are sampled by one
    bilinear `cv2.remap` per pyramid level, borders replicated: one `cv2.warpPerspective` per
    patch gave the same pixels (a few in 10,000 differ by a grey level or two, where the two
    round a source point to 1/32 px differently) at twice the time.
    """
    matrices = np.asarray(homographies, np.float64).reshape(-1, 3, 3)
    n = len(matrices)
    shape = (n, PATCH_HEIGHT_PX, PATCH_WIDTH_PX, *pyramid[0].shape[2:])
    patches = np.empty(shape, np.uint8)
    if n == 0:
        return patches
    with np.errstate(all="ignore"):  # a degenerate frame samples a patch of border, read as blank
        return _remapped(pyramid, matrices, patches)


def on_level(homographies: NDArray[np.float64], levels: NDArray[np.int64]) -> NDArray[np.float64]:
    """Card-to-image `homographies` (n, 3, 3) made card-to-level: each onto its pyramid level
    (`build_pyramid`), where `cv2.pyrDown` puts pixel i's centre on the level below's 2i + 0.5."""
    scale = 0.5 ** levels.astype(np.float64)
    to_level = np.zeros((len(levels), 3, 3))
    to_level[:, 0, 0] = to_level[:, 1, 1] = scale
    to_level[:, 2, 2] = 1.0
    to_level[:, 0, 2] = to_level[:, 1, 2] = np.where(levels > 0, scale * 0.5 - 0.5, 0.0)
    on: NDArray[np.float64] = to_level @ homographies
    return on


_REMAP_MAP_ROWS = 32_000
"""Most rows of a map one `cv2.remap` takes (its limit is 32,767)."""


def sample_card_grid(
    image: NDArray[np.uint8],
    homographies: NDArray[np.float64],
    xs: NDArray[np.float64],
    ys: NDArray[np.float64],
) -> NDArray[np.float32]:
    """Grey levels of single-channel `image` at card coordinates (`xs` across, `ys` down) under
    each of the card-to-image `homographies` (n, 3, 3): shape (n, len(ys), len(xs)), bilinear,
    borders replicated (a point off the photo reads as its edge, with no gradient to it)."""
    across, down = (grid.ravel() for grid in np.meshgrid(xs, ys))

    def projected(row: int) -> NDArray[np.float64]:
        # Each point's row of the product, summed as `np.einsum("nij,mj->nmi")` sums it here
        # (the across term, the constant, then the down term), in a sixth of its time.
        h = homographies[:, row]
        return (h[:, 0, None] * across + h[:, 2, None]) + h[:, 1, None] * down

    maps = np.empty((len(homographies), len(ys), len(xs), 2), np.float32)
    with np.errstate(all="ignore"):  # a degenerate frame samples its points nowhere: the border
        depth = projected(2)
        for axis in range(2):
            planar = np.nan_to_num(projected(axis) / depth, nan=-1.0, posinf=-1.0, neginf=-1.0)
            maps[..., axis] = planar.reshape(len(homographies), len(ys), len(xs))
    sampled = np.empty(maps.shape[:3], np.float32)
    at_once = max(1, _REMAP_MAP_ROWS // len(ys))
    for start in range(0, len(maps), at_once):
        chunk = maps[start : start + at_once].reshape(-1, len(xs), 2)
        sampled[start : start + at_once] = cv2.remap(
            image, chunk[..., 0], chunk[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        ).reshape(-1, len(ys), len(xs))
    return sampled


def _remapped(
    pyramid: list[NDArray[np.uint8]], matrices: NDArray[np.float64], patches: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """`patches` filled from `pyramid` under the card-to-image `matrices` (see `read_patches`)."""
    n = len(matrices)
    # One card width along the top edge, as `card_width_px` measures it.
    origin = matrices[:, :2, 2] / matrices[:, 2, 2:]
    right = matrices[:, :, 0] + matrices[:, :, 2]
    width = np.linalg.norm(right[:, :2] / right[:, 2:] - origin, axis=1)
    excess = width / (MAX_DOWNSAMPLE * PATCH_PX_PER_CARD_WIDTH)
    level = np.zeros(n, np.int64)
    coarse = excess > 1.0
    level[coarse] = np.minimum(len(pyramid) - 1, np.ceil(np.log2(excess[coarse])))
    patch_to_card = np.diag([1.0 / PATCH_PX_PER_CARD_WIDTH, 1.0 / PATCH_PX_PER_CARD_WIDTH, 1.0])
    m = (on_level(matrices, level) @ patch_to_card).astype(np.float32)
    flat = patches.reshape(n, PATCH_HEIGHT_PX * PATCH_WIDTH_PX, *patches.shape[3:])
    for lv in np.unique(level):
        rows = np.flatnonzero(level == lv)
        for start in range(0, len(rows), REMAP_ROWS):
            chunk = rows[start : start + REMAP_ROWS]
            map_x, map_y = _source_points(m[chunk])
            flat[chunk] = cv2.remap(
                pyramid[lv], map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            ).reshape(flat[chunk].shape)
    return patches


def _source_points(m: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Where each pixel of each patch comes from under the patch-to-level matrices `m` (k, 3, 3):
    x and y maps of shape (k, PATCH_HEIGHT_PX * PATCH_WIDTH_PX), one row per patch.

    A corner's frame (every lone proposal's) is affine, its last row 0, 0, 1: each point's depth
    is then 1 exactly (0 times a finite coordinate, plus 1), and dividing by it changes nothing,
    so those patches skip the depth and the divisions, two fifths of the work."""
    shape = (len(m), PATCH_HEIGHT_PX * PATCH_WIDTH_PX)
    map_x, map_y = np.empty(shape, np.float32), np.empty(shape, np.float32)
    affine = (m[:, 2, 0] == 0) & (m[:, 2, 1] == 0) & (m[:, 2, 2] == 1)
    flat, deep = np.flatnonzero(affine), np.flatnonzero(~affine)
    if len(flat):
        frames = m[flat]
        map_x[flat], map_y[flat] = _projected(frames, 0), _projected(frames, 1)
    if len(deep):
        frames = m[deep]
        depth = _projected(frames, 2)
        map_x[deep], map_y[deep] = _projected(frames, 0) / depth, _projected(frames, 1) / depth
    return map_x, map_y


def _projected(m: NDArray[np.float32], row: int) -> NDArray[np.float32]:
    """Row `row` of each patch-to-level matrix `m` (k, 3, 3) times each patch pixel's (x, y, 1):
    shape (k, PATCH_HEIGHT_PX * PATCH_WIDTH_PX)."""
    along_x = m[:, row, 0, None, None] * _PATCH_X
    along_y = m[:, row, 1, None] * _PATCH_Y + m[:, row, 2, None]
    return cast("NDArray[np.float32]", along_x + along_y[:, :, None]).reshape(len(m), -1)


def quad_area(quad: Quad) -> float:
    """Area in square pixels of a quadrilateral (shoelace formula)."""
    x, y = quad[:, 0], quad[:, 1]
    x_next, y_next = np.concatenate((x[1:], x[:1])), np.concatenate((y[1:], y[:1]))
    return float(abs(np.dot(x, y_next) - np.dot(y, x_next)) / 2.0)


def quad_iou(a: Quad, b: Quad) -> float:
    """Intersection over union of two convex quadrilaterals."""
    if (a.min(axis=0) >= b.max(axis=0)).any() or (b.min(axis=0) >= a.max(axis=0)).any():
        return 0.0  # bounding boxes apart: most pairs in a photo, and cheap to tell
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = quad_area(a) + quad_area(b) - float(inter)
    return float(inter) / union if union > 0 else 0.0
