"""The English of a match: results, the screen's prompt, whose cards, claims put right.

The history lines and refusals are built from these phrases, so a screen, the API and the
engine's messages say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scorer.match.records import Phase
from scorer.match.settings import LengthKind, Settings
from scorer.match.state import CRIB, STARTER, EngineState, Owner
from scorer.rules import HAND_SIZE, GameResult, SkunkKind

__all__ = ["result_words", "match_words", "owner_words", "claim_notes", "prompt"]


def result_words(s: Settings, result: GameResult) -> str:
    """``"Ann won 121–87 (skunk)"``."""
    words = f"{s.side_name(result.winner)} won {result.winner_score}–{result.loser_score}"
    return words if result.skunk is SkunkKind.PLAIN else f"{words} ({result.skunk.label})"


def match_words(s: Settings, games_won: Sequence[int], game_points: Sequence[int], winner: int | None) -> str:
    """``"Ann won the match 2–1 in games"``, or ``""`` while the match goes on."""
    if winner is None:
        return ""
    if s.length.kind is LengthKind.BEST_OF:
        others = max(w for i, w in enumerate(games_won) if i != winner)
        return f"{s.side_name(winner)} won the match {games_won[winner]}–{others} in games"
    others = max(p for i, p in enumerate(game_points) if i != winner)
    return f"{s.side_name(winner)} won the match {game_points[winner]}–{others} in game points"


def owner_words(s: Settings, owner: Owner) -> str:
    """``"the crib"``, ``"the starter"`` or ``"Bob's hand"``."""
    if owner == CRIB:
        return "the crib"
    if owner == STARTER:
        return "the starter"
    return f"{s.players[int(owner)]}'s hand"


def claim_notes(s: Settings, claims: Mapping[int, int], true: Mapping[int, int]) -> str:
    """``"; Bob claimed 2: 1 open to muggins"`` for each under-claim in a play."""
    notes = []
    for seat, claim in claims.items():
        if claim < true[seat]:
            if s.muggins:
                notes.append(f"{s.players[seat]} claimed {claim}: {true[seat] - claim} open to muggins")
            else:
                notes.append(f"{s.players[seat]} claimed {claim}, corrected to {true[seat]}")
    return "".join(f"; {note}" for note in notes)


def prompt(s: Settings, st: EngineState) -> str:
    """The screen's line: ``"game 1, hand 3: Bob to count"``."""
    name = s.players
    if st.phase is Phase.CUT:
        return "cut for the first deal: " + ", ".join(name[seat] for seat in st.cutting)
    if st.phase is Phase.MATCH_OVER:
        return match_words(s, st.games_won, st.game_points, st.match_winner)
    if st.phase is Phase.GAME_OVER and st.result is not None:
        return f"{result_words(s, st.result)}: start the next game"
    hand = st.hand
    assert hand is not None  # dealt once the cut is over
    where = f"game {st.game}, hand {hand.number}: "
    if st.phase is Phase.STARTER:
        return where + f"{name[hand.dealer]} deals; turn the starter"
    if st.phase is Phase.PLAY:
        if hand.plays:
            return where + f"the play, {len(hand.plays)} of {HAND_SIZE * len(name)} cards played"
        return where + f"the play, {name[hand.order[0]]} leads"
    if st.phase is Phase.SHOW:
        return where + f"{name[hand.order[len(hand.counted)]]} to count"
    return where + f"{name[hand.dealer]} to count the crib"
