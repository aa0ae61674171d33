"""Browser fixtures: the real app under waitress on a free loopback port, Debian's Chromium
driven by Playwright as a Pixel 7 (touch), screenshots saved under ``artifacts/screenshots/``.

Never ``playwright install``: the tests use the system Chromium (``scripts/ensure-chromium``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright

from app import create_app
from web.serving import served

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = "Pixel 7"
"""A phone profile with touch, so the tests can ``tap``."""
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
SERVER_THREADS = 4
"""Two phones polling and one scoring need only a few threads."""


def _chromium() -> str:
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found is None:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail("Chromium is required under CI (scripts/ensure-chromium installs it)")
        pytest.skip("Chromium is not installed here (apt-get install chromium)")
    return found


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch Debian's Chromium, headless, without background traffic."""
    return {**browser_type_launch_args, "executable_path": _chromium(), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def phone(playwright: Playwright) -> dict[str, Any]:
    """The phone profile's context settings."""
    return {k: v for k, v in playwright.devices[PHONE].items() if k != "default_browser_type"}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], phone: dict[str, Any]) -> dict[str, Any]:
    """Every page is a Pixel 7 in the light theme, without the service worker: each new context
    would otherwise download the offline bundle (11 MB). tests/e2e/test_offline_phone.py allows it."""
    return {**browser_context_args, **phone, "color_scheme": "light", "service_workers": "block"}


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app served by waitress in a thread on a free loopback port; yields its base URL."""
    folder = tmp_path_factory.mktemp("live")
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'e2e.db'}"},
                     instance_path=str(folder / "instance"))
    try:
        with served(app, SERVER_THREADS) as base:
            yield base
    finally:
        app.extensions["muggins.store"].close()


@pytest.fixture(scope="session")
def base_url(live_server: str) -> str:
    """Relative ``page.goto("/")`` goes to the live server."""
    return live_server


@pytest.fixture
def new_phone(browser: Browser, browser_context_args: dict[str, Any]) -> Iterator[Callable[[], Page]]:
    """Open more phones (separate contexts: separate cookies) within one test."""
    contexts: list[BrowserContext] = []

    def open_phone() -> Page:
        context = browser.new_context(**browser_context_args)
        contexts.append(context)
        return context.new_page()

    yield open_phone
    for context in contexts:
        context.close()


@pytest.fixture
def shot() -> Callable[[Page, str], None]:
    """Save a full-page screenshot as ``artifacts/screenshots/NAME.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(page: Page, name: str) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return save
