"""Uploading a match kept on a phone: ``POST /api/groups/import`` of a match's export is safe to
retry (contract 5 of issue 25).

A phone that lost the answer to its upload sends the same export again: the server must answer
200 with the same ids and links and store nothing twice. A different export under ids already
stored (the phone scored on after uploading) is refused, 409, nothing stored. Both on SQLite and
on the PostgreSQL server the tests start.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import make_app

TABLES = ("groups", "group_matches", "matches", "events")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flask]:
    """The table's server on each backend."""
    folder = tmp_path / "server"
    folder.mkdir()
    url = f"sqlite:///{folder / 'server.db'}"
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_fresh_url")
    application = make_app(folder, DATABASE_URL=url)
    yield application
    application.extensions["muggins.store"].close()


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[Flask]:
    """Another Muggins on its own SQLite file, where the match is played."""
    folder = tmp_path / "phone"
    folder.mkdir()
    application = make_app(folder)
    yield application
    application.extensions["muggins.store"].close()


def api(client: FlaskClient, method: str, url: str, body: object = None) -> tuple[int, Any]:
    resp = client.open(url, method=method, json=body) if body is not None else client.open(url, method=method)
    return resp.status_code, resp.get_json(silent=True)


# Worked by hand from RULES.md: Ann deals and turns the 5D (no heels). Bob, the pone, leads the
# 5H and Ann lays the TS: fifteen two for Ann. Then Ann pegs 1 more by number: Ann 3, Bob 0.
EVENTS: list[dict[str, Any]] = [
    {"type": "starter", "card": "5D"},
    {"type": "peg", "plays": [[1, "5H"], [0, "TS"]]},
    {"type": "peg", "player": 0, "points": 1},
]


def play(client: FlaskClient, events: list[dict[str, Any]]) -> str:
    """A match of Ann and Bob (Ann deals) with ``events`` appended, each with its own key; its id."""
    status, made = api(client, "POST", "/api/matches", {"players": ["Ann", "Bob"], "first_dealer": 0})
    assert status == 201, made
    for seq, event in enumerate(events):
        status, answer = api(client, "POST", f"/api/matches/{made['id']}/events",
                             {"after": seq, "event": event, "idempotency_key": f"key-{seq + 1}"})
        assert status == 201, answer
    return str(made["id"])


def rows(app: Flask) -> dict[str, int]:
    engine = sa.create_engine(app.config["DATABASE_URL"])
    try:
        with engine.connect() as conn:
            return {t: int(conn.execute(sa.text(f"SELECT COUNT(*) FROM {t}")).scalar_one()) for t in TABLES}
    finally:
        engine.dispose()


def upload(client: FlaskClient, text: bytes) -> tuple[int, Any]:
    resp = client.post("/api/groups/import", data=text, content_type="application/json")
    return resp.status_code, resp.get_json()


def test_a_first_upload_answers_201_with_the_matchs_links(server: Flask, phone: Flask) -> None:
    match_id = play(phone.test_client(), EVENTS)
    text = phone.test_client().get(f"/api/matches/{match_id}/export").data
    viewer_id = json.loads(text)["matches"][0]["viewer_id"]
    status, answer = upload(server.test_client(), text)
    assert status == 201, answer
    assert answer == {
        "kind": "match",
        "matches": [match_id],
        "links": {
            "scorer": f"http://localhost/m/{match_id}",
            "viewer": f"http://localhost/m/{viewer_id}",
            "api": f"http://localhost/api/matches/{match_id}",
        },
    }
    # The links lead to the match on the server, as the phone scored it: Ann pegged 2 + 1.
    page = server.test_client().get(answer["links"]["scorer"])
    assert page.status_code == 200
    assert api(server.test_client(), "GET", f"/api/matches/{match_id}")[1]["state"]["scores"] == [3, 0]


def test_the_same_upload_again_is_200_and_stores_nothing_twice(server: Flask, phone: Flask) -> None:
    match_id = play(phone.test_client(), EVENTS)
    text = phone.test_client().get(f"/api/matches/{match_id}/export").data
    client = server.test_client()
    first_status, first = upload(client, text)
    assert first_status == 201
    after_first = rows(server)
    assert after_first["matches"] == 1 and after_first["events"] == len(EVENTS)
    for _ in range(2):  # the answer was lost, twice
        status, again = upload(client, text)
        assert (status, again) == (200, first)
    assert rows(server) == after_first
    assert client.get(f"/api/matches/{match_id}/export").data == text


def test_the_same_ids_with_one_more_event_are_refused_and_change_nothing(server: Flask, phone: Flask) -> None:
    phone_client = phone.test_client()
    match_id = play(phone_client, EVENTS)
    first = phone_client.get(f"/api/matches/{match_id}/export").data
    assert upload(server.test_client(), first)[0] == 201
    # The phone scores on after uploading, then uploads again.
    status, _answer = api(phone_client, "POST", f"/api/matches/{match_id}/events",
                          {"after": len(EVENTS), "event": {"type": "peg", "player": 1, "points": 2},
                           "idempotency_key": "key-4"})
    assert status == 201
    longer = phone_client.get(f"/api/matches/{match_id}/export").data
    before = rows(server)
    status, answer = upload(server.test_client(), longer)
    assert status == 409
    message = answer["error"]
    assert "\n" not in message and "nothing was imported" in message
    assert "3 events here, 4 in the upload" in message  # how the two differ
    assert message.endswith(f"carry on scoring it at its link here, http://localhost/m/{match_id}")
    assert rows(server) == before
    assert server.test_client().get(f"/api/matches/{match_id}/export").data == first


@pytest.mark.parametrize(
    ("what", "edit"),
    [
        ("an idempotency key", lambda d: d["matches"][0]["events"][1].update(idempotency_key="other")),
        ("an event's time", lambda d: d["matches"][0]["events"][0].update(
            created_at=d["matches"][0]["events"][0]["created_at"].replace("+00:00", "+01:00"))),
        ("the viewer id", lambda d: d["matches"][0].update(viewer_id="x" * 32)),
        ("the settings", lambda d: d["matches"][0]["settings"].update(players=["Ann", "Rob"])),
    ],
)
def test_a_different_export_under_a_stored_id_is_refused(
    server: Flask, phone: Flask, what: str, edit: Any
) -> None:
    from web.groups.exchange import export_text

    match_id = play(phone.test_client(), EVENTS)
    text = phone.test_client().get(f"/api/matches/{match_id}/export").data
    assert upload(server.test_client(), text)[0] == 201
    doc = json.loads(text)
    doc.pop("sha256")
    edit(doc)
    before = rows(server)
    status, answer = upload(server.test_client(), export_text(doc).encode())
    assert status == 409, (what, answer)
    assert "nothing was imported" in answer["error"]
    assert rows(server) == before
    assert server.test_client().get(f"/api/matches/{match_id}/export").data == text


def test_the_same_instant_written_in_another_zone_is_the_same_upload(server: Flask, phone: Flask) -> None:
    # An export is compared as the instants it names: 10:00+00:00 and 11:00+01:00 are one moment,
    # so a copy that wrote its times in another zone is still the stored match.
    from datetime import datetime, timedelta, timezone

    from web.groups.exchange import export_text

    match_id = play(phone.test_client(), EVENTS)
    text = phone.test_client().get(f"/api/matches/{match_id}/export").data
    assert upload(server.test_client(), text)[0] == 201
    doc = json.loads(text)
    doc.pop("sha256")
    for event in doc["matches"][0]["events"]:
        moment = datetime.fromisoformat(event["created_at"])
        event["created_at"] = moment.astimezone(timezone(timedelta(hours=5, minutes=30))).isoformat()
    before = rows(server)
    assert upload(server.test_client(), export_text(doc).encode())[0] == 200
    assert rows(server) == before


def test_a_groups_export_stored_already_is_still_refused(server: Flask) -> None:
    # Only a match's export is retried by phones; a group's import over its own ids stays a 409.
    client = server.test_client()
    status, group = api(client, "POST", "/api/groups", {"name": "Family", "players": ["Ann", "Bob"]})
    assert status == 201
    text = client.get(f"/api/groups/{group['id']}/export").data
    status, answer = upload(client, text)
    assert status == 409 and "already here" in answer["error"]


@pytest.mark.postgres
def test_two_uploads_of_one_match_at_once_store_it_once(
    pg_fresh_url: str, tmp_path: Path, phone: Flask
) -> None:
    # A phone that timed out sends its upload again while the first is still being stored. On
    # PostgreSQL both requests can find the ids free before either inserts; the second insert
    # then meets the first's rows. It must answer as a retry does (200, the same links), not fail.
    import threading
    import time

    server = make_app(tmp_path, DATABASE_URL=pg_fresh_url)
    engine = sa.create_engine(pg_fresh_url)
    try:
        match_id = play(phone.test_client(), EVENTS)
        text = phone.test_client().get(f"/api/matches/{match_id}/export").data
        answers: list[tuple[int, Any]] = []
        threads = [
            threading.Thread(target=lambda: answers.append(upload(server.test_client(), text)))
            for _ in range(2)
        ]
        waiting = sa.text(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query ILIKE 'INSERT INTO matches%'"
        )
        with engine.connect() as holder, engine.connect() as watcher:
            # SHARE mode lets both requests read (their checks find nothing) but holds back their
            # inserts until it is let go: both checks pass before either insert runs.
            holder.execute(sa.text("LOCK TABLE matches IN SHARE MODE"))
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + 60
            while not (both := watcher.execute(waiting).scalar_one() >= 2) and time.monotonic() < deadline:
                watcher.rollback()  # a transaction sees one snapshot of pg_stat_activity
                time.sleep(0.05)
            holder.rollback()
        for thread in threads:
            thread.join(60)
        assert both, "the two uploads never both reached their inserts"
        assert sorted(status for status, _ in answers) == [200, 201], answers
        assert answers[0][1] == answers[1][1]
        assert rows(server) == {"groups": 0, "group_matches": 0, "matches": 1, "events": len(EVENTS)}
        assert server.test_client().get(f"/api/matches/{match_id}/export").data == text
    finally:
        engine.dispose()
        server.extensions["muggins.store"].close()
