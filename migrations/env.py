"""Alembic's environment: run the migrations on the connection ``store.Store`` hands over.

``Store.create_schema`` runs ``upgrade head`` on a connection already inside its own write
transaction (SQLite's write lock, PostgreSQL's advisory lock), so the migrations join that
transaction and commit or roll back with it. From the command line
(``.venv/bin/alembic -x url=sqlite:///instance/muggins.sqlite history``, or ``DATABASE_URL``)
they connect themselves; ``revision --autogenerate`` compares against the store's metadata.
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context

from store import schema_metadata

config = context.config
target_metadata = schema_metadata()


def run() -> None:
    """Run the migrations online, on the given connection or one made from the URL."""
    given = config.attributes.get("connection")
    if given is not None:
        context.configure(connection=given, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("give the database: -x url=sqlite:///path or DATABASE_URL")
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported: run them on a database")
run()
