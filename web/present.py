"""Words for the screen: names of score items and pegging awards as players say them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from flask import Flask

from scorer.cards import Card
from scorer.match import Entry
from scorer.pegging import PegEvent
from scorer.rules import SEAT_LETTERS
from scorer.show import ScoreItem, ScoreKind, number_word

__all__ = ["award_label", "entry_words", "init_app", "item_label", "kind_label", "signed"]

_CARD_CODE = re.compile(r"\b([2-9TJQKA])([SHDC])\b")
"""A card in the notation (``TS``), as the engine's history lines write it."""

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


def card_words(text: str) -> str:
    """``text`` with every card code as printed on the card: ``"starter KC"`` → ``"starter K♣"``."""
    return _CARD_CODE.sub(lambda m: Card.parse(m.group(0)).label, text)


def _plays(raw: object, players: Sequence[str]) -> list[tuple[str, Card]] | None:
    """A peg event's cards with their players' names, from ``[[1, "5H"]]`` or ``"Bob:5H A:TS"``."""
    out: list[tuple[str, Card]] = []
    items = raw.split() if isinstance(raw, str) else raw if isinstance(raw, list) else []
    for item in items:
        who, card = (item.split(":", 1) if isinstance(item, str) and ":" in item
                     else item if isinstance(item, list) and len(item) == 2 else (None, None))
        if isinstance(who, int) and 0 <= who < len(players):
            name = players[who]
        elif isinstance(who, str):
            # A seat letter, else the name as typed (stored events were checked against the seats).
            letter = who.upper()
            name = players[SEAT_LETTERS.index(letter)] if letter in SEAT_LETTERS[:len(players)] else who
        else:
            return None
        try:
            out.append((name, Card.parse(str(card))))
        except ValueError:
            return None
    return out or None


def entry_words(entry: Entry, players: Sequence[str]) -> str:
    """A history line in words: a card of the play as "Ann played J♦ for 2 (pair)", every other
    line as the engine wrote it with its cards as printed on them (``5♥``, not ``5H``)."""
    plays = _plays(entry.event.get("plays"), players) if entry.type == "peg" else None
    if plays is None:
        return card_words(entry.text)
    (first, card), *rest = plays
    text = f"{first} played {card.label}" + "".join(f", {name} {c.label}" for name, c in rest)
    by_player: dict[str, list[PegEvent]] = {}
    for award in entry.pegging:
        by_player.setdefault(award.player, []).append(award)
    parts = [f"{sum(a.points for a in awards)} ({', '.join(award_label(a) for a in awards)})"
             for awards in by_player.values()]
    if not by_player:
        return text
    if not rest and list(by_player) == [first]:
        return f"{text} for {parts[0]}"
    return text + "; " + ", ".join(f"{name} {part}" for name, part in zip(by_player, parts, strict=True))


def init_app(app: Flask) -> None:
    """Make the helpers available to every template as filters."""
    app.add_template_filter(item_label)
    app.add_template_filter(award_label)
    app.add_template_filter(kind_label)
    app.add_template_filter(signed)
    app.add_template_filter(number_word)
    app.add_template_filter(entry_words)
