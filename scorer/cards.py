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
import unicodedata
from collections.abc import Iterable
from enum import Enum, IntEnum
from functools import total_ordering

from scorer.errors import CardError, DuplicateCardError
from scorer.i18n import N_, _, digits

__all__ = [
    "Rank", "Suit", "Card", "parse_cards", "DECK", "CardsLike", "CARDS", "HAND_CARDS",
    "LOCAL_SUITS", "LOCAL_RANKS", "AMBIGUOUS_SUITS",
]


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
        """The spoken name (``"ten"``, ``"queen"``), in the current language."""
        return _(_RANK_WORDS[self - 1])


_RANK_SYMBOLS = "A23456789TJQK"
_RANK_WORDS = (
    N_("ace"), N_("two"), N_("three"), N_("four"), N_("five"), N_("six"), N_("seven"),
    N_("eight"), N_("nine"), N_("ten"), N_("jack"), N_("queen"), N_("king"),
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
        """The spoken plural name (``"hearts"``), in the current language."""
        return _(_SUIT_WORDS[self.value])


_SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SUIT_WORDS = {"S": N_("spades"), "H": N_("hearts"), "D": N_("diamonds"), "C": N_("clubs")}
_SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}
_SUIT_ALIASES = {
    "S": "S", "H": "H", "D": "D", "C": "C",
    "♠": "S", "♥": "H", "♦": "D", "♣": "C",
    "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}
_RANK_ALIASES = {s: Rank(i + 1) for i, s in enumerate(_RANK_SYMBOLS)} | {"10": Rank.TEN}
_VARIATION_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")
_DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")

LOCAL_SUITS: dict[str, Suit] = {
    # Hindi
    "पान": Suit.HEARTS, "लाल पान": Suit.HEARTS, "ईंट": Suit.DIAMONDS, "ईट": Suit.DIAMONDS,
    "चिड़ी": Suit.CLUBS, "चिडी": Suit.CLUBS, "चिड़िया": Suit.CLUBS,
    "हुकुम": Suit.SPADES, "हुकम": Suit.SPADES, "काला पान": Suit.SPADES,
    # Marathi
    "बदाम": Suit.HEARTS, "चौकट": Suit.DIAMONDS, "किलवर": Suit.CLUBS, "किल्वर": Suit.CLUBS,
    "इस्पिक": Suit.SPADES, "इसपिक": Suit.SPADES,
    # Tajik
    "дил": Suit.HEARTS, "черва": Suit.HEARTS, "хишт": Suit.DIAMONDS, "бубна": Suit.DIAMONDS,
    "чиллик": Suit.CLUBS, "трефа": Suit.CLUBS, "крестӣ": Suit.CLUBS, "пика": Suit.SPADES,
}
"""Suit names players type in Hindi, Marathi and Tajik after the rank (``5पान``, ``5 पान``,
``J काला पान``), any case, accepted whatever the page's language: the whole names of the
glossary's "typed suits" table (translations/GLOSSARY.md), no single letters."""

AMBIGUOUS_SUITS: dict[str, tuple[str, ...]] = {
    "प": ("पान", "काला पान"), "ब": ("बदाम", "बेगम", "बादशाह"), "ई": ("ईंट", "इक्का"),
    "इ": ("इस्पिक", "इक्का"), "च": ("चिड़ी", "चौकट"), "क": ("किलवर", "काला पान"), "के": ("किलवर", "K"),
    "ह": ("हुकुम", "H"), "ч": ("черва", "чиллик"), "б": ("бубна",), "х": ("хишт",),
    "т": ("трефа", "туз"), "к": ("крестӣ", "K"), "п": ("пика",),
}
"""Single letters the glossary says not to accept as a suit, with the names each could stand
for (a suit in one language and another suit or a rank in another, or a Latin letter it looks or
sounds like): a card typed with one is refused, naming them (``5च``: चिड़ी clubs in Hindi, चौकट diamonds
in Marathi)."""

LOCAL_RANKS: dict[str, Rank] = {
    "इक्का": Rank.ACE, "गुलाम": Rank.JACK, "बेगम": Rank.QUEEN, "बादशाह": Rank.KING,
    "एक्का": Rank.ACE, "राणी": Rank.QUEEN, "राजा": Rank.KING,
    "туз": Rank.ACE, "валет": Rank.JACK, "дама": Rank.QUEEN, "шоҳ": Rank.KING,
}
"""The court cards' and the ace's whole names a player may type for the rank (the glossary's
list; single Devanagari or Cyrillic letters are ambiguous and not accepted)."""
_LOCAL_RANKS = {unicodedata.normalize("NFC", k).upper(): v for k, v in LOCAL_RANKS.items()}


def _key(name: str) -> str:
    """A typed name as compared: NFC (a nukta letter typed as one code point or two reads the
    same), upper case (Cyrillic), no spaces (``काला पान``)."""
    return "".join(unicodedata.normalize("NFC", name).upper().split())


_LOCAL_TABLE: dict[str, Suit | tuple[str, ...]] = {
    **{_key(k): v for k, v in AMBIGUOUS_SUITS.items()}, **{_key(k): v for k, v in LOCAL_SUITS.items()},
}
_LOCAL_KEYS = sorted(_LOCAL_TABLE, key=len, reverse=True)
"""Longest first, so ``5कालापान`` is spades, not hearts, and ``5चिड़ी`` is not read as a letter."""
_SPACED = re.compile(
    r"(?<![^\s,;])(10|१०|[2-9२-९AJQKT]|"
    + "|".join(re.escape(unicodedata.normalize("NFC", w)) for w in sorted(LOCAL_RANKS, key=len, reverse=True))
    + r")\s*("
    + "|".join(r"\s+".join(re.escape(unicodedata.normalize("NFC", part)) for part in name.split())
               for name in sorted([*LOCAL_SUITS, *AMBIGUOUS_SUITS], key=len, reverse=True))
    + r")(?![^\s,;])",
    re.IGNORECASE,
)
"""A rank, then a space or none, then a local suit name (which may have a space of its own): one card."""


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
        return _("%(rank)s of %(suit)s", rank=self.rank.word, suit=self.suit.word)

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

CARDS = N_("cards")
"""``parse_cards``'s default name for the cards in its count message."""
HAND_CARDS = N_("hand cards (the starter goes separately)")
"""A show's four cards, as the count message names them."""
_OTHER_NAMES = (N_("hand cards"),)
"""Other callers' names for ``parse_cards``'s count message (web/count.py), marked here so the
catalogue has them."""

CardsLike = str | Iterable["Card | str"]
"""What the engine accepts for a group of cards: text, or a sequence of cards or tokens."""


# Each refusal of a token, as a whole sentence with and without the token's place in a group.
_REFUSALS = {
    "not-text": (N_("card must be text like '5H', not %(value)s"),
                 N_("card at position %(position)s must be text like '5H', not %(value)s")),
    "empty": (N_("empty card"), N_("empty card at position %(position)s")),
    "no-suit": (N_("bad card %(card)s: the suit is missing (S H D C)"),
                N_("bad card %(card)s at position %(position)s: the suit is missing (S H D C)")),
    "bad-suit": (N_("bad card %(card)s: it must end in a suit S H D C (or ♠ ♥ ♦ ♣)"),
                 N_("bad card %(card)s at position %(position)s: it must end in a suit S H D C "
                    "(or ♠ ♥ ♦ ♣)")),
    "bad-rank": (N_("bad card %(card)s: rank must be one of A 2 3 4 5 6 7 8 9 T (or 10) J Q K"),
                 N_("bad card %(card)s at position %(position)s: rank must be one of A 2 3 4 5 6 7 8 9 T "
                    "(or 10) J Q K")),
    "ambiguous": (N_("bad card %(card)s: %(letter)s alone could be %(names)s; type the suit's whole name"),
                  N_("bad card %(card)s at position %(position)s: %(letter)s alone could be %(names)s; "
                     "type the suit's whole name")),
}


def _refuse(kind: str, position: int | None, **params: object) -> CardError:
    """The ``CardError`` for one bad token, naming its position when it has one."""
    alone, placed = _REFUSALS[kind]
    if position is None:
        return CardError(_(alone, **params))
    return CardError(_(placed, position=digits(position), **params))


def _normal(text: str) -> str:
    """A typed token in one comparable form: NFC, upper case (Latin and Cyrillic), no variation
    selectors."""
    return unicodedata.normalize("NFC", text).strip().upper().translate(_VARIATION_SELECTORS)


def _rank(text: str) -> Rank | None:
    """The rank typed as ``text`` (upper case): a symbol, ``10``, Devanagari digits (a Marathi
    keyboard types ``१०``) or a local name (``गुलाम``); None when it is none of them."""
    text = text.strip().translate(_DEVANAGARI_DIGITS)
    return _RANK_ALIASES.get(text) or _LOCAL_RANKS.get(text)


def _parse_token(token: str, position: int | None) -> Card:
    if not isinstance(token, str):
        raise _refuse("not-text", position, value=repr(token))
    # Phone emoji keyboards send a suit as its glyph plus a variation selector ("♥" U+FE0F).
    t = _normal(token)
    hit = _BY_CODE.get(t)
    if hit is not None:
        return hit
    if not t:
        raise _refuse("empty", position)
    compact = "".join(t.split())
    if _rank(compact) is not None:
        raise _refuse("no-suit", position, card=repr(token))
    for key in _LOCAL_KEYS:
        if compact.endswith(key) and len(compact) > len(key):
            rank = _rank(compact[: -len(key)])
            if rank is None:
                raise _refuse("bad-rank", position, card=repr(token))
            suit = _LOCAL_TABLE[key]
            if not isinstance(suit, Suit):
                raise _refuse("ambiguous", position, card=repr(token), letter=key.lower(),
                              names=" / ".join(suit))
            return DECK[(rank - 1) * 4 + suit.index]
    suit_ch = t[-1]
    if suit_ch not in _SUIT_ALIASES:
        raise _refuse("bad-suit", position, card=repr(token))
    rank = _rank(t[:-1])
    if rank is None:
        raise _refuse("bad-rank", position, card=repr(token))
    return DECK[(rank - 1) * 4 + _SUIT_ORDER[_SUIT_ALIASES[suit_ch]]]


def parse_cards(cards: CardsLike, count: int | None = None, what: str = CARDS) -> list[Card]:
    """Read a group of distinct cards from text (spaces or commas) or a sequence of tokens.

    Raise ``CardError`` naming the bad token and its 1-based position, ``DuplicateCardError``
    when a card repeats, and ``CardError`` when ``count`` is given and not met. ``what`` names
    the cards in that message: a constant marked with ``N_`` (it is translated when shown).

    >>> parse_cards("as 10h")
    [Card.parse('AS'), Card.parse('TH')]
    >>> parse_cards("5H 5H")
    Traceback (most recent call last):
    ...
    scorer.errors.DuplicateCardError: duplicate card '5H' at positions 1 and 2
    """
    if isinstance(cards, str):
        # "5 पान" and "J काला पान" are one card each: join a rank to the local suit name after it.
        text = cards
        if not text.isascii():  # local names are all non-ASCII: Latin-only text skips the search
            text = _SPACED.sub(lambda m: m[1] + "".join(m[2].split()), unicodedata.normalize("NFC", text))
        tokens: list[Card | str] = [t for t in _SPLIT.split(text.strip()) if t]
    else:
        tokens = list(cards)
    out: list[Card] = []
    seen: dict[Card, int] = {}
    for i, tok in enumerate(tokens, 1):
        card = tok if isinstance(tok, Card) else _parse_token(tok, i)
        if card in seen:
            raise DuplicateCardError(_("duplicate card %(card)s at positions %(first)s and %(second)s",
                                       card=repr(str(card)), first=digits(seen[card]), second=digits(i)))
        seen[card] = i
        out.append(card)
    if count is not None and len(out) != count:
        params = {"count": digits(count), "what": _(what), "got": digits(len(out))}
        if out:
            raise CardError(_("expected %(count)s %(what)s, got %(got)s: %(cards)s",
                              cards=" ".join(map(str, out)), **params))
        raise CardError(_("expected %(count)s %(what)s, got %(got)s", **params))
    return out
