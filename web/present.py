"""Words for the screen: names of score items and pegging awards as players say them."""

from __future__ import annotations

from flask import Flask

from scorer.pegging import PegEvent
from scorer.show import ScoreItem, ScoreKind, number_word

__all__ = ["award_label", "init_app", "item_label", "kind_label", "signed"]

_KIND_LABELS = {
    ScoreKind.FIFTEEN: "fifteen",
    ScoreKind.PAIR: "pair",
    ScoreKind.RUN: "run",
    ScoreKind.FLUSH: "flush",
    ScoreKind.NOBS: "his nobs",
    ScoreKind.HEELS: "his heels",
    ScoreKind.GO: "go",
    ScoreKind.THIRTY_ONE: "thirty-one",
    ScoreKind.LAST: "last card",
}

_PAIR_NAMES = {2: "pair", 6: "pair royal", 12: "double pair royal"}


def kind_label(kind: ScoreKind | str) -> str:
    """A score kind as players name it (``"his nobs"``, ``"last card"``)."""
    return _KIND_LABELS[ScoreKind(kind)]


def item_label(item: ScoreItem) -> str:
    """One show item in words: ``"run of three"``, ``"flush of five"``, ``"fifteen"``."""
    if item.kind in (ScoreKind.RUN, ScoreKind.FLUSH):
        return f"{kind_label(item.kind)} of {number_word(len(item.cards))}"
    if item.kind is ScoreKind.PAIR and len(item.cards) > 2:
        return _PAIR_NAMES.get(item.points, "pair")
    return kind_label(item.kind)


def award_label(event: PegEvent) -> str:
    """A pegging award in words: ``"run of four"``, ``"pair royal"``, ``"go"``."""
    if event.kind is ScoreKind.RUN:
        return f"run of {number_word(len(event.cards))}"
    if event.kind is ScoreKind.PAIR:
        return _PAIR_NAMES.get(event.points, "pair")
    return kind_label(event.kind)


def signed(points: int) -> str:
    """Points with their sign, for awards (``+2``, ``−1``)."""
    return f"+{points}" if points >= 0 else f"\u2212{-points}"


def init_app(app: Flask) -> None:
    """Make the helpers available to every template as filters."""
    app.add_template_filter(item_label)
    app.add_template_filter(award_label)
    app.add_template_filter(kind_label)
    app.add_template_filter(signed)
    app.add_template_filter(number_word)
