"""Words for the screen: names of score items and pegging awards as players say them.

Every label is a whole message per case ("run of four", "pair royal"), never a word glued to a
number word, so each language says it in its own order; they are translated when shown, in the
request's language (``scorer.i18n`` reads the same catalogues as the pages)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from babel.numbers import format_decimal
from flask import Flask

from scorer.cards import Card
from scorer.i18n import DEFAULT_LANGUAGE, N_, _, current, digits, ngettext
from scorer.match import Entry
from scorer.pegging import PegEvent
from scorer.rules import SEAT_LETTERS
from scorer.show import PAIR_NAMES, ScoreItem, ScoreKind, number_word
from web.i18n import per_request

__all__ = ["award_label", "decimal", "entry_words", "init_app", "item_label", "kind_label", "signed"]

_CARD_CODE = re.compile(r"\b([2-9TJQKA])([SHDC])\b")
"""A card in the notation (``TS``), as the engine's history lines write it."""

_KIND_LABELS = {
    ScoreKind.FIFTEEN: N_("fifteen"),
    ScoreKind.PAIR: N_("pair"),
    ScoreKind.RUN: N_("run"),
    ScoreKind.FLUSH: N_("flush"),
    ScoreKind.NOBS: N_("his nobs"),
    ScoreKind.HEELS: N_("his heels"),
    ScoreKind.GO: N_("go"),
    ScoreKind.THIRTY_ONE: N_("thirty-one"),
    ScoreKind.LAST: N_("last card"),
}

_RUN_NAMES = {
    3: N_("run of three"),
    4: N_("run of four"),
    5: N_("run of five"),
    6: N_("run of six"),
    7: N_("run of seven"),
}
"""Every run length there is: a show's runs have 3 to 5 cards, the play's 3 to 7 (A to 7 is 28;
an eighth card would pass 31)."""

_FLUSH_NAMES = {4: N_("flush of four"), 5: N_("flush of five")}
"""A flush is four cards of the hand, or all five with the starter."""


def kind_label(kind: ScoreKind | str) -> str:
    """A score kind as players name it (``"his nobs"``, ``"last card"``)."""
    return _(_KIND_LABELS[ScoreKind(kind)])


def item_label(item: ScoreItem) -> str:
    """One show item in words: ``"run of three"``, ``"flush of five"``, ``"fifteen"``."""
    if item.kind is ScoreKind.RUN:
        return _(_RUN_NAMES[len(item.cards)])
    if item.kind is ScoreKind.FLUSH:
        return _(_FLUSH_NAMES[len(item.cards)])
    if item.kind is ScoreKind.PAIR and len(item.cards) > 2:
        return _(PAIR_NAMES.get(item.points, N_("pair")))
    return kind_label(item.kind)


def award_label(event: PegEvent) -> str:
    """A pegging award in words: ``"run of four"``, ``"pair royal"``, ``"go"``."""
    if event.kind is ScoreKind.RUN:
        return _(_RUN_NAMES[len(event.cards)])
    if event.kind is ScoreKind.PAIR:
        return _(PAIR_NAMES.get(event.points, N_("pair")))
    return kind_label(event.kind)


def signed(points: int) -> str:
    """Points with their sign, for awards (``+2``, ``−1``), in the language's digits."""
    return f"+{digits(points)}" if points >= 0 else f"\u2212{digits(-points)}"


def decimal(value: float) -> str:
    """A mean or net to two places (``1.50``), as the language writes decimals: its separator
    (Tajik ``1,50``) and its digits (Marathi ``१.५०``). Rounded once, as English shows it."""
    text = f"{value:.2f}"
    lang = current()
    if lang == DEFAULT_LANGUAGE:
        return text
    local = str(format_decimal(Decimal(text), format="0.00", locale=lang))
    return local.translate(str.maketrans("0123456789", "".join(digits(d, lang) for d in range(10))))


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
    text = _("%(name)s played %(card)s", name=first, card=card.label)
    for name, c in rest:
        text = _("%(plays)s, %(name)s %(card)s", plays=text, name=name, card=c.label)
    by_player: dict[str, list[PegEvent]] = {}
    for award in entry.pegging:
        by_player.setdefault(award.player, []).append(award)
    if not by_player:
        return text
    scored = [(name, sum(a.points for a in awards), _listed([award_label(a) for a in awards]))
              for name, awards in by_player.items()]
    if not rest and list(by_player) == [first]:
        _name, points, awards = scored[0]
        return ngettext("%(plays)s for %(num)s (%(awards)s)", "%(plays)s for %(num)s (%(awards)s)",
                        points, plays=text, awards=awards)
    scores = _listed([ngettext("%(name)s %(num)s (%(awards)s)", "%(name)s %(num)s (%(awards)s)",
                               points, name=name, awards=awards) for name, points, awards in scored])
    return _("%(plays)s; %(scores)s", plays=text, scores=scores)


def _listed(phrases: list[str]) -> str:
    """Phrases one after another, comma-separated as the language writes a list."""
    text = phrases[0]
    for phrase in phrases[1:]:
        text = _("%(earlier)s, %(next)s", earlier=text, next=phrase)
    return text


def init_app(app: Flask) -> None:
    """Make the helpers available to every template as filters."""
    # Every one of them speaks the request's language: never folded into a compiled template.
    for func in (item_label, award_label, kind_label, signed, decimal, number_word, entry_words):
        app.add_template_filter(per_request(func), func.__name__)
