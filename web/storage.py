"""The app's match store: one ``store.Store`` per app, its schema made at start-up, and the
in-process caches of what it holds (``web.cache``)."""

from __future__ import annotations

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


def init_store(app: Flask) -> None:
    """Open the store named by ``DATABASE_URL``, create its tables if they are missing, and give
    the app empty caches of it."""
    store = Store(app.config["DATABASE_URL"],
                  lock_timeout_s=app.config.get("STORE_LOCK_TIMEOUT_S", DEFAULT_LOCK_TIMEOUT_S))
    app.extensions[_KEY] = store
    init_caches(app)
    app.register_error_handler(StoreUnavailable, _unavailable)
    try:
        store.create_schema()
    except StoreUnavailable as err:
        # Start anyway: pages answer 503 while the database is locked or out of reach, and the
        # first request that finds it back makes the tables.
        app.logger.error("match store unavailable at start-up: %s", err)
        app.extensions[_SCHEMA_PENDING] = True
        app.before_request(_schema_when_back)


def _schema_when_back() -> None:
    # Only the areas that keep matches wait for the store; the calculators never need it.
    if current_app.extensions.get(_SCHEMA_PENDING) and request.blueprint in ("matches", "api"):
        get_store().create_schema()  # StoreUnavailable again: this request is a 503
        current_app.extensions[_SCHEMA_PENDING] = False


def _unavailable(err: StoreUnavailable) -> Response:
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
