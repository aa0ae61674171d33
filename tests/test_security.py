"""Access: what a link lets its holder do, and the headers and forms that keep links and writes safe.

Routes are read from the app's URL map, so a route added later falls under the same checks:
every write through a viewer link is a 403, every HTML form needs its CSRF token, and every
response (pages, JSON, errors, files, 204s and 304s) carries the same security headers.
"""

from __future__ import annotations

import html.parser
import re
import string
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from web_fixtures import count_rows, make_app
from werkzeug.routing import Rule
from werkzeug.test import TestResponse

import store as store_module
from app import create_app
from bench.bench_load import Server, free_port

ROOT = Path(__file__).resolve().parent.parent
TOKEN_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")
MIN_TOKEN_BITS = 128
"""Entropy below which a link could be guessed by a patient attacker."""
SAMPLE_MATCHES = 200
"""Matches created to look at the spread of their ids."""


class Table:
    """An app with one match in play: its scorer and viewer links and a client with a CSRF token."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client = app.test_client()
        settings = {"players": ["Ann", "Bob"], "first_dealer": 0}
        created = self.client.post("/api/matches", json=settings).get_json()
        self.scorer: str = created["id"]
        self.viewer: str = created["viewer_id"]
        for event in ({"type": "starter", "card": "5H"}, {"type": "peg", "player": 1, "points": 2}):
            seq = self.client.get(f"/api/matches/{self.scorer}").get_json()["seq"]
            assert self.client.post(f"/api/matches/{self.scorer}/events",
                                    json={"after": seq, "event": event}).status_code == 201
        self.csrf = csrf_of(self.client.get("/matches"))
        # A group too, so its pages are among those checked (its routes take ``group_token``).
        self.group: str = self.client.post("/api/groups", json={"name": "Club", "players": ["Ann", "Bob"]}
                                           ).get_json()["id"]

    def rows(self) -> tuple[int, int]:
        """Rows in the two tables (any write shows here)."""
        return count_rows(self.app, "matches"), count_rows(self.app, "events")

    def url(self, rule: Rule, token: str) -> str:
        """``rule`` with ``token`` as its link and harmless values for the rest."""
        values = {"token": token, "seq": "1", "kind": "hand", "hand": "5H-5C-5S-JD", "starter": "5D",
                  "filename": "css/app.css", "group_token": self.group, "code": "hi"}
        path = rule.rule
        for name in rule.arguments:
            path = re.sub(rf"<(?:[^:>]+:)?{name}>", values[name], path)
        return path


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A fresh app (CSRF on, not in testing mode) with a match in play."""
    app = make_app(tmp_path, TESTING=False)
    yield Table(app)
    app.extensions["muggins.store"].close()


def csrf_of(resp: TestResponse) -> str:
    """The CSRF token in a page's forms."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', resp.get_data(as_text=True))
    assert found, "the page has no CSRF token"
    return found.group(1)


def token_rules(app: Flask, method: str) -> list[Rule]:
    """Rules that take a match link and answer ``method``."""
    found = [r for r in app.url_map.iter_rules() if "token" in r.arguments and method in (r.methods or ())]
    return sorted(found, key=lambda r: r.rule)


# ------------------------------------------------------------------------------ the viewer link


def test_every_write_route_answers_403_to_the_viewer_link(table: Table) -> None:
    writes = token_rules(table.app, "POST")
    assert {r.endpoint for r in writes} >= {"matches.post_event", "api.append_event"}
    before = table.rows()
    for rule in writes:
        url = table.url(rule, table.viewer)
        api = rule.rule.startswith("/api/")
        # The most convincing write a scorer could send: a valid event after the current seq.
        resp = (table.client.post(url, json={"after": 2, "event": {"type": "peg", "player": 0, "points": 1}})
                if api else
                table.client.post(url, data={"csrf_token": table.csrf, "form": "peg", "player": "0",
                                             "points": "1", "after": "2"}))
        assert resp.status_code == 403, rule.rule
        message = resp.get_json()["error"] if api else resp.get_data(as_text=True)
        assert "only watch" in message
    # Confirming an undo is part of a write: the viewer cannot reach it either.
    assert table.client.get(f"/m/{table.viewer}/undo/1").status_code == 403
    assert table.client.get(f"/m/{table.viewer}/qr.svg?for=scorer").status_code == 403
    assert table.rows() == before


def test_the_same_writes_work_through_the_scorer_link(table: Table) -> None:
    # The control for the test above: the 403 is about the link, not a broken request.
    resp = table.client.post(f"/api/matches/{table.scorer}/events",
                             json={"after": 2, "event": {"type": "peg", "player": 0, "points": 1}})
    assert resp.status_code == 201
    resp = table.client.post(f"/m/{table.scorer}/events", data={"csrf_token": table.csrf, "form": "peg",
                                                                 "player": "0", "points": "1", "after": "3"})
    assert resp.status_code == 303
    assert table.rows() == (1, 4)


def test_nothing_a_viewer_is_served_reveals_the_scorer_link(table: Table) -> None:
    viewer_client = table.app.test_client()  # a phone that only ever had the viewer link
    for rule in token_rules(table.app, "GET"):
        resp = viewer_client.get(table.url(rule, table.viewer), headers={"HX-Request": "true"})
        resp.close()
        assert resp.status_code in (200, 204, 403), rule.rule
        assert table.scorer not in resp.get_data(as_text=True), rule.rule
        assert table.scorer not in str(resp.headers), rule.rule
    for path in (f"/m/{table.viewer}/live?since=0", f"/m/{table.viewer}"):
        assert table.scorer not in viewer_client.get(path).get_data(as_text=True)
    # The session cookie is signed, not encrypted: it must not carry the scorer link either.
    cookie = viewer_client.get_cookie("session")
    assert cookie is not None
    session = table.app.session_interface.get_signing_serializer(table.app).loads(cookie.value)  # type: ignore[attr-defined]
    assert table.scorer not in str(session) and table.viewer in str(session)


# ------------------------------------------------------------------------------ the ids


def test_ids_are_long_random_and_independent(table: Table) -> None:
    ids = []
    for _ in range(SAMPLE_MATCHES):
        created = table.client.post("/api/matches", json={"players": ["Ann", "Bob"]}).get_json()
        ids.append((created["id"], created["viewer_id"]))
    flat = [t for pair in ids for t in pair]
    assert len(set(flat)) == len(flat)
    for token in flat:
        assert set(token) <= TOKEN_ALPHABET
        assert len(token) * 6 >= MIN_TOKEN_BITS  # base64url: 6 bits a character
    assert store_module.ID_BYTES * 8 >= MIN_TOKEN_BITS
    # Every position takes many values across the sample: no counter, timestamp or fixed prefix.
    for position in range(min(len(t) for t in flat)):
        assert len({t[position] for t in flat}) >= 40, position
    # A viewer id shares nothing with its scorer id beyond chance (6 characters in common: ~1e-8).
    for scorer, viewer in ids:
        assert not any(scorer[i:i + 6] in viewer for i in range(len(scorer) - 5))


@pytest.mark.parametrize("change", ["swapcase", "one char", "prefix", "longer", "shorter", "space",
                                    "viewer one char", "spliced"])
def test_a_near_miss_link_finds_nothing(table: Table, change: str) -> None:
    scorer, viewer = table.scorer, table.viewer
    near = {
        "swapcase": scorer.swapcase(),
        "one char": scorer[:-1] + ("A" if scorer[-1] != "A" else "B"),
        "prefix": scorer[:16],
        "longer": scorer + "A",
        "shorter": scorer[:-1],
        "space": scorer + "%20",
        "viewer one char": viewer[:-1] + ("A" if viewer[-1] != "A" else "B"),
        # Half of each link: equal to either only if 16 random characters happen to agree.
        "spliced": viewer[:16] + scorer[16:],
    }[change]
    assert near not in (table.scorer, table.viewer)
    assert table.client.get(f"/m/{near}").status_code == 404
    assert table.client.get(f"/api/matches/{near}").status_code == 404
    event = {"after": 2, "event": {"type": "peg", "player": 0, "points": 1}}
    assert table.client.post(f"/api/matches/{near}/events", json=event).status_code == 404


def test_links_are_confirmed_in_constant_time(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[str, str]] = []
    real = store_module.hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(store_module.hmac, "compare_digest", spy)
    assert table.client.get(f"/api/matches/{table.scorer}").status_code == 200
    assert table.client.get(f"/api/matches/{table.viewer}").status_code == 200
    assert (table.scorer, table.scorer) in compared
    assert (table.viewer, table.viewer) in compared


# ------------------------------------------------------------------------------ headers


def every_kind_of_response(table: Table) -> Iterator[tuple[str, TestResponse]]:
    """A page, a fragment, JSON, a file, a redirect, a 204, a 304 and each kind of error."""
    c, s, v = table.client, table.scorer, table.viewer
    etag = c.get(f"/api/matches/{v}").headers["ETag"]
    yield "page", c.get("/")
    yield "match page", c.get(f"/m/{s}")
    yield "viewer page", c.get(f"/m/{v}")
    yield "htmx fragment", c.get(f"/m/{v}/live?since=0", headers={"HX-Request": "true"})
    yield "204 poll", c.get(f"/m/{v}/live?since=2")
    yield "JSON", c.post("/api/score", json={"hand": "5H 5C 5S JD", "starter": "5D"})
    yield "304", c.get(f"/api/matches/{v}", headers={"If-None-Match": etag})
    yield "QR code", c.get(f"/m/{v}/qr.svg")
    yield "static file", c.get("/static/css/app.css")
    yield "htmx", c.get("/vendor/htmx.min.js")
    yield "303 redirect", c.post("/count", data={"csrf_token": table.csrf, "cards": "5H 5C 5S JD 5D",
                                                  "op": "count"})
    yield "400 JSON", c.post("/api/score", data=b"nonsense")
    yield "400 CSRF", c.post("/count", data={"cards": "5H"})
    yield "403", c.post(f"/api/matches/{v}/events", json={"after": 2, "event": {"type": "next_game"}})
    yield "404 page", c.get("/nowhere")
    yield "404 JSON", c.get("/api/matches/nowhere")
    yield "405", c.delete("/")
    yield "409", c.post(f"/api/matches/{s}/events", json={"after": 0, "event": {"type": "next_game"}})
    yield "413", c.post("/api/score", data=b"x" * (70 * 1024))


def test_every_response_carries_the_security_headers(table: Table) -> None:
    seen = set()
    for what, resp in every_kind_of_response(table):
        resp.close()
        seen.add(resp.status_code)
        h = resp.headers
        assert h.get("Referrer-Policy") == "no-referrer", what
        assert h.get("X-Content-Type-Options") == "nosniff", what
        csp = h.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, what
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp and "*" not in csp, what
        assert "Access-Control-Allow-Origin" not in h, what  # no other site may read answers
    assert seen >= {200, 204, 303, 304, 400, 403, 404, 405, 409, 413}


def test_pages_holding_links_are_never_cached_by_the_way(table: Table) -> None:
    for path in (f"/m/{table.scorer}", f"/m/{table.viewer}", f"/api/matches/{table.scorer}"):
        assert "no-cache" in table.client.get(path).headers["Cache-Control"]
    assert "private" in table.client.get(f"/m/{table.viewer}/qr.svg").headers["Cache-Control"]


def test_session_cookie_is_http_only_and_same_site(table: Table) -> None:
    cookie = table.client.get_cookie("session")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"


class _Inline(html.parser.HTMLParser):
    """Collects everything a CSP without 'unsafe-inline' would block."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.forms: list[tuple[str, bool]] = []
        self._form: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and not a.get("src"):
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{name}= handler on <{tag}>")
            if name == "style":
                self.found.append(f"style= on <{tag}>")
            if name.startswith("hx-on"):
                self.found.append(f"{name} (htmx eval) on <{tag}>")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"javascript: URL in {name} on <{tag}>")
        if tag == "form":
            self._form = [(a.get("method") or "get").lower()]
        if tag == "input" and self._form is not None and a.get("name") == "csrf_token" and a.get("value"):
            self._form.append("csrf")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._form is not None:
            self.forms.append((self._form[0], "csrf" in self._form))
            self._form = None


def all_pages(table: Table) -> Iterator[tuple[str, TestResponse]]:
    """Every GET page of the app with real values, both links, and the error pages."""
    c = table.client
    for rule in sorted(table.app.url_map.iter_rules(), key=lambda r: r.rule):
        if "GET" not in (rule.methods or ()) or rule.endpoint in ("static", "assets.htmx", "assets.nosleep"):
            continue
        tokens = (table.scorer, table.viewer) if "token" in rule.arguments else (table.scorer,)
        for token in tokens:
            resp = c.get(table.url(rule, token))
            if resp.mimetype == "text/html":
                yield rule.rule, resp
    yield "404", c.get("/nowhere")
    yield "405", c.delete("/")
    yield "count result", c.get("/?cards=5H-5C-5S-JD-5D")


def test_no_page_has_inline_script_style_or_handlers(table: Table) -> None:
    pages = list(all_pages(table))
    assert len(pages) >= 10
    for what, resp in pages:
        parser = _Inline()
        parser.feed(resp.get_data(as_text=True))
        assert parser.found == [], (what, parser.found)


def test_every_post_form_on_every_page_carries_a_csrf_token(table: Table) -> None:
    posts = 0
    for what, resp in all_pages(table):
        parser = _Inline()
        parser.feed(resp.get_data(as_text=True))
        for method, has_token in parser.forms:
            if method == "post":
                posts += 1
                assert has_token, what
    assert posts >= 5  # count, peg, throw, new match and the score screen's forms


def test_every_form_route_refuses_a_post_without_the_sessions_token(table: Table) -> None:
    form_routes = [r for r in table.app.url_map.iter_rules()
                   if "POST" in (r.methods or ()) and not r.rule.startswith("/api/")]
    assert len(form_routes) >= 5
    stranger = table.app.test_client()
    stolen = csrf_of(stranger.get("/"))  # a valid token, but of another session
    before = table.rows()
    for rule in form_routes:
        url = table.url(rule, table.scorer)
        form = {"form": "peg", "player": "0", "points": "1", "after": "2", "cards": "5H 5C 5S JD 5D",
                "name1": "Ann", "name2": "Bob", "op": "count"}
        for token in (None, stolen, "forged"):
            data = form if token is None else {**form, "csrf_token": token}
            resp = table.client.post(url, data=data)
            assert resp.status_code == 400, (rule.rule, token)
            assert "form has expired" in resp.get_data(as_text=True)
        # The same through htmx's header.
        resp = table.client.post(url, data=form, headers={"HX-Request": "true", "X-CSRFToken": stolen})
        assert resp.status_code == 400, rule.rule
    assert table.rows() == before


def test_the_token_in_the_htmx_header_is_accepted(table: Table) -> None:
    resp = table.client.post(f"/m/{table.scorer}/events", headers={"X-CSRFToken": table.csrf},
                             data={"form": "peg", "player": "0", "points": "1", "after": "2"})
    assert resp.status_code == 303
    assert table.rows() == (1, 3)


# ------------------------------------------------------------------------------ no debug, no secrets


def test_the_app_is_never_in_debug_mode(tmp_path: Path) -> None:
    app = create_app(instance_path=str(tmp_path / "instance"))
    assert not app.debug and not app.config["PROPAGATE_EXCEPTIONS"] and not app.testing
    app.extensions["muggins.store"].close()


def test_the_served_app_has_no_debugger_and_no_tracebacks(tmp_path: Path) -> None:
    server = Server("waitress", f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "instance", free_port(), 1,
                    tmp_path / "server.log")
    server.start()
    try:
        import http.client

        def get(path: str) -> tuple[int, str, dict[str, str]]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read().decode("utf-8", "replace")
            conn.close()
            return resp.status, body, dict(resp.getheaders())

        status, body, headers = get("/?__debugger__=yes&cmd=resource&f=debugger.js")
        assert "Werkzeug" not in body and "debugger" not in body.lower()
        assert "werkzeug" not in headers.get("Server", "").lower()
        for path in ("/nowhere", "/m/nonexistent/history", "/api/matches/" + "x" * 500):
            status, body, _ = get(path)
            assert status == 404 and "Traceback" not in body and "File \"" not in body
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log


def test_the_secret_key_is_made_in_the_instance_folder_and_never_committed(tmp_path: Path) -> None:
    app = create_app(instance_path=str(tmp_path / "instance"))
    key_file = tmp_path / "instance" / "secret_key"
    assert key_file.read_text().strip() == app.config["SECRET_KEY"]
    assert len(bytes.fromhex(app.config["SECRET_KEY"])) * 8 >= 256
    assert key_file.stat().st_mode & 0o077 == 0  # readable by the owner only
    app.extensions["muggins.store"].close()
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert not [p for p in tracked.splitlines() if p.startswith("instance/") or p.endswith("secret_key")]
    ignored = subprocess.run(["git", "check-ignore", "-q", "instance/secret_key"], cwd=ROOT, check=False)
    assert ignored.returncode == 0, "instance/ must be in .gitignore"
    # No key written into the code: every SECRET_KEY comes from the instance folder or a test.
    pattern = re.compile(r"""SECRET_KEY["']?\s*[:=]\s*["'][^"']{8,}["']""")
    for source in ROOT.glob("*.py"):
        assert not pattern.search(source.read_text()), source
    for source in (ROOT / "web").glob("*.py"):
        assert not pattern.search(source.read_text()), source
