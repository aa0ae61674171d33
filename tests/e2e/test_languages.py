"""Hindi, Marathi and Tajik phones at the table (issue 26): the phone's own language, no setup.

A Pixel 7 whose locale is ``hi-IN``, ``mr-IN`` or ``tg-TJ`` (so Chromium sends that
Accept-Language) counts, pegs, asks which to throw, reads a photo and scores a one-tap match, all
by tapping, at 360 px wide, the narrowest phone the app is laid out for. Nothing on these screens
may be wider than its button or than the page: the translations are longer than the English.

Known answers worked by hand from docs/RULES.md: 5-5-5-J with the fourth five of the jack's suit
is 29; T K 9 (29) then an 8 gives the 9's player (A) the go. The spoken words are written here
by hand from the team's glossary (translations/GLOSSARY.md, "The spoken count" and "Terms"): 29
is उनतीस in Hindi, एकोणतीस in Marathi, бисту нӯҳ in Tajik; fifteen is पन्द्रह, पंधरा, понздаҳ; a
go is गो, गो, рав. Marathi shows numbers in Devanagari digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from vision.synth import render_show

pytestmark = pytest.mark.e2e

NARROW: ViewportSize = {"width": 360, "height": 780}
READ_S = 20_000
"""Longest wait for a photo to be read (the 2-core CI machine may be busy)."""


@dataclass(frozen=True)
class Speaks:
    """What a phone in one language must show, written by hand from the glossary."""

    lang: str
    locale: str
    twenty_nine: str
    fifteen: str
    go: str
    digits: str  # 0..9 as the language writes them on the screen


LANGUAGES = [
    Speaks("hi", "hi-IN", "उनतीस", "पन्द्रह", "गो", "0123456789"),
    Speaks("mr", "mr-IN", "एकोणतीस", "पंधरा", "गो", "०१२३४५६७८९"),
    Speaks("tg", "tg-TJ", "бисту нӯҳ", "понздаҳ", "рав", "0123456789"),
]


def local(number: int, speaks: Speaks) -> str:
    return "".join(speaks.digits[int(d)] for d in str(number))


OVERFLOWING = """els => els
    .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.outerHTML.slice(0, 100)} ${e.scrollWidth}>${e.clientWidth}`)"""


def assert_fits(page: Page) -> None:
    """No button's or tab's text spills out of it, and nothing scrolls sideways at 360 px."""
    spilled = page.eval_on_selector_all("button, a.btn, a.button, .tabs a", OVERFLOWING)
    assert spilled == [], f"text wider than its button on {page.url}"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= NARROW["width"], f"{page.url} scrolls sideways: {width} px"


def tap_cards(page: Page, *cards: str) -> None:
    """Tap picker cards in order, waiting for each to be greyed out by the swapped-in panel."""
    for card in cards:
        page.tap(f"#pick-{card}")
        if page.locator(f"#pick-{card}").count():
            expect(page.locator(f"#pick-{card}")).to_be_disabled()


@pytest.fixture(scope="module")
def show_photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The show photo of tests/e2e/test_photo.py: 5♥ A♥ K♣ 5♠ with the K♦ lying apart."""
    photo = render_show(202, harsh=False)
    assert photo.cards == ("5H", "AH", "KC", "5S", "KD")
    path = tmp_path_factory.mktemp("photo") / "show.jpg"
    path.write_bytes(photo.jpeg_bytes())
    return path


@pytest.fixture(params=LANGUAGES, ids=lambda s: s.lang)
def speaks(request: pytest.FixtureRequest) -> Speaks:
    param: Speaks = request.param
    return param


@pytest.fixture
def phone_in(browser: Browser, browser_context_args: dict[str, Any], speaks: Speaks) -> Iterator[Page]:
    """A Pixel 7 set to the language's locale, 360 px wide."""
    context = browser.new_context(**{**browser_context_args, "locale": speaks.locale})
    page = context.new_page()
    page.set_viewport_size(NARROW)
    yield page
    context.close()


def test_count_peg_throw_and_photo_in_the_phones_language(
    phone_in: Page, speaks: Speaks, show_photo: Path, shot: Callable[[Page, str], None]
) -> None:
    page = phone_in
    name = f"lang-{speaks.lang}"

    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", speaks.lang)
    tap_cards(page, "5H", "5C", "5S", "JD")
    page.tap("#pick-5D")
    expect(page).to_have_url(re.compile(r"/hand/5H-5C-5S-JD/5D$"))
    expect(page.locator("#count-total")).to_have_text(local(29, speaks))
    spoken = page.locator(".spoken")
    expect(spoken).to_contain_text(speaks.twenty_nine)
    expect(spoken).to_contain_text(speaks.fifteen)
    expect(spoken).not_to_contain_text(re.compile(r"[A-Za-z]{2,}"))
    assert_fits(page)
    shot(page, f"{name}-count-29")

    page.goto("/peg")
    tap_cards(page, "TS", "KH", "9D")  # A, B, A: 29
    expect(page.locator("#peg-count")).to_have_text(local(29, speaks))
    tap_cards(page, "8C")  # B cannot play on 29: the 8 starts a new count, A pegs the go
    expect(page.locator("#peg-count")).to_have_text(local(8, speaks))
    expect(page.locator(".awards.latest")).to_contain_text(speaks.go)
    assert_fits(page)
    shot(page, f"{name}-peg-go")

    page.locator(".tabs a[href='/discard']").tap()
    expect(page.locator("html")).to_have_attribute("lang", speaks.lang)
    page.goto("/discard?cards=5H-5C-5S-JD-2C-9D&dealer=1&rank=1")
    expect(page.locator(".throws tbody tr")).to_have_count(15)
    assert_fits(page)
    shot(page, f"{name}-throw")

    page.goto("/")
    page.set_input_files("#photo-file", str(show_photo))
    expect(page.locator("#photo-chips")).to_be_visible(timeout=READ_S)
    expect(page.locator("html")).to_have_attribute("lang", speaks.lang)
    assert_fits(page)
    shot(page, f"{name}-photo")


def test_a_one_tap_match_and_a_hand_in_the_phones_language(
    phone_in: Page, speaks: Speaks, shot: Callable[[Page, str], None]
) -> None:
    page = phone_in
    name = f"lang-{speaks.lang}"
    page.goto("/matches")
    assert_fits(page)
    shot(page, f"{name}-matches")
    page.tap("#quick-i-deal")
    expect(page.locator("#prompt")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", speaks.lang)
    expect(page.locator("#prompt")).not_to_contain_text(re.compile(r"[A-Za-z]{2,}"))
    assert_fits(page)
    shot(page, f"{name}-match-start")

    def scores(first: int, second: int) -> None:
        expect(page.locator("#score-0")).to_have_text(local(first, speaks))
        expect(page.locator("#score-1")).to_have_text(local(second, speaks))

    # The hand of tests/e2e/test_table.py, the dealer (seat 0) is this phone's player: the other
    # pegs 2, this one 6; shows of 20 and 28 and a crib of 24: 58 to 22.
    page.tap("button[name=op][value=scores_only]")
    # The answer replaces the panel: a tap on the old one while htmx swaps it would be lost.
    expect(page.locator("button[name=op][value=scores_only]")).to_have_count(0)
    page.tap("#peg-card-1 button[name=points][value='2']")
    scores(0, 2)
    page.tap("#peg-card-0 button[name=points][value='6']")
    scores(6, 2)
    assert_fits(page)
    shot(page, f"{name}-match-pegging")
    for points, after in ((20, (6, 22)), (28, (34, 22)), (24, (58, 22))):
        page.tap(f".show-pad button[value='{points}']")
        scores(*after)
    expect(page.locator("#prompt")).not_to_contain_text(re.compile(r"[A-Za-z]{2,}"))
    assert_fits(page)
    shot(page, f"{name}-match-hand")


PHONE_HEAD = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def test_the_fit_check_sees_a_spilling_button_and_a_wide_page(new_phone: Callable[[], Page]) -> None:
    page = new_phone()
    page.set_viewport_size(NARROW)
    page.set_content(f'{PHONE_HEAD}<button style="width:60px;white-space:nowrap;overflow:hidden">'
                     "गेम पॉइंट जोड़ें और आगे बढ़ें</button>")
    with pytest.raises(AssertionError, match="text wider than its button"):
        assert_fits(page)
    page.set_content(f'{PHONE_HEAD}<button>ठीक</button><div style="width:500px">चौड़ा</div>')
    with pytest.raises(AssertionError, match=r"scrolls sideways: 5\d\d px"):
        assert_fits(page)
    page.set_content(f"{PHONE_HEAD}<button>ठीक</button>")
    assert_fits(page)
