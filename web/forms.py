"""Form reading shared by the pages: the card field with its picker, and claimed points.

The picker is a grid of submit buttons (``name=tap value=5H``) inside the form, plus ``op=back``
and ``op=clear``; the text field holds the cards chosen so far. Reading them is one function, so
picking by tapping and picking by typing give the same cards and the same messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scorer.cards import Card, parse_cards
from scorer.errors import CardError
from scorer.i18n import _, digits
from scorer.rules import MAX_SHOW_POINTS

__all__ = ["CardsState", "parse_claim", "parse_points", "picker_action", "sentence", "whole_number"]

MAX_NUMBER_DIGITS = 9
"""Longest number a form field may hold: far past any score or sequence number, and far below the
4,300 digits past which ``int()`` raises."""


_DIGITS = frozenset("0123456789\u0966\u0967\u0968\u0969\u096a\u096b\u096c\u096d\u096e\u096f")
"""Latin and Devanagari digits: what an English, Hindi, Marathi or Tajik phone's keyboard types."""


def whole_number(text: str) -> int | None:
    """``text`` as a whole number (0 or more), or None: the digits our languages write (Latin, and
    Devanagari, so a Marathi phone's ``१२`` is 12), at most MAX_NUMBER_DIGITS of them. Other
    scripts' digits (``"١"``), superscripts and fractions are refused, though ``int`` reads some."""
    if text and all(ch in _DIGITS for ch in text) and len(text) <= MAX_NUMBER_DIGITS:
        return int(text)
    return None


@dataclass(frozen=True, slots=True)
class CardsState:
    """The cards in a form's card field after one picker action, or the error that stopped it."""

    cards: list[Card]
    text: str
    error: str | None = None

    @classmethod
    def read(cls, text: str, limit: int) -> CardsState:
        """Parse typed cards; an error names the bad card, a duplicate or too many cards."""
        try:
            cards = parse_cards(text)
        except CardError as e:
            return cls([], text, sentence(str(e)))
        if len(cards) > limit:
            return cls(cards, text, _("Too many cards: %(most)s at most, %(given)s given.",
                                      most=digits(limit), given=digits(len(cards))))
        return cls(cards, " ".join(map(str, cards)))


def picker_action(form: Mapping[str, str], limit: int, full_message: str,
                  field: str = "cards") -> CardsState:
    """Apply the form's tap (``tap=5H``), take-back (``op=back``) or clear (``op=clear``)."""
    state = CardsState.read(form.get(field, ""), limit)
    if state.error:
        return state
    cards = state.cards
    op = form.get("op")
    if op == "clear":
        cards = []
    elif op == "back":
        cards = cards[:-1]
    elif form.get("tap"):
        try:
            card = Card.parse(form["tap"])
        except CardError as e:
            return CardsState(cards, state.text, sentence(str(e)))
        if card in cards:
            return CardsState(cards, state.text, _("The %(card)s is already chosen.", card=card.name))
        if len(cards) >= limit:
            return CardsState(cards, state.text, full_message)
        cards = [*cards, card]
    return CardsState(cards, " ".join(map(str, cards)))


def parse_points(text: str, most: int, not_whole: str, too_many: str) -> tuple[int | None, str | None]:
    """A whole number of points from 0 to ``most`` (empty means none), or the caller's message
    saying why not: ``not_whole`` or ``too_many``, whole sentences already in the player's language
    (what is being entered changes the words around it, so the caller writes each sentence)."""
    text = text.strip()
    if not text:
        return None, None
    n = whole_number(text)
    if n is None:
        return None, not_whole
    if n > most:
        return None, too_many
    return n, None


def parse_claim(text: str) -> tuple[int | None, str | None]:
    """The points a player claimed for a hand or crib (0 to 29), or a message."""
    return parse_points(text, MAX_SHOW_POINTS,
                        _("Enter the points claimed as a whole number, like %(example)s.",
                          example=digits(12)),
                        _("The points claimed cannot be more than %(most)s.", most=digits(MAX_SHOW_POINTS)))


_FULL_STOPS = (".", "\u0964")
"""Sentence ends: the full stop, and the danda (।) that Hindi writes."""


def sentence(message: str) -> str:
    """An engine message as a sentence on the page (capitalised, full stop)."""
    message = message[:1].upper() + message[1:]
    # TRANSLATORS: the full stop that ends a sentence (Hindi ends one with the danda, ।).
    return message if message.endswith(_FULL_STOPS) else _("%(message)s.", message=message)
