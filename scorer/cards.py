"""Cards, ranks and suits, and the notation players type.

Notation (docs/RULES.md): rank ``A 2 3 4 5 6 7 8 9 T J Q K`` (``10`` for ten), then suit
``S H D C`` or ``♠ ♥ ♦ ♣``, case-insensitive: ``5H``, ``TD``, ``10d``, ``J♣``, ``as``.

>>> Card.parse("10d")
Card.parse('TD')
>>> [str(c) for c in parse_cards("5h, 5c 5s J♦ 5D")]
['5H', '5C', '5S', 'JD', '5D']
>>> Card.parse("QS").value
10
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum, IntEnum
from functools import total_ordering

from scorer.errors import CardError, DuplicateCardError

__all__ = ["Rank", "Suit", "Card", "parse_cards", "DECK", "CardsLike"]


class Rank(IntEnum):
    """Card ranks, ace low: the integer is the rank's place in a run (Q-K-A is no run)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def count(self) -> int:
        """Value towards fifteen and 31: ace 1, pips at face value, ten and court cards 10."""
        return 10 if self >= 10 else int(self)

    @property
    def symbol(self) -> str:
        """One-character notation: ``A 2 … 9 T J Q K``."""
        return _RANK_SYMBOLS[self - 1]

    @property
    def word(self) -> str:
        """The spoken name (``"ten"``, ``"queen"``)."""
        return _RANK_WORDS[self - 1]


_RANK_SYMBOLS = "A23456789TJQK"
_RANK_WORDS = (
    "ace", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "ten", "jack", "queen", "king",
)


class Suit(Enum):
    """The four suits, in the fixed order S H D C used for sorting and table indices."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """The suit's glyph for screens (``♠ ♥ ♦ ♣``)."""
        return _SUIT_SYMBOLS[self.value]

    @property
    def red(self) -> bool:
        """Hearts and diamonds are red."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def index(self) -> int:
        """Position 0..3 in the order S H D C."""
        return _SUIT_ORDER[self.value]

    @property
    def word(self) -> str:
        """The spoken plural name (``"hearts"``)."""
        return self.name.lower()


_SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}
_SUIT_ALIASES = {
    "S": "S", "H": "H", "D": "D", "C": "C",
    "♠": "S", "♥": "H", "♦": "D", "♣": "C",
    "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}
_RANK_ALIASES = {s: Rank(i + 1) for i, s in enumerate(_RANK_SYMBOLS)} | {"10": Rank.TEN}
_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")


@total_ordering
class Card:
    """An immutable playing card; ordered by rank, then suit (S H D C).

    ``Card.index`` (0..51, rank-major) is the position used by the numpy tables.
    """

    __slots__ = ("rank", "suit", "index", "_str")

    rank: Rank
    suit: Suit
    index: int
    _str: str

    def __init__(self, rank: Rank | int, suit: Suit | str) -> None:
        r = Rank(rank)
        s = suit if isinstance(suit, Suit) else Suit(suit)
        object.__setattr__(self, "rank", r)
        object.__setattr__(self, "suit", s)
        object.__setattr__(self, "index", (r - 1) * 4 + s.index)
        object.__setattr__(self, "_str", r.symbol + s.value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @classmethod
    def parse(cls, token: str) -> Card:
        """Read one card in any notation of docs/RULES.md; raise ``CardError`` naming the token."""
        return _parse_token(token, None)

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card at table position ``index`` (0..51)."""
        return DECK[index]

    @property
    def value(self) -> int:
        """Value towards fifteen and 31."""
        return self.rank.count

    @property
    def name(self) -> str:
        """Readable name for screens and screen readers (``"ten of diamonds"``)."""
        return f"{self.rank.word} of {self.suit.word}"

    @property
    def label(self) -> str:
        """Short label with the suit glyph (``"10♦"``), as printed on the card's corner."""
        return ("10" if self.rank == Rank.TEN else self.rank.symbol) + self.suit.symbol

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"Card.parse({self._str!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.index == other.index
        return NotImplemented

    def __lt__(self, other: Card) -> bool:
        if isinstance(other, Card):
            return self.index < other.index
        return NotImplemented

    def __reduce__(self) -> tuple[object, ...]:
        return (Card, (int(self.rank), self.suit.value))


DECK: tuple[Card, ...] = tuple(Card(r, s) for r in Rank for s in Suit)
"""All 52 cards in table order (``DECK[c.index] is c``)."""

_BY_CODE = {str(c): c for c in DECK}
_SPLIT = re.compile(r"[\s,;]+")

CardsLike = str | Iterable["Card | str"]
"""What the engine accepts for a group of cards: text, or a sequence of cards or tokens."""


def _parse_token(token: str, position: int | None) -> Card:
    where = f" at position {position}" if position is not None else ""
    if not isinstance(token, str):
        raise CardError(f"card{where} must be text like '5H', not {token!r}")
    # Phone emoji keyboards send a suit as its glyph plus a variation selector ("♥" U+FE0F).
    t = token.strip().upper().translate(_VARIATION_SELECTORS)
    hit = _BY_CODE.get(t)
    if hit is not None:
        return hit
    if not t:
        raise CardError(f"empty card{where}")
    suit_ch, rank_txt = t[-1], t[:-1]
    if suit_ch not in _SUIT_ALIASES:
        if t in _RANK_ALIASES:
            raise CardError(f"bad card {token!r}{where}: the suit is missing (S H D C)")
        raise CardError(
            f"bad card {token!r}{where}: it must end in a suit S H D C (or ♠ ♥ ♦ ♣)"
        )
    rank = _RANK_ALIASES.get(rank_txt)
    if rank is None:
        raise CardError(
            f"bad card {token!r}{where}: rank must be one of A 2 3 4 5 6 7 8 9 T (or 10) J Q K"
        )
    return DECK[(rank - 1) * 4 + _SUIT_ORDER[_SUIT_ALIASES[suit_ch]]]


def parse_cards(cards: CardsLike, count: int | None = None, what: str = "cards") -> list[Card]:
    """Read a group of distinct cards from text (spaces or commas) or a sequence of tokens.

    Raise ``CardError`` naming the bad token and its 1-based position, ``DuplicateCardError``
    when a card repeats, and ``CardError`` when ``count`` is given and not met.

    >>> parse_cards("as 10h")
    [Card.parse('AS'), Card.parse('TH')]
    >>> parse_cards("5H 5H")
    Traceback (most recent call last):
    ...
    scorer.errors.DuplicateCardError: duplicate card '5H' at positions 1 and 2
    """
    if isinstance(cards, str):
        tokens: list[Card | str] = [t for t in _SPLIT.split(cards.strip()) if t]
    else:
        tokens = list(cards)
    out: list[Card] = []
    seen: dict[Card, int] = {}
    for i, tok in enumerate(tokens, 1):
        card = tok if isinstance(tok, Card) else _parse_token(tok, i)
        if card in seen:
            raise DuplicateCardError(
                f"duplicate card {str(card)!r} at positions {seen[card]} and {i}"
            )
        seen[card] = i
        out.append(card)
    if count is not None and len(out) != count:
        raise CardError(
            f"expected {count} {what}, got {len(out)}"
            + (f": {' '.join(map(str, out))}" if out else "")
        )
    return out
