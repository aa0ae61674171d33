"""Groups: records recounted from the event logs, export and import, the pages and the API.

The records a group page shows are built from per-match summaries cached in the store; here they
are checked against a recount made straight from each match's replayed history (the engine's own
entries, added up by this file), for random legal games with undos, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st
from test_properties import _deal, _legal_play
from web_fixtures import count_rows, csrf_token, make_app, page_text, text_of

from scorer.errors import MatchError
from scorer.match import Match, Phase

REPO = Path(__file__).resolve().parent.parent
NAMES = ["Ann", "Bob", "Cat", "Dan"]
TABLES = ("groups", "group_matches", "matches", "events")

# ---------------------------------------------------------------------------------- helpers


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'groups.db'}"
    url: str = request.getfixturevalue("pg_fresh_url")
    return url


@pytest.fixture
def app_on(backend_url: str, tmp_path: Path) -> Iterator[Flask]:
    application = make_app(tmp_path, DATABASE_URL=backend_url)
    yield application
    application.extensions["muggins.store"].close()


def api(client: FlaskClient, method: str, url: str, body: object = None) -> tuple[int, Any]:
    resp = client.open(url, method=method, json=body) if body is not None else client.open(url, method=method)
    return resp.status_code, resp.get_json(silent=True)


def play_random_match(
    client: FlaskClient,
    group: str,
    players: list[str],
    rnd: random.Random,
    undo_rate: float = 0.15,
    max_events: int = 400,
) -> Match:
    """A match of the group played by the rules through the API: cards and plays by the rules,
    some shows entered as numbers, and now and then the last entry undone (and entered again).
    Returns the match as the test itself replays it from what it sent."""
    status, made = api(
        client,
        "POST",
        "/api/matches",
        {"group": group, "players": players, "first_dealer": rnd.randrange(len(players))},
    )
    assert status == 201, made
    token = made["id"]
    match = Match(made["match"]["settings"])

    def send(event: dict[str, object]) -> None:
        nonlocal match
        match = match.apply(event)
        status, answer = api(
            client, "POST", f"/api/matches/{token}/events", {"after": match.next_seq - 2, "event": event}
        )
        assert status == 201, answer

    def maybe_undo() -> None:
        if rnd.random() >= undo_rate:
            return
        live = [e for e in match.history if not e.voided and e.type != "void"]
        if not live:
            return
        try:
            match.check({"type": "void", "seq": live[-1].seq, "reason": "test"})
        except MatchError:
            return
        send({"type": "void", "seq": live[-1].seq, "reason": "test"})

    while match.state.phase is not Phase.MATCH_OVER and match.next_seq < max_events:
        state = match.state
        if state.phase is Phase.GAME_OVER:
            send({"type": "next_game"})
            continue
        order = list(state.counting_order)
        hands, crib, starter = _deal(rnd, order)
        send({"type": "starter", "card": str(starter)})
        maybe_undo()
        if match.state.phase is Phase.STARTER:  # the starter was undone: enter it again
            send({"type": "starter", "card": str(starter)})
        for event in peg_events(_legal_play(hands, order, rnd), rnd):
            if match.state.phase is not Phase.PLAY and match.state.phase is not Phase.STARTER:
                break
            send(event)
        for seat in order:
            if match.state.phase not in (Phase.SHOW, Phase.PLAY):
                break
            if rnd.random() < 0.3:
                from scorer.show import score_show

                points = score_show(hands[seat], starter).total
                send({"type": "show", "player": seat, "points": points})
            else:
                send({"type": "show", "player": seat, "hand": " ".join(map(str, hands[seat]))})
            maybe_undo()
            if match.state.phase in (Phase.SHOW, Phase.PLAY) and match.state.to_count == seat:
                send({"type": "show", "player": seat, "hand": " ".join(map(str, hands[seat]))})
        if match.state.phase is Phase.CRIB:
            send({"type": "crib", "hand": " ".join(map(str, crib))})
    return match


def peg_events(plays: list[tuple[int, Any]], rnd: random.Random) -> list[dict[str, object]]:
    """The plays as 1 to 3 peg events, players by seat number (the group's names vary by match)."""
    cuts = sorted(rnd.sample(range(1, len(plays)), rnd.randint(0, 2)))
    return [
        {"type": "peg", "plays": [[s, str(c)] for s, c in plays[a:b]]}
        for a, b in zip([0, *cuts], [*cuts, len(plays)], strict=True)
    ]


def recount(matches: list[Match]) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], int]]:
    """Each player's records and the games each won against each other, added up here from the
    matches' replayed histories (effective entries only) and finished games."""
    out: dict[str, dict[str, Any]] = {}
    beat: dict[tuple[str, str], int] = {}
    for match in matches:
        s = match.settings
        names = list(s.players)

        def side_players(side: int, s: Any = s, names: list[str] = names) -> list[str]:
            return [n for seat, n in enumerate(names) if s.side_of(seat) == side]

        for name in names:
            out.setdefault(
                name,
                {
                    k: 0
                    for k in (
                        "games_played",
                        "games_won",
                        "matches_won",
                        "game_points",
                        "skunks_given",
                        "skunks_received",
                        "hands",
                        "hand_points",
                        "cribs",
                        "crib_points",
                        "played",
                        "pegged",
                    )
                }
                | {"highest_hand": None},
            )
        dealt: set[tuple[int, int]] = set()
        for e in match.history:
            if e.voided_by is not None or e.type == "void":
                continue
            if e.type not in ("cut", "next_game", "muggins"):
                dealt.add((e.game, e.hand))
            if e.type == "show":
                r = out[names[e.player]]
                r["hands"] += 1
                r["hand_points"] += e.points[e.player]
                r["highest_hand"] = max(r["highest_hand"] or 0, e.points[e.player])
            elif e.type == "crib":
                out[names[e.player]]["cribs"] += 1
                out[names[e.player]]["crib_points"] += e.points[e.player]
            elif e.type == "peg":
                for seat, points in enumerate(e.points):
                    out[names[seat]]["pegged"] += points
        for name in names:
            out[name]["played"] += len(dealt)
        state = match.state
        for game in state.games:
            winner = game.result.winner
            for name in names:
                out[name]["games_played"] += 1
            for name in side_players(winner):
                out[name]["games_won"] += 1
                out[name]["skunks_given"] += game.result.skunks_given
            for side in range(len(s.sides)):
                if side == winner:
                    continue
                for name in side_players(side):
                    out[name]["skunks_received"] += int(game.result.skunked(side))
                    for w in side_players(winner):
                        beat[(w, name)] = beat.get((w, name), 0) + 1
        for side, points in enumerate(state.game_points):
            for name in side_players(side):
                out[name]["game_points"] += points
                out[name]["matches_won"] += int(state.match_winner == side)
    return out, beat


def check_records(answer: dict[str, Any], matches: list[Match]) -> None:
    expected, beat = recount(matches)
    got = {p["name"]: p for p in answer["players"]}
    for name, r in expected.items():
        p = got[name]
        for key in (
            "games_played",
            "games_won",
            "matches_won",
            "game_points",
            "skunks_given",
            "skunks_received",
            "highest_hand",
        ):
            assert p[key] == r[key], (name, key)
        for key, points, count in (
            ("average_hand", "hand_points", "hands"),
            ("average_crib", "crib_points", "cribs"),
            ("average_pegging", "pegged", "played"),
        ):
            want = round(r[points] / r[count], 4) if r[count] else None
            assert p[key] == want, (name, key)
    pairs = {tuple(h["players"]): tuple(h["games"]) for h in answer["head_to_head"]}
    for (a, b), games in pairs.items():
        assert games == (beat.get((a, b), 0), beat.get((b, a), 0))
    assert {frozenset(k) for k in beat} == {frozenset(k) for k in pairs}
    assert answer["matches"] == sorted(answer["matches"], key=lambda m: m["created_at"], reverse=True)


def make_group(
    client: FlaskClient, players: list[str], rules: dict[str, object] | None = None
) -> dict[str, Any]:
    status, group = api(
        client,
        "POST",
        "/api/groups",
        {
            "name": "The Thursday club",
            "players": players,
            "rules": rules or {"target": 61, "length": {"kind": "best_of", "games": 3}},
        },
    )
    assert status == 201, group
    return group


# ---------------------------------------------------------------------------------- records

GROUPS = settings(
    max_examples=3,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[HPhase.explicit, HPhase.reuse, HPhase.generate],
)


@GROUPS
@given(seed=st.integers(0, 2**32 - 1))
def test_records_equal_a_recount_of_the_event_logs(app_on: Flask, seed: int) -> None:
    rnd = random.Random(seed)
    client = app_on.test_client()
    roster = NAMES[: rnd.choice([3, 4])]
    group = make_group(client, roster)
    matches = []
    for _ in range(3):
        players = rnd.sample(roster, rnd.choice([2, 3] if len(roster) == 3 else [2, 3, 4]))
        matches.append(play_random_match(client, group["id"], players, rnd))
        status, answer = api(client, "GET", f"/api/groups/{group['viewer_id']}")
        assert status == 200
        check_records(answer, matches)  # summaries cached for some matches, fresh for the newest
    # A fresh process (no summaries in memory) and a match that moved on since its summary.
    status, answer = api(client, "GET", f"/api/groups/{group['id']}")
    check_records(answer, matches)
    assert sum(p["games_won"] for p in answer["players"]) >= sum(len(m.state.games) for m in matches)


def test_an_undo_after_the_summary_was_stored_changes_the_records(client: FlaskClient) -> None:
    group = make_group(client, ["Ann", "Bob"], {"target": 61})
    _, made = api(
        client, "POST", "/api/matches", {"group": group["id"], "players": ["Ann", "Bob"], "first_dealer": 0}
    )
    events = [
        {"type": "starter", "card": None},
        {"type": "peg", "player": 1, "points": 31},
        {"type": "show", "player": 1, "points": 24},
        {"type": "show", "player": 0, "points": 2},
        {"type": "crib", "points": 6},
        {"type": "starter", "card": None},
        {"type": "peg", "player": 1, "points": 6},
    ]
    for after, event in enumerate(events):
        assert (
            api(client, "POST", f"/api/matches/{made['id']}/events", {"after": after, "event": event})[0]
            == 201
        )
    _, answer = api(client, "GET", f"/api/groups/{group['id']}")
    bob = next(p for p in answer["players"] if p["name"] == "Bob")
    # Worked by hand: Bob pegged 31 + 6 over 2 hands, counted one hand of 24, won 61-8, a skunk.
    assert (bob["games_won"], bob["skunks_given"], bob["average_pegging"], bob["average_hand"]) == (
        1,
        1,
        18.5,
        24.0,
    )
    assert answer["head_to_head"] == [{"players": ["Ann", "Bob"], "games": [0, 1]}]
    undo = {"type": "void", "seq": 7, "reason": "miscounted"}
    assert api(client, "POST", f"/api/matches/{made['id']}/events", {"after": 7, "event": undo})[0] == 201
    _, answer = api(client, "GET", f"/api/groups/{group['id']}")
    bob = next(p for p in answer["players"] if p["name"] == "Bob")
    assert (bob["games_won"], bob["skunks_given"], bob["average_pegging"]) == (0, 0, 15.5)
    assert answer["head_to_head"] == []


# ---------------------------------------------------------------------------------- export / import


def _export(client: FlaskClient, token: str) -> bytes:
    resp = client.get(f"/api/groups/{token}/export")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    return resp.data


def _rows(app: Flask) -> dict[str, int]:
    return {t: count_rows(app, t) for t in TABLES}


def _fresh_url(backend: str, request: pytest.FixtureRequest, folder: Path, cleanup: list[Any]) -> str:
    """An empty database of ``backend``: an SQLite file, or a new schema on the session's server."""
    if backend == "sqlite":
        return f"sqlite:///{folder / 'db.sqlite'}"
    import secrets

    import sqlalchemy as sa

    pg_url: str = request.getfixturevalue("pg_url")
    schema = f"test_{secrets.token_hex(8)}"
    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()

    cleanup.append(drop)
    return (
        sa.make_url(pg_url)
        .update_query_dict({"options": f"-csearch_path={schema}"})
        .render_as_string(hide_password=False)
    )


@pytest.fixture(
    params=[
        ("sqlite", "sqlite"),
        pytest.param(("sqlite", "postgresql"), marks=pytest.mark.postgres),
        pytest.param(("postgresql", "sqlite"), marks=pytest.mark.postgres),
    ],
    ids=lambda p: f"{p[0]}-to-{p[1]}",
)
def two_apps(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Flask, Flask]]:
    """Two Muggins on fresh databases of the given backends: export from one, import into the other."""
    cleanup: list[Any] = []
    apps = []
    for i, backend in enumerate(request.param):
        folder = tmp_path / f"app{i}"
        folder.mkdir()
        apps.append(make_app(folder, DATABASE_URL=_fresh_url(backend, request, folder, cleanup)))
    yield apps[0], apps[1]
    for application in apps:
        application.extensions["muggins.store"].close()
    for drop in cleanup:
        drop()


@settings(
    max_examples=3,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[HPhase.explicit, HPhase.reuse, HPhase.generate],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_export_import_export_is_identical(two_apps: tuple[Flask, Flask], seed: int) -> None:
    rnd = random.Random(seed)
    source, target = (a.test_client() for a in two_apps)
    group = make_group(source, NAMES[:3])
    for _ in range(rnd.randint(1, 2)):
        play_random_match(source, group["id"], rnd.sample(NAMES[:3], rnd.choice([2, 3])), rnd, max_events=80)
    api(source, "POST", "/api/matches", {"group": group["id"], "players": ["Ann", "Cat"]})  # not played yet
    assert source.get(f"/api/groups/{group['viewer_id']}/export").status_code == 403  # holds the scorer links
    first = _export(source, group["id"])
    resp = target.post("/api/groups/import", data=first, content_type="application/json")
    assert resp.status_code == 201, resp.get_json()
    assert _export(target, group["id"]) == first
    assert (
        api(target, "GET", f"/api/groups/{group['id']}")[1]
        == api(source, "GET", f"/api/groups/{group['id']}")[1]
    )
    for match in json.loads(first)["matches"]:
        assert (
            api(target, "GET", f"/api/matches/{match['id']}")[1]
            == api(source, "GET", f"/api/matches/{match['id']}")[1]
        )


def test_a_match_alone_exports_and_imports(client: FlaskClient, tmp_path: Path) -> None:
    _, made = api(client, "POST", "/api/matches", {"players": ["Ann", "Bob"], "first_dealer": 0})
    api(
        client,
        "POST",
        f"/api/matches/{made['id']}/events",
        {"after": 0, "event": {"type": "starter", "card": "JD"}},
    )
    assert client.get(f"/api/matches/{made['viewer_id']}/export").status_code == 403
    first = client.get(f"/api/matches/{made['id']}/export").data
    other = make_app(tmp_path / "b")
    try:
        resp = other.test_client().post("/api/groups/import", data=first, content_type="application/json")
        assert resp.status_code == 201
        assert other.test_client().get(f"/api/matches/{made['id']}/export").data == first
        assert api(other.test_client(), "GET", f"/api/matches/{made['id']}")[1]["state"]["scores"] == [2, 0]
    finally:
        other.extensions["muggins.store"].close()


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda t: t[: len(t) // 2], "not JSON"),
        (lambda t: t.replace('"Bob"', '"Rob"', 1), "changed or cut short"),
        (lambda t: t.replace('"format":1', '"format":2'), "newer Muggins"),
        (lambda t: t.replace('"format":1,', ""), "no format"),
        (lambda t: "[1, 2]", "not a Muggins export"),
    ],
)
def test_a_damaged_or_newer_export_is_refused_and_changes_nothing(
    client: FlaskClient, web_app: Flask, tmp_path: Path, edit: Any, reason: str
) -> None:
    group = make_group(client, ["Ann", "Bob"])
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(7), max_events=30)
    text = _export(client, group["id"]).decode()
    other = make_app(tmp_path / "b")
    try:
        before = _rows(other)
        resp = other.test_client().post(
            "/api/groups/import", data=edit(text), content_type="application/json"
        )
        assert resp.status_code == 400
        message = resp.get_json()["error"]
        assert reason in message and message.endswith("nothing was imported") and "\n" not in message
        assert _rows(other) == before
    finally:
        other.extensions["muggins.store"].close()


def test_an_edit_with_a_fresh_digest_is_still_judged(client: FlaskClient, tmp_path: Path) -> None:
    from web.groups.exchange import export_text

    group = make_group(client, ["Ann", "Bob"])
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(3), max_events=20)
    doc = json.loads(_export(client, group["id"]))
    doc.pop("sha256")
    doc["matches"][0]["events"][1]["event"] = {"type": "show", "player": 0, "points": 19}  # no such hand
    other = make_app(tmp_path / "b")
    try:
        before = _rows(other)
        resp = other.test_client().post(
            "/api/groups/import", data=export_text(doc), content_type="application/json"
        )
        assert resp.status_code == 400 and "does not replay" in resp.get_json()["error"]
        assert _rows(other) == before
    finally:
        other.extensions["muggins.store"].close()


def test_an_import_over_stored_ids_is_refused_and_changes_nothing(
    client: FlaskClient, web_app: Flask
) -> None:
    group = make_group(client, ["Ann", "Bob"])
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(5), max_events=20)
    text = _export(client, group["id"])
    before = _rows(web_app)
    resp = client.post("/api/groups/import", data=text, content_type="application/json")
    assert resp.status_code == 409 and "already here" in resp.get_json()["error"]
    assert _rows(web_app) == before


# ---------------------------------------------------------------------------------- API and pages


def test_group_api_refuses_bad_input_with_one_line(client: FlaskClient, web_app: Flask) -> None:
    cases = [
        ({"players": ["Ann"]}, "missing 'name'"),
        ({"name": "  "}, "needs a name"),
        ({"name": "X", "players": ["Ann", "ann"]}, "two players are called"),
        ({"name": "X", "rules": {"target": 100}}, "target must be 121 or 61"),
        ({"name": "X", "rules": {"skunk": 1}}, "unknown rule 'skunk'"),
        ({"name": "X", "rules": {"three_player_skunk": "all"}}, "three_player_skunk"),
        ({"name": "X", "colour": "red"}, "unknown field 'colour'"),
    ]
    for body, words in cases:
        status, answer = api(client, "POST", "/api/groups", body)
        assert status == 400 and words in answer["error"], (body, answer)
    assert count_rows(web_app, "groups") == 0
    assert (
        client.post(
            "/api/groups", data="name=X", content_type="application/x-www-form-urlencoded"
        ).status_code
        == 415
    )
    assert api(client, "GET", "/api/groups/nope")[0] == 404


def test_group_matches_take_its_rules_and_grow_its_roster(client: FlaskClient, web_app: Flask) -> None:
    group = make_group(
        client,
        ["Ann", "Bob", "Cat"],
        {
            "target": 61,
            "preset": "lurch",
            "muggins": True,
            "three_player_skunk": "each-loser",
            "scores_only": True,
        },
    )
    assert group["rules"]["scores_only"] is True
    status, made = api(
        client, "POST", "/api/matches", {"group": group["id"], "players": ["ann", "BOB", "Cat"]}
    )
    settings = made["match"]["settings"]
    assert status == 201 and settings["players"] == ["Ann", "Bob", "Cat"]
    assert (settings["target"], settings["preset"], settings["muggins"], settings["three_player_skunk"]) == (
        61,
        "lurch",
        True,
        "each-loser",
    )
    # The group enters scores only: so does each of its matches, with no hand asking again.
    assert settings["scores_only"] is True
    status, made = api(
        client, "POST", "/api/matches", {"group": group["id"], "players": ["Ann", "Eve"], "target": 121}
    )
    assert status == 201 and made["match"]["settings"]["target"] == 121
    assert "three_player_skunk" not in made["match"]["settings"]
    assert api(client, "GET", f"/api/groups/{group['id']}")[1]["roster"] == ["Ann", "Bob", "Cat", "Eve"]
    # The viewer link reads only; an unknown group is a 404; a standalone match is as before.
    before = count_rows(web_app, "matches")
    assert (
        api(client, "POST", "/api/matches", {"group": group["viewer_id"], "players": ["Ann", "Bob"]})[0]
        == 403
    )
    assert api(client, "POST", "/api/matches", {"group": "nope", "players": ["Ann", "Bob"]})[0] == 404
    status, answer = api(client, "POST", "/api/matches", {"group": group["id"], "players": ["Ann"]})
    assert status == 400 and "players" in answer["error"]
    assert count_rows(web_app, "matches") == before
    assert api(client, "POST", "/api/matches", {"players": ["Ann", "Bob"]})[0] == 201


def test_group_creation_is_rate_limited_like_matches(tmp_path: Path) -> None:
    app = make_app(tmp_path, RATELIMIT_ENABLED=True, MUGGINS_RATE_GROUPS="2 per minute")
    try:
        client = app.test_client()
        codes = [api(client, "POST", "/api/groups", {"name": f"G{i}"})[0] for i in range(3)]
        assert codes == [201, 201, 429]
    finally:
        app.extensions["muggins.store"].close()


def test_the_group_page_starts_a_match_from_the_roster(client: FlaskClient, web_app: Flask) -> None:
    token = csrf_token(client)
    resp = client.post(
        "/groups",
        data={
            "csrf_token": token,
            "name": "Family",
            "players": "Ann\nBob\nCat",
            "target": "61",
            "preset": "home",
            "length_kind": "best_of",
            "length_count": "1",
            "three_player_skunk": "runner-up",
            "entry": "cards",
        },
    )
    assert resp.status_code == 303
    page = resp.headers["Location"]
    resp = client.post(
        page + "/matches",
        data={"csrf_token": token, "player": ["Ann", "Cat"], "new_name": "Dee", "first_dealer": "0"},
    )
    assert resp.status_code == 303 and resp.headers["Location"].startswith("/m/")
    screen = client.get(resp.headers["Location"])
    assert "Ann" in page_text(screen) and "Dee" in page_text(screen)
    body = client.get(page)
    assert body.status_code == 200
    assert text_of(body, "roster-list") == "Ann Remove Bob Remove Cat Remove Dee Remove"
    assert "Ann v Cat v Dee" in text_of(body, "group-matches")
    # The viewer link can neither start a match nor add a player.
    viewer = client.get(page).get_data(as_text=True).split('id="group-viewer-link">')[1].split("<")[0]
    viewer_path = "/g/" + viewer.rsplit("/", 1)[1]
    before = (count_rows(web_app, "matches"), count_rows(web_app, "group_matches"))
    for path, data in (("/matches", {"player": ["Ann", "Bob"]}), ("/players", {"name": "Zed"})):
        resp = client.post(viewer_path + path, data={"csrf_token": token, **data})
        assert resp.status_code == 403 and "only watch" in page_text(resp)
    assert (count_rows(web_app, "matches"), count_rows(web_app, "group_matches")) == before
    # Too few players: the page again with the reason, nothing stored.
    before = count_rows(web_app, "matches")
    resp = client.post(page + "/matches", data={"csrf_token": token, "player": ["Ann"]})
    assert resp.status_code == 422 and "Choose two, three or four players" in page_text(resp)
    assert count_rows(web_app, "matches") == before


def test_the_group_page_shows_records_and_three_charts(client: FlaskClient) -> None:
    group = make_group(client, ["Ann", "Bob"], {"target": 61})
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(11))
    body = client.get(f"/g/{group['viewer_id']}")
    html = body.get_data(as_text=True)
    assert body.status_code == 200
    for chart in ("chart-wins", "chart-chance", "chart-race"):
        assert f'id="{chart}"' in html
    assert html.count('<svg class="chart') == 3
    assert "style=" not in html.split('id="charts-title"')[1].split("</section>")[0]  # CSP: no inline style
    assert "Start the match" not in html  # a viewer link starts nothing
    csv = client.get(f"/g/{group['viewer_id']}/records.csv").get_data(as_text=True)
    assert csv.splitlines()[0].startswith("name,games_played,games_won")
    assert client.get(f"/g/{group['id']}/qr.svg?for=scorer").status_code == 200
    assert client.get(f"/g/{group['viewer_id']}/qr.svg?for=scorer").status_code == 403


# ---------------------------------------------------------------------------------- backup


def test_backup_copies_the_database_while_it_is_open(
    tmp_path: Path, web_app: Flask, client: FlaskClient
) -> None:
    group = make_group(client, ["Ann", "Bob"])
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(1), max_events=15)
    db = tmp_path / "test.db"
    copy = tmp_path / "copy.db"
    done = subprocess.run(
        [sys.executable, "-m", "store", "backup", str(copy), "--url", f"sqlite:///{db}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == count_rows(web_app, "events")
    again = subprocess.run(
        [sys.executable, "-m", "store", "backup", str(copy), "--url", f"sqlite:///{db}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 2 and "already exists" in again.stderr


def test_the_page_lists_the_newest_matches_then_all_on_asking(client: FlaskClient) -> None:
    group = make_group(client, ["Ann", "Bob"])
    for _ in range(21):
        assert (
            api(client, "POST", "/api/matches", {"group": group["id"], "players": ["Ann", "Bob"]})[0] == 201
        )
    page = client.get(f"/g/{group['id']}").get_data(as_text=True)
    assert page.count('<li><a href="/m/') == 20 and "All 21 matches" in page
    everything = client.get(f"/g/{group['id']}?matches=all").get_data(as_text=True)
    assert everything.count('<li><a href="/m/') == 21 and "All 21 matches" not in everything


def test_new_names_from_matches_started_at_once_all_join_the_roster(backend_url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from store import Store

    with Store(backend_url) as store:
        store.create_schema()
        group = store.create_group("Club", ["Ann"], {"target": 121})
        names = [f"Player {i}" for i in range(8)]
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda n: store.create_group_match(group.id, {"players": ["Ann", n]}), names))
        assert sorted(store.group_by_link(group.id).record.roster) == sorted(["Ann", *names])
        assert len(store.group_matches(group.id)) == 8


def test_two_first_pages_at_once_both_answer(app_on: Flask) -> None:
    from concurrent.futures import ThreadPoolExecutor

    client = app_on.test_client()
    group = make_group(client, ["Ann", "Bob"])
    play_random_match(client, group["id"], ["Ann", "Bob"], random.Random(2), max_events=40)
    app_on.extensions["muggins.store"].save_summaries([])  # nothing stored yet: both pages summarise
    with ThreadPoolExecutor(max_workers=4) as pool:
        codes = list(
            pool.map(lambda _: app_on.test_client().get(f"/api/groups/{group['id']}").status_code, range(4))
        )
    assert codes == [200] * 4


def test_the_scorer_takes_a_player_off_the_list_and_their_records_stay(client: FlaskClient) -> None:
    group = make_group(client, ["Ann", "Bob", "Cat"], {"target": 61})
    play_random_match(client, group["id"], ["Ann", "Cat"], random.Random(4), max_events=300)
    token = csrf_token(client)
    resp = client.post(f"/g/{group['id']}/players", data={"csrf_token": token, "op": "remove", "name": "cat"})
    assert resp.status_code == 303
    _, answer = api(client, "GET", f"/api/groups/{group['id']}")
    assert answer["roster"] == ["Ann", "Bob"]
    assert "Cat" in [p["name"] for p in answer["players"]]  # her games still count
    page = client.get(f"/g/{group['id']}")
    assert (
        'value="Cat"' not in page.get_data(as_text=True).split('id="new-match-form"')[1].split("</form>")[0]
    )
    # A full roster: the 65th name is refused in one line, nothing stored.
    names = [f"P{i}" for i in range(62)]
    assert api(client, "POST", "/api/groups", {"name": "Big", "players": [*names, "x", "y", "z"]})[0] == 400
    big = make_group(client, [*names, "Ann", "Bob"])
    status, answer = api(client, "POST", "/api/matches", {"group": big["id"], "players": ["Ann", "Zed"]})
    assert status == 400 and "at most 64 players" in answer["error"]
    resp = client.post(f"/g/{big['id']}/players", data={"csrf_token": token, "name": "Zed"})
    assert resp.status_code == 422 and "at most 64 players" in page_text(resp)
    assert api(client, "GET", f"/api/groups/{big['id']}")[1]["roster"] == [*names, "Ann", "Bob"]
