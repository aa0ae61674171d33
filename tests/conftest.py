"""Shared pytest fixtures. Each area keeps its fixtures in its own section below."""

from __future__ import annotations

# =============================================================================================
# PostgreSQL (store, issue 3): one throwaway server per test session, an empty schema per test.
# =============================================================================================
import os
import secrets
from collections.abc import Iterator

import pg
import pytest
import sqlalchemy as sa

_CI_FALSE_VALUES = ("", "0", "false", "no")


def _under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in _CI_FALSE_VALUES


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """URL of a throwaway PostgreSQL server for this session (its ``postgres`` database).

    Skips when this machine has no PostgreSQL binaries, except under CI (``CI`` set), where a
    missing server is a failure: CI must never pass by skipping the PostgreSQL tests.
    """
    try:
        server = pg.start_postgres()
    except pg.PostgresUnavailable as exc:
        if _under_ci():
            pytest.fail(f"PostgreSQL is required under CI: {exc}")
        pytest.skip(f"PostgreSQL is not installed here: {exc}")
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def pg_fresh_url(pg_url: str) -> Iterator[str]:
    """URL whose connections see only a new, empty schema of their own (dropped afterwards).

    A schema per test is much faster than ``CREATE DATABASE`` and just as isolated: the URL
    sets ``search_path`` for every connection, including those of subprocesses given the URL.
    """
    schema = f"test_{secrets.token_hex(8)}"
    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
        url = sa.make_url(pg_url).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
    finally:
        admin.dispose()


# =============================================================================================
# Web (issue 4): the app on a temporary SQLite store and instance folder per test.
# Helpers live in tests/web_fixtures.py; browser fixtures in tests/e2e/conftest.py.
# =============================================================================================
from pathlib import Path  # noqa: E402  (this section's own imports)

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402


@pytest.fixture
def web_app(tmp_path: Path) -> Iterator[Flask]:
    """The app with CSRF on, its store and secret key in ``tmp_path``."""
    from web_fixtures import make_app

    application = make_app(tmp_path)
    yield application
    application.extensions["muggins.store"].close()


@pytest.fixture
def client(web_app: Flask) -> FlaskClient:
    """A test client of ``web_app`` (keeps its session cookie between requests)."""
    return web_app.test_client()
