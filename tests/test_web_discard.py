"""Which to throw? The advisor's page: picking the deal, the ranked table, the player's guess.

Worked by hand: 5-5-5-J kept scores at least 14 with any starter (three fives with the jack are
three fifteens, the three fives a fourth, 8, plus a pair royal, 6) and 29 with the fourth five of
the jack's suit; six cards have C(6,2) = 15 throws, five cards 5.
"""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from web_fixtures import HX, error_for, page_text, post_form

DEAL = "5H-5C-5S-JD-2C-9D"


def rows(body: str) -> list[str]:
    """The text of each row of the throws table."""
    tbody = re.search(r"<tbody>(.*?)</tbody>", body, flags=re.S)
    assert tbody, "no throws table"
    return [page_text(r) for r in re.findall(r"<tr\b.*?</tr>", tbody.group(1), flags=re.S)]


def test_the_table_ranks_every_throw_with_hand_range(client: FlaskClient) -> None:
    query = {"cards": DEAL, "dealer": "1", "rank": "1"}
    body = client.get("/discard", query_string=query).get_data(as_text=True)
    table = rows(body)
    assert len(table) == 15
    best = table[0]
    assert best.startswith("1 2♣ 9♦ 5♥ 5♣ 5♠ J♦")
    assert "14–29" in best
    text = page_text(body)
    for left_out in ("Pegging", "The score on the board", "How opponents really discard"):
        assert left_out in text
    assert "the crib counts for you" in text


def test_three_players_throw_one_of_five(client: FlaskClient) -> None:
    body = client.get("/discard", query_string={"cards": "5H-5C-5S-JD-2C", "players": "3", "rank": "1"}
                      ).get_data(as_text=True)
    assert len(rows(body)) == 5


@pytest.mark.parametrize(
    ("guess", "verdict"),
    [("2C-9D", "Your throw 2♣ 9♦ ranks 1 of 15: the best there is."),
     ("5H-5C", "Your throw 5♥ 5♣ ranks")],
)
def test_the_players_guess_is_ranked(client: FlaskClient, guess: str, verdict: str) -> None:
    resp = client.get("/discard", query_string={"cards": DEAL, "dealer": "1", "rank": "1", "guess": guess})
    text = page_text(resp)
    assert verdict in text
    if guess == "5H-5C":
        assert "points on average against the best" in text
        assert "ranks 1 of" not in text


@pytest.mark.parametrize(
    ("form", "field", "message"),
    [
        ({"cards": "5H 5C 5S JD", "op": "rank"}, "cards", "Deal 6 cards for 2 players (4 so far)."),
        ({"cards": "5H 5C 5S JD 2C 9D", "players": "3", "op": "rank"}, "cards",
         "Too many cards: 5 at most, 6 given."),
        ({"cards": "5H 5C 5S JD 2C 9D", "guess": "2C", "op": "rank"}, "guess",
         "Mark 2 cards to throw, or none (1 marked)."),
        ({"cards": "5H 5C 5S JD 2C 9D", "guess": ["2C", "AS"], "op": "rank"}, "guess",
         "The ace of spades is not one of the cards dealt."),
        ({"cards": "5H 5C 5S JD 2C 9D", "players": "7", "op": "rank"}, "players",
         "Choose 2, 3 or 4 players."),
    ],
)
def test_bad_deals_and_guesses_are_explained(
    client: FlaskClient, form: dict[str, object], field: str, message: str
) -> None:
    resp = post_form(client, "/discard", form)
    assert resp.status_code == 422
    assert error_for(resp, field) == message


def test_picking_then_ranking_without_javascript(client: FlaskClient) -> None:
    tapped = post_form(client, "/discard",
                       {"cards": "5H 5C 5S JD 2C", "tap": "9D", "players": "2", "dealer": "1"})
    assert tapped.headers["Location"] == f"/discard?cards={DEAL}&players=2&dealer=1"
    ranked = post_form(client, "/discard", {"cards": "5H 5C 5S JD 2C 9D", "players": "2", "dealer": "1",
                                            "guess": ["2C", "9D"], "op": "rank"})
    assert ranked.headers["Location"] == f"/discard?cards={DEAL}&players=2&dealer=1&guess=2C-9D&rank=1"


def test_changing_whose_crib_reranks_a_shown_table_in_place(client: FlaskClient) -> None:
    resp = post_form(client, "/discard", {"cards": "5H 5C 5S JD 2C 9D", "players": "2", "dealer": "0",
                                          "rank": "1"}, HX)
    assert resp.status_code == 200
    assert resp.headers["HX-Push-Url"] == f"/discard?cards={DEAL}&players=2&rank=1"
    assert "the crib counts against you" in page_text(resp)
    assert len(rows(resp.get_data(as_text=True))) == 15


def test_a_new_card_forgets_the_table_and_the_guess(client: FlaskClient) -> None:
    resp = post_form(client, "/discard", {"cards": "5H 5C 5S JD 2C 9D", "players": "2", "rank": "1",
                                          "guess": ["2C", "9D"], "op": "back"})
    assert resp.headers["Location"] == "/discard?cards=5H-5C-5S-JD-2C&players=2"
