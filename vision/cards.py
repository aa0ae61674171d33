"""Card codes as the recogniser names them: rank `A 2 … 9 T J Q K` then suit `C D H S`.

The vision layer knows nothing of scoring, so it keeps its own tiny vocabulary instead of
importing `scorer.cards`; the codes are the same notation (docs/RULES.md), so `Card.parse(code)`
accepts every code this module produces.

>>> CARD_CODES[:3], len(CARD_CODES)
(('AC', '2C', '3C'), 52)
>>> card_code(12, 2)
'KH'
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
"""Rank letters in order ace to king; index 0 is the ace."""

SUITS = "CDHS"
"""Suit letters in order clubs, diamonds, hearts, spades."""

RED_SUITS = frozenset("DH")
"""Suits printed in red on an ordinary deck."""

CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""All 52 codes, suit-major (clubs ace to king, then diamonds ...)."""


def card_code(rank_index: int, suit_index: int) -> str:
    """Return the code of the card with 0-based `rank_index` (ace 0) and `suit_index` (clubs 0)."""
    return RANKS[rank_index] + SUITS[suit_index]


def split_code(code: str) -> tuple[int, int]:
    """Return (rank index, suit index) of a card code such as '5H'; ValueError if it is not one."""
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(f"not a card code: {code!r} (expected rank A23456789TJQK then suit CDHS)")
    return RANKS.index(code[0]), SUITS.index(code[1])
