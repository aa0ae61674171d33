"""The Muggins web app: ``create_app`` for tests and WSGI servers, ``python app.py`` for the table.

``python app.py`` serves on every interface with waitress (port from ``PORT``, default 8000;
``HOST`` to bind one address; ``MUGGINS_INSTANCE`` for another instance folder) and prints the
local-network address with a QR code, so the phones at the table can join a laptop.
"""

from __future__ import annotations

import io
import os
import secrets
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from web import api, count, discard, errors, http, matches, peg, photo, present
from web.csrf import csrf
from web.storage import init_store

DEFAULT_PORT = 8000
"""Port ``python app.py`` listens on when ``PORT`` is not set."""

SERVER_THREADS = 8
"""Waitress worker threads: a table of phones polling every 2 s needs only a few."""

MAX_UPLOAD_BYTES = 15 * 1024 * 1024
"""Largest request body (15 MB): room for one full-resolution phone photo, nothing bigger (issue 5)."""

SECRET_KEY_FILE = "secret_key"
"""File in the instance folder holding the session/CSRF key, made on first start."""

LAN_PROBE_ADDRESS = ("10.254.254.254", 1)
"""Any non-local address: connecting a UDP socket to it sends nothing but picks the LAN interface."""


def create_app(test_config: Mapping[str, Any] | None = None, instance_path: str | None = None) -> Flask:
    """Build the app: config, secret key, CSRF, the match store and one blueprint per area.

    ``instance_path`` overrides the instance folder (``instance/`` beside this file), where the
    secret key, an optional ``config.py`` and the default SQLite store live.
    """
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_path)
    instance = Path(app.instance_path)
    app.config.from_mapping(
        DATABASE_URL=f"sqlite:///{instance / 'muggins.sqlite'}",
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        HTMX_JS=str(Path(app.root_path) / "node_modules" / "htmx.org" / "dist" / "htmx.min.js"),
        # The address phones should use in share links; None means "the one this phone used",
        # except that a loopback address is swapped for LAN_URL (set by ``python app.py``).
        PUBLIC_URL=None,
        LAN_URL=None,
        POLL_SECONDS=2,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        WTF_CSRF_TIME_LIMIT=None,  # a match can last an evening; the token lives as long as the session
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        if os.environ.get("DATABASE_URL"):
            app.config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    else:
        app.config.from_mapping(test_config)
    instance.mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _load_or_create_secret(instance / SECRET_KEY_FILE)

    csrf.init_app(app)
    init_store(app)
    http.init_app(app)
    present.init_app(app)
    errors.init_app(app)
    # One blueprint per area (photo also answers POST /api/recognise, exempt from CSRF itself).
    for bp in (count.bp, peg.bp, discard.bp, matches.bp, photo.bp, api.bp, http.assets):
        app.register_blueprint(bp)
    csrf.exempt(api.bp)
    return app


def _load_or_create_secret(path: Path) -> str:
    """The instance's secret key, generated once and kept private to the owner."""
    if not path.exists():
        # Written aside, then linked into place: the file appears whole or not at all, so a
        # gunicorn worker starting at the same moment never reads it half-written (empty).
        spare = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(spare, path)
        except FileExistsError:  # another process started at the same moment and won
            pass
        finally:
            spare.unlink()
    return path.read_text(encoding="ascii").strip()


def lan_address() -> str:
    """This machine's address on the local network (127.0.0.1 when it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(LAN_PROBE_ADDRESS)
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def startup_banner(url: str) -> str:
    """What ``python app.py`` prints: the address for phones and its QR code for the terminal."""
    import segno

    qr = io.StringIO()
    segno.make(url, error="m").terminal(out=qr, compact=True, border=2)
    return (f"Muggins is running. On a phone on this network open:\n\n    {url}\n\n"
            f"{qr.getvalue()}\nPress Ctrl+C to stop.")


def main() -> None:
    """Serve on the local network with waitress and print the address and a QR code."""
    from waitress import serve  # type: ignore[import-untyped]

    port = int(os.environ.get("PORT", DEFAULT_PORT))
    host = os.environ.get("HOST", "0.0.0.0")  # HOST=127.0.0.1 keeps it to this machine
    url = f"http://{lan_address() if host == '0.0.0.0' else host}:{port}/"
    instance = os.environ.get("MUGGINS_INSTANCE")  # as for wsgi.py; default instance/ here
    app = create_app(instance_path=os.path.abspath(instance) if instance else None)
    if not app.config["LAN_URL"]:
        app.config["LAN_URL"] = url
    print(startup_banner(url), flush=True)
    serve(app, host=host, port=port, threads=SERVER_THREADS)


if __name__ == "__main__":
    main()
