"""The count page: picking, typing, the itemized result, its permanent link, rulings, muggins.

Known answers are worked by hand from docs/RULES.md: 5-5-5-J with the fourth five of the jack's
suit is 29; four hearts 2-4-6-8 with a club starter are 4 in hand (even values make no fifteen)
and 0 in the crib; 3-3-4-5 with a king is 12 (two fifteens and a double run of three).
"""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from web_fixtures import HX, error_for, page_text, post_form, text_of


def picker_buttons(body: str) -> dict[str, tuple[str, bool]]:
    """Picker buttons by card code: (accessible name, disabled)."""
    out = {}
    for tag in re.findall(r'<button type="submit" name="tap"[^>]*>', body):
        code = re.search(r'value="(\w\w)"', tag).group(1)  # type: ignore[union-attr]
        name = re.search(r'aria-label="([^"]+)"', tag).group(1)  # type: ignore[union-attr]
        out[code] = (name, " disabled" in tag)
    return out


def test_home_page_has_a_52_card_picker_with_spoken_names(client: FlaskClient) -> None:
    body = client.get("/").get_data(as_text=True)
    buttons = picker_buttons(body)
    assert len(buttons) == 52
    assert buttons["5H"] == ("five of hearts", False)
    assert buttons["TD"] == ("ten of diamonds", False)
    assert buttons["AS"] == ("ace of spades", False)
    assert 'href="/discard"' in body and "Which to throw?" in body


def test_typed_count_redirects_to_its_permanent_link(client: FlaskClient) -> None:
    resp = post_form(client, "/count", {"cards": "5h 5c 5s jd 5d", "kind": "hand", "op": "count"})
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/hand/5H-5C-5S-JD/5D"
    page = client.get(resp.headers["Location"])
    assert page.status_code == 200
    assert text_of(page, "count-total") == "29"
    assert "his nobs is twenty-nine" in page_text(page)


def test_permanent_link_shows_each_item_with_its_cards(client: FlaskClient) -> None:
    page = client.get("/hand/3H-3C-4S-5D/KC")
    body = page.get_data(as_text=True)
    assert text_of(page, "count-total") == "12"
    # Two fifteens (5+K, 3+3+4+5) and two runs of three and a pair: five items.
    assert body.count('<li class="item">') == 5
    assert "a double run of three is twelve" in page_text(page)
    # Each item names the cards it uses for screen readers, e.g. the 5-K fifteen.
    assert 'aria-label="five of diamonds, king of clubs"' in body


@pytest.mark.parametrize(
    ("kind", "total", "flush_items"),
    [("hand", 4, 1), ("crib", 0, 0)],
)
def test_four_card_flush_counts_in_hand_but_not_in_the_crib(
    client: FlaskClient, kind: str, total: int, flush_items: int
) -> None:
    page = client.get(f"/{kind}/2H-4H-6H-8H/KC")
    assert text_of(page, "count-total") == str(total)
    assert page.get_data(as_text=True).count(">flush of four<") == flush_items
    if kind == "crib":
        assert "a crib flush needs all five cards of one suit" in page_text(page)


def test_rulings_name_the_rule_for_heels_and_a_starter_flush(client: FlaskClient) -> None:
    heels = page_text(client.get("/hand/5H-5C-5S-2D/JD"))
    assert "a jack starter gives no nobs" in heels
    starter_flush = page_text(client.get("/hand/JC-2H-4H-6H/8H"))
    assert "the starter cannot complete it" in starter_flush


def test_tapping_builds_the_hand_without_javascript(client: FlaskClient) -> None:
    resp = post_form(client, "/count", {"cards": "", "tap": "5H"})
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/?cards=5H"
    body = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert picker_buttons(body)["5H"] == ("five of hearts, already chosen", True)
    assert 'aria-label="five of hearts"' in body  # drawn in the first hand slot


def test_fifth_tap_shows_the_result_in_place_for_htmx(client: FlaskClient) -> None:
    resp = post_form(client, "/count", {"cards": "5H 5C 5S JD", "tap": "5D", "kind": "hand"}, HX)
    assert resp.status_code == 200
    body = resp.get_data(as_text=True)
    assert "<html" not in body and body.lstrip().startswith('<section id="count-panel"')
    assert resp.headers["HX-Push-Url"] == "/hand/5H-5C-5S-JD/5D"
    assert "HX-Request" in resp.headers["Vary"]
    assert text_of(resp, "count-total") == "29"


def test_a_tap_in_progress_replaces_the_address_instead_of_pushing(client: FlaskClient) -> None:
    resp = post_form(client, "/count", {"cards": "5H", "tap": "KC", "kind": "crib"}, HX)
    assert resp.headers["HX-Replace-Url"] == "/?cards=5H-KC&kind=crib"
    assert "HX-Push-Url" not in resp.headers


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"cards": "5H", "tap": "5H"}, "The five of hearts is already chosen."),
        ({"cards": "5H 5C 5S JD 5D", "tap": "AS"}, "Five cards are in: take one back first."),
        ({"cards": "5h 5x", "op": "count"}, "Bad card '5x' at position 2"),
        ({"cards": "5h 5h", "op": "count"}, "Duplicate card '5H' at positions 1 and 2."),
        ({"cards": "5h 5c", "op": "count"}, "Pick 5 cards: 4 for the hand, then the starter (2 so far)."),
        ({"cards": "5h 5c 5s jd 5d ac", "op": "count"}, "Too many cards: 5 at most, 6 given."),
    ],
)
def test_bad_cards_are_explained_next_to_the_field(
    client: FlaskClient, data: dict[str, str], message: str
) -> None:
    resp = post_form(client, "/count", data)
    assert resp.status_code == 422
    shown = error_for(resp, "cards")
    assert shown is not None and shown.startswith(message)
    assert 'aria-invalid="true" aria-describedby="cards-error"' in resp.get_data(as_text=True)


@pytest.mark.parametrize(
    ("claimed", "verdict"),
    [
        ("10", "Claimed 10, the count is 12: 2 missed."),
        ("14", "Claimed 14, the count is 12: 2 over-counted."),
        ("12", "Claimed 12: that is the count. Nothing missed."),
    ],
)
def test_muggins_check_says_what_was_missed_or_over_counted(
    client: FlaskClient, claimed: str, verdict: str
) -> None:
    resp = post_form(client, "/count", {"cards": "3H 3C 4S 5D KC", "claimed": claimed, "op": "count"})
    assert resp.headers["Location"] == f"/hand/3H-3C-4S-5D/KC?claimed={claimed}"
    assert verdict in page_text(client.get(resp.headers["Location"]))


@pytest.mark.parametrize(
    ("claimed", "message"),
    [("30", "The points claimed cannot be more than 29."),
     ("two", "Enter the points claimed as a whole number, like 12.")],
)
def test_an_impossible_claim_is_refused_beside_the_claim(
    client: FlaskClient, claimed: str, message: str
) -> None:
    resp = post_form(client, "/count", {"cards": "3H 3C 4S 5D KC", "claimed": claimed, "op": "count"})
    assert resp.status_code == 422
    assert error_for(resp, "claimed") == message
    assert text_of(resp, "count-total") == "12"  # the count itself still shows


def test_switching_to_crib_recounts_the_same_cards(client: FlaskClient) -> None:
    resp = post_form(client, "/count", {"cards": "2H 4H 6H 8H KC", "kind": "crib"}, HX)
    assert text_of(resp, "count-total") == "0"
    assert resp.headers["HX-Push-Url"] == "/crib/2H-4H-6H-8H/KC"


def test_take_back_and_clear(client: FlaskClient) -> None:
    back = post_form(client, "/count", {"cards": "5H 5C 5S", "op": "back"})
    assert back.headers["Location"] == "/?cards=5H-5C"
    clear = post_form(client, "/count", {"cards": "5H 5C 5S", "op": "clear"})
    assert clear.headers["Location"] == "/"


def test_a_bad_permanent_link_says_which_card(client: FlaskClient) -> None:
    resp = client.get("/hand/5H-5C-5S-ZZ/5D")
    assert resp.status_code == 400
    assert "Bad card 'ZZ'" in (error_for(resp, "cards") or "")


def test_a_post_without_the_form_token_is_refused_plainly(client: FlaskClient) -> None:
    resp = client.post("/count", data={"cards": "5h 5c 5s jd 5d"})
    assert resp.status_code == 400
    assert "This form has expired" in page_text(resp)
