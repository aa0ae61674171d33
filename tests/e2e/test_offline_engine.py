"""The phone's engine in Chromium: the real module worker running the app under Pyodide, no mocks.

Every hand-worked known answer of tests/data/ (117 shows, 34 finished plays) goes through the
worker's ``/api/score`` and ``/api/peg`` and must come back as the server answers it, byte for
byte, and at the hand-worked total. The database the worker keeps survives a new page (IndexedDB).
Needs the offline bundle (``make setup`` builds it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from known_answers import plays, shows
from playwright.sync_api import Page

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BOOT_MS = 120_000
"""A generous ceiling for a cold start on a loaded CI machine (bench/offline.py measures it)."""

RUN = """async (calls) => {
  const { engine } = await import("/static/js/offline/engine.mjs");
  const out = [];
  for (const [url, body] of calls) {
    const headers = [["Content-Type", "application/json"]];
    const answer = await engine.request({ method: "POST", url, headers, body });
    out.push([answer.status, new TextDecoder().decode(answer.body)]);
  }
  return out;
}"""


@pytest.fixture(autouse=True)
def _bundle_built() -> None:
    if not (ROOT / "build" / "offline" / "bundle.json").is_file():
        pytest.fail("the offline bundle is not built: run make setup (scripts/build_offline.py)")


def test_every_known_answer_through_the_worker(page: Page) -> None:
    page.set_default_timeout(BOOT_MS)
    page.goto("/")
    calls: list[tuple[str, str, Any]] = []
    for known in shows():
        calls.append(("/api/score", json.dumps(known.body), known))
    for known in plays():
        calls.append(("/api/peg", json.dumps(known.body), known))
    answers = page.evaluate(RUN, [[url, body] for url, body, _ in calls])
    assert len(answers) == len(calls) == len(shows()) + len(plays())
    for (url, body, known), (status, text) in zip(calls, answers, strict=True):
        server = page.request.post(url, data=body, headers={"Content-Type": "application/json"})
        assert (status, text) == (server.status, server.text()), known.where
        if known.total is not None:
            assert json.loads(text)["total"] == known.total, known.where
        else:
            assert json.loads(text)["points"] == known.points, known.where


def test_the_phone_keeps_its_database_across_pages(page: Page, new_phone: Any) -> None:
    """A match made through the worker is there after the page closes and a new one opens."""
    page.set_default_timeout(BOOT_MS)
    page.goto("/")
    made = page.evaluate("""async () => {
      const { engine } = await import("/static/js/offline/engine.mjs");
      const answer = await engine.request({ method: "POST", url: "/phone/api/matches",
        headers: [["Content-Type", "application/json"]], body: JSON.stringify({ players: ["Ann", "Bob"] }) });
      return [answer.status, JSON.parse(new TextDecoder().decode(answer.body))];
    }""")
    assert made[0] == 201
    token = made[1]["id"]
    assert made[1]["links"]["scorer"].endswith(f"/phone/m/{token}")
    second = page.context.new_page()
    second.set_default_timeout(BOOT_MS)
    page.close()
    second.goto("/peg")
    found = second.evaluate("""async (token) => {
      const { engine } = await import("/static/js/offline/engine.mjs");
      const answer = await engine.request({ method: "GET", url: "/phone/api/matches/" + token });
      return [answer.status, JSON.parse(new TextDecoder().decode(answer.body))];
    }""", token)
    assert found[0] == 200
    assert found[1]["settings"]["players"] == ["Ann", "Bob"]
