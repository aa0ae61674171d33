"""The play (pegging): the running count, its awards, and whether each play was legal.

A play is given as the cards in the order they were laid, each with its player's label. Go's
and restarts are never typed: they follow from the count (docs/RULES.md "The play"). A card that
would pass 31 can only be played once nobody could play on the old count, so the player of the
card before it pegs 1 for the go (nothing more after exactly 31, which already pegged 2) and
this card starts a new count. The final card of a complete play pegs 1 for last card, unless it
made 31.

Awards for the card just played look only at the cards since the count last restarted:

* the count reaches 15 (2) or 31 (2);
* pairs on the unbroken tail: 2 cards of a rank 2, three (pair royal) 6, four (double pair
  royal) 12;
* a run: the longest tail of N >= 3 cards whose ranks are N consecutive ranks in any order
  scores N (ace low, king high, no wrap: Q-K-A is no run).

A pair and a run never come from the same card: a tail of three or more that ends in a pair
repeats a rank, so it cannot be a run.

>>> p = score_pegging("A:4S B:6H A:5D B:3C A:4D")
>>> p.points
{'A': 10, 'B': 4}
>>> [f"{e.index}:{e.player}:{e.kind.value}:{e.points}" for e in p.events]
['2:A:fifteen:2', '2:A:run:3', '3:B:run:4', '4:A:run:4', '4:A:last:1']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer.cards import Card, CardsLike, parse_cards
from scorer.errors import CardError, DuplicateCardError, IllegalPlayError
from scorer.i18n import _, digits
from scorer.rules import HAND_SIZE
from scorer.show import ScoreKind

__all__ = [
    "PegEvent", "Pegging", "PlaysLike", "parse_plays", "score_pegging",
    "FIFTEEN", "THIRTY_ONE", "PAIR_POINTS", "MIN_RUN", "MIN_PLAYERS", "MAX_PLAYERS", "PLAY_HAND_SIZE",
]

FIFTEEN = 15
"""Count (in points of card value) that pegs 2 when reached exactly."""
THIRTY_ONE = 31
"""Highest count (card value): reaching it exactly pegs 2 and ends the count."""
FIFTEEN_POINTS = 2
THIRTY_ONE_POINTS = 2
GO_POINTS = 1
LAST_POINTS = 1
PAIR_POINTS = {2: 2, 3: 6, 4: 12}
"""Points for a set of equal ranks ending the tail, by its size: each pair of the set scores 2."""
MIN_RUN = 3
"""Fewest cards (consecutive ranks) that make a run."""
MIN_PLAYERS = 2
MAX_PLAYERS = 4
"""docs/RULES.md covers two players, three, and four in two partnerships."""
PLAY_HAND_SIZE = HAND_SIZE
"""Cards each player holds for the play: ``scorer.rules.HAND_SIZE``, under the name callers know."""

_SPLIT = re.compile(r"[\s,;]+")

PlaysLike = str | Iterable["str | tuple[str, Card | str]"]
"""What ``score_pegging`` accepts: ``"A:5H B:TS"``, or a sequence of ``"A:5H"`` or ``("A", card)``."""


@dataclass(frozen=True, slots=True)
class PegEvent:
    """One award in the play: which play earned it, who, what, how many points, with which cards.

    ``cards`` are the cards that make the award: every card of the count for a fifteen or 31,
    the set of equal ranks for a pair, the run's cards in play order, the card itself for a go or
    last card.
    """

    index: int
    player: str
    kind: ScoreKind
    points: int
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, object]:
        """``{"index": 1, "player": "B", "kind": "fifteen", "points": 2, "cards": ["5H", "TS"]}``."""
        return {
            "index": self.index,
            "player": self.player,
            "kind": self.kind.value,
            "points": self.points,
            "cards": [str(c) for c in self.cards],
        }


@dataclass(frozen=True)
class Pegging:
    """A play scored: the plays, every award in order, and the count after each play.

    ``restarts`` holds the index of every play that began a count (0 is always one when there
    are plays). Events are in play order; for one card, fifteen, thirty-one, pair and run come
    first, then the go it earned (found when the next card restarted the count) or last card.
    """

    plays: tuple[tuple[str, Card], ...]
    events: tuple[PegEvent, ...]
    counts: tuple[int, ...]
    restarts: tuple[int, ...]

    @property
    def points(self) -> dict[str, int]:
        """Points of every player that played, in the order they first played (0 when none)."""
        out = dict.fromkeys((player for player, _card in self.plays), 0)
        for e in self.events:
            out[e.player] += e.points
        return out

    @property
    def count(self) -> int:
        """The count after the last play (31 stays 31 until the next card starts a new count)."""
        return self.counts[-1] if self.counts else 0

    @property
    def since_restart(self) -> tuple[Card, ...]:
        """The cards of the current count, in play order."""
        if not self.restarts:
            return ()
        return tuple(card for _player, card in self.plays[self.restarts[-1]:])

    def events_for(self, index: int) -> tuple[PegEvent, ...]:
        """The awards earned by the play at ``index`` (0-based)."""
        return tuple(e for e in self.events if e.index == index)

    def to_json(self) -> dict[str, object]:
        """The CLI's and API's JSON: ``{"points": {"A": 2, "B": 7}, "events": [...]}``."""
        return {"points": self.points, "events": [e.to_json() for e in self.events]}


def _check_label(label: object, play: object = None, position: int = 0) -> str:
    """``label`` as a player's name; the error names the play and its position, or (``play``
    None) the hand the label is given for."""
    if not isinstance(label, str) or not label or ":" in label or any(ch.isspace() for ch in label):
        if play is None:
            raise CardError(_("bad hand for %(player)s: the player %(player)s must be a name without "
                              "spaces or ':', like 'A'", player=repr(label)))
        raise CardError(_("bad play %(play)s at position %(position)s: the player %(player)s must be a "
                          "name without spaces or ':', like 'A'",
                          play=repr(play), position=digits(position), player=repr(label)))
    return label


def _parse_play(item: object, position: int) -> tuple[str, Card]:
    """One play from ``"A:5H"`` or ``("A", card)``; errors name the item and its 1-based position."""
    where = {"play": repr(item), "position": digits(position)}
    if isinstance(item, str):
        token = item.strip()
        label, colon, card_text = token.partition(":")
        if not colon:
            raise CardError(_("bad play %(play)s at position %(position)s: write each play as PLAYER:CARD, "
                              "like 'A:5H'", **where))
        if not card_text:
            raise CardError(_("bad play %(play)s at position %(position)s: the card is missing; write each "
                              "play as PLAYER:CARD, like 'A:5H'", **where))
        card_item: object = card_text
    elif isinstance(item, tuple) and len(item) == 2:
        label, card_item = item
    else:
        raise CardError(_("bad play %(play)s at position %(position)s: write each play as PLAYER:CARD, "
                          "like 'A:5H', or give (player, card)", **where))
    player = _check_label(label, item, position)
    if isinstance(card_item, Card):
        return player, card_item
    if not isinstance(card_item, str):
        raise CardError(_("bad play %(play)s at position %(position)s: the card must be text like '5H', "
                          "not %(value)s", value=repr(card_item), **where))
    try:
        return player, Card.parse(card_item)
    except CardError as err:
        # The card's own refusal, already a sentence in the player's language, after the play's place.
        raise CardError(_("bad play %(play)s at position %(position)s: %(reason)s", reason=str(err),
                          **where)) from None


def _parse(plays: PlaysLike, repeats: bool) -> list[tuple[str, Card]]:
    items: list[object] = (
        [t for t in _SPLIT.split(plays.strip()) if t] if isinstance(plays, str) else list(plays)
    )
    out = [_parse_play(item, i) for i, item in enumerate(items, 1)]
    if not repeats:
        seen: dict[Card, int] = {}
        for i, (_player, card) in enumerate(out, 1):
            if card in seen:
                raise DuplicateCardError(_("card %(card)s is played twice, at positions %(first)s and "
                                           "%(second)s", card=repr(str(card)), first=digits(seen[card]),
                                           second=digits(i)))
            seen[card] = i
    return out


def parse_plays(text: PlaysLike) -> list[tuple[str, Card]]:
    """Read plays from ``"A:5H B:TS A:5D"`` (spaces, commas or semicolons) or a sequence of plays.

    Each play is ``PLAYER:CARD`` text or a ``(player, card)`` pair; a player is any non-empty
    name without spaces or ``:``. Raise ``CardError`` naming a bad play and its 1-based position,
    ``DuplicateCardError`` when a card is played twice.

    >>> parse_plays("A:5H, B:10s")
    [('A', Card.parse('5H')), ('B', Card.parse('TS'))]
    >>> parse_plays("A:5H B:7")
    Traceback (most recent call last):
    ...
    scorer.errors.CardError: bad play 'B:7' at position 2: bad card '7': the suit is missing (S H D C)
    """
    return _parse(text, repeats=False)


class _Table:
    """The players' hands during the play, to check each play against the rules."""

    def __init__(self, hands: Mapping[str, CardsLike]) -> None:
        if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
            # One English form for any count ("got 1 hands"), as before; translations word it so
            # the count needs no plural ("hands given: 1").
            raise IllegalPlayError(_("the play is for %(least)s to %(most)s players, got %(count)s hands",
                                     least=digits(MIN_PLAYERS), most=digits(MAX_PLAYERS),
                                     count=digits(len(hands))))
        self.seats: tuple[str, ...] = tuple(_check_label(p) for p in hands)
        self.hands: dict[str, frozenset[Card]] = {}
        owner: dict[Card, str] = {}
        for player, cards in hands.items():
            held = parse_cards(cards)
            if len(held) > PLAY_HAND_SIZE:
                raise CardError(_("%(player)s's hand has %(count)s cards; a player holds at most %(most)s "
                                  "for the play", player=player, count=digits(len(held)),
                                  most=digits(PLAY_HAND_SIZE)))
            for card in held:
                if card in owner:
                    raise DuplicateCardError(_("duplicate card %(card)s: it is in both %(first)s's and "
                                               "%(second)s's hands", card=repr(str(card)),
                                               first=owner[card], second=player))
                owner[card] = player
            self.hands[player] = frozenset(held)
        self.owner = owner
        self.left: dict[str, set[Card]] = {p: set(h) for p, h in self.hands.items()}
        self.played_at: dict[Card, int] = {}

    def _fits(self, player: str, count: int) -> list[Card]:
        return sorted(c for c in self.left[player] if count + c.value <= THIRTY_ONE)

    def _next_able(self, after: str, count: int) -> str | None:
        """The first player after ``after`` in seating order (``after`` last) who can play on ``count``."""
        start = self.seats.index(after) + 1
        for k in range(len(self.seats)):
            player = self.seats[(start + k) % len(self.seats)]
            if self._fits(player, count):
                return player
        return None

    def play(self, index: int, player: str, card: Card, count: int, last: str | None) -> None:
        """Check and record play ``index`` made on ``count``, after ``last`` played (None: the lead)."""
        where = {"number": digits(index + 1), "player": player, "card": str(card)}
        if player not in self.left:
            raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(player)s has no hand at this "
                                     "table (players: %(players)s)", players=", ".join(self.seats), **where))
        if card in self.played_at:
            raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(card)s was already played at "
                                     "play %(earlier)s", earlier=digits(self.played_at[card] + 1), **where))
        if card not in self.hands[player]:
            holder = self.owner.get(card)
            if holder:
                raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(player)s does not hold "
                                         "%(card)s (%(holder)s does)", holder=holder, **where))
            raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(player)s does not hold "
                                     "%(card)s", **where))
        if last is None:
            # The lead goes to the dealer's left, the first seat; only an empty hand passes it on.
            due = self._next_able(self.seats[-1], 0)
            if player != due:
                raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(due)s leads the play, "
                                         "not %(player)s", due=due, **where))
        else:
            able = self._next_able(last, count)
            if able is None:
                # Nobody could play on the old count: go (or 31), and the next player after the one
                # who played last leads the new count.
                due = self._next_able(last, 0)
                if player != due:
                    raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): after %(last)s played "
                                             "to %(count)s, %(due)s leads the new count, not %(player)s",
                                             last=last, count=digits(count), due=due, **where))
            elif count + card.value > THIRTY_ONE:
                fits = self._fits(able, count)
                cards = str(fits[0])
                for other in fits[1:]:
                    cards = _("%(earlier)s or %(next)s", earlier=cards, next=str(other))
                raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): %(able)s said go while able "
                                         "to play %(cards)s (count %(count)s)",
                                         able=able, cards=cards, count=digits(count), **where))
            elif player != able:
                raise IllegalPlayError(_("play %(number)s (%(player)s:%(card)s): it is %(able)s's turn "
                                         "(count %(count)s), not %(player)s's",
                                         able=able, count=digits(count), **where))
        self.left[player].discard(card)
        self.played_at[card] = index

    def check_finished(self, plays: int) -> None:
        """A complete play leaves no card in hand: while any is held, someone can play."""
        held = "; ".join(_("%(player)s still holds %(cards)s", player=p,
                            cards=" ".join(str(c) for c in sorted(self.left[p])))
                         for p in self.seats if self.left[p])
        if held and plays:
            raise IllegalPlayError(_("the play is not finished after play %(number)s: %(held)s",
                                     number=digits(plays), held=held))
        if held:
            raise IllegalPlayError(_("the play is not finished: %(held)s", held=held))


def _card_events(index: int, player: str, since: list[Card], count: int) -> list[PegEvent]:
    """Awards for the last card of ``since`` (the cards of this count), making ``count``."""
    out: list[PegEvent] = []
    if count == FIFTEEN:
        out.append(PegEvent(index, player, ScoreKind.FIFTEEN, FIFTEEN_POINTS, tuple(since)))
    if count == THIRTY_ONE:
        out.append(PegEvent(index, player, ScoreKind.THIRTY_ONE, THIRTY_ONE_POINTS, tuple(since)))
    rank = since[-1].rank
    same = 1
    while same < len(since) and since[-1 - same].rank == rank:
        same += 1
    if same >= 2:
        out.append(PegEvent(index, player, ScoreKind.PAIR, PAIR_POINTS[same], tuple(since[-same:])))
        return out  # the tail repeats a rank, so no run can end here
    for n in range(len(since), MIN_RUN - 1, -1):
        ranks = {int(c.rank) for c in since[-n:]}
        if len(ranks) == n and max(ranks) - min(ranks) == n - 1:
            out.append(PegEvent(index, player, ScoreKind.RUN, n, tuple(since[-n:])))
            break
    return out


def score_pegging(
    plays: PlaysLike, hands: Mapping[str, CardsLike] | None = None, complete: bool = True
) -> Pegging:
    """Score a play given as ``(player, card)`` in the order laid; go's follow from the count.

    ``complete`` says the plays are the whole play, so the final card pegs last card; a play
    still in progress (``complete=False``) pegs no go or last card for its final card.

    With ``hands`` (player to the cards they held for the play, in seating order from the
    player on the dealer's left, who leads), also check every play and raise
    ``IllegalPlayError`` naming its position, player and card: a card not held or already
    played, a play out of turn, a card passing 31 while someone could still play, and for a
    complete play any card left in hand. Without hands a repeated card raises
    ``DuplicateCardError``; bad text raises ``CardError``.

    >>> score_pegging("A:TS B:5D A:5H B:5C").points  # fifteen, pair, pair royal, last card
    {'A': 2, 'B': 9}
    >>> score_pegging("A:TS B:KH A:9D B:8C", {"A": "TS 9D", "B": "KH 8C"}).points  # go, then last
    {'A': 1, 'B': 1}
    >>> score_pegging("A:TS B:KH A:9D B:8C", {"A": "TS 9D", "B": "KH 2C 8C"})
    Traceback (most recent call last):
    ...
    scorer.errors.IllegalPlayError: play 4 (B:8C): B said go while able to play 2C (count 29)
    """
    table = _Table(hands) if hands is not None else None
    # With hands a repeated card is an illegal play, reported where it happens.
    seq = _parse(plays, repeats=table is not None)
    events: list[PegEvent] = []
    counts: list[int] = []
    restarts: list[int] = []
    since: list[Card] = []
    count = 0
    for i, (player, card) in enumerate(seq):
        if table is not None:
            table.play(i, player, card, count, seq[i - 1][0] if i else None)
        if i == 0 or count + card.value > THIRTY_ONE:
            if i and count != THIRTY_ONE:
                prev_player, prev_card = seq[i - 1]
                events.append(PegEvent(i - 1, prev_player, ScoreKind.GO, GO_POINTS, (prev_card,)))
            restarts.append(i)
            since = []
            count = 0
        count += card.value
        since.append(card)
        counts.append(count)
        events.extend(_card_events(i, player, since, count))
    if complete:
        if table is not None:
            table.check_finished(len(seq))
        if seq and count != THIRTY_ONE:
            player, card = seq[-1]
            events.append(PegEvent(len(seq) - 1, player, ScoreKind.LAST, LAST_POINTS, (card,)))
    return Pegging(tuple(seq), tuple(events), tuple(counts), tuple(restarts))
