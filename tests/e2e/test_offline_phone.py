"""Muggins with no connection, on a phone (Chromium as a Pixel 7, the real service worker and engine).

One visit online prepares the phone; then, offline: the count page counts the 29 hand (5H 5C 5S JD,
starter 5D: worked by hand in docs/RULES.md), the pegging page pegs a go and a 31 (T K 9 make 29,
the 8 starts a new count and gives A the go, 8 J 7 6 reach 31 for 2), ``fetch("/api/score")`` answers
what the server answers, a new page opened offline counts again, and a match started on the phone
keeps its score over a reload. A shared match's taps made
offline are kept and sent when the connection is back; when another phone changed the match first,
the server's fresh screen is shown and the page asks before sending the rest; when the phone says
"online" before a request gets through, the service worker tries again by itself. A new version on the
server is fetched in the background and used, with a note, at the next start.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from app import create_app
from web.serving import served

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ENGINE_MS = 120_000
"""Ceiling for the engine's cold start on a loaded CI machine (bench/offline.py measures it)."""
SCORE = {"hand": "5H 5C 5S JD", "starter": "5D"}
TAP_MS = 20_000
"""Ceiling for one tap answered by a warm engine on a loaded CI machine (tens of ms when idle)."""

WAKE_LOCKS = """(() => {
  // The Screen Wake Lock API as the page sees it, each lock kept in window.wakeLocks with whether
  // it was released (headless Chromium refuses real ones).
  const locks = [];
  window.wakeLocks = locks;
  const wakeLock = { request: async () => {
    const lock = new EventTarget();
    lock.released = false;
    lock.release = async () => { lock.released = true; lock.dispatchEvent(new Event("release")); };
    locks.push(lock);
    return lock;
  } };
  Object.defineProperty(Navigator.prototype, "wakeLock", { configurable: true, get: () => wakeLock });
})();"""

READY = """async () => {
  if (!navigator.serviceWorker.controller) { return null; }
  const state = await (await caches.open("muggins-state")).match("/offline/__state__");
  return state ? (await state.json()).current : null;
}"""


@pytest.fixture
def phone_with_sw(browser: Browser,
                  browser_context_args: dict[str, Any]) -> Iterator[Callable[..., BrowserContext]]:
    contexts: list[BrowserContext] = []

    def open_context(**extra: Any) -> BrowserContext:
        context = browser.new_context(**{**browser_context_args, "service_workers": "allow", **extra})
        context.set_default_timeout(ENGINE_MS)
        contexts.append(context)
        return context

    yield open_context
    for context in contexts:
        context.close()


def prepare(page: Page, url: str = "/") -> None:
    """The first visit: wait until the service worker controls the page with its version cached."""
    page.goto(url)
    for _ in range(ENGINE_MS // 250):
        if page.evaluate(READY):
            return
        page.wait_for_timeout(250)
    pytest.fail("the service worker did not get ready for offline use")


def tap_cards(page: Page, *cards: str) -> None:
    """Tap in order; the first tap may wait for the engine's cold start."""
    for i, card in enumerate(cards):
        page.tap(f"#pick-{card}")
        if page.locator(f"#pick-{card}").count():
            expect(page.locator(f"#pick-{card}")).to_be_disabled(timeout=ENGINE_MS if i == 0 else 10_000)


def count_29(page: Page) -> None:
    tap_cards(page, "5H", "5C", "5S", "JD")
    page.tap("#pick-5D")
    expect(page.locator("#count-total")).to_have_text("29")
    expect(page.locator(".spoken")).to_contain_text("his nobs is twenty-nine")


def test_count_peg_and_api_offline(phone_with_sw: Callable[..., BrowserContext],
                                   shot: Callable[[Page, str], None]) -> None:
    context = phone_with_sw()
    page = context.new_page()
    prepare(page)
    expect(page.locator("#offline-note")).to_contain_text("works on this phone with no connection")
    exact = page.evaluate("async (body) => { const r = await fetch('/api/score', {method: 'POST', body}); "
                          "return [r.status, await r.text()]; }", json.dumps(SCORE))
    online = page.request.post("/api/score", data=json.dumps(SCORE),
                               headers={"Content-Type": "application/json"})
    assert online.status == 200

    context.set_offline(True)
    page.reload()
    count_29(page)
    expect(page).to_have_url(re.compile(r"/phone/hand/5H-5C-5S-JD/5D$"))
    page.set_viewport_size({"width": 360, "height": 780})
    shot(page, "offline-count-29")
    # The page's own fetch goes to the engine and gets the server's bytes: as sent (no content
    # type, which the server refuses with a 415 too) and as JSON.
    offline = page.evaluate("""async (body) => {
      const plain = await fetch("/api/score", {method: "POST", body});
      const headers = {"Content-Type": "application/json"};
      const typed = await fetch("/api/score", {method: "POST", body, headers});
      return [[plain.status, await plain.text()], [typed.status, await typed.text()]];
    }""", json.dumps(SCORE))
    assert offline[0] == exact
    assert offline[1] == [online.status, online.text()]
    assert json.loads(offline[1][1])["total"] == 29
    # A reload of the count's own address (the phone's app) is answered by the engine, which the
    # new page starts cold.
    page.reload()
    expect(page.locator("#count-total")).to_have_text("29", timeout=ENGINE_MS)

    page.goto("/peg")
    tap_cards(page, "TS", "KH", "9D")
    expect(page.locator("#peg-count")).to_have_text("29")
    tap_cards(page, "8C")
    expect(page.locator(".awards.latest")).to_contain_text("A: go +1")
    tap_cards(page, "JS", "7H", "6S")
    expect(page.locator("#peg-count")).to_have_text("31")
    expect(page.locator(".awards.latest")).to_contain_text("A: thirty-one +2")
    expect(page.locator("#who-A-label .seat-points")).to_have_text("3")
    page.emulate_media(color_scheme="dark")
    shot(page, "offline-peg-dark")

    # Closed, and opened again with no connection: first at the phone's own address (no page has
    # an engine running: the cached shell starts one), then the count page.
    page.close()
    again = context.new_page()
    again.goto("/phone/hand/5H-5C-5S-JD/5D")
    expect(again.locator("#count-total")).to_have_text("29", timeout=ENGINE_MS)
    again.goto("/")
    count_29(again)
    photo = again.evaluate("async () => (await fetch('/phone/discard')).status")
    assert photo == 503

    # A match of the phone's own, started in one tap with no server, is kept over a reload.
    again.goto("/matches")
    again.tap("#quick-i-deal")
    again.wait_for_url(re.compile(r"/phone/m/[\w-]+$"))
    match_url = again.url
    again.get_by_role("button", name="Peg 2 for Opponent", exact=True).tap()
    expect(again.locator("#score-1")).to_have_text("2", timeout=TAP_MS)  # answered by the engine
    again.reload()
    expect(again.locator("#score-1")).to_have_text("2", timeout=ENGINE_MS)
    # The language switch stays in the phone's app: the same match, in Hindi, in the same window.
    again.evaluate("window.sameWindow = true")
    again.locator("footer.langs a[hreflang=hi]").tap()
    # Not one tap's answer: the engine's first page in another language loads that language
    # (11 s on the slow 2-core machine, idle; over TAP_MS there beside another reading).
    expect(again.locator("html")).to_have_attribute("lang", "hi", timeout=ENGINE_MS)
    expect(again.locator("#score-1")).to_have_text("2")
    assert again.url.endswith(urlsplit(match_url).path) and again.evaluate("window.sameWindow") is True


def test_the_app_is_installable(phone_with_sw: Callable[..., BrowserContext]) -> None:
    context = phone_with_sw()
    page = context.new_page()
    prepare(page)
    cdp = context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # Playwright's contexts are incognito windows, where Chromium installs nothing: that alone.
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"].endswith("/static/manifest.webmanifest")


def _peg_2_for_bob(page: Page) -> None:
    page.get_by_role("button", name="Peg 2 for Bob", exact=True).tap()


def _a_tap_kept_offline(context: BrowserContext) -> tuple[Page, str]:
    """A shared match (Ann and Bob, 61, scores only) opened and prepared on a new page, then, with
    no connection, 2 pegged for Bob: the page says the tap is kept. The page and the match's id."""
    page = context.new_page()
    created = page.request.post("/api/matches", data={"players": ["Ann", "Bob"], "target": 61,
                                                      "first_dealer": 0, "scores_only": True}).json()
    match_id: str = created["id"]
    prepare(page, f"/m/{match_id}")
    context.set_offline(True)
    _peg_2_for_bob(page)
    expect(page.locator("#offline-note")).to_contain_text("kept on this phone")
    return page, match_id


def test_a_shared_matchs_taps_wait_for_the_connection(phone_with_sw: Callable[..., BrowserContext],
                                                      shot: Callable[[Page, str], None]) -> None:
    context = phone_with_sw()
    page, match_id = _a_tap_kept_offline(context)
    shot(page, "offline-taps-kept")
    context.set_offline(False)
    expect(page.locator("#score-1")).to_have_text("2")
    state = page.request.get(f"/api/matches/{match_id}?after=0").json()
    assert state["seq"] == 1 and state["events"][0]["event"] == {"type": "peg", "player": 1, "points": 2}

    # Offline again; another phone pegs for Ann meanwhile: the kept tap meets a changed match.
    context.set_offline(True)
    _peg_2_for_bob(page)
    expect(page.locator("#offline-note")).to_contain_text("kept on this phone")
    other = page.request.post(f"/api/matches/{match_id}/events",
                              data={"after": 1, "event": {"type": "peg", "player": 0, "points": 3}})
    assert other.status == 201
    context.set_offline(False)
    expect(page.locator("#offline-note")).to_contain_text("Send them anyway, or drop them?")
    expect(page.locator("#match-screen")).to_contain_text("changed the match first")
    assert page.request.get(f"/api/matches/{match_id}").json()["seq"] == 2  # nothing sent silently
    shot(page, "offline-taps-conflict")
    page.get_by_role("button", name="Send them anyway").tap()
    expect(page.locator("#score-1")).to_have_text("4")
    expect(page.locator("#score-0")).to_have_text("3")


ONLINE_ONLY_WHEN_TOLD = """(() => {
  // The browser's own "online" news is kept from the page; the test says when to announce it.
  window.addEventListener("online", (event) => {
    if (event.isTrusted) { event.stopImmediatePropagation(); }
  }, true);
})();"""


NO_BACKGROUND_SYNC = """// As on Safari and Firefox: no Background Sync.
Object.defineProperty(ServiceWorkerRegistration.prototype, "sync",
                      { configurable: true, get: () => undefined });
"""


SYNC_TAGS = "async () => (await navigator.serviceWorker.ready).sync.getTags()"


def test_kept_taps_go_when_the_online_news_came_too_early(
        phone_with_sw: Callable[..., BrowserContext]) -> None:
    # A phone hears "online" before a request gets through (a Wi-Fi still being handed an
    # address): the service worker's first try fails, and no second "online" comes. On a browser
    # with no Background Sync (Safari, Firefox) nothing else wakes the taps: the worker must try
    # again by itself.
    context = phone_with_sw()
    context.add_init_script(ONLINE_ONLY_WHEN_TOLD)

    def without_sync(route: Route) -> None:
        served = route.fetch()
        route.fulfill(response=served, body=NO_BACKGROUND_SYNC + served.text())

    context.route("**/sw.js", without_sync)
    page, match_id = _a_tap_kept_offline(context)
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the news, with the network still down
    page.wait_for_timeout(200)
    assert page.request.get(f"/api/matches/{match_id}").json()["seq"] == 0
    assert page.evaluate(SYNC_TAGS) == []  # the worker asked for no Background Sync
    context.set_offline(False)  # the network back, with no news of it
    expect(page.locator("#score-1")).to_have_text("2", timeout=TAP_MS)
    assert page.request.get(f"/api/matches/{match_id}").json()["seq"] == 1


def test_kept_taps_can_be_dropped(phone_with_sw: Callable[..., BrowserContext]) -> None:
    context = phone_with_sw()
    page, match_id = _a_tap_kept_offline(context)
    page.request.post(f"/api/matches/{match_id}/events",
                      data={"after": 0, "event": {"type": "peg", "player": 0, "points": 3}})
    context.set_offline(False)
    page.get_by_role("button", name="Drop them").tap()
    expect(page.locator("#offline-note")).to_be_hidden()
    page.wait_for_timeout(1_000)
    assert page.request.get(f"/api/matches/{match_id}").json()["seq"] == 1


@pytest.fixture
def own_bundle_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A second server on a copy of the bundle, so a test can publish a new version."""
    bundle = tmp_path / "offline"
    shutil.copytree(ROOT / "build" / "offline", bundle)
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'update.db'}",
                      "MUGGINS_OFFLINE_BUNDLE": str(bundle)}, instance_path=str(tmp_path / "instance"))
    try:
        with served(app) as base:
            yield base, bundle
    finally:
        app.extensions["muggins.store"].close()


def test_a_new_version_is_used_at_the_next_start(phone_with_sw: Callable[..., BrowserContext],
                                                 own_bundle_server: tuple[str, Path]) -> None:
    base, bundle = own_bundle_server
    context = phone_with_sw()
    page = context.new_page()
    prepare(page, base + "/")
    first = page.evaluate(READY)
    # The server gets a new version: fetched in the background while the phone is online.
    manifest = json.loads((bundle / "bundle.json").read_text())
    manifest["version"] = "0123456789abcdef"
    (bundle / "bundle.json").write_text(json.dumps(manifest))
    page.reload()
    page.wait_for_function("""() => caches.has("muggins-v-0123456789abcdef")""")
    for _ in range(ENGINE_MS // 250):  # complete: the state names it as the next version
        state = page.evaluate("""async () => (await (await caches.open("muggins-state"))
                                 .match("/offline/__state__")).json()""")
        if state["next"] == "0123456789abcdef":
            break
        page.wait_for_timeout(250)
    assert state["current"] == first  # still the version in use while this page is open
    page.close()
    again = context.new_page()
    again.goto(base + "/peg")
    expect(again.locator("#offline-note")).to_contain_text("Muggins was updated.")
    assert again.evaluate(READY) == "0123456789abcdef"


def test_a_match_played_with_no_connection_is_kept_then_shared(
        phone_with_sw: Callable[..., BrowserContext], new_phone: Callable[[], Page],
        shot: Callable[[Page, str], None]) -> None:
    # The whole story on one phone: a 2-player match played to a skunk with no connection
    # (with a slip undone), the page closed and opened again offline, the match found in the
    # list, then uploaded once the connection is back and watched from a second phone.
    context = phone_with_sw()
    context.add_init_script(WAKE_LOCKS)
    page = context.new_page()
    prepare(page)
    context.set_offline(True)
    page.reload()
    page.evaluate("window.sameWindow = true")
    page.get_by_role("link", name="Match", exact=True).tap()
    page.tap("#quick-i-deal")
    page.wait_for_url(re.compile(r"/phone/m/[\w-]+$"))
    phone_url = page.url
    # The list and the new match were written into this page by its running engine: no new page,
    # so no second start of Pyodide (seconds) at each step; one engine, one worker.
    assert page.evaluate("window.sameWindow") is True
    assert len(page.workers) == 1
    held = "window.wakeLocks.filter((lock) => !lock.released).length"
    page.wait_for_function(f"() => {held} === 1", timeout=TAP_MS)  # the score screen keeps it on
    # Back and forward work as between pages, still in this window; the list lets the screen
    # sleep again, and the score screen asks for it to stay on once more.
    page.go_back()
    expect(page.locator("#quick-title")).to_be_visible(timeout=TAP_MS)
    page.wait_for_function(f"() => {held} === 0", timeout=TAP_MS)
    page.go_forward()
    expect(page.locator("#score-1")).to_have_text("0", timeout=TAP_MS)
    assert page.url == phone_url and page.evaluate("window.sameWindow") is True
    page.wait_for_function(f"() => {held} === 1", timeout=TAP_MS)

    def tap(name: str) -> None:
        page.get_by_role("button", name=name, exact=True).tap()

    def pad(points: int) -> None:
        page.locator(f".show-pad button[value='{points}']").tap()

    def both(you: int, opponent: int) -> None:  # each tap is answered by the phone's engine
        expect(page.locator("#score-0")).to_have_text(str(you), timeout=TAP_MS)
        expect(page.locator("#score-1")).to_have_text(str(opponent), timeout=TAP_MS)

    # Hand 1, You deal: Opponent pegs 2, You 6; a slip (6 more for You) is undone; Opponent shows
    # 20, You 28 and your crib 24: 58-22.
    tap("Scores only: no cards this match")
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 1: you deal; the play, Opponent leads",
                                                 timeout=TAP_MS)
    tap("Peg 2 for Opponent")
    both(0, 2)
    tap("Peg 6 for You")
    both(6, 2)
    tap("Peg 6 for You")
    both(12, 2)
    page.get_by_role("link", name=re.compile(r"Undo #4")).tap()
    expect(page.locator("#confirm-title")).to_have_text("Undo #4?", timeout=TAP_MS)
    tap("Undo #4")
    both(6, 2)
    for points, score in ((20, (6, 22)), (28, (34, 22)), (24, (58, 22))):
        pad(points)
        both(*score)
    # Hand 2, Opponent deals: You peg 6, Opponent 2; You show 28, Opponent 20 and a crib of 12.
    tap("Peg 6 for You")
    both(64, 22)
    tap("Peg 2 for Opponent")
    both(64, 24)
    for points, score in ((28, (92, 24)), (20, (92, 44)), (12, (92, 56))):
        pad(points)
        both(*score)
    # Hand 3, You deal: You peg 6, Opponent 4 and shows 10; your 24 takes you home, 121-70: a skunk.
    tap("Peg 6 for You")
    both(98, 56)
    tap("Peg 4 for Opponent")
    both(98, 60)
    pad(10)
    both(98, 70)
    pad(24)
    both(121, 70)
    expect(page.locator("#summary-title")).to_have_text("You won the match 1–0 in games")
    expect(page.locator(".games tbody tr")).to_have_text(re.compile(r"1\s*You\s*121–70\s*skunk\s*2"))
    shot(page, "offline-match-skunk")

    # Closed, and the app opened again with no connection: the match is in the phone's list.
    page.close()
    again = context.new_page()
    again.goto("/")
    again.get_by_role("link", name="Match", exact=True).tap()
    found = again.locator(f"a[href='{urlsplit(phone_url).path}']")
    expect(found.first).to_be_visible(timeout=ENGINE_MS)
    shot(again, "offline-match-list")
    found.first.tap()
    # A page load with no connection: the engine answers it, and may start cold to do so.
    expect(again.locator("#summary-title")).to_have_text("You won the match 1–0 in games", timeout=ENGINE_MS)
    expect(again.locator("#upload-button")).to_be_disabled()

    # Back online: one tap uploads it; the phone then shows the table's links.
    context.set_offline(False)
    again.evaluate("window.dispatchEvent(new Event('online'))")
    again.tap("#upload-button")
    expect(again.locator("#phone-shared")).to_be_visible(timeout=ENGINE_MS)
    viewer_url = again.locator("#viewer-link").get_attribute("href")
    assert viewer_url and "/phone/" not in viewer_url
    shot(again, "offline-match-shared")
    match_id = urlsplit(phone_url).path.rsplit("/", 1)[1]
    here = again.evaluate("async (u) => (await fetch(u)).json()", f"/phone/api/matches/{match_id}")

    # A second phone (no service worker, plain server) watches the same match and its history.
    viewer = new_phone()
    viewer.goto(viewer_url)
    expect(viewer.locator("#summary-title")).to_have_text("You won the match 1–0 in games")
    viewer.get_by_role("link", name="History").tap()
    expect(viewer.locator("#e5")).to_contain_text("undo #4")
    expect(viewer.locator("#e4")).to_have_class(re.compile("voided"))
    viewer_id = urlsplit(viewer_url).path.rsplit("/", 1)[1]
    there = viewer.evaluate("async (u) => (await fetch(u)).json()", f"/api/matches/{viewer_id}")
    assert there["history"] == here["history"] and len(here["history"]) == 17
    assert there["state"] == here["state"]
    shot(viewer, "offline-match-viewer-history")
