"""The bridge the phone's engine worker calls: a request as plain data in, a response as plain data out.

The worker (static/js/offline/engine.worker.mjs) runs this module under Pyodide: `boot` builds the
offline app (``create_app({"MUGGINS_OFFLINE": True, ...})``) on the SQLite file the worker keeps in
IndexedDB, and `handle` runs one request through the app's WSGI interface with
``SCRIPT_NAME=/phone``, so every link, form action, redirect and htmx address the phone's app
writes leads back into ``/phone/`` (OFFLINE.md, contract 2). A path the server would answer (the
service worker's fallback when the network fails, contract 3) runs under the same prefix.

Only Flask, werkzeug and the project's own code are imported: nothing the phone lacks.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask
from werkzeug.test import EnvironBuilder, run_wsgi_app

__all__ = ["PREFIX", "boot", "checkpoint", "close_store", "handle"]

PREFIX = "/phone"
"""Where the phone's own app lives in the browser's address space."""

_app: Flask | None = None
_db: Path | None = None


def boot(db_path: str, instance_path: str) -> None:
    """Build the offline app on the SQLite file ``db_path`` (made, with its schema, if new)."""
    global _app, _db
    from app import create_app

    _db = Path(db_path)
    _db.parent.mkdir(parents=True, exist_ok=True)
    # A fresh secret each start: the phone's sessions (its recent matches) last as long as the worker.
    _app = create_app({"MUGGINS_OFFLINE": True, "DATABASE_URL": f"sqlite:///{_db}",
                       "SECRET_KEY": secrets.token_hex(32)}, instance_path=instance_path)


def handle(method: str, url: str, headers_json: str, body: Any) -> dict[str, Any]:
    """Run one request; ``url`` is the page's whole URL or a path with its query string, the headers
    a JSON list of ``[name, value]`` pairs, ``body`` bytes (or, from the worker, a JS Uint8Array).

    The answer is ``{"status", "headers": [[name, value], ...], "body": bytes}``.
    """
    if _app is None:
        raise RuntimeError("boot() first")
    headers: list[list[str]] = json.loads(headers_json)
    if not isinstance(body, bytes):
        body = body.to_bytes()  # Pyodide's JsProxy of a Uint8Array: one copy into Python
    parts = urlsplit(url)
    path = parts.path
    if path == PREFIX or path.startswith(f"{PREFIX}/"):
        path = path[len(PREFIX):] or "/"
    host = parts.netloc or next((v for k, v in headers if k.lower() == "host"), "localhost")
    builder = EnvironBuilder(path=path, base_url=f"{parts.scheme or 'http'}://{host}{PREFIX}",
                             query_string=parts.query, method=method.upper(),
                             headers=[(k, v) for k, v in headers if k.lower() != "host"], data=body)
    try:
        environ = builder.get_environ()
    finally:
        builder.close()
    chunks, status, response_headers = run_wsgi_app(_app.wsgi_app, environ, buffered=True)
    try:
        data = b"".join(chunks)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return {"status": int(status.split(" ", 1)[0]), "headers": [[k, v] for k, v in response_headers.items()],
            "body": data}


def checkpoint() -> None:
    """Fold SQLite's write-ahead log into the database file, so the file alone holds every commit:
    the worker stores that one file in IndexedDB after each request that may have written."""
    if _db is None or not _db.exists():
        return
    with sqlite3.connect(_db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def close_store() -> None:
    """Close the store's pooled connections (it reconnects when next used): the worker is about to
    replace the database file with a newer copy another tab stored."""
    if _app is not None:
        _app.extensions["muggins.store"].close()
