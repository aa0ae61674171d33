"""Matches kept on a phone (issue 25): the offline app (``MUGGINS_OFFLINE``) run under the
``/phone`` prefix its engine gives every request, its list of matches, the upload note, and the
whole upload path from a phone's SQLite file to a server's, in CPython with Flask's test client.

The browser's part (``static/js/offline/upload.mjs``) does three requests; the end-to-end test
below makes exactly those, with the values the page's data attributes name, so what the module
is told to call is what is tested here.
"""

from __future__ import annotations

import html
import io
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import segno
from flask import Flask
from flask.testing import FlaskClient
from test_groups import play_random_match
from web_fixtures import count_rows, csrf_token, make_app, page_text, text_of
from werkzeug.test import TestResponse

PHONE = "http://localhost/phone/"
"""The base URL of every request the phone's engine answers (contract 2: SCRIPT_NAME=/phone)."""


class PhoneClient(FlaskClient):
    """A test client whose every request runs under ``/phone``, as the phone's engine runs them
    (a ``base_url`` given to one request still wins)."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        kwargs.setdefault("base_url", PHONE)
        return super().open(*args, **kwargs)


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[Flask]:
    """The offline app on its own SQLite file, as a phone runs it: every request under /phone."""
    folder = tmp_path / "phone"
    folder.mkdir()
    application = make_app(folder, MUGGINS_OFFLINE=True)
    application.test_client_class = PhoneClient
    yield application
    application.extensions["muggins.store"].close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Flask]:
    """The table's server, on another SQLite file."""
    folder = tmp_path / "server"
    folder.mkdir()
    application = make_app(folder)
    yield application
    application.extensions["muggins.store"].close()


def on_phone(client: FlaskClient, method: str, path: str, **kwargs: Any) -> TestResponse:
    """A request as the phone's engine runs it: under ``/phone``."""
    return client.open(path, method=method, base_url=PHONE, **kwargs)


def phone_form(client: FlaskClient, path: str, data: dict[str, Any]) -> TestResponse:
    return on_phone(client, "POST", path, data={"csrf_token": csrf_token(client), **data})


def new_match(client: FlaskClient, players: list[str], events: list[dict[str, Any]] | None = None
              ) -> dict[str, Any]:
    resp = on_phone(client, "POST", "/api/matches", json={"players": players, "first_dealer": 0})
    assert resp.status_code == 201, resp.get_json()
    made: dict[str, Any] = resp.get_json()
    for seq, event in enumerate(events or []):
        resp = on_phone(client, "POST", f"/api/matches/{made['id']}/events",
                        json={"after": seq, "event": event})
        assert resp.status_code == 201, resp.get_json()
    return made


def attr(resp: TestResponse, element_id: str, name: str) -> str | None:
    """An attribute of the element with ``id``."""
    body = resp.get_data(as_text=True)
    tag = re.search(rf'<\w+[^>]*\bid="{re.escape(element_id)}"[^>]*>', body, flags=re.S)
    if tag is None:
        return None
    found = re.search(rf'\b{re.escape(name)}="([^"]*)"', tag.group(0))
    return html.unescape(found.group(1)) if found else None


# Worked by hand from RULES.md: Ann deals and turns the 5D (no heels); Bob leads the 5H and Ann
# lays the TS, fifteen two for Ann.
FIFTEEN_TWO = [{"type": "starter", "card": "5D"}, {"type": "peg", "plays": [[1, "5H"], [0, "TS"]]}]


# ------------------------------------------------------------------------------ the phone's pages


def test_the_phones_match_list_is_its_store_newest_first(phone: Flask) -> None:
    maker = phone.test_client()
    first = new_match(maker, ["Ann", "Bob"], FIFTEEN_TWO)
    second = new_match(maker, ["Cat", "Dan", "Eve"])
    # Another visit (no session in common with the one that made them) still lists both: the
    # list is every match this phone's store keeps, not the matches a cookie remembers.
    page = on_phone(phone.test_client(), "GET", "/matches")
    assert page.status_code == 200
    assert text_of(page, "kept-title") == "Matches on this phone"
    newest, older = text_of(page, "kept-0"), text_of(page, "kept-1")
    assert (newest or "").startswith("Cat v Dan v Eve Cat 0 · Dan 0 · Eve 0 only on this phone")
    assert (older or "").startswith("Ann v Bob Ann 2 · Bob 0 only on this phone")
    body = page.get_data(as_text=True)
    assert f'href="/phone/m/{second["id"]}"' in body and f'href="/phone/m/{first["id"]}"' in body
    assert text_of(page, "recent-title") is None  # the server's session list is not the phone's


def test_the_list_shows_the_newest_and_then_every_match(phone: Flask) -> None:
    from web.matches.phone import PHONE_LIST_LIMIT

    client = phone.test_client()
    for n in range(PHONE_LIST_LIMIT + 1):
        new_match(client, ["Ann", f"Bob{n}"])
    page = on_phone(client, "GET", "/matches")
    assert text_of(page, f"kept-{PHONE_LIST_LIMIT - 1}") is not None
    assert text_of(page, f"kept-{PHONE_LIST_LIMIT}") is None
    assert attr(page, "kept-all", "href") == "/phone/matches?all=1"
    everything = on_phone(client, "GET", "/matches?all=1")
    assert text_of(everything, f"kept-{PHONE_LIST_LIMIT}") is not None  # the oldest, Bob0
    assert (text_of(everything, f"kept-{PHONE_LIST_LIMIT}") or "").startswith("Ann v Bob0")
    assert text_of(everything, "kept-all") is None


def test_an_empty_phone_says_so(phone: Flask) -> None:
    page = on_phone(phone.test_client(), "GET", "/matches")
    assert text_of(page, "kept-none") == "No match on this phone yet: start one here."


def test_a_match_started_by_its_form_lives_under_phone(phone: Flask) -> None:
    client = phone.test_client()
    resp = phone_form(client, "/matches", {
        "name1": "Ann", "name2": "Bob", "target": "121", "preset": "home",
        "length_kind": "best_of", "length_count": "1", "first_dealer": "0",
    })
    assert resp.status_code == 303
    location = resp.headers["Location"]
    assert re.fullmatch(r"/phone/m/[A-Za-z0-9_-]+", location)
    screen = on_phone(client, "GET", location.removeprefix("/phone"))
    assert screen.status_code == 200 and "Ann v Bob" in page_text(screen)


def test_an_unshared_phone_match_offers_the_upload_and_no_local_links(phone: Flask) -> None:
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"], FIFTEEN_TWO)
    screen = on_phone(client, "GET", f"/m/{made['id']}")
    assert screen.status_code == 200
    assert text_of(screen, "upload-title") == "Only on this phone"
    assert text_of(screen, "upload-button") == "Upload to share"
    # What upload.mjs is told to call: the phone's export (its engine, under /phone), the server's
    # import (outside /phone, so the network), the phone's note route.
    assert attr(screen, "phone-upload", "data-upload-export") == f"/phone/api/matches/{made['id']}/export"
    assert attr(screen, "phone-upload", "data-upload-import") == "/api/groups/import"
    assert attr(screen, "upload-form", "action") == f"/phone/m/{made['id']}/uploaded"
    assert attr(screen, "phone-upload", "data-word-offline") == (
        "Uploading needs the connection to the table’s server.")
    assert 'src="/phone/static/js/offline/upload.mjs"' in screen.get_data(as_text=True)
    # The phone's own links would lead nowhere on another phone: none is offered.
    assert text_of(screen, "viewer-link") is None and text_of(screen, "scorer-link") is None
    qr = on_phone(client, "GET", f"/m/{made['id']}/qr.svg")
    assert qr.status_code == 404 and "upload it to share it" in page_text(qr)
    # The viewer link on the phone shows neither (it cannot upload).
    watching = on_phone(client, "GET", f"/m/{made['viewer_id']}")
    assert text_of(watching, "phone-upload") is None and text_of(watching, "phone-shared") is None


def test_the_upload_note_makes_the_screen_share_the_servers_links(phone: Flask) -> None:
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"], FIFTEEN_TWO)
    scorer = f"http://192.168.1.20:8000/m/{made['id']}"
    viewer = f"http://192.168.1.20:8000/m/{made['viewer_id']}"
    resp = phone_form(client, f"/m/{made['id']}/uploaded", {"scorer": scorer, "viewer": viewer, "seq": "2"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/phone/m/{made['id']}"
    screen = on_phone(client, "GET", f"/m/{made['id']}")
    assert text_of(screen, "shared-title") == "Shared: open the table’s link"
    assert attr(screen, "server-link", "href") == scorer
    assert attr(screen, "viewer-link", "href") == viewer
    assert attr(screen, "viewer-link", "data-share-url") == viewer
    assert attr(screen, "scorer-link", "href") == scorer
    assert text_of(screen, "phone-upload") is None and text_of(screen, "unshared") is None
    # The QR codes are of the server's links, not the phone's.
    for which, link in (("viewer", viewer), ("scorer", scorer)):
        qr = on_phone(client, "GET", f"/m/{made['id']}/qr.svg", query_string={"for": which})
        assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"
        expected = io.BytesIO()
        segno.make(link, error="m").save(expected, kind="svg", xmldecl=False, svgns=True, omitsize=True,
                                         scale=4, dark="#000", light="#fff", border=2)
        assert qr.data == expected.getvalue()
    # The phone's viewer link shares only the server's viewer link.
    watching = on_phone(client, "GET", f"/m/{made['viewer_id']}")
    assert attr(watching, "server-link", "href") == viewer and text_of(watching, "scorer-link") is None
    assert scorer not in watching.get_data(as_text=True)
    page = on_phone(client, "GET", "/matches")
    assert (text_of(page, "kept-0") or "").startswith("Ann v Bob Ann 2 · Bob 0 shared")
    # Scoring on after the upload: the screen says the server's copy lacks it.
    resp = on_phone(client, "POST", f"/api/matches/{made['id']}/events",
                    json={"after": 2, "event": {"type": "peg", "player": 1, "points": 1}})
    assert resp.status_code == 201
    screen = on_phone(client, "GET", f"/m/{made['id']}")
    assert text_of(screen, "unshared") == (
        "1 entry made here after the upload is only on this phone: enter it at the table’s link.")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"scorer": ""}, "held no link to this match"),
        ({"scorer": "http://192.168.1.20:8000/m/someone-else"}, "held no link to this match"),
        ({"scorer": "javascript:alert(1)//m/{id}"}, "held no link to this match"),
        ({"scorer": "http://192.168.1.20:8000/m/{id}?x=1"}, "held no link to this match"),
        ({"scorer": "http://192.168.1.20:99999/m/{id}"}, "held no link to this match"),
        ({"scorer": "http://192.168.1.20:8000/m/{viewer}"}, "held no link to this match"),
        ({"viewer": "http://192.168.1.20:8000/m/{id}"}, "held no link to this match"),
        ({"scorer": "http://localhost/phone/m/{id}"}, "this phone's own link"),
        ({"seq": "3"}, "past its last entry"),
        ({"seq": "-1"}, "past its last entry"),
        ({"seq": ""}, "past its last entry"),
    ],
)
def test_a_bad_upload_note_is_refused_and_keeps_nothing(
    phone: Flask, fields: dict[str, str], words: str
) -> None:
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"], FIFTEEN_TWO)
    good = {"scorer": f"http://192.168.1.20:8000/m/{made['id']}",
            "viewer": f"http://192.168.1.20:8000/m/{made['viewer_id']}", "seq": "2"}
    sent = {**good, **{k: v.format(id=made["id"], viewer=made["viewer_id"]) for k, v in fields.items()}}
    resp = phone_form(client, f"/m/{made['id']}/uploaded", sent)
    assert resp.status_code == 422
    message = text_of(resp, "upload-error") or ""
    assert words in message and "nothing was saved" in message
    assert count_rows(phone, "uploads") == 0
    assert text_of(resp, "phone-upload") is not None  # the control again, ready for another try


def test_only_the_scorer_link_on_a_phone_may_note_an_upload(phone: Flask, server: Flask) -> None:
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"])
    fields = {"scorer": f"http://s/m/{made['id']}", "viewer": f"http://s/m/{made['viewer_id']}", "seq": "0"}
    assert phone_form(client, f"/m/{made['viewer_id']}/uploaded", fields).status_code == 403
    # On a server the route is not there at all: a server's matches are not uploaded.
    at_server = server.test_client()
    resp = at_server.post("/api/matches", json={"players": ["Ann", "Bob"]})
    token = resp.get_json()["id"]
    resp = at_server.post(f"/m/{token}/uploaded", data={"csrf_token": csrf_token(at_server), **fields})
    assert resp.status_code == 404
    assert count_rows(phone, "uploads") == 0 and count_rows(server, "uploads") == 0


def test_the_export_under_phone_is_the_same_document(phone: Flask) -> None:
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"], FIFTEEN_TWO)
    under_phone = on_phone(client, "GET", f"/api/matches/{made['id']}/export")
    plain = client.get(f"/api/matches/{made['id']}/export", base_url="http://localhost/")
    assert under_phone.status_code == plain.status_code == 200
    # The document holds ids, never links, so the prefix changes nothing in it; the links the
    # phone's app writes do start with /phone/.
    assert under_phone.data == plain.data and b"/phone" not in under_phone.data
    assert all(link.startswith("http://localhost/phone/") for link in made["links"].values())
    assert under_phone.headers["Content-Disposition"] == plain.headers["Content-Disposition"]


def test_the_phone_never_imports_into_its_own_store(phone: Flask) -> None:
    # The service worker hands POST /api/groups/import to the phone's engine only when the server
    # could not be reached: the answer must say so, not store the match on the phone.
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"], FIFTEEN_TWO)
    text = client.get(f"/api/matches/{made['id']}/export").data
    before = {t: count_rows(phone, t) for t in ("matches", "events", "uploads")}
    for base in (PHONE, "http://localhost/"):
        resp = client.post("/api/groups/import", data=text, content_type="application/json", base_url=base)
        assert resp.status_code == 503
        assert resp.get_json()["error"] == (
            "uploading needs the connection to the table's server: nothing was uploaded; "
            "connect and try again")
    assert {t: count_rows(phone, t) for t in ("matches", "events", "uploads")} == before


# ------------------------------------------------------------------------------ end to end


def test_a_phone_match_uploads_to_the_server_whole_and_a_retry_stores_nothing_twice(
    phone: Flask, server: Flask
) -> None:
    at_phone, at_server = phone.test_client(), server.test_client()
    # A whole match played on the phone through its API, every event kind the game needs, a
    # next game among them when it comes, undos included (the match is in a group on the phone;
    # its own export is the match alone).
    rules = {"target": 61, "length": {"kind": "best_of", "games": 3}}
    group = at_phone.post("/api/groups", json={"name": "Us", "players": ["Ann", "Bob"], "rules": rules})
    group = group.get_json()
    played = play_random_match(at_phone, group["id"], ["Ann", "Bob"], random.Random(11), max_events=160)
    token = at_phone.get(f"/api/groups/{group['id']}").get_json()["matches"][0]["id"]
    assert played.state.game >= 2  # a next game was started on the phone

    # 1. What the page's data attributes name: the export under /phone, the server's import.
    screen = on_phone(at_phone, "GET", f"/m/{token}")
    export_path = attr(screen, "phone-upload", "data-upload-export") or ""
    import_path = attr(screen, "phone-upload", "data-upload-import") or ""
    assert export_path.startswith("/phone/")
    # The engine answers /phone/... with SCRIPT_NAME=/phone and the rest as the path.
    text = at_phone.get(export_path.removeprefix("/phone")).data
    resp = at_server.post(import_path, data=text, content_type="application/json")
    assert resp.status_code == 201, resp.get_json()
    answer = resp.get_json()
    assert answer["matches"] == [token] and answer["links"]["scorer"] == f"http://localhost/m/{token}"

    # 2. The server holds the match as the phone does: the same history, state and stats.
    from_phone = on_phone(at_phone, "GET", f"/api/matches/{token}").get_json()
    from_server = at_server.get(f"/api/matches/{token}").get_json()
    assert from_server == from_phone
    assert len(from_server["history"]) == played.next_seq - 1
    assert {e["type"] for e in from_server["history"]} >= {"starter", "peg", "show", "crib", "next_game"}

    # 3. The phone keeps the server's links; its screen now shares them.
    seq = str(len(json.loads(text)["matches"][0]["events"]))
    form_action = attr(screen, "upload-form", "action") or ""
    links = answer["links"]
    resp = at_phone.post(form_action.removeprefix("/phone"), data={
        "csrf_token": csrf_token(at_phone), "scorer": links["scorer"], "viewer": links["viewer"], "seq": seq})
    assert resp.status_code == 303
    shared = on_phone(at_phone, "GET", f"/m/{token}")
    assert attr(shared, "server-link", "href") == f"http://localhost/m/{token}"
    assert text_of(shared, "unshared") is None

    # 4. A retry (the answer was lost) is 200 with the same answer, and the server still holds
    # one copy: the phone's note is not part of its export, so the bytes sent are the same.
    rows = {t: count_rows(server, t) for t in ("matches", "events")}
    again = at_phone.get(export_path.removeprefix("/phone")).data
    assert again == text
    resp = at_server.post(import_path, data=again, content_type="application/json")
    assert (resp.status_code, resp.get_json()) == (200, answer)
    assert {t: count_rows(server, t) for t in ("matches", "events")} == rows == {
        "matches": 1, "events": played.next_seq - 1}
    assert at_server.get(f"/api/matches/{token}").get_json() == from_phone


# ------------------------------------------------------------------------------ languages


@pytest.mark.parametrize("lang", ["hi", "mr", "tg"])
def test_the_phones_pages_are_in_the_phones_language(phone: Flask, lang: str) -> None:
    from test_i18n import NAMES, words_left

    client = phone.test_client()
    client.set_cookie("lang", lang)
    ann, bob = NAMES[lang]
    unshared = new_match(client, [ann, bob], FIFTEEN_TWO)
    shared = new_match(client, [bob, ann], FIFTEEN_TWO)
    pages = {
        "the upload control": on_phone(client, "GET", f"/m/{unshared['id']}"),
        "a refused note": phone_form(client, f"/m/{unshared['id']}/uploaded",
                                     {"scorer": "", "viewer": "", "seq": "0"}),
        "no QR before the upload": on_phone(client, "GET", f"/m/{unshared['id']}/qr.svg"),
    }
    phone_form(client, f"/m/{shared['id']}/uploaded", {
        "scorer": f"http://192.168.1.20:8000/m/{shared['id']}",
        "viewer": f"http://192.168.1.20:8000/m/{shared['viewer_id']}", "seq": "1"})
    pages["a shared match, one entry behind"] = on_phone(client, "GET", f"/m/{shared['id']}")
    pages["the list"] = on_phone(client, "GET", "/matches")
    for name, resp in pages.items():
        assert words_left(resp.get_data(as_text=True)) == [], name
    assert text_of(pages["the list"], "kept-title") not in (None, "Matches on this phone")
    assert text_of(pages["a shared match, one entry behind"], "unshared")
    # The refusals an upload can meet are in the phone's language too.
    text = client.get(f"/api/matches/{unshared['id']}/export").data
    refusal = client.post("/api/groups/import", data=text, content_type="application/json")
    assert refusal.status_code == 503 and words_left(f"<p>{refusal.get_json()['error']}</p>") == []


def test_the_language_switch_on_a_phone_page_stays_in_the_phones_app(phone: Flask) -> None:
    # The switcher's link and its way back are the phone's addresses: the server's /lang/hi
    # and /m/<id> are not the phone's app, and offline they were an error page.
    client = phone.test_client()
    made = new_match(client, ["Ann", "Bob"])
    screen = on_phone(client, "GET", f"/m/{made['id']}")
    found = re.search(r'<a href="([^"]+)" hreflang="hi"', screen.get_data(as_text=True))
    assert found and found[1] == f"/phone/lang/hi?next=%2Fphone%2Fm%2F{made['id']}"
    chosen = on_phone(client, "GET", found[1].removeprefix("/phone"))
    assert chosen.status_code == 303 and chosen.headers["Location"] == f"/phone/m/{made['id']}"
    again = on_phone(client, "GET", chosen.headers["Location"].removeprefix("/phone"))
    assert again.status_code == 200 and '<html lang="hi"' in again.get_data(as_text=True)
