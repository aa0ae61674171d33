"""Muggins rules engine: cards, the show, the play, tables, discards and matches.

Pure Python (stdlib and numpy); knows nothing of HTTP, images or databases.

>>> from scorer import score_show
>>> score_show("5H 5C 5S JD", "5D").total
29
"""

from scorer.cards import DECK, Card, Rank, Suit, parse_cards
from scorer.errors import CardError, DuplicateCardError, IllegalPlayError, MatchError
from scorer.match import Match, MatchState, Phase, Settings, new_match_settings
from scorer.pegging import PegEvent, Pegging, parse_plays, score_pegging
from scorer.rules import GameResult, GameRules, SkunkKind, judge, preset
from scorer.show import Score, ScoreItem, ScoreKind, score_show

__all__ = [
    "DECK", "Card", "Rank", "Suit", "parse_cards",
    "CardError", "DuplicateCardError", "IllegalPlayError", "MatchError",
    "Score", "ScoreItem", "ScoreKind", "score_show",
    "PegEvent", "Pegging", "parse_plays", "score_pegging",
    "Match", "MatchState", "Phase", "Settings", "new_match_settings",
    "GameResult", "GameRules", "SkunkKind", "judge", "preset",
]
