"""The match pages: the blueprint's routes, from the match list to the QR code.

Each form carries the sequence number of the last event it saw (``after``) and an idempotency
key, so a stale form from another phone is refused with the fresh board (409) and a double tap
never stores an event twice. The phones polling a match share one rendering of the board per
seq (``web.cache``).
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import segno
from flask import Blueprint, abort, make_response, redirect, render_template, request, session, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from scorer.errors import MatchError
from scorer.i18n import digits
from scorer.rules import TARGETS, preset_lines, presets_for
from store import InvalidRecord, KeyReused, MatchRecord, StaleAppend
from web.cache import get_caches
from web.forms import sentence, whole_number
from web.http import is_htmx, render, url_with_query
from web.i18n import language
from web.matches.access import Access, lookup, public_url, require_writer, resolve
from web.matches.forms import Draft, FormError, build_event, match_settings_from_form
from web.matches.phone import PHONE_LIST_LIMIT, KeptRow, is_phone, kept_matches, server_link
from web.matches.replay import current, load, store_event, tap_key
from web.matches.screen import PEG_PAD, PRESET_NAMES, SHOW_PAD, Screen, match_title
from web.storage import get_store

__all__ = ["bp"]

bp = Blueprint("matches", __name__)

RECENT_LIMIT = 8
"""Matches this phone remembers (in its session cookie) for the match list."""
QR_SCALE = 4
"""QR module size in SVG units: the image scales to the screen anyway."""


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
            match, _seq = current(access)
            out.append((token, match_title(match), access.can_write, match.state.prompt))
    return out


def _index_response(form: Mapping[str, str], errors: dict[str, str], status: int = 200) -> Response:
    choices = {target: [(name, _(PRESET_NAMES[name]), preset_lines(name, target))
                        for name in presets_for(target)] for target in TARGETS}
    kept: list[KeptRow] = []
    more_kept = False
    if is_phone():  # every match in a phone's own store is this phone's: list them all
        kept, more_kept = kept_matches(None if request.args.get("all") else PHONE_LIST_LIMIT)
    return render("matches/index.html", "matches/_new.html", status, form=form, errors=errors,
                  recent=[] if is_phone() else _recent_matches(), kept=kept, more_kept=more_kept,
                  targets=TARGETS, preset_choices=choices)


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

    The fragment depends only on the link, the match's seq and the language (it has no form and
    no CSRF token), so the phones polling one link in one language share one rendering of each seq.
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
    # The fragment is in this phone's language: phones reading others share none of its words.
    where = f"{language()} {request.script_root}"
    body = fragments.get((token, access.seq, where))
    if body is None:
        match, seq = current(access)
        body = render_template("matches/_live_poll.html", s=Screen(access, match, seq))
        fragments.put((token, seq, where), body)
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
                        _("This form is missing its place in the match: reload the page and try again."), 400)
    form_key = form.get("key") or None
    try:
        _result, match, seq = store_event(access, after, action, tap_key(form_key, action))
    except (StaleAppend, KeyReused):
        return _stale_screen(access, after, form)
    except MatchError as e:
        return _refused(Screen(access, match, seq, draft=_draft_of(form)), which, sentence(str(e)), 422)
    except InvalidRecord:  # a key or event the store cannot keep: never from this app's own pages
        return _refused(Screen(access, match, seq), which,
                        _("This form was damaged on the way: reload the page and try again."), 400)
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
    if own:
        message = _("An earlier tap on this page changed the match first (%(entry)s). Nothing was saved: "
                    "check the board, then enter it again if it is still needed.", entry=newest)
    else:
        message = _("Another phone changed the match first (%(entry)s). Nothing was saved: check the "
                    "board, then enter it again if it is still needed.", entry=newest)
    # The form may be gone from the fresh screen (the phase moved on): say it above the forms.
    return _screen_response(Screen(access, fresh, fresh_seq, {"general": message}, _draft_of(form)), 409)


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
    if form.get("form") in ("show", "crib", "cut"):
        return Draft(form.get("cards", ""), form.get("claimed", ""))
    return None


# ------------------------------------------------------------------------------ a phone's upload


@bp.post("/m/<token>/uploaded")
def uploaded(token: str) -> Response:
    """On a phone only: keep the server's links of this match, which the page has just uploaded
    (``static/js/offline/upload.mjs``), and the seq its copy ended at; then the screen shares the
    server's links. Links that are not this match's on a server are refused, nothing kept."""
    access = require_writer(token)  # a viewer link is refused first, as on every write route
    if not is_phone():
        abort(404)
    match, seq = current(access)
    form = request.form
    try:
        scorer = server_link(form.get("scorer"), access.record.id)
        viewer = server_link(form.get("viewer"), access.record.viewer_id)
        upto = whole_number(form.get("seq", ""))
        if upto is None or upto > seq:
            raise FormError("upload", _("The upload's place in the match is missing or past its last entry: "
                                        "nothing was saved. Upload it again."))
    except FormError as e:
        return _refused(Screen(access, match, seq), e.form, str(e), 422)
    get_store().record_upload(access.record.id, scorer, viewer, upto)
    target = url_for("matches.screen", token=token)
    if not is_htmx():
        return redirect(target, 303)
    resp = _screen_response(Screen(access, match, seq))
    resp.headers["HX-Replace-Url"] = target
    return resp


# ------------------------------------------------------------------------------ other pages


@bp.get("/m/<token>/undo/<int:seq>")
def confirm_undo(token: str, seq: int) -> Response:
    """Ask before undoing an event (the confirm step)."""
    access = require_writer(token)
    match, last = current(access)
    if not 1 <= seq <= len(match.history):
        abort(404, _("There is no event #%(seq)s in this match.", seq=digits(seq)))
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
    if is_phone():
        # A phone's own links lead nowhere on other phones: only the server's, once uploaded.
        upload = get_store().upload_of(access.record.id)
        if upload is None:
            abort(404, _("This match is only on this phone: upload it to share it."))
        link = upload.scorer_url if which == "scorer" else upload.viewer_url
    else:
        target = access.record.id if which == "scorer" else access.record.viewer_id
        link = public_url(url_for("matches.screen", token=target))
    code = segno.make(link, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", xmldecl=False, svgns=True, omitsize=True, scale=QR_SCALE,
              dark="#000", light="#fff", border=2)
    resp = make_response(out.getvalue())
    resp.mimetype = "image/svg+xml"
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp

