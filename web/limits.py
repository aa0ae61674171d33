"""What any one request may ask of the server: its Host, its body's size and kind, and its rate.

- **Host**: when ``MUGGINS_TRUSTED_HOSTS`` is configured (``python app.py`` and ``wsgi.py`` always
  configure it), a request naming any other host is a 400 before anything builds a link from it,
  so a forged Host header cannot plant its own address in a share link or QR code.
- **Body size**, per route and before a byte of the body is read: the Content-Length is checked
  against the route's limit (64 KiB for JSON, `PHOTO_BODY_MAX_BYTES` for photo uploads,
  `FORM_BODY_MAX_BYTES` for the pages' forms) and a longer body is a 413 at once; a chunked body
  is cut off with a 413 when its bytes pass the limit while it streams.
- **Content type**: the JSON API reads only ``application/json`` bodies (415 otherwise), so a
  cross-site HTML form, which can only send form encodings, can never reach it.
- **Rate**: creating matches and reading photos is limited per client address with
  Flask-Limiter (429 with a page or a one-line JSON error). Storage is in memory, per process,
  by default; ``RATELIMIT_STORAGE_URI`` (in the instance's ``config.py`` or the environment
  variable of the same name) points every gunicorn worker at one shared store, such as
  ``redis://localhost:6379``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Collection, Iterable
from typing import Any, cast
from urllib.parse import urlsplit

from flask import Flask, abort, current_app, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response

from scorer.i18n import N_, digits
from web.errors import json_error, render_error, wants_json
from web.i18n import language

__all__ = [
    "FORM_BODY_MAX_BYTES", "JSON_BODY_MAX_BYTES", "PHOTO_BODY_MAX_BYTES", "PHOTO_ENDPOINTS",
    "FRAME_BODY_MAX_BYTES", "FRAME_ENDPOINTS", "init_app",
    "limit_routes", "rate_words", "trusted_hosts",
]

JSON_BODY_MAX_BYTES = 64 * 1024
"""Largest JSON body (64 KiB): a whole match's events are a few kilobytes."""
PHOTO_BODY_MAX_BYTES = 15 * 1024 * 1024
"""Largest photo upload (15 MB): one full-resolution phone photo, nothing bigger."""
FORM_BODY_MAX_BYTES = 256 * 1024
"""Largest page form (256 KiB): the biggest, a photo correction with 52 outlines, is about 10 kB."""
PHOTO_ENDPOINTS = frozenset({"photo.upload", "api.recognise"})
"""The routes that take a photo upload."""
FRAME_ENDPOINTS = frozenset({"api.recognise_frame"})
"""The route that takes a live camera's frames (``static/js/camera.js``)."""
FRAME_BODY_MAX_BYTES = 2 * 1024 * 1024
"""Largest camera frame (2 MiB): the page sends 1280 px JPEGs of about 100-300 kB."""
FRAME_LIMIT = "240 per minute"
"""Camera frames one client address may have read: the page sends two at a time, a few a second,
each a small JPEG (about 0.7 s of a photo worker's wall time on the 2-core test machine one at a
time, the worker's start about 0.1 s of it; bench/bench_frames.py); the photo limit (30 a minute)
would stop the camera after ten seconds."""
JSON_ENDPOINTS_EXEMPT = PHOTO_ENDPOINTS | FRAME_ENDPOINTS
"""API routes that take something other than a JSON body (``/api/recognise`` is multipart)."""

MATCH_CREATION_LIMIT = "20 per minute; 200 per day"
"""New matches one client address may make: a table makes one an evening; a script made 2,000 in
5 s. (A club on one network behind one address should raise it: ``MUGGINS_RATE_MATCHES``.)"""
PHOTO_LIMIT = "30 per minute"
"""Photos one client address may have read: each costs up to 3 s of a decoder's CPU."""
MATCH_CREATION_ENDPOINTS = ("matches.create", "api.create_match", "groups.new_match")
GROUP_CREATION_LIMIT = "10 per minute; 100 per day"
"""New groups (and imports) one client address may make: a table makes one for years of play."""
GROUP_CREATION_ENDPOINTS = ("groups.create", "api.create_group", "api.import_export")
IMPORT_BODY_MAX_BYTES = PHOTO_BODY_MAX_BYTES
"""Largest import (15 MB, the server's overall limit): a group's export is a few kB a game."""
IMPORT_ENDPOINTS = frozenset({"api.import_export"})

_LIMITER = "muggins.limiter"


def trusted_hosts(names: Iterable[str], public_url: str | None = None, extra: str | None = None) -> list[str]:
    """The host names a server answers to: ``names`` (bare hosts or URLs), the host of
    ``public_url`` and the comma-separated ``extra``, lower-cased, without ports or brackets."""
    hosts = ["localhost", "127.0.0.1", "::1"]
    candidates = [*names, public_url or "", *(extra or "").split(",")]
    for item in candidates:
        item = item.strip()
        if not item:
            continue
        host = urlsplit(item if "//" in item else f"//{item}").hostname
        if host and host not in hosts:
            hosts.append(host)
    return hosts


def _request_host() -> str | None:
    """The request's host name without port, lower-cased (IPv6 without brackets), or None."""
    raw = request.environ.get("HTTP_HOST") or request.environ.get("SERVER_NAME") or ""
    try:
        return urlsplit(f"//{raw}").hostname
    except ValueError:
        return None


def _check_host() -> None:
    allowed: Collection[str] | None = current_app.config.get("MUGGINS_TRUSTED_HOSTS")
    if not allowed:
        return
    host = _request_host()
    if host not in allowed:
        abort(400, description=_("this server does not answer to the address %(host)s: "
                                 "open it by the address it printed, or its PUBLIC_URL",
                                 host=repr(str(host)[:60])))


def body_limit(endpoint: str | None) -> int:
    """The largest body ``endpoint`` takes, in bytes (never more than ``MAX_CONTENT_LENGTH``)."""
    if endpoint in PHOTO_ENDPOINTS:
        limit = PHOTO_BODY_MAX_BYTES
    elif endpoint in FRAME_ENDPOINTS:
        limit = FRAME_BODY_MAX_BYTES
    elif endpoint in IMPORT_ENDPOINTS:
        limit = IMPORT_BODY_MAX_BYTES
    elif endpoint and endpoint.startswith("api."):
        limit = JSON_BODY_MAX_BYTES
    else:
        limit = FORM_BODY_MAX_BYTES
    overall = current_app.config.get("MAX_CONTENT_LENGTH")
    return min(limit, overall) if overall else limit


def _limit_body() -> None:
    limit = body_limit(request.endpoint)
    request.max_content_length = limit  # werkzeug stops a chunked body at this many bytes, too
    length = request.content_length
    if length is not None and length > limit:
        raise RequestEntityTooLarge()


def _size(limit: int) -> str:
    if limit >= 2**20:
        return str(_("%(num)s MB", num=digits(round(limit / 2**20), language())))
    return str(_("%(num)s kB", num=digits(round(limit / 2**10), language())))


def _too_large(err: RequestEntityTooLarge) -> Response | tuple[str, int]:
    size = _size(body_limit(request.endpoint))
    photo = request.endpoint in PHOTO_ENDPOINTS or request.endpoint in FRAME_ENDPOINTS
    if wants_json():
        if photo:
            return json_error(413, _("photo too large: the most the server takes is %(size)s", size=size))
        return json_error(413, _("request body too large: the most the server takes is %(size)s", size=size))
    if photo:
        return render_error(413, _("Photo too large"),
                            _("That photo is too large: the most the server takes is %(size)s. Take it again "
                              "at the camera's normal size (not its 48 or 50 MP mode), or type the cards.",
                              size=size))
    return render_error(413, _("Too large"), _("That upload is too large."))


def _require_json() -> None:
    endpoint = request.endpoint or ""
    if (request.method in ("POST", "PUT", "PATCH") and endpoint.startswith("api.")
            and endpoint not in JSON_ENDPOINTS_EXEMPT and not request.is_json):
        abort(415, description=_("the request body must be JSON, sent with Content-Type: application/json"))


def _rate_limited(err: RateLimitExceeded) -> Response | tuple[str, int]:
    message = str(err.description)
    if wants_json():
        resp = json_error(429, message)
    else:
        page, status = render_error(429, _("Too many requests"), message)
        resp = current_app.make_response((page, status))
    resp.headers["Retry-After"] = "60"
    return resp


def _load_libc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return None
    return cast(Callable[[int], int], trim)


_malloc_trim = _load_libc_trim()


def _give_memory_back(resp: Response) -> Response:
    # Reading a photo's cards takes tens of MiB of short-lived arrays in the serving thread's own
    # malloc arena, which glibc keeps after they are freed: hand the free pages back, so the
    # server returns to its idle memory after every photo or camera frame (about 1 ms).
    reads = request.endpoint in PHOTO_ENDPOINTS or request.endpoint in FRAME_ENDPOINTS
    if reads and _malloc_trim is not None:
        _malloc_trim(0)
    return resp


_PER_UNIT = {
    "second": N_("%(num)s per second"),
    "minute": N_("%(num)s per minute"),
    "hour": N_("%(num)s per hour"),
    "day": N_("%(num)s per day"),
    "month": N_("%(num)s per month"),
    "year": N_("%(num)s per year"),
}


def rate_words(rate: str) -> str:
    """A Flask-Limiter rate (``"20 per minute; 200 per day"``) in the request's language; one
    the table has no words for (``"5 per 2 hours"``) is shown as configured."""
    try:
        items = parse_many(rate)
    except ValueError:
        return rate
    if not items or any(i.multiples != 1 or i.GRANULARITY.name not in _PER_UNIT for i in items):
        return rate
    return "; ".join(_(_PER_UNIT[i.GRANULARITY.name], num=digits(i.amount, language())) for i in items)


def _limit_views(app: Flask, limiter: Limiter, endpoints: Iterable[str], scope: str, rate: str,
                 message: Callable[[], str]) -> None:
    # One count per scope: the page's form and the API share a client's allowance. The message is
    # a function: it is written when a request is refused, in that request's language.
    shared = limiter.shared_limit(rate, scope=scope, error_message=message)
    for endpoint in endpoints:
        limited = shared(app.view_functions[endpoint])
        app.view_functions[endpoint] = cast(Callable[..., Any], limited)


def init_app(app: Flask) -> None:
    """Install the checks, in the order they must run: Host, body size, JSON content type; then
    (once the blueprints are registered, see `limit_routes`) the rate limits."""
    app.before_request(_check_host)
    app.before_request(_limit_body)
    app.before_request(_require_json)
    app.after_request(_give_memory_back)
    app.register_error_handler(RequestEntityTooLarge, _too_large)
    app.register_error_handler(RateLimitExceeded, _rate_limited)


def limit_routes(app: Flask) -> None:
    """Rate-limit match creation and photo reading by endpoint (``RATELIMIT_ENABLED`` false turns
    it off; ``MUGGINS_RATE_MATCHES``, ``MUGGINS_RATE_PHOTOS`` and ``MUGGINS_RATE_FRAMES`` change the
    limits)."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    # Per client address, as the WSGI server sees it (or X-Forwarded-For behind MUGGINS_PROXIES).
    limiter = Limiter(key_func=get_remote_address, strategy="fixed-window")
    limiter.init_app(app)
    app.extensions[_LIMITER] = limiter
    matches = app.config.get("MUGGINS_RATE_MATCHES", MATCH_CREATION_LIMIT)
    photos = app.config.get("MUGGINS_RATE_PHOTOS", PHOTO_LIMIT)
    groups = app.config.get("MUGGINS_RATE_GROUPS", GROUP_CREATION_LIMIT)
    frames = app.config.get("MUGGINS_RATE_FRAMES", FRAME_LIMIT)
    _limit_views(app, limiter, MATCH_CREATION_ENDPOINTS, "new-match", matches,
                 lambda: _("too many new matches from this device (the limit is %(limit)s): wait a minute, "
                           "or keep scoring the match already open", limit=rate_words(matches)))
    _limit_views(app, limiter, GROUP_CREATION_ENDPOINTS, "new-group", groups,
                 lambda: _("too many new groups from this device (the limit is %(limit)s): wait a minute",
                           limit=rate_words(groups)))
    _limit_views(app, limiter, PHOTO_ENDPOINTS, "photo", photos,
                 lambda: _("too many photos from this device (the limit is %(limit)s): wait a minute, "
                           "or type the cards", limit=rate_words(photos)))
    _limit_views(app, limiter, FRAME_ENDPOINTS, "frame", frames,
                 lambda: _("too many camera frames from this device (the limit is %(limit)s): wait a minute, "
                           "or take a photo", limit=rate_words(frames)))
