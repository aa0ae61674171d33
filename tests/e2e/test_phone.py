"""End to end on a phone: headless Chromium as a Pixel 7, tapping the real app under waitress.

Known answers worked by hand from docs/RULES.md: 5-5-5-J with the fourth five of the jack's suit is
29; four hearts with a club starter score nothing in the crib; T K 9 (29) then an 8 gives the 9's
player the go, and 8 J 7 6 reaches 31 for 2. The match is to 61: Ann reaching 61 while Bob has
34 is a skunk (45 or less), worth 2 games under the home rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

LIVE_S = 3_000
"""Every phone must show a change within 3 seconds (polling every 2)."""


def tap_cards(page: Page, *cards: str) -> None:
    """Tap picker cards in order, waiting for each to be greyed out by the swapped-in panel."""
    for card in cards:
        page.tap(f"#pick-{card}")
        if page.locator(f"#pick-{card}").count():
            expect(page.locator(f"#pick-{card}")).to_be_disabled()


def open_details(page: Page, selector: str) -> None:
    """Open a disclosure by tapping its summary, unless the page already shows it open."""
    details = page.locator(selector)
    if details.get_attribute("open") is None:
        details.locator("> summary").tap()


def test_count_the_29_hand_by_tapping(page: Page, shot: Callable[[Page, str], None]) -> None:
    page.goto("/")
    expect(page.get_by_role("button", name="five of hearts", exact=True)).to_be_visible()
    tap_cards(page, "5H", "5C", "5S", "JD")
    page.tap("#pick-5D")
    expect(page.locator("#count-total")).to_have_text("29")
    expect(page).to_have_url(re.compile(r"/hand/5H-5C-5S-JD/5D$"))
    expect(page.locator(".spoken")).to_contain_text("his nobs is twenty-nine")
    shot(page, "count-29")


def test_a_crib_flush_of_four_scores_no_flush(page: Page, shot: Callable[[Page, str], None]) -> None:
    page.goto("/")
    page.tap("label[for=kind-crib]")
    expect(page.locator("#count-title")).to_have_text("Count a crib")
    tap_cards(page, "2H", "4H", "6H", "8H")
    page.tap("#pick-KC")
    expect(page.locator("#count-total")).to_have_text("0")
    expect(page.locator(".item")).to_have_count(0)
    expect(page.locator(".rulings")).to_contain_text("a crib flush needs all five cards of one suit")
    shot(page, "count-crib-flush")


def test_pegging_with_a_go_and_a_31(page: Page, shot: Callable[[Page, str], None]) -> None:
    page.goto("/peg")
    tap_cards(page, "TS", "KH", "9D")  # A, B, A: the seat moves on by itself
    expect(page.locator("#peg-count")).to_have_text("29")
    tap_cards(page, "8C")  # B cannot play on 29: the 8 starts a new count, A pegs the go
    expect(page.locator("#peg-count")).to_have_text("8")
    expect(page.locator(".awards.latest")).to_contain_text("A: go +1")
    tap_cards(page, "JS", "7H", "6S")
    expect(page.locator("#peg-count")).to_have_text("31")
    expect(page.locator(".awards.latest")).to_contain_text("A: thirty-one +2")
    expect(page.locator("#who-A-label .seat-points")).to_have_text("3")
    expect(page.locator("#who-B-label .seat-points")).to_have_text("0")
    shot(page, "peg-go-31")
    page.get_by_role("button", name="Undo last card").tap()
    expect(page.locator("#peg-count")).to_have_text("25")
    expect(page.locator("#who-A-label .seat-points")).to_have_text("1")


def test_a_short_match_on_two_phones_ends_in_a_skunk(
    page: Page, new_phone: Callable[[], Page], shot: Callable[[Page, str], None]
) -> None:
    scorer = page
    scorer.goto("/matches")
    scorer.fill("#name1", "Ann")
    scorer.fill("#name2", "Bob")
    scorer.tap("label[for=target-61]")
    scorer.select_option("#first_dealer", "0")
    shot(scorer, "match-new")
    scorer.get_by_role("button", name="Start the match").tap()
    expect(scorer.locator("#prompt")).to_have_text("Game 1, hand 1: Ann deals; turn the starter")

    open_details(scorer, "details.share")
    viewer_url = scorer.locator("#viewer-link").get_attribute("href")
    assert viewer_url
    viewer = new_phone()
    viewer.goto(viewer_url)
    expect(viewer.locator("#prompt")).to_have_text("Game 1, hand 1: Ann deals; turn the starter")
    expect(viewer.locator("#actions")).to_have_count(0)

    def scores(score_0: str, score_1: str) -> None:
        for phone in (scorer, viewer):
            expect(phone.locator("#score-0")).to_have_text(score_0, timeout=LIVE_S)
            expect(phone.locator("#score-1")).to_have_text(score_1, timeout=LIVE_S)

    def pad(points: int) -> None:
        scorer.locator(f".show-pad button[value='{points}']").tap()

    # Hand 1: no cards entered. Bob pegs 10 in the play, then the shows by number.
    scorer.get_by_role("button", name="Scores only: no cards this match").tap()
    expect(scorer.locator("#prompt")).to_have_text("Game 1, hand 1: Ann deals; the play, Bob leads")
    open_details(scorer, "#peg-card-1 details.more-pad")
    scorer.get_by_role("button", name="Peg 10 for Bob").tap()
    scores("0", "10")

    # A slip (6 more for Bob), undone after the confirm step: every phone sees it go.
    scorer.get_by_role("button", name="Peg 6 for Bob").tap()
    scores("0", "16")
    scorer.get_by_role("link", name=re.compile(r"Undo #3")).tap()
    expect(scorer.locator("#confirm-title")).to_have_text("Undo #3?")
    shot(scorer, "match-undo-confirm")
    scorer.get_by_role("button", name="Undo #3").tap()
    scores("0", "10")

    pad(24)  # Bob's hand
    scores("0", "34")
    pad(29)  # Ann's hand
    scores("29", "34")
    pad(28)  # Ann's crib
    scores("57", "34")
    shot(scorer, "match-scorer")
    shot(viewer, "match-viewer")

    # Hand 2: Bob deals, Ann counts first and goes out.
    expect(scorer.locator("#prompt")).to_have_text("Game 1, hand 2: Bob deals; the play, Ann leads")
    pad(4)
    scores("61", "34")
    expect(scorer.locator("#summary-title")).to_have_text("Ann won the match 1–0 in games")
    expect(scorer.locator(".games tbody tr")).to_have_text(re.compile(r"1\s*Ann\s*61–34\s*skunk\s*2"))
    expect(viewer.locator("#summary-title")).to_have_text("Ann won the match 1–0 in games", timeout=LIVE_S)
    for phone in (scorer, viewer):  # the winner and the Statistics link once each
        expect(phone.locator("#live > :not(.recent)").filter(has_text="Ann won the match")).to_have_count(1)
        expect(phone.get_by_role("link", name="Statistics")).to_have_count(1)
    shot(scorer, "match-over")
    shot(viewer, "match-over-viewer")

    viewer.get_by_role("link", name="History").tap()
    expect(viewer.locator("#e4")).to_contain_text("undo #3: Bob pegs 6")
    expect(viewer.locator("#e3")).to_have_class(re.compile("voided"))
    shot(viewer, "match-history")
    viewer.goto(viewer_url + "/stats")
    expect(viewer.locator(".stats")).to_contain_text("Skunks given")
    shot(viewer, "match-stats")


def test_which_to_throw_ranks_the_players_guess(page: Page, shot: Callable[[Page, str], None]) -> None:
    page.goto("/")
    page.get_by_role("link", name="Which to throw?").tap()
    expect(page.locator("#discard-title")).to_have_text("Which to throw?")
    page.tap("label[for=dealer-yes]")
    expect(page.locator("#dealer-yes")).to_be_checked()
    tap_cards(page, "5H", "5C", "5S", "JD", "2C")
    page.tap("#pick-9D")
    page.tap("label[for=guess-5H]")
    page.tap("label[for=guess-5C]")
    page.get_by_role("button", name="Rank").tap()
    expect(page.locator(".throws tbody tr")).to_have_count(15)
    expect(page.locator(".verdict")).to_contain_text("ranks")
    expect(page.locator(".throws tbody tr.mine")).to_contain_text("yours")
    shot(page, "discard")


def test_dark_theme_count_page(new_phone: Callable[[], Page], shot: Callable[[Page, str], None]) -> None:
    page = new_phone()
    page.emulate_media(color_scheme="dark")
    page.goto("/hand/JC-2H-4H-6H/8H")
    expect(page.locator(".rulings")).to_contain_text("the starter cannot complete it")
    shot(page, "count-rulings-dark")


TARGET_PX = 44
"""Smallest touch target, both ways (WCAG 2.5.5)."""
TAPPABLE = "button:visible, a.btn:visible, .tabs a:visible, .segmented label:visible, label.seat:visible, " \
           "label.choice:visible, label.toggle-card:visible, summary:visible"


@pytest.mark.parametrize("path", ["/", "/peg?plays=A:5H+B:TS", "/discard?cards=5H-5C-5S-JD-2C-9D&rank=1",
                                  "/matches", "/hand/5H-5C-5S-JD/5D?claimed=27"])
def test_touch_targets_are_big_enough_at_360_px(new_phone: Callable[[], Page], path: str) -> None:
    page = new_phone()
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(path)
    small = page.eval_on_selector_all(
        TAPPABLE,
        """(els, min) => els.map(e => [e.outerHTML.slice(0, 80), e.getBoundingClientRect()])
             .filter(([, r]) => r.width < min || r.height < min)
             .map(([html, r]) => `${html} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TARGET_PX,
    )
    assert small == []
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, "nothing may scroll sideways at 360 px"


def test_touch_targets_on_the_score_screen(new_phone: Callable[[], Page]) -> None:
    page = new_phone()
    created = page.request.post("/api/matches", data={"players": ["Ann", "Bob"], "first_dealer": 0}).json()
    page.request.post(f"/api/matches/{created['id']}/events",
                      data={"after": 0, "event": {"type": "starter", "card": "5D"}})
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"/m/{created['id']}")
    page.locator("details.count-area > summary").tap()
    small = page.eval_on_selector_all(
        TAPPABLE,
        """(els, min) => els.map(e => [e.outerHTML.slice(0, 80), e.getBoundingClientRect()])
             .filter(([, r]) => r.width < min || r.height < min)
             .map(([html, r]) => `${html} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
        TARGET_PX,
    )
    assert small == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
