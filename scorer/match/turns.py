"""Whose turn it was: the play's turn order, checked on the cards as entered (docs/RULES.md, "The play").

The log holds only the cards in the order they were laid, with their players; go's are not
typed. So each card tells who was passed over: the players between the one who played before it
and its own player, going left. A player passed over said go, which a player who still holds a
card may do only when none of their cards fits. The engine does not know the cards still in a
hand, only how many there are, and a card is worth at most 10, so:

* at a count of 21 or less every card fits: passing over a player who still holds a card is
  impossible, and refused;
* above 21 the go may be true, but it says something about the cards that player still holds:
  none of them fit then. A card of theirs played later in the hand (cards only leave a hand)
  that would have fitted proves the go false, and is refused;
* a player with no card left is passed over freely.

A card that would take the count past 31 (or any card after 31) starts a new count: nobody could
play on the old one, so every player still holding a card said go at it, and the next player
after the one who played last, passing players with no card left, leads. The play itself is led
by the player on the dealer's left.

Once every card is in, these checks have looked at every card each player held at every go, so a
complete play that passes them is one the rules allow for the hands it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorer.cards import Card
from scorer.errors import MatchError
from scorer.i18n import _, digits
from scorer.match import words
from scorer.pegging import THIRTY_ONE
from scorer.rules import HAND_SIZE

__all__ = ["check_turns", "SURE_FIT"]

SURE_FIT = THIRTY_ONE - 10
"""The highest count at which every card fits (the largest card is worth 10): 21."""


def check_turns(
    plays: Sequence[tuple[int, Card]], order: Sequence[int], names: Sequence[str], start: int = 0
) -> None:
    """Raise ``MatchError`` at the first play of a hand that breaks the turn order.

    ``plays`` are ``(seat, card)`` in the order laid, ``order`` the seats from the dealer's left
    round to the dealer (the next seat to the left of ``s`` is ``(s + 1) % len(order)``),
    ``names`` the players' names by seat. Only plays from index ``start`` on are judged: the
    earlier ones are already stored (a log written before these checks may break them, and a
    stored score is never refused afterwards), but what they show, who said go where, still
    binds the new ones.

    >>> from scorer.cards import parse_cards
    >>> five, ten = parse_cards("5H TS")
    >>> check_turns([(1, five), (1, ten)], (1, 0), ("Ann", "Bob"))
    Traceback (most recent call last):
    ...
    scorer.errors.MatchError: Ann could not have said go at 5: Ann still holds 4 cards and every card \
fits under 31 (a card is worth at most 10). It was Ann's turn, not Bob's (Bob:TS).
    """
    n = len(order)
    left = dict.fromkeys(range(n), HAND_SIZE)
    # The lowest count at which each seat said go this hand: none of its cards fitted there.
    went: dict[int, int] = {}
    count, last = 0, -1

    def go(seat: int, at: int) -> None:
        if left[seat]:
            went[seat] = min(at, went.get(seat, at))

    for index, (seat, card) in enumerate(plays):
        judged = index >= start
        label = f"{names[seat]}:{card}"
        if left[seat] == 0 and judged:
            raise MatchError(_("%(name)s has only %(cards)s cards to play (%(play)s)", name=names[seat],
                               cards=digits(HAND_SIZE), play=label))
        if last < 0:
            if seat != order[0] and judged:
                raise MatchError(words.first_lead(names[order[0]], names[seat]))
        elif count + card.value > THIRTY_ONE:
            for other in range(n):
                go(other, count)
            ahead = [(last + k) % n for k in range(1, n + 1)]
            due = next(s for s in ahead if left[s])
            if seat != due and judged:
                out = [names[s] for s in ahead[: ahead.index(due)] if s != last]
                raise MatchError(words.wrong_lead(names[due], names[seat], count, names[last], out))
        else:
            passed = [(last + k) % n for k in range(1, n)]
            if seat != last:
                passed = passed[: passed.index(seat)]
            for other in passed:
                if left[other] and count <= SURE_FIT:
                    if judged:
                        words_ = words.cannot_go(names[other], count, left[other], names[seat], label)
                        raise MatchError(words_)
                    continue  # a stored go that cannot have been says nothing of the cards held
                go(other, count)
        if seat in went and card.value + went[seat] <= THIRTY_ONE and judged:
            raise MatchError(words.played_after_go(names[seat], str(card), went[seat], card.value))
        if last < 0 or count + card.value > THIRTY_ONE:
            count = 0
        count += card.value
        left[seat] = max(left[seat] - 1, 0)
        last = seat
