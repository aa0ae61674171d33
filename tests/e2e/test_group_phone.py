"""End to end on a phone: a group of three, two short matches from it, its records and charts.

The matches are played by numbers through the JSON API for speed, except the start of the first,
which is tapped on the group page (roster chips, then "Start the match"). Worked by hand: in the
first match Bob (seat 1) pegs 31 and shows 24, Ann shows 2 and her crib 6; Bob then pegs 6 to
reach 61 against Ann's 8, a skunk (30 or less under the home rules at 61). In the second, Cat
(seat 1) pegs 31 and shows 5H 5C 5S JD with the 5D starter, 29 (docs/RULES.md), then pegs 1 to
61 against Bob's 8.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

FIRST = [{"type": "starter", "card": None}, {"type": "peg", "player": 1, "points": 31},
         {"type": "show", "player": 1, "points": 24}, {"type": "show", "player": 0, "points": 2},
         {"type": "crib", "points": 6}, {"type": "starter", "card": None},
         {"type": "peg", "player": 1, "points": 6}]
SECOND = [{"type": "starter", "card": "5D"}, {"type": "peg", "player": 1, "points": 31},
          {"type": "show", "player": 1, "hand": "5H 5C 5S JD"}, {"type": "show", "player": 0, "points": 2},
          {"type": "crib", "points": 6}, {"type": "starter", "card": None},
          {"type": "peg", "player": 1, "points": 1}]


def play(page: Page, token: str, events: list[dict[str, Any]]) -> None:
    for after, event in enumerate(events):
        resp = page.request.post(f"/api/matches/{token}/events", data={"after": after, "event": event})
        assert resp.status == 201, resp.text()


def test_a_group_of_three_plays_two_matches_and_sees_its_records(
    page: Page, shot: Callable[[Page, str], None]
) -> None:
    page.goto("/")
    page.get_by_role("link", name="Groups").tap()
    page.fill("#group-name", "The Thursday club")
    page.fill("#group-players", "Ann\nBob\nCat")
    page.tap("label[for=target-61]")
    shot(page, "group-new")
    page.get_by_role("button", name="Make the group").tap()
    expect(page.locator("#group-title")).to_have_text("The Thursday club")
    group_url = page.url
    group_token = group_url.rstrip("/").rsplit("/", 1)[1]

    # Tap-driven: two roster chips, the first dealer, and start.
    page.tap("label.pick:has-text('Ann')")
    page.tap("label.pick:has-text('Bob')")
    page.select_option("#group-first-dealer", "0")
    shot(page, "group-pick-players")
    page.get_by_role("button", name="Start the match").tap()
    expect(page.locator("#prompt")).to_have_text("Game 1, hand 1: Ann deals; turn the starter")
    first = page.url.rsplit("/", 1)[1]
    play(page, first, FIRST)

    made = page.request.post("/api/matches", data={"group": group_token, "players": ["Bob", "Cat"],
                                                   "first_dealer": 0})
    assert made.status == 201, made.text()
    play(page, made.json()["id"], SECOND)

    page.goto(group_url)
    standings = page.locator("#standings tbody tr")
    expect(standings).to_have_count(3)
    expect(standings.nth(0)).to_contain_text("Bob")  # 1 game each for Bob and Cat; Bob is first on the roster
    expect(page.locator("#standings")).to_contain_text("Cat")
    expect(page.locator("#head-to-head")).to_contain_text(re.compile(r"Ann\s*0–1\s*Bob"))
    expect(page.locator("#head-to-head")).to_contain_text(re.compile(r"Bob\s*0–1\s*Cat"))
    expect(page.locator("#big-hands")).to_contain_text("29")
    expect(page.locator("#big-hands [aria-label='jack of diamonds']")).to_have_count(1)
    for chart in ("#chart-wins", "#chart-chance", "#chart-race"):
        expect(page.locator(f"{chart} svg")).to_be_visible()
    expect(page.locator("#group-matches li")).to_have_count(2)
    expect(page.locator("#group-matches li").first).to_contain_text("Bob v Cat")  # newest first
    shot(page, "group-records")

    # The race of the first match's game, and Cat's hands against chance, by tapping links.
    page.locator("#group-matches li").nth(1).get_by_role("link", name="race of game 1").tap()
    expect(page.locator("#chart-race svg desc")).to_contain_text("ending Ann 8, Bob 61")
    page.locator(".picks").get_by_role("link", name="Cat").tap()
    expect(page.locator("#chart-chance svg > title")).to_have_text("Cat's hands against chance")

    # 360 px wide, light then dark: the charts stay inside the screen and take the theme's colours.
    page.set_viewport_size({"width": 360, "height": 780})
    for chart in ("#chart-wins", "#chart-chance", "#chart-race"):
        box = page.locator(f"{chart} svg").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    text_light = page.locator("#chart-race svg text").first.evaluate("e => getComputedStyle(e).fill")
    page.locator("#charts-title").scroll_into_view_if_needed()
    shot(page, "group-charts-360-light")
    page.emulate_media(color_scheme="dark")
    page.goto(page.url)
    text_dark = page.locator("#chart-race svg text").first.evaluate("e => getComputedStyle(e).fill")
    assert text_light != text_dark  # currentColor follows the page's text colour
    shot(page, "group-charts-360-dark")
    for chart in ("wins", "chance", "race"):
        page.locator(f"#chart-{chart}").screenshot(path=str(_shots() / f"group-chart-{chart}-360-dark.png"))
    page.emulate_media(color_scheme="light")
    page.goto(page.url)
    for chart in ("wins", "chance", "race"):
        page.locator(f"#chart-{chart}").screenshot(path=str(_shots() / f"group-chart-{chart}-360-light.png"))


def _shots() -> Path:
    return Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"  # as the shot fixture
