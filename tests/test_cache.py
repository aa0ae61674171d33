"""The hot match paths' caches and the store reads they rely on: one lookup query per link, replays
reused and extended, one board rendering shared by a link's phones, dropped PostgreSQL connections.

Scores are worked by hand: Bob pegging 2, then Ann 3, makes 3–2; undoing Bob's 2 makes 3–0. Where
a cache could serve a stale board, the test also reads it through a second app on the same
database, with caches of its own, as gunicorn's workers have.
"""

from __future__ import annotations

import doctest
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import HX, make_app, text_of

import web.cache
from store import LinkedMatch, MatchNotFound, Store
from web.cache import LRU, Caches, Replayed

SETTINGS = {"players": ["Ann", "Bob"], "first_dealer": 0}
"""Ann deals first: no cut, so the first event is the starter."""
Event = dict[str, object]
STARTER: Event = {"type": "starter", "card": None}
BOB_PEGS_2: Event = {"type": "peg", "player": 1, "points": 2}
ANN_PEGS_3: Event = {"type": "peg", "player": 0, "points": 3}
CRIB_NOW: Event = {"type": "crib", "points": 4}
"""Refused in the play: the crib is counted after every hand."""


# ------------------------------------------------------------------------------ the LRU itself


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(web.cache).failed == 0


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: LRU[str, int] = LRU(3)
    for n, key in enumerate("abc"):
        cache.put(key, n)
    assert cache.get("a") == 0  # "b" is now the oldest
    cache.put("d", 3)
    assert [cache.get(k) for k in "abcd"] == [0, None, 2, 3]
    assert len(cache) == 3


@pytest.mark.parametrize("capacity", [0, -1, True, 2.5])
def test_a_cache_holds_at_least_one_entry(capacity: object) -> None:
    with pytest.raises(ValueError, match="1 entry or more"):
        LRU(capacity)  # type: ignore[arg-type]


def test_many_threads_at_once_never_overfill_it() -> None:
    cache: LRU[tuple[int, int], int] = LRU(50)
    start = threading.Barrier(8)

    def fill(worker: int) -> None:
        start.wait()
        for n in range(2000):
            cache.put((worker, n), n)
            cache.get((worker, n // 2))

    threads = [threading.Thread(target=fill, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50


def test_a_match_cache_never_steps_back_to_an_older_seq() -> None:
    from scorer.match import Match

    caches = Caches(matches=LRU(4), fragments=LRU(4))
    newer, older = Replayed(2, Match(SETTINGS)), Replayed(1, Match(SETTINGS))
    caches.remember("m", newer)
    caches.remember("m", older)  # a slower thread finishing last
    assert caches.matches.get("m") is newer


# ------------------------------------------------------------------------------ one lookup per link


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store with its schema, on each backend in turn."""
    url = f"sqlite:///{tmp_path / 'links.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "pg_fresh_url")
    with Store(url) as opened:
        opened.create_schema()
        yield opened


def test_a_link_finds_its_match_its_kind_and_its_last_seq(store: Store) -> None:
    match = store.create_match(SETTINGS)
    other = store.create_match(SETTINGS)
    store.append(match.id, 0, STARTER)
    store.append(match.id, 1, BOB_PEGS_2)
    assert store.by_link(match.id) == LinkedMatch(match, scorer=True, last_seq=2)
    assert store.by_link(match.viewer_id) == LinkedMatch(match, scorer=False, last_seq=2)
    assert store.by_link(other.viewer_id) == LinkedMatch(other, scorer=False, last_seq=0)


@pytest.mark.parametrize("change", ["swap case", "one char", "prefix", "not a token", "empty"])
def test_a_near_miss_finds_no_match(store: Store, change: str) -> None:
    token = store.create_match(SETTINGS).viewer_id
    near = {"swap case": token.swapcase(), "one char": token[:-1] + ("A" if token[-1] != "A" else "B"),
            "prefix": token[:16], "not a token": token[:-1] + "/", "empty": ""}[change]
    assert near != token
    with pytest.raises(MatchNotFound):
        store.by_link(near)


@pytest.mark.postgres
def test_a_connection_the_server_dropped_is_replaced_not_a_503(pg_fresh_url: str) -> None:
    """No ping before each checkout: a dead pooled connection is found by its first query and
    the transaction runs again on a fresh one, once."""
    name = "muggins-dropped-connection-test"
    url = sa.make_url(pg_fresh_url).update_query_dict({"application_name": name})
    admin = sa.create_engine(pg_fresh_url, isolation_level="AUTOCOMMIT")
    try:
        with Store(url.render_as_string(hide_password=False)) as store:
            store.create_schema()
            match = store.create_match(SETTINGS)  # leaves a connection in the pool
            with admin.connect() as conn:
                dropped = conn.execute(
                    sa.text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE application_name = :name"), {"name": name}).scalar_one()
            assert dropped >= 1
            assert store.append(match.id, 0, STARTER).seq == 1
            assert store.by_link(match.viewer_id).last_seq == 1
    finally:
        admin.dispose()


# ------------------------------------------------------------------------------ the web paths


@pytest.fixture
def two_apps(tmp_path: Path) -> Iterator[tuple[FlaskClient, FlaskClient]]:
    """Two apps on one database, each with its own caches, as gunicorn's workers are."""
    first, second = make_app(tmp_path), make_app(tmp_path)
    yield first.test_client(), second.test_client()
    for application in (first, second):
        application.extensions["muggins.store"].close()


def new_match(client: FlaskClient) -> dict[str, str]:
    created = client.post("/api/matches", json=SETTINGS).get_json()
    return {"scorer": created["id"], "viewer": created["viewer_id"]}


def append(client: FlaskClient, scorer: str, after: int, event: Event) -> tuple[int, object]:
    resp = client.post(f"/api/matches/{scorer}/events", json={"after": after, "event": event})
    return resp.status_code, resp.get_json()


def board(client: FlaskClient, token: str, since: int) -> tuple[int, tuple[str | None, str | None], str]:
    """A phone's poll: status, the two scores shown, and the body."""
    resp = client.get(f"/m/{token}/live", query_string={"since": str(since)}, headers=HX)
    return resp.status_code, (text_of(resp, "score-0"), text_of(resp, "score-1")), resp.get_data(as_text=True)


def test_each_server_sees_the_events_another_stored(two_apps: tuple[FlaskClient, FlaskClient]) -> None:
    one, two = two_apps
    links = new_match(one)
    assert append(one, links["scorer"], 0, STARTER)[0] == 201
    assert board(one, links["viewer"], 0)[:2] == (200, ("0", "0"))  # `one` has replayed seq 1
    assert append(two, links["scorer"], 1, BOB_PEGS_2)[0] == 201
    status, shown, body = board(one, links["viewer"], 1)
    assert (status, shown) == (200, ("0", "2")) and "since=2" in body
    # `one` checks the next event against the match with `two`'s event in it.
    assert append(one, links["scorer"], 1, ANN_PEGS_3)[0] == 409
    status, answer = append(one, links["scorer"], 2, ANN_PEGS_3)
    assert status == 201
    assert isinstance(answer, dict) and answer["match"]["state"]["scores"] == [3, 2]
    assert two.get(f"/api/matches/{links['viewer']}").get_json()["state"]["scores"] == [3, 2]


def test_an_undo_is_a_new_seq_and_the_board_follows_it(two_apps: tuple[FlaskClient, FlaskClient]) -> None:
    one, two = two_apps
    links = new_match(one)
    for after, event in enumerate([STARTER, BOB_PEGS_2, ANN_PEGS_3]):
        assert append(one, links["scorer"], after, event)[0] == 201
    assert board(one, links["viewer"], 0)[1] == ("3", "2")
    assert append(one, links["scorer"], 3, {"type": "void", "seq": 2})[0] == 201
    assert board(one, links["viewer"], 3)[1] == ("3", "0")
    assert board(two, links["viewer"], 3)[1] == ("3", "0")


def test_a_refused_event_leaves_the_match_as_it_was(two_apps: tuple[FlaskClient, FlaskClient]) -> None:
    one, two = two_apps
    links = new_match(one)
    append(one, links["scorer"], 0, STARTER)
    append(one, links["scorer"], 1, BOB_PEGS_2)
    status, answer = append(one, links["scorer"], 2, CRIB_NOW)
    assert status == 400 and isinstance(answer, dict) and "crib" in answer["error"]
    assert board(one, links["viewer"], 2)[0] == 204  # still at seq 2
    status, answer = append(one, links["scorer"], 2, ANN_PEGS_3)
    assert status == 201 and isinstance(answer, dict) and answer["seq"] == 3
    assert answer["match"]["state"]["scores"] == [3, 2]
    assert board(two, links["viewer"], 0)[1] == ("3", "2")


def test_a_scorers_board_is_never_shown_through_the_viewer_link(client: FlaskClient) -> None:
    links = new_match(client)
    append(client, links["scorer"], 0, STARTER)
    _, _, scorer_board = board(client, links["scorer"], 0)  # rendered and kept first
    _, _, viewer_board = board(client, links["viewer"], 0)
    assert 'id="stale-note"' in scorer_board and links["scorer"] in scorer_board
    assert 'id="stale-note"' not in viewer_board and links["scorer"] not in viewer_board
    assert f"/m/{links['viewer']}/live?since=1" in viewer_board


def test_boards_stay_right_when_the_caches_hold_one_entry(tmp_path: Path) -> None:
    app: Flask = make_app(tmp_path, MATCH_CACHE_SIZE=1, FRAGMENT_CACHE_SIZE=1)
    try:
        client = app.test_client()
        first, second = new_match(client), new_match(client)
        for links in (first, second):
            append(client, links["scorer"], 0, STARTER)
        append(client, first["scorer"], 1, BOB_PEGS_2)
        append(client, second["scorer"], 1, ANN_PEGS_3)
        append(client, first["scorer"], 2, ANN_PEGS_3)
        for _ in range(2):  # each poll evicts the other match's replay and board
            assert board(client, first["viewer"], 0)[1] == ("3", "2")
            assert board(client, second["viewer"], 0)[1] == ("3", "0")
    finally:
        app.extensions["muggins.store"].close()
