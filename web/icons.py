"""Draw the app icons (SVG and the PNG sizes phones ask for) from one set of shapes.

Run ``python -m web.icons`` to rewrite ``static/icons/``; the files are committed, so the app
never draws them at run time. The icon is a playing card with a heart on green baize, above a
row of cribbage-board holes with one peg in.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

__all__ = ["Shape", "SHAPES", "svg", "png", "main"]

BOX = 512
"""Design grid of every shape below, in icon pixels."""

MASKABLE_SCALE = 0.8
"""Maskable icons keep their content inside the central 80 % (the platform's safe zone)."""

PNG_SIZES = {"icon-180.png": 180, "icon-192.png": 192, "icon-512.png": 512}
"""Apple touch icon (180), and the two sizes web app manifests need (192, 512)."""

SUPERSAMPLE = 4
"""PNGs are drawn this many times larger, then scaled down, for smooth edges."""

BAIZE = "#17623f"
CARD = "#fffdf8"
RED = "#c8102e"
HOLE = "#0f3f29"


@dataclass(frozen=True, slots=True)
class Shape:
    """A filled primitive: ``kind`` is rect (x, y, w, h, radius), circle (cx, cy, r) or polygon."""

    kind: str
    points: tuple[float, ...]
    fill: str


SHAPES: tuple[Shape, ...] = (
    Shape("rect", (136, 72, 240, 336, 28), CARD),
    Shape("circle", (210, 196, 54), RED),
    Shape("circle", (302, 196, 54), RED),
    Shape("polygon", (160, 222, 352, 222, 256, 330), RED),
    *(Shape("circle", (x, 446, 11), HOLE) for x in (136, 196, 316, 376)),
    Shape("circle", (256, 446, 17), RED),
)


def _scaled(shape: Shape, scale: float, offset: float) -> Shape:
    p = shape.points
    if shape.kind == "rect":
        x, y, w, h, r = p
        return Shape("rect", (x * scale + offset, y * scale + offset, w * scale, h * scale, r * scale),
                     shape.fill)
    if shape.kind == "circle":
        cx, cy, r = p
        return Shape("circle", (cx * scale + offset, cy * scale + offset, r * scale), shape.fill)
    return Shape("polygon", tuple(v * scale + offset for v in p), shape.fill)


def _layout(maskable: bool) -> list[Shape]:
    scale = MASKABLE_SCALE if maskable else 1.0
    offset = BOX * (1 - scale) / 2
    return [_scaled(s, scale, offset) for s in SHAPES]


def svg(maskable: bool = False) -> str:
    """The icon as SVG text."""
    corner = 0 if maskable else 112
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {BOX} {BOX}">',
             f'<rect width="{BOX}" height="{BOX}" rx="{corner}" fill="{BAIZE}"/>']
    for s in _layout(maskable):
        p = s.points
        if s.kind == "rect":
            parts.append(f'<rect x="{p[0]:g}" y="{p[1]:g}" width="{p[2]:g}" height="{p[3]:g}" '
                         f'rx="{p[4]:g}" fill="{s.fill}"/>')
        elif s.kind == "circle":
            parts.append(f'<circle cx="{p[0]:g}" cy="{p[1]:g}" r="{p[2]:g}" fill="{s.fill}"/>')
        else:
            pts = " ".join(f"{p[i]:g},{p[i + 1]:g}" for i in range(0, len(p), 2))
            parts.append(f'<polygon points="{pts}" fill="{s.fill}"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def png(size: int, maskable: bool = False) -> Image.Image:
    """The icon as a ``size``-pixel square image."""
    big = size * SUPERSAMPLE
    k = big / BOX
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=0 if maskable else 112 * k, fill=BAIZE)
    for s in _layout(maskable):
        p = [v * k for v in s.points]
        if s.kind == "rect":
            draw.rounded_rectangle((p[0], p[1], p[0] + p[2], p[1] + p[3]), radius=p[4], fill=s.fill)
        elif s.kind == "circle":
            draw.ellipse((p[0] - p[2], p[1] - p[2], p[0] + p[2], p[1] + p[2]), fill=s.fill)
        else:
            draw.polygon(list(zip(p[::2], p[1::2], strict=True)), fill=s.fill)
    return image.resize((size, size), Image.Resampling.LANCZOS)


ICON_FOLDER = Path(__file__).resolve().parent.parent / "static" / "icons"
"""Where the app serves its icons from."""


def main(folder: Path = ICON_FOLDER) -> int:
    """Write every icon file into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "icon.svg").write_text(svg(), encoding="utf-8")
    for name, size in PNG_SIZES.items():
        png(size).save(folder / name, optimize=True)
    png(512, maskable=True).save(folder / "icon-maskable-512.png", optimize=True)
    print(f"icons written to {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
