"""The phone's offline app (``create_app({"MUGGINS_OFFLINE": True, ...})``) in CPython.

The same app runs in the browser under Pyodide (tests/e2e/test_offline_engine.py), where numpy,
OpenCV and Pillow do not exist: here a fresh interpreter proves that building the offline app and
answering every page it serves imports none of them; that the count page, the pegging calculator
and the JSON API answer byte for byte what the server answers, for every hand-worked known answer
in tests/data/ (and that those answers are the hand-worked ones); and that the photo and the throw
advisor say, in the player's language, that they need the server.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from known_answers import plays, shows
from web_fixtures import HX, make_app, page_text, post_form

from app import create_app
from scorer.cards import parse_cards

ROOT = Path(__file__).resolve().parent.parent
_CSRF = re.compile(r"(csrf_token\" value=\"|X-CSRFToken&#34;: &#34;)[^\"&]+")


def offline_app(folder: Path) -> Flask:
    return create_app({"MUGGINS_OFFLINE": True, "DATABASE_URL": f"sqlite:///{folder / 'phone.db'}",
                       "SECRET_KEY": "phone"}, instance_path=str(folder / "phone"))


@pytest.fixture()
def clients(tmp_path: Path) -> tuple[FlaskClient, FlaskClient]:
    return make_app(tmp_path).test_client(), offline_app(tmp_path).test_client()


def _same_page(server: bytes, phone: bytes) -> None:
    """Pages are equal but for the session's form token (random; the phone's forms carry one too)."""
    assert _CSRF.sub(r"\1TOKEN", server.decode()) == _CSRF.sub(r"\1TOKEN", phone.decode())


def test_offline_app_imports_no_numpy_opencv_or_pillow(tmp_path: Path) -> None:
    script = f"""
import sys
from app import create_app
from scorer.cards import parse_cards
app = create_app({{"MUGGINS_OFFLINE": True, "DATABASE_URL": "sqlite:///{tmp_path / 'p.db'}",
                  "SECRET_KEY": "k"}}, instance_path="{tmp_path / 'i'}")
c = app.test_client()
answers = [
    c.get("/").status_code, c.post("/count", data={{"cards": "5H 5C 5S JD 5D", "op": "count"}}).status_code,
    c.get("/hand/5H-5C-5S-JD/5D").status_code, c.get("/peg?plays=A:5H+B:TS").status_code,
    c.post("/api/score", json={{"hand": "5H 5C 5S JD", "starter": "5D", "lang": "hi"}}).status_code,
    c.post("/api/peg", json={{"plays": "A:5H B:TS"}}).status_code, c.get("/discard").status_code,
    c.post("/photo").status_code, c.post("/api/discard", json={{"cards": "5H 5C 5S JD 2C 9D"}}).status_code,
    c.get("/matches").status_code, c.get("/groups").status_code,
]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "cv2", "PIL", "pillow_heif", "vision")
                or m in ("scorer.discard", "scorer.tables", "resource"))
print(answers, loaded)
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[200, 303, 200, 200, 200, 200, 503, 503, 503, 200, 200] []"


def test_api_score_answers_every_known_show_as_the_server(clients: tuple[FlaskClient, FlaskClient]) -> None:
    server, phone = clients
    for known in shows():
        for lang in ("en", "mr"):
            body = {**known.body, "lang": lang}
            ours, theirs = server.post("/api/score", json=body), phone.post("/api/score", json=body)
            assert (theirs.status_code, theirs.data) == (ours.status_code, ours.data), known.where
            assert json.loads(theirs.data)["total"] == known.total, known.where


def test_api_peg_answers_every_known_play_as_the_server(clients: tuple[FlaskClient, FlaskClient]) -> None:
    server, phone = clients
    for known in plays():
        ours, theirs = server.post("/api/peg", json=known.body), phone.post("/api/peg", json=known.body)
        assert (theirs.status_code, theirs.data) == (ours.status_code, ours.data), known.where
        assert json.loads(theirs.data)["points"] == known.points, known.where


def test_bad_api_input_gets_the_same_one_line_answer(clients: tuple[FlaskClient, FlaskClient]) -> None:
    server, phone = clients
    for url, body in (("/api/score", {"hand": "5H 5C 5S ZZ", "starter": "5D"}), ("/api/peg", {"plays": 3}),
                      ("/api/score", [1, 2])):
        ours, theirs = server.post(url, json=body), phone.post(url, json=body)
        assert ours.status_code == 400
        assert (theirs.status_code, theirs.data) == (ours.status_code, ours.data)


def test_count_pages_are_the_servers(clients: tuple[FlaskClient, FlaskClient]) -> None:
    server, phone = clients
    for known in shows():
        kind = "crib" if known.body["crib"] else "hand"
        hand = "-".join(map(str, parse_cards(known.body["hand"])))  # the permalink's own notation
        url = f"/{kind}/{hand}/{parse_cards(known.body['starter'])[0]}"
        ours, theirs = server.get(url), phone.get(url)
        assert ours.status_code == theirs.status_code == 200, known.where
        _same_page(ours.data, theirs.data)
        assert f"{known.total} points" in page_text(theirs) or str(known.total) in page_text(theirs)
    # The form's own steps, plain and htmx: a tap, a typed count, a mistake.
    for form in ({"cards": "5H 5C", "tap": "5S"}, {"cards": "5H 5C 5S JD 5D", "op": "count", "kind": "crib"},
                 {"cards": "5H 5C 5S", "op": "count"}, {"cards": "5H 5C 5S JD 5D", "tap": "2C"}):
        for headers in ({}, HX):
            ours = post_form(server, "/count", form, headers)
            theirs = phone.post("/count", data=form, headers=headers)
            for name in ("Location", "HX-Push-Url", "HX-Replace-Url"):
                assert theirs.headers.get(name) == ours.headers.get(name)
            assert theirs.status_code == ours.status_code
            _same_page(ours.data, theirs.data)


def test_pegging_pages_are_the_servers(clients: tuple[FlaskClient, FlaskClient]) -> None:
    server, phone = clients
    shown = 0
    for known in plays():
        players = len({p.split(":")[0] for p in known.body["plays"].split()})
        url = f"/peg?players={players}&plays={known.body['plays'].replace(' ', '+')}&done=1"
        ours, theirs = server.get(url), phone.get(url)
        assert ours.status_code == theirs.status_code, known.where  # some name seats the page has not
        shown += ours.status_code == 200
        _same_page(ours.data, theirs.data)
    assert shown >= len(plays()) // 2
    for form in ({"players": "2", "plays": "A:5H", "who": "B", "tap": "TS"}, {"players": "2", "tap": "ZZ"}):
        for headers in ({}, HX):
            ours = post_form(server, "/peg", form, headers)
            theirs = phone.post("/peg", data=form, headers=headers)
            assert (theirs.status_code, theirs.headers.get("Location")) == \
                (ours.status_code, ours.headers.get("Location"))
            _same_page(ours.data, theirs.data)


def test_the_phone_posts_forms_without_a_token(tmp_path: Path) -> None:
    """No CSRF on the phone: its app is reachable only from its own pages, through the worker."""
    phone = offline_app(tmp_path).test_client()
    resp = phone.post("/count", data={"cards": "5H 5C 5S JD 5D", "op": "count"})
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/hand/5H-5C-5S-JD/5D"


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_photo_and_throw_advisor_need_the_server(tmp_path: Path, lang: str) -> None:
    phone = offline_app(tmp_path).test_client()
    phone.set_cookie("lang", lang)
    words = {"en": "needs the Muggins server", "hi": "Muggins सर्वर"}[lang]
    for resp in (phone.get("/discard"), phone.post("/discard", data={"cards": "5H"}), phone.post("/photo"),
                 phone.post("/photo/cards", data={})):
        assert resp.status_code == 503
        assert words in page_text(resp)
    # htmx taps get the message in the page's main part (a 503 would not be swapped in at all).
    resp = phone.post("/discard", data={"cards": "5H", "tap": "5C"}, headers=HX)
    assert (resp.status_code, resp.headers["HX-Retarget"]) == (200, "#main")
    assert words in page_text(resp)
    for url, body in (("/api/discard", {"cards": "5H 5C 5S JD 2C 9D", "lang": lang}),):
        resp = phone.post(url, json=body)
        assert resp.status_code == 503
        assert words in resp.get_json()["error"]
    resp = phone.post("/api/recognise", data={"image": (b"", "x.jpg")})
    assert resp.status_code == 503


def test_the_server_still_reads_photos_and_ranks_throws(tmp_path: Path) -> None:
    server = make_app(tmp_path).test_client()
    resp = server.post("/api/discard", json={"cards": "5H 5C 5S JD 2C 9D"})
    assert resp.status_code == 200
    assert resp.get_json()["options"][0]["keep"]
    assert server.get("/discard").status_code == 200
