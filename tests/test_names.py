"""Player names that show nothing, or turn the text around them, are refused for a new match.

A name of zero-width spaces (U+200B) or Hangul fillers (U+3164) draws nothing on the board, so
nobody at the table can tell whose score is whose; a right-to-left override (U+202E) makes the
score line after the name read backwards ("Ann 12" beside "boB" can show as "21 nnA"). Names
stored before this check was made still load: only a new match's names are judged.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import count_rows, error_for, post_form

from bench.bench_load import Server, free_port
from scorer.errors import MatchError
from scorer.match import Match, Settings, new_match_settings

NEW_FORM = {"name1": "Ann", "name2": "Bob", "target": "121", "preset": "home", "length_kind": "best_of",
            "length_count": "1", "first_dealer": "0", "muggins": "off"}

BAD_NAMES = [
    ("\u200b\u200b", "player 2 needs a name that shows on screen: '\\u200b\\u200b' has no visible letter"),
    ("\u3164", "player 2 needs a name that shows on screen: '\\u3164' has no visible letter"),
    ("\u200b \u2800\u200d", "player 2 needs a name that shows on screen"),
    ("Bob\u202e", "player 2's name holds a text-direction control (U+202E): remove it"),
    ("\u2067Bob\u2069", "player 2's name holds a text-direction control (U+2067): remove it"),
]


@pytest.mark.parametrize(("name", "message"), BAD_NAMES)
def test_the_engine_refuses_a_name_that_shows_nothing_or_turns_the_text(name: str, message: str) -> None:
    with pytest.raises(MatchError) as info:
        new_match_settings(["Ann", name])
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("name", ["Zoë", "José", "अनिल", "Анна", "李", "O'Neil", "Ann-Marie", "زهرا"])
def test_names_in_any_script_are_welcome(name: str) -> None:
    assert new_match_settings(["Ann", name])["players"] == ["Ann", name]


@pytest.mark.parametrize(("name", "message"), BAD_NAMES)
def test_the_api_refuses_them_and_stores_nothing(
    web_app: Flask, client: FlaskClient, name: str, message: str
) -> None:
    resp = client.post("/api/matches", json={"players": ["Ann", name]})
    assert resp.status_code == 400
    assert resp.get_json()["error"].startswith(message)
    assert count_rows(web_app, "matches") == 0


@pytest.mark.parametrize(("name", "message"), BAD_NAMES[:2] + BAD_NAMES[3:4])
def test_the_new_match_form_refuses_them_and_stores_nothing(
    web_app: Flask, client: FlaskClient, name: str, message: str
) -> None:
    resp = post_form(client, "/matches", {**NEW_FORM, "name2": name})
    assert resp.status_code == 422
    shown = error_for(resp, "names") or ""
    assert shown.lower().startswith(message.split(":")[0].lower()), shown
    assert count_rows(web_app, "matches") == 0


def test_a_match_stored_with_such_a_name_before_the_check_still_loads() -> None:
    stored = new_match_settings(["Ann", "Bob"], first_dealer=0)
    stored["players"] = ["Ann", "\u200bBob\u202e"]  # written by an older version
    match = Match(Settings.from_json(stored), [{"type": "starter", "card": "5D"}])
    assert match.settings.players == ("Ann", "\u200bBob\u202e")
    assert match.state.starter == "5D"


def test_the_served_app_refuses_them_and_keeps_serving(tmp_path: Path) -> None:
    # python app.py (waitress, SQLite), as a table runs it: each bad name is a 400 naming it,
    # and a good match is made after them.
    database = f"sqlite:///{tmp_path / 'served.sqlite'}"
    server = Server("waitress", database, tmp_path / "instance", free_port(), 1, tmp_path / "server.log")
    server.start()
    try:
        def create(players: list[str]) -> tuple[int, dict[str, object]]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                conn.request("POST", "/api/matches", body=json.dumps({"players": players}),
                             headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                return resp.status, json.loads(resp.read())
            finally:
                conn.close()

        for name, message in BAD_NAMES:
            status, answer = create(["Ann", name])
            assert status == 400 and str(answer["error"]).startswith(message)
        status, answer = create(["Ann", "Bob"])
        assert status == 201 and answer["id"]
    finally:
        server.stop()
