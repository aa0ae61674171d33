"""The tables as b66276b's ``store.py`` declared them (``git show b66276b:store.py``), kept to
make that version's database on PostgreSQL, where no file can be committed (test helper)."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["old_metadata"]


def old_metadata() -> sa.MetaData:
    """b66276b's ``_metadata``: ``create_all`` on it makes the schema that version made."""
    metadata = sa.MetaData()
    sa.Table(
        "matches", metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("viewer_id", sa.String(64), nullable=False, unique=True),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    sa.Table(
        "events", metadata,
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("match_id", "idempotency_key", name="uq_events_idempotency_key"),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
    )
    return metadata
