"""The JSON API: the CLI's answers, one-line errors, match endpoints, viewer links, stale appends."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import count_rows

from scorer.cli import main as cli


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    """What ``python -m scorer ... --json`` prints, parsed."""
    assert cli([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_score_is_the_clis_json(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    resp = client.post("/api/score", json={"hand": "5H 5C 5S JD", "starter": "5D", "crib": False})
    assert resp.status_code == 200
    assert resp.get_json()["total"] == 29
    assert resp.get_json() == cli_json(capsys, "show", "5H", "5C", "5S", "JD", "5D")


def test_crib_flag_is_honoured(client: FlaskClient) -> None:
    resp = client.post("/api/score", json={"hand": ["2H", "4H", "6H", "8H"], "starter": "KC", "crib": True})
    body = resp.get_json()
    assert (body["total"], body["items"], body["lang"]) == (0, [], "en")
    # docs/RULES.md: a crib flush needs the starter too; the ruling says so, then "nineteen".
    assert body["spoken"] == "nineteen: no score"
    assert [note.split(":")[0] for note in body["rulings"]] == ["Crib flush", "Nineteen"]


def test_peg_is_the_clis_json(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    plays = "A:4S B:6H A:5D B:3C A:4D"
    resp = client.post("/api/peg", json={"plays": plays})
    assert resp.get_json()["points"] == {"A": 2 + 3 + 4 + 1, "B": 4}
    assert resp.get_json() == cli_json(capsys, "peg", *plays.split())


def test_discard_is_the_clis_json(client: FlaskClient, capsys: pytest.CaptureFixture[str]) -> None:
    resp = client.post("/api/discard", json={"cards": "5H 5C 5S JD 2C 9D", "players": 2, "dealer": True})
    body = resp.get_json()
    assert len(body["options"]) == 15
    assert body["options"][0]["hand"]["min"] == 14
    assert body == cli_json(capsys, "discard", "5H", "5C", "5S", "JD", "2C", "9D", "--dealer")


@pytest.mark.parametrize(
    ("url", "payload", "message"),
    [
        ("/api/score", {"hand": "5H 5C 5S ZZ", "starter": "5D"}, "bad card 'ZZ' at position 4"),
        ("/api/score", {"hand": "5H 5C 5S JD", "starter": "5H"}, "duplicate card '5H'"),
        ("/api/score", {"starter": "5D"}, "missing 'hand'"),
        ("/api/score", {"hand": "5H 5C 5S JD", "starter": "5D", "crib": "yes"}, "bad 'crib'"),
        ("/api/score", ["5H"], "the request body must be a JSON object"),
        ("/api/peg", {"plays": "A:5H B:5H"}, "card '5H' is played twice"),
        ("/api/peg", {"plays": "A:TS B:KH A:9D B:8C", "hands": {"A": "TS 9D", "B": "KH 2C 8C"}},
         "B said go while able to play 2C"),
        ("/api/discard", {"cards": "5H 5C 5S JD 2C 9D", "players": 5}, "players must be 2, 3 or 4"),
        ("/api/discard", {"cards": "5H 5C 5S JD 2C", "players": 2}, "expected 6 cards"),
    ],
)
def test_bad_input_is_a_400_with_one_line(
    client: FlaskClient, url: str, payload: object, message: str
) -> None:
    resp = client.post(url, json=payload)
    assert resp.status_code == 400
    error = resp.get_json()["error"]
    assert message in error and "\n" not in error


def test_body_that_is_not_json(client: FlaskClient) -> None:
    # A form encoding is refused for its type (415), so a cross-site form can never reach the API.
    resp = client.post("/api/score", data="hand=5H", content_type="application/x-www-form-urlencoded")
    assert resp.status_code == 415
    assert "application/json" in resp.get_json()["error"]
    resp = client.post("/api/score", data="hand=5H", content_type="application/json")
    assert resp.status_code == 400
    assert "JSON object" in resp.get_json()["error"]


def test_oversized_body_is_413(client: FlaskClient) -> None:
    resp = client.post("/api/score", data=b"{" + b" " * (65 * 1024) + b"}", content_type="application/json")
    assert resp.status_code == 413
    assert resp.get_json()["error"]


def test_unknown_route_and_wrong_method_are_json(client: FlaskClient) -> None:
    assert client.get("/api/nothing").get_json()["error"]
    wrong = client.get("/api/score")
    assert wrong.status_code == 405 and wrong.get_json()["error"]


# ------------------------------------------------------------------------------ matches


def new_match(client: FlaskClient, **settings: object) -> dict[str, object]:
    resp = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 0, **settings})
    assert resp.status_code == 201, resp.get_json()
    body: dict[str, object] = resp.get_json()
    return body


def append(client: FlaskClient, token: object, after: int, event: dict[str, object], key: str | None = None
           ) -> tuple[int, dict[str, object]]:
    payload: dict[str, object] = {"after": after, "event": event}
    if key:
        payload["idempotency_key"] = key
    resp = client.post(f"/api/matches/{token}/events", json=payload)
    return resp.status_code, resp.get_json()


def test_create_returns_unguessable_links(client: FlaskClient) -> None:
    body = new_match(client, target=61)
    assert body["id"] != body["viewer_id"]
    assert len(str(body["id"])) >= 32
    links = body["links"]
    assert isinstance(links, dict)
    assert links["scorer"].endswith(f"/m/{body['id']}")
    assert links["viewer"].endswith(f"/m/{body['viewer_id']}")
    match = body["match"]
    assert isinstance(match, dict) and match["seq"] == 0 and match["settings"]["target"] == 61


def test_events_move_the_score_and_get_answers_304_when_unchanged(client: FlaskClient) -> None:
    token = new_match(client)["id"]
    status, body = append(client, token, 0, {"type": "starter", "card": "JD"})
    assert status == 201 and body["seq"] == 1
    assert body["match"]["state"]["scores"] == [2, 0]  # his heels for Ann, the dealer
    first = client.get(f"/api/matches/{token}")
    assert first.status_code == 200 and first.get_json()["seq"] == 1
    again = client.get(f"/api/matches/{token}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_stale_append_is_409_with_the_fresh_state(web_app: Flask, client: FlaskClient) -> None:
    token = new_match(client)["id"]
    append(client, token, 0, {"type": "starter", "card": "5D"})
    status, body = append(client, token, 0, {"type": "starter", "card": "6D"})
    assert status == 409
    assert "stale" in body["error"] and body["seq"] == 1
    assert body["match"]["state"]["starter"] == "5D"
    assert count_rows(web_app, "events") == 1


def test_a_refused_event_is_400_and_stores_nothing(web_app: Flask, client: FlaskClient) -> None:
    token = new_match(client)["id"]
    append(client, token, 0, {"type": "starter", "card": "5D"})
    status, body = append(client, token, 1, {"type": "show", "player": 0, "points": 8})
    assert status == 400
    assert body["error"] == "Bob counts next: the player on the dealer's left counts first, the dealer last"
    status, body = append(client, token, 1, {"type": "show", "player": 1, "points": 19})
    assert status == 400 and "19" in body["error"]
    assert count_rows(web_app, "events") == 1


def test_idempotency_key_stores_a_retry_once(web_app: Flask, client: FlaskClient) -> None:
    token = new_match(client)["id"]
    event = {"type": "starter", "card": "5D"}
    assert append(client, token, 0, event, key="k-1")[0] == 201
    status, body = append(client, token, 0, event, key="k-1")
    assert status == 200 and body["duplicate"] is True and body["seq"] == 1
    assert count_rows(web_app, "events") == 1


def test_viewer_link_reads_but_cannot_write(web_app: Flask, client: FlaskClient) -> None:
    created = new_match(client)
    viewer = created["viewer_id"]
    read = client.get(f"/api/matches/{viewer}")
    assert read.status_code == 200 and read.get_json()["can_write"] is False
    status, body = append(client, viewer, 0, {"type": "starter", "card": "5D"})
    assert status == 403 and "only watch" in body["error"]
    assert count_rows(web_app, "events") == 0


def test_unknown_match_and_bad_settings(client: FlaskClient) -> None:
    assert client.get("/api/matches/not-a-match").status_code == 404
    bad = client.post("/api/matches", json={"players": ["Ann"]})
    assert bad.status_code == 400 and "players must be a list of 2, 3 or 4 names" in bad.get_json()["error"]
    missing = client.post("/api/matches/xyz/events", json={"after": 0, "event": {"type": "next_game"}})
    assert missing.status_code == 404


@pytest.mark.parametrize(
    ("plays", "event", "message"),
    [
        # Ann deals, so Bob leads; a lead by Ann is out of turn.
        ([], {"type": "peg", "plays": "Ann:5H"},
         "Bob leads the play (the player on the dealer's left), not Ann"),
        # At 5 Ann still holds four cards and any card fits: Bob's second card skips her turn.
        (["Bob:5H"], {"type": "peg", "plays": "Bob:TS"},
         "Ann could not have said go at 5: Ann still holds 4 cards and every card fits under 31 (a card "
         "is worth at most 10). It was Ann's turn, not Bob's (Bob:TS)."),
        # Bob shows his hand while three of its cards, and three of Ann's, are still to play.
        (["Bob:5H", "Ann:5D"], {"type": "show", "player": 1, "hand": "5H 5C 5S TS"},
         "the play is not finished: Bob's 5C 5S TS are still to play; Ann's last 3 cards are still "
         "to play (enter the rest of the play first: its go and last-card points are due)"),
    ],
)
def test_impossible_plays_are_refused_with_words_a_player_can_act_on(
    web_app: Flask, client: FlaskClient, plays: list[str], event: dict[str, object], message: str
) -> None:
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 0}).get_json()
    url = f"/api/matches/{created['id']}/events"
    events = [{"type": "starter", "card": "KC"}, *({"type": "peg", "plays": p} for p in plays)]
    for seq, stored in enumerate(events):
        assert client.post(url, json={"after": seq, "event": stored}).status_code == 201
    refused = client.post(url, json={"after": len(events), "event": event})
    assert refused.status_code == 400
    assert refused.get_json() == {"error": message}
    assert count_rows(web_app, "events") == len(events)
