"""The replay: the engine applies one event at a time to its state, refusing what cannot happen.

``Engine.apply`` takes an event parsed by ``parse_event`` and dispatches on its class with a
``match`` statement. Handlers check the event against the state in the order their messages
promise, then move the state: pegs (``_credit``, winning at the target), the cards seen in the
deal (``_own``), the hand's progress, muggins misses (``_miss``, ``_on_muggins``). An undo
(``_on_void``) replays the log without the undone event. What one event pegged is gathered in a
``Tally`` that lives only while that event is applied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import assert_never

from scorer.cards import Card, Rank
from scorer.errors import MatchError
from scorer.i18n import _, digits, join_phrases
from scorer.match import words
from scorer.match.events import (
    ABSENT,
    MAX_PLAY_POINTS,
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
    given,
    read_cards,
    read_reason,
    seq_ref,
)
from scorer.match.records import Entry, FinishedGame, MatchState, Miss, Phase, Said
from scorer.match.settings import LengthKind, Settings, check_new_names
from scorer.match.state import CRIB, STARTER, EngineState, HandState, Owner, copy_whole
from scorer.match.turns import check_turns
from scorer.pegging import PegEvent, parse_plays, score_pegging
from scorer.rules import (
    HAND_SIZE,
    IMPOSSIBLE_SHOW_POINTS,
    MAX_SHOW_POINTS,
    SEAT_LETTERS,
    GameResult,
    ThreePlayerSkunk,
    as_whole,
    judge,
    judge_each,
)
from scorer.show import Score, score_show

__all__ = ["Engine", "Tally"]

_HEELS_POINTS = 2


@dataclass(slots=True)
class Tally:
    """What the event being applied pegged: per seat, per side, and what the target cut off."""

    points: list[int]
    deltas: list[int]
    unscored: int = 0

    @classmethod
    def zero(cls, players: int, sides: int) -> Tally:
        """Nothing pegged yet."""
        return cls([0] * players, [0] * sides)


class Engine:
    """The replay of one match's log; ``copy`` before applying an event to keep the original.

    ``Match`` copies the engine before applying a new event, so a refused event leaves the
    match as it was even though handlers change the state as they go.
    """

    __slots__ = ("s", "base", "n", "st", "t", "strict")

    def __init__(
        self, settings: Settings, state: EngineState | None = None, base: Settings | None = None
    ) -> None:
        # ``s`` is the settings as ``settings`` events left them (names, scores only), ``base`` the
        # ones the match was created with, which an undo replays the log from.
        self.s = settings
        self.base = settings if base is None else base
        self.n = len(settings.players)
        sides = len(settings.sides)
        self.t = Tally.zero(self.n, sides)
        # The turn checks judge events as they are appended; a stored log replays without them,
        # since a log written before they existed may break them and its scores were acknowledged.
        self.strict = True
        if state is not None:
            self.st = state
            return
        self.st = EngineState(Phase.CUT, [0] * sides, [0] * sides, [0] * sides, [0] * sides)
        if settings.first_dealer is None:
            self.st.cutting = tuple(range(self.n))
        else:
            self._deal(1, settings.first_dealer, settings.first_dealer)

    @classmethod
    def replay(cls, settings: Settings, events: Iterable[Event]) -> Engine:
        """The engine after ``events`` (already parsed), raising ``MatchError`` at a refused one."""
        engine = cls(settings)
        for event in events:
            engine.apply(event)
        return engine

    def copy(self) -> Engine:
        """An engine with a whole copy of this one's state: applying to it leaves this one as it is."""
        return Engine(self.s, copy_whole(self.st), self.base)

    # -- names ----------------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.s.players[seat]

    def side_name(self, side: int) -> str:
        return self.s.side_name(side)

    def _result_words(self, result: GameResult) -> str:
        return words.result_words(self.s, result)

    def _match_words(self) -> str:
        return words.match_words(self.s, self.st.games_won, self.st.game_points, self.st.match_winner)

    def _match_said(self) -> Said:
        """The match's result as said when read: the tallies as they stand now."""
        return Said(words.match_words, (
            self.s, tuple(self.st.games_won), tuple(self.st.game_points), self.st.match_winner,
        ))

    # -- applying ---------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one parsed event, or raise ``MatchError`` (the state may then be part-moved)."""
        st = self.st
        seq = len(st.log) + 1
        self.t = Tally.zero(self.n, len(st.scores))
        before = list(st.scores)
        entry = self._dispatch(seq, event)
        for side, delta in enumerate(self.t.deltas):
            if delta:
                self.st.backs[side] = before[side]
        # An undo replaces the state while it runs: append to the state as it is now.
        self.st.log.append(event)
        self.st.entries.append(entry)

    def _dispatch(self, seq: int, event: Event) -> Entry:
        match event:
            case Cut():
                return self._on_cut(seq, event)
            case Starter():
                return self._on_starter(seq, event)
            case Peg():
                return self._on_peg(seq, event)
            case Show():
                return self._on_show(seq, event)
            case Crib():
                return self._on_crib(seq, event)
            case Muggins():
                return self._on_muggins(seq, event)
            case Correction():
                return self._on_correction(seq, event)
            case Void():
                return self._on_void(seq, event)
            case NextGame():
                return self._on_next_game(seq, event)
            case SettingsChange():
                return self._on_settings(seq, event)
            case _:
                assert_never(event)

    def _entry(
        self, seq: int, event: Event, line: Said, player: int | None = None,
        score: Score | None = None, pegging: tuple[PegEvent, ...] = (),
    ) -> Entry:
        result: Said | None = None
        match: Said | None = None
        over = self.st.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
        if self.st.result is not None and any(self.t.deltas) and over:
            result = Said(words.result_words, (self.s, self.st.result))
            if self.st.match_winner is not None:
                match = self._match_said()
        said = line
        if self.t.unscored or result is not None:
            said = Said(words.entry_line, (line, self.t.unscored, result, match))
        return Entry(
            seq, event.raw, self.st.game, self.st.hand_number, player, tuple(self.t.points),
            tuple(self.t.deltas), self.t.unscored, said, score, pegging,
        )

    def _seat(self, value: object, what: str | None = None) -> int:
        what = _("player (a seat)") if what is None else what
        return as_whole(value, what, 0, self.n - 1)

    def _dealt(self) -> HandState:
        """The current (or last) hand; refuse while cutting for the first deal."""
        if self.st.hand is None:
            who = words.names_and([self.name(s) for s in self.st.cutting])
            raise MatchError(_("cut for the first deal first (%(names)s to cut)", names=who))
        return self.st.hand

    def _in_hand(self) -> HandState:
        """The hand in progress; refuse scoring before the first deal or once the game is won."""
        hand = self._dealt()
        if self.st.phase is Phase.MATCH_OVER:
            raise MatchError(_("the match is over: %(result)s", result=self._match_words()))
        if self.st.phase is Phase.GAME_OVER and self.st.result is not None:
            raise MatchError(_("the game is over: %(result)s; start the next game",
                               result=self._result_words(self.st.result)))
        return hand

    def _touch(self, hand: HandState) -> None:
        """Count an event in ``hand``; the first one closes the previous hand's muggins window."""
        if hand.events == 0:
            self.st.misses = {k: m for k, m in self.st.misses.items() if m.hand == hand.number}
        hand.events += 1

    def _peg(self, seat: int, points: int) -> None:
        """Peg ``points`` that ``seat`` scored for its side."""
        self._credit(self.s.side_of(seat), points, seat)

    def _credit(self, side: int, points: int, seat: int | None = None) -> None:
        """Move ``side``'s peg (``seat`` scored the points, if a player did); win at the target.

        Once the game is won, points are not pegged: they count as unscored.
        """
        if self.st.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            self.t.unscored += max(points, 0)
            return
        new = min(self.s.target, self.st.scores[side] + points)
        gained = new - self.st.scores[side]
        self.st.scores[side] = new
        self.t.deltas[side] += gained
        if seat is not None:
            self.t.points[seat] += points
        self.t.unscored += points - gained
        if new >= self.s.target:
            self._win(side)

    def _win(self, side: int) -> None:
        hand = self._dealt()
        losers = {i: score for i, score in enumerate(self.st.scores) if i != side}
        if self.s.three_player_skunk is ThreePlayerSkunk.EACH_LOSER:
            result = judge_each(side, losers, self.s.rules)
        else:
            result = judge(side, max(losers.values()), self.s.rules)
        self.st.games.append(
            FinishedGame(self.st.game, hand.first_dealer, hand.number, tuple(self.st.scores), result)
        )
        self.st.result = result
        self.st.game_points[side] += result.game_points
        self.st.games_won[side] += 1
        self.st.misses.clear()
        length = self.s.length
        if length.kind is LengthKind.BEST_OF:
            decided = self.st.games_won[side] >= length.wins_needed
        else:
            decided = self.st.game_points[side] >= length.count
        if decided:
            self.st.match_winner = side
            self.st.phase = Phase.MATCH_OVER
        else:
            self.st.phase = Phase.GAME_OVER

    def _deal(self, number: int, dealer: int, first_dealer: int) -> None:
        order = tuple((dealer + k) % self.n for k in range(1, self.n + 1))
        self.st.hand = HandState(number, dealer, first_dealer, order)
        self.st.hand_number = number
        self.st.phase = Phase.STARTER

    def _own(self, hand: HandState, card: Card, owner: Owner) -> None:
        """Record who holds ``card`` in this deal; refuse a card seen elsewhere."""
        held = hand.owners.get(card)
        if held is not None and held != owner:
            raise MatchError(_(
                "%(card)s appears twice in hand %(hand)s's deal: %(first)s and %(second)s", card=str(card),
                hand=digits(hand.number), first=words.owner_words(self.s, owner),
                second=words.owner_words(self.s, held),
            ))
        hand.owners[card] = owner


    # -- the cut -------------------------------------------------------------------------

    def _on_cut(self, seq: int, event: Cut) -> Entry:
        if self.st.phase is not Phase.CUT:
            if self.s.first_dealer is not None:
                raise MatchError(_("no cut: %(name)s was chosen to deal first",
                                   name=self.name(self.s.first_dealer)))
            raise MatchError(_("the first dealer is already decided"))
        raw = event.cards
        if not isinstance(raw, list) or len(raw) != self.n:
            raise MatchError(_("a cut gives one card per seat (%(seats)s), null for a player not cutting",
                               seats=digits(self.n)))
        cut: dict[int, Card] = {}
        for seat, token in enumerate(raw):
            if seat in self.st.cutting:
                if token is None:
                    raise MatchError(_("%(name)s must cut", name=self.name(seat)))
                card = read_cards([token], 1, _("%(name)s's cut", name=self.name(seat)))[0]
                for other, seen in cut.items():
                    if seen == card:
                        raise MatchError(_("%(card)s is cut by both %(first)s and %(second)s", card=str(card),
                                             first=self.name(other), second=self.name(seat)))
                cut[seat] = card
            elif token is not None:
                raise MatchError(_(
                    "only %(names)s cut again; %(name)s's card must be null",
                    names=words.names_and([self.name(s) for s in self.st.cutting]), name=self.name(seat),
                ))
        low = min(card.rank for card in cut.values())
        tied = tuple(seat for seat, card in cut.items() if card.rank == low)
        shown = tuple((self.name(seat), str(card)) for seat, card in cut.items())
        said = Said(words.cut_line, (shown, tuple(self.name(s) for s in tied)))
        if len(tied) > 1:
            self.st.cutting = tied
            return self._entry(seq, event, said)
        self.st.cutting = ()
        self._deal(1, tied[0], tied[0])
        return self._entry(seq, event, said)

    # -- a hand ------------------------------------------------------------------------------

    def _on_starter(self, seq: int, event: Starter) -> Entry:
        hand = self._in_hand()
        if self.st.phase is not Phase.STARTER:
            if hand.starter:
                raise MatchError(_(
                    "hand %(hand)s's starter was already turned (%(card)s) or the play has begun",
                    hand=digits(hand.number), card=str(hand.starter),
                ))
            raise MatchError(_("hand %(hand)s's starter was already turned or the play has begun",
                               hand=digits(hand.number)))
        heels_flag = False if event.heels is ABSENT else event.heels
        if not isinstance(heels_flag, bool):
            raise MatchError(_("heels must be true or false, not %(value)s", value=repr(heels_flag)))
        raw = event.card
        self._touch(hand)
        self.st.phase = Phase.PLAY
        dealer = self.name(hand.dealer)
        if raw is None:
            heels = _HEELS_POINTS if heels_flag else 0
            if heels_flag:
                self._peg(hand.dealer, _HEELS_POINTS)
            said = Said(words.starter_line, (hand.number, None, heels, dealer))
            return self._entry(seq, event, said, hand.dealer if heels_flag else None)
        if heels_flag:
            raise MatchError(_("heels comes from the card: give heels only when the starter is not entered"))
        card = read_cards([raw], 1, _("the starter"))[0]
        self._own(hand, card, STARTER)
        hand.starter = card
        if card.rank is Rank.JACK:
            self._peg(hand.dealer, _HEELS_POINTS)
            said = Said(words.starter_line, (hand.number, str(card), _HEELS_POINTS, dealer))
            return self._entry(seq, event, said, hand.dealer)
        return self._entry(seq, event, Said(words.starter_line, (hand.number, str(card), 0, dealer)))

    def _on_peg(self, seq: int, event: Peg) -> Entry:
        hand = self._in_hand()
        if self.st.phase in (Phase.SHOW, Phase.CRIB):
            raise MatchError(_("the play of hand %(hand)s is over: the show has begun",
                               hand=digits(hand.number)))
        if given(event.points) == given(event.plays):
            raise MatchError(_("a peg event gives either points (with player) or plays"))
        if given(event.plays):
            if given(event.player):
                raise MatchError(_("plays name their players; leave out player"))
            return self._peg_plays(seq, event, hand)
        if given(event.claimed):
            raise MatchError(_("claimed goes with plays, which the companion counts"))
        if not given(event.player):
            raise MatchError(_("say who pegs: player"))
        seat = self._seat(event.player)
        left = MAX_PLAY_POINTS - hand.pegged.get(seat, 0)
        points = as_whole(event.points, _("points pegged"), 1, MAX_PLAY_POINTS)
        if points > left:
            raise MatchError(_(
                "%(name)s cannot peg %(points)s more in one hand's play "
                "(already %(pegged)s, at most %(most)s)",
                name=self.name(seat), points=digits(points), pegged=digits(hand.pegged.get(seat, 0)),
                most=digits(MAX_PLAY_POINTS),
            ))
        self._touch(hand)
        self.st.phase = Phase.PLAY
        hand.by_points = True
        hand.pegged[seat] = hand.pegged.get(seat, 0) + points
        self._peg(seat, points)
        return self._entry(seq, event, Said(words.pegs_line, (self.name(seat), points)), seat)

    def _read_plays(self, raw: object) -> list[tuple[int, Card]]:
        if isinstance(raw, str):
            try:
                pairs = parse_plays(raw)
            except ValueError as err:
                raise MatchError(_("plays: %(error)s", error=str(err))) from None
            return [(self._seat_by_label(label, i), card) for i, (label, card) in enumerate(pairs, 1)]
        if not isinstance(raw, list) or not raw:
            raise MatchError(_(
                "plays must be text like 'Ann:5H Bob:TS' or a list of [seat, card], not %(value)s",
                value=repr(raw),
            ))
        out: list[tuple[int, Card]] = []
        for i, item in enumerate(raw, 1):
            if not isinstance(item, list) or len(item) != 2:
                raise MatchError(_("play %(number)s must be [seat, card], not %(value)s", number=digits(i),
                                   value=repr(item)))
            who, token = item
            if isinstance(who, str):
                seat = self._seat_by_label(who, i)
            else:
                seat = self._seat(who, _("play %(number)s's player (a seat)", number=digits(i)))
            card = read_cards([token], 1, _("play %(number)s's card", number=digits(i)))[0]
            if any(card == c for _seat, c in out):
                raise MatchError(_("plays: %(card)s is played twice", card=str(card)))
            out.append((seat, card))
        return out

    def _seat_by_label(self, label: str, position: int) -> int:
        for seat, name in enumerate(self.s.players):
            if name.casefold() == label.casefold():
                return seat
        letter = label.upper()
        if len(letter) == 1 and letter in SEAT_LETTERS[: self.n]:
            return SEAT_LETTERS.index(letter)
        raise MatchError(_(
            "play %(number)s: no player %(label)s (use a name: %(names)s, or a seat letter %(letters)s)",
            number=digits(position), label=repr(label), names=", ".join(self.s.players),
            letters=" ".join(SEAT_LETTERS[: self.n]),
        ))

    def _peg_plays(self, seq: int, event: Peg, hand: HandState) -> Entry:
        new = self._read_plays(event.plays)
        if not new:
            raise MatchError(_("plays: no cards"))
        total = HAND_SIZE * self.n
        if len(hand.plays) + len(new) > total:
            raise MatchError(_(
                "the play has %(total)s cards and %(played)s are in; %(more)s more is too many",
                total=digits(total), played=digits(len(hand.plays)), more=digits(len(new)),
            ))
        if not hand.plays and new[0][0] != hand.order[0]:  # named before any card's own fault
            raise MatchError(words.first_lead(self.name(hand.order[0]), self.name(new[0][0])))
        for seat, card in new:
            if any(card == played for _, played in hand.plays):
                raise MatchError(_("%(card)s was already played in hand %(hand)s", card=str(card),
                                   hand=digits(hand.number)))
            self._own(hand, card, seat)
            held = sum(1 for owner in hand.owners.values() if owner == seat)
            if held > HAND_SIZE:
                raise MatchError(_("%(name)s has only %(cards)s cards to play", name=self.name(seat),
                                   cards=digits(HAND_SIZE)))
        everything = hand.plays + new
        if self.strict:
            check_turns(everything, hand.order, self.s.players, start=len(hand.plays))
        claims = self._read_claims(None if event.claimed is ABSENT else event.claimed)
        try:
            pegging = score_pegging(
                [(str(seat), card) for seat, card in everything], complete=len(everything) == total
            )
        except ValueError as err:
            raise MatchError(_("plays: %(error)s", error=str(err))) from None
        earlier = Counter(hand.awarded)
        fresh: list[PegEvent] = []
        for award in pegging.events:
            key = (award.index, award.player, award.kind.value, award.points)
            if earlier[key]:
                earlier[key] -= 1
            else:
                fresh.append(award)
        true = dict.fromkeys(range(self.n), 0)
        for award in fresh:
            true[int(award.player)] += award.points
        allowance = dict(true)
        for seat, claim in claims.items():
            if claim > true[seat]:
                items = ", ".join(
                    words.award_words(a.kind.value, a.points) for a in fresh if int(a.player) == seat
                ) or _("nothing")
                raise MatchError(_(
                    "%(name)s claims %(claim)s but these plays peg %(points)s for them: %(items)s",
                    name=self.name(seat), claim=digits(claim), points=digits(true[seat]), items=items,
                ))
            if self.s.muggins:
                allowance[seat] = claim
        self._touch(hand)
        self.st.phase = Phase.PLAY
        hand.plays.extend(new)
        hand.awarded.update((a.index, a.player, a.kind.value, a.points) for a in fresh)
        for award in fresh:
            seat = int(award.player)
            pts = min(award.points, allowance[seat])
            allowance[seat] -= pts
            if pts:
                self._peg(seat, pts)
        for seat, claim in claims.items():
            if self.s.muggins and claim < true[seat] and self.st.phase is Phase.PLAY:
                self._miss(Miss(seq, seat, true[seat] - claim, self.st.game, hand.number))
        for seat in range(self.n):
            hand.pegged[seat] = hand.pegged.get(seat, 0) + true[seat]
        shown = " ".join(f"{self.name(seat)}:{card}" for seat, card in new)
        pegged = tuple((self.name(s), self.t.points[s]) for s in range(self.n) if self.t.points[s])
        said = Said(words.play_line, (
            shown, pegged, self.s.players, self.s.muggins, tuple(claims.items()), tuple(true.items()),
        ))
        renamed = tuple(replace(a, player=self.name(int(a.player))) for a in fresh)
        return self._entry(seq, event, said, None, pegging=renamed)

    def _miss(self, miss: Miss) -> None:
        self.st.misses[(miss.seq, miss.player)] = miss
        self.st.made_misses.add((miss.seq, miss.player))

    def _read_claims(self, raw: object) -> dict[int, int]:
        if raw is None:
            return {}
        if not isinstance(raw, list) or len(raw) != self.n:
            raise MatchError(_("claimed must list one entry per seat (%(seats)s), null where no claim",
                               seats=digits(self.n)))
        return {
            seat: as_whole(value, _("%(name)s's claim", name=self.name(seat)), 0, MAX_PLAY_POINTS)
            for seat, value in enumerate(raw) if value is not None
        }

    def _show_points(self, event: Show | Crib, crib: bool) -> int:
        if given(event.claimed):
            raise MatchError(_("claimed goes with the cards: a number is taken as said"))
        points = as_whole(event.points, _("crib points") if crib else _("hand points"), 0, MAX_SHOW_POINTS)
        if points in IMPOSSIBLE_SHOW_POINTS:
            impossible = join_phrases([digits(p) for p in sorted(IMPOSSIBLE_SHOW_POINTS)])
            if crib:
                raise MatchError(_("no crib can score %(points)s (%(impossible)s are impossible)",
                                   points=digits(points), impossible=impossible))
            raise MatchError(_("no hand can score %(points)s (%(impossible)s are impossible)",
                               points=digits(points), impossible=impossible))
        return points

    def _count_cards(
        self, event: Show | Crib, hand: HandState, owner: Owner, what: str
    ) -> tuple[list[Card], Score, int | None]:
        if hand.starter is None:
            raise MatchError(_(
                "hand %(hand)s's starter was not entered: count %(what)s as points, "
                "or undo back to the starter",
                hand=digits(hand.number), what=what,
            ))
        separately = _("%(what)s cards (the starter goes separately)", what=what)
        cards = read_cards(event.hand, HAND_SIZE, separately)
        for card in cards:
            self._own(hand, card, owner)
        if isinstance(owner, int):
            missing = [c for c, o in hand.owners.items() if o == owner and c not in cards]
            if missing:
                raise MatchError(_(
                    "%(name)s played %(cards)s in hand %(hand)s, but %(what)s entered does not hold it",
                    name=self.name(owner), cards=" ".join(map(str, missing)), hand=digits(hand.number),
                        what=what,
                ))
        score = score_show(cards, hand.starter, crib=owner == CRIB)
        raw = None if event.claimed is ABSENT else event.claimed
        claim = None if raw is None else as_whole(raw, _("claimed"), 0, MAX_SHOW_POINTS)
        if claim is not None and claim > score.total:
            raise MatchError(_(
                "%(what)s claims %(claim)s but %(cards)s with %(starter)s counts %(points)s: %(spoken)s",
                what=what, claim=digits(claim), cards=" ".join(map(str, cards)), starter=str(hand.starter),
                points=digits(score.total), spoken=score.spoken(),
            ))
        return cards, score, claim

    def _on_show(self, seq: int, event: Show) -> Entry:
        hand = self._in_hand()
        seat = self._seat(event.player)
        if self.st.phase is Phase.CRIB:
            raise MatchError(_("every hand of hand %(hand)s is counted: the crib is next",
                               hand=digits(hand.number)))
        who = self.name(seat)
        due = hand.order[len(hand.counted)]
        if seat in hand.counted:
            raise MatchError(_("%(name)s already counted this hand; %(next)s counts next", name=who,
                               next=self.name(due)))
        if seat != due and words.is_you(self.name(due)):
            raise MatchError(_(
                "you count next: the player on the dealer's left counts first, the dealer last"
            ))
        if seat != due:
            raise MatchError(_(
                "%(name)s counts next: the player on the dealer's left counts first, the dealer last",
                name=self.name(due),
            ))
        if self.strict:
            self._play_over(event, hand, seat)
        return self._count(seq, event, hand, seat)

    def _play_over(self, event: Show, hand: HandState, seat: int) -> None:
        """Refuse the first show while a play entered by its cards still lacks some of them.

        The missing cards carry the go and last-card points. A play pegged (even partly) by
        numbers is the players' own count: its shows are taken as they come.
        """
        total = HAND_SIZE * self.n
        if not hand.plays or len(hand.plays) >= total or hand.by_points:
            return
        played = Counter(who for who, _ in hand.plays)
        left = {s: HAND_SIZE - played[s] for s in hand.order if played[s] < HAND_SIZE}
        shown: dict[int, list[str]] = {}
        if given(event.hand) and seat in left:
            try:
                cards = read_cards(event.hand, HAND_SIZE, "")
            except MatchError:
                cards = []
            unplayed = [str(c) for c in cards if c not in hand.owners]
            for card in cards:  # a card seen elsewhere in the deal is the plainer mistake: name it first
                self._own(hand, card, seat)
            if len(unplayed) == left[seat]:
                shown[seat] = unplayed
        raise MatchError(words.unfinished_play(self.s, left, shown))

    def _on_crib(self, seq: int, event: Crib) -> Entry:
        hand = self._in_hand()
        if given(event.player) and self._seat(event.player) != hand.dealer:
            if words.is_you(self.name(hand.dealer)):
                raise MatchError(_("the crib is yours: the dealer counts it"))
            raise MatchError(_("the crib is %(name)s's: the dealer counts it", name=self.name(hand.dealer)))
        if self.st.phase is not Phase.CRIB:
            due = hand.order[len(hand.counted)]
            if words.is_you(self.name(due)):
                raise MatchError(_("the crib is counted after every hand: you count next"))
            raise MatchError(_("the crib is counted after every hand: %(name)s counts next",
                               name=self.name(due)))
        return self._count(seq, event, hand, None)

    def _count(self, seq: int, event: Show | Crib, hand: HandState, seat: int | None) -> Entry:
        """Score a hand (``seat``) or the crib (``seat`` None) and move the hand on."""
        counter = hand.dealer if seat is None else seat
        name = self.name(counter)
        what = words.crib_words(name) if seat is None else words.hand_words(name)
        if given(event.hand) == given(event.points):
            raise MatchError(_("%(what)s gives either hand (the cards) or points", what=what))
        score: Score | None = None
        claim: int | None = None
        cards: list[Card] = []
        if given(event.hand):
            cards, score, claim = self._count_cards(event, hand, CRIB if seat is None else seat, what)
            true = score.total
        else:
            true = self._show_points(event, seat is None)
        pegs = true if claim is None or not self.s.muggins else claim
        self._touch(hand)
        if seat is not None:
            hand.counted.append(seat)
            self.st.phase = Phase.SHOW if len(hand.counted) < self.n else Phase.CRIB
        self._peg(counter, pegs)
        shown = " ".join(map(str, cards)) if score is not None else None
        starter = str(hand.starter) if hand.starter is not None else None
        said = Said(words.count_line, (name, seat is None, true, shown, starter, score, claim,
                                       self.s.muggins))
        over = self.st.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)
        if claim is not None and claim < true and self.s.muggins and not over:
            self._miss(Miss(seq, counter, true - claim, self.st.game, hand.number))
        entry = self._entry(seq, event, said, counter, score=score)
        if seat is None and self.st.phase is Phase.CRIB:
            self._deal(hand.number + 1, (hand.dealer + 1) % self.n, hand.first_dealer)
        return entry

    # -- muggins, corrections, undo, next game ---------------------------------------------

    def _on_muggins(self, seq: int, event: Muggins) -> Entry:
        if not self.s.muggins:
            raise MatchError(_("muggins is off in this match: a wrong claim is simply corrected"))
        self._in_hand()
        claimant = self._seat(event.player)
        target = seq_ref(event.seq, "seq", seq)
        points = as_whole(event.points, _("points claimed"), 1, MAX_PLAY_POINTS)
        victim = None if event.from_ is ABSENT else self._seat(event.from_, _("from (a seat)"))
        side = self.s.side_of(claimant)
        open_here = [m for (s, _player), m in self.st.misses.items() if s == target]
        if victim is not None:
            open_here = [m for m in open_here if m.player == victim]
        if not open_here:
            raise MatchError(self._why_no_miss(target, victim))
        opposing = [m for m in open_here if self.s.side_of(m.player) != side]
        if not opposing:
            raise MatchError(_("%(name)s cannot claim their own side's points", name=self.name(claimant)))
        if len(opposing) > 1:
            raise MatchError(_("#%(seq)s has several under-claims: say whose with from", seq=digits(target)))
        miss = opposing[0]
        award = min(points, miss.points)
        del self.st.misses[(miss.seq, miss.player)]
        self.st.claimed.add((miss.seq, miss.player))
        self._peg(claimant, award)
        said = Said(words.muggins_line, (
            self.name(claimant), award, self.name(miss.player), target, points, miss.points,
        ))
        return self._entry(seq, event, said, claimant)

    def _why_no_miss(self, target: int, victim: int | None) -> str:
        """Why event ``target`` has no open miss (of ``victim``) to claim."""
        entry = self.st.entries[target - 1]
        number = digits(target)
        if entry.voided or entry.type == "void":
            if entry.voided:
                return _("#%(seq)s was undone", seq=number)
            return _("#%(seq)s is an undo", seq=number)
        if entry.type not in ("peg", "show", "crib") or "claimed" not in entry.event:
            return _("#%(seq)s has no claimed total to challenge (muggins needs the cards and a claim)",
                     seq=number)
        made = {k for k in self.st.made_misses if k[0] == target and (victim is None or k[1] == victim)}
        if not made:
            if victim is not None:
                return _("nothing was missed by %(name)s in #%(seq)s: the claim was the full count",
                         name=self.name(victim), seq=number)
            return _("nothing was missed in #%(seq)s: the claim was the full count", seq=number)
        if made <= self.st.claimed:
            return _("the points missed in #%(seq)s were already claimed", seq=number)
        return _("too late to claim #%(seq)s: muggins is called in that hand, before the next one begins",
                 seq=number)

    def _on_correction(self, seq: int, event: Correction) -> Entry:
        hand = self._in_hand()
        if given(event.player) == given(event.side):
            raise MatchError(_("a correction names either a player or a side"))
        reason = read_reason(event.reason, required=True)
        seat: int | None = None
        if given(event.player):
            seat = self._seat(event.player)
            side = self.s.side_of(seat)
        else:
            last = len(self.st.scores) - 1
            side = as_whole(event.side, _("side (%(low)s to %(high)s)", low=digits(0), high=digits(last)), 0,
                            last)
        points = as_whole(event.points, _("correction points"), -self.s.target, self.s.target)
        if points == 0:
            raise MatchError(_("a correction of %(points)s changes nothing", points=digits(0)))
        if self.st.scores[side] + points < 0:
            raise MatchError(_(
                "%(name)s has %(score)s: a correction of %(points)s goes below %(zero)s",
                    name=self.side_name(side),
                score=digits(self.st.scores[side]), points=digits(points), zero=digits(0),
            ))
        self._touch(hand)
        self._credit(side, points, seat)
        who = self.name(seat) if seat is not None else self.side_name(side)
        return self._entry(seq, event, Said(words.correction_line, (who, points, reason)), seat)

    def _on_next_game(self, seq: int, event: NextGame) -> Entry:
        if self.st.phase is Phase.MATCH_OVER:
            raise MatchError(_("the match is over: %(result)s", result=self._match_words()))
        if self.st.phase is not Phase.GAME_OVER or self.st.result is None:
            raise MatchError(_("game %(game)s is still being played", game=digits(self.st.game)))
        dealer = self._next_first_dealer(self.st.result)
        self.st.game += 1
        self.st.scores = [0] * len(self.st.scores)
        self.st.backs = [0] * len(self.st.scores)
        self.st.result = None
        self.st.misses.clear()
        self._deal(1, dealer, dealer)
        return self._entry(seq, event, Said(words.next_game_line, (self.st.game, self.name(dealer))))

    def _on_settings(self, seq: int, event: SettingsChange) -> Entry:
        """New names for the seats, or scores only on or off: nothing on the board moves."""
        if not given(event.players) and not given(event.scores_only):
            raise MatchError(_("a settings event needs players or scores_only"))
        data = self.s.to_json()
        if given(event.players):
            players = event.players
            if not isinstance(players, list) or len(players) != self.n:
                raise MatchError(_("players must be a list of %(count)s names, one per seat, not %(value)s",
                                   count=digits(self.n), value=repr(players)))
            check_new_names(players)  # a rename gives new names: judged as a new match's are
            data["players"] = players
        if given(event.scores_only):
            data["scores_only"] = event.scores_only
        # Settings.from_json words any bad name or value as a new match's settings are worded.
        new = Settings.from_json(data)
        if new == self.s:
            raise MatchError(_("nothing to change: the settings are already so"))
        pairs = zip(self.s.players, new.players, strict=True)
        renamed = tuple((old, name) for old, name in pairs if old != name)
        scores_only = new.scores_only if new.scores_only != self.s.scores_only else None
        self.s = new
        return self._entry(seq, event, Said(words.settings_line, (renamed, scores_only)))

    def _next_first_dealer(self, result: GameResult) -> int:
        """Who deals first in the game after the one ``result`` ended."""
        previous = self._dealt().first_dealer
        losers = [i for i in range(len(self.st.scores)) if i != result.winner]
        low = min(self.st.scores[i] for i in losers)
        last = {i for i in losers if self.st.scores[i] == low}
        # The losing seat first to the left of the previous first dealer: with two players the
        # loser, with three the lowest score, with partners the loser side's next player.
        seats = [(previous + k) % self.n for k in range(1, self.n + 1)]
        return next(seat for seat in seats if self.s.side_of(seat) in last)

    def _on_void(self, seq: int, event: Void) -> Entry:
        target = seq_ref(event.seq, "seq", seq)
        reason = read_reason(event.reason, required=False)
        old = self.st.entries[target - 1]
        if old.type == "void":
            undone = old.event.get("seq")
            raise MatchError(_("#%(seq)s is an undo; to restore #%(undone)s, enter it again",
                               seq=digits(target),
                               undone=digits(undone) if isinstance(undone, int) else str(undone)))
        if old.voided_by is not None:
            raise MatchError(_("#%(seq)s was already undone by #%(undo)s", seq=digits(target),
                               undo=digits(old.voided_by)))
        voided = {**self.st.voided, target: seq}
        fresh = Engine(self.base)
        for k, (logged, entry) in enumerate(zip(self.st.log, self.st.entries, strict=True), 1):
            if isinstance(logged, Void) or k in voided:
                fresh.st.log.append(logged)
                fresh.st.entries.append(replace(entry, voided_by=voided.get(k)))
                continue
            # Every logged event was acknowledged when it came: an undo replays them as a stored
            # log is replayed (Engine.strict), so undoing #k is replaying the log without #k.
            fresh.strict = False
            try:
                fresh.apply(logged)
            except MatchError as err:
                raise MatchError(_(
                    "undoing #%(seq)s would leave #%(broken)s (%(line)s) impossible: %(error)s; "
                    "undo #%(broken)s first",
                    seq=digits(target), broken=digits(k), line=entry.text, error=str(err),
                )) from None
        fresh.st.voided = voided
        # The state becomes the replay's; this event's own tally stays empty: an undo pegs nothing.
        self.st = fresh.st
        self.s = fresh.s  # an undone rename takes the names back
        return self._entry(seq, event, Said(words.undo_line, (target, old.said, reason)))

    # -- the board -------------------------------------------------------------------------

    def _expected(self) -> tuple[str, ...]:
        undo = ("void",) if any(not e.voided and e.type != "void" for e in self.st.entries) else ()
        claims = ("muggins",) if self._open_misses() else ()
        by_phase: dict[Phase, tuple[str, ...]] = {
            Phase.CUT: ("cut",),
            Phase.STARTER: ("starter", "peg", "show", "correction"),
            Phase.PLAY: ("peg", "show", "correction"),
            Phase.SHOW: ("show", "correction"),
            Phase.CRIB: ("crib", "correction"),
            Phase.GAME_OVER: ("next_game",),
            Phase.MATCH_OVER: (),
        }
        return by_phase[self.st.phase] + claims + undo

    def _open_misses(self) -> tuple[Miss, ...]:
        hand = self.st.hand
        if hand is None or self.st.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            return ()
        return tuple(
            m for m in self.st.misses.values()
            if m.hand == hand.number or (m.hand == hand.number - 1 and hand.events == 0)
        )

    def state(self) -> MatchState:
        """The board after the whole log."""
        hand = self.st.hand
        showing = hand is not None and self.st.phase in (Phase.STARTER, Phase.PLAY, Phase.SHOW)
        return MatchState(
            phase=self.st.phase,
            game=self.st.game,
            hand=self.st.hand_number,
            dealer=hand.dealer if hand is not None else None,
            counting_order=hand.order if hand is not None else (),
            counted=tuple(hand.counted) if hand is not None else (),
            to_count=hand.order[len(hand.counted)] if hand is not None and showing else None,
            starter=str(hand.starter) if hand is not None and hand.starter else None,
            plays=tuple((seat, str(card)) for seat, card in hand.plays) if hand is not None else (),
            scores=tuple(self.st.scores),
            backs=tuple(self.st.backs),
            cutting=self.st.cutting,
            expected=self._expected(),
            prompt=words.prompt(self.s, self.st),
            result=self.st.result,
            games=tuple(self.st.games),
            games_won=tuple(self.st.games_won),
            game_points=tuple(self.st.game_points),
            match_winner=self.st.match_winner,
            muggins_open=self._open_misses(),
            next_to_play=self._next_to_play(),
            next_dealer=self._next_dealer(),
            cards_left=tuple(
                HAND_SIZE - sum(1 for seat, _ in hand.plays if seat == who) for who in range(self.n)
            ) if hand is not None else (),
            known_hands=tuple(
                tuple(str(card) for card, owner in hand.owners.items() if owner == who)
                for who in range(self.n)
            ) if hand is not None else (),
        )

    def _next_to_play(self) -> int | None:
        hand = self.st.hand
        if hand is None or self.st.phase not in (Phase.STARTER, Phase.PLAY):
            return None
        if len(hand.plays) >= HAND_SIZE * self.n:
            return None
        if not hand.plays:
            return hand.order[0]
        played = Counter(seat for seat, _ in hand.plays)
        last = hand.plays[-1][0]
        # Someone still holds a card (the play is not complete), so this finds a seat.
        return next(
            seat for seat in ((last + k) % self.n for k in range(1, self.n + 1)) if played[seat] < HAND_SIZE
        )

    def _next_dealer(self) -> int | None:
        hand = self.st.hand
        if hand is None or self.st.phase is Phase.MATCH_OVER:
            return None
        if self.st.phase is Phase.GAME_OVER and self.st.result is not None:
            return self._next_first_dealer(self.st.result)
        return (hand.dealer + 1) % self.n


