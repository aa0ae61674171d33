"""The pegging calculator: tap the cards in the order played, choosing whose each is.

The whole state is in the address (``/peg?players=2&plays=A:5H+B:TS&who=A``), so a reload or a
shared link shows the same play. Each tap is a submit button (``tap=5H``) posted with the chosen
player, so the calculator works without JavaScript; htmx swaps the panel in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from scorer.cards import Card
from scorer.errors import CardError
from scorer.i18n import _, digits
from scorer.pegging import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAY_HAND_SIZE,
    PegEvent,
    Pegging,
    parse_plays,
    score_pegging,
)
from scorer.rules import SEAT_LETTERS
from scorer.show import ScoreKind
from web.forms import sentence, whole_number
from web.http import is_htmx, render, url_with_query

__all__ = ["bp", "PegView", "apply_action", "latest_awards", "read_view"]

bp = Blueprint("peg", __name__)


@dataclass(frozen=True)
class PegView:
    """The calculator's state: the table size, the plays so far, who plays next, and the score."""

    players: int = MIN_PLAYERS
    plays: tuple[tuple[str, Card], ...] = ()
    who: str = "A"
    done: bool = False
    errors: dict[str, str] = field(default_factory=dict)
    typed: str = ""
    """The plays as typed, kept only to show beside their error."""

    @property
    def labels(self) -> str:
        """The seats at this table."""
        return SEAT_LETTERS[: self.players]

    @property
    def all_played(self) -> bool:
        """Every card held for the play has been laid (four each)."""
        return len(self.plays) >= self.players * PLAY_HAND_SIZE

    @property
    def finished(self) -> bool:
        """The play is over: last card is pegged."""
        return bool(self.plays) and (self.done or self.all_played)

    @cached_property
    def pegging(self) -> Pegging:
        """The plays scored (last card only once the play is over)."""
        return score_pegging(self.plays, complete=self.finished)

    @cached_property
    def totals(self) -> dict[str, int]:
        """Points per seat, every seat listed."""
        return dict.fromkeys(self.labels, 0) | self.pegging.points

    @property
    def played(self) -> frozenset[Card]:
        """Cards already laid (greyed out in the picker)."""
        return frozenset(card for _, card in self.plays)

    @property
    def plays_text(self) -> str:
        """The plays in the notation of ``python -m scorer peg`` (``A:5H B:TS``)."""
        return " ".join(f"{p}:{c}" for p, c in self.plays)

    def history(self) -> list[tuple[int, str, Card, int, tuple[PegEvent, ...], bool]]:
        """Each play, newest first: index, player, card, count after it, its awards, new count."""
        peg = self.pegging
        restarts = set(peg.restarts)
        rows = [(i, p, c, peg.counts[i], peg.events_for(i), i in restarts and i > 0)
                for i, (p, c) in enumerate(self.plays)]
        return rows[::-1]

    def counts(self) -> list[list[tuple[int, str, Card, int, tuple[PegEvent, ...], bool]]]:
        """The plays in counts, newest count first and each count's cards newest first, so the
        "new count" line is drawn between two counts, never inside one."""
        groups: list[list[tuple[int, str, Card, int, tuple[PegEvent, ...], bool]]] = []
        for row in reversed(self.history()):  # oldest first: a restart opens a group
            if not groups or row[5]:
                groups.append([])
            groups[-1].append(row)
        return [group[::-1] for group in groups[::-1]]

    def latest(self) -> tuple[PegEvent, ...]:
        """The awards the last card brought."""
        return latest_awards(self.pegging)

    def url(self) -> str:
        """This state's address."""
        return url_with_query(url_for("peg.calculator"), players=self.players, plays=self.plays_text,
                              who=self.who, done="1" if self.done else None)


def latest_awards(pegging: Pegging) -> tuple[PegEvent, ...]:
    """The awards the last card brought: its own, and the go it closed when it began a count."""
    n = len(pegging.plays)
    return tuple(e for e in pegging.events
                 if e.index == n - 1 or (e.kind is ScoreKind.GO and e.index == n - 2))


def _next_seat(labels: str, after: str) -> str:
    if len(after) != 1 or after not in labels:
        return labels[0]
    return labels[(labels.index(after) + 1) % len(labels)]


def read_view(source: Mapping[str, str]) -> PegView:
    """The calculator's state from a query string or form, with a message for each bad field."""
    errors: dict[str, str] = {}
    players_text = source.get("players", str(MIN_PLAYERS))
    players = whole_number(players_text) or 0
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        # The rules' table sizes, MIN_PLAYERS to MAX_PLAYERS, written out as the sentence says them.
        errors["players"] = _("Choose 2, 3 or 4 players.")
        players = MIN_PLAYERS
    labels = SEAT_LETTERS[:players]
    text = source.get("plays", "")
    plays: list[tuple[str, Card]] = []
    try:
        plays = parse_plays(text.upper())
    except CardError as e:
        errors["plays"] = sentence(str(e))
    else:
        errors.update(_seat_errors(plays, labels))
    who = source.get("who", "")
    if len(who) != 1 or who not in labels:
        who = _next_seat(labels, plays[-1][0]) if plays else labels[0]
    done = source.get("done") == "1"
    if errors:  # show the text as typed beside its message, and no plays until it is fixed
        return PegView(players, (), labels[0], False, errors, text)
    return PegView(players, tuple(plays), who, done)


def _seat_errors(plays: list[tuple[str, Card]], labels: str) -> dict[str, str]:
    held: dict[str, int] = {}
    for i, (player, card) in enumerate(plays, 1):
        play = f"{player}:{card}"  # the play in the notation, as typed
        if player not in labels:
            return {"plays": _("Play %(index)s (%(play)s): there is no player %(seat)s at a "
                               "%(players)s-player table (%(seats)s).", index=digits(i),
                               play=play, seat=player, players=digits(len(labels)),
                               seats=", ".join(labels))}
        held[player] = held.get(player, 0) + 1
        if held[player] > PLAY_HAND_SIZE:
            return {"plays": _("Play %(index)s (%(play)s): %(seat)s has already played "
                               "%(cards)s cards, all a player holds for the play.", index=digits(i),
                               play=play, seat=player, cards=digits(PLAY_HAND_SIZE))}
    return {}


def apply_action(view: PegView, form: Mapping[str, str]) -> PegView:
    """The state after the form's tap, undo, clear or finish; errors leave the plays as they were."""
    if view.errors:
        return view
    op = form.get("op")
    plays = view.plays
    if op == "clear":
        return PegView(view.players, (), view.labels[0])
    if op == "undo":
        if not plays:
            return _error(view, _("Nothing to undo yet."))
        return PegView(view.players, plays[:-1], plays[-1][0], False)
    if op == "finish":
        if not plays:
            return _error(view, _("Play a card first."))
        return PegView(view.players, plays, view.who, True)
    if op == "resume":
        return PegView(view.players, plays, view.who, False)
    if not form.get("tap"):
        return view
    try:
        card = Card.parse(form["tap"])
    except CardError as e:
        return _error(view, sentence(str(e)))
    if card in view.played:
        return _error(view, _("The %(card)s has already been played.", card=card.name))
    if view.finished:
        return _error(view, _("The play is over: undo, or start a new play."))
    mine = sum(1 for p, _ in plays if p == view.who)
    if mine >= PLAY_HAND_SIZE:
        return _error(view, _("%(seat)s has played all %(cards)s cards: choose whose card it is.",
                              seat=view.who, cards=digits(PLAY_HAND_SIZE)))
    return PegView(view.players, (*plays, (view.who, card)), _next_seat(view.labels, view.who))


def _error(view: PegView, message: str) -> PegView:
    return PegView(view.players, view.plays, view.who, view.done, {"tap": message})


def _page(view: PegView, status: int = 200) -> Response:
    return render("peg/page.html", "peg/_panel.html", status, v=view)


@bp.get("/peg")
def calculator() -> Response:
    """The calculator, showing the play in the address."""
    view = read_view(request.args)
    return _page(view, 400 if view.errors else 200)


@bp.post("/peg")
def submit() -> Response:
    """Apply one action; redirect to the new state, or re-render with the message."""
    view = apply_action(read_view(request.form), request.form)
    if view.errors:
        return _page(view, 422)
    if not is_htmx():
        return redirect(view.url(), 303)
    resp = _page(view)
    resp.headers["HX-Replace-Url"] = view.url()
    return resp
