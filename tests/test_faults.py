"""Faults: kill -9 the served app mid-load and restart it; a locked or read-only store is a clear 503.

The kill tests run the real server (``python app.py`` on SQLite, gunicorn with several workers
on PostgreSQL) under a small version of bench/bench_load.py's load, SIGKILL its whole process
group halfway, and start it again on the same database. Clients retry every append that got no
answer with the same idempotency key. Afterwards every event a client was told was stored must
be in the database exactly once, in its place, and nothing else may be there.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from web_fixtures import make_app, page_text

from bench.bench_load import Options, Result, Server, Table, free_port, run_load

KILL_OPTIONS = Options(tables=6, phones=1, period=0.3, score_rps=0, duration=6.0, warmup=0.0,
                       connections=8, workers=2, seed=7)
"""Six tables entering an event every 0.3 s (about 20 appends a second) for 6 s; killed at 3 s (or
once `ACKS_EACH_SIDE` appends are acknowledged), and on until as many are acknowledged after the
restart."""
KILL_AT_S = 3.0
ACKS_EACH_SIDE = 10
"""Acknowledged appends the kill waits for, and the load goes on for after the restart (however
long a loaded machine takes to start the server again): what the audit needs to prove anything."""
LOCK_TIMEOUT_S = 0.3
"""How long the in-process app waits for a held SQLite lock before answering 503 (seconds)."""


def check_survived_the_kill(result: Result) -> None:
    """Every acknowledged event stored once, acknowledgements on both sides of the kill."""
    assert result.kill_window is not None, "the server was not restarted"
    killed, back = result.kill_window
    audit = result.audit
    assert audit.failed == 0, "an append was never acknowledged, even after the restart"
    assert audit.lost == 0 and audit.doubled == 0 and audit.unexpected == 0
    assert audit.stored == audit.acked
    times, enough = [t for table in result.tables for t in table.acked_at], ACKS_EACH_SIDE
    assert sum(t < killed for t in times) >= enough, "too little load before the kill to prove anything"
    assert sum(t > back for t in times) >= enough, "too little load after the restart to prove anything"


def resend_last_appends(server: Server, tables: list[Table]) -> None:
    """Send each table's last acknowledged append again, as a client whose answer was lost would."""
    server.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        for table in tables:
            index = len(table.acked) - 1
            body = json.dumps({"after": table.acked[index] - 1, "event": table.script[index],
                               "idempotency_key": table.key(index)})
            conn.request("POST", f"/api/matches/{table.match_id}/events", body=body,
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            answer = json.loads(resp.read())
            assert resp.status == 200 and answer["duplicate"] is True
            assert answer["seq"] == table.acked[index]
            # The same retry with the key in the header instead of the body.
            conn.request("POST", f"/api/matches/{table.match_id}/events",
                         body=json.dumps({"after": table.acked[index] - 1, "event": table.script[index]}),
                         headers={"Content-Type": "application/json", "Idempotency-Key": table.key(index)})
            resp = conn.getresponse()
            assert resp.status == 200 and json.loads(resp.read())["seq"] == table.acked[index]
        conn.close()
    finally:
        server.stop()


def test_kill_9_mid_load_loses_and_doubles_nothing_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'matches.sqlite'}"
    server = Server("waitress", url, tmp_path / "instance", free_port(), KILL_OPTIONS.workers,
                    tmp_path / "server.log")
    result = run_load(server, KILL_OPTIONS, kill_at=KILL_AT_S, acks_before_kill=ACKS_EACH_SIDE,
                      acks_after_restart=ACKS_EACH_SIDE)
    check_survived_the_kill(result)
    resend_last_appends(server, result.tables)
    with sqlite3.connect(tmp_path / "matches.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == result.audit.acked


@pytest.mark.postgres
def test_kill_9_of_gunicorn_mid_load_loses_and_doubles_nothing_on_postgres(tmp_path: Path,
                                                                            pg_fresh_url: str) -> None:
    server = Server("gunicorn", pg_fresh_url, tmp_path / "instance", free_port(), KILL_OPTIONS.workers,
                    tmp_path / "server.log")
    result = run_load(server, KILL_OPTIONS, kill_at=KILL_AT_S, acks_before_kill=ACKS_EACH_SIDE,
                      acks_after_restart=ACKS_EACH_SIDE)
    check_survived_the_kill(result)
    resend_last_appends(server, result.tables)
    from store import Store

    with Store(pg_fresh_url) as store:
        assert sum(len(store.events(t.match_id)) for t in result.tables) == result.audit.acked


# ------------------------------------------------------------------------------ locked and read-only


@pytest.fixture
def locked_app(tmp_path: Path) -> Iterator[tuple[Flask, Path]]:
    """An app with a short lock timeout, a match with one event, and the database file's path."""
    app = make_app(tmp_path, TESTING=False, STORE_LOCK_TIMEOUT_S=LOCK_TIMEOUT_S)
    yield app, tmp_path / "test.db"
    app.extensions["muggins.store"].close()


class HeldLock:
    """Another program holding SQLite's write lock (``BEGIN EXCLUSIVE``) until released."""

    def __init__(self, db: Path) -> None:
        self.conn = sqlite3.connect(db, isolation_level=None, timeout=0)
        self.conn.execute("BEGIN EXCLUSIVE")

    def release(self) -> None:
        """Roll back and close: the lock is free again."""
        self.conn.execute("ROLLBACK")
        self.conn.close()


def _rows(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as conn:
        return (conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])


MESSAGE = "cannot take changes just now"
STARTER = {"after": 0, "event": {"type": "starter", "card": None}}
"""A valid first event: refused only because the store cannot take it."""
SETTINGS = {"players": ["Ann", "Bob"], "first_dealer": 0}


def test_a_locked_database_is_a_clear_503_then_recovers(locked_app: tuple[Flask, Path]) -> None:
    app, db = locked_app
    client = app.test_client()
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 0}).get_json()
    scorer = created["id"]
    token = client.get("/matches").get_data(as_text=True).split('name="csrf_token" value="')[1].split('"')[0]
    before = _rows(db)
    lock = HeldLock(db)
    try:
        api = client.post(f"/api/matches/{scorer}/events", json=STARTER)
        assert api.status_code == 503 and MESSAGE in api.get_json()["error"]
        assert api.headers["Retry-After"].isdigit()
        created_while_locked = client.post("/api/matches", json={"players": ["Cat", "Dan"]})
        assert created_while_locked.status_code == 503
        page = client.post(f"/m/{scorer}/events", data={"csrf_token": token, "form": "starter", "op": "skip",
                                                         "after": "0"})
        assert page.status_code == 503 and MESSAGE in page_text(page)
        assert "Traceback" not in page.get_data(as_text=True)
        # Reading goes on while another program writes (WAL): watching phones keep their board.
        assert client.get(f"/api/matches/{scorer}").status_code == 200
        assert client.get(f"/m/{created['viewer_id']}").status_code == 200
    finally:
        lock.release()
    assert _rows(db) == before
    ok = client.post(f"/api/matches/{scorer}/events", json=STARTER)
    assert ok.status_code == 201


def test_a_read_only_database_is_a_clear_503_and_reads_still_work(tmp_path: Path) -> None:
    writable = make_app(tmp_path, TESTING=False)
    scorer = writable.test_client().post("/api/matches", json=SETTINGS).get_json()["id"]
    writable.extensions["muggins.store"].close()
    db = tmp_path / "test.db"
    # As root, file permissions do not stop writes: open the file read-only through SQLite itself.
    app = make_app(tmp_path, TESTING=False, DATABASE_URL=f"sqlite:///file:{db}?mode=ro&uri=true")
    try:
        client = app.test_client()
        assert client.get(f"/api/matches/{scorer}").status_code == 200
        resp = client.post(f"/api/matches/{scorer}/events", json=STARTER)
        assert resp.status_code == 503 and MESSAGE in resp.get_json()["error"]
        assert client.post("/api/matches", json={"players": ["Cat", "Dan"]}).status_code == 503
        assert client.get("/").status_code == 200  # the calculators never need the store
    finally:
        app.extensions["muggins.store"].close()
    assert _rows(db) == (1, 0)


def test_an_app_started_while_the_database_is_locked_serves_503_until_it_is_free(tmp_path: Path) -> None:
    db = tmp_path / "test.db"
    sqlite3.connect(db).close()  # an empty database another program is busy with
    lock = HeldLock(db)
    app = make_app(tmp_path, TESTING=False, STORE_LOCK_TIMEOUT_S=LOCK_TIMEOUT_S)  # no crash at start-up
    try:
        client = app.test_client()
        assert client.get("/").status_code == 200
        resp = client.post("/api/matches", json={"players": ["Ann", "Bob"]})
        assert resp.status_code == 503 and MESSAGE in resp.get_json()["error"]
        assert client.get("/matches").status_code == 503
        lock.release()
        assert client.get("/matches").status_code == 200  # the tables are made now
        assert client.post("/api/matches", json={"players": ["Ann", "Bob"]}).status_code == 201
    finally:
        app.extensions["muggins.store"].close()


def test_an_unreachable_postgres_is_a_503_not_a_crash(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://app@127.0.0.1:{free_port()}/postgres?connect_timeout=2"  # nothing listens
    app = make_app(tmp_path, TESTING=False, DATABASE_URL=url)
    try:
        client = app.test_client()
        resp = client.post("/api/matches", json={"players": ["Ann", "Bob"]})
        assert resp.status_code == 503 and MESSAGE in resp.get_json()["error"]
        assert "127.0.0.1" not in resp.get_data(as_text=True)  # the database's address stays private
        assert client.get("/").status_code == 200
    finally:
        app.extensions["muggins.store"].close()


def test_the_served_app_answers_503_on_a_read_only_store_and_stays_up(tmp_path: Path) -> None:
    db = tmp_path / "matches.sqlite"
    writable = make_app(tmp_path, TESTING=False, DATABASE_URL=f"sqlite:///{db}")
    scorer = writable.test_client().post("/api/matches", json=SETTINGS).get_json()["id"]
    writable.extensions["muggins.store"].close()
    read_only = f"sqlite:///file:{db}?mode=ro&uri=true"
    server = Server("waitress", read_only, tmp_path / "instance", free_port(), 1, tmp_path / "server.log")
    server.start()
    try:
        for _ in range(3):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("POST", f"/api/matches/{scorer}/events",
                         body=json.dumps(STARTER),
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            assert resp.status == 503 and MESSAGE in json.loads(resp.read())["error"]
            conn.close()
        assert server.process is not None and server.process.poll() is None
    finally:
        server.stop()
