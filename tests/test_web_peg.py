"""The pegging calculator: taps in order, whose card, running count, awards, totals, undo.

Known answers from docs/RULES.md "The play": one count of 4, 6, 5, 3, 4 pegs the 5 two for fifteen
and three for the run, the 3 four for a run of four, the last 4 four more (6-5-3-4). A count of
T K 9 (29) that nobody can add to gives the go to the 9's player; a count reaching exactly 31
pegs 2 and no go.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient
from web_fixtures import HX, error_for, page_text, post_form, text_of


def seat_points(body: str, seat: str) -> int:
    """The points shown on a seat's "whose card" button."""
    label = text_of(body, f"who-{seat}-label")
    assert label is not None
    return int(label.split()[-1])


def tap(client: FlaskClient, state: dict[str, str], who: str, card: str) -> dict[str, str]:
    """Play ``card`` for ``who`` as the page's form would; return the new state from the address."""
    resp = post_form(client, "/peg", {**state, "who": who, "tap": card})
    assert resp.status_code == 303, error_for(resp, "tap")
    query = parse_qs(urlsplit(resp.headers["Location"]).query)
    return {k: v[0] for k, v in query.items()}


def test_rules_example_run_and_fifteen_awards(client: FlaskClient) -> None:
    state = {"players": "2"}
    for who, card in (("A", "4S"), ("B", "6H"), ("A", "5D"), ("B", "3C"), ("A", "4D")):
        state = tap(client, state, who, card)
    assert state["plays"] == "A:4S B:6H A:5D B:3C A:4D"
    body = client.get("/peg", query_string=state).get_data(as_text=True)
    assert text_of(body, "peg-count") == "22"
    assert seat_points(body, "A") == 2 + 3 + 4
    assert seat_points(body, "B") == 4
    assert "A: run of four +4" in page_text(body)  # the latest award, as it happened


def test_go_then_thirty_one(client: FlaskClient) -> None:
    state = {"players": "2"}
    for who, card in (("A", "TS"), ("B", "KH"), ("A", "9D"), ("B", "8C")):
        state = tap(client, state, who, card)
    body = client.get("/peg", query_string=state).get_data(as_text=True)
    assert text_of(body, "peg-count") == "8"  # the 8 could not go on 29: a new count
    assert seat_points(body, "A") == 1  # the go
    assert "A: go +1" in page_text(body)
    for who, card in (("A", "JS"), ("B", "7H"), ("A", "6S")):
        state = tap(client, state, who, card)
    body = client.get("/peg", query_string=state).get_data(as_text=True)
    assert text_of(body, "peg-count") == "31"
    assert (seat_points(body, "A"), seat_points(body, "B")) == (1 + 2, 0)


def test_end_of_play_pegs_last_card(client: FlaskClient) -> None:
    state = {"players": "2", "plays": "A:4S B:6H A:5D B:3C A:4D"}
    resp = post_form(client, "/peg", {**state, "op": "finish"})
    body = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert seat_points(body, "A") == 9 + 1
    assert "A: last card +1" in page_text(body)


def test_the_next_seat_is_chosen_after_a_tap_and_can_be_changed(client: FlaskClient) -> None:
    state = tap(client, {"players": "3"}, "A", "5H")
    assert state["who"] == "B"
    state = tap(client, state, "C", "5C")  # B said go: C played
    assert state["plays"] == "A:5H C:5C" and state["who"] == "A"


def test_undo_removes_the_last_card_and_its_awards(client: FlaskClient) -> None:
    state = {"players": "2", "plays": "A:TS B:5H"}
    resp = post_form(client, "/peg", {**state, "op": "undo"})
    query = parse_qs(urlsplit(resp.headers["Location"]).query)
    assert query["plays"] == ["A:TS"] and query["who"] == ["B"]
    body = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert seat_points(body, "B") == 0


@pytest.mark.parametrize(
    ("state", "card", "message"),
    [
        ({"players": "2", "plays": "A:TS"}, "TS", "The ten of spades has already been played."),
        ({"players": "2", "plays": "A:AS A:2S A:3S A:4S", "who": "A"}, "5S",
         "A has played all 4 cards: choose whose card it is."),
        ({"players": "2", "plays": "A:TS", "done": "1"}, "5S",
         "The play is over: undo, or start a new play."),
    ],
)
def test_impossible_taps_are_refused_in_words(
    client: FlaskClient, state: dict[str, str], card: str, message: str
) -> None:
    resp = post_form(client, "/peg", {**state, "tap": card})
    assert resp.status_code == 422
    assert error_for(resp, "tap") == message


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"players": "5"}, "players", "Choose 2, 3 or 4 players."),
        ({"players": "2", "plays": "A:5H C:5C"}, "plays",
         "Play 2 (C:5C): there is no player C at a 2-player table (A, B)."),
        ({"players": "2", "plays": "A:5H B:5X"}, "plays", "Bad play 'B:5X' at position 2"),
    ],
)
def test_bad_state_in_the_address_is_explained(
    client: FlaskClient, query: dict[str, str], field: str, message: str
) -> None:
    resp = client.get("/peg", query_string=query)
    assert resp.status_code == 400
    assert (error_for(resp, field) or "").startswith(message)


def test_htmx_tap_returns_the_panel_and_updates_the_address(client: FlaskClient) -> None:
    resp = post_form(client, "/peg", {"players": "2", "who": "A", "tap": "5H"}, HX)
    assert resp.status_code == 200
    body = resp.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="peg-panel"')
    assert resp.headers["HX-Replace-Url"] == "/peg?players=2&plays=A%3A5H&who=B"
    assert 'aria-label="five of hearts, already chosen"' in body


def test_the_play_list_keeps_each_count_with_its_own_cards(client: FlaskClient) -> None:
    # T K 9 makes 29; the 8 cannot go on, so it leads a new count: 8 J 7 6 reaches 31.
    body = client.get("/peg", query_string={"players": "2", "plays": "A:TS B:KH A:9D B:8C A:JS B:7H A:6S"}
                      ).get_data(as_text=True)
    history = body[body.index('id="peg-history"'):]
    counts = history.split('class="new-count"')
    assert len(counts) == 2  # one line, between the two counts
    newest, oldest = counts
    assert all(f'aria-label="{card}"' in newest for card in
               ("six of spades", "seven of hearts", "jack of spades", "eight of clubs"))
    first = ("ten of spades", "king of hearts", "nine of diamonds")
    assert not any(f'aria-label="{card}"' in newest for card in first)
    assert all(f'aria-label="{card}"' in oldest for card in first)
    assert 'aria-label="eight of clubs"' not in oldest
