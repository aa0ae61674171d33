"""End to end at the table: the taps a player makes on a phone (Pixel 7, 360 px wide), counted.

Known answers worked by hand from docs/RULES.md, "Skunks": under the home rules at 121 a loser on
61 to 90 is skunked (2 games); under "skunk at 30 or less, no double" at 61 a loser on 30 or
less loses a skunk worth 2, and never a double. Every hand's points are checked on both scores
after each tap, so a tap that lands on the wrong player fails at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.e2e

NARROW = {"width": 360, "height": 780}
"""The narrowest phone the app is laid out for."""
HAND_TAPS = 7
"""The most taps a 2-player hand by numbers may take: two pegs, two shows and the crib."""


class Taps:
    """Taps on one phone, counted: every tap of these tests goes through here."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def __call__(self, target: Locator) -> None:
        target.tap()
        self.count += 1

    def button(self, name: str) -> None:
        self(self.page.get_by_role("button", name=name, exact=True))

    def pad(self, points: int) -> None:
        self(self.page.locator(f".show-pad button[value='{points}']"))


def both(page: Page, first: int, second: int) -> None:
    expect(page.locator("#score-0")).to_have_text(str(first))
    expect(page.locator("#score-1")).to_have_text(str(second))


def narrow_phone(new_phone: Callable[[], Page], dark: bool = False) -> Page:
    page = new_phone()
    page.set_viewport_size(NARROW)
    if dark:
        page.emulate_media(color_scheme="dark")
    return page


def shots(page: Page, shot: Callable[[Page, str], None], name: str) -> None:
    """The page as it is, then in the dark theme."""
    shot(page, name)
    page.emulate_media(color_scheme="dark")
    shot(page, f"{name}-dark")
    page.emulate_media(color_scheme="light")


def test_one_tap_start_then_a_121_game_by_numbers_to_a_skunk(
    new_phone: Callable[[], Page], shot: Callable[[Page, str], None]
) -> None:
    page = narrow_phone(new_phone)
    taps = Taps(page)
    page.goto("/matches")
    shots(page, shot, "table-matches")
    taps.button("I deal")
    assert taps.count == 1
    expect(page.locator("h1")).to_have_text("You v Opponent")
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 1: you deal; turn the starter")
    expect(page.locator("#settings-line")).to_have_text("a single game · to 121 · rules: Home")
    shots(page, shot, "table-start")

    per_hand: list[int] = []
    # Hand 1, You deal: scores only once for the match, then Opponent pegs 2 and You 6; Opponent
    # shows 20, You 28 and your crib 24: You 58, Opponent 22.
    start = taps.count
    taps.button("Scores only: no cards this match")
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 1: you deal; the play, Opponent leads")
    taps.button("Peg 2 for Opponent")
    both(page, 0, 2)
    taps.button("Peg 6 for You")
    both(page, 6, 2)
    shots(page, shot, "table-pegging")
    taps.pad(20)
    both(page, 6, 22)
    taps.pad(28)
    both(page, 34, 22)
    expect(page.locator("details.pad-box")).to_have_attribute("open", "")  # the crib's pad is there
    shots(page, shot, "table-crib")
    taps.pad(24)
    both(page, 58, 22)
    per_hand.append(taps.count - start)

    # Hand 2, Opponent deals, You count first: You 6 and 28, Opponent 2, 20 and a crib of 12.
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 2: Opponent deals; the play, you lead")
    start = taps.count
    taps.button("Peg 6 for You")
    both(page, 64, 22)
    taps.button("Peg 2 for Opponent")
    both(page, 64, 24)
    taps.pad(28)
    both(page, 92, 24)
    taps.pad(20)
    both(page, 92, 44)
    taps.pad(12)
    both(page, 92, 56)
    per_hand.append(taps.count - start)

    # Hand 3, You deal: You peg 6 (98), Opponent 4 (60) and shows 10 (70); your hand of 24 takes
    # you home: 121-70, a skunk (61 to 90), 2 games.
    start = taps.count
    taps.button("Peg 6 for You")
    both(page, 98, 56)
    taps.button("Peg 4 for Opponent")
    both(page, 98, 60)
    taps.pad(10)
    both(page, 98, 70)
    taps.pad(24)
    both(page, 121, 70)
    per_hand.append(taps.count - start)

    expect(page.locator("#summary-title")).to_have_text("You won the match 1–0 in games")
    expect(page.locator(".games tbody tr")).to_have_text(re.compile(r"1\s*You\s*121–70\s*skunk\s*2"))
    expect(page.locator("#live > :not(.recent)").filter(has_text="You won the match")).to_have_count(1)
    expect(page.get_by_role("link", name="Statistics")).to_have_count(1)
    shots(page, shot, "table-skunk")
    print(f"taps per hand: {per_hand}")  # the report reads them with pytest -s
    assert per_hand == [6, 5, 4]
    assert max(per_hand) <= HAND_TAPS

    # Rename later: the history keeps what was said, the board the new names.
    page.locator("#match-settings > summary").tap()
    page.fill("#rename-0", "Ann")
    page.fill("#rename-1", "Bob")
    page.get_by_role("button", name="Rename").tap()
    expect(page.locator("h1")).to_have_text("Ann v Bob")
    expect(page.locator("#summary-title")).to_have_text("Ann won the match 1–0 in games")
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]


def test_a_three_player_hand_with_cards_refuses_a_mislabelled_play(
    new_phone: Callable[[], Page], shot: Callable[[Page, str], None]
) -> None:
    page = narrow_phone(new_phone)
    page.goto("/matches")
    for field, name in (("#name1", "Ann"), ("#name2", "Bob"), ("#name3", "Cat")):
        page.fill(field, name)
    page.tap("label[for=tps-each-loser]")
    page.select_option("#first_dealer", "0")
    page.get_by_role("button", name="Start the match").tap()
    expect(page.locator("#settings-line")).to_contain_text("skunks judged on each loser")
    page.tap("#pick-KC")  # the starter
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 1: the play, Bob leads")
    # Cat's card tapped as the lead: Bob, on the dealer's left, leads. Refused beside the play.
    page.tap("label[for=who-2]")
    page.tap("#pick-5H")
    refusal = "Bob leads the play (the player on the dealer's left), not Cat."
    expect(page.locator("#play-error")).to_have_text(refusal)
    expect(page.locator("#score-0")).to_have_text("0")
    expect(page.locator("#pick-5H")).to_be_enabled()  # nothing was stored
    shots(page, shot, "table-three-refused")
    page.tap("label[for=who-1]")  # Bob's 5, then Cat's 10 for fifteen two
    page.tap("#pick-5H")
    expect(page.locator("#pick-5H")).to_be_disabled()
    page.tap("#pick-TS")  # Cat is preselected now
    expect(page.locator("#score-2")).to_have_text("2")
    expect(page.locator("#score-1")).to_have_text("0")
    shots(page, shot, "table-three-play")


def test_a_61_point_game_with_the_30_or_less_skunk(
    new_phone: Callable[[], Page], shot: Callable[[Page, str], None]
) -> None:
    page = narrow_phone(new_phone)
    page.goto("/matches")
    page.fill("#name1", "Ann")
    page.fill("#name2", "Bob")
    page.tap("label[for=target-61]")
    expect(page.locator(".presets-121")).to_be_hidden()
    choice = page.locator("label[for=preset-61-sixty-one-thirty]")
    expect(choice).to_contain_text("skunk (loser on 30 or less): 2 game points")
    choice.tap()
    page.tap("label[for=entry-scores]")
    page.select_option("#first_dealer", "1")
    shots(page, shot, "table-new-61")
    page.get_by_role("button", name="Start the match").tap()
    expect(page.locator("#settings-line")).to_have_text(
        "a single game · to 61 · rules: Skunk at 30 or less, no double · scores only")
    taps = Taps(page)
    # Bob deals: Ann pegs 12 and shows 29; Bob pegs 2 and shows 4, his crib 6; Ann 41, Bob 12.
    taps(page.locator("#peg-card-0 details.more-pad > summary"))
    taps.button("Peg 12 for Ann")
    taps.button("Peg 2 for Bob")
    both(page, 12, 2)
    taps.pad(29)
    taps.pad(4)
    taps.pad(6)
    both(page, 41, 12)
    # Ann deals: Bob counts first, 8 (20); Ann's 20 takes her home: 61-20, a skunk worth 2, no double.
    taps.pad(8)
    taps.pad(20)
    both(page, 61, 20)
    expect(page.locator(".games tbody tr")).to_have_text(re.compile(r"1\s*Ann\s*61–20\s*skunk\s*2"))
    shots(page, shot, "table-61-skunk")


def test_the_screen_stays_awake_on_plain_http_until_the_match_ends(new_phone: Callable[[], Page]) -> None:
    page = narrow_phone(new_phone)
    # The table's laptop serves plain http, where browsers offer no Wake Lock API: take it away
    # (the test server's 127.0.0.1 counts as secure), so nosleep.js must keep the screen on.
    page.add_init_script("delete Navigator.prototype.wakeLock;")
    created = page.request.post("/api/matches", data={"players": ["Ann", "Bob"], "target": 61,
                                                      "first_dealer": 0, "scores_only": True}).json()
    page.goto(f"/m/{created['id']}")
    assert page.evaluate("typeof window.NoSleep") == "function"  # served by the app itself
    root = page.locator("html")
    expect(root).to_have_attribute("data-awake", "off")  # a video may only start from a tap
    page.get_by_role("button", name="Peg 2 for Bob", exact=True).tap()
    expect(page.locator("#score-1")).to_have_text("2")
    expect(root).to_have_attribute("data-awake", "on")
    # Another phone puts Bob home: the match ends and the screen may sleep again.
    home = {"type": "correction", "player": 1, "points": 59, "reason": "the rest of the game"}
    ended = page.request.post(f"/api/matches/{created['id']}/events", data={"after": 1, "event": home})
    assert ended.status == 201, ended.text()
    expect(page.locator("#summary-title")).to_have_text("Bob won the match 1–0 in games", timeout=3_000)
    expect(root).to_have_attribute("data-awake", "off")


def test_taps_on_a_slow_connection_each_land_once(new_phone: Callable[[], Page]) -> None:
    # On a slow Wi-Fi a player taps the next show before the last one's answer is back. That tap
    # used to be dropped without a sign (one request at a time on the match screen); now the
    # buttons are disabled until the answer comes, so the tap waits and lands on the next pad.
    page = narrow_phone(new_phone)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 400,
                                                   "uploadThroughput": -1, "downloadThroughput": -1})
    taps = Taps(page)
    page.goto("/matches")
    taps.button("I deal")
    taps.button("Scores only: no cards this match")
    taps.button("Peg 2 for Opponent")
    taps.button("Peg 6 for You")
    taps.pad(20)  # Opponent's hand, then at once yours and your crib, without waiting
    taps.pad(28)
    taps.pad(24)
    both(page, 58, 22)
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 2: Opponent deals; the play, you lead")
    assert taps.count == 7
