"""Card faces for the synthetic photos: SVG decks from registry packages, and procedural decks.

Two sources, both produced by the project itself (never photographs):

- SVG decks from Debian's `gnome-cards-data` (aisleriot themes) and `kdegames-card-data-kf5`
  (KDE card decks) and npm's `svg-cards`, rendered with `rsvg-convert` (Debian `librsvg2-bin`)
  and cached as PNG files under `cache_dir()`. Only decks with English indices (A K Q J 10)
  and red/black French suits are used; `LICENSES.md` names each deck's licence.
- Procedural decks drawn here with OpenCV's built-in Hershey fonts (always present) and, when
  the Debian font packages are installed, TrueType fonts through Pillow; suit shapes are drawn
  from their classic curves. They need no files at all, so tests and the web end-to-end test
  can make photos anywhere.

Every face is a BGRA array whose alpha marks the card (rounded corners transparent), sized
`FACE_WIDTH_PX` wide with the deck's own aspect.
"""

from __future__ import annotations

import gzip
import math
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import CARD_CODES, RANKS, RED_SUITS, SUITS, split_code

FACE_WIDTH_PX = 280
"""Width of every rendered face; its index glyphs come out about 40 px tall, sharper than any
card in a phone photo, so the generator only ever scales faces down."""

POKER_ASPECT = 88.0 / 63.0
"""Height over width of a poker-size card (63 x 88 mm), the shape of procedural faces."""

SVG_CARDS_NPM_VERSION = "4.0.2"
"""Pinned version of npm's `svg-cards`, fetched into the cache by `fetch_svg_cards`."""

RSVG_TIMEOUT_S = 60
"""Upper bound for one rsvg-convert call; the largest deck takes about a second."""

_RANK_WORDS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
_SUIT_WORDS = ("club", "diamond", "heart", "spade")


@dataclass(frozen=True)
class SvgDeck:
    """One SVG deck file and how its card ids are spelt."""

    name: str
    path: str
    rank_first: bool
    """True for ids like `king_spade` (KDE), False for `spade_king` (aisleriot, svg-cards)."""
    package: str
    licence: str

    def card_id(self, code: str) -> str:
        """Return the SVG element id of card `code` in this deck."""
        rank, suit = split_code(code)
        rank_word, suit_word = _RANK_WORDS[rank], _SUIT_WORDS[suit]
        return f"{rank_word}_{suit_word}" if self.rank_first else f"{suit_word}_{rank_word}"


_AISLERIOT = "/usr/share/aisleriot/cards"
_KDE = "/usr/share/carddecks"
_AISLERIOT_PKG = "gnome-cards-data (Debian)"
_KDE_PKG = "kdegames-card-data-kf5 (Debian)"
_AISLERIOT_THEMES = (
    "anglo",
    "anglo_bitmap",
    "anglo_modern",
    "anglo_poker",
    "atlasnye",
    "bellot",
    "dondorf",
    "gnomangelo",
    "gnomangelo_bitmap",
    "neoclassical",
    "orell",
    "ornamental",
    "paris",
    "plastic",
    "simplistic",
    "tango",
    "tigullio",
)
_KDE_DECKS = (
    ("ancient-egyptians", "Ancient_Egyptians", "GPL-2+"),
    ("dondorf", "dondorf", "GPL-2+"),
    ("gm-paris", "paris", "GPL-2+"),
    ("jolly-royal", "jolly-royal", "GPL-2+"),
    ("nicu-white", "white", "GPL-2+"),
    ("penguins", "penguins", "GPL-3+"),
    ("standard", "standard", "GPL-2+"),
    ("tigullio-international", "tigullio-international", "LGPL-2+"),
)

SVG_DECKS: tuple[SvgDeck, ...] = (
    *(
        SvgDeck(f"aisleriot-{theme}", f"{_AISLERIOT}/{theme}.svgz", False, _AISLERIOT_PKG, "GPL-3+")
        for theme in _AISLERIOT_THEMES
    ),
    *(
        SvgDeck(f"kde-{name}", f"{_KDE}/svg-{name}/{stem}.svgz", True, _KDE_PKG, licence)
        for name, stem, licence in _KDE_DECKS
    ),
    SvgDeck("npm-svg-cards", "npm:svg-cards", False, f"svg-cards@{SVG_CARDS_NPM_VERSION} (npm)", "LGPL-2.1"),
)
"""Decks with English indices and red/black suits. Left out on purpose: themes whose indices
are French, German or Russian (R D V, D B, К Д В Т), four-colour decks, decks with no rank in
the corner (guyenne-classic), an index split across two corners (oxygen), and decks that
rsvg-convert cannot size (konqi, xskat-french)."""


def cache_dir() -> Path:
    """Return the folder for rendered faces (env `MUGGINS_VISION_CACHE`, else ~/.cache)."""
    override = os.environ.get("MUGGINS_VISION_CACHE")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "muggins-vision"


def fetch_svg_cards(cache: Path) -> Path:
    """Install the pinned npm `svg-cards` into `cache` (once) and return its SVG file."""
    target = cache / "npm" / "node_modules" / "svg-cards" / "svg-cards.svg"
    if not target.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise FileNotFoundError("npm is not installed, so svg-cards cannot be fetched")
        subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(cache / "npm"),
                "--no-audit",
                "--no-fund",
                "--no-save",
                f"svg-cards@{SVG_CARDS_NPM_VERSION}",
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
    return target


def _deck_file(deck: SvgDeck, cache: Path) -> Path | None:
    if deck.path.startswith("npm:"):
        try:
            return fetch_svg_cards(cache)
        except (FileNotFoundError, subprocess.SubprocessError):
            return None
    path = Path(deck.path)
    return path if path.exists() else None


def _rsvg(path: Path, element: str, zoom: float) -> NDArray[np.uint8]:
    """Render one element and crop it to its painted pixels (rsvg-convert keeps the page origin)."""
    result = subprocess.run(
        ["rsvg-convert", "--export-id", element, "--zoom", f"{zoom:.6f}", str(path)],
        check=True,
        capture_output=True,
        timeout=RSVG_TIMEOUT_S,
    )
    image = cv2.imdecode(np.frombuffer(result.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ValueError(f"rsvg-convert gave no RGBA image for {element!r} in {path}")
    ys, xs = np.nonzero(image[:, :, 3] > 0)
    if ys.size == 0:
        raise ValueError(f"element {element!r} in {path} painted nothing")
    return np.ascontiguousarray(image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _has_element(path: Path, element: str) -> bool:
    opener = gzip.open if path.suffix == ".svgz" else open
    with opener(path, "rb") as handle:
        return f'id="{element}"'.encode() in handle.read()


def render_svg_deck(deck: SvgDeck, cache: Path | None = None) -> dict[str, NDArray[np.uint8]]:
    """Return deck's 52 faces (BGRA) rendered by rsvg-convert, cached; {} if the deck is missing."""
    cache = cache or cache_dir()
    folder = cache / "faces" / deck.name
    if all((folder / f"{code}.png").exists() for code in CARD_CODES):
        return _read_faces(folder)
    path = _deck_file(deck, cache)
    if path is None or shutil.which("rsvg-convert") is None:
        return {}
    if not _has_element(path, deck.card_id("KS")):
        return {}
    natural = _rsvg(path, deck.card_id("KS"), 1.0)
    zoom = FACE_WIDTH_PX / natural.shape[1]
    folder.mkdir(parents=True, exist_ok=True)
    for code in CARD_CODES:
        face = _rsvg(path, deck.card_id(code), zoom)
        face = _fill_card_alpha(face)
        cv2.imwrite(str(folder / f"{code}.png"), face)
    return _read_faces(folder)


def _read_faces(folder: Path) -> dict[str, NDArray[np.uint8]]:
    faces: dict[str, NDArray[np.uint8]] = {}
    for code in CARD_CODES:
        face = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_UNCHANGED)
        if face is None:
            return {}
        faces[code] = cast(NDArray[np.uint8], face)
    return faces


def _fill_card_alpha(face: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Make the card body opaque: a few decks leave see-through holes inside the outline."""
    alpha = face[:, :, 3]
    outline = (alpha > 0).astype(np.uint8)
    contours, _ = cv2.findContours(outline, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(outline)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    holes = (filled > 0) & (alpha < 255)
    out = face.copy()
    # Behind a hole the physical card is paper; blend what was drawn onto white.
    weight = alpha[holes].astype(np.float32)[:, None] / 255.0
    out[holes, :3] = (out[holes, :3] * weight + 255.0 * (1.0 - weight)).astype(np.uint8)
    out[holes, 3] = 255
    return out


def missing_svg_decks(cache: Path | None = None) -> list[str]:
    """Names of the decks in `SVG_DECKS` that cannot be rendered here (package or tool missing)."""
    cache = cache or cache_dir()
    return [deck.name for deck in SVG_DECKS
            if not all((cache / "faces" / deck.name / f"{code}.png").exists() for code in CARD_CODES)
            and (_deck_file(deck, cache) is None or shutil.which("rsvg-convert") is None)]


def load_svg_decks(cache: Path | None = None) -> Iterator[tuple[str, dict[str, NDArray[np.uint8]]]]:
    """Yield (deck name, faces) for each SVG deck that is installed, rendering it on first use."""
    for deck in SVG_DECKS:
        faces = render_svg_deck(deck, cache)
        if faces:
            yield deck.name, faces


# Procedural decks ---------------------------------------------------------------------------

_HERSHEY_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
"""Hershey fonts whose letters look like card indices; the small and plain ones draw a Q that
reads as 9 and are left out."""

TRUETYPE_FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/truetype/freefont",
    "/usr/share/fonts/opentype/urw-base35",
)
"""Debian font packages (fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf,
fonts-urw-base35) whose upright faces vary the procedural indices when installed."""

_SKIP_FONT = re.compile(r"(?i)(oblique|italic|mono|math|symbol|dingbat|z003|d050000l)")


def truetype_fonts() -> tuple[str, ...]:
    """Return the installed upright TrueType/OpenType fonts usable for rank letters."""
    found: list[str] = []
    for folder in TRUETYPE_FONT_DIRS:
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith((".ttf", ".otf")) and not _SKIP_FONT.search(name):
                    found.append(os.path.join(folder, name))
    return tuple(found)


@dataclass(frozen=True)
class FaceStyle:
    """Everything that varies between procedural decks."""

    font: str
    """A TrueType path, or `hershey:N` for OpenCV's built-in font N."""
    weight: float
    """Stroke thickness for Hershey fonts as a fraction of the glyph height."""
    rank_height: float
    """Rank glyph height as a fraction of the card width."""
    suit_ratio: float
    """Index suit size relative to the rank height."""
    index_x: float
    index_y: float
    """Top-left of the index as fractions of the card width."""
    gap: float
    """Space between rank and suit in the index, fraction of the rank height."""
    narrow: float
    """Horizontal squeeze of the rank glyphs (1 keeps the font's own width)."""
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    paper: tuple[int, int, int]
    corner_radius: float
    border: bool
    four_indices: bool
    pip_size: float
    aspect: float


def random_style(rng: random.Random, allow_truetype: bool = True) -> FaceStyle:
    """Draw a procedural deck design: font, index layout, ink and paper colours."""
    fonts: list[str] = [f"hershey:{font}" for font in _HERSHEY_FONTS]
    if allow_truetype:
        fonts.extend(truetype_fonts())
    paper_level = rng.randint(225, 255)
    return FaceStyle(
        font=rng.choice(fonts),
        weight=rng.uniform(0.07, 0.16),
        rank_height=rng.uniform(0.12, 0.19),
        suit_ratio=rng.uniform(0.55, 0.95),
        index_x=rng.uniform(0.03, 0.08),
        index_y=rng.uniform(0.04, 0.09),
        gap=rng.uniform(0.05, 0.3),
        narrow=rng.uniform(0.7, 1.1),
        red=(rng.randint(0, 60), rng.randint(0, 50), rng.randint(150, 235)),
        black=(rng.randint(0, 50),) * 3,
        paper=(paper_level - rng.randint(0, 12), paper_level - rng.randint(0, 6), paper_level),
        corner_radius=rng.uniform(0.03, 0.09),
        border=rng.random() < 0.3,
        four_indices=rng.random() < 0.15,
        pip_size=rng.uniform(0.13, 0.2),
        aspect=rng.choice((POKER_ASPECT, POKER_ASPECT, 89.0 / 57.0)),
    )


_MASK_SCALE = 4
"""Masks are drawn this many times larger than the face and shrunk, for smooth edges."""


def _heart_curve(points: int = 120) -> NDArray[np.float64]:
    t = np.linspace(0.0, 2.0 * math.pi, points)
    x = 16.0 * np.sin(t) ** 3
    y = -(13.0 * np.cos(t) - 5.0 * np.cos(2 * t) - 2.0 * np.cos(3 * t) - np.cos(4 * t))
    curve = np.stack([x, y], axis=1)
    curve -= curve.min(axis=0)
    return cast(NDArray[np.float64], curve / curve.max())


def suit_mask(suit: str, size: int) -> NDArray[np.float32]:
    """Return a `size`x`size` float mask (0..1) of a suit symbol, upright."""
    big = size * _MASK_SCALE
    canvas = np.zeros((big, big), np.uint8)

    def poly(points: NDArray[np.float64]) -> None:
        pts = np.round(points * (big - 1)).astype(np.int32)
        cv2.fillPoly(canvas, [pts], 255, lineType=cv2.LINE_AA)

    def disc(cx: float, cy: float, r: float) -> None:
        cv2.circle(canvas, (round(cx * big), round(cy * big)), round(r * big), 255, -1, cv2.LINE_AA)

    if suit == "D":
        t = np.linspace(0.0, 1.0, 30)
        # Slightly concave sides, as most decks draw the diamond.
        side = [(0.5 + 0.36 * s + 0.04 * math.sin(math.pi * s), 0.5 * s) for s in t]
        pts = [(x, y) for x, y in side]
        pts += [(x, 1.0 - y) for x, y in reversed(side)]
        pts += [(1.0 - x, 1.0 - y) for x, y in side]
        pts += [(1.0 - x, y) for x, y in reversed(side)]
        poly(np.array(pts))
    elif suit == "H":
        heart = _heart_curve()
        poly(heart * np.array([0.96, 0.9]) + np.array([0.02, 0.05]))
    elif suit == "S":
        spade = _heart_curve()
        spade[:, 1] = 1.0 - spade[:, 1]
        poly(spade * np.array([0.9, 0.74]) + np.array([0.05, 0.0]))
        poly(np.array([[0.5, 0.55], [0.32, 0.98], [0.68, 0.98]]))
    elif suit == "C":
        disc(0.5, 0.27, 0.22)
        disc(0.26, 0.58, 0.22)
        disc(0.74, 0.58, 0.22)
        poly(np.array([[0.42, 0.45], [0.58, 0.45], [0.58, 0.62], [0.42, 0.62]]))
        poly(np.array([[0.5, 0.5], [0.32, 0.98], [0.68, 0.98]]))
    else:
        raise ValueError(f"not a suit letter: {suit!r}")
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _hershey_mask(text: str, font: int, weight: float) -> NDArray[np.float32]:
    scale = 4.0
    (width, height), baseline = cv2.getTextSize(text, font, scale, 1)
    thickness = max(1, round(height * weight))
    pad = thickness * 2
    canvas = np.zeros((height + baseline + 2 * pad, width + 2 * pad), np.uint8)
    cv2.putText(canvas, text, (pad, pad + height), font, scale, 255, thickness, cv2.LINE_AA)
    return canvas.astype(np.float32) / 255.0


def _truetype_mask(text: str, font_path: str) -> NDArray[np.float32]:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_path, 160)
    left, top, right, bottom = font.getbbox(text)
    canvas = Image.new("L", (int(right - left) + 20, int(bottom - top) + 20), 0)
    ImageDraw.Draw(canvas).text((10 - left, 10 - top), text, fill=255, font=font)
    return np.asarray(canvas, dtype=np.float32) / 255.0


def _tight(mask: NDArray[np.float32]) -> NDArray[np.float32]:
    ys, xs = np.nonzero(mask > 0.1)
    if ys.size == 0:
        raise ValueError("glyph rendered empty")
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def rank_mask(rank: str, style: FaceStyle, height: int) -> NDArray[np.float32]:
    """Return the rank glyph(s) of `rank` ('T' prints as 10) as a mask `height` px tall."""
    text = "10" if rank == "T" else rank
    if style.font.startswith("hershey:"):
        mask = _hershey_mask(text, int(style.font.split(":", 1)[1]), style.weight)
    else:
        mask = _truetype_mask(text, style.font)
    mask = _tight(mask)
    width = max(1, round(mask.shape[1] * height / mask.shape[0] * style.narrow))
    if text == "10":
        width = round(width * 0.85)  # decks squeeze the two digits into one index column
    return cast(NDArray[np.float32], cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA))


def _paint(
    face: NDArray[np.float32], mask: NDArray[np.float32], x: int, y: int, colour: tuple[int, int, int]
) -> None:
    """Paint `mask` in `colour` onto `face` at (x, y), clipped to the face."""
    h, w = mask.shape
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, face.shape[1]), min(y + h, face.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    region = face[y0:y1, x0:x1, :3]
    region[:] = region * (1.0 - m) + np.array(colour, np.float32) * m


_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),
    5: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)),
    6: ((0.0, 0.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    7: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    8: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.5, 0.75), (0.0, 1.0), (1.0, 1.0)),
    9: (
        (0.0, 0.0),
        (1.0, 0.0),
        (0.0, 1 / 3),
        (1.0, 1 / 3),
        (0.5, 0.5),
        (0.0, 2 / 3),
        (1.0, 2 / 3),
        (0.0, 1.0),
        (1.0, 1.0),
    ),
    10: (
        (0.0, 0.0),
        (1.0, 0.0),
        (0.5, 1 / 6),
        (0.0, 1 / 3),
        (1.0, 1 / 3),
        (0.0, 2 / 3),
        (1.0, 2 / 3),
        (0.5, 5 / 6),
        (0.0, 1.0),
        (1.0, 1.0),
    ),
}
"""Pip positions of number cards in a unit box (x across, y down), as printed on most decks."""


def procedural_face(code: str, style: FaceStyle, rng: random.Random) -> NDArray[np.uint8]:
    """Draw card `code` in `style` as a BGRA face; `rng` varies the court-card picture."""
    rank_index, suit_index = split_code(code)
    rank, suit = RANKS[rank_index], SUITS[suit_index]
    width = FACE_WIDTH_PX
    height = round(width * style.aspect)
    face = np.zeros((height, width, 4), np.float32)
    face[:, :, :3] = np.array(style.paper, np.float32)
    ink = style.red if suit in RED_SUITS else style.black

    rank_px = max(8, round(style.rank_height * width))
    rank_glyph = rank_mask(rank, style, rank_px)
    suit_px = max(6, round(rank_px * style.suit_ratio))
    suit_glyph = suit_mask(suit, suit_px)
    index_w = max(rank_glyph.shape[1], suit_px)
    index_h = rank_px + round(style.gap * rank_px) + suit_px
    index = np.zeros((index_h, index_w), np.float32)
    rx = (index_w - rank_glyph.shape[1]) // 2
    index[:rank_px, rx : rx + rank_glyph.shape[1]] = rank_glyph
    sx = (index_w - suit_px) // 2
    index[index_h - suit_px :, sx : sx + suit_px] = np.maximum(
        index[index_h - suit_px :, sx : sx + suit_px], suit_glyph
    )
    ix, iy = round(style.index_x * width), round(style.index_y * width)
    corners = [(ix, iy, False), (width - ix - index_w, height - iy - index_h, True)]
    if style.four_indices:
        corners += [(width - ix - index_w, iy, False), (ix, height - iy - index_h, True)]
    for x, y, flipped in corners:
        _paint(face, index[::-1, ::-1] if flipped else index, x, y, ink)

    _draw_centre(face, rank, suit, style, ink, rng, index_w + ix)

    alpha = np.zeros((height * _MASK_SCALE, width * _MASK_SCALE), np.uint8)
    radius = round(style.corner_radius * width * _MASK_SCALE)
    _rounded_rect(alpha, 0, 0, width * _MASK_SCALE - 1, height * _MASK_SCALE - 1, radius, 255, -1)
    face[:, :, 3] = cv2.resize(alpha, (width, height), interpolation=cv2.INTER_AREA)
    if style.border:
        line = np.zeros((height, width), np.uint8)
        _rounded_rect(line, 1, 1, width - 2, height - 2, round(style.corner_radius * width), 255, 1)
        _paint(face, line.astype(np.float32) / 255.0 * 0.6, 0, 0, (90, 90, 90))
    return np.clip(face, 0, 255).astype(np.uint8)


def _rounded_rect(
    canvas: NDArray[np.uint8], x0: int, y0: int, x1: int, y1: int, radius: int, value: int, thickness: int
) -> None:
    radius = max(1, min(radius, (x1 - x0) // 2, (y1 - y0) // 2))
    if thickness < 0:
        cv2.rectangle(canvas, (x0 + radius, y0), (x1 - radius, y1), value, -1)
        cv2.rectangle(canvas, (x0, y0 + radius), (x1, y1 - radius), value, -1)
    else:
        cv2.line(canvas, (x0 + radius, y0), (x1 - radius, y0), value, thickness, cv2.LINE_AA)
        cv2.line(canvas, (x0 + radius, y1), (x1 - radius, y1), value, thickness, cv2.LINE_AA)
        cv2.line(canvas, (x0, y0 + radius), (x0, y1 - radius), value, thickness, cv2.LINE_AA)
        cv2.line(canvas, (x1, y0 + radius), (x1, y1 - radius), value, thickness, cv2.LINE_AA)
    for cx, cy, angle in (
        (x0 + radius, y0 + radius, 180),
        (x1 - radius, y0 + radius, 270),
        (x1 - radius, y1 - radius, 0),
        (x0 + radius, y1 - radius, 90),
    ):
        cv2.ellipse(canvas, (cx, cy), (radius, radius), angle, 0, 90, value, thickness, cv2.LINE_AA)


def _draw_centre(
    face: NDArray[np.float32],
    rank: str,
    suit: str,
    style: FaceStyle,
    ink: tuple[int, int, int],
    rng: random.Random,
    margin: int,
) -> None:
    """Draw the pips of a number card, or a stand-in picture for a court card."""
    height, width = face.shape[:2]
    left, right = margin + 0.04 * width, width - margin - 0.04 * width
    top, bottom = 0.1 * height, 0.9 * height
    value = RANKS.index(rank) + 1
    if value >= 11:
        _draw_court(face, rank, style, ink, rng, (round(left), round(top), round(right), round(bottom)))
        return
    pip_px = max(6, round(style.pip_size * width * (2.2 if value == 1 else 1.0)))
    pip = suit_mask(suit, pip_px)
    for px, py in _PIPS[value]:
        cx = left + pip_px / 2 + px * (right - left - pip_px)
        cy = top + pip_px / 2 + py * (bottom - top - pip_px)
        glyph = pip[::-1, ::-1] if py > 0.5 else pip
        _paint(face, glyph, round(cx - pip_px / 2), round(cy - pip_px / 2), ink)


def _draw_court(
    face: NDArray[np.float32],
    rank: str,
    style: FaceStyle,
    ink: tuple[int, int, int],
    rng: random.Random,
    box: tuple[int, int, int, int],
) -> None:
    """Fill the court-card frame with busy colourful shapes, mirrored top to bottom like real
    court cards, so the classifier learns that artwork beside an index is not an index."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    art = np.zeros((h // 2 + 1, w, 3), np.float32)
    art[:] = np.array(style.paper, np.float32)
    palette = [(30, 160, 220), (40, 40, 200), (160, 60, 30), (40, 140, 40), (20, 20, 20), ink]
    for _ in range(rng.randint(8, 20)):
        colour = rng.choice(palette)
        kind = rng.random()
        cx, cy = rng.randint(0, w), rng.randint(0, h // 2)
        size = rng.randint(max(2, w // 12), max(3, w // 3))
        if kind < 0.4:
            cv2.circle(art, (cx, cy), size // 2, colour, -1, cv2.LINE_AA)
        elif kind < 0.8:
            cv2.rectangle(art, (cx, cy), (cx + size, cy + size // 2), colour, -1)
        else:
            cv2.line(
                art,
                (cx, cy),
                (rng.randint(0, w), rng.randint(0, h // 2)),
                colour,
                rng.randint(1, 4),
                cv2.LINE_AA,
            )
    full = np.concatenate([art, art[::-1, ::-1]], axis=0)[:h]
    face[y0 : y0 + full.shape[0], x0:x1, :3] = full
    cv2.rectangle(face, (x0, y0), (x1 - 1, y1 - 1), (*ink, 255), 1, cv2.LINE_AA)
    letter = rank_mask(rank, style, max(8, h // 5))
    _paint(face, letter, x0 + w // 2 - letter.shape[1] // 2, y0 + h // 2 - letter.shape[0] // 2, ink)
