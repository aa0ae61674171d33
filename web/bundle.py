"""Serving the offline bundle (issue 25): Pyodide, the app's Python zip, its manifest, the service worker.

``scripts/build_offline.py`` (``make setup``) writes the bundle into ``build/offline/``; the app
serves it itself, never a CDN. Versioned names (``/offline/pyodide/<version>/...``,
``/offline/app-<hash>.zip``) never change content, so phones may keep them for a year; the
manifest (``/offline/bundle.json``) is asked for again each time. A file with a gzip copy beside
it is sent compressed (``Content-Encoding: gzip``) to clients that accept it: Pyodide's
WebAssembly shrinks from 9.6 MB to 3.5 MB.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Flask, abort, current_app, render_template, request, send_file
from werkzeug.security import safe_join
from werkzeug.wrappers import Response

__all__ = ["bp", "init_app"]

bp = Blueprint("bundle", __name__)

IMMUTABLE_MAX_AGE_S = 365 * 24 * 60 * 60
"""A versioned file never changes: a phone keeps it a year (the service worker keeps it anyway)."""

_VERSIONED = re.compile(r"^(pyodide/[0-9][0-9.]*/[\w.-]+|app-[0-9a-f]{16}\.zip)$")
_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
          ".zip": "application/zip", ".json": "application/json"}


def init_app(app: Flask) -> None:
    """Where the bundle is (``MUGGINS_OFFLINE_BUNDLE``, default ``build/offline``), and the
    ``offline_use`` flag pages read: register the service worker only when there is a bundle to
    keep (or on the phone's own app, which has one)."""
    app.config.setdefault("MUGGINS_OFFLINE_BUNDLE", str(Path(app.root_path) / "build" / "offline"))

    @app.context_processor
    def offline_use() -> dict[str, bool]:
        built = (Path(current_app.config["MUGGINS_OFFLINE_BUNDLE"]) / "bundle.json").is_file()
        return {"offline_use": bool(current_app.config["MUGGINS_OFFLINE"]) or built}


def _send(path: Path, mimetype: str, max_age: int | None) -> Response:
    """``path``, or its gzip copy with ``Content-Encoding: gzip`` when the client takes gzip."""
    gz = path.with_name(f"{path.name}.gz")
    compressed = gz.is_file() and request.accept_encodings["gzip"] > 0
    resp = send_file(gz if compressed else path, mimetype=mimetype, max_age=max_age, conditional=True,
                     etag=True)
    if compressed:
        resp.headers["Content-Encoding"] = "gzip"
    if gz.is_file():
        resp.vary.add("Accept-Encoding")
    if max_age is not None:
        resp.cache_control.public = True
        resp.cache_control.immutable = True
    else:
        resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/offline/shell")
def shell() -> Response:
    """The page the service worker gives for an address of the phone's own app when no page has its
    engine running: it starts the engine, then shows the real page (static/js/offline/page.mjs)."""
    resp = current_app.make_response(render_template("offline/shell.html"))
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, at the root so that its scope is the whole app (static/js/offline/sw.js)."""
    path = Path(current_app.root_path) / "static" / "js" / "offline" / "sw.js"
    resp = current_app.response_class(path.read_bytes(), mimetype="text/javascript")  # small: read whole
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Service-Worker-Allowed"] = "/"
    resp.add_etag()
    return resp.make_conditional(request)


@bp.get("/offline/<path:filename>")
def offline_file(filename: str) -> Response:
    """A bundle file: Pyodide's, the app zip, or the manifest."""
    folder = current_app.config["MUGGINS_OFFLINE_BUNDLE"]
    found = safe_join(folder, filename)
    if found is None or filename.endswith(".gz") or not Path(found).is_file():
        abort(404)
    path = Path(found)
    versioned = _VERSIONED.match(filename) is not None
    return _send(path, _TYPES.get(path.suffix, "application/octet-stream"),
                 IMMUTABLE_MAX_AGE_S if versioned else None)
