"""Which to throw? The discard advisor's page: rank every throw from the dealt cards.

The cards are picked or typed as on the count page; once all are dealt the player may mark the
throw they would make before asking for the table, which then says where that guess ranks and
what it costs on average. A ranked table has an address of its own (``/discard?cards=...&rank=1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from flask import Blueprint, redirect, request, url_for
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from scorer.cards import Card, parse_cards
from scorer.discard import HELD, THROWN, DiscardOption, advise, rank_of
from scorer.errors import CardError
from scorer.i18n import _, digits, ngettext
from web.forms import CardsState, picker_action, sentence
from web.http import is_htmx, render, url_with_query

__all__ = ["bp", "DiscardView", "read_view"]

bp = Blueprint("discard", __name__)


@dataclass(frozen=True)
class DiscardView:
    """The advisor's state: the deal, the table size, whose crib, the player's guess, the table."""

    cards: tuple[Card, ...] = ()
    text: str = ""
    players: int = 2
    dealer: bool = False
    guess: tuple[Card, ...] = ()
    ranked: bool = False
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def dealt(self) -> int:
        """Cards dealt to each player at this table size."""
        return HELD[self.players]

    @property
    def thrown(self) -> int:
        """Cards each player lays away."""
        return THROWN[self.players]

    @property
    def complete(self) -> bool:
        """All the dealt cards are in."""
        return len(self.cards) == self.dealt

    @cached_property
    def options(self) -> list[DiscardOption]:
        """Every throw, best net first (empty until the table is asked for)."""
        if not (self.ranked and self.complete) or self.errors:
            return []
        return advise(self.cards, self.players, self.dealer)

    @cached_property
    def rows(self) -> list[tuple[int, DiscardOption]]:
        """The options with their competition rank (a throw tied with a better one shares its rank)."""
        out: list[tuple[int, DiscardOption]] = []
        for i, option in enumerate(self.options):
            tied = bool(out) and out[-1][1].net == option.net
            out.append((out[-1][0] if tied else i + 1, option))
        return out

    @cached_property
    def guess_rank(self) -> tuple[int, float] | None:
        """The guess's 1-based rank and the net points it gives up, when there is one."""
        if not (self.options and self.guess):
            return None
        return rank_of(self.options, self.guess)

    def is_guess(self, option: DiscardOption) -> bool:
        """Whether ``option`` is the throw the player marked."""
        return bool(self.guess) and frozenset(option.throw) == frozenset(self.guess)

    def url(self, ranked: bool | None = None) -> str:
        """This state's address (``ranked`` overrides whether the table is shown)."""
        return url_with_query(
            url_for("discard.page"), cards="-".join(map(str, self.cards)), players=self.players,
            dealer="1" if self.dealer else None, guess="-".join(map(str, self.guess)),
            rank="1" if (self.ranked if ranked is None else ranked) else None)


def read_view(source: Mapping[str, str], cards: CardsState, guess_tokens: list[str],
              ranked: bool) -> DiscardView:
    """Build the view from already-read cards plus the players, crib and guess fields."""
    errors: dict[str, str] = {"cards": cards.error} if cards.error else {}
    players_text = source.get("players", "2")
    players = int(players_text) if players_text in ("2", "3", "4") else 0
    if not players:
        errors["players"] = _("Choose 2, 3 or 4 players.")
        players = 2
    guess: list[Card] = []
    if guess_tokens and not errors:
        try:
            guess = parse_cards(guess_tokens)
        except CardError as e:
            errors["guess"] = sentence(str(e))
        else:
            strays = [c.name for c in guess if c not in cards.cards]
            if strays:
                errors["guess"] = _("The %(card)s is not one of the cards dealt.", card=strays[0])
            elif len(guess) != THROWN[players]:
                errors["guess"] = ngettext("Mark %(num)s card to throw, or none (%(marked)s marked).",
                                           "Mark %(num)s cards to throw, or none (%(marked)s marked).",
                                           THROWN[players], marked=digits(len(guess)))
    if ranked and not errors and len(cards.cards) != HELD[players]:
        errors["cards"] = _("Deal %(cards)s cards for %(players)s players (%(so_far)s so far).",
                            cards=digits(HELD[players]), players=digits(players),
                            so_far=digits(len(cards.cards)))
    return DiscardView(tuple(cards.cards), cards.text, players, source.get("dealer") == "1",
                       tuple(guess), ranked, errors)


def _limit(source: Mapping[str, str]) -> int:
    players = source.get("players", "2")
    return HELD[int(players)] if players in ("2", "3", "4") else max(HELD.values())


def _page(view: DiscardView, status: int = 200) -> Response:
    return render("discard/page.html", "discard/_panel.html", status, v=view)


@bp.get("/discard")
def page() -> Response:
    """The advisor; with ``rank=1`` and a full deal in the address, the ranked table too."""
    args = request.args
    text = args.get("cards", "").replace("-", " ")
    state = CardsState.read(text, _limit(args))
    guess = [t for t in args.get("guess", "").split("-") if t]
    view = read_view(args, state, guess, args.get("rank") == "1")
    return _page(view, 400 if view.errors else 200)


@bp.post("/discard")
def submit() -> Response:
    """Apply a tap, take-back, clear or "rank"; redirect, or re-render with the message."""
    form: MultiDict[str, str] = request.form
    limit = _limit(form)
    state = picker_action(form, limit,
                          _("All %(cards)s cards are dealt: take one back first.", cards=digits(limit)))
    op = form.get("op")
    changes_cards = bool(form.get("tap")) or op in ("back", "clear")
    # New cards forget the guess (it was marked among the old ones) and the table; a change of
    # players or crib on a ranked table ranks again.
    ranked = op == "rank" or (form.get("rank") == "1" and not changes_cards)
    view = read_view(form, state, [] if changes_cards else form.getlist("guess"), ranked)
    if view.errors:
        return _page(view, 422)
    if not is_htmx():
        return redirect(view.url(), 303)
    resp = _page(view)
    resp.headers["HX-Push-Url" if view.ranked else "HX-Replace-Url"] = view.url()
    return resp
