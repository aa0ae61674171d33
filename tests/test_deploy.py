"""Serving: ``python app.py`` is waitress with threads; gunicorn runs several workers on one PostgreSQL.

These start the real servers as subprocesses on a free loopback port, exactly as the README
says to run them, and talk HTTP to them.
"""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest

import app as app_module
from bench.bench_load import Server, free_port

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_WORKERS = 3
"""Workers in the gunicorn test: more than one, so requests really cross processes."""
CONCURRENT_WRITERS = 8
"""Phones appending after the same event at the same moment."""
CROSS_WORKER_REQUESTS = 12
"""New connections in a row, so a session and its CSRF token meet every worker."""


class Http:
    """A tiny client that keeps a cookie jar, for talking to a served app over HTTP."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        """One request on a new connection (so consecutive ones can reach different workers)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        hdrs = dict(headers or {})
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
            for value in resp.headers.get_all("Set-Cookie") or []:
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            conn.close()

    def json(self, method: str, path: str, payload: object) -> tuple[int, dict[str, object]]:
        """A JSON request and its parsed answer."""
        status, _, data = self.request(method, path, json.dumps(payload).encode(),
                                       {"Content-Type": "application/json"})
        return status, json.loads(data)


def thread_count(pid: int) -> int:
    """Threads in a running process."""
    return int(re.search(r"^Threads:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M).group(1))  # type: ignore[union-attr]


# ------------------------------------------------------------------------------ python app.py


def test_python_app_py_is_waitress_with_threads_on_the_default_sqlite(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    server = Server("waitress", "", instance, free_port(), 1, tmp_path / "server.log")  # no DATABASE_URL
    server.start()
    try:
        client = Http(server.port)
        status, headers, _ = client.request("GET", "/")
        assert status == 200
        assert headers["server"] == "waitress"  # a production server, not Werkzeug's
        assert server.process is not None
        assert thread_count(server.process.pid) >= app_module.SERVER_THREADS
        status, created = client.json("POST", "/api/matches", {"players": ["Ann", "Bob"]})
        assert status == 201
        assert str(created["links"]).count(f"http://127.0.0.1:{server.port}/m/") == 2  # type: ignore[index]
    finally:
        server.stop()
    assert (instance / "muggins.sqlite").is_file()  # the embedded default
    assert (instance / "secret_key").stat().st_mode & 0o077 == 0
    banner = (tmp_path / "server.log").read_text()
    assert f"http://127.0.0.1:{server.port}/" in banner and "█" in banner  # address and QR code


# ------------------------------------------------------------------------------ gunicorn + PostgreSQL


@pytest.mark.postgres
def test_gunicorn_serves_several_workers_on_one_postgres(tmp_path: Path, pg_fresh_url: str) -> None:
    server = Server("gunicorn", pg_fresh_url, tmp_path / "instance", free_port(), GUNICORN_WORKERS,
                    tmp_path / "server.log")
    server.start()
    try:
        assert len(server.pids()) == 1 + GUNICORN_WORKERS
        client = Http(server.port)
        status, headers, _ = client.request("GET", "/")
        assert status == 200 and headers["server"].startswith("gunicorn")

        # A match made through one worker is there for all of them.
        status, created = client.json("POST", "/api/matches", {"players": ["Ann", "Bob"], "first_dealer": 0})
        assert status == 201
        scorer, viewer = str(created["id"]), str(created["viewer_id"])
        for _ in range(CROSS_WORKER_REQUESTS):
            assert client.request("GET", f"/api/matches/{viewer}")[0] == 200

        # Eight phones append after the same event at once: exactly one wins, on any worker.
        answers: list[int] = []

        def append(player: int) -> None:
            status, _ = Http(server.port).json("POST", f"/api/matches/{scorer}/events",
                                               {"after": 0, "event": {"type": "peg", "player": player % 2,
                                                                      "points": 1 + player}})
            answers.append(status)

        writers = [threading.Thread(target=append, args=(n,)) for n in range(CONCURRENT_WRITERS)]
        for w in writers:
            w.start()
        for w in writers:
            w.join(60)
        assert sorted(answers) == [201] + [409] * (CONCURRENT_WRITERS - 1)
        status, match = client.json("GET", f"/api/matches/{scorer}", None)
        assert match["seq"] == 1

        # One session's form token works on every worker: they share the instance's secret key.
        page = client.request("GET", "/matches")[2].decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        for n in range(CROSS_WORKER_REQUESTS):
            form = f"csrf_token={token}&form=peg&player=0&points=1&after={n + 1}".encode()
            status, headers, body = client.request(
                "POST", f"/m/{scorer}/events", form, {"Content-Type": "application/x-www-form-urlencoded"})
            assert status == 303, body[:300]
    finally:
        server.stop()
    assert len(list((tmp_path / "instance").glob("*secret_key*"))) == 1


# ------------------------------------------------------------------------------ wsgi.py


def load_wsgi(monkeypatch: pytest.MonkeyPatch, **environ: str) -> ModuleType:
    """A fresh import of wsgi.py under ``environ`` (as gunicorn imports it in each worker)."""
    for name in ("DATABASE_URL", "MUGGINS_INSTANCE", "PUBLIC_URL", "MUGGINS_PROXIES", "MUGGINS_TRUSTED_HOSTS",
                 "MUGGINS_RATE_LIMITS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("wsgi_under_test", ROOT / "wsgi.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wsgi_takes_its_store_and_instance_from_the_environment(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_wsgi(monkeypatch, MUGGINS_INSTANCE=str(tmp_path / "inst"),
                       DATABASE_URL=f"sqlite:///{tmp_path / 'shared.db'}")
    try:
        assert module.app.instance_path == str(tmp_path / "inst")
        assert module.app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'shared.db'}"
        assert (tmp_path / "shared.db").is_file() and (tmp_path / "inst" / "secret_key").is_file()
        assert not module.app.debug
    finally:
        module.app.extensions["muggins.store"].close()


def test_wsgi_public_url_makes_links_and_a_secure_cookie(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_wsgi(monkeypatch, MUGGINS_INSTANCE=str(tmp_path), PUBLIC_URL="https://muggins.example.org/")
    try:
        client = module.app.test_client()
        created = client.post("/api/matches", json={"players": ["Ann", "Bob"]}).get_json()
        assert created["links"]["viewer"].startswith("https://muggins.example.org/m/")
        client.get("/")
        cookie = client.get_cookie("session")
        assert cookie is not None and cookie.secure
    finally:
        module.app.extensions["muggins.store"].close()


@pytest.mark.parametrize(("proxies", "scheme_host"), [("1", "https://muggins.example.org"),
                                                      ("0", "http://localhost")])
def test_wsgi_trusts_forwarded_headers_only_behind_a_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           proxies: str, scheme_host: str) -> None:
    # The proxy's public name must be one the app trusts, or its Host is refused (test_hostile_serving).
    module = load_wsgi(monkeypatch, MUGGINS_INSTANCE=str(tmp_path), MUGGINS_PROXIES=proxies,
                       MUGGINS_TRUSTED_HOSTS="muggins.example.org")
    try:
        created = module.app.test_client().post(
            "/api/matches", json={"players": ["Ann", "Bob"]},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "muggins.example.org"}).get_json()
        assert created["links"]["viewer"].startswith(f"{scheme_host}/m/")
    finally:
        module.app.extensions["muggins.store"].close()


def test_wsgi_refuses_a_bad_proxy_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="MUGGINS_PROXIES must be a whole number"):
        load_wsgi(monkeypatch, MUGGINS_INSTANCE=str(tmp_path), MUGGINS_PROXIES="two")


# ------------------------------------------------------------------------------ the secret key


def test_a_racing_start_never_reads_a_half_written_key(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "secret_key"
    real_link = os.link

    def another_worker_wins(src: str | Path, dst: str | Path) -> None:
        # Another worker linked its key in first, between our check and our link.
        Path(dst).write_text("b" * 64)
        real_link(src, str(dst) + ".never")  # what our link would have done, elsewhere
        raise FileExistsError(dst)

    monkeypatch.setattr(app_module.os, "link", another_worker_wins)
    assert app_module._load_or_create_secret(key_file) == "b" * 64
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret_key", "secret_key.never"]  # no spare left


def test_workers_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    script = ("import sys, time; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import app; "
              "t = float(sys.argv[3]);\nwhile time.time() < t: pass\n"
              "print(app._load_or_create_secret(Path(sys.argv[2])))")
    start = f"{time.time() + 1.5:.3f}"  # all of them call at the same moment, after their imports
    procs = [subprocess.Popen([sys.executable, "-c", script, str(ROOT), str(tmp_path / "secret_key"), start],
                              stdout=subprocess.PIPE, text=True) for _ in range(6)]
    keys = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert len(keys) == 1 and len(keys.pop()) == 64
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]
