"""The live camera on the count page, in Chromium with a fake camera: the camera "films" a generated
show (``vision.synth.render_show``), the page reads its frames as they come, outlines the cards,
takes the reading by itself once three frames running name the same cards, and the photo flow's
confirm screen counts it with one tap. A refused camera says so and leaves the file input.

The fake camera plays a YUV4MPEG2 file written here from the show's pixels (a few seconds at 5
frames a second, each frame shifted by a pixel or two, as a hand-held phone would), through
Chromium's ``--use-file-for-fake-video-capture``. The expected total is the rules engine's count
of the show's own cards (``scorer.show.score_show``), not the page's.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import Browser, Page, Playwright, Request, expect

from scorer.cards import Card
from scorer.show import score_show
from tests.e2e.conftest import CHROMIUM_ARGS, _chromium
from vision.synth import SyntheticPhoto, render_show

pytestmark = pytest.mark.e2e

SHOW_SEED = 202
"""The show of test_photo.py: 5♥ A♥ K♣ 5♠ with the K♦ lying apart, which the recogniser reads."""
FRAME_SIZE = (1280, 960)
"""The fake camera's picture, width by height: what the page asks a phone's camera for."""
FPS = 5
SECONDS = 3
"""The file's length; Chromium plays it in a loop."""
JITTER_PX = 2
"""Largest shift of a frame, either way: the cards move a little, as in a hand-held phone."""
TAKEN_S = 60_000
"""Longest wait for the reading to be taken (each frame costs about a second of the busy 2-core
CI machine's CPU, and three must agree)."""
FAKE_CAMERA = ["--use-fake-device-for-media-stream"]
FAKE_CAMERA_ALLOWED = ["--use-fake-ui-for-media-stream"]


def write_y4m(path: Path, photo: SyntheticPhoto) -> None:
    """The show as a YUV4MPEG2 (4:2:0) video, each frame the photo shifted by up to JITTER_PX."""
    width, height = FRAME_SIZE
    picture = cv2.resize(photo.image, FRAME_SIZE, interpolation=cv2.INTER_AREA)
    shifts = np.random.default_rng(SHOW_SEED).integers(-JITTER_PX, JITTER_PX + 1, size=(FPS * SECONDS, 2))
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{FPS}:1 Ip A1:1 C420\n".encode("ascii"))
        for dx, dy in shifts:
            frame = np.roll(picture, (int(dy), int(dx)), axis=(0, 1))
            out.write(b"FRAME\n")
            out.write(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())  # Y, then U, then V planes


@pytest.fixture(scope="module")
def show() -> SyntheticPhoto:
    """The generated show the camera films."""
    photo = render_show(SHOW_SEED, harsh=False)
    assert photo.cards == ("5H", "AH", "KC", "5S", "KD")  # four hand cards, then the starter
    return photo


@pytest.fixture(scope="module")
def camera_video(show: SyntheticPhoto, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fake camera's video file."""
    path = tmp_path_factory.mktemp("camera") / "show.y4m"
    write_y4m(path, show)
    assert path.stat().st_size == FPS * SECONDS * (len(b"FRAME\n") + FRAME_SIZE[0] * FRAME_SIZE[1] * 3 // 2) \
        + len(f"YUV4MPEG2 W{FRAME_SIZE[0]} H{FRAME_SIZE[1]} F{FPS}:1 Ip A1:1 C420\n")
    return path


TOLD_TO_EXPECT = """
window.toldToExpect = [];
const sendForm = window.fetch;
window.fetch = (url, options) => {
  if (String(url).endsWith("/api/recognise/frame") && options && options.body instanceof FormData) {
    window.toldToExpect.push(options.body.get("expect"));
  }
  return sendForm(url, options);
};
"""
"""Notes the cards each form the page sends says to expect (Chromium's request events carry no
multipart body that holds a file)."""

MOST_MARKS = """
window.mostMarks = 0;
new MutationObserver(() => {
  const marks = document.querySelectorAll("#camera-marks .mark").length;
  window.mostMarks = Math.max(window.mostMarks, marks);
}).observe(document, {childList: true, subtree: true});
"""
"""Notes the most live outlines the page ever showed at once: when three frames agree within a
second the page takes the reading and clears them, quicker than a locator can poll for them."""


def launch(playwright: Playwright, extra: list[str]) -> Browser:
    """Debian's Chromium with a fake camera (its own launch: the flags are the browser's, not a page's)."""
    return playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS + FAKE_CAMERA + extra)


@pytest.fixture
def camera_phone(playwright: Playwright, camera_video: Path, browser_context_args: dict[str, Any],
                 base_url: str) -> Iterator[Page]:
    """A Pixel 7 whose camera films the show, allowed to use it."""
    browser = launch(playwright, [*FAKE_CAMERA_ALLOWED, f"--use-file-for-fake-video-capture={camera_video}"])
    try:
        context = browser.new_context(**{**browser_context_args, "base_url": base_url},
                                      permissions=["camera"])
        yield context.new_page()
        context.close()
    finally:
        browser.close()


@pytest.fixture
def refusing_phone(playwright: Playwright, browser_context_args: dict[str, Any],
                   base_url: str) -> Iterator[Page]:
    """A Pixel 7 with a (fake) camera whose player refused it: no permission granted, no fake prompt."""
    browser = launch(playwright, [])
    try:
        context = browser.new_context(**{**browser_context_args, "base_url": base_url})
        yield context.new_page()
        context.close()
    finally:
        browser.close()


def test_the_camera_takes_the_reading_by_itself(camera_phone: Page, show: SyntheticPhoto,
                                               shot: Callable[[Page, str], None]) -> None:
    page = camera_phone
    frames: list[float] = []
    flying: list[int] = [0, 0]  # frames being read now, and the most at once
    took: list[float] = []  # each answered frame's time on the way and in the server
    sent_at: dict[Request, float] = {}

    def is_frame(request: Request) -> bool:
        return request.method == "POST" and request.url.endswith("/api/recognise/frame")

    def sent(request: Request) -> None:
        if is_frame(request):
            frames.append(time.monotonic())
            sent_at[request] = frames[-1]
            flying[0] += 1
            flying[1] = max(flying)

    def answered(request: Request) -> None:
        if is_frame(request):
            flying[0] -= 1
            took.append(time.monotonic() - sent_at[request])

    page.on("request", sent)
    page.on("requestfinished", answered)
    page.on("requestfailed", answered)
    page.add_init_script(TOLD_TO_EXPECT)
    page.add_init_script(MOST_MARKS)
    page.goto("/")
    expect(page.locator("#photo-file")).to_be_attached()
    opened = time.monotonic()
    page.get_by_role("button", name="Use the camera").tap()
    expect(page.locator("#camera-video")).to_be_visible()
    page.wait_for_function("() => window.mostMarks >= 5", timeout=TAKEN_S)  # the live outlines were drawn
    shot(page, "camera-live")
    assert page.evaluate("window.mostMarks") == 5
    expect(page.locator("#photo-chips")).to_be_visible(timeout=TAKEN_S)  # the photo flow's confirm screen
    taken = time.monotonic()
    hand, starter = show.cards[:4], show.cards[4]
    names = page.locator("#photo-chips [role=img]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))")
    assert sorted(names) == sorted(Card.parse(code).name for code in show.cards)
    starter_chip = f".photo-chip:has([role=img][aria-label='{Card.parse(starter).name}'])"
    expect(page.locator(f"{starter_chip} input[name=starter]")).to_be_checked()  # lying apart: preset
    shot(page, "camera-confirm")
    # Each frame said the show holds five cards: the server reads them from their outlines alone.
    assert page.evaluate("window.toldToExpect") == ["5"] * len(frames)
    page.get_by_role("button", name="Count", exact=True).tap()  # the second tap
    expect(page).to_have_url(re.compile(rf"/hand/[2-9TJQKA][CDHS](-[2-9TJQKA][CDHS]){{3}}/{starter}$"))
    expect(page.locator("#count-total")).to_have_text(str(score_show(" ".join(hand), starter).total))
    assert len(frames) >= 3
    # Never more than two frames at once: the server reads two photos at a time. The next frame
    # goes while the last is read, once a frame takes longer than the page's 250 ms between
    # frames (told the show's five cards, a faster machine may read one in less).
    assert 1 <= flying[1] <= 2
    if statistics.median(took) > 0.35:
        assert flying[1] == 2, took
    span = frames[-1] - frames[0]
    rate = (len(frames) - 1) / span if span else 0.0
    print(f"\ncamera: {len(frames)} frames sent at {rate:.2f} a second; "
          f"reading taken {taken - opened:.1f} s after the camera was opened; a frame answered in "
          f"{statistics.median(took):.2f} s (median)")


def test_a_refused_camera_says_so_and_keeps_the_file_input(refusing_phone: Page,
                                                           shot: Callable[[Page, str], None]) -> None:
    page = refusing_phone
    page.goto("/")
    page.get_by_role("button", name="Use the camera").tap()
    expect(page.locator("#camera-error")).to_have_text(
        "The camera was not allowed. Allow it in the browser’s settings, or take a photo.")
    expect(page.locator("#camera-view")).to_be_hidden()
    expect(page.locator("label[for=photo-file]")).to_be_visible()
    expect(page.locator("#photo-file")).to_be_attached()
    shot(page, "camera-refused")


def test_without_javascript_there_is_no_camera_button(browser: Browser,
                                                      browser_context_args: dict[str, Any]) -> None:
    context = browser.new_context(**{**browser_context_args, "java_script_enabled": False})
    try:
        page = context.new_page()
        page.goto("/")
        expect(page.locator("#camera-open")).to_be_hidden()
        expect(page.locator("label[for=photo-file]")).to_be_visible()
    finally:
        context.close()
