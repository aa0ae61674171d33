"""The Muggins web app: ``create_app`` for tests and WSGI servers, ``python app.py`` for the table.

``python app.py`` serves on every interface with waitress (port from ``PORT``, default 8000;
``HOST`` to bind one address; ``MUGGINS_INSTANCE`` for another instance folder) and prints the
local-network address with a QR code, so the phones at the table can join a laptop. It answers
only to the host names it serves on (``MUGGINS_TRUSTED_HOSTS`` adds more), and waitress's own
limits match the app's: see `serve`.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from web import api, bundle, count, errors, groups, http, i18n, limits, matches, peg, present
from web.csrf import csrf
from web.storage import init_store

DEFAULT_PORT = 8000
"""Port ``python app.py`` listens on when ``PORT`` is not set."""

SERVER_THREADS = 8
"""Waitress worker threads: a table of phones polling every 2 s needs only a few."""

MAX_UPLOAD_BYTES = limits.PHOTO_BODY_MAX_BYTES
"""Largest request body (15 MB): room for one full-resolution phone photo, nothing bigger (issue 5).
Each route has its own, smaller limit too (``web.limits``)."""

SERVER_MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 64 * 1024
"""Largest body waitress reads at all (15 MiB + 64 KiB: a 15 MB photo's multipart framing). A longer
Content-Length is refused before a byte of the body is read; a chunked body when it passes this."""

SERVER_CONNECTION_LIMIT = 1000
"""Connections waitress holds open at once. Slow or half-sent uploads each hold one (waitress reads
them without a thread), so 200 of them leave room for every phone at the table; the default of
100 let 100 stalled uploads lock every player out."""

SERVER_CHANNEL_TIMEOUT_S = 20
"""Seconds a connection may send nothing before waitress closes it (default 120): a phone
uploading a photo sends steadily; a stalled one frees its connection and spooled body soon."""

SECRET_KEY_FILE = "secret_key"
"""File in the instance folder holding the session/CSRF key, made on first start."""

LAN_PROBE_ADDRESS = ("10.254.254.254", 1)
"""Any non-local address: connecting a UDP socket to it sends nothing but picks the LAN interface."""


def create_app(test_config: Mapping[str, Any] | None = None, instance_path: str | None = None) -> Flask:
    """Build the app: config, secret key, CSRF, the match store and one blueprint per area.

    ``instance_path`` overrides the instance folder (``instance/`` beside this file), where the
    secret key, an optional ``config.py`` and the default SQLite store live.

    With ``MUGGINS_OFFLINE`` true in ``test_config`` it is the phone's own app (run by Pyodide in a
    Web Worker, docs/DESIGN.md "Offline"): no CSRF (the app is local to the phone), no rate limits,
    and the photo and throw-advisor pages answer that they need the server, so nothing on this path
    imports numpy, OpenCV or Pillow, which the browser does not have.
    """
    offline = bool((test_config or {}).get("MUGGINS_OFFLINE"))
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_path)
    instance = Path(app.instance_path)
    app.config.from_mapping(
        DATABASE_URL=f"sqlite:///{instance / 'muggins.sqlite'}",
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        HTMX_JS=str(Path(app.root_path) / "node_modules" / "htmx.org" / "dist" / "htmx.min.js"),
        NOSLEEP_JS=str(Path(app.root_path) / "node_modules" / "nosleep.js" / "dist" / "NoSleep.min.js"),
        # The address phones should use in share links; None means "the one this phone used",
        # except that a loopback address is swapped for LAN_URL (set by ``python app.py``).
        PUBLIC_URL=None,
        LAN_URL=None,
        POLL_SECONDS=2,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        WTF_CSRF_TIME_LIMIT=None,  # a match can last an evening; the token lives as long as the session
        MUGGINS_PHOTO_READER=api.PHOTO_READER,  # what a photo worker runs on the decoded pixels
        MUGGINS_OFFLINE=False,
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

    if offline:
        # One player's own phone: no other site can post to it, and nobody to rate-limit.
        app.config.update(WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=False)

    if test_config is None and os.environ.get("RATELIMIT_STORAGE_URI"):
        app.config["RATELIMIT_STORAGE_URI"] = os.environ["RATELIMIT_STORAGE_URI"]
    rate_limits = os.environ.get("MUGGINS_RATE_LIMITS", "").strip().lower()
    if test_config is None and rate_limits in ("off", "0", "no"):
        app.config["RATELIMIT_ENABLED"] = False  # the load bench: one client making a hundred tables
    # Host, body size and content type are checked before anything reads the body (CSRF does).
    limits.init_app(app)
    csrf.init_app(app)
    init_store(app)
    http.init_app(app)
    i18n.init_app(app)
    present.init_app(app)
    errors.init_app(app)
    bundle.init_app(app)
    if offline:
        # The same endpoints (templates link to them), answering that they need the server.
        from web.server_only import discard_bp, photo_bp
    else:
        from web.discard import bp as discard_bp
        from web.photo import bp as photo_bp
    for bp in (count.bp, peg.bp, discard_bp, matches.bp, groups.bp, photo_bp, api.bp, i18n.bp,
               http.assets, bundle.bp):
        app.register_blueprint(bp)
    csrf.exempt(api.bp)
    limits.limit_routes(app)
    return app


def trust_hosts(app: Flask, names: list[str]) -> None:
    """Answer only to ``names``, loopback, the host of ``PUBLIC_URL`` and ``MUGGINS_TRUSTED_HOSTS``
    (comma-separated, from the environment or the instance's config.py): any other Host header is a
    400, so no request can make the app build share links to someone else's address."""
    extra = os.environ.get("MUGGINS_TRUSTED_HOSTS") or app.config.get("MUGGINS_EXTRA_HOSTS") or ""
    app.config["MUGGINS_TRUSTED_HOSTS"] = limits.trusted_hosts(names, app.config.get("PUBLIC_URL"), extra)


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


def lan_addresses() -> list[str]:
    """Every address this machine has on its networks that phones might use (besides loopback)."""
    found = [lan_address()]
    try:
        for *_, sockaddr in socket.getaddrinfo(socket.gethostname(), None):
            found.append(str(sockaddr[0]))
    except OSError:
        pass
    return list(dict.fromkeys(a for a in found if not a.startswith("127.")))


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

    port = int(os.environ.get("PORT", DEFAULT_PORT))
    host = os.environ.get("HOST", "0.0.0.0")  # HOST=127.0.0.1 keeps it to this machine
    url = f"http://{lan_address() if host == '0.0.0.0' else host}:{port}/"
    instance = os.environ.get("MUGGINS_INSTANCE")  # as for wsgi.py; default instance/ here
    app = create_app(instance_path=os.path.abspath(instance) if instance else None)
    if not app.config["LAN_URL"]:
        app.config["LAN_URL"] = url
    # The laptop's addresses, its name, and its name as phones find it over mDNS (laptop.local).
    machine = socket.gethostname()
    local = [*lan_addresses(), machine, f"{machine.split('.')[0]}.local"]
    names = local if host in ("0.0.0.0", "::") else [host]
    trust_hosts(app, names)
    print(startup_banner(url), flush=True)
    serve(app, host, port)


class _TooLarge:
    """waitress's refusal of a body over ``SERVER_MAX_BODY_BYTES``, in the app's words: JSON under
    /api/, a line of text elsewhere (waitress's own says "Request Entity Too Large" and its name)."""

    code = 413

    def __init__(self, path: str) -> None:
        self.api = path.startswith("/api/")

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        message = f"request body too large: the most the server takes is {MAX_UPLOAD_BYTES // 2**20} MB"
        if self.api:
            return ("413 Request Entity Too Large", [("Content-Type", "application/json")],
                    json.dumps({"error": message}).encode())
        return ("413 Request Entity Too Large", [("Content-Type", "text/plain; charset=utf-8")],
                f"That upload is too large: {message.split(': ', 1)[1]}.\n".encode())


def serve(app: Flask, host: str, port: int) -> None:
    """Serve ``app`` with waitress, its limits matched to the app's (see the SERVER_* constants)."""
    from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
    from waitress.server import create_server  # type: ignore[import-untyped]
    from waitress.task import ErrorTask  # type: ignore[import-untyped]
    from waitress.utilities import RequestEntityTooLarge  # type: ignore[import-untyped]

    class AppErrorTask(ErrorTask):  # type: ignore[misc]
        def execute(self) -> None:
            if isinstance(self.request.error, RequestEntityTooLarge):
                self.request.error = _TooLarge(self.request.path or "")
            super().execute()

    class AppChannel(HTTPChannel):  # type: ignore[misc]
        error_task_class = AppErrorTask

    _raise_open_file_limit(SERVER_CONNECTION_LIMIT + 100)
    server = create_server(app, host=host, port=port, threads=SERVER_THREADS,
                           connection_limit=SERVER_CONNECTION_LIMIT, channel_timeout=SERVER_CHANNEL_TIMEOUT_S,
                           max_request_body_size=SERVER_MAX_BODY_BYTES, ident="waitress")
    for listener in [server, *getattr(server, "map", {}).values()]:  # one socket, or several
        if hasattr(listener, "channel_class"):
            listener.channel_class = AppChannel
    server.run()


def _raise_open_file_limit(wanted: int) -> None:
    """Let this process hold ``wanted`` sockets and files, as far as the hard limit allows."""
    import resource  # POSIX only: the phone's Python (Pyodide) has none, and never serves

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


if __name__ == "__main__":
    main()
