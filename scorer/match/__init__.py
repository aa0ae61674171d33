"""A match of cribbage as an append-only log of events, replayed to its state (docs/RULES.md).

Nothing here knows of HTTP or databases: a store keeps the settings and the events (plain JSON
dicts, each with its 1-based sequence number, its position in the log) and the web layer
replays them with ``Match(settings, events)`` to show the board and validate the next event.
Nothing is ever deleted: an undo is a ``void`` event naming the event it undoes.

Quick tour
----------

>>> settings = new_match_settings(["Ann", "Bob"], first_dealer=0, length={"kind": "best_of", "games": 3})
>>> m = Match(settings)
>>> m.state.phase, m.state.dealer, m.state.prompt
(Phase.STARTER, 0, 'game 1, hand 1: Ann deals; turn the starter')
>>> m = m.apply({"type": "starter", "card": "JD"})  # his heels: 2 to the dealer, Ann
>>> m = m.apply({"type": "peg", "plays": "Bob:5H Ann:TS Bob:5C Ann:5S"})  # Ann 15-2, pair 2
>>> m.state.scores
(6, 0)
>>> m.check({"type": "show", "player": 1, "hand": "5H 5C 4D 6D"})
Traceback (most recent call last):
...
scorer.errors.MatchError: the play is not finished: Bob's 4D 6D are still to play; Ann's last 2 cards \
are still to play (enter the rest of the play first: its go and last-card points are due)
>>> m = m.apply({"type": "peg", "plays": "Bob:4D Ann:KS Bob:6D Ann:QS"})  # Bob's go 1, Ann's last 1
>>> m = m.apply({"type": "show", "player": 1, "hand": "5H 5C 4D 6D"})
>>> m.history[-1].text
"Bob's hand 5H 5C 4D 6D with JD: 16 (fifteen two, fifteen four, fifteen six, fifteen eight and a \
double run of three is sixteen)"
>>> m.state.scores, m.state.backs, m.state.to_count
((7, 17), (6, 1), 0)
>>> m.check({"type": "crib", "points": 4})
Traceback (most recent call last):
...
scorer.errors.MatchError: the crib is counted after every hand: Ann counts next
>>> m = m.apply({"type": "void", "seq": 4, "reason": "wrong hand"})
>>> m.state.scores, m.history[3].voided_by
((7, 1), 5)

Settings
--------

``new_match_settings(players, ...)`` validates and returns the normalised JSON dict (store it
as is; ``Settings.from_json`` reads it back)::

    {"players": ["Ann", "Bob"],          # 2 or 3 individuals, or 4 in two partnerships
     "partnerships": false,              # true exactly when there are 4 players
     "target": 121,                      # or 61
     "preset": "home",                   # home, acc, lurch (scorer.rules) or custom
     "custom": null,                     # with "custom": {"plain": 1, "lines": [...]}
     "length": {"kind": "best_of", "games": 3},   # or {"kind": "points", "points": 7}
     "muggins": false,
     "first_dealer": 0,                  # a seat, or null to cut for the deal
     "three_player_skunk": "runner-up",  # three players only: or "each-loser"
     "scores_only": true}                # written only when true: no cards entered

``three_player_skunk`` (present exactly when there are three players; a stored match without
it means ``"runner-up"``): the win is judged against the runner-up only, or against each loser
on their own, every loser on a line adding that line's extra over a plain win to the game
points (``scorer.rules.judge_each``); the result then lists each loser's margin.

Seats are numbered 0..n-1 clockwise round the table, so seat ``d + 1`` sits on the left of the
dealer ``d``. The deal passes to the left (it alternates with two players). With four players
partners sit opposite: side 0 is seats 0 and 2, side 1 is seats 1 and 3, and partners' points
go to one score. Otherwise each player is a side of its own (side ``i`` is seat ``i``). Scores,
game points and results are per side; statistics are per player.

Match length: ``best_of`` N (odd) games is won by the first side to win N // 2 + 1 games,
each won game counting once whatever its margin; ``points`` P is won by the first side to
reach P game points, where the preset's skunk values count. With three players a best-of
match goes on until one side has the games it needs.

Events
------

Every event is a dict with a ``"type"``; unknown keys are refused so a typo never passes
silently. ``player`` is a seat number; ``seq`` names an earlier event by its sequence number.
Cards are text (``"5H 5C 5S JD"``) or lists of tokens, in the notation of docs/RULES.md.

``cut``: ``{"cards": ["5H", "KD"]}``, one card per seat, when ``first_dealer`` is null. The
    lowest rank deals (ace low); when several tie for lowest, exactly those players cut again
    (``null`` for the others): ``{"cards": ["2C", null, "2H"]}`` then ``["9S", null, "4D"]``.
``starter``: ``{"card": "JD"}``. A jack pegs 2 to the dealer for his heels at once. The card
    may be ``null`` when the players do not enter cards; then ``"heels": true`` pegs the 2.
    Entering a ``peg`` or the first ``show`` before any starter skips it for that hand (a
    show with cards then needs a starter, so it is refused).
``peg``: points in the play, as often as needed while the play lasts:
    ``{"player": 1, "points": 2}``, or the cards as played, so the companion counts them:
    ``{"plays": "Ann:5H Bob:TS Ann:5D"}`` (labels are players' names without spaces,
    case-insensitive, or seat letters A B C D) or ``{"plays": [[0, "5H"], [1, "TS"]]}``.
    Plays entered over several events are one play: each event scores only its new cards
    (and a go earned by the card before them). The first card must be led by the player on
    the dealer's left; after all 4 cards of every player the last card pegs 1. The turn order
    is checked (``scorer.match.turns``): a player still holding a card may be passed over only
    above 21, and a go binds the cards they play later; after a go or 31 the next player after
    the one who played last leads.
    ``"claimed": [null, 3]`` (one entry per seat) is what each player pegged for these cards,
    for muggins.
``show``: ``{"player": 1, "hand": "5H 5C 5S JD"}`` counted by the engine with the hand's
    starter, optionally ``"claimed": 27`` (what the player announced), or
    ``{"player": 1, "points": 8}`` when the cards are not entered. Hands count in order: the
    player on the dealer's left first, round to the dealer. The first show ends the play; it is
    refused while a play entered by its cards lacks some (naming them when the show holds them),
    unless part of that hand's play was pegged as a number.
``crib``: ``{"hand": "2C 3C KD QH"}`` (crib rules: only a five-card flush) or
    ``{"points": 4}``, after every hand; ``"player"`` may be given and must be the dealer.
    The crib ends the hand: the deal passes left.
``muggins``: ``{"player": 0, "seq": 7, "points": 2}``: seat 0 claims points that event 7
    under-claimed. ``"from": 1`` names whose points when event 7 was a play with several
    under-claims. Only with muggins on, by a player of another side than the one who missed
    them (with three players either opponent, the first claim wins), within the same hand or
    before anything is entered in the next one. The claimant pegs the lesser of the claim and
    the true missing amount (ACC rule 10), once per miss.
``correction``: ``{"player": 0, "points": -2, "reason": "pegged twice"}`` (or ``"side"``):
    adds or takes points by hand; never below 0.
``void``: ``{"seq": 7, "reason": "typo"}`` undoes event 7: the state becomes what the log would
    give without it. Refused when that log would be invalid (the message names the event that
    would break: undo that one first), for a void (enter the undone event again instead) and
    for an event already undone.
``settings``: ``{"players": ["Ann", "Bob"]}`` names the seats anew (one name per seat, checked
    as a new match's names are), ``{"scores_only": true}`` (or false) says whether the table
    enters cards; either or both, in any phase (not listed in ``expected``), refused when it
    changes nothing. ``match.settings`` is the settings as these events leave them; undoing one
    takes the old names back. Nothing on the board moves.
``next_game``: ``{}`` starts the next game once one is won. The loser deals first (with three
    players the lowest score, with partners the loser's player next to the left of the
    previous game's first dealer; ties go to the first such player to that left).

Claims and muggins
------------------

A ``claimed`` total is checked against the engine's count. Over-claims are refused with the
itemized count. An under-claim with muggins off is corrected (the player pegs the true count);
with muggins on the player pegs only the claim and the difference waits for a ``muggins``
event. Shows entered as numbers have no engine count to settle a claim against.

Refusals
--------

``apply`` and ``check`` raise ``MatchError`` (a ``ValueError``) with a message a player can act
on: a show out of turn names who counts next, a score after the game names the result ("the
game is over: Ann won 121–87 (skunk); start the next game"), a hand of 19 or over 29, a card
twice in one hand's deal ("5H appears twice in hand 3's deal: Bob's hand and the crib").
The game ends the moment a side reaches the target, even mid-play or mid-show; the rest of
that event's points and the hand's later counts are never scored (the score stays at the
target).

The API
-------

``Match(settings, events=())`` (or ``Match.replay``) replays a stored log; ``settings`` is the
dict above or a ``Settings``. A bad stored event raises ``MatchError("event #7 (show): ...")``.
A ``Match`` never changes: ``match.apply(event)`` returns a new one with the event appended
(raising ``MatchError`` and leaving ``match`` as it was when refused), ``match.check(event)``
only validates. To append, store ``new.events[-1]`` (the event as a plain-JSON copy) under
sequence number ``match.next_seq``. Undo re-replays the log, so it costs one replay.

``match.state`` is a ``MatchState``, the board (all per side unless said):

* ``phase`` (``Phase``: cut, starter, play, show, crib, game_over, match_over), ``expected``
  (the event types accepted now, "muggins" only while a miss is open, "void" while anything
  can be undone) and ``prompt`` (a line for the screen: "game 1, hand 3: Bob to count");
* ``game`` and ``hand`` (1-based, the hand within the game), ``dealer`` and ``crib_owner``
  (seats), ``counting_order`` (seats, left of the dealer first, dealer last; the crib follows),
  ``counted`` (seats that have counted), ``to_count`` (next seat to count, None when the crib
  or nothing is due), ``starter`` ("JD" or None), ``plays`` (this hand's ``(seat, "5H")``),
  ``cutting`` (seats still to cut);
* ``scores`` and ``backs`` (the front and the back peg: the score before the side last moved);
* ``result`` (this game's ``GameResult`` once won: ``winner`` side, ``winner_score``,
  ``loser_score``, ``skunk`` a ``SkunkKind``, ``game_points``, ``preset``), ``games``
  (``FinishedGame``: number, first dealer, hands, final scores, result), ``games_won``,
  ``game_points``, ``match_winner`` (a side or None) and ``muggins_open`` (``Miss``: seq,
  player, points).
* what a screen asks of the hand (not in ``to_json``): ``next_to_play`` (the seat whose card
  comes next by turn order, passing players with no card left; a go is not logged),
  ``next_dealer`` (the next hand's dealer, or the next game's first dealer once a game is won),
  ``cards_left`` and ``known_hands`` (per seat: cards not yet played, cards of the hand played
  or shown) and ``played_by(seat)``.

``match.history`` has one ``Entry`` per logged event, index ``seq - 1``: ``seq``, ``event``,
``type``, ``game``, ``hand``, ``player``, ``points`` (per seat, what the event scored before
the target cut it short), ``deltas`` (per side, what the pegs moved), ``unscored``, ``text``
(one line: "Bob's hand 5H 5C 5S JD with 5D: 29 (fifteen two, ...)", worded when read in the
current language from ``said``, so a cached match speaks each reader's language), ``score`` (the
itemized ``Score`` of a show or crib with cards), ``pegging`` (the play's new ``PegEvent``
awards, players by name) and ``voided_by`` (the undo's seq). ``match.stats()`` gives one
``PlayerStats`` per seat: hands and cribs counted with their points and averages, the
highest hand, points pegged per hand played, muggins points taken, games won, skunks given
and received. ``match.to_json()`` is ``{"settings", "sides", "next_seq", "state",
"history", "stats"}``, every part from the ``to_json`` of these records.

Layout
------

``events`` (an event class per type; ``parse_event`` reads a dict once, at the edge),
``settings`` (``Settings``, ``new_match_settings``), ``records`` (``Phase``, ``MatchState``,
``Entry``, ``Miss``, ``FinishedGame``), ``state`` (the engine's state in one dataclass and
``copy_whole``), ``engine`` (``Engine``: applies an event, dispatching on its class; muggins;
undo by replay), ``turns`` (the play's turn order, checked on the cards as entered),
``words`` (the words of results, prompts, claims and history lines), ``stats`` (``PlayerStats``) and
``replay`` (``Match``). Rule facts (hand size, seat letters, show
limits) come from ``scorer.rules``.
"""

from __future__ import annotations

from scorer.match.events import (
    ABSENT,
    EVENT_TYPES,
    MAX_PLAY_POINTS,
    MAX_REASON_LENGTH,
    Correction,
    Crib,
    Cut,
    Event,
    Muggins,
    NextGame,
    Peg,
    SettingsChange,
    Show,
    Starter,
    Void,
    parse_event,
)
from scorer.match.records import Entry, FinishedGame, MatchState, Miss, Phase
from scorer.match.replay import Match
from scorer.match.settings import (
    MAX_BEST_OF,
    MAX_MATCH_POINTS,
    MAX_NAME_LENGTH,
    LengthKind,
    MatchLength,
    Settings,
    check_new_names,
    new_match_settings,
    new_settings_json,
)
from scorer.match.stats import PlayerStats
from scorer.rules import HAND_SIZE, IMPOSSIBLE_SHOW_POINTS, MAX_SHOW_POINTS, SEAT_LETTERS

__all__ = [
    "Phase", "LengthKind", "MatchLength", "Settings", "new_match_settings", "new_settings_json",
    "check_new_names",
    "Entry", "Miss", "FinishedGame", "MatchState", "PlayerStats", "Match",
    "EVENT_TYPES", "MAX_NAME_LENGTH", "MAX_BEST_OF", "MAX_MATCH_POINTS", "MAX_SHOW_POINTS",
    "IMPOSSIBLE_SHOW_POINTS", "MAX_PLAY_POINTS", "MAX_REASON_LENGTH", "HAND_SIZE", "SEAT_LETTERS",
    "Event", "ABSENT", "Cut", "Starter", "Peg", "Show", "Crib", "Muggins", "Correction", "Void", "NextGame",
    "SettingsChange", "parse_event",
]
