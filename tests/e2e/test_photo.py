"""The photo flow on a phone at 360 px: upload a generated show photo, correct a card, pick the
starter, and see the count; the same photo fills a match's hand entry.

The photo is ``vision.synth.render_show(202)``: the hand 5♥ A♥ K♣ 5♠ with the K♦ lying apart as
the starter. Totals worked by hand from docs/RULES.md:

- 5♥ 5♦ K♣ 5♠ with the K♦ (the ace corrected to the 5♦): each five with each king is six
  fifteens (12), the three fives make a seventh (2), the fives are a pair royal (6) and the
  kings a pair (2): 22.
- 5♥ A♥ K♣ 5♠ with the K♦, as the photo shows them: four 5-K fifteens (8), the pair of fives
  and the pair of kings (4); the ace makes no fifteen (A+5+5 is 11, A+K+5 is 16): 12.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pillow_heif
import pytest
from PIL import Image
from playwright.sync_api import Browser, FilePayload, Page, Route, expect

from vision.synth import render_show

pytestmark = pytest.mark.e2e

SHOW_SEED = 202
"""A synthetic show whose cards, and whose starter lying apart, the recogniser reads."""
PHONE_WIDTH = (360, 740)
"""The narrowest phone the app supports."""
READ_S = 20_000
"""Longest wait for the upload to be read (the 2-core CI machine may be busy)."""
TARGET_PX = 44
"""Smallest touch target, both ways."""


@pytest.fixture(scope="module")
def show_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated show photo as a JPEG file, ready for the file input."""
    photo = render_show(SHOW_SEED, harsh=False)
    assert photo.cards == ("5H", "AH", "KC", "5S", "KD")  # the truth the totals above are worked from
    path = tmp_path_factory.mktemp("photo") / "show.jpg"
    path.write_bytes(photo.jpeg_bytes())
    return path


def chip(page: Page, name: str) -> str:
    """The selector of the chip (list item) holding the card called ``name``."""
    return f".photo-chip:has([role=img][aria-label='{name}'])"


def keep_the_sure_cards(page: Page) -> None:
    """Tap "Remove the cards marked check this card" when the recogniser also reported cards it
    doubts (the button shows only when there are more cards than wanted), as a player would."""
    if page.locator("#drop-unsure").count():
        page.locator("#drop-unsure").tap()
        expect(page.locator("#drop-unsure")).to_have_count(0)


def small_targets(page: Page, selector: str) -> list[str]:
    """Visible tappable elements under ``selector`` smaller than TARGET_PX either way."""
    found: list[str] = page.eval_on_selector_all(
        selector,
        """(els, min) => els.filter(e => e.offsetParent !== null)
             .map(e => [e.outerHTML.slice(0, 80), e.getBoundingClientRect()])
             .filter(([, r]) => r.width < min || r.height < min)
             .map(([html, r]) => `${html} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TARGET_PX,
    )
    return found


def test_count_a_show_from_a_photo(new_phone: Callable[[], Page], show_photo: Path,
                                   shot: Callable[[Page, str], None]) -> None:
    page = new_phone()
    page.set_viewport_size({"width": PHONE_WIDTH[0], "height": PHONE_WIDTH[1]})
    page.goto("/")
    expect(page.locator("label[for=photo-file]")).to_have_text(re.compile("Take photo"))
    expect(page.locator("#photo-submit")).to_be_hidden()  # photo.js sends the photo once chosen

    held: list[Route] = []
    page.route("**/photo", lambda route: held.append(route))  # hold the upload, to see it being read
    page.set_input_files("#photo-file", str(show_photo))
    expect(page.locator("#photo-progress")).to_be_visible()
    expect(page.locator("#photo-progress")).to_have_text("Reading the cards…")
    shot(page, "photo-reading")
    held[0].continue_()
    page.unroute("**/photo")
    expect(page.locator("#photo-chips")).to_be_visible(timeout=READ_S)
    expect(page.locator("#photo-img")).to_be_visible()
    shot(page, "photo-read")
    keep_the_sure_cards(page)
    expect(page.locator("#photo-chips > li")).to_have_count(5)
    # The K♦ lies apart: it is marked as the starter before anyone taps.
    expect(page.locator(f"{chip(page, 'king of diamonds')} input[name=starter]")).to_be_checked()
    shot(page, "photo-found")
    assert small_targets(page, "#photo-panel button:visible, #photo-panel label.chip-starter, "
                               "#photo-panel a.btn, #photo-panel label.photo-btn") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH[0]

    # Correct the ace to the 5♦: tap its chip, then the card in the picker.
    page.locator(f"{chip(page, 'ace of hearts')} .chip-card").tap()
    expect(page.locator(".chip-actions")).to_contain_text("ace of hearts")
    shot(page, "photo-correcting")
    page.tap("#pick-5D")
    expect(page.locator(chip(page, "five of diamonds"))).to_contain_text("changed")
    expect(page.locator(chip(page, "ace of hearts"))).to_have_count(0)
    expect(page.locator("#photo-img")).to_be_visible()  # the photo stays on screen across corrections
    expect(page.locator(".mark.changed text")).to_have_text(re.compile("5♦"))

    # Pick the starter: try the 5♥, then settle on the K♦ lying apart.
    page.locator(f"{chip(page, 'five of hearts')} label.chip-starter").tap()
    expect(page.locator(f"{chip(page, 'five of hearts')} input[name=starter]")).to_be_checked()
    page.locator(f"{chip(page, 'king of diamonds')} label.chip-starter").tap()
    expect(page.locator(f"{chip(page, 'king of diamonds')} input[name=starter]")).to_be_checked()
    shot(page, "photo-corrected")

    page.get_by_role("button", name="Count", exact=True).tap()
    expect(page).to_have_url(re.compile(r"/hand/[2-9TJQKA][CDHS](-[2-9TJQKA][CDHS]){3}/KD$"))
    expect(page.locator("#count-total")).to_have_text("22")
    hand = page.url.rsplit("/", 2)[1].split("-")
    assert sorted(hand) == sorted(["5H", "5D", "KC", "5S"])
    shot(page, "photo-counted")


def test_a_match_hand_from_a_photo_leaves_the_starter_out(new_phone: Callable[[], Page], show_photo: Path,
                                                          shot: Callable[[Page, str], None]) -> None:
    page = new_phone()
    page.set_viewport_size({"width": PHONE_WIDTH[0], "height": PHONE_WIDTH[1]})
    created = page.request.post("/api/matches", data={"players": ["Ann", "Bob"], "first_dealer": 1}).json()
    page.request.post(f"/api/matches/{created['id']}/events",
                      data={"after": 0, "event": {"type": "starter", "card": "KD"}})
    page.goto(f"/m/{created['id']}")
    page.locator("details.count-area > summary").tap()  # Ann (pone) counts first
    page.set_input_files("#photo-file", str(show_photo))
    expect(page.locator("#photo-chips")).to_be_visible(timeout=READ_S)
    keep_the_sure_cards(page)
    expect(page.locator("#photo-chips > li")).to_have_count(4)
    expect(page.locator("#photo-notes")).to_contain_text("The starter (K♦) is in the photo")
    expect(page.locator(".mark.starter text")).to_have_text(re.compile("starter"))
    shot(page, "photo-match")
    page.get_by_role("button", name="Use these cards").tap()
    expect(page).to_have_url(re.compile(rf"/m/{created['id']}\?cards="))
    expect(page.locator(".preview .total")).to_have_text("12")
    page.locator("#score-button").tap()
    expect(page.locator("#score-0")).to_have_text("12")


def test_the_photo_flow_without_javascript(browser: Browser, browser_context_args: dict[str, Any],
                                           show_photo: Path, shot: Callable[[Page, str], None]) -> None:
    context = browser.new_context(**{**browser_context_args, "java_script_enabled": False})
    try:
        page = context.new_page()
        page.set_viewport_size({"width": PHONE_WIDTH[0], "height": PHONE_WIDTH[1]})
        page.goto("/")
        page.set_input_files("#photo-file", str(show_photo))
        page.locator("#photo-submit").tap()  # without JavaScript the photo is sent by this button
        expect(page.locator("#photo-chips")).to_be_visible(timeout=READ_S)
        keep_the_sure_cards(page)
        expect(page.locator("#photo-chips > li")).to_have_count(5)
        page.locator(f"{chip(page, 'ace of hearts')} .chip-card").tap()
        page.tap("#pick-5D")
        expect(page.locator(chip(page, "five of diamonds"))).to_contain_text("changed")
        # The server kept no photo: the outlines are drawn on a plain background instead.
        expect(page.locator("#photo-img")).to_be_hidden()
        expect(page.locator(".photo-marks .mark:not(.removed)")).to_have_count(5)
        shot(page, "photo-no-js")
        page.get_by_role("button", name="Count", exact=True).tap()  # the K♦ is still the starter
        expect(page.locator("#count-total")).to_have_text("22")
    finally:
        context.close()


def test_a_photo_over_15_mb_is_refused_before_it_is_sent(new_phone: Callable[[], Page]) -> None:
    page = new_phone()
    page.goto("/")
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "POST" else None)
    huge: FilePayload = {"name": "huge.jpg", "mimeType": "image/jpeg", "buffer": b"\0" * (16 * 1024 * 1024)}
    page.set_input_files("#photo-file", files=[huge])
    expect(page.locator("#photo-error")).to_contain_text("That photo is too large (16 MB)")
    expect(page.locator("#photo-error")).to_contain_text("the most the server takes is 15 MB")
    assert sent == []


LARGE_SEED = 8_300_001
"""``render_show(LARGE_SEED, size=(4032, 3024), apart=True)``: the hand 9♠ 7♠ 4♦ Q♠ with the 4♥
lying apart, a 12 MP phone photo. Worked by hand: 7+4+4 is the one fifteen (2; 9+4+4 is 17, and
no two cards make 15), the fours a pair (2); no run (7 and 9 want the 8), no flush (the 4♦ is no
spade), no jack: 4."""
UPLINK_BYTES_S = 20_000_000 / 8
"""A 20 Mbit/s uplink: a phone on the table's Wi-Fi."""


@pytest.fixture(scope="module")
def large_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 12 MP show as a phone's JPEG file (a few MB)."""
    photo = render_show(LARGE_SEED, size=(4032, 3024), harsh=False, apart=True)
    assert photo.cards == ("9S", "7S", "4D", "QS", "4H")
    path = tmp_path_factory.mktemp("photo") / "large.jpg"
    path.write_bytes(photo.jpeg_bytes())
    return path


def test_a_12_mp_photo_is_shrunk_before_it_is_sent(new_phone: Callable[[], Page], large_photo: Path) -> None:
    page = new_phone()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 10,
                                                  "uploadThroughput": UPLINK_BYTES_S,
                                                  "downloadThroughput": UPLINK_BYTES_S})
    page.goto("/")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    original = large_photo.stat().st_size
    started = time.perf_counter()
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/photo")) as sent:
        page.set_input_files("#photo-file", str(large_photo))
    expect(page.locator("#photo-chips")).to_be_visible(timeout=READ_S)
    # Shrunk in the browser: a JPEG of 1600 px on the long side, a few hundred kB. (Playwright does
    # not hand out a multipart body holding a file: its length is in the request's header.)
    body = int(sent.value.all_headers()["content-length"])
    assert original > 2_000_000 and 50_000 < body < 700_000, (original, body)
    expect(page.locator("#photo-chips > li")).to_have_count(5)
    expect(page.locator(f"{chip(page, 'four of hearts')} input[name=starter]")).to_be_checked()
    expect(page.locator("#starter-note")).to_have_text(
        "4♥ lies apart: the starter? If not, tap “Starter” under the right card.")
    expect(page.locator(".chip-note")).to_have_text(["sure"] * 5)
    page.get_by_role("button", name="Count", exact=True).tap()  # the second tap
    expect(page.locator("#count-total")).to_have_text("4", timeout=READ_S)
    print(f"\n12 MP photo ({original / 1e6:.1f} MB) sent as {body / 1e3:.0f} kB; file chosen to total "
          f"over a 20 Mbit/s uplink: {time.perf_counter() - started:.2f} s")
    assert len([url for url in posts if url.endswith("/photo")]) == 1  # sent once, the shrunk file
    assert page.url.rsplit("/", 1)[1] == "4H"
    assert sorted(page.url.rsplit("/", 2)[1].split("-")) == ["4D", "7S", "9S", "QS"]


def test_a_photo_the_browser_cannot_decode_goes_up_whole(new_phone: Callable[[], Page], large_photo: Path,
                                                         tmp_path: Path) -> None:
    # An iPhone's HEIC: Chromium cannot decode it (createImageBitmap fails), so photo.js sends the
    # file as it is, for the server to decode.
    pillow_heif.register_heif_opener()
    heic = tmp_path / "large.heic"
    with Image.open(large_photo) as photo:
        photo.resize((2400, 1800), Image.Resampling.LANCZOS).save(heic, format="HEIF", quality=80)
    page = new_phone()
    page.goto("/")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/photo")) as sent:
        page.set_input_files("#photo-file", str(heic))
    expect(page.locator("#photo-panel")).to_be_visible(timeout=READ_S)  # the server's answer
    # The whole file went up: a photo over 1600 px that the browser could decode goes up shrunk.
    assert int(sent.value.all_headers()["content-length"]) > heic.stat().st_size
