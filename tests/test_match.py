"""The match model: scripted games worked by hand, refusals, muggins, undo, next games, statistics.

The scripted games live in ``tests/data/games/*.txt``; every show total and every play's points
there were worked out by hand from docs/RULES.md (the notes beside them say how), so the engine is
checked against independent numbers, never its own output. Script directives:

    players NAME...                  2 or 3 players, or 4 in partnerships (partners opposite)
    target 121|61
    first NAME | cut CARD...         the first dealer, or one round of cut cards (- for none)
    result WINNER LOSER preset:kind:points...   the game's end under each preset
    hand N dealer NAME               the hand about to start, and its dealer
    starter CARD [=> NAME POINTS]    the starter, and his heels when it is a jack
    play NAME:CARD... => NAME POINTS... [unscored N]   the play; points each player pegs
    show NAME CARDS = TOTAL [unscored N]   a hand counted with the cards
    crib CARDS = TOTAL               the crib
    peg NAME POINTS                  points pegged as a number
    score SIDE0 SIDE1 [SIDE2]        every side's score now
    refuse DIRECTIVE ! FRAGMENT      this event is refused with a message holding FRAGMENT
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scorer.cards import DECK, Card
from scorer.errors import MatchError
from scorer.match import (
    Entry,
    Match,
    MatchState,
    Phase,
    Settings,
    new_match_settings,
)
from scorer.pegging import score_pegging
from scorer.rules import SkunkKind

GAMES = Path(__file__).parent / "data" / "games"

Event = dict[str, object]


# --------------------------------------------------------------------------- script reader


@dataclass
class Step:
    """One scripted event with what the hand-worked numbers say it must do."""

    line: int
    event: Event
    points: dict[int, int] | None = None  # points each seat gets from this event
    total: int | None = None  # the engine's count of a show or crib
    unscored: int = 0
    scores: tuple[int, ...] | None = None  # every side's score after it (a "score" line)
    hand: tuple[int, int] | None = None  # (hand number, dealer seat) expected before it
    refuse: str | None = None


@dataclass
class Script:
    players: list[str]
    target: int = 121
    first_dealer: int | None = None
    winner: int = -1
    loser_score: int = -1
    presets: dict[str, tuple[str, int]] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)

    def settings(self, preset: str = "home") -> dict[str, object]:
        return new_match_settings(
            self.players, target=self.target, preset=preset, first_dealer=self.first_dealer,
            length={"kind": "best_of", "games": 3},
        )

    def events(self) -> list[Event]:
        return [s.event for s in self.steps if s.refuse is None and s.event]


def _seat(players: Sequence[str], name: str) -> int:
    return list(players).index(name)


def _points(players: Sequence[str], words: list[str]) -> tuple[dict[int, int], int]:
    """``NAME POINTS ... [unscored N]`` after ``=>``."""
    out = dict.fromkeys(range(len(players)), 0)
    unscored = 0
    for name, value in zip(words[::2], words[1::2], strict=True):
        if name == "unscored":
            unscored = int(value)
        else:
            out[_seat(players, name)] = int(value)
    return out, unscored


def _step(players: Sequence[str], line: int, words: list[str]) -> Step:
    """The event of one directive and its expectations."""
    verb, rest = words[0], words[1:]
    if verb == "starter":
        step = Step(line, {"type": "starter", "card": rest[0]})
        if "=>" in rest:
            step.points, _ = _points(players, rest[rest.index("=>") + 1:])
        return step
    if verb == "play":
        arrow = rest.index("=>") if "=>" in rest else len(rest)
        step = Step(line, {"type": "peg", "plays": " ".join(rest[:arrow])})
        step.points, step.unscored = _points(players, rest[arrow + 1:])
        return step
    if verb == "show":
        seat = _seat(players, rest[0])
        cards = rest[1:rest.index("=")] if "=" in rest else rest[1:]
        step = Step(line, {"type": "show", "player": seat, "hand": " ".join(cards)})
        if "=" in rest:
            step.total = int(rest[rest.index("=") + 1])
        if "unscored" in rest:
            step.unscored = int(rest[rest.index("unscored") + 1])
        return step
    if verb == "crib":
        cards = rest[:rest.index("=")] if "=" in rest else rest
        step = Step(line, {"type": "crib", "hand": " ".join(cards)})
        if "=" in rest:
            step.total = int(rest[rest.index("=") + 1])
        return step
    if verb == "peg":
        return Step(line, {"type": "peg", "player": _seat(players, rest[0]), "points": int(rest[1])})
    raise ValueError(f"line {line}: unknown directive {verb!r}")


def read_script(path: Path) -> Script:
    """Read a scripted game (see this module's docstring)."""
    script = Script(players=[])
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        words = text.split()
        verb = words[0]
        if verb == "players":
            script.players = words[1:]
        elif verb == "target":
            script.target = int(words[1])
        elif verb == "first":
            script.first_dealer = _seat(script.players, words[1])
        elif verb == "cut":
            cards: list[str | None] = [None if w == "-" else w for w in words[1:]]
            script.steps.append(Step(number, {"type": "cut", "cards": cards}))
        elif verb == "result":
            side_of = Settings.from_json(script.settings()).side_of
            script.winner = side_of(_seat(script.players, words[1]))
            script.loser_score = int(words[2])
            for item in words[3:]:
                name, kind, points = item.split(":")
                script.presets[name] = (kind, int(points))
        elif verb == "hand":
            script.steps.append(Step(number, {}, hand=(int(words[1]), _seat(script.players, words[3]))))
        elif verb == "score":
            script.steps.append(Step(number, {}, scores=tuple(int(w) for w in words[1:])))
        elif verb == "refuse":
            directive, fragment = text[len("refuse"):].split("!", 1)
            step = _step(script.players, number, directive.split())
            step.refuse = fragment.strip()
            script.steps.append(step)
        else:
            script.steps.append(_step(script.players, number, words))
    return script


def play_script(script: Script, preset: str) -> Match:
    """Apply a script event by event, checking every hand-worked number on the way."""
    match = Match(script.settings(preset))
    for step in script.steps:
        where = f"line {step.line}"
        if step.hand is not None:
            state = match.state
            assert (state.hand, state.dealer, state.phase) == (*step.hand, Phase.STARTER), where
            continue
        if step.scores is not None:
            assert match.state.scores == step.scores, where
            continue
        if step.refuse is not None:
            with pytest.raises(MatchError) as refused:
                match.apply(step.event)
            assert step.refuse in str(refused.value), where
            continue
        match = match.apply(step.event)
        entry = match.history[-1]
        if step.total is not None:
            assert entry.score is not None and entry.score.total == step.total, (where, entry.text)
            assert entry.player is not None and entry.points[entry.player] == step.total, where
        if step.points is not None:
            assert dict(enumerate(entry.points)) == step.points, (where, entry.text)
        assert entry.unscored == step.unscored, (where, entry.text)
    return match


SCRIPTS = sorted(GAMES.glob("*.txt"))


def _cases() -> Iterator[tuple[Path, str]]:
    for path in SCRIPTS:
        for name in read_script(path).presets:
            yield path, name


# ------------------------------------------------------------------------- scripted games


def test_every_script_is_found() -> None:
    assert [p.name for p in SCRIPTS] == [
        "four_players_121.txt", "three_players_61.txt", "two_players_121.txt",
    ]


@pytest.mark.parametrize(("path", "preset"), list(_cases()), ids=lambda v: getattr(v, "stem", v))
def test_scripted_game(path: Path, preset: str) -> None:
    script = read_script(path)
    match = play_script(script, preset)
    state = match.state
    kind, points = script.presets[preset]
    assert state.phase is Phase.GAME_OVER
    assert state.result is not None
    assert (state.result.winner, state.result.loser_score) == (script.winner, script.loser_score)
    assert state.result.winner_score == script.target
    assert (state.result.skunk, state.result.game_points, state.result.preset) == (
        SkunkKind(kind), points, preset,
    )
    assert [g.result for g in state.games] == [state.result]
    assert state.game_points[script.winner] == points
    assert sum(state.game_points) == points
    assert state.expected == ("next_game", "void")
    # The same log replayed at once gives the same match, and all of it is plain JSON.
    again = Match(script.settings(preset), script.events())
    assert again.state == state
    assert json.loads(json.dumps(again.to_json())) == match.to_json()


def test_two_player_game_counts_out_before_the_dealer() -> None:
    match = play_script(read_script(GAMES / "two_players_121.txt"), "home")
    last = match.history[-1]
    assert last.type == "show" and last.player == 1
    assert last.points == (0, 29) and last.deltas == (0, 24) and last.unscored == 5
    assert "game over: Bob won 121–78 (skunk)" in last.text
    assert match.state.backs == (76, 97)
    assert match.state.games[0].hands == 5
    assert match.state.prompt == "Bob won 121–78 (skunk): start the next game"


def test_four_player_game_pegs_out_during_the_play() -> None:
    match = play_script(read_script(GAMES / "four_players_121.txt"), "acc")
    last = match.history[-1]
    assert last.type == "peg"
    assert last.deltas == (6, 4)  # 115 -> 121 (Cat 5, then 1 of Ann's 5); 95 -> 99 (Dan 4)
    assert match.state.counted == ()  # no hand of deal 5 was ever counted
    assert match.side_name(0) == "Ann & Cat"


def test_three_player_cut_picks_the_lowest_after_a_tie() -> None:
    script = read_script(GAMES / "three_players_61.txt")
    first = Match(script.settings(), script.events()[:1])
    assert first.state.phase is Phase.CUT
    assert first.state.cutting == (1, 2)
    assert "Bob and Cat tie low" in first.history[0].text
    both = Match(script.settings(), script.events()[:2])
    assert (both.state.phase, both.state.dealer, both.state.counting_order) == (Phase.STARTER, 2, (0, 1, 2))


# ------------------------------------------------------------------------------- helpers


def two(**options: object) -> Match:
    """A fresh two-player match, Ann (seat 0) dealing first."""
    base: dict[str, object] = {"first_dealer": 0, "length": {"kind": "best_of", "games": 3}}
    base.update(options)
    return Match(new_match_settings(["Ann", "Bob"], **base))  # type: ignore[arg-type]


def run(match: Match, *events: Event) -> Match:
    for event in events:
        match = match.apply(event)
    return match


def refused(match: Match, event: Event) -> str:
    with pytest.raises(MatchError) as info:
        match.apply(event)
    return str(info.value)


def peg(player: int, points: int) -> Event:
    return {"type": "peg", "player": player, "points": points}


def show(player: int, points: int) -> Event:
    return {"type": "show", "player": player, "points": points}


def crib(points: int) -> Event:
    return {"type": "crib", "points": points}


def win_game(match: Match, winner: int, loser_points: int = 0) -> Match:
    """Play number-only hands until ``winner`` (a seat of a two-player match) reaches 121."""
    loser = 1 - winner
    if loser_points:
        match = match.apply(
            {"type": "correction", "player": loser, "points": loser_points, "reason": "set up"}
        )
    while match.state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
        state = match.state
        order = state.counting_order
        match = match.apply({"type": "starter", "card": None})
        for seat in order:
            match = match.apply(show(seat, 29 if seat == winner else 0))
            if match.state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
                return match
        match = match.apply(crib(0))
    return match


# ------------------------------------------------------------------------------ settings


def test_settings_are_normalised_and_round_trip() -> None:
    data = new_match_settings(["  Ann  Lee ", "Bob"], target=61, preset="lurch", muggins=True)
    assert data == {
        "players": ["Ann Lee", "Bob"], "partnerships": False, "target": 61, "preset": "lurch",
        "custom": None, "length": {"kind": "best_of", "games": 1}, "muggins": True, "first_dealer": None,
    }
    assert Settings.from_json(data).to_json() == data


def test_custom_settings_round_trip() -> None:
    custom = {"plain": 1, "lines": [{"kind": "skunk", "at_most": 90, "points": 2},
                                    {"kind": "double", "at_most": 60, "points": 3},
                                    {"kind": "triple", "at_most": 30, "points": 4}]}
    data = new_match_settings(["Ann", "Bob"], preset="custom", custom=custom)
    assert data["custom"] == custom
    rules = Settings.from_json(data).rules
    assert (rules.name, rules.plain, [ln.points for ln in rules.lines]) == ("custom", 1, [2, 3, 4])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": ["Ann"]}, "players must be a list of 2, 3 or 4 names"),
        ({"players": ["Ann", "Bob", "Cat", "Dan", "Eve"]}, "players must be a list of 2, 3 or 4"),
        ({"players": ["Ann", " "]}, "player 2 needs a name"),
        ({"players": ["Ann", "x" * 31]}, "longer than 30 characters"),
        ({"players": ["Ann", "ANN"]}, "two players are called 'ANN'"),
        ({"players": ["Ann", "Bob"], "partnerships": True}, "four players play in two partnerships"),
        ({"players": ["A", "B", "C", "D"], "partnerships": False}, "four players play in two partnerships"),
        ({"players": ["Ann", "Bob"], "target": 100}, "target must be 121 or 61 points, not 100"),
        ({"players": ["Ann", "Bob"], "preset": "tavern"}, "unknown preset 'tavern'"),
        ({"players": ["Ann", "Bob"], "preset": "custom"}, "custom rules need their values"),
        ({"players": ["Ann", "Bob"], "custom": {"plain": 1, "lines": []}}, "custom values go with preset"),
        ({"players": ["Ann", "Bob"], "length": {"kind": "best_of", "games": 4}}, "odd number of games"),
        ({"players": ["Ann", "Bob"], "length": {"kind": "points", "points": 0}}, "length points must be 1"),
        ({"players": ["Ann", "Bob"], "length": {"kind": "sets", "n": 3}}, "length kind must be best_of"),
        ({"players": ["Ann", "Bob"], "muggins": "yes"}, "muggins must be true or false"),
        ({"players": ["Ann", "Bob"], "first_dealer": 2}, "first_dealer must be 0 to 1, not 2"),
        ({"players": ["Ann", "Bob"], "dealer": 0}, "unknown setting 'dealer'"),
    ],
)
def test_bad_settings_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(MatchError) as info:
        Settings.from_json(options)
    assert message in str(info.value)


# ------------------------------------------------------------------------------- the cut


def test_cut_needs_the_right_cards() -> None:
    m = Match(new_match_settings(["Ann", "Bob", "Cat"]))
    assert m.state.expected == ("cut",)
    assert "one card per seat (3)" in refused(m, {"type": "cut", "cards": ["5H", "6H"]})
    assert "5H is cut by both Ann and Cat" in refused(m, {"type": "cut", "cards": ["5H", "6H", "5H"]})
    assert "cut for the first deal first (Ann and Bob and Cat to cut)" in refused(m, show(0, 2))
    m = m.apply({"type": "cut", "cards": ["4C", "9D", "4H"]})  # suits never break a tie
    assert m.state.cutting == (0, 2)
    assert "Bob's card must be null" in refused(m, {"type": "cut", "cards": ["2C", "3C", "4D"]})
    assert "Cat must cut" in refused(m, {"type": "cut", "cards": ["2C", None, None]})
    m = m.apply({"type": "cut", "cards": ["KS", None, "AC"]})
    assert (m.state.dealer, m.state.counting_order) == (2, (0, 1, 2))
    assert "the first dealer is already decided" in refused(m, {"type": "cut", "cards": ["2C", "3C", "4D"]})


def test_no_cut_when_the_dealer_is_chosen() -> None:
    cut: Event = {"type": "cut", "cards": ["AS", "2S"]}
    assert "Bob was chosen to deal first" in refused(two(first_dealer=1), cut)


# ------------------------------------------------------------------------------ refusals


def test_counting_order_is_strict() -> None:
    m = run(two(), {"type": "starter", "card": "2D"})
    assert m.state.to_count == 1
    assert "Bob counts next: the player on the dealer's left counts first" in refused(m, show(0, 4))
    assert "the crib is counted after every hand: Bob counts next" in refused(m, crib(4))
    m = m.apply(show(1, 4))
    assert "Bob already counted this hand; Ann counts next" in refused(m, show(1, 4))
    assert "the play of hand 1 is over: the show has begun" in refused(m, peg(0, 1))
    m = m.apply(show(0, 6))
    assert m.state.phase is Phase.CRIB and m.state.to_count is None
    assert "every hand of hand 1 is counted: the crib is next" in refused(m, show(0, 6))
    assert "the crib is Ann's: the dealer counts it" in refused(m, {"type": "crib", "player": 1, "points": 2})
    m = m.apply(crib(2))
    assert (m.state.hand, m.state.dealer, m.state.phase, m.state.scores) == (2, 1, Phase.STARTER, (8, 4))


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (show(1, 19), "no hand can score 19"),
        (show(1, 25), "no hand can score 25"),
        (show(1, 30), "hand points must be 0 to 29, not 30"),
        (show(1, -1), "hand points must be 0 to 29"),
        ({"type": "show", "player": 1, "points": 4, "claimed": 4}, "claimed goes with the cards"),
        (
            {"type": "show", "player": 1, "hand": "5H 5C 5S JD", "points": 4},
            "either hand (the cards) or points",
        ),
        ({"type": "show", "player": 1, "hand": "5H 5C 5S"}, "expected 4 Bob's hand cards"),
        ({"type": "show", "player": 1, "hand": "5H 5C 5S 5H"}, "duplicate card '5H'"),
        ({"type": "show", "player": 1, "hand": "5H 5C 5S ZZ"}, "bad card 'ZZ' at position 4"),
        ({"type": "show", "player": 1, "hand": "5H 5C 5S 2D"}, "2D appears twice in hand 1's deal"),
        ({"type": "show", "player": 2, "points": 4}, "player (a seat) must be 0 to 1, not 2"),
        ({"type": "show", "player": True, "points": 4}, "must be a whole number, not True"),
        ({"type": "show", "points": 4}, "a show event needs player"),
        (
            {"type": "show", "player": 1, "points": 4, "cards": "x"},
            "a show event takes claimed, hand, player",
        ),
        ({"type": "shuffle"}, "unknown event type 'shuffle'"),
        ({"type": "starter", "card": "3D"}, "starter was already turned (2D)"),
        ({"type": "peg", "player": 0, "points": 0}, "points pegged must be 1 to 60"),
        ({"type": "peg", "player": 0}, "either points (with player) or plays"),
        ({"type": "peg", "points": 2}, "say who pegs: player"),
        ({"type": "peg", "plays": "Ann:5H"}, "Bob leads the play (the player on the dealer's left), not Ann"),
        ({"type": "peg", "plays": "Bob:2D"}, "2D appears twice in hand 1's deal"),
        (
            {"type": "peg", "plays": "Eve:5H"},
            "play 1: no player 'Eve' (use a name: Ann, Bob, or a seat letter A B)",
        ),
        ({"type": "peg", "plays": "Bob:5H Ann:5H"}, "card '5H' is played twice"),
        ({"type": "peg", "plays": [[1, "5H"], [0]]}, "play 2 must be [seat, card]"),
        ({"type": "correction", "player": 0, "points": 2}, "a correction event needs reason"),
        ({"type": "correction", "player": 0, "points": 2, "reason": " "}, "give a reason"),
        (
            {"type": "correction", "player": 0, "points": -3, "reason": "x"},
            "Ann has 0: a correction of -3 goes below 0",
        ),
        (
            {"type": "correction", "player": 0, "side": 0, "points": 2, "reason": "x"},
            "either a player or a side",
        ),
        (
            {"type": "correction", "player": 0, "points": 0, "reason": "x"},
            "a correction of 0 changes nothing",
        ),
        ({"type": "muggins", "player": 0, "seq": 1, "points": 2}, "muggins is off in this match"),
        ({"type": "void", "seq": 9}, "seq (an earlier event's number) must be 1 to 1, not 9"),
        ({"type": "next_game"}, "game 1 is still being played"),
    ],
)
def test_impossible_events_are_refused(event: Event, message: str) -> None:
    m = run(two(), {"type": "starter", "card": "2D"})
    assert message in refused(m, event)


def test_a_card_seen_twice_in_one_deal_is_refused() -> None:
    m = run(two(), {"type": "starter", "card": "2D"}, {"type": "peg", "plays": "Bob:5H Ann:TS"})
    assert "5H was already played in hand 1" in refused(m, {"type": "peg", "plays": "Bob:5H"})
    m = m.apply(peg(1, 1))  # the rest of the play pegged as a number, so the shows may follow
    assert "TS appears twice in hand 1's deal: Bob's hand and Ann's hand" in refused(
        m, {"type": "show", "player": 1, "hand": "5H TS 3C 4C"}
    )
    assert "Bob played 5H in hand 1, but Bob's hand entered does not hold it" in refused(
        m, {"type": "show", "player": 1, "hand": "6H 7H 3C 4C"}
    )
    m = m.apply({"type": "show", "player": 1, "hand": "5H 6H 7H 8H"})
    m = m.apply({"type": "show", "player": 0, "hand": "TS 3C 4C 5C"})
    assert "5C appears twice in hand 1's deal: the crib and Ann's hand" in refused(
        m, {"type": "crib", "hand": "5C KD QD JD"}
    )
    # A new hand is a new deal: the same cards may come again.
    m = m.apply({"type": "crib", "hand": "AS KD QD JD"})
    m = m.apply({"type": "starter", "card": "2D"})
    assert m.state.starter == "2D"


def test_a_player_holds_four_cards_for_the_play() -> None:
    m = run(two(), {"type": "starter", "card": "2D"})
    assert "Bob has only 4 cards to play" in refused(
        m, {"type": "peg", "plays": "Bob:AH Ann:AS Bob:2H Bob:3H Bob:4H Bob:5H"}
    )
    full = "Bob:AH Ann:AS Bob:2H Ann:2S Bob:3H Ann:3S Bob:4H Ann:4S"
    m = m.apply({"type": "peg", "plays": full})
    too_many = refused(m, {"type": "peg", "plays": "Bob:KC"})
    assert "the play has 8 cards and 8 are in; 1 more is too many" in too_many


def test_a_show_with_cards_needs_the_starter() -> None:
    m = two().apply(peg(1, 2))  # the play begins without a starter
    assert m.state.phase is Phase.PLAY and m.state.starter is None
    cards = {"type": "show", "player": 1, "hand": "5H 5C 5S JD"}
    assert "hand 1's starter was not entered" in refused(m, cards)
    assert "hand 1's starter was already turned or the play has begun" in refused(
        m, {"type": "starter", "card": "3D"}
    )
    m = m.apply(show(1, 8))
    assert m.state.scores == (0, 10)


def test_heels_can_be_entered_without_the_card() -> None:
    m = two().apply({"type": "starter", "card": None, "heels": True})
    assert m.state.scores == (2, 0)
    assert "give heels only when the starter is not entered" in refused(
        two(), {"type": "starter", "card": "JH", "heels": True}
    )


def test_number_pegging_is_bounded_per_hand() -> None:
    m = run(two(), {"type": "starter", "card": "2D"}, peg(0, 50))
    assert "Ann cannot peg 11 more in one hand's play (already 50, at most 60)" in refused(m, peg(0, 11))
    m = m.apply(peg(0, 10))
    assert m.state.scores == (60, 0)


def test_plays_can_be_entered_card_by_card() -> None:
    whole = run(two(), {"type": "starter", "card": "2D"},
                {"type": "peg", "plays": "Bob:4S Ann:6H Bob:5D Ann:3C Bob:4D Ann:KC Bob:TH Ann:QC"})
    by_card = run(two(), {"type": "starter", "card": "2D"})
    for play in [[1, "4S"], [0, "6H"], [1, "5D"], [0, "3C"], [1, "4D"], [0, "KC"], [1, "TH"], [0, "QC"]]:
        by_card = by_card.apply({"type": "peg", "plays": [play]})
    # docs/RULES.md's example: 4, 6, 5 (15 and run of 3: Bob 5), 3 (run of 4: Ann 4), 4 (run of 4:
    # Bob 4) at 22; KC passes 31, so Bob's go 1; then 10, 20, 30 and Ann's last card 1. (Ann holds
    # no card of 9 or less then: a 9 would make 31 at 22, and she would have to play it.)
    assert whole.state.scores == by_card.state.scores == (5, 10)
    assert [e.points for e in by_card.history[1:]] == [
        (0, 0), (0, 0), (0, 5), (4, 0), (0, 4), (0, 1), (0, 0), (1, 0),
    ]
    assert [str(p) for p in by_card.history[6].pegging] == [
        "PegEvent(index=4, player='Bob', kind=<ScoreKind.GO: 'go'>, points=1, cards=(Card.parse('4D'),))",
    ]


def test_scores_after_the_game_are_refused_and_the_match_ends() -> None:
    m = win_game(two(), winner=1)
    assert m.state.phase is Phase.GAME_OVER and m.state.scores[1] == 121
    message = refused(m, peg(0, 2))
    assert message.startswith("the game is over: Bob won 121–0 (double skunk)")
    assert "the game is over" in refused(m, {"type": "starter", "card": "5H"})
    assert "the game is over" in refused(m, {"type": "correction", "player": 0, "points": 2, "reason": "x"})
    m = m.apply({"type": "next_game"})
    assert (m.state.game, m.state.dealer, m.state.scores, m.state.backs) == (2, 0, (0, 0), (0, 0))
    m = win_game(m, winner=1, loser_points=100)
    assert m.state.phase is Phase.MATCH_OVER and m.state.match_winner == 1
    assert m.state.games_won == (0, 2) and m.state.game_points == (0, 5)  # home: double 4, plain 1
    assert refused(m, {"type": "next_game"}) == "the match is over: Bob won the match 2–0 in games"
    assert refused(m, peg(0, 1)) == "the match is over: Bob won the match 2–0 in games"
    assert m.state.expected == ("void",)


def test_his_heels_can_win_the_game() -> None:
    m = two().apply({"type": "correction", "player": 0, "points": 119, "reason": "set up"})
    m = m.apply({"type": "starter", "card": "JS"})  # Ann deals: 2 for his heels
    assert m.state.phase is Phase.GAME_OVER and m.state.scores == (121, 0)
    assert m.history[-1].text == (
        "hand 1 starter JS: his heels, 2 for Ann; game over: Ann won 121–0 (double skunk)"
    )


def test_a_peg_out_ends_the_play_entered_card_by_card() -> None:
    m = two().apply({"type": "correction", "player": 0, "points": 120, "reason": "set up"})
    m = run(m, {"type": "starter", "card": "2D"}, {"type": "peg", "plays": "Bob:5H"})
    m = m.apply({"type": "peg", "plays": "Ann:TS"})  # fifteen two: 1 pegged, 1 not
    assert (m.state.phase, m.state.scores, m.history[-1].unscored) == (Phase.GAME_OVER, (121, 0), 1)
    assert refused(m, {"type": "peg", "plays": "Bob:5C"}).startswith("the game is over: Ann won 121–0")


def test_a_points_match_counts_game_points() -> None:
    m = two(preset="acc", length={"kind": "points", "points": 5})
    m = win_game(m, winner=0, loser_points=95)  # plain: 2 game points
    assert m.state.phase is Phase.GAME_OVER and m.state.game_points == (2, 0)
    m = win_game(m.apply({"type": "next_game"}), winner=0, loser_points=70)  # skunk: 3
    assert m.state.phase is Phase.MATCH_OVER and m.state.game_points == (5, 0)
    assert m.state.prompt == "Ann won the match 5–0 in game points"


def test_the_loser_deals_the_next_game() -> None:
    m = win_game(two(first_dealer=1), winner=1, loser_points=100)
    assert m.apply({"type": "next_game"}).state.dealer == 0
    m = win_game(two(first_dealer=1), winner=0, loser_points=100)
    assert m.apply({"type": "next_game"}).state.dealer == 1


def test_three_players_next_dealer_is_the_lowest() -> None:
    script = read_script(GAMES / "three_players_61.txt")
    m = Match(script.settings(), script.events()).apply({"type": "next_game"})
    assert (m.state.game, m.state.dealer, m.state.counting_order) == (2, 0, (1, 2, 0))  # Ann had 19


def test_partners_next_dealer_is_the_losing_side_next_to_the_left() -> None:
    script = read_script(GAMES / "four_players_121.txt")
    m = Match(script.settings(), script.events()).apply({"type": "next_game"})
    assert m.state.dealer == 1  # Bob & Dan lost; Bob sits first to the left of Dan, the old first dealer


def test_corrections_change_scores_and_can_win() -> None:
    m = run(two(), {"type": "correction", "player": 1, "points": 5, "reason": "pegged short"})
    assert m.history[-1].text == "correction: Bob +5 (pegged short)"
    m = m.apply({"type": "correction", "side": 1, "points": -2, "reason": "moved the wrong peg"})
    assert (m.state.scores, m.state.backs) == ((0, 3), (0, 5))
    m = m.apply({"type": "correction", "player": 0, "points": 121, "reason": "conceded"})
    assert m.state.phase is Phase.GAME_OVER and m.state.result is not None
    assert (m.state.result.winner, m.state.result.loser_score) == (0, 3)


# ------------------------------------------------------------------------------- muggins


def _shown(match: Match, claimed: int) -> Match:
    """Bob (pone) shows 5H 5C 4D 6D with the JD starter: 16 (four 15s 8, double run 8)."""
    m = run(match, {"type": "starter", "card": "JD"})
    return m.apply({"type": "show", "player": 1, "hand": "5H 5C 4D 6D", "claimed": claimed})


def test_an_over_claim_is_refused_with_the_itemized_count() -> None:
    m = run(two(), {"type": "starter", "card": "JD"})
    assert refused(m, {"type": "show", "player": 1, "hand": "5H 5C 4D 6D", "claimed": 18}) == (
        "Bob's hand claims 18 but 5H 5C 4D 6D with JD counts 16: fifteen two, fifteen four, "
        "fifteen six, fifteen eight and a double run of three is sixteen"
    )


def test_without_muggins_an_under_claim_is_corrected() -> None:
    m = _shown(two(), claimed=12)
    assert m.state.scores == (2, 16)  # Ann's heels, Bob's full 16
    assert m.history[-1].text.endswith("claimed 12, corrected to 16")
    assert m.state.muggins_open == ()


def test_with_muggins_an_opponent_takes_the_missed_points() -> None:
    m = _shown(two(muggins=True), claimed=12)
    assert m.state.scores == (2, 12)
    assert [(x.seq, x.player, x.points) for x in m.state.muggins_open] == [(2, 1, 4)]
    assert "muggins" in m.state.expected
    own = {"type": "muggins", "player": 1, "seq": 2, "points": 4}
    assert "cannot claim their own side's points" in refused(m, own)
    starter = {"type": "muggins", "player": 0, "seq": 1, "points": 4}
    assert "#1 has no claimed total to challenge" in refused(m, starter)
    # ACC: the lesser of what the opponent claims and what was really missed.
    m = m.apply({"type": "muggins", "player": 0, "seq": 2, "points": 6})
    assert m.state.scores == (6, 12)
    assert m.history[-1].text == "muggins! Ann takes 4 Bob missed in #2 (claimed 6; only 4 was missed)"
    assert "the points missed in #2 were already claimed" in refused(
        m, {"type": "muggins", "player": 0, "seq": 2, "points": 1}
    )


def test_a_full_claim_leaves_nothing_to_muggins() -> None:
    m = _shown(two(muggins=True), claimed=16)
    assert "nothing was missed in #2: the claim was the full count" in refused(
        m, {"type": "muggins", "player": 0, "seq": 2, "points": 2}
    )


def test_muggins_on_the_crib_is_open_until_the_next_hand_begins() -> None:
    m = run(two(muggins=True), {"type": "starter", "card": "2D"}, show(1, 4), show(0, 4))
    # 2 crib: 3H 4H 5S KC with 2D: 15s 3-2-K? no: 5-K 2, 2-3-K 2... worked: 15s 5-K, 2-3-K = 4; run 2-3-4-5 4.
    m = m.apply({"type": "crib", "hand": "3H 4H 5S KC", "claimed": 6})
    assert m.history[-1].score is not None and m.history[-1].score.total == 8
    assert m.state.phase is Phase.STARTER and m.state.hand == 2
    assert [x.points for x in m.state.muggins_open] == [2]
    later = m.apply({"type": "starter", "card": "9C"})
    assert later.state.muggins_open == ()
    assert "too late to claim #4" in refused(later, {"type": "muggins", "player": 1, "seq": 4, "points": 2})
    m = m.apply({"type": "muggins", "player": 1, "seq": 4, "points": 2})
    assert m.state.scores == (10, 6)


def test_muggins_in_the_play() -> None:
    m = run(two(muggins=True), {"type": "starter", "card": "2D"})
    # Bob 7H, Ann 8H (15: Ann 2), Bob 6H (run 6-7-8: Bob 3), Ann claims 1 of her 2, Bob all 3.
    m = m.apply({"type": "peg", "plays": "Bob:7H Ann:8H Bob:6H", "claimed": [1, 3]})
    assert m.state.scores == (1, 3)
    assert "Ann claimed 1: 1 open to muggins" in m.history[-1].text
    assert "Bob claims 4 but these plays peg 3 for them: run 3" in refused(
        run(two(muggins=True), {"type": "starter", "card": "2D"}),
        {"type": "peg", "plays": "Bob:7H Ann:8H Bob:6H", "claimed": [None, 4]},
    )
    assert "Bob claims 1 but these plays peg 0 for them: nothing" in refused(
        m, {"type": "peg", "plays": "Ann:AS", "claimed": [None, 1]}
    )
    m = m.apply({"type": "muggins", "player": 1, "seq": 2, "points": 1})
    assert m.state.scores == (1, 4)


def test_three_players_either_opponent_may_claim_first() -> None:
    m = Match(new_match_settings(["Ann", "Bob", "Cat"], first_dealer=2, muggins=True))
    m = run(m, {"type": "starter", "card": "KH"})
    # Ann's 5C 5H QD JD with KH: 17 (six 15s 12, pair 2, run J-Q-K 3); she says 15.
    m = m.apply({"type": "show", "player": 0, "hand": "5C 5H QD JD", "claimed": 15})
    taken = m.apply({"type": "muggins", "player": 2, "seq": 2, "points": 2})
    assert taken.state.scores == (15, 0, 2)
    assert "already claimed" in refused(taken, {"type": "muggins", "player": 1, "seq": 2, "points": 2})


def test_partners_cannot_muggins_each_other() -> None:
    m = Match(new_match_settings(["Ann", "Bob", "Cat", "Dan"], first_dealer=3, muggins=True))
    m = run(m, {"type": "starter", "card": "KH"})
    m = m.apply({"type": "show", "player": 0, "hand": "5C 5H QD JD", "claimed": 15})
    partner = {"type": "muggins", "player": 2, "seq": 2, "points": 2}
    assert "Cat cannot claim their own side's points" in refused(m, partner)
    m = m.apply({"type": "muggins", "player": 3, "seq": 2, "points": 2})
    assert m.state.scores == (15, 2)


# ---------------------------------------------------------------------------------- undo


def test_undo_keeps_the_history() -> None:
    m = run(two(), {"type": "starter", "card": "2D"}, show(1, 8), show(0, 6))
    m = m.apply({"type": "void", "seq": 3, "reason": "that was Bob's count"})
    assert m.state.scores == (0, 8) and m.state.to_count == 0
    assert len(m.events) == 4 and m.history[2].voided_by == 4 and not m.history[1].voided
    assert m.history[3].text == "undo #3: Ann's hand: 6 (that was Bob's count)"
    assert "#4 is an undo; to restore #3, enter it again" in refused(m, {"type": "void", "seq": 4})
    assert "#3 was already undone by #4" in refused(m, {"type": "void", "seq": 3})
    m = m.apply(show(0, 4))
    assert m.state.scores == (4, 8) and m.next_seq == 6


def test_undo_that_would_break_a_later_event_is_refused() -> None:
    m = run(two(), {"type": "starter", "card": "2D"}, {"type": "show", "player": 1, "hand": "5H 5C 4D 6D"})
    message = refused(m, {"type": "void", "seq": 1})
    # 5H 5C 4D 6D with 2D: 4-5-6 twice 4, double run of three 8.
    assert message.startswith("undoing #1 would leave #2 (Bob's hand 5H 5C 4D 6D with 2D: 12")
    assert message.endswith("hand 1's starter was not entered: count Bob's hand as points, "
                            "or undo back to the starter; undo #2 first")


def test_undo_of_the_winning_event_reopens_the_game() -> None:
    script = read_script(GAMES / "two_players_121.txt")
    m = Match(script.settings(), script.events())
    won = len(m.events)
    m = m.apply({"type": "void", "seq": won})
    # Bob's count was the hand's first, so the play of hand 5 is back in progress.
    assert (m.state.phase, m.state.scores, m.state.result, m.state.games) == (Phase.PLAY, (78, 97), None, ())
    assert m.state.to_count == 1 and m.history[-2].voided


def test_check_changes_nothing() -> None:
    m = run(two(), {"type": "starter", "card": "2D"}, {"type": "peg", "plays": "Bob:5H Ann:TS"})
    before = (m.state, m.history)
    m.check({"type": "peg", "plays": "Bob:5D"})
    with pytest.raises(MatchError):
        m.check({"type": "show", "player": 0, "points": 2})
    with pytest.raises(MatchError):
        m.apply({"type": "peg", "plays": "Bob:5D Ann:5H"})  # fails half way, after scoring 5D
    assert (m.state, m.history) == before


def test_a_stored_log_with_a_bad_event_names_it() -> None:
    with pytest.raises(MatchError) as info:
        Match(new_match_settings(["Ann", "Bob"], first_dealer=0), [
            {"type": "starter", "card": "2D"}, show(0, 4),
        ])
    assert str(info.value).startswith("event #2 (show): Bob counts next")
    with pytest.raises(MatchError, match="must be plain JSON"):
        two().apply({"type": "starter", "card": float("nan")})


def test_an_event_nested_deeper_than_json_can_copy_is_refused_by_name() -> None:
    deep: dict[str, object] = {}
    for _ in range(5000):
        deep = {"x": deep}
    m = two()
    with pytest.raises(MatchError, match="nested too deeply"):
        m.apply({"type": "starter", "card": deep})
    assert m.events == ()


# -------------------------------------------------------------- undo as never-happened


def _legal_play(
    hands: dict[int, list[Card]], order: Sequence[int], rng: random.Random
) -> list[tuple[int, Card]]:
    """A legal play: each player in turn plays a random card that fits, or says go."""
    left = {seat: list(cards) for seat, cards in hands.items()}
    plays: list[tuple[int, Card]] = []
    count, turn, last = 0, 0, -1
    while any(left.values()):
        seat = order[turn % len(order)]
        fits = [c for c in left[seat] if count + c.value <= 31]
        if fits:
            card = rng.choice(fits)
            left[seat].remove(card)
            plays.append((seat, card))
            count += card.value
            last = turn
        elif all(count + c.value > 31 for s in order for c in left[s]):
            count = 0
            turn = last  # the player after the last to play leads the new count
        turn += 1
    return plays


def random_log(seed: int, players: int) -> tuple[dict[str, object], list[Event]]:
    """A legal game to 61 with random deals, mixing cards and numbers, chunked plays."""
    rng = random.Random(seed)
    names = ["Ann", "Bob", "Cat", "Dan"][:players]
    settings = new_match_settings(names, target=61, first_dealer=rng.randrange(players),
                                  length={"kind": "best_of", "games": 3})
    match = Match(settings)
    events: list[Event] = []

    def add(event: Event) -> bool:
        nonlocal match
        match = match.apply(event)
        events.append(event)
        return match.state.phase is Phase.GAME_OVER

    while True:
        order = match.state.counting_order
        deck = list(DECK)
        rng.shuffle(deck)
        hands = {seat: deck[4 * k:4 * k + 4] for k, seat in enumerate(order)}
        crib_cards, starter = deck[4 * players:4 * players + 4], deck[4 * players + 4]
        if add({"type": "starter", "card": str(starter)}):
            return settings, events
        plays = _legal_play(hands, order, rng)
        if rng.random() < 0.3:  # the play pegged as numbers, one event per player who pegs
            pegged = score_pegging([(str(seat), card) for seat, card in plays]).points
            for label, points in pegged.items():
                if points and add(peg(int(label), points)):
                    return settings, events
        else:
            cut = rng.randrange(1, len(plays))
            for chunk in (plays[:cut], plays[cut:]):
                if add({"type": "peg", "plays": [[seat, str(card)] for seat, card in chunk]}):
                    return settings, events
        for seat in order:
            hand = " ".join(map(str, hands[seat]))
            event: Event = {"type": "show", "player": seat, "hand": hand}
            if rng.random() < 0.3:
                event = show(seat, match.apply(event).history[-1].points[seat])
            if add(event):
                return settings, events
        if add({"type": "crib", "hand": " ".join(map(str, crib_cards))}):
            return settings, events


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 2), (3, 3), (4, 4)])
def test_undo_of_any_event_is_as_if_it_never_happened(seed: int, players: int) -> None:
    settings, events = random_log(seed, players)
    full = Match(settings, events)
    assert full.state.phase is Phase.GAME_OVER
    valid = 0
    for k in range(1, len(events) + 1):
        without = events[:k - 1] + events[k:]
        try:
            expected: MatchState | None = Match(settings, without).state
        except MatchError:
            expected = None  # e.g. without a starter a later show with cards is impossible
        try:
            undone = full.apply({"type": "void", "seq": k})
        except MatchError as err:
            assert expected is None, (k, str(err))
            continue
        assert undone.state == expected, k
        entry: Entry = undone.history[k - 1]
        assert entry.voided_by == len(events) + 1 and entry.event == events[k - 1]
        valid += 1
    # The last event, and a peg of a play entered as numbers; the second part of a play entered by
    # its cards is needed by the shows after it (the play must be finished before the show).
    assert valid >= 2


@pytest.mark.parametrize(("seed", "players"), [(5, 2), (6, 3)])
def test_undoing_back_to_the_start_retraces_every_state(seed: int, players: int) -> None:
    settings, events = random_log(seed, players)
    match = Match(settings, events)
    for k in range(len(events), 0, -1):
        match = match.apply({"type": "void", "seq": k, "reason": "step back"})
        assert match.state == Match(settings, events[:k - 1]).state, k
    assert match.state.scores == (0,) * players and match.state.hand == 1
    assert all(e.voided for e in match.history[:len(events)])
    assert not any(e.voided for e in match.history[len(events):])


# ---------------------------------------------------------------------------------- stats


def test_statistics_of_the_two_player_game() -> None:
    script = read_script(GAMES / "two_players_121.txt")
    ann, bob = Match(script.settings(), script.events()).stats()
    # Hands: Ann 9, 12, 8, 24 (her hand 5 is never counted); Bob 21, 16, 21, 5, 29.
    assert (ann.hands_counted, ann.hand_points, ann.highest_hand) == (4, 53, 24)
    assert (bob.hands_counted, bob.hand_points, bob.highest_hand) == (5, 92, 29)
    assert ann.average_hand == pytest.approx(13.25) and bob.average_hand == pytest.approx(18.4)
    # Cribs: Ann's 6 and 5 (hand 5's crib is never counted), Bob's 7 and 11.
    assert (ann.cribs_counted, ann.crib_points, ann.average_crib) == (2, 11, 5.5)
    assert (bob.cribs_counted, bob.crib_points, bob.average_crib) == (2, 18, 9.0)
    # Pegging in 5 hands: Ann 3 + 4 + 2 + 3 + 2, Bob 0 + 10 + 0 + 4 + 0 (heels is not pegging).
    assert (ann.hands_played, ann.peg_points, ann.average_pegging) == (5, 14, 2.8)
    assert (bob.hands_played, bob.peg_points, bob.average_pegging) == (5, 14, 2.8)
    assert (bob.games_won, bob.skunks_given, bob.skunks_received) == (1, 1, 0)
    assert (ann.games_won, ann.skunks_given, ann.skunks_received) == (0, 0, 1)


def test_statistics_skip_voided_events_and_count_muggins() -> None:
    m = _shown(two(muggins=True), claimed=12)
    m = run(m, {"type": "muggins", "player": 0, "seq": 2, "points": 4}, show(0, 6))
    m = m.apply({"type": "void", "seq": 4})
    ann, bob = m.stats()
    assert (ann.hands_counted, ann.muggins_points, bob.hand_points, bob.highest_hand) == (0, 4, 12, 12)
    assert ann.average_hand is None and ann.average_crib is None
    assert json.loads(json.dumps(ann.to_json()))["average_pegging"] == 0.0
