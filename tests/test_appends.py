"""Appends on the served app: the cost and answer of an append do not grow with the match, and a
tap is never dropped (an idempotency key names one event).

Each test starts the real server (``python app.py``, waitress on SQLite; gunicorn with several
workers on PostgreSQL) on a database holding one long match, written straight into the tables
(a valid script of ``LONG`` events, as bench/bench_load.py's tables enter them), and one short.
"""

from __future__ import annotations

import json
import random
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_deploy import Http

from bench.bench_append import prefill
from bench.bench_load import Server, free_port, table_script
from store import Store

LONG = 3000
"""Events in the long match: the old append answered about 800 KiB here, and read them all."""
SHORT = 10


@dataclass
class Served:
    """A running server, its database URL, and a long and a short match with their scripts."""

    server: Server
    url: str
    client: Http
    long_id: str
    short_id: str
    script: list[dict[str, object]]


@pytest.fixture(params=["waitress", pytest.param("gunicorn", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    """The app served as the README says, on SQLite (waitress) or PostgreSQL (gunicorn)."""
    if request.param == "waitress":
        url = f"sqlite:///{tmp_path / 'matches.sqlite'}"
    else:
        url = request.getfixturevalue("pg_fresh_url")
    script = table_script(LONG + 20, random.Random(5))
    long_id, short_id = prefill(url, LONG, script), prefill(url, SHORT, script)
    server = Server(request.param, url, tmp_path / "instance", free_port(), 2, tmp_path / "server.log")
    server.start()
    try:
        yield Served(server, url, Http(server.port), long_id, short_id, script)
    finally:
        server.stop()


def append(served: Served, match_id: str, after: int, event: object, key: str | None = None
           ) -> tuple[int, dict[str, object], int]:
    """POST one event; the status, the parsed answer and its size in bytes."""
    body: dict[str, object] = {"after": after, "event": event}
    if key is not None:
        body["idempotency_key"] = key
    status, _, data = served.client.request("POST", f"/api/matches/{match_id}/events",
                                            json.dumps(body).encode(), {"Content-Type": "application/json"})
    return status, json.loads(data), len(data)


def test_an_append_answers_its_state_whatever_the_length(served: Served) -> None:
    sizes, whole_sizes = {}, {}
    for match_id, count in ((served.short_id, SHORT), (served.long_id, LONG)):
        status, answer, size = append(served, match_id, count, served.script[count], key=f"k-{count}")
        assert status == 201 and answer["seq"] == count + 1 and answer["duplicate"] is False
        board = answer["match"]
        assert isinstance(board, dict) and board["seq"] == count + 1 and "history" not in board
        sizes[count] = size
        # The state answered is the one a full read of the match gives.
        status, _, data = served.client.request("GET", f"/api/matches/{match_id}")
        whole = json.loads(data)
        assert status == 200 and whole["state"] == board["state"] and whole["seq"] == count + 1
        whole_sizes[count] = len(data)
    # The answer is the board, not the log: it grows only by the list of games won (a line each),
    # while the whole match (what an append answered before) grows by every event.
    assert sizes[LONG] < 16 * 1024 and sizes[LONG] * 50 < whole_sizes[LONG], (sizes, whole_sizes)
    # A stale append (a phone that missed events) is a 409 with the fresh state, not the log.
    status, answer, size = append(served, served.long_id, LONG - 5, served.script[LONG])
    assert status == 409 and answer["seq"] == LONG + 1 and "stale" in str(answer["error"])
    assert size < 64 * 1024 and "history" not in answer["match"]  # type: ignore[operator]


def test_the_log_is_served_from_a_seq_on(served: Served) -> None:
    status, _, data = served.client.request("GET", f"/api/matches/{served.long_id}?after={LONG - 3}")
    answer = json.loads(data)
    assert status == 200 and answer["seq"] == LONG
    assert answer["events"] == [{"seq": n, "event": served.script[n - 1]} for n in (LONG - 2, LONG - 1, LONG)]
    status, _, data = served.client.request("GET", f"/api/matches/{served.short_id}?after=11")
    assert status == 400 and "bad 'after'" in json.loads(data)["error"]


def test_a_used_key_names_one_event(served: Served) -> None:
    first, other = served.script[SHORT], served.script[SHORT + 1]
    status, answer, _ = append(served, served.short_id, SHORT, first, key="tap-1")
    assert status == 201 and answer["seq"] == SHORT + 1
    # The same event again (keys in another order: the same JSON object) is a retry.
    reordered = dict(reversed(list(first.items())))
    status, answer, _ = append(served, served.short_id, SHORT, reordered, key="tap-1")
    assert status == 200 and answer["duplicate"] is True and answer["seq"] == SHORT + 1
    # Another event under that key is refused, saying nothing was stored; it was not dropped
    # in silence as a duplicate of the first.
    status, answer, _ = append(served, served.short_id, SHORT + 1, other, key="tap-1")
    assert status == 422 and "nothing was stored" in str(answer["error"])
    with Store(served.url) as store:
        assert [e.event for e in store.events(served.short_id, after=SHORT)] == [first]
    # With a key of its own it is stored.
    status, answer, _ = append(served, served.short_id, SHORT + 1, other, key="tap-2")
    assert status == 201 and answer["seq"] == SHORT + 2


def page_form(page: str, form: str) -> dict[str, str]:
    """The hidden fields of one form of a match page, as the browser would send them."""
    found = re.search(rf'<input type="hidden" name="form" value="{form}">', page)
    assert found, f"no {form} form"
    start = page.rfind("<form", 0, found.start())
    end = page.find("</form>", found.end())
    fields = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page[start:end])
    return dict(fields)


def post_page(served: Served, match_id: str, fields: dict[str, str]) -> tuple[int, str]:
    status, _, data = served.client.request(
        "POST", f"/m/{match_id}/events", urllib.parse.urlencode(fields).encode(),
        {"Content-Type": "application/x-www-form-urlencoded"})
    return status, data.decode()


def test_two_taps_from_one_page_are_both_stored_or_the_second_is_explained(served: Served) -> None:
    match_id = served.short_id  # its script stands in the show: a hand's number pad is on screen
    status, _, data = served.client.request("GET", f"/m/{match_id}")
    page = data.decode()
    assert status == 200
    fields = page_form(page, "show")
    # Two buttons of the page's number pad, tapped before the page swapped (or after Back).
    first, second = {**fields, "points": "4"}, {**fields, "points": "6"}
    status, _ = post_page(served, match_id, first)
    assert status == 303
    with Store(served.url) as store:
        counted = store.events(match_id, after=SHORT)
    assert [e.event["points"] for e in counted] == [4]
    status, body = post_page(served, match_id, second)
    assert status == 409  # not a 303 that stored nothing and said nothing
    assert "An earlier tap on this page changed the match first" in body and "Nothing was saved" in body
    # The first tap sent again (a double tap) is not stored twice, and says so too.
    status, body = post_page(served, match_id, first)
    assert status == 409 and "An earlier tap on this page" in body
    # A tap on the fresh page is stored.
    status, _, data = served.client.request("GET", f"/m/{match_id}")
    status, _ = post_page(served, match_id, {**page_form(data.decode(), "crib"), "points": "6"})
    assert status == 303
    with Store(served.url) as store:
        assert [e.event for e in store.events(match_id, after=SHORT)] == [
            counted[0].event, {"type": "crib", "points": 6}]


def test_two_pegging_taps_from_one_page_are_never_dropped_in_silence(served: Served) -> None:
    status, created = served.client.json("POST", "/api/matches",
                                         {"players": ["Ann", "Bob"], "first_dealer": 0})
    assert status == 201
    match_id = str(created["id"])
    status, _, _ = append(served, match_id, 0, {"type": "starter", "card": None})
    assert status == 201
    status, _, data = served.client.request("GET", f"/m/{match_id}")
    fields = page_form(data.decode(), "peg")
    # Bob's 2 and then Ann's 3 tapped on the pegging pad of one page, the second before the
    # page swapped: both are events that fit the match, and they shared the form's key.
    status, _ = post_page(served, match_id, {**fields, "player": "1", "points": "2"})
    assert status == 303
    status, body = post_page(served, match_id, {**fields, "player": "0", "points": "3"})
    assert status == 409 and "An earlier tap on this page changed the match first" in body
    with Store(served.url) as store:
        assert [e.event for e in store.events(match_id)][1:] == [{"type": "peg", "player": 1, "points": 2}]
    # Entered again from the fresh page, it is stored.
    status, _, data = served.client.request("GET", f"/m/{match_id}")
    status, _ = post_page(served, match_id, {**page_form(data.decode(), "peg"), "player": "0", "points": "3"})
    assert status == 303
    with Store(served.url) as store:
        assert [e.event for e in store.events(match_id)][2:] == [{"type": "peg", "player": 0, "points": 3}]
