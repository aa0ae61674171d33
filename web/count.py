"""Count a hand (the home page): pick or type five cards, see the itemized show, check a claim.

The cards live in one text field (``5h 5c 5s jd 5d``: four hand cards, then the starter). A tap on
the picker is a submit button that appends its card, so picking works without JavaScript; htmx
swaps the panel in place. A complete count redirects to its permanent link, whose path holds the
cards (``/hand/5H-5C-5S-JD/5D``) so a ruling can be sent to someone else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from scorer.cards import Card, parse_cards
from scorer.errors import CardError
from scorer.i18n import _, digits
from scorer.rules import HAND_SIZE, SHOW_CARDS
from scorer.rulings import rulings
from scorer.show import Score, score_show
from web.forms import CardsState, parse_claim, picker_action, sentence
from web.http import is_htmx, render, url_with_query

__all__ = ["bp", "CountView", "ClaimCheck"]

bp = Blueprint("count", __name__)


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """A muggins check: what a player claimed against the true count."""

    claimed: int
    total: int

    @property
    def missed(self) -> int:
        """Points under-claimed (an opponent may take them when muggins is on)."""
        return max(self.total - self.claimed, 0)

    @property
    def over(self) -> int:
        """Points over-claimed (never kept: the count is corrected)."""
        return max(self.claimed - self.total, 0)


@dataclass(frozen=True, slots=True)
class CountView:
    """Everything the count panel shows: the form's state, errors, and the result when complete."""

    cards: tuple[Card, ...] = ()
    text: str = ""
    crib: bool = False
    claim_text: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    score: Score | None = None
    notes: tuple[str, ...] = ()
    claim: ClaimCheck | None = None

    @property
    def hand(self) -> tuple[Card, ...]:
        """The four hand (or crib) cards chosen so far."""
        return self.cards[:4]

    @property
    def starter(self) -> Card | None:
        """The fifth card, once chosen."""
        return self.cards[HAND_SIZE] if len(self.cards) == SHOW_CARDS else None

    @property
    def photo_cards(self) -> int:
        """How many cards a photo of the show holds: the hand (or crib) and the starter."""
        return SHOW_CARDS

    @property
    def permalink(self) -> str | None:
        """The result's permanent address, once the five cards are in."""
        if self.starter is None:
            return None
        return url_for("count.result", kind="crib" if self.crib else "hand",
                       hand="-".join(map(str, self.hand)), starter=str(self.starter),
                       claimed=self.claim.claimed if self.claim else None)

    @property
    def draft_url(self) -> str:
        """The home page holding the cards picked so far."""
        return url_with_query(url_for("count.home"), cards="-".join(map(str, self.cards)),
                              kind="crib" if self.crib else None, claimed=self.claim_text)


def build_view(cards: list[Card], text: str, crib: bool, claim_text: str,
               errors: dict[str, str]) -> CountView:
    """Score the cards once all five are in and valid; a bad claim is reported beside the result."""
    claimed, claim_error = parse_claim(claim_text)
    if claim_error:
        errors = {**errors, "claimed": claim_error}
    if len(cards) != SHOW_CARDS or "cards" in errors:
        return CountView(tuple(cards), text, crib, claim_text, errors)
    score = score_show(cards[:4], cards[4], crib=crib)
    return CountView(tuple(cards), text, crib, claim_text, errors, score,
                     tuple(rulings(cards[:4], cards[4], crib=crib, score=score)),
                     ClaimCheck(claimed, score.total) if claimed is not None else None)


def _page(view: CountView, status: int = 200) -> Response:
    return render("count/page.html", "count/_panel.html", status, v=view)


@bp.get("/")
def home() -> Response:
    """The count page, holding any cards already picked (``?cards=5H-5C&kind=crib``)."""
    text = request.args.get("cards", "").replace("-", " ")
    state = CardsState.read(text, SHOW_CARDS)
    errors = {"cards": state.error} if state.error else {}
    view = build_view(state.cards, text, request.args.get("kind") == "crib",
                      request.args.get("claimed", ""), errors)
    return _page(view, 400 if view.errors else 200)


@bp.get("/<any(hand, crib):kind>/<hand>/<starter>")
def result(kind: str, hand: str, starter: str) -> Response:
    """A count's permanent link: ``/hand/5H-5C-5S-JD/5D?claimed=27``."""
    text = f"{hand.replace('-', ' ')} {starter}"
    errors: dict[str, str] = {}
    cards: list[Card] = []
    try:
        cards = parse_cards(hand.split("-"), 4, "hand cards")
        cards = parse_cards([*cards, starter])
    except CardError as e:
        errors["cards"] = sentence(str(e))
    view = build_view(cards, text, kind == "crib", request.args.get("claimed", ""), errors)
    return _page(view, 400 if view.errors else 200)


@bp.post("/count")
def submit() -> Response:
    """Apply a tap, a take-back, a clear or a typed count; redirect, or re-render with the error."""
    form = request.form
    crib = form.get("kind") == "crib"
    claim_text = form.get("claimed", "").strip()
    state = picker_action(form, SHOW_CARDS, _("Five cards are in: take one back first."))
    errors = {"cards": state.error} if state.error else {}
    if not errors and form.get("op") == "count" and len(state.cards) != SHOW_CARDS:
        so_far = digits(len(state.cards))
        if crib:
            errors["cards"] = _("Pick 5 cards: 4 for the crib, then the starter (%(so_far)s so far).",
                                so_far=so_far)
        else:
            errors["cards"] = _("Pick 5 cards: 4 for the hand, then the starter (%(so_far)s so far).",
                                so_far=so_far)
    view = build_view(state.cards, state.text, crib, claim_text, errors)
    if view.errors:
        return _page(view, 422)
    target = view.permalink or view.draft_url
    if not is_htmx():
        return redirect(target, 303)
    resp = _page(view)
    # A finished count becomes a history entry; picking in progress only updates the address.
    resp.headers["HX-Push-Url" if view.permalink else "HX-Replace-Url"] = target
    return resp
