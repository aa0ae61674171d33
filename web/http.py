"""Shared HTTP plumbing: htmx detection, page-or-partial rendering, security headers, vendored
htmx and nosleep.js.

One partial, two uses: a view renders its fragment alone for an htmx request and the whole page
otherwise, so every form also works as a plain POST without JavaScript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Flask, abort, current_app, make_response, render_template, request, send_file
from werkzeug.wrappers import Response

from scorer.cards import DECK, Suit

__all__ = ["assets", "init_app", "is_htmx", "render", "url_with_query"]

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",  # the photo flow shows the player's photo inline: the server keeps none
    "media-src 'self' data:",  # nosleep.js keeps a plain-http screen awake with a tiny inline video
    "connect-src 'self'",
    "manifest-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
"""No inline script or style anywhere: every script and stylesheet is a file under static/."""

WORKER_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
"""The phone's engine worker compiles Pyodide's WebAssembly (docs/DESIGN.md "Offline"); nothing else may."""

VENDOR_MAX_AGE_S = 24 * 60 * 60
"""How long phones may cache htmx and nosleep.js (a day): they change only with package.json."""

assets = Blueprint("assets", __name__)


def is_htmx() -> bool:
    """True for an htmx request that wants a fragment (not a history restore, which wants the page)."""
    return (
        request.headers.get("HX-Request") == "true"
        and request.headers.get("HX-History-Restore-Request") != "true"
    )


def render(page: str, partial: str, status: int = 200, **context: Any) -> Response:
    """Render ``partial`` alone for htmx, ``page`` (which includes it) otherwise."""
    resp = make_response(render_template(partial if is_htmx() else page, **context), status)
    resp.vary.add("HX-Request")
    return resp


def url_with_query(path: str, **params: object) -> str:
    """``path`` with the non-empty ``params`` as a query string."""
    kept = {k: str(v) for k, v in params.items() if v not in (None, "", False)}
    return f"{path}?{urlencode(kept)}" if kept else path


@assets.get("/vendor/htmx.min.js")
def htmx() -> Response:
    """htmx from node_modules (installed by ``npm ci``), served by the app itself: no CDN."""
    path = Path(current_app.config["HTMX_JS"])
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype="text/javascript", max_age=VENDOR_MAX_AGE_S)


@assets.get("/vendor/nosleep.min.js")
def nosleep() -> Response:
    """nosleep.js from node_modules: keeps the screen on where the Wake Lock API is not offered
    (a page on the table's plain-http address is no secure context)."""
    path = Path(current_app.config["NOSLEEP_JS"])
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype="text/javascript", max_age=VENDOR_MAX_AGE_S)


def _security_headers(resp: Response) -> Response:
    worker = request.path.endswith(".worker.mjs")
    resp.headers.setdefault("Content-Security-Policy", WORKER_CONTENT_SECURITY_POLICY if worker
                            else CONTENT_SECURITY_POLICY)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    if resp.mimetype == "text/html":
        # Pages carry live scores and form tokens: always ask the server again.
        resp.headers.setdefault("Cache-Control", "no-cache")
        resp.vary.add("HX-Request")
    return resp


def init_app(app: Flask) -> None:
    """Install the security headers and template globals; warn when htmx is not installed."""
    app.after_request(_security_headers)
    # Globals, not context: macros imported by templates see them too.
    app.jinja_env.globals["picker_suits"] = [(s, [c for c in DECK if c.suit is s]) for s in Suit]
    app.jinja_env.globals["poll_seconds"] = app.config["POLL_SECONDS"]
    # The phone's offline app never serves them: its service worker answers from its cache.
    for name in () if app.config.get("MUGGINS_OFFLINE") else ("HTMX_JS", "NOSLEEP_JS"):
        if not Path(app.config[name]).is_file():
            app.logger.warning("%s not found: run `npm ci` (pages still work without it)", app.config[name])
