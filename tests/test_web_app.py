"""The app itself: factory and secret key, security headers, assets, friendly errors, start-up."""

from __future__ import annotations

import ipaddress
import json
import stat
from pathlib import Path

import pytest
from flask import Flask, abort
from flask.testing import FlaskClient
from web_fixtures import HX, make_app, page_text

from app import create_app, lan_address, startup_banner

PAGES = ("/", "/peg", "/discard", "/matches", "/hand/5H-5C-5S-JD/5D")


def test_secret_key_is_made_once_in_the_instance_folder(tmp_path: Path) -> None:
    config = {"DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}"}
    first = create_app(config, instance_path=str(tmp_path / "inst"))
    key_file = tmp_path / "inst" / "secret_key"
    assert key_file.is_file()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(first.config["SECRET_KEY"]) == 64
    second = create_app(config, instance_path=str(tmp_path / "inst"))
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]
    for app in (first, second):
        app.extensions["muggins.store"].close()


def test_default_store_is_a_file_in_the_instance_folder(tmp_path: Path) -> None:
    app = create_app({}, instance_path=str(tmp_path / "inst"))
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'inst' / 'muggins.sqlite'}"
    assert (tmp_path / "inst" / "muggins.sqlite").is_file()
    app.extensions["muggins.store"].close()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_sends_the_security_headers(client: FlaskClient, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 200
    csp = resp.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    assert "HX-Request" in resp.headers["Vary"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_have_no_inline_script_or_style(client: FlaskClient, path: str) -> None:
    body = client.get(path).get_data(as_text=True)
    assert "<style" not in body and " style=" not in body
    for tag in body.split("<script")[1:]:
        assert tag.lstrip().startswith("src="), "every script is a file"
    assert '"includeIndicatorStyles": false' in body


def test_htmx_is_served_by_the_app(client: FlaskClient) -> None:
    with client.get("/vendor/htmx.min.js") as resp:  # a file response: close it
        assert resp.status_code == 200 and resp.mimetype == "text/javascript"
        assert b"htmx" in resp.data[:2000]


def test_nosleep_is_served_by_the_app(client: FlaskClient) -> None:
    with client.get("/vendor/nosleep.min.js") as resp:  # a file response: close it
        assert resp.status_code == 200 and resp.mimetype == "text/javascript"
        assert b"NoSleep" in resp.data
    # Its video is a data: URI: media may come from there, nothing else is loosened.
    assert "media-src 'self' data:" in client.get("/").headers["Content-Security-Policy"]


def test_manifest_and_icons_make_it_installable(client: FlaskClient) -> None:
    with client.get("/static/manifest.webmanifest") as resp:
        manifest = json.loads(resp.data)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with client.get(f"/static/{icon['src']}") as resp:
            assert resp.status_code == 200 and resp.mimetype == icon["type"]


@pytest.mark.parametrize(
    ("method", "path", "status", "words"),
    [
        ("get", "/no/such/page", 404, "There is nothing at this address"),
        ("delete", "/", 405, "That page cannot be used that way."),
    ],
)
def test_errors_are_friendly_pages(
    client: FlaskClient, method: str, path: str, status: int, words: str
) -> None:
    resp = getattr(client, method)(path)
    assert resp.status_code == status
    assert words in page_text(resp)


def test_an_oversized_form_is_a_friendly_413(tmp_path: Path) -> None:
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=1024)
    resp = app.test_client().post("/count", data={"cards": "x" * 4096})
    assert resp.status_code == 413
    assert "That upload is too large." in page_text(resp)
    app.extensions["muggins.store"].close()


def test_a_crash_is_a_plain_500_without_a_traceback(tmp_path: Path) -> None:
    app = make_app(tmp_path, TESTING=False)

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("secret internals")

    @app.get("/api/boom")
    def api_boom() -> str:
        abort(500)

    client = app.test_client()
    page = client.get("/boom")
    assert page.status_code == 500
    assert "Something went wrong" in page_text(page)
    body = page.get_data(as_text=True)
    assert "secret internals" not in body and "Traceback" not in body
    api = client.get("/api/boom")
    assert api.status_code == 500 and api.get_json()["error"]
    app.extensions["muggins.store"].close()


def test_csrf_token_is_sent_with_htmx_requests(client: FlaskClient) -> None:
    body = client.get("/").get_data(as_text=True)
    assert 'hx-headers="{&#34;X-CSRFToken&#34;: &#34;' in body


def test_htmx_history_restore_gets_the_whole_page(client: FlaskClient) -> None:
    resp = client.get("/", headers={**HX, "HX-History-Restore-Request": "true"})
    assert resp.get_data(as_text=True).lstrip().startswith("<!doctype html>")


def test_startup_banner_has_the_address_and_a_qr_code() -> None:
    banner = startup_banner("http://192.168.1.20:8000/")
    assert "http://192.168.1.20:8000/" in banner
    assert sum(line.count("█") for line in banner.splitlines()) > 100  # the QR code's blocks


def test_lan_address_is_an_ipv4_address() -> None:
    assert ipaddress.ip_address(lan_address()).version == 4


def test_share_links_use_the_lan_address_when_opened_on_localhost(tmp_path: Path) -> None:
    app: Flask = make_app(tmp_path, LAN_URL="http://192.168.1.20:8000/")
    client = app.test_client()
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"]}).get_json()
    assert created["links"]["viewer"].startswith("http://192.168.1.20:8000/m/")
    app.extensions["muggins.store"].close()
