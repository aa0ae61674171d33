"""The score screen of a match as one link sees it: what the templates ask of the match.

The screen asks the engine (``MatchState``) whose turn it is, who deals next and which cards a
player has played; it only arranges those answers for the page.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from functools import cached_property

from babel.numbers import get_decimal_symbol
from flask import current_app, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from scorer.cards import Card, parse_cards
from scorer.errors import CardError
from scorer.i18n import N_, current, digits
from scorer.match import Entry, Match, MatchState, Phase
from scorer.pegging import PegEvent, Pegging, score_pegging
from scorer.rules import (
    CUSTOM,
    HAND_SIZE,
    IMPOSSIBLE_SHOW_POINTS,
    MAX_SHOW_POINTS,
    SEAT_LETTERS,
    SIXTY_ONE_THIRTY,
    TRIPLE,
    ThreePlayerSkunk,
)
from scorer.show import Score, score_show
from store import Upload
from web.board import Board, layout
from web.forms import CardsState
from web.matches.access import Access, public_url, server_path
from web.matches.forms import Draft
from web.peg import latest_awards
from web.storage import get_store

__all__ = ["Screen", "match_title", "SHOW_PAD", "PEG_PAD", "ON_SCREEN_HISTORY", "PRESET_NAMES"]

ON_SCREEN_HISTORY = 5
"""History lines on the score screen; the history page has them all."""
SHOW_PAD = tuple(n for n in range(MAX_SHOW_POINTS + 1) if n not in IMPOSSIBLE_SHOW_POINTS)
"""Number pad for a hand or crib entered without cards: every possible show total."""
PEG_PAD = tuple(range(1, 13))
"""Number pad for points in the play; bigger awards are typed."""
PRESET_NAMES = {
    "home": N_("Home"), "acc": N_("ACC tournament"), "lurch": N_("Lurch (British)"),
    TRIPLE: N_("Home with a triple skunk"), SIXTY_ONE_THIRTY: N_("Skunk at 30 or less, no double"),
}
"""The skunk presets as the new-match form and the match's settings line name them (messages:
translated with ``_()`` where they are shown)."""
CUSTOM_NAME = N_("custom")
"""The settings line's name for rules set by hand."""
RULES_WORDS = {
    "home": N_("home rules"), "acc": N_("acc rules"), "lurch": N_("lurch rules"), TRIPLE: N_("triple rules"),
    SIXTY_ONE_THIRTY: N_("sixty-one-thirty rules"), CUSTOM: N_("custom rules"),
}
"""Each preset as a game's result line names it ("2 game points (home rules)")."""


def match_title(match: Match) -> str:
    """"Ann v Bob", "Ann v Bob v Cat", or "Ann & Cat v Bob & Dan" (in the request's language)."""
    sides = [match.side_name(i) for i in range(len(match.settings.sides))]
    title = sides[0]
    for side in sides[1:]:
        title = _("%(sides)s v %(side)s", sides=title, side=side)
    return title


@dataclass
class Screen:
    """The score screen of a match as one link sees it, with any message and draft."""

    access: Access
    match: Match
    seq: int
    errors: dict[str, str] = field(default_factory=dict)
    draft: Draft | None = None
    key: str = field(default_factory=lambda: secrets.token_urlsafe(16))

    @property
    def token(self) -> str:
        """The link's token (scorer or viewer id)."""
        return self.access.token

    @property
    def can_write(self) -> bool:
        """Whether this link may score."""
        return self.access.can_write

    @cached_property
    def state(self) -> MatchState:
        """The board after every stored event."""
        return self.match.state

    @property
    def players(self) -> tuple[str, ...]:
        """Player names by seat."""
        return self.match.settings.players

    @property
    def sides(self) -> list[str]:
        """Side names (a partnership is "Ann & Cat")."""
        return [self.match.side_name(i) for i in range(len(self.match.settings.sides))]

    def side_of(self, seat: int) -> int:
        """The side a seat plays for."""
        return self.match.settings.side_of(seat)

    @property
    def title(self) -> str:
        """"Ann v Bob" (or three names, or two partnerships)."""
        return match_title(self.match)

    @cached_property
    def board(self) -> Board:
        """Geometry of the drawn board."""
        rules = self.match.settings.rules
        return layout(self.match.settings.target, self.state.scores, self.state.backs,
                      [ln.at_most for ln in rules.lines])

    @cached_property
    def history(self) -> tuple[Entry, ...]:
        """Every event with its effect."""
        return self.match.history

    def recent(self) -> list[Entry]:
        """The last few history lines, newest first."""
        return list(self.history[-ON_SCREEN_HISTORY:])[::-1]

    def undoable(self, entry: Entry) -> bool:
        """Whether this link may offer to undo ``entry``."""
        return self.can_write and not entry.voided and entry.type != "void"

    @cached_property
    def last_undoable(self) -> Entry | None:
        """The newest event that can still be undone."""
        return next((e for e in reversed(self.history) if self.undoable(e)), None)

    def steps(self) -> list[tuple[str, str]]:
        """The hand's steps in order with their status (done, now, next): starter, play, shows, crib."""
        st = self.state
        if st.dealer is None or st.phase in (Phase.GAME_OVER, Phase.MATCH_OVER, Phase.CUT):
            return []
        order = {Phase.STARTER: 0, Phase.PLAY: 1, Phase.SHOW: 2, Phase.CRIB: 3 + len(st.counting_order)}
        now = order[st.phase]
        if st.phase is Phase.SHOW:
            now = 2 + len(st.counted)
        labels = [_("Starter"), _("Play")] + [
            _("%(name)s’s hand", name=self.players[s]) for s in st.counting_order] + [
            _("%(name)s’s crib", name=self.players[st.dealer])]
        if st.phase is Phase.CRIB:
            now = len(labels) - 1
        steps = [(label, "done" if i < now else "now" if i == now else "next")
                 for i, label in enumerate(labels)]
        if self.scores_only:  # no starter is asked for: the hand begins with the play
            return [(_("Play"), "now" if now <= 1 else "done"), *steps[2:]]
        return steps

    def rules_words(self, name: str) -> str:
        """A preset as a game's result line names it (``"home rules"``)."""
        return str(_(RULES_WORDS.get(name, RULES_WORDS[CUSTOM])))

    def average(self, value: float | None) -> str:
        """An average to one decimal place as the language writes it (``16.5``, Marathi ``१६.५``,
        Tajik ``16,5``); a dash when there is nothing to average."""
        if value is None:
            return "–"
        lang = current()
        # "%.1f" rounds as the English page always has; only the decimal mark and the digits change.
        return "".join(digits(int(c), lang) if c.isdigit() else get_decimal_symbol(lang) if c == "." else c
                       for c in f"{value:.1f}")

    def settings_line(self) -> list[str]:
        """The match's settings in words for the line under its title: length, target, skunk
        rules, who a three-player skunk is judged on, muggins, scores only."""
        s = self.match.settings
        rules = _("rules: %(preset)s", preset=_(PRESET_NAMES.get(s.rules.name, CUSTOM_NAME)))
        parts = [s.length.describe(), _("to %(target)s", target=digits(s.target)), rules]
        if len(s.players) == 3:
            each = s.three_player_skunk is ThreePlayerSkunk.EACH_LOSER
            parts.append(_("skunks judged on each loser") if each else _("skunks judged on the runner-up"))
        if s.muggins:
            parts.append(_("muggins"))
        if s.scores_only:
            parts.append(_("scores only"))
        return parts

    @property
    def scores_only(self) -> bool:
        """The table enters scores as numbers: no starter, no card pickers."""
        return self.match.settings.scores_only

    # -- the play -----------------------------------------------------------------------

    @cached_property
    def pegging(self) -> Pegging:
        """The hand's plays so far, scored for display (labels are seat letters)."""
        plays = [(SEAT_LETTERS[seat], Card.parse(card)) for seat, card in self.state.plays]
        return score_pegging(plays, complete=self.play_complete)

    @property
    def play_complete(self) -> bool:
        """Every card of the play is in: nobody has a card left."""
        left = self.state.cards_left
        return bool(left) and not any(left)

    @property
    def next_to_play(self) -> int | None:
        """The seat the play and peg forms preselect: the engine's ``next_to_play`` (None once
        every card is in, or before the starter: then no seat is chosen for the player)."""
        return self.state.next_to_play

    @property
    def played(self) -> frozenset[Card]:
        """Cards already seen this hand, which no picker offers again: the starter, the plays and
        every hand shown so far (the engine's ``known_hands``)."""
        seen = {Card.parse(c) for _seat, c in self.state.plays}
        seen |= {Card.parse(c) for hand in self.state.known_hands for c in hand}
        if self.state.starter:
            seen.add(Card.parse(self.state.starter))
        return frozenset(seen)

    # -- counting -------------------------------------------------------------------------

    @property
    def counter(self) -> int | None:
        """The seat whose hand counts next, or the dealer for the crib; None outside the show."""
        st = self.state
        return st.crib_owner if st.phase is Phase.CRIB else st.to_count

    @property
    def counting_crib(self) -> bool:
        """The crib is next."""
        return self.state.phase is Phase.CRIB

    @property
    def can_count(self) -> bool:
        """A hand or the crib may be counted now."""
        return bool({"show", "crib"} & set(self.state.expected)) and self.counter is not None

    def known_cards(self) -> list[Card]:
        """The cards the counter played this hand (their hand is known once all four are in)."""
        if self.counting_crib or self.counter is None:
            return []
        return [Card.parse(c) for c in self.state.played_by(self.counter)]

    @cached_property
    def count_cards(self) -> CardsState:
        """The hand or crib being picked: the draft, else the cards the counter played."""
        if self.draft is not None:
            return CardsState.read(self.draft.cards, HAND_SIZE)
        known = self.known_cards()
        return CardsState(known, " ".join(map(str, known)))

    def count_taken(self) -> frozenset[Card]:
        """Cards the count picker greys out: those picked, the starter, and cards others played or
        showed this hand (the counter's own played cards stay: they are in the hand)."""
        mine = set(self.known_cards())
        return frozenset(self.count_cards.cards) | {c for c in self.played if c not in mine}

    def missing_play(self) -> tuple[int, Card] | None:
        """The one card still to play when a hand is shown too soon, for a one-tap fix: only when
        the counter alone holds a card and their picked hand names it (with two or more cards
        left their order would change the pegging, so the player enters them)."""
        st = self.state
        if self.counting_crib or self.counter is None or st.phase is not Phase.PLAY or not st.cards_left:
            return None
        seat = self.counter
        if st.cards_left[seat] != 1 or any(left for other, left in enumerate(st.cards_left) if other != seat):
            return None
        played = set(st.played_by(seat))
        rest = [c for c in self.count_cards.cards if str(c) not in played]
        return (seat, rest[0]) if len(self.count_cards.cards) == HAND_SIZE and len(rest) == 1 else None

    @property
    def starter_card(self) -> Card | None:
        """This hand's starter, when entered."""
        return Card.parse(self.state.starter) if self.state.starter else None

    @property
    def count_form(self) -> str:
        """Which form picks cards now: ``cut`` (the cut for the deal), ``crib`` or ``show``."""
        if self.state.phase is Phase.CUT:
            return "cut"
        return "crib" if self.counting_crib else "show"

    @property
    def next_to_cut(self) -> int | None:
        """The player whose cut card the picker's next tap is: the first still without one."""
        cutting, picked = self.state.cutting, len(self.count_cards.cards)
        return cutting[picked] if picked < len(cutting) else None

    def preview(self) -> Score | None:
        """The count of four picked cards with the starter, before it is stored."""
        cards = self.count_cards.cards
        starter = self.starter_card
        if len(cards) != HAND_SIZE or starter is None or self.count_cards.error:
            return None
        try:
            return score_show(cards, starter, crib=self.counting_crib)
        except CardError:  # the starter typed among the hand: scoring it will say so beside the field
            return None

    def latest_awards(self) -> list[tuple[str, PegEvent]]:
        """The last card's awards with the name of who pegged them."""
        return [(self.players[SEAT_LETTERS.index(e.player)], e) for e in latest_awards(self.pegging)]

    def starter_for(self, entry: Entry) -> Card | None:
        """The starter of the hand an entry belongs to (for drawing a stored show)."""
        card = self.match.starter_of(entry)
        return Card.parse(card) if card is not None else None

    def show_cards(self, entry: Entry) -> list[Card]:
        """A stored show's four cards then its starter, for drawing its items."""
        hand = entry.event.get("hand")
        starter = self.starter_for(entry)
        if entry.score is None or starter is None or hand is None:
            return []
        return [*parse_cards(hand), starter]  # type: ignore[arg-type]  # stored events were validated

    # -- the end of a game ------------------------------------------------------------------

    def next_dealer(self) -> int | None:
        """Who deals first in the next game (the loser), when a game has just ended: the engine's
        ``next_dealer``, which otherwise names the next hand's dealer, not asked for here."""
        return self.state.next_dealer if self.state.phase is Phase.GAME_OVER else None

    # -- links ------------------------------------------------------------------------------

    @property
    def viewer_url(self) -> str:
        """The read-only link for other phones (on a phone, the server's once uploaded)."""
        if self.upload is not None:
            return self.upload.viewer_url
        return public_url(url_for("matches.screen", token=self.access.record.viewer_id))

    @property
    def scorer_url(self) -> str | None:
        """The scoring link (only shown to a scorer)."""
        if not self.can_write:
            return None
        if self.upload is not None:
            return self.upload.scorer_url
        return public_url(url_for("matches.screen", token=self.access.record.id))

    @cached_property
    def upload(self) -> Upload | None:
        """On a phone (``MUGGINS_OFFLINE``), where this match was uploaded; None before that, and
        always on a server."""
        if not current_app.config.get("MUGGINS_OFFLINE"):
            return None
        return get_store().upload_of(self.access.record.id)

    @property
    def unshared(self) -> int:
        """Events entered on this phone after its upload: the server's copy lacks them."""
        return max(self.seq - self.upload.seq, 0) if self.upload is not None else 0

    def import_path(self) -> str:
        """The server's import route, where a phone's page uploads this match."""
        return server_path("api.import_export")

    def live_url(self) -> str:
        """The polled board fragment, knowing the last event this screen shows."""
        return url_for("matches.live", token=self.token, since=self.seq)
