"""Helpers for the web tests: an app on a temporary SQLite store, CSRF tokens, reading pages.

The pages are read the way a player reads them: by the id of an element and its text, never
by comparing against a rendering of the engine's own output.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from app import create_app

__all__ = [
    "HX", "make_app", "csrf_token", "post_form", "text_of", "error_for", "count_rows", "page_text",
    "after_seq",
]

HX = {"HX-Request": "true"}
"""Headers of an htmx request."""

_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
_TAGS = re.compile(r"<[^>]+>")


def make_app(folder: Path, **config: Any) -> Flask:
    """The app with its instance folder and SQLite store in ``folder``, CSRF on, rate limits off
    (one test client makes hundreds of matches; the limits' own tests turn them on)."""
    return create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{folder / 'test.db'}",
                       "RATELIMIT_ENABLED": False, **config},
                      instance_path=str(folder / "instance"))


def csrf_token(client: FlaskClient) -> str:
    """The session's CSRF token, read from the home page's form as a browser would."""
    found = _CSRF.search(client.get("/").get_data(as_text=True))
    assert found, "the home page has no CSRF token"
    return found.group(1)


def post_form(client: FlaskClient, url: str, data: dict[str, Any], headers: dict[str, str] | None = None
              ) -> TestResponse:
    """POST a form with the session's CSRF token, as the page's own form would."""
    return client.post(url, data={"csrf_token": csrf_token(client), **data}, headers=headers or {})


def page_text(resp: TestResponse | str) -> str:
    """The visible text of a page, tags removed and spaces collapsed."""
    body = resp if isinstance(resp, str) else resp.get_data(as_text=True)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    text = " ".join(html.unescape(_TAGS.sub(" ", body)).split())
    return re.sub(r" ([.,:;!?])", r"\1", text)  # "<strong>2 missed</strong>." reads "2 missed."


def text_of(resp: TestResponse | str, element_id: str) -> str | None:
    """The text of the element with ``id`` (its first line of markup up to the closing tag)."""
    body = resp if isinstance(resp, str) else resp.get_data(as_text=True)
    found = re.search(rf'<(\w+)[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</\1>', body, flags=re.S)
    return page_text(found.group(2)) if found else None


def error_for(resp: TestResponse, field: str) -> str | None:
    """The message shown next to ``field`` (``<p class="field-error" id="FIELD-error">``)."""
    return text_of(resp, f"{field}-error")


def after_seq(resp: TestResponse) -> int:
    """The sequence number a match page's forms say they follow."""
    found = re.search(r'name="after" value="(\d+)"', resp.get_data(as_text=True))
    assert found, "the page has no match form"
    return int(found.group(1))


def count_rows(app: Flask, table: str) -> int:
    """Rows in a table of the app's store (to prove that bad input stored nothing)."""
    engine = sa.create_engine(app.config["DATABASE_URL"])
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()
