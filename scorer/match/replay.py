"""``Match``: a match replayed from its settings and its log, never changed in place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scorer.errors import MatchError
from scorer.i18n import _, digits
from scorer.match.engine import Engine
from scorer.match.events import parse_event
from scorer.match.records import Entry, MatchState
from scorer.match.settings import Settings
from scorer.match.stats import PlayerStats, player_stats

__all__ = ["Match"]


class Match:
    """A match replayed from its settings and events; immutable: ``apply`` returns a new one.

    Raise ``MatchError`` naming the first event (by sequence number) that cannot be applied.
    """

    __slots__ = ("_engine",)

    _engine: Engine

    def __init__(
        self, settings: Settings | Mapping[str, object], events: Iterable[Mapping[str, object]] = ()
    ) -> None:
        base = settings if isinstance(settings, Settings) else Settings.from_json(settings)
        self._engine = Engine(base)
        self._engine.strict = False  # a stored log: its scores were acknowledged (Engine.strict)
        for seq, event in enumerate(events, 1):
            try:
                self._engine.apply(parse_event(event))
            except MatchError as err:
                kind = event.get("type") if isinstance(event, Mapping) else None
                raise MatchError(_("event #%(seq)s (%(type)s): %(error)s", seq=digits(seq), type=str(kind),
                                   error=str(err))) from None
        self._engine.strict = True

    @classmethod
    def replay(
        cls, settings: Settings | Mapping[str, object], events: Iterable[Mapping[str, object]]
    ) -> Match:
        """Same as ``Match(settings, events)``."""
        return cls(settings, events)

    def apply(self, event: Mapping[str, object]) -> Match:
        """A new match with ``event`` appended; raise ``MatchError`` (and change nothing) if refused."""
        engine = self._engine.copy()
        engine.apply(parse_event(event))
        twin = Match.__new__(Match)
        twin._engine = engine
        return twin

    def check(self, event: Mapping[str, object]) -> None:
        """Raise ``MatchError`` if ``event`` cannot be appended now; change nothing."""
        self.apply(event)

    @property
    def settings(self) -> Settings:
        """The settings as the log leaves them: a ``settings`` event renames seats or turns scores
        only on or off; the rest stays as the match was created."""
        return self._engine.s

    @property
    def events(self) -> tuple[Mapping[str, object], ...]:
        """The log: every event as appended (plain JSON), voids and voided ones included."""
        return tuple(event.raw for event in self._engine.st.log)

    @property
    def next_seq(self) -> int:
        """The sequence number the next event will get."""
        return len(self._engine.st.log) + 1

    @property
    def state(self) -> MatchState:
        """The board after the whole log."""
        return self._engine.state()

    @property
    def history(self) -> tuple[Entry, ...]:
        """Every event with its effect, in log order (index ``seq - 1``)."""
        return tuple(self._engine.st.entries)

    def starter_of(self, entry: Entry) -> str | None:
        """The starter of the hand ``entry`` belongs to (its effective ``starter`` event's card),
        or None when none was entered: what a stored show or crib was counted with."""
        for e in self.history[: entry.seq - 1]:
            if e.type == "starter" and not e.voided and (e.game, e.hand) == (entry.game, entry.hand):
                card = e.event.get("card")
                return card if isinstance(card, str) else None
        return None

    def side_name(self, side: int) -> str:
        """``"Ann"``, or ``"Ann & Cat"`` for a partnership."""
        return self.settings.side_name(side)

    def stats(self) -> tuple[PlayerStats, ...]:
        """Per-player statistics from the effective events and the finished games."""
        return player_stats(self.settings, self._engine.st.entries, self._engine.st.games)

    def to_json(self) -> dict[str, object]:
        """Everything the API serves: settings, board, history and statistics."""
        return {
            "settings": self.settings.to_json(),
            "sides": [self.side_name(i) for i in range(len(self.settings.sides))],
            "next_seq": self.next_seq,
            "state": self.state.to_json(),
            "history": [e.to_json() for e in self.history],
            "stats": [p.to_json() for p in self.stats()],
        }

