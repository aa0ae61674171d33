"""Groups: the regulars at a table, their house rules, their matches, and a cache of what each
match adds to the group's records.

Only new tables: every stored match and event is left exactly as it was, and a standalone match
is simply one in no group.

Revision ID: 0003_groups
Revises: 0002_matches_created_at
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_groups"
down_revision = "0002_matches_created_at"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "groups",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("viewer_id", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("roster", sa.Text, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "group_matches",
        sa.Column(
            "match_id", sa.String(64), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("group_id", sa.String(64), sa.ForeignKey("groups.id"), nullable=False),
    )
    op.create_index("ix_group_matches_group_id", "group_matches", ["group_id"])
    op.create_table(
        "match_summaries",
        sa.Column(
            "match_id", sa.String(64), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_summaries")
    op.drop_index("ix_group_matches_group_id", table_name="group_matches")
    op.drop_table("group_matches")
    op.drop_table("groups")
