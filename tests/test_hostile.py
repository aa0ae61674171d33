"""Hostile input: fuzzed bodies, forms, headers, paths and uploads never make a 500 or a stored change.

Every route is taken from the app's own URL map, so a route added later is fuzzed too. The
in-process tests (Flask's test client) cover breadth; the served tests start ``python app.py``
as a subprocess and send what a test client cannot: 50 MB bodies over a socket, with and
without ``Content-Length``, while watching the worker's peak memory (VmHWM).

The photo cases (random bytes, a truncated JPEG, a 100-megapixel PNG that is small on disk)
go to ``POST /api/recognise`` and the page's photo form; they skip, saying so, in an app
without the photo flow.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import socket
import struct
import zlib
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st
from web_fixtures import count_rows, make_app
from werkzeug.datastructures import FileStorage
from werkzeug.routing import Rule
from werkzeug.test import TestResponse

from bench.bench_load import Server, free_port

BIG_BODY_BYTES = 50 * 1024 * 1024
"""The issue's oversized body: 50 MB."""
MEMORY_GROWTH_LIMIT_KIB = 48 * 1024
"""Most a served worker's peak memory may grow while refusing 50 MB bodies and hostile images
(48 MiB): well under the body itself, so nothing held a whole body or a decoded bomb in memory."""
FUZZ_EXAMPLES = int(os.environ.get("MUGGINS_FUZZ_EXAMPLES", 150))
"""Hypothesis examples per fuzz test: a few seconds each on the 2-core machine. Set
MUGGINS_FUZZ_EXAMPLES (say 5000) for a deeper campaign before a release."""
RECOGNISE = "/api/recognise"
HUGE_PNG_SIDE = 10_000
"""Sides of the decompression-bomb PNG: 100 megapixels, about 100 kB on disk."""

_FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Every form field name the pages use, so fuzzed forms reach past "missing field" answers.
FORM_FIELDS = (
    "form", "op", "after", "key", "tap", "who", "player", "points", "points_typed", "cards", "claimed",
    "seq", "reason", "from", "cut0", "cut1", "cut2", "cut3", "name1", "name2", "name3", "name4", "target",
    "preset", "length_kind", "length_count", "first_dealer", "muggins", "kind", "plays", "players",
    "dealer", "rank", "guess", "done",
)
FORM_NAMES = ("cut", "starter", "play", "peg", "show", "crib", "next_game", "void", "muggins",
              "correction", "general")
OPS = ("apply", "back", "clear", "count", "finish", "heels", "rank", "resume", "score", "skip",
       "typed", "undo")
JSON_FIELDS = ("hand", "starter", "crib", "plays", "hands", "cards", "players", "dealer", "after",
               "event", "idempotency_key", "type", "player", "points", "seq", "target", "preset",
               "length", "muggins", "first_dealer", "custom", "partnerships", "card", "reason")

# Text a careless parser trips on: digits int() refuses ("²", 5,000 of them), signs, spaces,
# NUL, lone surrogates' neighbours, right-to-left marks, card-like tokens, long runs.
NASTY_TEXT = (
    "", " ", "0", "1", "2", "-1", "+2", "007", "²", "١٢", "½", "1e3", "0x10", "NaN", "-0",
    "5H", "5h 5c 5s jd 5d", "10H", "TS", "A:5H B:TS", "ZZ", "\x00", "\u202e", "💥",
    "<script>alert(1)</script>", "{{7*7}}", "' OR 1=1 --", "../../etc/passwd", "\r\n", "cut", "on",
)
long_runs = st.builds(lambda n, c: c * n, st.sampled_from([5000, 10_000]), st.sampled_from(["9", "a", "5H "]))
text_values = st.one_of(st.sampled_from(NASTY_TEXT), st.sampled_from(FORM_NAMES), st.sampled_from(OPS),
                        long_runs, st.text(max_size=40))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
              st.floats(allow_nan=False, allow_infinity=False), text_values),
    lambda inner: st.one_of(st.lists(inner, max_size=6),
                            st.dictionaries(st.one_of(st.sampled_from(JSON_FIELDS), st.text(max_size=8)),
                                            inner, max_size=6)),
    max_leaves=20,
)
json_objects = st.dictionaries(st.sampled_from(JSON_FIELDS), json_values, max_size=8)
raw_bodies = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    json_objects.map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b"[" * 50_000, b'{"a":' * 20_000, b"NaN", b'{"after": Infinity}', b"\xff\xfe\x00",
                     b'{"hand": "5H 5C 5S JD", "starter": "5D"', b'"\\ud800"', b"{}" * 1000]),
)
header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
                      max_size=60)
content_types = st.sampled_from([
    "application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
    "multipart/form-data; boundary=", "application/json; charset=utf-16", "image/png", "",
])


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """One app for the whole module (Hypothesis runs many examples against it)."""
    application = make_app(tmp_path_factory.mktemp("hostile"), TESTING=False)
    yield application
    application.extensions["muggins.store"].close()


@pytest.fixture(scope="module")
def hostile(hostile_app: Flask) -> Iterator[HostileTarget]:
    """A client with a session and CSRF token, and a match to aim at."""
    client = hostile_app.test_client()
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 0}).get_json()
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/matches").get_data(as_text=True))
    assert token
    yield HostileTarget(hostile_app, client, created["id"], created["viewer_id"], token.group(1))


class HostileTarget:
    """The app under attack, a client holding a session, a match's two links and a CSRF token."""

    def __init__(self, app: Flask, client: FlaskClient, scorer: str, viewer: str, csrf: str) -> None:
        self.app, self.client, self.scorer, self.viewer, self.csrf = app, client, scorer, viewer, csrf

    def rows(self) -> tuple[int, int]:
        """Rows in the two tables: any stored change shows here (the log only grows)."""
        return count_rows(self.app, "matches"), count_rows(self.app, "events")

    def url(self, rule: Rule, token_choice: str) -> str:
        """``rule`` with its variables filled: the scorer link, the viewer link or junk."""
        tokens = {"scorer": self.scorer, "viewer": self.viewer}
        values: dict[str, str] = {}
        for name in rule.arguments:
            if name == "token":
                values[name] = tokens.get(token_choice, token_choice)
            elif name == "seq":
                values[name] = "1"
            elif name == "kind":
                values[name] = "hand"
            elif name == "hand":
                values[name] = "5H-5C-5S-JD"
            elif name == "starter":
                values[name] = "5D"
            else:
                values[name] = token_choice
        path = rule.rule
        for name, value in values.items():
            path = re.sub(rf"<(?:[^:>]+:)?{name}>", quote(value, safe=""), path)
        return path


def routes(app: Flask, method: str, api: bool) -> list[Rule]:
    """The app's rules answering ``method``, under /api or not."""
    return sorted((r for r in app.url_map.iter_rules()
                   if method in (r.methods or ()) and r.rule.startswith("/api/") == api
                   and r.endpoint != "static"), key=lambda r: r.rule)


def assert_refused_cleanly(resp: TestResponse, api: bool) -> None:
    """No 500, and a refusal says why in the right format (one-line JSON, or a page)."""
    body = resp.get_data(as_text=True)
    resp.close()  # a file response (htmx, static) holds its file open until closed
    assert resp.status_code < 500, body[:500]
    assert "Traceback" not in body and "werkzeug.debug" not in body.lower()
    if resp.status_code >= 400 and api:
        error = resp.get_json()["error"]
        assert error and "\n" not in error


token_choices = st.one_of(
    st.sampled_from(["scorer", "viewer"]),
    st.sampled_from(["", "x", "A" * 32, "a" * 65, "%00", "..", "../secret_key", "\u00e9t\u00e9"]),
    st.text(max_size=40))


# ------------------------------------------------------------------------------ in-process fuzzing


@_FUZZ
@given(data=st.data(), body=raw_bodies, content_type=content_types, token=token_choices,
       key=st.one_of(st.none(), header_text))
def test_json_endpoints_refuse_random_bodies_cleanly(hostile: HostileTarget, data: st.DataObject, body: bytes,
                                                     content_type: str, token: str, key: str | None) -> None:
    rule = data.draw(st.sampled_from(routes(hostile.app, "POST", api=True)), label="route")
    before = hostile.rows()
    headers = {"Idempotency-Key": key} if key is not None else {}
    resp = hostile.client.post(hostile.url(rule, token), data=body, content_type=content_type,
                               headers=headers)
    assert_refused_cleanly(resp, api=True)
    hypothesis_event(f"{rule.rule} {resp.status_code}")
    if resp.status_code >= 400:
        assert hostile.rows() == before


@_FUZZ
@given(data=st.data(), fields=st.dictionaries(st.one_of(st.sampled_from(FORM_FIELDS), st.text(max_size=10)),
                                               st.one_of(text_values, st.lists(text_values, max_size=3)),
                                               max_size=8),
       with_csrf=st.booleans(), htmx=st.booleans(), token=token_choices)
def test_forms_refuse_random_fields_cleanly(hostile: HostileTarget, data: st.DataObject,
                                            fields: dict[str, str | list[str]], with_csrf: bool, htmx: bool,
                                            token: str) -> None:
    rule = data.draw(st.sampled_from(routes(hostile.app, "POST", api=False)), label="route")
    before = hostile.rows()
    form: dict[str, object] = dict(fields)
    if with_csrf:
        form["csrf_token"] = hostile.csrf
    resp = hostile.client.post(hostile.url(rule, token), data=form,
                               headers={"HX-Request": "true"} if htmx else {})
    assert_refused_cleanly(resp, api=False)
    hypothesis_event(f"{rule.rule} {resp.status_code}")
    if resp.status_code >= 400 or not with_csrf:
        assert hostile.rows() == before


@_FUZZ
@given(data=st.data(), uploads=st.dictionaries(st.sampled_from(("image", "cards", "file", "photo")),
                                                st.binary(max_size=2000), min_size=1, max_size=3),
       fields=st.dictionaries(st.sampled_from(FORM_FIELDS), text_values, max_size=4),
       filename=st.one_of(st.sampled_from(["a.jpg", "../../x.png", "", "\x00.heic", "a" * 300]),
                          st.text(max_size=20)),
       mimetype=st.sampled_from(["image/jpeg", "image/png", "application/octet-stream", "text/html", ""]))
def test_uploads_to_every_route_are_refused_or_ignored_cleanly(
        hostile: HostileTarget, data: st.DataObject, uploads: dict[str, bytes], fields: dict[str, str],
        filename: str, mimetype: str) -> None:
    api = data.draw(st.booleans(), label="api")
    rule = data.draw(st.sampled_from(routes(hostile.app, "POST", api=api)), label="route")
    before = hostile.rows()
    form: dict[str, object] = {**fields, "csrf_token": hostile.csrf}
    for name, blob in uploads.items():
        form[name] = FileStorage(io.BytesIO(blob), filename=filename, content_type=mimetype)
    resp = hostile.client.post(hostile.url(rule, data.draw(token_choices, label="token")), data=form,
                               content_type="multipart/form-data")
    assert_refused_cleanly(resp, api=api)
    if resp.status_code >= 400:
        assert hostile.rows() == before


@_FUZZ
@given(data=st.data(), token=token_choices,
       query=st.dictionaries(st.sampled_from(("since", "cards", "claimed", "kind", "players", "plays", "for",
                                              "dealer", "rank", "guess", "after")),
                             text_values, max_size=4))
def test_every_page_survives_random_links_and_queries(hostile: HostileTarget, data: st.DataObject, token: str,
                                                      query: dict[str, str]) -> None:
    pages = [r for r in hostile.app.url_map.iter_rules() if "GET" in (r.methods or ())]
    rule = data.draw(st.sampled_from(pages), label="route")
    before = hostile.rows()
    resp = hostile.client.get(hostile.url(rule, token), query_string=query)
    assert_refused_cleanly(resp, api=rule.rule.startswith("/api/"))
    assert hostile.rows() == before


@_FUZZ
@given(data=st.data(), headers=st.dictionaries(
    st.sampled_from(("HX-Request", "HX-History-Restore-Request", "HX-Current-URL", "If-None-Match", "Accept",
                     "Accept-Language", "Cookie", "X-CSRFToken", "Idempotency-Key", "Referer", "Origin",
                     "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Host", "Range",
                     "If-Modified-Since", "Content-Type")),
    header_text, max_size=5))
def test_random_headers_on_every_route(hostile: HostileTarget, data: st.DataObject,
                                       headers: dict[str, str]) -> None:
    rule = data.draw(st.sampled_from(sorted(hostile.app.url_map.iter_rules(), key=lambda r: r.rule)),
                     label="route")
    method = data.draw(st.sampled_from(sorted((rule.methods or set()) - {"OPTIONS", "HEAD"})), label="method")
    api = rule.rule.startswith("/api/")
    body: dict[str, object] = {"json": {"hand": "5H 5C 5S JD", "starter": "5D"}} if api else {}
    client = hostile.app.test_client()  # its own cookie jar: a fuzzed Cookie header must not leak
    before = hostile.rows()
    try:
        resp = client.open(hostile.url(rule, data.draw(token_choices, label="token")), method=method,
                           headers=headers, **body)  # type: ignore[arg-type]
    except ValueError:  # the test client itself refuses some header values (never the app)
        reject()
    assert_refused_cleanly(resp, api=api)
    if resp.status_code >= 400 or method == "GET":
        assert hostile.rows() == before


EVENT_KEYS = ("cards", "card", "heels", "player", "points", "plays", "claimed", "hand", "seq", "from",
              "reason", "side")
event_values = st.one_of(
    st.integers(min_value=-3, max_value=40),
    st.sampled_from([None, True, "5H", "JD", "5H 5C 5S JD", ["5H", "KD"], [None, "2C"],
                     [[0, "5H"], [1, "TS"]], "Ann:5H Bob:TS", "A:5H B:5H", [None, 3], "typo", {"x": 1}]),
    json_values,
)
small = st.integers(min_value=-1, max_value=30)
random_events = st.one_of(
    st.builds(lambda kind, extra: {"type": kind, **extra},
              st.sampled_from(("cut", "starter", "peg", "show", "crib", "muggins", "correction", "void",
                               "next_game", "bogus")),
              st.dictionaries(st.sampled_from(EVENT_KEYS), event_values, max_size=4)),
    # Nearly right events, so some are stored and the match moves on to later phases.
    st.builds(lambda card: {"type": "starter", "card": card}, st.sampled_from([None, "5H", "JD", "XX", 5])),
    st.builds(lambda p, n: {"type": "peg", "player": p, "points": n}, small, small),
    st.builds(lambda p, n: {"type": "show", "player": p, "points": n}, small, small),
    st.builds(lambda n: {"type": "crib", "points": n}, small),
    st.builds(lambda n: {"type": "void", "seq": n}, small),
    st.builds(lambda p, n: {"type": "correction", "player": p, "points": n, "reason": "fix"}, small, small),
    st.just({"type": "next_game"}),
)


@_FUZZ
@given(event=random_events, key=st.one_of(st.none(), st.text(max_size=12)))
def test_random_events_are_stored_whole_or_refused_never_a_crash(
        hostile: HostileTarget, event: dict[str, object], key: str | None) -> None:
    seq = hostile.client.get(f"/api/matches/{hostile.scorer}").get_json()["seq"]
    before = hostile.rows()
    payload: dict[str, object] = {"after": seq, "event": event}
    if key is not None:
        payload["idempotency_key"] = key
    resp = hostile.client.post(f"/api/matches/{hostile.scorer}/events", json=payload)
    assert_refused_cleanly(resp, api=True)
    event_kind = event["type"]
    hypothesis_event(f"{event_kind} {resp.status_code}")
    if resp.status_code == 201:
        assert hostile.rows() == (before[0], before[1] + 1)
    elif resp.status_code != 200:  # 200: a repeated key, answered with the first event's seq
        assert hostile.rows() == before


@_FUZZ
@given(form=st.sampled_from(FORM_NAMES), op=st.one_of(st.sampled_from(OPS), text_values),
       fields=st.dictionaries(st.sampled_from(FORM_FIELDS), text_values, max_size=5), htmx=st.booleans())
def test_random_match_forms_are_stored_whole_or_refused_never_a_crash(
        hostile: HostileTarget, form: str, op: str, fields: dict[str, str], htmx: bool) -> None:
    seq = hostile.client.get(f"/api/matches/{hostile.scorer}").get_json()["seq"]
    before = hostile.rows()
    data = {**fields, "form": form, "op": op, "after": str(seq), "csrf_token": hostile.csrf}
    resp = hostile.client.post(f"/m/{hostile.scorer}/events", data=data,
                               headers={"HX-Request": "true"} if htmx else {})
    assert_refused_cleanly(resp, api=False)
    hypothesis_event(f"{form} {resp.status_code}")
    rows = hostile.rows()
    assert rows == before or (resp.status_code in (200, 303) and rows == (before[0], before[1] + 1))


def test_deeply_nested_json_is_a_400_not_a_crash(hostile: HostileTarget) -> None:
    url = f"/api/matches/{hostile.scorer}/events"
    nested = '{"a":' * 990 + "1" + "}" * 990  # parses, but deeper than the engine's copy can recurse
    for body in (b"[" * 60_000, f'{{"after": 0, "event": {nested}}}'.encode()):
        before = hostile.rows()
        resp = hostile.client.post(url, data=body, content_type="application/json")
        assert resp.status_code == 400 and "error" in resp.get_json()
        assert hostile.rows() == before


@pytest.mark.parametrize("host", [".", "a..b", "x" * 64 + ".lan", "..:8000"])
@pytest.mark.parametrize("path", ["/", "/peg", f"/m/{'A' * 32}", "/api/score"])
def test_a_host_header_that_cannot_be_routed_is_a_400_not_a_crash(
        hostile: HostileTarget, host: str, path: str) -> None:
    # An empty or over-long DNS label in Host leaves Flask no URL adapter: the error page must
    # still be served without building any link.
    resp = hostile.app.test_client().get(path, headers={"Host": host})
    assert resp.status_code == 400
    body = resp.get_data(as_text=True)
    if path.startswith("/api/"):
        assert resp.get_json()["error"]
    else:
        assert "Bad request" in body and "could not be understood" in body and "Traceback" not in body


@pytest.mark.parametrize("key", [" ", "two words", "clé", "k" * 200])
def test_a_damaged_form_key_is_a_400_not_a_crash(hostile: HostileTarget, key: str) -> None:
    # The store refuses such idempotency keys; a hand-made form once turned that into a 500.
    seq = hostile.client.get(f"/api/matches/{hostile.scorer}").get_json()["seq"]
    before = hostile.rows()
    resp = hostile.client.post(f"/m/{hostile.scorer}/events", data={
        "csrf_token": hostile.csrf, "form": "correction", "player": "0", "points": "1", "reason": "fix",
        "after": str(seq), "key": key})
    assert resp.status_code == 400 and "reload the page" in resp.get_data(as_text=True)
    assert hostile.rows() == before


@pytest.mark.parametrize("number", ["²", "١", "9" * 5000, "½"])
def test_numbers_int_refuses_are_form_errors_not_crashes(hostile: HostileTarget, number: str) -> None:
    # str.isdigit() accepts "²" and "١", and int() refuses over 4,300 digits: each once made a 500.
    scorer = hostile.scorer
    for path, form in [
        (f"/m/{scorer}/events", {"form": "peg", "player": number, "points": "2", "after": "0"}),
        (f"/m/{scorer}/events", {"form": "peg", "player": "0", "points": number, "after": "0"}),
        (f"/m/{scorer}/events", {"form": "starter", "op": "skip", "after": number}),
        ("/matches", {"name1": "Ann", "name2": "Bob", "target": number}),
        ("/matches", {"name1": "Ann", "name2": "Bob", "length_count": number}),
        ("/matches", {"name1": "Ann", "name2": "Bob", "first_dealer": number}),
        ("/peg", {"players": number, "plays": "A:5H"}),
        ("/count", {"cards": "5H 5C 5S JD 5D", "claimed": number, "op": "count"}),
    ]:
        before = hostile.rows()
        resp = hostile.client.post(path, data={**form, "csrf_token": hostile.csrf})
        assert 400 <= resp.status_code < 500, (path, form)
        assert hostile.rows() == before
    for path in (f"/m/{hostile.viewer}/live?since={quote(number)}", f"/peg?players={quote(number)}",
                 f"/hand/5H-5C-5S-JD/5D?claimed={quote(number)}"):
        assert hostile.client.get(path).status_code < 500, path


# ------------------------------------------------------------------------------ oversized bodies


def test_a_50_mb_body_is_413_on_every_post_route(hostile: HostileTarget) -> None:
    big = b"x" * BIG_BODY_BYTES
    before = hostile.rows()
    for api in (True, False):
        for rule in routes(hostile.app, "POST", api=api):
            for content_type in ("application/json", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x"):
                resp = hostile.client.post(hostile.url(rule, "scorer"), data=big, content_type=content_type)
                assert resp.status_code == 413, (rule.rule, content_type)
                text = resp.get_data(as_text=True)
                if api:
                    assert "too large" in resp.get_json()["error"]
                else:
                    assert "too large" in text
    assert hostile.rows() == before


# ------------------------------------------------------------------------------ the served app


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``python app.py`` (waitress) in a subprocess on loopback, with its own instance and store."""
    folder = tmp_path_factory.mktemp("served")
    server = Server("waitress", f"sqlite:///{folder / 'served.sqlite'}", folder / "instance", free_port(), 1,
                    folder / "server.log")
    server.start()
    yield server
    server.stop()


def send_raw(port: int, head: bytes, body_chunks: Iterator[bytes]) -> tuple[int, bytes]:
    """Send a request by hand (so a huge body streams from a generator) and read the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head)
        try:
            for chunk in body_chunks:
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may answer and close before taking the whole body: read that answer
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        return resp.status, resp.read()


def _zeros(total: int, chunk: int = 1024 * 1024) -> Iterator[bytes]:
    block = b"0" * chunk
    for _ in range(total // chunk):
        yield block


def _chunked(total: int, chunk: int = 1024 * 1024) -> Iterator[bytes]:
    for block in _zeros(total, chunk):
        yield f"{len(block):x}\r\n".encode() + block + b"\r\n"
    yield b"0\r\n\r\n"


def test_served_app_refuses_50_mb_bodies_with_bounded_memory(served: Server) -> None:
    scorer = json.loads(_post_json(served.port, "/api/matches", {"players": ["Ann", "Bob"]})[1])["id"]
    _post_json(served.port, "/api/score", {"hand": "5H 5C 5S JD", "starter": "5D"})  # warm up
    paths = ["/api/score", f"/api/matches/{scorer}/events", "/count", "/matches"]
    if _served_has_recognise(served):
        paths.append(RECOGNISE)
    start = max(served.peak_memory_kib().values())
    for path in paths:
        for framing in ("length", "chunked"):
            framing_header = (f"Content-Length: {BIG_BODY_BYTES}" if framing == "length"
                              else "Transfer-Encoding: chunked")
            head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    f"{framing_header}\r\nConnection: close\r\n\r\n").encode()
            chunks = _zeros(BIG_BODY_BYTES) if framing == "length" else _chunked(BIG_BODY_BYTES)
            status, answer = send_raw(served.port, head, chunks)
            assert status == 413, (path, framing, answer[:200])
            assert b"too large" in answer, (path, framing)
    growth = max(served.peak_memory_kib().values()) - start
    print(f"\npeak memory of the served worker: {start / 1024:.0f} MiB before {2 * len(paths)} 50 MB "
          f"bodies, +{growth / 1024:.1f} MiB after")
    assert growth < MEMORY_GROWTH_LIMIT_KIB
    assert served.process is not None and served.process.poll() is None


def _post_json(port: int, path: str, payload: object) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=json.dumps(payload), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


# ------------------------------------------------------------------------------ photos


def _needs_recognise(app: Flask) -> None:
    if not any(r.rule == RECOGNISE for r in app.url_map.iter_rules()):
        pytest.skip(f"{RECOGNISE} is not in the app yet (the photo flow adds it)")


def huge_png(side: int = HUGE_PNG_SIDE) -> bytes:
    """A valid grey PNG of ``side`` × ``side`` pixels, all black: about 100 kB for 100 MP."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload)
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    squeeze = zlib.compressobj(9)
    row = b"\x00" * (side + 1)  # filter byte 0, then one byte per pixel
    idat = b"".join(squeeze.compress(row) for _ in range(side)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def small_jpeg() -> bytes:
    """A real 64 × 48 JPEG from Pillow."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 120, 60)).save(out, format="JPEG")
    return out.getvalue()


def test_the_bomb_png_really_is_100_megapixels_and_small() -> None:
    data = huge_png()
    width, height = struct.unpack(">II", data[16:24])
    assert width * height == 100_000_000
    assert len(data) < 200_000


PHOTO_CASES = {
    # case: (the upload, words its refusal must use)
    "random bytes": (bytes(range(256)) * 64, ("not an image",)),
    "truncated jpeg": (None, ("unreadable", "truncated")),
    "100 MP png": (None, ("too large", "100 mp")),
    "empty": (b"", ("empty", "no bytes")),
    "text": (b"hello, not a photo", ("not an image",)),
}


def photo_case(case: str) -> tuple[bytes, tuple[str, ...]]:
    """The upload of a hostile photo case and the words its refusal must use."""
    blob, words = PHOTO_CASES[case]
    if case == "truncated jpeg":
        blob = small_jpeg()[:200]
    elif case == "100 MP png":
        blob = huge_png()
    assert blob is not None
    return blob, words


@pytest.mark.parametrize("case", sorted(PHOTO_CASES))
def test_hostile_photos_are_refused_with_a_message(hostile: HostileTarget, case: str) -> None:
    _needs_recognise(hostile.app)
    blob, words = photo_case(case)
    before = hostile.rows()
    resp = hostile.client.post(RECOGNISE, data={"image": (io.BytesIO(blob), "photo.jpg")},
                               content_type="multipart/form-data")
    assert resp.status_code in (400, 413, 415, 422), (case, resp.status_code)
    error = resp.get_json()["error"]
    assert "\n" not in error and "Traceback" not in error
    assert any(w in error.lower() for w in words), error
    # The same photo through the page's form: the page says what went wrong, in words.
    photo_forms = [r.rule for r in hostile.app.url_map.iter_rules()
                   if "POST" in (r.methods or ()) and r.rule == "/photo"]
    for rule in photo_forms:
        form = {"csrf_token": hostile.csrf, "image": (io.BytesIO(blob), "p.jpg")}
        page = hostile.client.post(rule, data=form, content_type="multipart/form-data")
        assert 400 <= page.status_code < 500, (case, page.status_code)
        assert any(w in page.get_data(as_text=True).lower() for w in words), case
    assert hostile.rows() == before


def _served_has_recognise(served: Server) -> bool:
    probe = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    probe.request("POST", RECOGNISE, body=b"", headers={"Content-Type": "multipart/form-data; boundary=x"})
    status = probe.getresponse().status
    probe.close()
    return status not in (404, 405)


def test_served_photo_bombs_keep_memory_bounded(served: Server) -> None:
    if not _served_has_recognise(served):
        pytest.skip(f"{RECOGNISE} is not in the app yet (the photo flow adds it)")
    start = max(served.peak_memory_kib().values())
    for blob in (huge_png(), small_jpeg()[:200], bytes(range(256)) * 4096):
        boundary = "muggins-bound"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.png\"\r\n"
                f"Content-Type: image/png\r\n\r\n").encode() + blob + f"\r\n--{boundary}--\r\n".encode()
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=60)
        conn.request("POST", RECOGNISE, body=body,
                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        resp = conn.getresponse()
        assert resp.status in (400, 413, 415, 422)
        assert json.loads(resp.read())["error"]
        conn.close()
    growth = max(served.peak_memory_kib().values()) - start
    print(f"\npeak memory of the served worker: {start / 1024:.0f} MiB before the photo bombs, "
          f"+{growth / 1024:.1f} MiB after")
    assert growth < MEMORY_GROWTH_LIMIT_KIB
