"""Synthetic table photos: card faces composited onto made-up tables with camera effects.

Everything here is generated: the table textures (felt, wood grain, cloth, carpet, tiles,
dark and light surfaces) are synthesised from noise, with clutter and printed paper on them;
the faces come from `vision.decks`; the camera is simulated (perspective tilt, rotation,
uneven light, auto-exposure, glare, shadows, blur, sensor noise, JPEG).

`render_show(seed)` makes a labelled cribbage show (four hand cards in a row, overlapping row,
loose group or scattered, and the starter lying apart) and needs no installed files when no
library is given; `render_table` lays out any number of cards, fanned hands included, for
training; `vision.train` uses the same pieces for its training patches.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import CARD_CODES
from vision.decks import FaceStyle, load_svg_decks, procedural_face, random_style

Image = NDArray[np.uint8]
FloatImage = NDArray[np.float32]

CARD_MM = (63.0, 88.0)
"""Width and height of a poker card in millimetres, the unit of table layouts."""

MAX_TILT_DEG = 45.0
"""Steepest camera tilt away from straight down that the generator simulates."""


# Table textures -----------------------------------------------------------------------------


def _noise(rng: np.random.Generator, shape: tuple[int, int], scale: float) -> FloatImage:
    """Smooth noise in 0..1 with features about `scale` pixels across."""
    small = (max(2, int(shape[1] / scale) + 2), max(2, int(shape[0] / scale) + 2))
    grid = rng.random((small[1], small[0])).astype(np.float32)
    big = cv2.resize(grid, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)
    return cast(FloatImage, np.clip(big, 0.0, 1.0))


def _colour(rng: random.Random, lo: int, hi: int) -> NDArray[np.float32]:
    return np.array([rng.randint(lo, hi) for _ in range(3)], np.float32)


def _felt(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int]) -> FloatImage:
    base = rng.choice([(40, 110, 30), (90, 60, 20), (40, 40, 120), (60, 70, 70), (100, 40, 40)])
    tone = np.array(base, np.float32) * rng.uniform(0.6, 1.4)
    noise = nrng.normal(0.0, rng.uniform(4, 14), (size[1], size[0])).astype(np.float32)
    fibre = np.asarray(cv2.GaussianBlur(noise, (0, 0), 0.8), np.float32)[:, :, None]
    mottle = (_noise(nrng, (size[1], size[0]), rng.uniform(30, 200)) - 0.5)[:, :, None] * 30.0
    return cast(FloatImage, tone + fibre + mottle)


def _wood(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int]) -> FloatImage:
    w, h = size
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    u = x * math.cos(angle) + y * math.sin(angle)
    warp = _noise(nrng, (h, w), rng.uniform(80, 300)) * rng.uniform(20, 90)
    period = rng.uniform(6, 40)
    rings = 0.5 + 0.5 * np.sin((u + warp) * 2 * math.pi / period)
    rings = rings ** rng.uniform(1.0, 4.0)
    light = np.array([rng.randint(110, 200), rng.randint(140, 210), rng.randint(170, 240)], np.float32)
    dark = light * rng.uniform(0.35, 0.7)
    img = dark + (light - dark) * rings[:, :, None]
    planks = rng.random() < 0.5
    if planks:
        v = -x * math.sin(angle) + y * math.cos(angle)
        gap = rng.uniform(60, 250)
        seam = (np.abs((v % gap) - gap / 2) > gap / 2 - rng.uniform(1, 4)).astype(np.float32)
        img *= (1.0 - 0.6 * seam)[:, :, None]
    grain = nrng.normal(0, 6, (h, w, 1)).astype(np.float32)
    return cast(FloatImage, img * rng.uniform(0.5, 1.1) + grain)


def _plain(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int], light: bool) -> FloatImage:
    level = rng.randint(170, 245) if light else rng.randint(5, 70)
    tint = np.array([level + rng.randint(-25, 25) for _ in range(3)], np.float32)
    texture = (_noise(nrng, (size[1], size[0]), rng.uniform(4, 60)) - 0.5)[:, :, None] * rng.uniform(5, 40)
    grain = nrng.normal(0, rng.uniform(1, 8), (size[1], size[0], 1)).astype(np.float32)
    return cast(FloatImage, tint + texture + grain)


def _cloth(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int]) -> FloatImage:
    w, h = size
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    period = rng.uniform(8, 80)
    angle = rng.uniform(0, math.pi)
    u = x * math.cos(angle) + y * math.sin(angle)
    v = -x * math.sin(angle) + y * math.cos(angle)
    a, b = _colour(rng, 20, 240), _colour(rng, 20, 240)
    if rng.random() < 0.5:
        pattern = ((u // period + v // period) % 2).astype(np.float32)
    else:
        pattern = (np.sin(u * 2 * math.pi / period) > 0).astype(np.float32)
    pattern = cv2.GaussianBlur(pattern, (0, 0), 1.0)
    img = a + (b - a) * pattern[:, :, None]
    weave = nrng.normal(0, 8, (h, w, 1)).astype(np.float32)
    return cast(FloatImage, img + weave)


def _carpet(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int]) -> FloatImage:
    w, h = size
    base = _colour(rng, 60, 200)
    coarse = nrng.random((h // 3 + 1, w // 3 + 1)).astype(np.float32)
    loops = np.asarray(
        cv2.GaussianBlur(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR), (0, 0), 1.2), np.float32
    )
    return cast(FloatImage, base * (0.55 + 0.8 * loops[:, :, None]))


def _tiles(rng: random.Random, nrng: np.random.Generator, size: tuple[int, int]) -> FloatImage:
    img = _plain(rng, nrng, size, light=rng.random() < 0.7)
    step = rng.randint(60, 300)
    grout = _colour(rng, 60, 200)
    thickness = rng.randint(2, 6)
    for pos in range(rng.randint(0, step), max(size), step):
        cv2.line(img, (pos, 0), (pos, size[1]), grout.tolist(), thickness)
        cv2.line(img, (0, pos), (size[0], pos), grout.tolist(), thickness)
    return img


TABLES: dict[str, Callable[[random.Random, np.random.Generator, tuple[int, int]], FloatImage]] = {
    "felt": _felt,
    "wood": _wood,
    "dark": lambda r, n, s: _plain(r, n, s, light=False),
    "light": lambda r, n, s: _plain(r, n, s, light=True),
    "cloth": _cloth,
    "carpet": _carpet,
    "tiles": _tiles,
}
"""Table texture generators by name."""


def make_table(rng: random.Random, size: tuple[int, int], kind: str | None = None) -> FloatImage:
    """A (height, width, 3) float BGR table texture of `size` = (width, height)."""
    nrng = np.random.default_rng(rng.getrandbits(32))
    kind = kind or rng.choice(sorted(TABLES))
    return cast(FloatImage, np.clip(TABLES[kind](rng, nrng, size), 0, 255).astype(np.float32))


def add_clutter(rng: random.Random, table: FloatImage, count: int) -> None:
    """Draw everyday objects on the table (books, coins, pegs, a board) as solid shapes."""
    h, w = table.shape[:2]
    for _ in range(count):
        colour = _colour(rng, 0, 255).tolist()
        cx, cy = rng.randint(0, w), rng.randint(0, h)
        size = rng.randint(min(w, h) // 30, min(w, h) // 4)
        if rng.random() < 0.5:
            box = cv2.boxPoints(((cx, cy), (size, size * rng.uniform(0.3, 1.5)), rng.uniform(0, 180)))
            cv2.fillPoly(table, [np.round(box).astype(np.int32)], colour, cv2.LINE_AA)
            for _ in range(rng.randint(0, 12)):  # print on a box, or holes in a cribbage board
                px = int(cx + rng.uniform(-0.4, 0.4) * size)
                py = int(cy + rng.uniform(-0.2, 0.2) * size)
                cv2.circle(table, (px, py), rng.randint(1, 4), _colour(rng, 0, 255).tolist(), -1, cv2.LINE_AA)
        else:
            cv2.ellipse(
                table,
                (cx, cy),
                (size // 2, int(size // 2 * rng.uniform(0.4, 1.0))),
                rng.uniform(0, 180),
                0,
                360,
                colour,
                -1,
                cv2.LINE_AA,
            )


_TEXT_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789     .,:-$%&"


def printed_paper(rng: random.Random) -> NDArray[np.uint8]:
    """A BGRA sheet of printed paper (a letter, a newspaper cutting, a flyer, a score pad).

    Text on light paper is the commonest thing on a table that looks like an index: letters
    and digits, sometimes in a corner. The training photos include such sheets so the
    network learns that an index is a rank above a suit, in a card's corner.
    """
    width = rng.randint(160, 520)
    height = max(60, int(width * rng.uniform(0.4, 1.8)))
    level = rng.randint(200, 255)
    if rng.random() < 0.2:  # a coloured flyer
        paper = _colour(rng, 120, 255)
    else:
        paper = np.array([level - rng.randint(0, 20), level - rng.randint(0, 10), level], np.float32)
    sheet = np.empty((height, width, 4), np.uint8)
    sheet[:, :, :3] = paper.astype(np.uint8)
    sheet[:, :, 3] = 255
    fonts = (
        cv2.FONT_HERSHEY_SIMPLEX,
        cv2.FONT_HERSHEY_DUPLEX,
        cv2.FONT_HERSHEY_COMPLEX,
        cv2.FONT_HERSHEY_TRIPLEX,
    )
    font = rng.choice(fonts)
    scale = rng.uniform(0.4, 2.2)
    ink = rng.choice([(20, 20, 20), (30, 30, 200), (150, 40, 20), (40, 40, 40)])
    thickness = rng.randint(1, 3)
    (_, line_height), _ = cv2.getTextSize("Ag", font, scale, thickness)
    y = rng.randint(line_height + 2, max(line_height + 3, 3 * line_height))
    while y < height - 2:
        if rng.random() < 0.15:  # a picture or a coloured block
            block_h = rng.randint(line_height, 4 * line_height)
            x0 = rng.randint(0, width // 2)
            cv2.rectangle(
                sheet,
                (x0, y - line_height),
                (x0 + rng.randint(20, width), y + block_h),
                (*_colour(rng, 0, 255).tolist(), 255),
                -1,
            )
            y += block_h + line_height
            continue
        text = "".join(rng.choice(_TEXT_CHARACTERS) for _ in range(rng.randint(1, 40)))
        cv2.putText(
            sheet,
            text,
            (rng.randint(2, max(3, width // 3)), y),
            font,
            scale,
            (*ink, 255),
            thickness,
            cv2.LINE_AA,
        )
        y += int(line_height * rng.uniform(1.4, 2.5))
        if rng.random() < 0.2:  # a new paragraph, heading or column
            font, scale = rng.choice(fonts), rng.uniform(0.4, 2.2)
            (_, line_height), _ = cv2.getTextSize("Ag", font, scale, thickness)
    return sheet


def add_papers(
    rng: random.Random, table: FloatImage, occupancy: NDArray[np.int16] | None, count: int
) -> None:
    """Lay `count` printed sheets on the table, seen at a random angle and tilt."""
    h, w = table.shape[:2]
    for _ in range(count):
        sheet = printed_paper(rng)
        corners = face_quad(sheet).astype(np.float64)
        seen = project_tilted(rng, corners)
        seen *= rng.uniform(0.15, 0.7) * min(w, h) / max(float(np.ptp(seen, axis=0).max()), 1e-6)
        seen += np.array([rng.uniform(0, w), rng.uniform(0, h)]) - seen.mean(axis=0)
        paste_card(table, occupancy, sheet, seen.astype(np.float32), PAPER_LABEL, rng)


PAPER_LABEL = -3
"""Occupancy label of printed paper (cards are 0, 1, ...; -1 is bare table)."""

DECK_LABEL = -4
"""Occupancy label of the pack the starter lies on."""

HAND_LABEL = -5
"""Occupancy label of the fingers holding a fanned hand."""

SKIN_BGR = ((178, 196, 236), (150, 172, 222), (118, 146, 200), (84, 112, 168), (58, 78, 120), (44, 56, 86))
"""Skin tones from light to dark (BGR), each varied a little per photo."""


def add_fingers(
    rng: random.Random, canvas: FloatImage, occupancy: NDArray[np.int16], quads: Sequence[NDArray[np.float32]]
) -> None:
    """The hand holding a fan of cards (`quads`, bottom card first): a thumb over the front card's
    lower half, pressing the fan at its pivot, and two or three fingers across the bottom ends of
    the cards, shaded and soft-edged; `occupancy` marks them (`HAND_LABEL`) so that an index they
    cover counts as covered."""
    tone = np.array(rng.choice(SKIN_BGR), np.float32) * rng.uniform(0.85, 1.1)
    front = quads[-1].astype(np.float64)
    width = float(np.linalg.norm(front[1] - front[0]))
    down = (front[3] - front[0]) / max(float(np.linalg.norm(front[3] - front[0])), 1e-9)
    across = (front[1] - front[0]) / max(width, 1e-9)
    bottoms = np.array([(q[2] + q[3]) / 2 for q in quads], np.float64)
    shapes: list[tuple[NDArray[np.float64], float, float, float]] = []
    # The thumb: from the front card's lower left towards its middle.
    base = front[3] + across * width * rng.uniform(0.1, 0.4) - down * width * rng.uniform(0.2, 0.5)
    turn = math.degrees(math.atan2(down[1], down[0])) + rng.uniform(-50, 10)
    shapes.append((base, width * rng.uniform(0.45, 0.7), width * rng.uniform(0.16, 0.22), turn))
    for _ in range(rng.randint(2, 3)):  # fingers across the bottom ends
        spot = bottoms[rng.randrange(len(bottoms))] + across * width * rng.uniform(-0.5, 0.5)
        spot = spot + down * width * rng.uniform(-0.1, 0.25)
        angle = math.degrees(math.atan2(across[1], across[0])) + rng.uniform(-25, 25)
        shapes.append((spot, width * rng.uniform(0.5, 0.8), width * rng.uniform(0.15, 0.2), angle))
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), np.float32)
    for centre, length, thickness, angle in shapes:
        cv2.ellipse(mask, (round(centre[0]), round(centre[1])), (round(length), round(thickness)),
                    angle, 0, 360, 1.0, -1, cv2.LINE_AA)
    if not mask.any():
        return
    soft = np.asarray(cv2.GaussianBlur(mask, (0, 0), 1.0), np.float32)
    # Rounded: darker towards the edges, as a finger is in side light.
    shade = np.asarray(cv2.GaussianBlur(mask, (0, 0), max(1.0, width * 0.03)), np.float32)
    skin = tone[None, None, :] * (0.6 + 0.45 * np.clip(shade, 0.0, 1.0))[:, :, None]
    alpha = np.clip(soft, 0.0, 1.0)[:, :, None]
    canvas[:] = canvas * (1.0 - alpha) + skin * alpha
    occupancy[soft > 0.5] = HAND_LABEL


# Compositing ---------------------------------------------------------------------------------


def face_quad(face: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The four corners of a face image, clockwise from top-left, in its own pixels."""
    h, w = face.shape[:2]
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def paste_card(
    canvas: FloatImage,
    occupancy: NDArray[np.int16] | None,
    face: NDArray[np.uint8],
    quad: NDArray[np.float32],
    label: int,
    rng: random.Random,
    shadow: bool = True,
) -> None:
    """Warp a BGRA face onto `canvas` at image `quad`, with a soft drop shadow.

    `occupancy` (if given) records which card is on top at each pixel (`label`), so visibility
    of each index can be measured afterwards.
    """
    h, w = canvas.shape[:2]
    width = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    if face.shape[1] > 1.5 * width:
        # Shrink first: a perspective warp samples without averaging and would alias strokes.
        factor = 1.2 * width / face.shape[1]
        size_px = (max(2, round(face.shape[1] * factor)), max(2, round(face.shape[0] * factor)))
        face = cast(NDArray[np.uint8], cv2.resize(face, size_px, interpolation=cv2.INTER_AREA))
    matrix = cv2.getPerspectiveTransform(face_quad(face), quad.astype(np.float32))
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(
        face,
        shift @ matrix,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1]
    if shadow:
        strength = rng.uniform(0.15, 0.45)
        offset = (rng.uniform(-4, 4), rng.uniform(1, 6))
        blur = rng.uniform(2, 8)
        moved = cv2.warpAffine(
            alpha[:, :, 0], np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32), size
        )
        soft = cv2.GaussianBlur(moved, (0, 0), blur)
        region *= (1.0 - strength * soft)[:, :, None]
    region[:] = region * (1.0 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
    if occupancy is not None:
        occupancy[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = label


AUTO_EXPOSURE_MAX_GAIN = 3.0
"""Most a simulated phone brightens a dim photo (about 1.5 stops)."""

LIGHT_GRID_PX = 8
"""Lighting is computed on a grid this many pixels apart and interpolated: light varies slowly."""


def apply_camera(image: FloatImage, rng: random.Random, harsh: bool = True) -> Image:
    """Simulate lighting and the camera: uneven light, colour cast, glare, blur, noise.

    The result is still uncompressed; `jpeg` adds compression.
    """
    h, w = image.shape[:2]
    gh, gw = max(2, h // LIGHT_GRID_PX), max(2, w // LIGHT_GRID_PX)
    y, x = np.mgrid[0:gh, 0:gw].astype(np.float32)
    y *= h / gh
    x *= w / gw
    # A light gradient across the table and a vignette.
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (x * math.cos(angle) + y * math.sin(angle)) / max(h, w)
    ramp -= ramp.mean()
    light = 1.0 + rng.uniform(0.0, 0.9 if harsh else 0.4) * ramp
    radius = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    light *= 1.0 - rng.uniform(0.0, 0.35) * radius
    if harsh and rng.random() < 0.3:  # a shadow cast across the table, e.g. by the player
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        blob = np.exp(
            -(((x - cx) / (w * rng.uniform(0.1, 0.5))) ** 2 + ((y - cy) / (h * rng.uniform(0.1, 0.5))) ** 2)
        )
        light *= 1.0 - rng.uniform(0.2, 0.55) * blob
    light *= rng.uniform(0.35, 1.15) if harsh else rng.uniform(0.75, 1.1)
    glare = np.zeros_like(light)
    if rng.random() < (0.5 if harsh else 0.2):  # glare: a soft bright spot from a lamp
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = w * rng.uniform(0.02, 0.15), h * rng.uniform(0.02, 0.15)
        glare = rng.uniform(60, 200) * np.exp(-(((x - cx) / sx) ** 2 + ((y - cy) / sy) ** 2))
    light_full = cv2.resize(light, (w, h), interpolation=cv2.INTER_LINEAR)
    glare_full = cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    tint = (rng.uniform(0.8, 1.1), rng.uniform(0.9, 1.05), rng.uniform(0.85, 1.15))
    out = np.empty_like(image)
    for channel in range(3):
        out[:, :, channel] = image[:, :, channel] * light_full * tint[channel] + glare_full
    # Auto-exposure: a phone brightens a dim scene until its highlights are near white (and
    # amplifies the noise with it), so dim light mostly costs contrast and noise, not level.
    highlight = float(np.percentile(out[::7, ::7], 99))
    gain = min(AUTO_EXPOSURE_MAX_GAIN, max(1.0, rng.uniform(190, 245) / max(highlight, 1.0)))
    if rng.random() < 0.8:
        out *= gain
    else:
        gain = 1.0  # some photos stay dim (exposure locked, or a very dark room)
    sigma = rng.choice([0.0, 0.0, rng.uniform(0.3, 1.0), rng.uniform(0.8, 2.2 if harsh else 1.2)])
    if sigma > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigma), np.float32)
    if harsh and rng.random() < 0.15:  # a little hand shake
        length = rng.randint(3, 9)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        turned = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
        out = np.asarray(cv2.filter2D(out, -1, turned / max(float(turned.sum()), 1e-6)), np.float32)
    noise = np.empty_like(out)
    level = rng.uniform(1.0, 6.0 if harsh else 3.0) * math.sqrt(gain)
    cv2.setRNGSeed(rng.getrandbits(31))
    cv2.randn(noise, np.array([0.0]), np.array([level]))
    out += noise
    return cast(Image, np.clip(out, 0, 255).astype(np.uint8))


CAST_SHADOW_LIGHT = (0.35, 0.65)
"""How much of the light reaches the table under a shadow cast by the player's arm or phone
(`cast_shadow`): a lamp or window light partly blocked, the room's light still falling in."""


def cast_shadow(image: Image, rng: random.Random) -> Image:
    """`image` with the shadow of a player's arm across it: a band a tenth to a quarter of the
    photo's short side wide, reaching in from one side to a rounded end near the middle, its
    edge a few pixels soft (a lamp is small and near), `CAST_SHADOW_LIGHT` of the light under
    it. Unlike the soft shadow of `apply_camera`, it cuts across cards, so that part of a card,
    its index often, lies in it and the rest in full light (the bridge deals among the shared
    labelled photos have one)."""
    h, w = image.shape[:2]
    short = min(h, w)
    side = rng.randrange(4)
    along = rng.uniform(0.1, 0.9)
    start = [(along * w, -0.1 * h), (1.1 * w, along * h), (along * w, 1.1 * h), (-0.1 * w, along * h)][side]
    end = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
    band = np.zeros((h, w), np.float32)
    width = max(int(rng.uniform(0.1, 0.25) * short), 2)
    tip = (round(end[0]), round(end[1]))
    cv2.line(band, (round(start[0]), round(start[1])), tip, 1.0, width, cv2.LINE_AA)
    cv2.circle(band, tip, width // 2, 1.0, -1, cv2.LINE_AA)
    soft = np.asarray(cv2.GaussianBlur(band, (0, 0), rng.uniform(0.002, 0.006) * max(h, w)), np.float32)
    light = 1.0 - (1.0 - rng.uniform(*CAST_SHADOW_LIGHT)) * soft
    shaded = image.astype(np.float32) * light[:, :, None]
    return cast(Image, np.clip(shaded, 0, 255).astype(np.uint8))


def jpeg(image: Image, quality: int) -> Image:
    """Round-trip through JPEG at `quality`, as a phone upload would."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cast(Image, cv2.imdecode(data, cv2.IMREAD_COLOR))


# Faces ---------------------------------------------------------------------------------------


@dataclass
class FaceLibrary:
    """Decks to draw faces from: rendered SVG decks and procedural styles."""

    svg: list[tuple[str, dict[str, NDArray[np.uint8]]]] = field(default_factory=list)
    styles: list[FaceStyle] = field(default_factory=list)
    svg_share: float = 0.6
    """Probability that a photo's deck is an SVG deck when both kinds are available."""

    def summary(self) -> str:
        """What faces the photos are drawn from, for a report: "26 SVG decks, 40 procedural
        styles"."""
        return f"{len(self.svg)} SVG decks, {len(self.styles)} procedural styles"

    def deck(self, rng: random.Random) -> Deck:
        """Pick a deck for one photo and return it (procedural faces drawn lazily)."""
        if self.svg and (not self.styles or rng.random() < self.svg_share):
            name, faces = rng.choice(self.svg)
            return Deck(name, faces.__getitem__)
        style = rng.choice(self.styles)
        number = next(i for i, each in enumerate(self.styles) if each is style) + 1
        seed = rng.getrandbits(32)
        return Deck(
            f"procedural style {number}",
            lambda code: procedural_face(code, style, random.Random(seed + CARD_CODES.index(code))),
        )


@dataclass(frozen=True)
class Deck:
    """The faces of the deck one photo is drawn from, looked up by card code."""

    name: str
    """Which deck: an SVG deck's name ("aisleriot-anglo"), or "procedural style N" (the Nth of
    its library's styles). `vision.evaluate --verbose` names it beside every photo missed, so
    a miss that one deck's print causes is seen as that deck's."""
    face: Callable[[str], NDArray[np.uint8]]

    def __call__(self, code: str) -> NDArray[np.uint8]:
        """The face of card `code` ("5H")."""
        return self.face(code)


def procedural_library(seed: int, count: int = 24, truetype: bool = False) -> FaceLibrary:
    """Faces from `count` procedural deck styles only (no files needed unless `truetype`)."""
    rng = random.Random(seed)
    return FaceLibrary(styles=[random_style(rng, allow_truetype=truetype) for _ in range(count)])


def full_library(seed: int, svg_names: Sequence[str] | None = None, styles: int = 40) -> FaceLibrary:
    """SVG decks that are installed (optionally only `svg_names`) plus procedural styles."""
    svg = [(name, faces) for name, faces in load_svg_decks() if svg_names is None or name in svg_names]
    library = procedural_library(seed, styles, truetype=True)
    library.svg = svg
    return library


# Photos ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SyntheticPhoto:
    """A generated photo and its truth."""

    image: Image
    """BGR pixels (already JPEG-compressed like an upload)."""
    cards: tuple[str, ...]
    """Codes of the readable cards; for a show the four hand cards then the starter."""
    starter_index: int | None
    """Position of the starter in `cards` (None when the photo is not a show)."""
    quads: tuple[NDArray[np.float32], ...]
    """Image corners of each readable card, clockwise from its printed top-left corner."""
    placed: tuple[PlacedCard, ...] = ()
    """Every card on the table, readable or not, with how much of each index shows."""
    deck: str = ""
    """The name of the deck its faces are drawn from (`Deck.name`)."""

    def jpeg_bytes(self, quality: int = 92) -> bytes:
        """The photo as JPEG file bytes, ready to upload."""
        ok, data = cv2.imencode(".jpg", self.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise ValueError("JPEG encoding failed")
        return bytes(data.tobytes())


@dataclass(frozen=True)
class PlacedCard:
    """A card as composited: where it lies and how much of each index corner is uncovered."""

    card: str
    quad: NDArray[np.float32]
    """Image corners, clockwise from the printed top-left corner."""
    visible: tuple[float, float]
    """Uncovered share of the top-left and of the bottom-right index region."""
    aspect: float
    """Height over width of the face."""


PAPER_CHANCE = 0.3
"""Share of generated photos with printed paper (letters, newspaper, flyers) on the table."""

INDEX_VISIBLE_FRACTION = 0.9
"""Share of an index region that must stay uncovered for the card to count as readable."""

INDEX_REGION = (0.25, 0.45)
"""Corner region, in card widths, that holds the index on every deck used."""

_MAX_LAYOUT_TRIES = 50

Spot = tuple[float, float, float]
"""Card centre x, y in millimetres on the table and rotation in degrees."""


def _layout_row(rng: random.Random, count: int) -> list[Spot]:
    """A row, neat or overlapping like a small fan."""
    cw = CARD_MM[0]
    gap = rng.choice([rng.uniform(4, 25), rng.uniform(-42, 0)])
    fan = rng.uniform(-6, 6) if gap < 0 else rng.uniform(-2, 2)
    middle = (count - 1) / 2
    return [
        (
            i * (cw + gap) + rng.uniform(-3, 3),
            rng.uniform(-4, 4) + abs(i - middle) * abs(fan) * 1.5,
            (i - middle) * fan + rng.uniform(-3, 3),
        )
        for i in range(count)
    ]


def _layout_group(rng: random.Random, count: int) -> list[Spot]:
    """A loose block two cards wide."""
    cw, ch = CARD_MM
    return [
        (
            (i % 2) * (cw + rng.uniform(5, 30)) + rng.uniform(-8, 8),
            (i // 2) * (ch + rng.uniform(5, 30)) + rng.uniform(-8, 8),
            rng.uniform(-25, 25),
        )
        for i in range(count)
    ]


def _layout_scatter(rng: random.Random, count: int) -> list[Spot]:
    """Cards dropped anywhere, at any rotation, sometimes touching."""
    cw = CARD_MM[0]
    return [
        (i * (cw + rng.uniform(0, 30)) + rng.uniform(-15, 15), rng.uniform(-50, 50), rng.uniform(-180, 180))
        for i in range(count)
    ]


def _layout_fan(rng: random.Random, count: int) -> list[Spot]:
    """A hand held in a fan and laid down: cards turned about a common pivot below them."""
    ch = CARD_MM[1]
    step = rng.uniform(5, 14)
    radius = ch * rng.uniform(0.6, 1.1)
    spots = []
    for i in range(count):
        angle = (i - (count - 1) / 2) * step
        t = math.radians(angle)
        spots.append((radius * math.sin(t), -radius * math.cos(t), angle))
    return spots


LAYOUTS = {"row": _layout_row, "group": _layout_group, "scatter": _layout_scatter, "fan": _layout_fan}
"""How cards can lie on the table, by name."""


def _show_spots(rng: random.Random) -> list[Spot]:
    """Four hand cards (row, group or scattered) and then the starter lying apart."""
    cw, ch = CARD_MM
    kind = rng.random()
    spots = (
        _layout_row(rng, 4)
        if kind < 0.45
        else _layout_group(rng, 4)
        if kind < 0.75
        else _layout_scatter(rng, 4)
    )
    xs = [s[0] for s in spots]
    ys = [s[1] for s in spots]
    side = rng.choice(["above", "below", "left", "right"])
    if side in ("above", "below"):
        sx = rng.uniform(min(xs), max(xs))
        sy = (min(ys) - ch - rng.uniform(25, 70)) if side == "above" else (max(ys) + ch + rng.uniform(25, 70))
    else:
        sy = rng.uniform(min(ys), max(ys))
        sx = (min(xs) - cw - rng.uniform(25, 70)) if side == "left" else (max(xs) + cw + rng.uniform(25, 70))
    spots.append((sx, sy, rng.uniform(-180, 180) if rng.random() < 0.5 else rng.uniform(-15, 15)))
    return spots


STARTER_APART_GAP = (1.0, 3.5)
"""In shows with the starter apart, the gap between the starter (or the deck under it) and the
nearest hand card, in card widths: from one card width to about a hand-width."""


def _apart_spots(rng: random.Random) -> list[Spot]:
    """Four hand cards lying together (a neat or overlapping row, or a tight block) and then the
    starter well apart: on one side of them, one card width to a hand-width away."""
    cw, ch = CARD_MM
    if rng.random() < 0.6:
        gap = rng.choice([rng.uniform(2, 12), rng.uniform(-40, 0)])
        spots = [
            (i * (cw + gap) + rng.uniform(-2, 2), rng.uniform(-3, 3), rng.uniform(-4, 4)) for i in range(4)
        ]
    else:
        spots = [
            ((i % 2) * (cw + rng.uniform(2, 12)) + rng.uniform(-3, 3),
             (i // 2) * (ch + rng.uniform(2, 12)) + rng.uniform(-3, 3), rng.uniform(-8, 8))
            for i in range(4)
        ]
    xs = [s[0] for s in spots]
    ys = [s[1] for s in spots]
    apart = rng.uniform(*STARTER_APART_GAP) * cw
    reach = math.hypot(cw, ch) / 2  # the starter's half extent, whichever way it is turned
    side = rng.choice(["above", "below", "left", "right"])
    if side in ("above", "below"):
        sx = rng.uniform(min(xs), max(xs))
        sy = min(ys) - ch / 2 - apart - reach if side == "above" else max(ys) + ch / 2 + apart + reach
    else:
        sy = rng.uniform(min(ys), max(ys))
        sx = min(xs) - cw / 2 - apart - reach if side == "left" else max(xs) + cw / 2 + apart + reach
    spots.append((sx, sy, rng.uniform(-180, 180) if rng.random() < 0.5 else rng.uniform(-15, 15)))
    return spots


def card_back(rng: random.Random, aspect: float) -> NDArray[np.uint8]:
    """A BGRA card back: a white border round a coloured lattice, as most decks' backs are."""
    width = 240
    height = round(width * aspect)
    back = np.empty((height, width, 4), np.uint8)
    back[:, :, :3] = 245
    back[:, :, 3] = 255
    ink = rng.choice([(40, 40, 170), (150, 60, 30), (40, 110, 40), (30, 30, 30)])
    border = rng.randint(10, 20)
    cv2.rectangle(back, (border, border), (width - border, height - border), (*ink, 255), -1)
    step = rng.randint(10, 24)
    light = tuple(min(255, c + 90) for c in ink)
    for k in range(-height, width + height, step):
        cv2.line(back, (k, border), (k + height, height + border), (*light, 255), 2)
        cv2.line(back, (k, border), (k - height, height + border), (*light, 255), 2)
    back[:border, :, :3] = 245
    back[-border:, :, :3] = 245
    back[:, :border, :3] = 245
    back[:, -border:, :3] = 245
    return back


def _card_corners_mm(spot: Spot, aspect: float) -> NDArray[np.float64]:
    cx, cy, angle = spot
    cw, ch = CARD_MM[0], CARD_MM[0] * aspect
    local = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return cast(NDArray[np.float64], local @ rot.T + np.array([cx, cy]))


def project_tilted(rng: random.Random, table_pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Where a camera sees table points: random spin, then a tilt up to MAX_TILT_DEG.

    A pinhole looking down at the tilt angle: points further along the tilt direction are
    further away and shrink. Units of the result are arbitrary; callers scale and place it.
    """
    centre = table_pts.mean(axis=0)
    spin = math.radians(rng.uniform(0, 360))
    rot = np.array([[math.cos(spin), -math.sin(spin)], [math.sin(spin), math.cos(spin)]])
    pts = (table_pts - centre) @ rot.T
    tilt = math.radians(rng.uniform(0, MAX_TILT_DEG))
    distance = rng.uniform(2.5, 5.0) * float(np.ptp(pts, axis=0).max())
    lean = math.radians(rng.uniform(0, 360))
    direction = np.array([math.cos(lean), math.sin(lean)])
    normal = np.array([-direction[1], direction[0]])
    depth = distance + (pts @ direction) * math.sin(tilt)
    along = (pts @ direction) * math.cos(tilt) / depth
    across = (pts @ normal) / depth
    return cast(NDArray[np.float64], along[:, None] * direction + across[:, None] * normal)


def _camera(
    rng: random.Random, table_pts: NDArray[np.float64], size: tuple[int, int], fill: float
) -> NDArray[np.float64]:
    """Homography from table mm to image pixels, the layout covering `fill` of the frame."""
    proj = project_tilted(rng, table_pts)
    w, h = size
    span = np.ptp(proj, axis=0)
    scale = fill * min(w / span[0], h / span[1])
    placed = (proj - proj.min(axis=0)) * scale
    room = np.array([w, h]) - np.ptp(placed, axis=0)
    placed += np.array([rng.uniform(0, max(room[0], 0)), rng.uniform(0, max(room[1], 0))])
    matrix = cv2.findHomography(table_pts.astype(np.float32), placed.astype(np.float32))[0]
    return cast(NDArray[np.float64], matrix)


def _compose(
    rng: random.Random,
    codes: Sequence[str],
    faces: Sequence[NDArray[np.uint8]],
    spots: Sequence[Spot],
    size: tuple[int, int],
    harsh: bool,
    fill: float,
    deck: tuple[NDArray[np.uint8], Spot] | None = None,
    fingers: bool = False,
    index_box: tuple[float, float] = INDEX_REGION,
) -> tuple[Image, list[PlacedCard]] | None:
    """Lay the cards out on a synthetic table and photograph it; None if a card falls off.

    `deck` (a card back and where it lies) is drawn under the cards: the rest of the pack, with
    the starter on it. `fingers` draws the hand holding the cards over them (`add_fingers`).
    `index_box`: the corner region each card's visibility is measured on (`index_visibility`)."""
    corners_mm = [
        _card_corners_mm(spot, face.shape[0] / face.shape[1]) for spot, face in zip(spots, faces, strict=True)
    ]
    deck_mm = [] if deck is None else [_card_corners_mm(deck[1], deck[0].shape[0] / deck[0].shape[1])]
    camera = _camera(rng, np.concatenate(corners_mm + deck_mm), size, fill)
    quads = [cv2.perspectiveTransform(c.reshape(1, 4, 2), camera)[0].astype(np.float32) for c in corners_mm]
    w, h = size
    for quad in quads:
        if quad.min() < 2 or quad[:, 0].max() > w - 3 or quad[:, 1].max() > h - 3:
            return None
    table = make_table(rng, size)
    if rng.random() < 0.5:
        add_clutter(rng, table, rng.randint(1, 4))  # drawn first, so it lies under the cards
    if rng.random() < PAPER_CHANCE:
        add_papers(rng, table, None, rng.randint(1, 2))
    occupancy = np.full((h, w), -1, np.int16)
    if deck is not None:
        deck_quad = cv2.perspectiveTransform(deck_mm[0].reshape(1, 4, 2), camera)[0].astype(np.float32)
        for layer in range(3, -1, -1):  # the pack's edge: a few backs, each a little lower
            lower = deck_quad + np.float32(layer * 1.5)
            paste_card(table, occupancy, deck[0], lower, DECK_LABEL, rng, shadow=layer == 3)
    for i, (quad, face) in enumerate(zip(quads, faces, strict=True)):
        paste_card(table, occupancy, face, quad, i, rng)
    if fingers:
        add_fingers(rng, table, occupancy, quads)
    placed = [
        PlacedCard(
            code, quad, index_visibility(occupancy, quad, face, i, index_box), face.shape[0] / face.shape[1]
        )
        for i, (code, quad, face) in enumerate(zip(codes, quads, faces, strict=True))
    ]
    image = apply_camera(table, rng, harsh)
    return jpeg(image, rng.randint(55, 95) if harsh else rng.randint(80, 95)), placed


def render_show(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = True,
    apart: bool = False,
) -> SyntheticPhoto:
    """Render a labelled cribbage show: four hand cards then the starter, all readable.

    The starter lies beside the hand, an edge's gap or more away; with `apart` the hand cards
    lie together and the starter clearly apart, as players lay it: a card width to a
    hand-width away, half the time on the rest of the pack. Without a `library` the faces are
    procedural (no files needed), so the same `seed` gives the same photo on any machine with
    the same OpenCV build.
    """
    rng = random.Random(seed)
    library = library or procedural_library(seed)
    deck = library.deck(rng)
    codes = tuple(rng.sample(CARD_CODES, 5))
    faces = [deck(code) for code in codes]
    for _ in range(_MAX_LAYOUT_TRIES):
        if apart:
            spots = _apart_spots(rng)
            pack = None
            if rng.random() < 0.5:
                sx, sy, turn = spots[-1]
                pack = (card_back(rng, faces[-1].shape[0] / faces[-1].shape[1]),
                        (sx + rng.uniform(-4, 4), sy + rng.uniform(-4, 4), turn + rng.uniform(-6, 6)))
            composed = _compose(rng, codes, faces, spots, size, harsh, rng.uniform(0.6, 0.95), pack)
        else:
            composed = _compose(rng, codes, faces, _show_spots(rng), size, harsh, rng.uniform(0.45, 0.95))
        if composed is None:
            continue
        image, placed = composed
        if all(max(card.visible) >= INDEX_VISIBLE_FRACTION for card in placed):
            return SyntheticPhoto(
                image=image,
                cards=codes,
                starter_index=4,
                quads=tuple(p.quad for p in placed),
                placed=tuple(placed),
                deck=deck.name,
            )
    raise RuntimeError(f"no readable layout found for seed {seed}")


HELD_FAN_STEP_DEG = (9.0, 20.0)
"""Turn between neighbouring cards of a hand held fanned, in degrees: a tight fan shows little
more of each card than its top-left index."""

HELD_FAN_PIVOT = (0.3, 0.6)
"""Distance from the pivot (where the thumb holds the cards) to each card's centre, in card
heights: the pivot lies in the cards' lower half."""


def _held_fan(rng: random.Random, count: int) -> list[Spot]:
    """A hand held fanned: each card turned `HELD_FAN_STEP_DEG` on from the one under it about a
    pivot in their lower half, a little unevenly, as fingers spread cards."""
    ch = CARD_MM[1]
    step = rng.uniform(*HELD_FAN_STEP_DEG)
    radius = ch * rng.uniform(*HELD_FAN_PIVOT)
    spots = []
    for i in range(count):
        angle = (i - (count - 1) / 2) * step + rng.uniform(-1.5, 1.5)
        t = math.radians(angle)
        spots.append((radius * math.sin(t) + rng.uniform(-1, 1), -radius * math.cos(t), angle))
    return spots


def render_held_hand(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = False,
) -> SyntheticPhoto:
    """Render a hand of four to six cards held fanned in the fingers, as a player photographs it
    at the table: the cards overlapping heavily about a pivot in their lower half, a thumb and
    fingers over their lower parts, every top-left index showing (each card is readable there
    only). `starter_index` is None: a held hand has no starter."""
    rng = random.Random(seed)
    library = library or procedural_library(seed)
    deck = library.deck(rng)
    count = rng.randint(4, 6)
    codes = tuple(rng.sample(CARD_CODES, count))
    faces = [deck(code) for code in codes]
    return _fanned(
        rng, codes, faces, lambda: _held_fan(rng, count), size, harsh, (0.45, 0.9),
        f"no readable held hand found for seed {seed}", fingers=True, deck=deck.name,
    )


def _fanned(
    rng: random.Random,
    codes: tuple[str, ...],
    faces: Sequence[NDArray[np.uint8]],
    spots: Callable[[], list[Spot]],
    size: tuple[int, int],
    harsh: bool,
    fill: tuple[float, float],
    failure: str,
    fingers: bool = False,
    deck: str = "",
    either_corner: bool = False,
    index_box: tuple[float, float] = INDEX_REGION,
) -> SyntheticPhoto:
    """The first of up to `_MAX_LAYOUT_TRIES` layouts (`spots()`, drawn afresh each try, the
    photo filled between the shares `fill`) in which every card's top-left index shows (a fan
    shows each card only there; `either_corner`: one of its two index corners; `index_box`:
    the corner region that must show); RuntimeError (`failure`) if none does. `starter_index`
    is None; `deck` names the faces' deck."""
    for _ in range(_MAX_LAYOUT_TRIES):
        composed = _compose(
            rng, codes, faces, spots(), size, harsh, rng.uniform(*fill), fingers=fingers, index_box=index_box
        )
        if composed is None:
            continue
        image, placed = composed
        if all(
            (max(card.visible) if either_corner else card.visible[0]) >= INDEX_VISIBLE_FRACTION
            for card in placed
        ):
            return SyntheticPhoto(
                image=image,
                cards=codes,
                starter_index=None,
                quads=tuple(p.quad for p in placed),
                placed=tuple(placed),
                deck=deck,
            )
    raise RuntimeError(failure)


DEAL_HAND_CARDS = (9, 13)
"""Cards in each of a deal's four hands: thirteen dealt, up to four of them played already."""

DEAL_STRIP = (0.27, 0.34)
"""How much of each card of a deal's fan shows beside the card over it, at the foot of its
top-left index, in card widths: its whole index (`INDEX_REGION` is 0.25 wide) and a sliver of
paper."""

DEAL_FAN_PIVOT = (1.0, 2.2)
"""Distance from a deal's fan's pivot to each card's centre, in card heights: a fan laid down to
show is opened about a pivot further off than one held in the fingers, its cards turned less."""


def _deal_spots(
    rng: random.Random, counts: Sequence[int], strip: tuple[float, float] = DEAL_STRIP
) -> list[Spot]:
    """Four hands of `counts` cards laid fanned, as a deal is laid out to show: one above, two side
    by side, one below, each fanned about a pivot below it (each card turned on from the one under
    it just enough to show `strip` of it, in card widths), the whole fan turned a little."""
    cw, ch = CARD_MM
    side, row = rng.uniform(1.6, 2.0) * cw, rng.uniform(1.25, 1.5) * ch
    spots: list[Spot] = []
    for (ox, oy), count in zip(((0.0, -row), (-side, 0.0), (side, 0.0), (0.0, row)), counts, strict=True):
        radius = ch * rng.uniform(*DEAL_FAN_PIVOT)
        # The strip is measured at the foot of the index (`INDEX_REGION`), the nearest to the pivot.
        step = math.degrees(rng.uniform(*strip) * cw / (radius + ch / 2 - INDEX_REGION[1] * cw))
        turn = math.radians(rng.uniform(-12, 12))
        ox, oy = ox + rng.uniform(-8, 8), oy + rng.uniform(-8, 8)
        for i in range(count):
            angle = (i - (count - 1) / 2) * step + rng.uniform(-0.8, 0.8)
            t = math.radians(angle)
            # The middle card's centre at the hand's place, the pivot a radius below it.
            x, y = radius * math.sin(t), radius * (1.0 - math.cos(t))
            spots.append(
                (
                    ox + x * math.cos(turn) - y * math.sin(turn),
                    oy + x * math.sin(turn) + y * math.cos(turn),
                    angle + math.degrees(turn),
                )
            )
    return spots


def render_deal(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = False,
) -> SyntheticPhoto:
    """Render a deal laid out on the table to show: four hands of nine to thirteen cards, each
    fanned so that only a strip of each card shows beside the next, its top-left index whole (the
    kind of photo the bridge deals among the shared labelled photos are). `starter_index` is None."""
    return _render_deal(seed, library, size, harsh, _deal_spots, "deal")


def render_shaded_deal(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = False,
) -> SyntheticPhoto:
    """`render_deal`'s deal of the same `seed` with the shadow of the player's arm across it
    (`cast_shadow`), photographed again as JPEG: one of the shared bridge deals is so lit. The
    shadow is cast on the finished photo, its noise dimmed with it; every card that shows in
    `render_deal`'s photo shows here, so the truth is the same."""
    photo = render_deal(seed, library, size, harsh)
    rng = random.Random(f"cast shadow {seed}")
    return replace(photo, image=jpeg(cast_shadow(photo.image, rng), rng.randint(80, 95)))


def _render_deal(
    seed: int,
    library: FaceLibrary | None,
    size: tuple[int, int],
    harsh: bool,
    layout: Callable[[random.Random, Sequence[int]], list[Spot]] | None,
    kind: str,
    either_corner: bool = False,
) -> SyntheticPhoto:
    """Four hands of `DEAL_HAND_CARDS` cards each, laid by `layout` (drawn afresh each try), one
    photo of them (`_fanned`); RuntimeError naming the `kind` of deal if no layout shows them.
    Without a `layout`, the deal is laid tight (`_tight_spots`) and each card's own index
    (`index_extent`) must show."""
    rng = random.Random(seed)
    library = library or procedural_library(seed)
    deck = library.deck(rng)
    counts = [rng.randint(*DEAL_HAND_CARDS) for _ in range(4)]
    codes = tuple(rng.sample(CARD_CODES, sum(counts)))
    faces = [deck(code) for code in codes]
    index_box = INDEX_REGION if layout is not None else index_extent(deck)
    spots = layout or functools.partial(_tight_spots, extent=index_box)
    return _fanned(
        rng, codes, faces, lambda: spots(rng, counts), size, harsh, (0.85, 0.97),
        f"no readable {kind} found for seed {seed}", deck=deck.name, either_corner=either_corner,
        index_box=index_box,
    )


TIGHT_STRIP = (1.1, 1.5)
"""How much of each card of a deal laid tight shows beside the card over it, in widths (slid or
turned sideways) or depths (slid down) of the deck's own index (`index_extent`): the index
whole and a sliver of paper beside it, no more."""


def _tight_spots(rng: random.Random, counts: Sequence[int], extent: tuple[float, float]) -> list[Spot]:
    """Four hands of `counts` cards, fanned (`_deal_spots`) or laid straight (`_spread_spots`),
    each card showing `TIGHT_STRIP` of the index `extent` (across, down) beside the next."""
    low, high = TIGHT_STRIP
    across, down = extent
    if rng.random() < 0.5:
        return _deal_spots(rng, counts, (low * across, high * across))
    return _spread_spots(rng, counts, ((low * across, high * across), (low * down, high * down)))


def render_tight_deal(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = False,
) -> SyntheticPhoto:
    """Render a deal laid out tight to show, as bridge players lay theirs: four hands of nine to
    thirteen cards, fanned or laid straight, each card showing its deck's own index
    (`index_extent`) and a sliver of paper beside the next card (`TIGHT_STRIP`), no more; one
    index corner of every card whole. With a deck printed with a small index, neighbouring
    indices then lie closer than the corner region every deck's index fits in (`INDEX_REGION`,
    0.25 card widths), as in the bridge deals among the shared labelled photos. `starter_index`
    is None."""
    return _render_deal(seed, library, size, harsh, None, "tight deal", either_corner=True)


SPREAD_STRIP = ((0.27, 0.4), (0.47, 0.62))
"""How much of each card of a deal's straight cascade shows beside the card over it, in card
widths: slid sideways (its index is `INDEX_REGION`, 0.25 wide) or slid down (0.45 deep)."""


Strips = tuple[tuple[float, float], tuple[float, float]]
"""How much of each card of a straight cascade shows beside the card over it, in card widths:
slid sideways, and slid down (see `SPREAD_STRIP`)."""


def _spread_hand(rng: random.Random, count: int, strips: Strips = SPREAD_STRIP) -> list[Spot]:
    """One hand of a deal laid straight, as a bridge dummy is: in one to four runs (suits), each
    a cascade of cards slid, not turned, a strip (`strips`) over the one under it, either
    sideways in rows stacked one under the other or down in columns side by side; the runs
    lying a little apart or overlapping the run before, a card now and then put down upside
    down (its other index corner showing), the whole hand at any quarter turn and a little
    askew. The hand's middle near the origin."""
    cw, ch = CARD_MM
    runs = rng.randint(1, min(4, count))
    cuts = sorted(rng.sample(range(1, count), runs - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, count], strict=True)]
    down = rng.random() < 0.5
    spots: list[Spot] = []
    across = 0.0
    for size in sizes:
        strip = rng.uniform(*strips[down]) * cw
        drift = rng.uniform(-0.04, 0.04) * cw
        for i in range(size):
            along, aside = i * strip + rng.uniform(-1, 1), across + i * drift + rng.uniform(-1, 1)
            flip = 180.0 if rng.random() < 0.2 else 0.0
            spots.append(((aside, along) if down else (along, aside)) + (flip + rng.uniform(-2.5, 2.5),))
        across += cw * (1 + rng.uniform(-0.45, 0.25)) if down else ch * (1 + rng.uniform(-0.5, 0.2))
    turn = rng.choice((0.0, 90.0, 180.0, 270.0)) + rng.uniform(-8, 8)
    t = math.radians(turn)
    xs, ys = [s[0] for s in spots], [s[1] for s in spots]
    mx, my = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return [
        (
            (x - mx) * math.cos(t) - (y - my) * math.sin(t),
            (x - mx) * math.sin(t) + (y - my) * math.cos(t),
            angle + turn,
        )
        for x, y, angle in spots
    ]


def _spread_spots(rng: random.Random, counts: Sequence[int], strips: Strips = SPREAD_STRIP) -> list[Spot]:
    """Four hands of `counts` cards laid straight (`_spread_hand`, slid `strips`), one above, two
    side by side, one below, each clear of the others by a few millimetres to a few centimetres."""
    aspect = CARD_MM[1] / CARD_MM[0]
    hands = [_spread_hand(rng, count, strips) for count in counts]
    boxes = []
    for hand in hands:
        corners = np.concatenate([_card_corners_mm(spot, aspect) for spot in hand])
        boxes.append((corners.min(axis=0), corners.max(axis=0)))
    (_, n_hi), (w_lo, w_hi), (e_lo, e_hi), (s_lo, _) = boxes
    gap = [rng.uniform(5, 40) for _ in range(4)]
    # The two side hands meet in the middle; north and south lie above and below the taller.
    shifts = [
        (0.0, min(w_lo[1], e_lo[1]) - gap[0] - n_hi[1]),
        (-gap[1] / 2 - w_hi[0], 0.0),
        (gap[1] / 2 - e_lo[0], 0.0),
        (0.0, max(w_hi[1], e_hi[1]) + gap[2] - s_lo[1]),
    ]
    return [
        (x + dx + rng.uniform(-8, 8) * (k in (0, 3)), y + dy, a)
        for k, (hand, (dx, dy)) in enumerate(zip(hands, shifts, strict=True))
        for x, y, a in hand
    ]


def render_spread_deal(
    seed: int,
    library: FaceLibrary | None = None,
    size: tuple[int, int] = (1600, 1200),
    harsh: bool = False,
) -> SyntheticPhoto:
    """Render a deal laid out straight to show, as a bridge dummy is laid down, or a hand spread
    to be counted: four hands of nine to thirteen cards, each in runs of cards slid over one
    another (`_spread_spots`), one index corner of every card whole. `starter_index` is None."""
    return _render_deal(seed, library, size, harsh, _spread_spots, "spread deal", either_corner=True)


def render_table(seed: int, library: FaceLibrary, size: tuple[int, int] = (1280, 960)) -> SyntheticPhoto:
    """Render 1-10 cards in any layout (rows, groups, scattered, fans); hidden ones included."""
    rng = random.Random(seed)
    deck = library.deck(rng)
    for _ in range(_MAX_LAYOUT_TRIES):
        kind = rng.choice(sorted(LAYOUTS))
        count = rng.randint(3, 10) if kind == "fan" else rng.randint(1, 6)
        codes = tuple(rng.sample(CARD_CODES, count))
        faces = [deck(code) for code in codes]
        composed = _compose(rng, codes, faces, LAYOUTS[kind](rng, count), size, True, rng.uniform(0.3, 0.95))
        if composed is None:
            continue
        image, placed = composed
        readable = [p for p in placed if max(p.visible) >= INDEX_VISIBLE_FRACTION]
        return SyntheticPhoto(
            image=image,
            cards=tuple(p.card for p in readable),
            starter_index=None,
            quads=tuple(p.quad for p in readable),
            placed=tuple(placed),
            deck=deck.name,
        )
    raise RuntimeError(f"no layout fits for seed {seed}")


def index_visibility(
    occupancy: NDArray[np.int16],
    quad: NDArray[np.float32],
    face: NDArray[np.uint8],
    label: int,
    index_box: tuple[float, float] = INDEX_REGION,
) -> tuple[float, float]:
    """Uncovered share of the card's top-left and bottom-right index regions in `occupancy`
    (`index_box`: across and down from the corner, in card widths)."""
    fw, fh = face.shape[1], face.shape[0]
    rw, rh = index_box[0] * fw, index_box[1] * fw
    matrix = cv2.getPerspectiveTransform(face_quad(face), quad)
    shares = []
    for box in (
        [[0, 0], [rw, 0], [rw, rh], [0, rh]],
        [[fw - rw, fh - rh], [fw, fh - rh], [fw, fh], [fw - rw, fh]],
    ):
        region = cv2.perspectiveTransform(np.array([box], np.float32), matrix)[0]
        shares.append(visible_share(occupancy, region, label))
    return shares[0], shares[1]


INDEX_SAMPLE_CODES = tuple(rank + suit for rank in "A23" for suit in "CDHS")
"""The cards a deck's index is measured on (`index_extent`): their pips lie down the middle of
the card, clear of its corner, where a court card's picture or a ten's pips can reach."""

INK_CONTRAST = 0.6
"""A face's pixel is ink when darker than this share of its paper's grey (the 95th percentile of
the corner), or red by `INK_RED` grey levels over green and blue."""

INK_RED = 60


def index_extent(deck: Deck) -> tuple[float, float]:
    """How far the deck's printed index reaches from a card's top-left corner, across and down,
    in card widths: the ink within `INDEX_REGION` of its aces, twos and threes
    (`INDEX_SAMPLE_CODES`), less any part cut by the region's far sides (another card's pip).
    A deck printed with a small index, as most bridge decks are, shows it whole in a strip of
    the card far narrower than `INDEX_REGION`, which holds the largest of every deck; falls back
    to that region for a face with no ink found there."""
    across = down = 0.0
    for code in INDEX_SAMPLE_CODES:
        face = deck(code)
        fw = face.shape[1]
        rw, rh = int(INDEX_REGION[0] * fw), int(INDEX_REGION[1] * fw)
        corner = face[:rh, :rw].astype(np.int16)
        opaque = corner[..., 3] > 200
        if not opaque.any():
            return INDEX_REGION
        grey = corner[..., :3].mean(axis=2)
        red = corner[..., 2] - np.maximum(corner[..., 0], corner[..., 1])
        ink = ((grey < INK_CONTRAST * np.percentile(grey[opaque], 95)) | (red > INK_RED)) & opaque
        _, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        right = stats[1:, cv2.CC_STAT_LEFT] + stats[1:, cv2.CC_STAT_WIDTH]
        bottom = stats[1:, cv2.CC_STAT_TOP] + stats[1:, cv2.CC_STAT_HEIGHT]
        inside = (right < rw) & (bottom < rh) & (stats[1:, cv2.CC_STAT_AREA] >= 4)
        if not inside.any():
            return INDEX_REGION
        across = max(across, float(right[inside].max()) / fw)
        down = max(down, float(bottom[inside].max()) / fw)
    return across, down


def visible_share(occupancy: NDArray[np.int16], region: NDArray[np.float32], label: int) -> float:
    """Share of the pixels inside polygon `region` where card `label` is on top."""
    x0, y0 = np.maximum(np.floor(region.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(region.max(axis=0)).astype(int) + 1
    window = occupancy[y0:y1, x0:x1]
    if window.size == 0:
        return 0.0
    mask = np.zeros(window.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(region - np.array([x0, y0])).astype(np.int32)], 1)
    inside = mask > 0
    total = int(inside.sum())
    return float((window[inside] == label).sum()) / total if total else 0.0


def render_blank_table(seed: int, size: tuple[int, int] = (1600, 1200)) -> Image:
    """A table photo with no cards on it (clutter allowed), for "no cards found" checks."""
    rng = random.Random(seed)
    table = make_table(rng, size)
    add_clutter(rng, table, rng.randint(0, 3))
    return jpeg(apply_camera(table, rng, harsh=False), 90)
