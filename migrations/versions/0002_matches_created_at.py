"""Index matches by creation time, so pruning the never-played ones reads only the old ones.

Revision ID: 0002_matches_created_at
Revises: 0001_baseline
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0002_matches_created_at"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_matches_created_at", "matches", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_matches_created_at", table_name="matches")
