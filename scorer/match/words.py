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

__all__ = [
    "result_words", "match_words", "owner_words", "claim_notes", "prompt", "cards_held", "cannot_go",
    "first_lead", "played_after_go", "wrong_lead", "unfinished_play",
]


def result_words(s: Settings, result: GameResult) -> str:
    """``"Ann won 121–87 (skunk)"``; judged loser by loser ``"Ann won 61–40–25 (Bob skunk, Cat
    double skunk)"``."""
    if result.each:
        ranked = sorted(result.each, key=lambda m: -m.loser_score)
        scores = "–".join(str(v) for v in (result.winner_score, *(m.loser_score for m in ranked)))
        words = f"{s.side_name(result.winner)} won {scores}"
        margins = [f"{s.side_name(m.side)} {m.skunk.label}" for m in ranked if m.skunk is not SkunkKind.PLAIN]
        return f"{words} ({', '.join(margins)})" if margins else words
    words = f"{s.side_name(result.winner)} won {result.winner_score}–{result.loser_score}"
    return words if result.skunk is SkunkKind.PLAIN else f"{words} ({result.skunk.label})"


def match_words(s: Settings, games_won: Sequence[int], game_points: Sequence[int], winner: int | None) -> str:
    """``"Ann won the match 2–1 in games"``, or ``""`` while the match goes on.

    With three players every side's tally is given, the winner's first ("2–1–0"): one number for
    "the others" would hide a player. A single game of three is just "Ann won the match": "1–0–0
    in games" says nothing the game's result has not said.

    >>> best_of_3 = {"kind": "best_of", "games": 3}
    >>> three = Settings.from_json({"players": ["Ann", "Bob", "Cat"], "length": best_of_3})
    >>> match_words(three, (1, 2, 0), (1, 3, 0), 1)
    'Bob won the match 2–1–0 in games'
    """
    if winner is None:
        return ""
    best_of = s.length.kind is LengthKind.BEST_OF
    tally = games_won if best_of else game_points
    unit = "games" if best_of else "game points"
    if len(tally) == 3:
        if best_of and s.length.count == 1:
            return f"{s.side_name(winner)} won the match"
        others = sorted((v for i, v in enumerate(tally) if i != winner), reverse=True)
        return f"{s.side_name(winner)} won the match {'–'.join(map(str, (tally[winner], *others)))} in {unit}"
    others_best = max(v for i, v in enumerate(tally) if i != winner)
    return f"{s.side_name(winner)} won the match {tally[winner]}–{others_best} in {unit}"


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
        if s.scores_only:
            return where + f"{name[hand.dealer]} deals; the play, {name[hand.order[0]]} leads"
        return where + f"{name[hand.dealer]} deals; turn the starter"
    if st.phase is Phase.PLAY:
        if hand.plays:
            return where + f"the play, {len(hand.plays)} of {HAND_SIZE * len(name)} cards played"
        return where + f"the play, {name[hand.order[0]]} leads"
    if st.phase is Phase.SHOW:
        return where + f"{name[hand.order[len(hand.counted)]]} to count"
    return where + f"{name[hand.dealer]} to count the crib"


def cards_held(count: int) -> str:
    """``"1 card"`` or ``"4 cards"``."""
    return f"{count} card" if count == 1 else f"{count} cards"


def cannot_go(name: str, count: int, held: int, player: str, card: str) -> str:
    """A player passed over while every card they could hold fits (docs/RULES.md, "The play")."""
    every = "it fits" if held == 1 else "every card fits"
    return (
        f"{name} could not have said go at {count}: {name} still holds {cards_held(held)} and {every} "
        f"under 31 (a card is worth at most 10). It was {name}'s turn, not {player}'s ({card})."
    )


def first_lead(due: str, player: str) -> str:
    """The play led by someone other than the player on the dealer's left."""
    return f"{due} leads the play (the player on the dealer's left), not {player}"


def played_after_go(name: str, card: str, count: int, value: int) -> str:
    """A card that would have fitted when its player said go earlier this hand."""
    return (
        f"{name} could not have played {card}: {name} said go at {count}, yet {card} would have made "
        f"{count + value} there, and a player who holds a card that fits must play it."
    )


def wrong_lead(due: str, player: str, count: int, last: str, out: Sequence[str]) -> str:
    """A new count led by someone other than the next player after the last card's."""
    if count == 31:
        why = f"after 31 the next player after {last}, who made it, leads the new count"
    else:
        why = f"nobody could play on {count}, so the next player after {last}, who played last, leads"
    gone = f" ({' and '.join(out)} {'has' if len(out) == 1 else 'have'} no cards left)" if out else ""
    return f"it was {due}'s lead, not {player}'s: {why}{gone}."


def unfinished_play(s: Settings, left: Mapping[int, int], shown: Mapping[int, Sequence[str]]) -> str:
    """Why a show must wait: whose cards are still to play, by card where the show names them."""
    parts = []
    for seat, count in left.items():
        cards = shown.get(seat, ())
        if len(cards) == count:
            verb = "is" if count == 1 else "are"
            parts.append(f"{s.players[seat]}'s {' '.join(cards)} {verb} still to play")
        else:
            last = "last card is" if count == 1 else f"last {count} cards are"
            parts.append(f"{s.players[seat]}'s {last} still to play")
    certain = [f"{s.players[seat]}:{card}" for seat, cards in shown.items() for card in cards]
    text = "the play is not finished: " + "; ".join(parts)
    if certain and len(certain) == sum(left.values()):
        return text + f" (enter {' '.join(certain)} as the play first, then the show)"
    return text + " (enter the rest of the play first: its go and last-card points are due)"
