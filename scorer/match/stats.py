"""Per-player statistics over a match's effective (not voided) events and its finished games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scorer.match.records import Entry, FinishedGame
from scorer.match.settings import Settings

__all__ = ["PlayerStats", "player_stats"]


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's numbers over the match's effective (not voided) events.

    Hands and cribs count the points the player scored for them (a muggins under-claim
    scores the claim); pegging is per hand dealt in which anything was entered.
    """

    player: int
    name: str
    hands_counted: int
    hand_points: int
    highest_hand: int | None
    cribs_counted: int
    crib_points: int
    hands_played: int
    peg_points: int
    muggins_points: int
    games_won: int
    skunks_given: int
    skunks_received: int

    @property
    def average_hand(self) -> float | None:
        """Mean points per hand counted."""
        return self.hand_points / self.hands_counted if self.hands_counted else None

    @property
    def average_crib(self) -> float | None:
        """Mean points per crib counted."""
        return self.crib_points / self.cribs_counted if self.cribs_counted else None

    @property
    def average_pegging(self) -> float | None:
        """Mean points pegged in the play per hand played."""
        return self.peg_points / self.hands_played if self.hands_played else None

    def to_json(self) -> dict[str, object]:
        """The API's JSON of a player's statistics."""
        return {
            "player": self.player, "name": self.name, "hands_counted": self.hands_counted,
            "hand_points": self.hand_points, "average_hand": self.average_hand,
            "highest_hand": self.highest_hand, "cribs_counted": self.cribs_counted,
            "crib_points": self.crib_points, "average_crib": self.average_crib,
            "hands_played": self.hands_played, "peg_points": self.peg_points,
            "average_pegging": self.average_pegging, "muggins_points": self.muggins_points,
            "games_won": self.games_won, "skunks_given": self.skunks_given,
            "skunks_received": self.skunks_received,
        }


def player_stats(
    s: Settings, entries: Sequence[Entry], games: Sequence[FinishedGame]
) -> tuple[PlayerStats, ...]:
    """One ``PlayerStats`` per seat from the log's entries and the finished games."""
    n = len(s.players)
    hands = [0] * n
    hand_points = [0] * n
    highest: list[int | None] = [None] * n
    cribs = [0] * n
    crib_points = [0] * n
    pegged = [0] * n
    muggins = [0] * n
    played: set[tuple[int, int]] = set()
    for e in entries:
        if e.voided or e.type in ("void", "cut", "next_game"):
            continue
        if e.type != "muggins":
            played.add((e.game, e.hand))
        if e.type == "show" and e.player is not None:
            p = e.points[e.player]
            hands[e.player] += 1
            hand_points[e.player] += p
            top = highest[e.player]
            highest[e.player] = p if top is None else max(top, p)
        elif e.type == "crib" and e.player is not None:
            cribs[e.player] += 1
            crib_points[e.player] += e.points[e.player]
        elif e.type == "peg":
            for seat in range(n):
                pegged[seat] += e.points[seat]
        elif e.type == "muggins" and e.player is not None:
            muggins[e.player] += e.points[e.player]
    out: list[PlayerStats] = []
    for seat in range(n):
        side = s.side_of(seat)
        won = sum(1 for g in games if g.result.winner == side)
        given = sum(g.result.skunks_given for g in games if g.result.winner == side)
        received = sum(1 for g in games if g.result.skunked(side))
        out.append(PlayerStats(
            seat, s.players[seat], hands[seat], hand_points[seat], highest[seat], cribs[seat],
            crib_points[seat], len(played), pegged[seat], muggins[seat], won, given, received,
        ))
    return tuple(out)
