"""What a replayed match shows: the phase, the board (``MatchState``) and the history lines."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from scorer.i18n import current
from scorer.pegging import PegEvent
from scorer.rules import GameResult
from scorer.show import Score

__all__ = ["Phase", "Said", "Entry", "Miss", "FinishedGame", "MatchState"]


class Phase(Enum):
    """Where the match stands: what the next event may be."""

    CUT = "cut"
    """Cutting for the first deal; only ``cut`` events."""
    STARTER = "starter"
    """A hand is dealt: the starter is next (or the play, or the first show, skipping it)."""
    PLAY = "play"
    """Pegging: ``peg`` events until the first show."""
    SHOW = "show"
    """Counting hands in order; ``MatchState.to_count`` is next."""
    CRIB = "crib"
    """Every hand is counted; the dealer's crib is next."""
    GAME_OVER = "game_over"
    """A side reached the target; ``next_game`` starts the next."""
    MATCH_OVER = "match_over"
    """A side won the match; only ``void`` remains."""

    def __repr__(self) -> str:
        return f"Phase.{self.name}"



@dataclass(frozen=True, slots=True)
class Said:
    """A history line kept as what to say, put into words each time it is read.

    A replayed match is cached and shared by every reader, whatever their language, so a line
    cannot be a finished string: it is a function of ``scorer.match.words`` and the values it
    was said with (names as they were then, cards, points), worded in the reader's language.
    Each language's wording is kept once made: the history is read on every poll and API call,
    and its words never change (the catalogues are read once per process).

    >>> from scorer.match import words
    >>> str(Said(words.pegs_line, ("Ann", 2)))
    'Ann pegs 2'
    """

    words: Callable[..., str]
    args: tuple[object, ...] = ()
    _said: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __str__(self) -> str:
        lang = current()
        text = self._said.get(lang)
        if text is None:
            # Threads may both word a line the first time: they write the same string.
            text = self._said[lang] = self.words(*self.args)
        return text


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of the log as the match read it.

    ``points`` is what the event gave each player (before the score stopped at the target),
    ``deltas`` the change to each side's score, ``unscored`` the points it could not peg
    because the game had been won. ``score`` is the itemized show count when the cards were
    entered, ``pegging`` the play's new awards. A voided entry keeps what it did when it was
    applied; ``voided_by`` names the undo. ``said`` is the line, worded when read (``text``).
    """

    seq: int
    event: Mapping[str, object]
    game: int
    hand: int
    player: int | None
    points: tuple[int, ...]
    deltas: tuple[int, ...]
    unscored: int
    said: Said
    score: Score | None = None
    pegging: tuple[PegEvent, ...] = ()
    voided_by: int | None = None

    @property
    def type(self) -> str:
        """The event's type."""
        return str(self.event["type"])

    @property
    def voided(self) -> bool:
        """Whether a later ``void`` undid this event."""
        return self.voided_by is not None

    @property
    def text(self) -> str:
        """The line in the current language: "Bob's hand 5H 5C 5S JD with 5D: 29 (...)"."""
        return str(self.said)

    def to_json(self) -> dict[str, object]:
        """The API's JSON of one history line."""
        return {
            "seq": self.seq, "type": self.type, "event": dict(self.event), "game": self.game,
            "hand": self.hand, "player": self.player, "points": list(self.points),
            "deltas": list(self.deltas), "unscored": self.unscored, "text": self.text,
            "score": self.score.to_json() if self.score is not None else None,
            "pegging": [e.to_json() for e in self.pegging], "voided": self.voided,
            "voided_by": self.voided_by,
        }


@dataclass(frozen=True, slots=True)
class Miss:
    """Points a player under-claimed with muggins on, open to an opponent's claim."""

    seq: int
    player: int
    points: int
    game: int
    hand: int

    def to_json(self) -> dict[str, object]:
        """``{"seq": 7, "player": 1, "points": 2}``."""
        return {"seq": self.seq, "player": self.player, "points": self.points}


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A won game: its number, who dealt first, how many hands, the final scores and the result."""

    number: int
    first_dealer: int
    hands: int
    scores: tuple[int, ...]
    result: GameResult

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a finished game."""
        return {
            "number": self.number, "first_dealer": self.first_dealer, "hands": self.hands,
            "scores": list(self.scores), "result": self.result.to_json(),
        }


@dataclass(frozen=True, slots=True)
class MatchState:
    """The board after the log: what a screen shows and what the next event may be.

    ``scores`` and ``backs`` are per side (the front peg and the back peg, the score before
    the side's last move). ``counting_order`` lists the seats that count this hand, left of
    the dealer first and the dealer last; ``to_count`` is the next of them (None once the crib
    is due or outside the show). ``expected`` lists the event types accepted now.
    ``next_to_play``, ``next_dealer``, ``cards_left``, ``known_hands`` and ``played_by`` answer
    what a screen asks of the hand (not part of ``to_json``, which the API keeps as it was).
    """

    phase: Phase
    game: int
    hand: int
    dealer: int | None
    counting_order: tuple[int, ...]
    counted: tuple[int, ...]
    to_count: int | None
    starter: str | None
    plays: tuple[tuple[int, str], ...]
    scores: tuple[int, ...]
    backs: tuple[int, ...]
    cutting: tuple[int, ...]
    expected: tuple[str, ...]
    prompt: str
    result: GameResult | None
    games: tuple[FinishedGame, ...]
    games_won: tuple[int, ...]
    game_points: tuple[int, ...]
    match_winner: int | None
    muggins_open: tuple[Miss, ...]
    next_to_play: int | None = None
    """The seat whose card comes next in the play: the dealer's left leads, then round the table
    after the last card played, passing players with no card left. A go is not logged, so when a
    player cannot play the turn moves past them; None outside the play or once it is complete."""
    next_dealer: int | None = None
    """Who deals next: the next hand's dealer (the deal passes left), or once a game is won the
    next game's first dealer (the loser, docs/RULES.md); None while cutting and once the match is won."""
    cards_left: tuple[int, ...] = ()
    """Per seat, the cards of the hand not yet played (entered as cards) in this hand's play."""
    known_hands: tuple[tuple[str, ...], ...] = ()
    """Per seat, the cards of the hand known so far this hand: those played, then those shown."""

    @property
    def crib_owner(self) -> int | None:
        """The crib is the dealer's."""
        return self.dealer

    def played_by(self, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` has played this hand, in order."""
        return tuple(card for who, card in self.plays if who == seat)

    def to_json(self) -> dict[str, object]:
        """The API's JSON of the board."""
        return {
            "phase": self.phase.value, "game": self.game, "hand": self.hand, "dealer": self.dealer,
            "crib_owner": self.crib_owner, "counting_order": list(self.counting_order),
            "counted": list(self.counted), "to_count": self.to_count, "starter": self.starter,
            "plays": [[seat, card] for seat, card in self.plays], "scores": list(self.scores),
            "backs": list(self.backs), "cutting": list(self.cutting), "expected": list(self.expected),
            "prompt": self.prompt, "result": self.result.to_json() if self.result else None,
            "games": [g.to_json() for g in self.games], "games_won": list(self.games_won),
            "game_points": list(self.game_points), "match_winner": self.match_winner,
            "muggins_open": [m.to_json() for m in self.muggins_open],
        }
