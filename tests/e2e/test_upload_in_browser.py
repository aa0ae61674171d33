"""End to end in Chromium: a match kept on a phone is uploaded to the table's server by
``static/js/offline/upload.mjs`` (issue 25, contract 5).

One waitress serves two apps on one origin, as the phone sees them: the offline app
(``MUGGINS_OFFLINE``, its own SQLite file) under ``/phone``, where the phone's engine answers,
and the server's app everywhere else. The button's three requests, the offline state, the
failures (the server refusing, the network down) and the retry are all the real module in a
real browser; only the service worker and the Pyodide engine are not here (another branch's),
so the /phone/ requests reach the offline app over HTTP instead of through them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Page, Route, expect
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from app import create_app
from web.serving import served

pytestmark = pytest.mark.e2e

# Worked by hand from RULES.md: Ann deals and turns the 5D (no heels); Bob leads the 5H and Ann
# lays the TS, fifteen two for Ann; then Bob pegs 1 by number.
EVENTS = [{"type": "starter", "card": "5D"}, {"type": "peg", "plays": [[1, "5H"], [0, "TS"]]},
          {"type": "peg", "player": 1, "points": 1}]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[str, Flask, Flask]]:
    """The base URL, the phone's app (under /phone) and the server's app, on one origin."""
    apps = []
    for name, extra in (("phone", {"MUGGINS_OFFLINE": True, "SESSION_COOKIE_NAME": "phone_session"}),
                        ("server", {})):
        folder = tmp_path / name
        apps.append(create_app({"DATABASE_URL": f"sqlite:///{folder / 'db.sqlite'}", **extra},
                               instance_path=str(folder / "instance")))
    phone, server = apps
    both = DispatcherMiddleware(server, {"/phone": phone})
    try:
        with served(both) as base:
            yield base, phone, server
    finally:
        for application in apps:
            application.extensions["muggins.store"].close()


def phone_match(page: Page, base: str, events: list[dict[str, Any]]) -> str:
    """A match of Ann and Bob made on the phone, with ``events``; its id."""
    made = page.request.post(f"{base}/phone/api/matches", data={"players": ["Ann", "Bob"], "first_dealer": 0})
    assert made.status == 201, made.text()
    token: str = made.json()["id"]
    for after, event in enumerate(events):
        resp = page.request.post(f"{base}/phone/api/matches/{token}/events",
                                 data={"after": after, "event": event})
        assert resp.status == 201, resp.text()
    return token


def test_one_tap_uploads_the_match_and_the_screen_then_shares_the_servers_links(
    page: Page, table: tuple[str, Flask, Flask], shot: Callable[[Page, str], None]
) -> None:
    base, _phone, _server = table
    token = phone_match(page, base, EVENTS)
    page.goto(f"{base}/phone/m/{token}")
    expect(page.locator("#upload-title")).to_have_text("Only on this phone")
    shot(page, "phone-upload")
    page.locator("#upload-button").tap()
    expect(page.locator("#shared-title")).to_have_text("Shared: open the table’s link")
    expect(page.locator("#server-link")).to_have_attribute("href", f"{base}/m/{token}")
    expect(page.locator("#phone-upload")).to_have_count(0)
    viewer_id = page.request.get(f"{base}/phone/api/matches/{token}/export").json()["matches"][0]["viewer_id"]
    page.locator(".share summary").first.tap()
    expect(page.locator("#viewer-link")).to_have_text(f"{base}/m/{viewer_id}")
    shot(page, "phone-shared")
    # The server holds the phone's match, the same history and board.
    on_server = page.request.get(f"{base}/api/matches/{token}").json()
    on_phone = page.request.get(f"{base}/phone/api/matches/{token}").json()
    assert on_server == on_phone and on_server["state"]["scores"] == [2, 1]
    # Its links lead there: the server's own screen of the match.
    page.goto(page.locator("#server-link").get_attribute("href") or "")
    expect(page.locator("#score-0")).to_have_text("2")
    expect(page.locator("#phone-upload")).to_have_count(0)


def test_offline_the_button_waits_for_the_connection(page: Page, table: tuple[str, Flask, Flask]) -> None:
    base, _phone, _server = table
    token = phone_match(page, base, EVENTS)
    page.goto(f"{base}/phone/m/{token}")
    button, status = page.locator("#upload-button"), page.locator("#upload-status")
    expect(button).to_be_enabled()
    page.context.set_offline(True)
    expect(button).to_be_disabled()
    expect(status).to_have_text("Uploading needs the connection to the table’s server.")
    page.context.set_offline(False)
    expect(button).to_be_enabled()
    expect(status).to_have_text("")


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("refused", "The upload failed (500): nothing was changed. Try again."),
        ("unreachable", "Cannot reach the table’s server: nothing was changed. Try again when connected."),
    ],
)
def test_a_failed_upload_says_so_changes_nothing_and_can_be_tried_again(
    page: Page, table: tuple[str, Flask, Flask], failure: str, message: str
) -> None:
    base, _phone, _server = table
    token = phone_match(page, base, EVENTS)
    page.goto(f"{base}/phone/m/{token}")

    def fail(route: Route) -> None:
        if failure == "refused":
            route.fulfill(status=500, content_type="text/html", body="<h1>Internal Server Error</h1>")
        else:
            route.abort("connectionfailed")

    page.route(f"{base}/api/groups/import", fail)
    page.locator("#upload-button").tap()
    expect(page.locator("#upload-status")).to_have_text(message)
    expect(page.locator("#upload-button")).to_be_enabled()
    assert page.request.get(f"{base}/api/matches/{token}").status == 404  # nothing on the server
    page.reload()
    expect(page.locator("#phone-upload")).to_have_count(1)  # and nothing noted on the phone
    page.unroute(f"{base}/api/groups/import")
    page.locator("#upload-button").tap()
    expect(page.locator("#shared-title")).to_have_text("Shared: open the table’s link")


def test_a_server_holding_another_copy_says_where_to_carry_on(
    page: Page, table: tuple[str, Flask, Flask]
) -> None:
    # The server got the match at two events (another phone uploaded it then); this phone
    # scored a third. The server's refusal is shown as it wrote it, and nothing is noted.
    base, _phone, _server = table
    token = phone_match(page, base, EVENTS[:2])
    early = page.request.get(f"{base}/phone/api/matches/{token}/export")
    taken = page.request.post(f"{base}/api/groups/import", data=early.body(),
                              headers={"Content-Type": "application/json"})
    assert taken.status == 201
    resp = page.request.post(f"{base}/phone/api/matches/{token}/events",
                             data={"after": 2, "event": EVENTS[2]})
    assert resp.status == 201
    page.goto(f"{base}/phone/m/{token}")
    page.locator("#upload-button").tap()
    expect(page.locator("#upload-status")).to_have_text(
        "this match is already here with another history (2 events here, 3 in the upload): nothing was "
        f"imported; carry on scoring it at its link here, {base}/m/{token}")
    page.reload()
    expect(page.locator("#phone-upload")).to_have_count(1)
