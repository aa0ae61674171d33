"""Matches: create one, keep its score on every phone, undo, history and statistics.

A match is reached by two unguessable links under ``/m/<token>``: the scorer's (the match id)
and the viewer's (the viewer id). Pages read with either; every write route answers 403 to a
viewer link. Each form carries the sequence number of the last event it saw (``after``) and an
idempotency key, so a stale form from another phone is refused with the fresh board (409) and a
double tap never stores an event twice; each tap's key also carries a digest of its event, so
two different taps never share one. Events are checked against the replayed match before the
store's append, which inserts only if the match is still where the check saw it, so two phones
can never store events that do not fit together.

Replays and polled boards are cached per process (``web.cache``): a link's lookup reads the
match's last seq in the same query, so a page reuses the match replayed at that seq, an append
extends it by the one new event, and the phones polling a match share one rendering per seq.

Picking show or crib cards is a draft (nothing stored) held in the address (``?cards=5H-5C``);
scoring it is one event.
"""

from __future__ import annotations

import hashlib
import io
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urljoin

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from scorer.cards import Card, parse_cards
from scorer.errors import CardError, MatchError
from scorer.match import (
    IMPOSSIBLE_SHOW_POINTS,
    MAX_PLAY_POINTS,
    MAX_REASON_LENGTH,
    Entry,
    Match,
    MatchState,
    Phase,
    new_match_settings,
)
from scorer.pegging import PegEvent, Pegging, score_pegging
from scorer.rules import PRESETS, TARGETS, preset
from scorer.show import Score, score_show
from store import AppendResult, InvalidRecord, KeyReused, MatchNotFound, MatchRecord, StaleAppend, StoredEvent
from web.board import Board, layout
from web.cache import Replayed, get_caches
from web.forms import MAX_SHOW_POINTS, CardsState, parse_claim, picker_action, sentence, whole_number
from web.http import is_htmx, render, url_with_query
from web.peg import latest_awards
from web.storage import get_store

__all__ = [
    "bp", "Access", "Draft", "FormError", "Screen", "build_event", "current", "load", "lookup",
    "match_settings_from_form", "match_title", "public_url", "resolve", "require_writer", "store_event",
    "tap_key",
    "PEG_PAD", "SHOW_PAD",
]

bp = Blueprint("matches", __name__)

RECENT_LIMIT = 8
"""Matches this phone remembers (in its session cookie) for the match list."""
ON_SCREEN_HISTORY = 5
"""History lines on the score screen; the history page has them all."""
SEAT_LETTERS = "ABCD"
"""Pegging labels by seat, as ``scorer.match`` also accepts them."""
SHOW_PAD = tuple(n for n in range(MAX_SHOW_POINTS + 1) if n not in IMPOSSIBLE_SHOW_POINTS)
"""Number pad for a hand or crib entered without cards: every possible show total."""
PEG_PAD = tuple(range(1, 13))
"""Number pad for points in the play; bigger awards are typed."""
HAND_CARDS = 4
"""Cards in a hand or crib for the show, and cards each player lays in the play."""
QR_SCALE = 4
"""QR module size in SVG units: the image scales to the screen anyway."""
TAP_DIGEST_CHARS = 16
"""Hex digits of an event's SHA-256 in its tap's idempotency key (64 bits: no two taps of one
page collide)."""


class FormError(ValueError):
    """A form that cannot become an event; ``form`` names the form the message belongs beside."""

    def __init__(self, form: str, message: str) -> None:
        super().__init__(message)
        self.form = form


@dataclass(frozen=True, slots=True)
class Access:
    """A match reached by a link: its record, whether the link may write, and the seq of the
    match's last event when the link was looked up."""

    record: MatchRecord
    can_write: bool
    token: str
    seq: int


@dataclass(frozen=True, slots=True)
class Draft:
    """Show or crib cards being picked: nothing is stored until they are scored."""

    cards: str
    claimed: str = ""


def lookup(token: str) -> Access | None:
    """The match behind a scorer link (may write) or a viewer link (reads only); None when neither."""
    try:
        found = get_store().by_link(token)
    except MatchNotFound:
        return None
    return Access(found.record, found.scorer, token, found.last_seq)


def resolve(token: str) -> Access:
    """The match behind a scorer or viewer link; 404 when neither."""
    access = lookup(token)
    if access is None:
        abort(404, "There is no match at this link. Check the link, or ask the scorer for it again.")
    return access


def require_writer(token: str) -> Access:
    """The match behind a scorer link; 403 for a viewer link."""
    access = resolve(token)
    if not access.can_write:
        abort(403, "This link can only watch the match: ask the scorer for the scoring link.")
    return access


def load(record: MatchRecord, events: list[StoredEvent] | None = None) -> tuple[Match, int]:
    """The match replayed from its stored events, and the sequence number of the last one.

    ``events`` is the whole log as the store handed it over (else the store is asked for the
    events the cached replay lacks). A cached replay at the same seq is reused, an older one is
    extended by the newer events, and the result is cached for the next request.
    """
    caches = get_caches()
    cached = caches.matches.get(record.id)
    start: Replayed | None
    if events is None:
        start = cached
        newer = get_store().events(record.id, after=cached.seq if cached is not None else 0)
    else:
        last = events[-1].seq if events else 0
        if cached is not None and cached.seq == last:
            return cached.match, cached.seq
        # A cached replay past these events (a later append committed meanwhile) is no use here.
        start = cached if cached is not None and cached.seq < last else None
        newer = events if start is None else [e for e in events if e.seq > start.seq]
    replayed = _replay(record, newer) if start is None else _extend(start, newer)
    if replayed is None:  # a gap in the log after the cached seq: the store never writes one
        replayed = _replay(record, events if events is not None else get_store().events(record.id))
    caches.remember(record.id, replayed)
    return replayed.match, replayed.seq


def current(access: Access) -> tuple[Match, int]:
    """The match as it stood when its link was looked up (or later), and its last seq: the cached
    replay when it is at that seq, without asking the store again."""
    cached = get_caches().matches.get(access.record.id)
    if cached is not None and cached.seq == access.seq:
        return cached.match, cached.seq
    return load(access.record)


def _replay(record: MatchRecord, events: Sequence[StoredEvent]) -> Replayed:
    """The match replayed from the whole log."""
    return Replayed(events[-1].seq if events else 0, Match(record.settings, [e.event for e in events]))


def _extend(start: Replayed, events: Sequence[StoredEvent]) -> Replayed | None:
    """``start`` with ``events`` applied, or None unless their seqs follow on from its seq."""
    match, seq = start.match, start.seq
    for stored in events:
        if stored.seq != seq + 1:
            return None
        try:
            match = match.apply(stored.event)
        except MatchError as err:  # worded as a replay from the start words it
            raise MatchError(f"event #{stored.seq} ({stored.event.get('type')}): {err}") from None
        seq = stored.seq
    return Replayed(seq, match)


class _Checked:
    """The store's ``validate`` callback for one event, for the rare append whose ``after`` is
    past every event this process has read: the match as the append's transaction sees it,
    with the event applied (``MatchError`` refuses it), kept for the answer."""

    def __init__(self, record: MatchRecord, event: Mapping[str, object]) -> None:
        self.record = record
        self.event = event
        self.after: Replayed | None = None

    def __call__(self, events: list[StoredEvent]) -> None:
        match, seq = load(self.record, events)
        self.after = Replayed(seq + 1, match.apply(self.event))


def store_event(access: Access, after: int, event: Mapping[str, object],
                idempotency_key: str | None) -> tuple[AppendResult, Match, int]:
    """Append ``event`` after seq ``after``, checked against the replayed match before the store's
    short write transaction; where it landed, and the match with it and its last seq.

    The check runs outside any write transaction, on this process's cached replay brought up to
    date from the events after its seq. It holds because the log only grows: the store then
    inserts only if ``after`` is still the last seq, so the event follows exactly the events it
    was checked against. When the cached replay is already past ``after`` the append can only be
    a retry or stale, and the store says which without the check; only an ``after`` past every
    event read here (another worker appended meanwhile) is checked inside the transaction.

    Raises what ``Store.append`` raises: ``StaleAppend`` (without the log: ``load`` the fresh
    match), ``KeyReused``, ``MatchError`` from the check, ``InvalidRecord``. The match answered
    is the one the check built, cached only once the append has committed; a retried event
    (``duplicate``) answers the match as it stands.
    """
    store, record = get_store(), access.record
    match, seq = current(access)
    if seq < after:  # appended since the link was looked up: read on from the cached replay
        match, seq = load(record)
    checked: _Checked | None = None
    applied: Replayed | None
    if seq == after:
        applied = Replayed(after + 1, match.apply(dict(event)))
        result = store.append(record.id, after, dict(event), idempotency_key=idempotency_key,
                              read_fresh=False)
    else:
        checked = _Checked(record, event) if seq < after else None
        result = store.append(record.id, after, dict(event), idempotency_key=idempotency_key,
                              validate=checked, read_fresh=False, behind=seq > after)
        applied = checked.after if checked is not None and checked.after is not None else None
    if not result.duplicate and applied is not None and applied.seq == result.seq:
        get_caches().remember(record.id, applied)
        return result, applied.match, applied.seq
    match, seq = load(record)
    return result, match, seq


def match_title(match: Match) -> str:
    """"Ann v Bob", "Ann v Bob v Cat", or "Ann & Cat v Bob & Dan"."""
    return " v ".join(match.side_name(i) for i in range(len(match.settings.sides)))


def public_url(path: str) -> str:
    """An absolute link for other phones: ``PUBLIC_URL``, else this request's host (a loopback
    host is swapped for the LAN address ``python app.py`` found, so a QR code works)."""
    base = current_app.config.get("PUBLIC_URL")
    if not base:
        base = request.host_url
        lan = current_app.config.get("LAN_URL")
        if lan and (request.host.startswith(("localhost", "127.", "[::1]"))):
            base = lan
    return urljoin(base, path)


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
        labels = ["Starter", "Play"] + [f"{self.players[s]}’s hand" for s in st.counting_order] + [
            f"{self.players[st.dealer]}’s crib"]
        if st.phase is Phase.CRIB:
            now = len(labels) - 1
        return [(label, "done" if i < now else "now" if i == now else "next")
                for i, label in enumerate(labels)]

    # -- the play -----------------------------------------------------------------------

    @cached_property
    def pegging(self) -> Pegging:
        """The hand's plays so far, scored for display (labels are seat letters)."""
        plays = [(SEAT_LETTERS[seat], Card.parse(card)) for seat, card in self.state.plays]
        return score_pegging(plays, complete=self.play_complete)

    @property
    def play_complete(self) -> bool:
        """Every card of the play is in."""
        return len(self.state.plays) >= HAND_CARDS * len(self.players)

    @property
    def next_to_play(self) -> int:
        """Who plays the next card, as far as turn order says (a go can change it)."""
        st = self.state
        if not st.plays:
            return st.counting_order[0] if st.counting_order else 0
        return (st.plays[-1][0] + 1) % len(self.players)

    @property
    def played(self) -> frozenset[Card]:
        """Cards already seen this hand: the starter and the plays."""
        seen = {Card.parse(c) for _, c in self.state.plays}
        if self.state.starter:
            seen.add(Card.parse(self.state.starter))
        return frozenset(seen)

    # -- counting -------------------------------------------------------------------------

    @property
    def counter(self) -> int | None:
        """The seat whose hand counts next, or the dealer for the crib; None outside the show."""
        st = self.state
        if st.phase is Phase.CRIB:
            return st.dealer
        return st.to_count

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
        return [Card.parse(c) for seat, c in self.state.plays if seat == self.counter]

    @cached_property
    def count_cards(self) -> CardsState:
        """The hand or crib being picked: the draft, else the cards the counter played."""
        if self.draft is not None:
            return CardsState.read(self.draft.cards, HAND_CARDS)
        known = self.known_cards()
        return CardsState(known, " ".join(map(str, known)))

    def count_taken(self) -> frozenset[Card]:
        """Cards the count picker greys out: those picked, the starter and cards others played."""
        mine = set(self.known_cards())
        return frozenset(self.count_cards.cards) | {c for c in self.played if c not in mine}

    @property
    def starter_card(self) -> Card | None:
        """This hand's starter, when entered."""
        return Card.parse(self.state.starter) if self.state.starter else None

    @property
    def count_form(self) -> str:
        """Which counting form is open: ``crib`` or ``show``."""
        return "crib" if self.counting_crib else "show"

    def preview(self) -> Score | None:
        """The count of four picked cards with the starter, before it is stored."""
        cards = self.count_cards.cards
        starter = self.starter_card
        if len(cards) != HAND_CARDS or starter is None or self.count_cards.error:
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
        for e in self.history:
            if (e.game, e.hand) == (entry.game, entry.hand) and e.type == "starter" and not e.voided:
                card = e.event.get("card")
                return Card.parse(card) if isinstance(card, str) else None
        return None

    def show_cards(self, entry: Entry) -> list[Card]:
        """A stored show's four cards then its starter, for drawing its items."""
        hand = entry.event.get("hand")
        starter = self.starter_for(entry)
        if entry.score is None or starter is None or hand is None:
            return []
        return [*parse_cards(hand), starter]  # type: ignore[arg-type]  # stored events were validated

    # -- the end of a game ------------------------------------------------------------------

    def next_dealer(self) -> int | None:
        """Who deals first in the next game (the loser), when a game has just ended."""
        if self.state.phase is not Phase.GAME_OVER:
            return None
        return self.match.apply({"type": "next_game"}).state.dealer

    # -- links ------------------------------------------------------------------------------

    @property
    def viewer_url(self) -> str:
        """The read-only link for other phones."""
        return public_url(url_for("matches.screen", token=self.access.record.viewer_id))

    @property
    def scorer_url(self) -> str | None:
        """The scoring link (only shown to a scorer)."""
        if not self.can_write:
            return None
        return public_url(url_for("matches.screen", token=self.access.record.id))

    def live_url(self) -> str:
        """The polled board fragment, knowing the last event this screen shows."""
        return url_for("matches.live", token=self.token, since=self.seq)


# ------------------------------------------------------------------------------- rendering


def _screen_response(screen: Screen, status: int = 200) -> Response:
    return render("matches/screen.html", "matches/_screen.html", status, s=screen,
                  peg_pad=PEG_PAD, show_pad=SHOW_PAD)


def _remember(record: MatchRecord, can_write: bool) -> None:
    """Keep this match in the phone's list of recent matches (session cookie)."""
    token = record.id if can_write else record.viewer_id
    recent: list[str] = session.get("matches", [])
    if recent[:1] != [token]:  # an unchanged list sends no new cookie
        session["matches"] = [token, *(t for t in recent if t != token)][:RECENT_LIMIT]


# ------------------------------------------------------------------------------ match list


@bp.get("/matches")
def index() -> Response:
    """Start a new match, or go back to one this phone opened recently."""
    return _index_response({}, {})


def _recent_matches() -> list[tuple[str, str, bool, str]]:
    """This phone's recent matches: link token, title, whether it scores, what is next."""
    out = []
    for token in session.get("matches", []):
        access = lookup(token)
        if access is not None:
            match, _ = current(access)
            out.append((token, match_title(match), access.can_write, match.state.prompt))
    return out


def _index_response(form: Mapping[str, str], errors: dict[str, str], status: int = 200) -> Response:
    return render("matches/index.html", "matches/_new.html", status, form=form, errors=errors,
                  recent=_recent_matches(), presets=PRESETS, targets=TARGETS,
                  preset_lines={name: preset(name).describe() for name in PRESETS})


def match_settings_from_form(form: Mapping[str, str]) -> tuple[dict[str, object] | None, dict[str, str]]:
    """The new-match form as engine settings, or messages keyed by field."""
    errors: dict[str, str] = {}
    names = [" ".join(form.get(f"name{i}", "").split()) for i in range(1, 5)]
    filled = [n for n in names if n]
    if any(names[2:]) and not all(names[:2]):
        errors["names"] = "Fill the names in order: players 1 and 2 first."
    elif len(filled) < 2:
        errors["names"] = "Enter at least two names."
    target_text = form.get("target", "121")
    target = whole_number(target_text) or 0
    if target not in TARGETS:
        errors["target"] = "Choose a game of 121 or 61 points."
    preset_name = form.get("preset", "home")
    if preset_name not in PRESETS:
        errors["preset"] = f"Choose one of the presets: {', '.join(PRESETS)}."
    kind = form.get("length_kind", "best_of")
    count_text = form.get("length_count", "1").strip()
    count = whole_number(count_text) or 0
    if kind not in ("best_of", "points"):
        errors["length"] = "Choose best of N games, or first to N game points."
    elif count < 1:
        errors["length"] = "The match length is a whole number, 1 or more."
    elif kind == "best_of" and count % 2 == 0:
        errors["length"] = f"Best of {count} could end level: choose an odd number of games."
    dealer_text = form.get("first_dealer", "cut")
    first_dealer: int | None = None
    if dealer_text != "cut":
        first_dealer = whole_number(dealer_text)
        if first_dealer is None or first_dealer >= max(len(filled), 2):
            errors["first_dealer"] = "Choose who deals first among the players named, or cut for it."
    if errors:
        return None, errors
    length = {"kind": kind, "games" if kind == "best_of" else "points": count}
    try:
        settings = new_match_settings(filled, target=target, preset=preset_name, length=length,
                                      muggins=form.get("muggins") == "on", first_dealer=first_dealer)
    except MatchError as e:
        return None, {"names" if "name" in str(e) or "player" in str(e) else "length": sentence(str(e))}
    return settings, {}


@bp.post("/matches")
def create() -> Response:
    """Create a match from the form and open its score screen."""
    settings, errors = match_settings_from_form(request.form)
    if settings is None:
        return _index_response(request.form, errors, 422)
    record = get_store().create_match(settings)
    _remember(record, True)
    target = url_for("matches.screen", token=record.id)
    if is_htmx():
        resp = make_response("", 204)
        resp.headers["HX-Redirect"] = target
        return resp
    return redirect(target, 303)


# ------------------------------------------------------------------------------ score screen


@bp.get("/m/<token>")
def screen(token: str) -> Response:
    """The score screen (scorer link) or the watching screen (viewer link)."""
    access = resolve(token)
    match, seq = current(access)
    _remember(access.record, access.can_write)
    draft = None
    if access.can_write and ("cards" in request.args or "claimed" in request.args):
        draft = Draft(request.args.get("cards", "").replace("-", " "), request.args.get("claimed", ""))
    s = Screen(access, match, seq, draft=draft)
    if draft is not None and s.count_cards.error:
        s.errors[s.count_form] = s.count_cards.error
    return _screen_response(s)


@bp.get("/m/<token>/live")
def live(token: str) -> Response:
    """The polled board: 204 when nothing changed since ``since``, else the fresh fragment.

    The fragment depends only on the link and the match's seq (it has no form and no CSRF
    token), so the phones polling one link share one rendering of each seq.
    """
    access = resolve(token)
    if whole_number(request.args.get("since", "")) == access.seq:
        resp = make_response("", 204)
        resp.headers["Cache-Control"] = "no-store"
        return resp
    if not is_htmx():  # the whole page, with its forms: never shared
        match, seq = current(access)
        return render("matches/screen.html", "matches/_live_poll.html", 200, s=Screen(access, match, seq))
    fragments = get_caches().fragments
    body = fragments.get((token, access.seq, request.script_root))
    if body is None:
        match, seq = current(access)
        body = render_template("matches/_live_poll.html", s=Screen(access, match, seq))
        fragments.put((token, seq, request.script_root), body)
    resp = make_response(body, 200)
    resp.vary.add("HX-Request")
    return resp


@bp.post("/m/<token>/events")
def post_event(token: str) -> Response:
    """Turn one form into one event and append it after the event the form saw."""
    access = require_writer(token)
    match, seq = current(access)
    form = request.form
    try:
        action = build_event(form, match)
    except FormError as e:
        seen = whole_number(form.get("after", ""))
        if seen is not None and seen < seq:  # a tap on a page the match has moved past
            return _stale_screen(access, seen, form)
        return _refused(Screen(access, match, seq, draft=_draft_of(form)), e.form, str(e), 422)
    if isinstance(action, Draft):
        s = Screen(access, match, seq, draft=action)
        if s.count_cards.error:
            s.errors[s.count_form] = s.count_cards.error
            return _screen_response(s, 422)
        target = url_with_query(url_for("matches.screen", token=token),
                                cards="-".join(map(str, s.count_cards.cards)), claimed=action.claimed)
        if not is_htmx():
            return redirect(target, 303)
        resp = _screen_response(s)
        resp.headers["HX-Replace-Url"] = target
        return resp
    which = form.get("form", "")
    after_text = form.get("after", "")
    after = whole_number(after_text)
    if after is None:
        return _refused(Screen(access, match, seq), which,
                        "This form is missing its place in the match: reload the page and try again.", 400)
    form_key = form.get("key") or None
    try:
        _, match, seq = store_event(access, after, action, tap_key(form_key, action))
    except (StaleAppend, KeyReused):
        return _stale_screen(access, after, form)
    except MatchError as e:
        return _refused(Screen(access, match, seq, draft=_draft_of(form)), which, sentence(str(e)), 422)
    except InvalidRecord:  # a key or event the store cannot keep: never from this app's own pages
        return _refused(Screen(access, match, seq), which,
                        "This form was damaged on the way: reload the page and try again.", 400)
    if not is_htmx():
        return redirect(url_for("matches.screen", token=token), 303)
    resp = _screen_response(Screen(access, match, seq))
    resp.headers["HX-Replace-Url"] = url_for("matches.screen", token=token)
    return resp


def _stale_screen(access: Access, after: int, form: Mapping[str, str]) -> Response:
    """The fresh screen (409) for a tap on a page the match has moved past, saying who moved it:
    an earlier tap on the same page (two buttons before the swap, or Back and tap) or another
    phone. Nothing was stored."""
    fresh, fresh_seq = load(access.record)
    newest = fresh.history[-1].text if fresh.history else ""
    own = _own_taps_since(access, after, form.get("key"))
    who = "An earlier tap on this page" if own else "Another phone"
    message = (f"{who} changed the match first ({newest}). Nothing was saved: check the "
               "board, then enter it again if it is still needed.")
    # The form may be gone from the fresh screen (the phase moved on): say it above the forms.
    return _screen_response(Screen(access, fresh, fresh_seq, {"general": message}, _draft_of(form)), 409)


def tap_key(form_key: str | None, event: Mapping[str, object]) -> str | None:
    """The idempotency key of one tap: the page's key for its form and a digest of the event.

    A page gives each form a key, but one form has many buttons (a number pad) and a page can
    be tapped again after Back: a key of its own per event keeps a second, different tap from
    passing for a retry of the first (the store refuses a used key with another event), while
    the same tap sent twice (a double tap, a resend) is still stored once.
    """
    if form_key is None:
        return None
    text = json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{form_key}.{hashlib.sha256(text.encode()).hexdigest()[:TAP_DIGEST_CHARS]}"


def _own_taps_since(access: Access, after: int, form_key: str | None) -> bool:
    """Whether an event stored after ``after`` came from the same page (its keys share the page's
    part, before the form's name), so the player is told it was their own earlier tap."""
    page = form_key.rsplit("-", 1)[0] if form_key and "-" in form_key else None
    if page is None:
        return False
    newer = get_store().events(access.record.id, after=after)
    return any((e.idempotency_key or "").startswith(page + "-") for e in newer)


def _refused(screen: Screen, which: str, message: str, status: int) -> Response:
    """The screen again with ``message`` beside the form that sent it (a hand or crib beside
    whichever count form the screen shows)."""
    screen.errors[screen.count_form if which in ("show", "crib") else which] = message
    return _screen_response(screen, status)


def _draft_of(form: Mapping[str, str]) -> Draft | None:
    if form.get("form") in ("show", "crib"):
        return Draft(form.get("cards", ""), form.get("claimed", ""))
    return None


def _seat(form: Mapping[str, str], name: str, match: Match, which: str) -> int:
    text = form.get(name, "")
    seat = whole_number(text)
    if seat is None or seat >= len(match.settings.players):
        raise FormError(which, "Choose a player.")
    return seat


def _card(token: str, which: str) -> str:
    try:
        return str(Card.parse(token))
    except CardError as e:
        raise FormError(which, sentence(str(e))) from None


def _whole(text: str, which: str, low: int, high: int, what: str = "points") -> int:
    """A signed whole number from ``low`` to ``high``; ``FormError`` beside form ``which`` if not."""
    text = text.strip()
    signless = text[1:] if text[:1] in "+-" else text
    magnitude = whole_number(signless)
    if magnitude is None:
        raise FormError(which, f"Enter the {what} as a whole number, like 2.")
    value = -magnitude if text.startswith("-") else magnitude
    if not low <= value <= high:
        raise FormError(which, f"The {what} must be from {low} to {high}.")
    return value


def build_event(form: Mapping[str, str], match: Match) -> dict[str, object] | Draft:
    """The event one form asks for, or a draft of picked cards; ``FormError`` when unusable."""
    which = form.get("form", "")
    op = form.get("op", "")
    if which == "cut":
        cards: list[str | None] = []
        for seat, name in enumerate(match.settings.players):
            if seat in match.state.cutting:
                token = form.get(f"cut{seat}", "").strip()
                if not token:
                    raise FormError("cut", f"Enter the card {name} cut.")
                cards.append(_card(token, "cut"))
            else:
                cards.append(None)
        return {"type": "cut", "cards": cards}
    if which == "starter":
        if op == "skip":
            return {"type": "starter", "card": None}
        if op == "heels":
            return {"type": "starter", "card": None, "heels": True}
        if not form.get("tap"):
            raise FormError("starter", "Tap the starter card.")
        return {"type": "starter", "card": _card(form["tap"], "starter")}
    if which == "play":
        seat = _seat(form, "who", match, "play")
        if not form.get("tap"):
            raise FormError("play", "Tap the card that was played.")
        return {"type": "peg", "plays": [[seat, _card(form["tap"], "play")]]}
    if which == "peg":
        seat = _seat(form, "player", match, "peg")
        text = form.get("points_typed", "") if op == "typed" else form.get("points", "")
        return {"type": "peg", "player": seat, "points": _whole(text, "peg", 1, MAX_PLAY_POINTS)}
    if which in ("show", "crib"):
        return _count_event(form, match, which, op)
    if which == "next_game":
        return {"type": "next_game"}
    if which == "void":
        seq = _whole(form.get("seq", ""), "void", 1, max(1, len(match.events)), "entry number")
        reason = " ".join(form.get("reason", "").split())[:MAX_REASON_LENGTH]
        return {"type": "void", "seq": seq, **({"reason": reason} if reason else {})}
    if which == "muggins":
        event: dict[str, object] = {
            "type": "muggins", "player": _seat(form, "player", match, "muggins"),
            "seq": _whole(form.get("seq", ""), "muggins", 1, max(1, len(match.events)), "entry number"),
            "points": _whole(form.get("points", ""), "muggins", 1, MAX_PLAY_POINTS),
        }
        victim = whole_number(form.get("from", ""))
        if victim is not None:
            event["from"] = victim
        return event
    if which == "correction":
        reason = " ".join(form.get("reason", "").split())
        if not reason:
            raise FormError("correction", "Give a reason, like “pegged twice”.")
        target = match.settings.target
        return {"type": "correction", "player": _seat(form, "player", match, "correction"),
                "points": _whole(form.get("points", ""), "correction", -target, target),
                "reason": reason[:MAX_REASON_LENGTH]}
    raise FormError("general", "That form is not one this page knows. Reload the page.")


def _count_event(form: Mapping[str, str], match: Match, which: str, op: str) -> dict[str, object] | Draft:
    """A hand or crib: picked cards stay a draft until scored; a number pad scores at once."""
    state = match.state
    seat = state.dealer if which == "crib" else state.to_count
    if seat is None:
        raise FormError(which, "No hand is waiting to be counted.")
    extra: dict[str, object] = {} if which == "crib" else {"player": seat}
    if form.get("points", "") != "" and op != "score":
        points = _whole(form["points"], which, 0, MAX_SHOW_POINTS)
        return {"type": which, **extra, "points": points}
    picked = picker_action(form, HAND_CARDS, "Four cards are in: take one back first.")
    if op != "score":
        if picked.error:
            raise FormError(which, picked.error)
        return Draft(picked.text, form.get("claimed", ""))
    if picked.error:
        raise FormError(which, picked.error)
    if len(picked.cards) != HAND_CARDS:
        raise FormError(which, f"Pick the {HAND_CARDS} cards of the {'crib' if which == 'crib' else 'hand'} "
                               f"({len(picked.cards)} so far).")
    claimed, claim_error = parse_claim(form.get("claimed", ""))
    if claim_error:
        raise FormError(which, claim_error)
    event: dict[str, object] = {"type": which, **extra, "hand": picked.text}
    if claimed is not None:
        event["claimed"] = claimed
    return event


# ------------------------------------------------------------------------------ other pages


@bp.get("/m/<token>/undo/<int:seq>")
def confirm_undo(token: str, seq: int) -> Response:
    """Ask before undoing an event (the confirm step)."""
    access = require_writer(token)
    match, last = current(access)
    if not 1 <= seq <= len(match.history):
        abort(404, f"There is no event #{seq} in this match.")
    s = Screen(access, match, last)
    return render("matches/confirm.html", "matches/_confirm.html", 200, s=s, entry=match.history[seq - 1])


@bp.get("/m/<token>/history")
def history(token: str) -> Response:
    """Every event of the match with its cards and items, undone ones struck through."""
    access = resolve(token)
    match, seq = current(access)
    return render("matches/history.html", "matches/history.html", 200, s=Screen(access, match, seq))


@bp.get("/m/<token>/stats")
def stats(token: str) -> Response:
    """Per-player averages, highest hand and skunks, from the stored events."""
    access = resolve(token)
    match, seq = current(access)
    return render("matches/stats.html", "matches/stats.html", 200, s=Screen(access, match, seq),
                  stats=match.stats())


@bp.get("/m/<token>/qr.svg")
def qr(token: str) -> Response:
    """A QR code of this match's viewer link, or (``?for=scorer``, scorer link only) its scorer link."""
    access = resolve(token)
    which = request.args.get("for", "viewer")
    if which == "scorer" and not access.can_write:
        abort(403)
    target = access.record.id if which == "scorer" else access.record.viewer_id
    code = segno.make(public_url(url_for("matches.screen", token=target)), error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", xmldecl=False, svgns=True, omitsize=True, scale=QR_SCALE,
              dark="#000", light="#fff", border=2)
    resp = make_response(out.getvalue())
    resp.mimetype = "image/svg+xml"
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp

