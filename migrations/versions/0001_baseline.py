"""Baseline: the schema as b66276b's ``create_all`` made it, before migrations existed.

A database made by that code (tables, no ``alembic_version``) is stamped at this revision by
``Store.create_schema`` rather than run through it. Names are left to each database, as
``create_all`` left them, so a stamped database and a migrated one are alike.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("viewer_id", sa.String(64), nullable=False, unique=True),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("match_id", sa.String(64), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("event", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("match_id", "idempotency_key", name="uq_events_idempotency_key"),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("matches")
