"""The app's match store: one ``store.Store`` per app, its schema made at start-up, and the
in-process caches of what it holds (``web.cache``)."""

from __future__ import annotations

import sqlite3

from flask import Flask, current_app, make_response, request
from werkzeug.wrappers import Response

from store import DEFAULT_LOCK_TIMEOUT_S, Store, StoreUnavailable
from web.cache import init_caches
from web.errors import json_error, render_error, wants_json

__all__ = ["get_store", "init_store"]

_KEY = "muggins.store"
_SCHEMA_PENDING = "muggins.store.schema_pending"
RETRY_AFTER_S = 5
"""What a 503 tells clients to wait before trying again (seconds): about one SQLite lock timeout."""
STORELESS_ENDPOINTS = frozenset({"api.score", "api.peg", "api.discard", "api.recognise"})
"""API routes that never touch the store: they answer whatever state the database is in."""
_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
"""SQLite's result codes for a damaged file and for a file that is not a database at all."""


def init_store(app: Flask) -> None:
    """Open the store named by ``DATABASE_URL``, bring its schema up to date, prune the matches
    never played in a day, and give the app empty caches of it."""
    store = Store(app.config["DATABASE_URL"],
                  lock_timeout_s=app.config.get("STORE_LOCK_TIMEOUT_S", DEFAULT_LOCK_TIMEOUT_S))
    app.extensions[_KEY] = store
    init_caches(app)
    app.register_error_handler(StoreUnavailable, _unavailable)
    try:
        store.create_schema()
        removed = store.prune_unplayed()  # and again, at most hourly, as matches are created
        if removed:
            app.logger.info("pruned %d matches never played in a day", removed)
    except StoreUnavailable as err:
        # Start anyway: pages answer 503 while the database is locked or out of reach, and the
        # first request that finds it back makes the tables.
        app.logger.error("match store unavailable at start-up: %s", err)
        app.extensions[_SCHEMA_PENDING] = True
        app.before_request(_schema_when_back)


def _schema_when_back() -> None:
    # Only the areas that keep matches wait for the store; the calculators never need it.
    if (current_app.extensions.get(_SCHEMA_PENDING) and request.blueprint in ("matches", "groups", "api")
            and request.endpoint not in STORELESS_ENDPOINTS):
        get_store().create_schema()  # StoreUnavailable again: this request is a 503
        current_app.extensions[_SCHEMA_PENDING] = False


def is_corrupt(err: BaseException) -> bool:
    """Whether ``err`` (or what caused it) is SQLite finding its file damaged or not a database."""
    cause: BaseException | None = err
    while cause is not None:
        found = getattr(cause, "orig", None) or cause  # SQLAlchemy wraps the driver's own error
        code = getattr(found, "sqlite_errorcode", None) if isinstance(found, sqlite3.Error) else None
        if isinstance(code, int) and (code & 0xFF) in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
            return True
        cause = cause.__cause__
    return False


def _damaged(err: StoreUnavailable) -> Response:
    # Waiting will not help, and the owner must know which file: say so, and log where it is.
    current_app.logger.error("match store is damaged (%s): %s: restore it from a backup or move it aside",
                             current_app.config["DATABASE_URL"], err)
    message = ("The match store is damaged (its database file is corrupt), so nothing can be read or saved. "
               "Whoever runs this server must restore it from a backup or move it aside.")
    if wants_json():
        return json_error(500, message)
    return make_response(render_error(500, "Match store damaged", message))


def _unavailable(err: StoreUnavailable) -> Response:
    if is_corrupt(err):
        return _damaged(err)
    current_app.logger.error("match store unavailable: %s", err)
    message = ("The match store cannot take changes just now (it is locked, read-only or out of reach), "
               "so nothing was saved. Try again in a moment.")
    if wants_json():
        resp = json_error(503, message)
    else:
        resp = make_response(render_error(503, "Store unavailable", message))
    resp.headers["Retry-After"] = str(RETRY_AFTER_S)
    return resp


def get_store() -> Store:
    """The current app's store."""
    store: Store = current_app.extensions[_KEY]
    return store
