"""The JSON API: the same answers as ``python -m scorer ... --json``, and the match endpoints.

Bodies are JSON objects sent as ``application/json`` (415 otherwise). Answers that carry words a
player reads (the spoken count, rulings, a match's history) say which language they are in with
``"lang"`` (the request's: Accept-Language, the ``lang`` cookie, or ``"lang"`` in the body); keys,
kinds and card codes stay English. Bad input is status 400
with ``{"error": "<one line>"}``, the engine's own message (the CLI prints the same line); 413 for
a body over ``web.limits.JSON_BODY_MAX_BYTES``, 403 for a write through a viewer link, 404 for an
unknown match and 409 for a stale append, which also carries the fresh state. The blueprint is
exempt from CSRF: it takes no cookies' word for anything, only JSON bodies, which a cross-site form
cannot send. ``POST /api/recognise`` takes a multipart photo instead and answers with the
recogniser's own JSON (as ``python -m vision PHOTO --json``; an ``expect`` field, as ``--expect``,
says how many cards the photo should hold); both photo routes decode and read the upload in a
limited worker process (`decode_and_read_upload`). ``POST /api/recognise/frame``
is the same for a live camera's frames, a few a second, under its own rate limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, jsonify, make_response, request, url_for
from werkzeug.wrappers import Response

from scorer import i18n
from scorer.i18n import _, digits
from scorer.match import Match, new_settings_json
from scorer.pegging import score_pegging
from scorer.rulings import show_answer
from store import KeyReused, StaleAppend
from web.errors import json_error
from web.forms import whole_number
from web.i18n import use_language
from web.matches import current, load, public_url, require_writer, resolve, store_event
from web.storage import get_store

if TYPE_CHECKING:
    from vision import Recognition
    from vision.io import LoadedImage

# scorer.discard (numpy) and vision (numpy, OpenCV, Pillow) are imported where they are used: the
# phone's offline app (``MUGGINS_OFFLINE``) imports this module, and the browser has none of them.

__all__ = ["PHOTO_READER", "bp", "decode_and_read_upload", "read_upload"]

MAX_JSON_DEPTH = 16
"""Deepest nesting of arrays and objects in a body: real ones nest four levels at most, and the
engine copies events recursively, so a body nested near Python's stack limit must stop here."""

PHOTO_READER = "web.reader:read_cards"
"""The default ``MUGGINS_PHOTO_READER``: the import path of the function a photo worker runs on the
decoded pixels (named, not imported, so the server process never loads the recogniser's model)."""

bp = Blueprint("api", __name__, url_prefix="/api")


class ApiError(ValueError):
    """A request body the API cannot use; its message is the one-line answer."""


@bp.errorhandler(ValueError)
def _bad_input(err: ValueError) -> Response:
    return json_error(400, " ".join(str(err).split()))


def body() -> dict[str, Any]:
    """The request's JSON object, or a 400 saying what was wrong with it."""
    try:
        data = request.get_json(force=True, silent=True)
    except RecursionError:  # "[[[[…" nested past the parser's stack: silent=True does not catch it
        data = None
    if not isinstance(data, dict):
        raise ApiError(_("the request body must be a JSON object, like %(example)s",
                         example='{"hand": "5H 5C 5S JD", ...}'))
    if _depth(data) > MAX_JSON_DEPTH:
        raise ApiError(_("the request body nests arrays and objects more than %(depth)s deep",
                         depth=digits(MAX_JSON_DEPTH)))
    use_language(data.get("lang"))  # the body's "lang" outranks Accept-Language and the cookie
    return data


def _depth(value: object) -> int:
    """How deep ``value`` nests lists and dicts, up to one past the limit (a loop, not recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo and deepest <= MAX_JSON_DEPTH:
        item, level = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            todo.extend((child, level + 1) for child in children)
    return deepest


def field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], example: str,
          default: Any = None, required: bool = True) -> Any:
    """``data[name]`` checked against ``kind``; a missing or mistyped field is a 400 naming it."""
    if name not in data:
        if required:
            raise ApiError(_("missing %(name)s: give it like %(example)s", name=repr(name), example=example))
        return default
    value = data[name]
    # JSON true/false are Python bools, which are also ints: never accept one for the other.
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise ApiError(_("bad %(name)s: %(value)s is not valid here; give it like %(example)s",
                         name=repr(name), value=repr(value), example=example))
    return value


@bp.post("/score")
def score() -> Response:
    """``{"hand": "5H 5C 5S JD", "starter": "5D", "crib": false}`` → the itemized show, the count
    as spoken and the rulings in the request's language (``"lang"`` says which)."""
    data = body()
    hand = field(data, "hand", (str, list), '"hand": "5H 5C 5S JD"')
    starter = field(data, "starter", str, '"starter": "5D"')
    crib = field(data, "crib", bool, '"crib": false', default=False, required=False)
    return jsonify(show_answer(hand, starter, crib=crib))


@bp.post("/peg")
def peg() -> Response:
    """``{"plays": "A:5H B:TS A:5D"}`` (optional ``"hands"`` to check legality) → the awards."""
    data = body()
    plays = field(data, "plays", (str, list), '"plays": "A:5H B:TS A:5D"')
    hands = field(data, "hands", dict, '"hands": {"A": "5H 5D 4C 3S", "B": "TS 9C 2D KH"}',
                  required=False)
    return jsonify(score_pegging(plays, hands).to_json())


@bp.post("/discard")
def discard() -> Response:
    """``{"cards": "5H 5C 5S JD 2C 9D", "players": 2, "dealer": true}`` → every throw, best first."""
    data = body()
    if current_app.config["MUGGINS_OFFLINE"]:
        return json_error(503, _("the throw advisor needs the Muggins server; this phone is working on its "
                                 "own"))
    from scorer.discard import advise

    cards = field(data, "cards", (str, list), '"cards": "5H 5C 5S JD 2C 9D"')
    players = field(data, "players", int, '"players": 2', default=2, required=False)
    dealer = field(data, "dealer", bool, '"dealer": true', default=False, required=False)
    return jsonify({"options": [o.to_json() for o in advise(cards, players=players, dealer=dealer)]})


def _match_json(match: Match, seq: int) -> dict[str, Any]:
    return {"seq": seq, **match.to_json()}


def _state_json(match: Match, seq: int) -> dict[str, Any]:
    """What an appending client needs: the board at ``seq``, not the whole log (which grows with
    the match; ``GET /api/matches/<id>?after=seq`` serves the events it lacks)."""
    return {"seq": seq, "next_seq": match.next_seq, "state": match.state.to_json()}


@bp.post("/matches")
def create_match() -> Response:
    """Settings (``{"players": ["Ann", "Bob"], "target": 121, ...}``) → the new match's ids and links;
    with ``"group": "<scorer id>"`` the match is the group's and starts with its rules."""
    data = body()
    if "group" in data:
        from web.groups.api import create_group_match  # the groups' routes import this module

        return create_group_match(field(data, "group", str, '"group": "<the group\'s scorer id>"'), data)
    settings = new_settings_json(data)
    record = get_store().create_match(settings)
    resp = jsonify({
        "id": record.id,
        "viewer_id": record.viewer_id,
        "links": {
            "scorer": public_url(url_for("matches.screen", token=record.id)),
            "viewer": public_url(url_for("matches.screen", token=record.viewer_id)),
            "api": public_url(url_for("api.get_match", token=record.id)),
        },
        "match": _match_json(Match(settings), 0),
        "lang": i18n.current(),
    })
    resp.status_code = 201
    resp.headers["Location"] = url_for("api.get_match", token=record.id)
    return resp


@bp.get("/matches/<token>")
def get_match(token: str) -> Response:
    """The match's state, history and statistics; 304 when the ``If-None-Match`` seq is current.

    With ``?after=N`` only the state and the stored events after seq N: what a client that
    appends (and so holds the log up to N) needs to catch up, however long the match.
    """
    access = resolve(token)  # with the match's last seq, read in the same query
    after_text = request.args.get("after")
    etag = f"seq-{access.seq}" if after_text is None else f"seq-{access.seq}-after-{after_text}"
    if request.if_none_match.contains(etag):
        resp = make_response("", 304)
    else:
        match, seq = current(access)
        if after_text is None:
            resp = jsonify({**_match_json(match, seq), "can_write": access.can_write, "lang": i18n.current()})
            etag = f"seq-{seq}"  # the seq served, should an append have landed since the lookup
        else:
            after = whole_number(after_text)
            if after is None or after > seq:
                raise ApiError(_("bad 'after': %(value)s; give the last seq you hold, 0 to %(seq)s",
                                 value=repr(after_text), seq=seq))
            events = [{"seq": n, "event": e} for n, e in enumerate(match.events[after:], after + 1)]
            resp = jsonify({**_state_json(match, seq), "events": events, "can_write": access.can_write,
                            "lang": i18n.current()})
            etag = f"seq-{seq}-after-{after_text}"
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.post("/matches/<token>/events")
def append_event(token: str) -> Response:
    """``{"after": 12, "event": {...}, "idempotency_key": "..."}`` → the stored seq, or 409 if stale."""
    access = require_writer(token)
    data = body()
    after = field(data, "after", int, '"after": 12 (the last seq you saw)')
    event = field(data, "event", dict, '"event": {"type": "peg", "player": 0, "points": 2}')
    key = field(data, "idempotency_key", str, '"idempotency_key": "3f2c..."', required=False)
    if key is None:
        key = request.headers.get("Idempotency-Key")  # the header, for clients that retry whole requests
    try:
        result, match, seq = store_event(access, after, event, key)
    except StaleAppend as stale:
        match, seq = load(access.record)
        resp = jsonify(error=_("stale: the match is at seq %(last)s, not %(after)s; check the fresh "
                               "state and send the event again if it still applies",
                               last=stale.last_seq, after=after),
                       seq=seq, match=_state_json(match, seq), lang=i18n.current())
        resp.status_code = 409
        return resp
    except KeyReused as reused:
        return json_error(422, str(reused))
    resp = jsonify(seq=result.seq, duplicate=result.duplicate, match=_state_json(match, seq),
                   lang=i18n.current())
    resp.status_code = 200 if result.duplicate else 201
    return resp


@bp.app_template_global()
def ready_photo_worker() -> str:
    """Have a photo worker wait ready for the photo a page offers to read (``vision.io.make_ready``):
    called by the photo form (templates/photo/_take.html) as the page is drawn, so a player's first
    photo finds its worker warmed up, the forkserver started and the model loaded. Nothing on the
    phone's offline app, which reads no photo. Returns "" (nothing to draw)."""
    if not current_app.config.get("MUGGINS_OFFLINE"):
        from vision.io import make_ready

        make_ready(current_app.config.get("MUGGINS_PHOTO_READER", PHOTO_READER))
    return ""


def decode_and_read_upload(data: bytes, where: str = "upload", expect: int | None = None,
                           ready_next: bool = False,
                           starter: str | None = None) -> tuple[LoadedImage, Recognition]:
    """An uploaded photo decoded (at ``vision.io.DECODED_LONG_SIDE_PX``, which the recogniser shrinks to
    its working size, and to a finer one for a reading in doubt) and read, both in one limited
    worker process (``vision.io.decode_and_read``) by the app's ``MUGGINS_PHOTO_READER``; the
    reading's corners are in the decoded pixels. ``expect``: how many cards the photo should hold,
    when the page knows (passed to the reader, ``vision.recognise``'s ``expect``). ImageError if the
    photo is refused or too costly to read. ``ready_next``: have a worker wait ready for the page's
    next photo (``vision.io.decode_and_read``). ``starter``: a card the page knows may lie in the
    photo besides the ``expect`` cards (a match's starter; passed to the reader with ``expect``)."""
    from vision import Recognition
    from vision.io import DECODED_LONG_SIDE_PX, ReaderSpec, decode_and_read

    reader: ReaderSpec = current_app.config.get("MUGGINS_PHOTO_READER", PHOTO_READER)
    options: dict[str, object] | None = None if expect is None else {"expect": expect}
    if options is not None and starter is not None:
        options["starter"] = starter
    loaded, result = decode_and_read(data, reader, DECODED_LONG_SIDE_PX, where=where, reader_options=options,
                                     ready_next=ready_next)
    if not isinstance(result, Recognition):
        raise RuntimeError(f"the photo reader {reader!r} answered {type(result).__name__}, not a Recognition")
    return loaded, result


def read_upload(data: bytes, expect: int | None = None) -> Recognition:
    """The recogniser's reading of an uploaded photo, decoded and read in a limited worker process;
    corners in the photo's own pixels, as ``recognise`` gives them for the same bytes (and the
    same ``expect``)."""
    loaded, result = decode_and_read_upload(data, expect=expect)
    if loaded.scale == 1.0:
        return result
    cards = [replace(d, corners=[(x * loaded.scale, y * loaded.scale) for x, y in d.corners])
             for d in result.cards]
    return replace(result, cards=cards)


@bp.post("/recognise", endpoint="recognise")
def recognise_upload() -> Response:
    """Multipart field ``image`` → the recogniser's JSON, as ``python -m vision PHOTO --json``; the
    optional field ``expect`` (1 to 52) says how many cards the photo should hold, as ``--expect``
    does: read faster when the outlines find them all."""
    if current_app.config["MUGGINS_OFFLINE"]:
        return json_error(503, _("reading a photo needs the Muggins server; this phone is working on its "
                                 "own"))
    from vision import ImageError

    upload_file = request.files.get("image")
    if upload_file is None:
        return json_error(400, _("missing 'image': send the photo as the multipart form field named image"))
    expect = _cards_to_expect(request.form.get("expect", ""))
    try:
        result = read_upload(upload_file.read(), expect)
    except ImageError as e:
        return json_error(400, " ".join(str(e).split()))
    return current_app.response_class(result.to_json(), mimetype="application/json")


def _cards_to_expect(text: str) -> int | None:
    """The ``expect`` form field: a whole number of cards from 1 to 52, or None when left out;
    ApiError (a 400 naming it) otherwise."""
    if not text:
        return None
    if len(text) > 2 or not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 52:
        raise ApiError(_("bad %(name)s: %(value)s is not valid here; give it like %(example)s",
                         name=repr("expect"), value=repr(text[:20]), example="5"))
    return int(text)


@bp.post("/recognise/frame", endpoint="recognise_frame")
def recognise_frame() -> Response:
    """A live camera's frame (multipart ``image``, a small JPEG) → the same JSON as ``/api/recognise``,
    under a rate of its own (a few a second) and a smaller body limit (``web.limits``)."""
    return recognise_upload()
