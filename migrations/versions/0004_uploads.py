"""Uploads: where a match kept on a phone was uploaded (the server's links, the seq it reached).

The offline app on a phone runs the same migrations on its own SQLite file; only it writes this
table (a server's stays empty). Only a new table: every stored match and event is left exactly
as it was.

Revision ID: 0004_uploads
Revises: 0003_groups
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_uploads"
down_revision = "0003_groups"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "uploads",
        sa.Column(
            "match_id", sa.String(64), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("scorer_url", sa.Text, nullable=False),
        sa.Column("viewer_url", sa.Text, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("uploads")
