"""Small server-rendered SVG charts, written here (no chart library): a game's race, a player's
show totals against chance, and games won over time.

Each chart is an inline ``<svg>`` with a ``viewBox`` sized for a 360 px phone, scaling to its
box. It carries no colours and no ``style`` attributes (the Content Security Policy forbids
inline style): text and axes draw in ``currentColor`` and every series has a class
(``series-0`` …) that ``static/css/groups.css`` colours from the theme's variables, so the
charts follow light and dark mode with the page. Series also differ by dash pattern and are
named in a legend, so they read without colour too. Every chart has a ``<title>`` and a
``<desc>`` summing it up for screen readers.

The words (titles, descriptions, legends, the x axis's end label) come from the caller, in the
player's language; the numbers this module writes itself (the axes' ticks) are in the current
language's digits (``scorer.i18n``: Marathi writes ०-९).

>>> svg = line_chart("Race", "Ann 121, Bob 80", [("Ann", [(0, 0), (1, 121)]), ("Bob", [(0, 0), (1, 80)])],
...                  x_max=1, y_max=121, rules=[(90, "skunk")])
>>> svg.startswith('<svg class="chart line-chart"') and "<title>Race</title>" in svg and "skunk" in svg
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from html import escape
from typing import Final

from babel.numbers import get_decimal_symbol

from scorer.i18n import current, digits

__all__ = ["WIDTH", "HEIGHT", "bar_chart", "decimal", "line_chart", "local_digits", "nice_step", "nice_ticks"]

WIDTH: Final = 360
"""The viewBox's width: a phone's CSS width, so 12-unit text is 12 px there."""
HEIGHT: Final = 230
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 10, 58  # room for the y ticks, the x ticks and the legend
SERIES_STYLES: Final = 6
"""Series classes before they repeat (colour and dash pattern together)."""

Point = tuple[float, float]


@cache
def _digit_table(lang: str) -> dict[int, str]:
    return {ord(d): digits(int(d), lang) for d in "0123456789"}


def local_digits(text: str) -> str:
    """``text`` (a tick label, a date) with its digits 0-9 written as the current language writes
    them; everything else kept.

    >>> local_digits("2026-12-01 25%")
    '2026-12-01 25%'
    """
    return text.translate(_digit_table(current()))


def decimal(value: float, places: int) -> str:
    """``value`` rounded to ``places`` decimals (as Python's format rounds: English unchanged) in
    the current language's digits and decimal sign.

    >>> decimal(4.765, 2)
    '4.76'
    """
    lang = current()
    return local_digits(f"{value:.{places}f}".replace(".", get_decimal_symbol(lang)))


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_step(top: float, count: int = 4) -> float:
    """The smallest round step (1, 2, 2.5 or 5 times a power of ten) that covers ``top`` in
    ``count`` steps."""
    for exponent in range(-4, 7):
        for k in (1, 2, 2.5, 5):
            step = k * 10.0**exponent
            if step * count >= top:
                return step
    return 10.0**7


def nice_ticks(top: float, count: int = 4) -> list[float]:
    """Round tick values from 0 up to ``top``.

    >>> nice_ticks(121)
    [0, 50, 100]
    >>> nice_ticks(0.27)
    [0, 0.1, 0.2]
    """
    if top <= 0:
        return [0]
    step = nice_step(top, count)
    ticks: list[float] = []
    k = 0
    while k * step <= top * (1 + 1e-9):
        value = round(k * step, 6)
        ticks.append(int(value) if value == int(value) else value)
        k += 1
    return ticks


class _Frame:
    """The plot area's scale from data to viewBox units."""

    def __init__(self, x_max: float, y_max: float) -> None:
        self.x_max = x_max or 1
        self.y_max = y_max or 1
        self.w = WIDTH - LEFT - RIGHT
        self.h = HEIGHT - TOP - BOTTOM

    def x(self, value: float) -> float:
        return LEFT + self.w * value / self.x_max

    def y(self, value: float) -> float:
        return TOP + self.h * (1 - value / self.y_max)


def _open(title: str, desc: str, kind: str) -> list[str]:
    return [
        f'<svg class="chart {kind}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
    ]


def _axes(
    frame: _Frame, y_ticks: list[float], x_ticks: Sequence[tuple[float, str]], y_format: str
) -> list[str]:
    out = ['<g class="axis">']
    for t in y_ticks:
        y = _num(frame.y(t))
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>')
        label = local_digits(y_format.format(t))
        anchor = 'text-anchor="end" dominant-baseline="middle"'
        out.append(f'<text x="{LEFT - 4}" y="{y}" {anchor}>{escape(label)}</text>')
    base = _num(frame.y(0))
    out.append(f'<line class="base" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{base}" y2="{base}"/>')
    for value, label in x_ticks:
        x = _num(frame.x(value))
        # A label at the right edge ends there, so it is never cut off at 360 px.
        anchor = "end" if frame.x(value) > WIDTH - RIGHT - 20 else "middle"
        out.append(f'<text x="{x}" y="{HEIGHT - BOTTOM + 14}" text-anchor="{anchor}">{escape(label)}</text>')
    out.append("</g>")
    return out


def _legend(names: Sequence[str]) -> list[str]:
    """Names under the plot, two a row at most, each with its series' swatch."""
    out = ['<g class="legend">']
    per_row = 2 if len(names) > 2 else max(1, len(names))
    col = (WIDTH - LEFT) / per_row
    for i, name in enumerate(names):
        x = LEFT + col * (i % per_row)
        y = HEIGHT - BOTTOM + 32 + 16 * (i // per_row)
        style = i % SERIES_STYLES
        out.append(
            f'<line class="series-{style}" x1="{_num(x)}" x2="{_num(x + 18)}" y1="{y - 4}" y2="{y - 4}"/>'
        )
        out.append(f'<text x="{_num(x + 24)}" y="{y}">{escape(name[:22])}</text>')
    out.append("</g>")
    return out


def line_chart(
    title: str,
    desc: str,
    series: Sequence[tuple[str, Sequence[Point]]],
    *,
    x_max: float,
    y_max: float,
    rules: Sequence[tuple[float, str]] = (),
    x_label: str = "",
    y_format: str = "{}",
    whole: bool = False,
    x_end: str | None = None,
) -> str:
    """Lines through each series' points (x from 0 to ``x_max``, y from 0 to ``y_max``), with
    dashed horizontal ``rules`` (a skunk line) labelled at the right; ``whole``: y counts things,
    so its ticks are whole numbers. The x axis's last tick says ``x_end`` (words with the number,
    as a language says them: "12 games"), else ``x_max`` and then ``x_label``."""
    frame = _Frame(x_max, max([float(y_max), *(float(v) for v, _ in rules)]))
    ticks = [t for t in nice_ticks(frame.y_max) if not whole or t == int(t)]
    end = x_end if x_end is not None else f"{local_digits(_num(frame.x_max))} {x_label}".strip()
    x_ticks = [(0.0, local_digits("0")), (frame.x_max, end)]
    out = _open(title, desc, "line-chart") + _axes(frame, ticks, x_ticks, y_format)
    for value, label in rules:
        y = _num(frame.y(value))
        out.append(f'<line class="rule" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y}" y2="{y}"/>')
        out.append(
            f'<text class="rule-label" x="{WIDTH - RIGHT - 2}" y="{_num(frame.y(value) - 3)}" '
            f'text-anchor="end">{escape(label)}</text>'
        )
    for i, (_, points) in enumerate(series):
        path = " ".join(f"{_num(frame.x(x))},{_num(frame.y(y))}" for x, y in points)
        out.append(f'<polyline class="line series-{i % SERIES_STYLES}" points="{path}"/>')
    out += _legend([name for name, _ in series])
    out.append("</svg>")
    return "".join(out)


def bar_chart(
    title: str,
    desc: str,
    labels: Sequence[str],
    groups: Sequence[tuple[str, Sequence[float]]],
    *,
    y_format: str = "{}",
) -> str:
    """Bars side by side for each label, one per group (a player's share beside chance's)."""
    top = max((v for _, values in groups for v in values), default=0)
    step = nice_step(top) if top > 0 else 1
    frame = _Frame(len(labels), step * -(-top // step) if top > 0 else 1)
    ticks = nice_ticks(frame.y_max)
    slot = frame.w / max(1, len(labels))
    every = 1 if slot >= 14 else 2 if slot >= 7 else 5
    x_ticks = [(i + 0.5, label) for i, label in enumerate(labels) if i % every == 0]
    out = _open(title, desc, "bar-chart") + _axes(frame, ticks, x_ticks, y_format)
    width = slot * 0.8 / max(1, len(groups))
    for g, (_, values) in enumerate(groups):
        out.append(f'<g class="bars series-{g % SERIES_STYLES}">')
        for i, value in enumerate(values):
            if value <= 0:
                continue
            x = LEFT + slot * i + slot * 0.1 + width * g
            y = frame.y(value)
            out.append(
                f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(width)}" '
                f'height="{_num(frame.y(0) - y)}"><title>{escape(labels[i])}: '
                f"{escape(local_digits(y_format.format(value)))}</title></rect>"
            )
        out.append("</g>")
    out += _legend([name for name, _ in groups])
    out.append("</svg>")
    return "".join(out)
