"""Stored data outlives versions: a database written by b66276b, upgraded by today's store.

``tests/data/db/b66276b.sqlite`` was written by the code of commit b66276b, and
``b66276b.json`` records what that code read back (see the README there). Today's store opens a
copy, applies the migrations, and must find every match, event and replayed state as recorded.
The same rows go into b66276b's schema on PostgreSQL for the same check there, and the
migrations must build exactly the schema the store's metadata declares on both backends.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from b66276b_schema import old_metadata
from web_fixtures import make_app

import store as store_module
from scorer.match import Match
from store import (
    BASELINE_REVISION,
    HEAD_REVISION,
    MIGRATIONS,
    UNPLAYED_MATCH_TTL,
    Store,
    schema_metadata,
    schema_revision,
)

DATA = Path(__file__).parent / "data" / "db"
OLD_DB = DATA / "b66276b.sqlite"
RECORDED: list[dict[str, Any]] = json.loads((DATA / "b66276b.json").read_text(encoding="utf-8"))
HEAD = HEAD_REVISION


def sqlite_copy(tmp_path: Path) -> str:
    """A copy of b66276b's database, as its URL."""
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(OLD_DB, copy)
    return f"sqlite:///{copy}"


def copy_rows_to_postgres(url: str) -> None:
    """b66276b's schema on PostgreSQL (its own ``create_all``), holding the fixture's rows."""
    source = sa.create_engine(f"sqlite:///file:{OLD_DB}?immutable=1&uri=true")
    target = sa.create_engine(url)
    old = old_metadata()
    try:
        with source.connect() as src, target.begin() as dst:
            old.create_all(dst)
            for name in ("matches", "events"):
                table = old.tables[name]
                rows = [dict(r._mapping) for r in src.execute(sa.select(table))]
                dst.execute(table.insert(), rows)
    finally:
        source.dispose()
        target.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database as b66276b left it, on each backend."""
    if request.param == "sqlite":
        return sqlite_copy(tmp_path)
    url: str = request.getfixturevalue("pg_fresh_url")
    copy_rows_to_postgres(url)
    return url


def check_every_match(store: Store) -> None:
    """Each recorded match is found by both links with its settings, events and replayed state."""
    for recorded in RECORDED:
        record = store.get_match(recorded["id"])
        assert record.viewer_id == recorded["viewer_id"]
        assert record.settings == recorded["settings"]
        assert record.created_at == datetime.fromisoformat(recorded["created_at"])
        events = store.events(record.id)
        assert [{"seq": e.seq, "event": e.event, "created_at": e.created_at.isoformat(),
                 "idempotency_key": e.idempotency_key} for e in events] == recorded["events"]
        assert Match(record.settings, [e.event for e in events]).to_json() == recorded["match"]
        linked = store.by_link(recorded["viewer_id"])
        assert (linked.record, linked.scorer, linked.last_seq) == (record, False, len(events))


def test_the_store_knows_the_newest_migration() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION


def test_the_fixture_holds_the_matches_it_claims() -> None:
    # Guard against a fixture that proves little: both sizes of table, cards and numbers, undos,
    # keys and keyless events, a finished game, a match never played.
    players = [len(m["settings"]["players"]) for m in RECORDED]
    events = [e["event"] for m in RECORDED for e in m["events"]]
    assert {2, 3} <= set(players)
    assert any("hand" in e for e in events) and any(e["type"] == "show" and "points" in e for e in events)
    assert any(e["type"] == "void" for e in events) and any(e["type"] == "next_game" for e in events)
    keys = [e["idempotency_key"] for m in RECORDED for e in m["events"]]
    assert None in keys and any(keys)
    assert any(not m["events"] for m in RECORDED)
    with sa.create_engine(f"sqlite:///file:{OLD_DB}?immutable=1&uri=true").connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
    assert tables == {"matches", "events"}  # written before migrations: no alembic_version


def test_an_old_database_is_stamped_upgraded_and_every_match_is_intact(old_url: str) -> None:
    with Store(old_url) as store:
        assert schema_revision(store) is None
        store.create_schema()
        assert schema_revision(store) == HEAD
        check_every_match(store)
        store.create_schema()  # a second start changes nothing
        assert schema_revision(store) == HEAD
        check_every_match(store)
        # And the upgraded match goes on: the next event lands after the recorded ones.
        played = next(m for m in RECORDED if m["events"] and m["match"]["state"]["phase"] == "play")
        last = played["events"][-1]["seq"]
        assert store.append(played["id"], last, {"type": "peg", "player": 0, "points": 1}).seq == last + 1


def test_the_served_app_shows_every_old_match_as_recorded(tmp_path: Path) -> None:
    from test_deploy import Http

    from bench.bench_load import Server, free_port

    url = sqlite_copy(tmp_path)
    # The app prunes, as it starts, the matches never played that are a day old: the fixture's
    # unplayed match once it is (its played ones never are).
    started = datetime.now(UTC)
    server = Server("waitress", url, tmp_path / "instance", free_port(), 1, tmp_path / "server.log")
    server.start()
    try:
        client = Http(server.port)
        for recorded in RECORDED:
            pruned = not recorded["events"] and (
                datetime.fromisoformat(recorded["created_at"]) < started - UNPLAYED_MATCH_TTL)
            for token in (recorded["id"], recorded["viewer_id"]):
                status, answer = client.json("GET", f"/api/matches/{token}", None)
                if pruned:
                    assert status == 404
                    continue
                assert status == 200
                kept = {k: v for k, v in answer.items() if k not in ("seq", "can_write", "lang")}
                assert kept == recorded["match"]
                assert answer["seq"] == len(recorded["events"])
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'new.sqlite'}"
    url: str = request.getfixturevalue("pg_fresh_url")
    return url


def differences(url: str, metadata: sa.MetaData) -> list[Any]:
    """What Alembic's autogenerate finds between the database and ``metadata`` (empty: alike)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def test_the_migrations_build_exactly_the_schema_the_store_declares(empty_url: str) -> None:
    with Store(empty_url) as store:
        store.create_schema()
    assert differences(empty_url, schema_metadata()) == []


def test_the_baseline_is_b66276bs_schema_and_upgrades_to_the_declared_one(empty_url: str) -> None:
    engine = sa.create_engine(empty_url)
    try:
        with engine.begin() as conn:
            command.upgrade(store_module._alembic_config(conn), BASELINE_REVISION)
    finally:
        engine.dispose()
    assert differences(empty_url, old_metadata()) == []
    with Store(empty_url) as store:
        store.create_schema()
        assert schema_revision(store) == HEAD
    assert differences(empty_url, schema_metadata()) == []


def test_an_upgraded_old_database_has_the_declared_schema(old_url: str) -> None:
    assert differences(old_url, old_metadata()) == []  # the fixture is b66276b's schema
    with Store(old_url) as store:
        store.create_schema()
    assert differences(old_url, schema_metadata()) == []
    assert differences(old_url, old_metadata()) != []  # the comparison sees the new index


def test_the_app_upgrades_its_database_at_start(tmp_path: Path) -> None:
    shutil.copyfile(OLD_DB, tmp_path / "test.db")
    app = make_app(tmp_path)
    try:
        assert schema_revision(app.extensions["muggins.store"]) == HEAD
        page = app.test_client().get(f"/m/{RECORDED[0]['viewer_id']}")
        assert page.status_code == 200
    finally:
        app.extensions["muggins.store"].close()


def test_a_database_at_the_previous_revision_gets_groups_with_every_match_intact(old_url: str) -> None:
    # b66276b's matches, brought to 0002 (the revision before groups) by that revision's own
    # migrations, then started by today's store: the groups' tables appear, no match changes.
    engine = sa.create_engine(old_url)
    try:
        with engine.begin() as conn:
            config = store_module._alembic_config(conn)
            command.stamp(config, BASELINE_REVISION)
            command.upgrade(config, "0002_matches_created_at")
            assert "groups" not in sa.inspect(conn).get_table_names()
    finally:
        engine.dispose()
    with Store(old_url) as store:
        assert schema_revision(store) == "0002_matches_created_at"
        store.create_schema()
        assert schema_revision(store) == HEAD
        check_every_match(store)
        # An old match is standalone: in no group. A new group can hold new matches beside it.
        group = store.create_group("Family", ["Ann", "Bob"], {"target": 121})
        made = store.create_group_match(group.id, {"players": ["Ann", "Cat"]})
        assert [m.record.id for m in store.group_matches(group.id)] == [made.id]
        assert store.group_by_link(group.viewer_id).record.roster == ["Ann", "Bob", "Cat"]
        check_every_match(store)
    assert differences(old_url, schema_metadata()) == []


def test_a_database_at_the_groups_revision_gets_uploads_with_every_match_and_group_intact(
    old_url: str,
) -> None:
    # b66276b's matches brought to 0003 (groups) by the migrations of the time, with a group and
    # one of its matches written by the store there; then today's store starts on it.
    engine = sa.create_engine(old_url)
    try:
        with engine.begin() as conn:
            config = store_module._alembic_config(conn)
            command.stamp(config, BASELINE_REVISION)
            command.upgrade(config, "0003_groups")
            assert "uploads" not in sa.inspect(conn).get_table_names()
            conn.execute(sa.text(
                "INSERT INTO groups (id, viewer_id, name, roster, rules, created_at) "
                "VALUES ('g-scorer', 'g-viewer', 'Family', :roster, :rules, :at)"
            ), {"roster": '["Ann","Bob"]', "rules": '{"target":121}',
                "at": datetime.fromisoformat("2026-11-30T20:00:00+00:00")})
            conn.execute(sa.text("INSERT INTO group_matches (match_id, group_id) VALUES (:m, 'g-scorer')"),
                         {"m": RECORDED[0]["id"]})
    finally:
        engine.dispose()
    with Store(old_url) as store:
        assert schema_revision(store) == "0003_groups"
        store.create_schema()
        assert schema_revision(store) == HEAD == "0004_uploads"
        check_every_match(store)
        assert [m.record.id for m in store.group_matches("g-scorer")] == [RECORDED[0]["id"]]
        assert store.group_by_link("g-viewer").record.roster == ["Ann", "Bob"]
        # No match was uploaded before; one can be now, and the list shows it.
        played = next(m for m in RECORDED if m["events"])
        assert store.upload_of(played["id"]) is None
        last = len(played["events"])
        store.record_upload(played["id"], "http://table:8000/m/x", "http://table:8000/m/y", last)
        kept = {k.record.id: k for k in store.recent_matches(100)}
        assert set(kept) == {m["id"] for m in RECORDED}
        upload = kept[played["id"]].upload
        assert upload is not None and (upload.scorer_url, upload.seq) == ("http://table:8000/m/x", last)
        assert kept[played["id"]].last_seq == last
        check_every_match(store)
    assert differences(old_url, schema_metadata()) == []
