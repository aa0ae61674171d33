"""The engine's error hierarchy: every error is a ``ValueError`` with a message a player can act on."""

from __future__ import annotations

__all__ = ["CardError", "DuplicateCardError", "IllegalPlayError", "MatchError"]


class CardError(ValueError):
    """A card token could not be read, or a set of cards is the wrong size."""


class DuplicateCardError(CardError):
    """The same card appears twice in one deal."""


class IllegalPlayError(ValueError):
    """A play breaks the rules of pegging (passes 31, card not held, go while able to play)."""


class MatchError(ValueError):
    """An event cannot be applied to a match in its current state."""
