"""Match pages without JavaScript: create, score a hand by cards and by numbers, stale forms,
viewer links, live polling, undo with a confirm step, game end, statistics, muggins.

Hand worked by hand from docs/RULES.md: 4-5-5-6 with a 5 starter is four fifteens (5-5-5 and 4-6 with
each five, 8) and a triple run of three (15) = 23. In the play Bob 5, Ann 10 (fifteen, 2 for
Ann), Bob 5, Ann 5 (a pair, 2 for Ann).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import HX, after_seq, count_rows, error_for, page_text, post_form, text_of
from werkzeug.test import TestResponse

NEW = {"name1": "Ann", "name2": "Bob", "target": "121", "preset": "home", "length_kind": "best_of",
       "length_count": "1", "first_dealer": "0", "muggins": "off"}


def create(client: FlaskClient, **fields: str) -> str:
    """Create a match through the form; return its scorer token."""
    resp = post_form(client, "/matches", {**NEW, **fields})
    assert resp.status_code == 303, page_text(resp)
    return resp.headers["Location"].rsplit("/", 1)[1]


def send(client: FlaskClient, token: str, form: str, **fields: str) -> TestResponse:
    """Post one match form as the score screen shows it (with its ``after`` and its key)."""
    screen = client.get(f"/m/{token}")
    key = re.search(rf'name="key" value="([\w-]+-{form})"', screen.get_data(as_text=True))
    return post_form(client, f"/m/{token}/events",
                     {"form": form, "after": str(after_seq(screen)), "key": key.group(1) if key else "",
                      **fields})


def scores(client: FlaskClient, token: str) -> tuple[int, int]:
    page = client.get(f"/m/{token}")
    return int(text_of(page, "score-0") or -1), int(text_of(page, "score-1") or -1)


def viewer_token(client: FlaskClient, token: str) -> str:
    found = re.search(r'id="viewer-link">[^<]*/m/([\w-]+)<', client.get(f"/m/{token}").get_data(as_text=True))
    assert found
    return found.group(1)


def test_create_then_open_the_score_screen(client: FlaskClient) -> None:
    token = create(client)
    page = client.get(f"/m/{token}")
    assert page.status_code == 200
    assert text_of(page, "prompt") == "Game 1, hand 1: Ann deals; turn the starter"
    assert "Ann v Bob" in page_text(client.get("/matches"))  # remembered on this phone


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"name2": ""}, "names", "Enter at least two names."),
        ({"name2": "ann"}, "names", "Two players are called 'ann': give each a different name."),
        ({"length_count": "4"}, "length", "Best of 4 could end level: choose an odd number of games."),
        ({"first_dealer": "3"}, "first_dealer",
         "Choose who deals first among the players named, or cut for it."),
        ({"target": "100"}, "target", "Choose a game of 121 or 61 points."),
    ],
)
def test_bad_settings_are_explained_and_store_nothing(
    web_app: Flask, client: FlaskClient, fields: dict[str, str], field: str, message: str
) -> None:
    resp = post_form(client, "/matches", {**NEW, **fields})
    assert resp.status_code == 422
    assert error_for(resp, field) == message
    assert count_rows(web_app, "matches") == 0


def test_a_hand_scored_from_cards(client: FlaskClient) -> None:
    token = create(client)
    assert send(client, token, "starter", tap="5D").status_code == 303
    for who, card in (("1", "5H"), ("0", "TS"), ("1", "5C"), ("0", "5S")):
        assert send(client, token, "play", who=who, tap=card).status_code == 303
    assert scores(client, token) == (4, 0)
    # At 25 Bob plays 4D (29) and nobody can play on: Bob's go (1); Ann leads KS, Bob 6D, Ann QS
    # (26) and the last card (1). The show waits for the whole play.
    for who, card in (("1", "4D"), ("0", "KS"), ("1", "6D"), ("0", "QS")):
        assert send(client, token, "play", who=who, tap=card).status_code == 303
    assert scores(client, token) == (5, 1)
    # Bob's played cards are already in his hand; a tap finishes it (a draft, nothing stored).
    draft = send(client, token, "show", cards="5H 5C 4D", tap="6D")
    assert draft.status_code == 303 and "cards=5H-5C-4D-6D" in draft.headers["Location"]
    preview = client.get(draft.headers["Location"])
    assert text_of(preview, "score-button") == "Peg 23 for Bob"
    assert send(client, token, "show", cards="5H 5C 4D 6D", op="score").status_code == 303
    assert scores(client, token) == (5, 24)
    assert text_of(client.get(f"/m/{token}"), "prompt") == "Game 1, hand 1: Ann to count"


def test_the_count_form_starts_with_the_cards_the_counter_played(client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", tap="5D")
    send(client, token, "play", who="1", tap="5H")
    body = client.get(f"/m/{token}").get_data(as_text=True)
    assert re.search(r'id="count-cards" name="cards" value="5H"', body)


def test_a_card_seen_elsewhere_is_refused_next_to_the_form(web_app: Flask, client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", tap="5D")
    send(client, token, "play", who="1", tap="5H")
    send(client, token, "play", who="0", tap="TS")
    before = count_rows(web_app, "events")
    resp = send(client, token, "show", cards="5H TS 4D 6D", op="score")
    assert resp.status_code == 422
    assert "TS appears twice in hand 1's deal" in (error_for(resp, "show") or "")
    assert count_rows(web_app, "events") == before


def test_a_stale_form_from_another_phone_is_refused(web_app: Flask, client: FlaskClient) -> None:
    token = create(client)
    old_screen = client.get(f"/m/{token}")
    send(client, token, "starter", tap="5D")  # the other phone
    resp = post_form(client, f"/m/{token}/events",
                     {"form": "starter", "after": str(after_seq(old_screen)), "tap": "6D"})
    assert resp.status_code == 409
    message = error_for(resp, "general") or ""
    assert message.startswith("Another phone changed the match first (hand 1 starter 5D). Nothing was saved")
    assert count_rows(web_app, "events") == 1


@pytest.mark.parametrize(
    ("form", "fields", "message"),
    [
        ("show", {"points": "19"}, "No hand can score 19 (19, 25, 26 and 27 are impossible)."),
        ("peg", {"player": "1", "points_typed": "0", "op": "typed"}, "The points must be from 1 to 60."),
        ("peg", {"player": "7", "points": "2"}, "Choose a player."),
    ],
)
def test_impossible_numbers_are_refused(
    web_app: Flask, client: FlaskClient, form: str, fields: dict[str, str], message: str
) -> None:
    token = create(client)
    send(client, token, "starter", op="skip")
    resp = send(client, token, form, **fields)
    assert resp.status_code == 422
    assert error_for(resp, form) == message
    assert count_rows(web_app, "events") == 1


def test_viewer_link_watches_but_cannot_score(web_app: Flask, client: FlaskClient) -> None:
    token = create(client)
    viewer = viewer_token(client, token)
    page = client.get(f"/m/{viewer}")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert 'name="after"' not in body and "watching" in body
    assert 'http-equiv="refresh"' in body  # without JavaScript the watching page reloads itself
    write = post_form(client, f"/m/{viewer}/events", {"form": "starter", "after": "0", "tap": "5D"})
    assert write.status_code == 403
    assert client.get(f"/m/{viewer}/undo/1").status_code == 403
    assert client.get(f"/m/{viewer}/qr.svg", query_string={"for": "scorer"}).status_code == 403
    assert count_rows(web_app, "events") == 0


def test_live_board_is_204_until_something_changes(client: FlaskClient) -> None:
    token = create(client)
    viewer = viewer_token(client, token)
    assert client.get(f"/m/{viewer}/live", query_string={"since": "0"}, headers=HX).status_code == 204
    send(client, token, "starter", tap="JD")  # his heels: 2 for Ann
    fresh = client.get(f"/m/{viewer}/live", query_string={"since": "0"}, headers=HX)
    assert fresh.status_code == 200
    assert fresh.get_data(as_text=True).lstrip().startswith('<section id="live"')
    assert text_of(fresh, "score-0") == "2"
    assert 'hx-get="/m/' in fresh.get_data(as_text=True) and "since=1" in fresh.get_data(as_text=True)


def test_the_scorers_poll_also_flags_the_entry_forms_as_stale(client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", tap="5D")
    fresh = client.get(f"/m/{token}/live", query_string={"since": "0"}, headers=HX)
    body = fresh.get_data(as_text=True)
    assert 'id="stale-note"' in body and 'hx-swap-oob="true"' in body


def test_undo_asks_first_then_voids(client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="6")
    confirm = client.get(f"/m/{token}/undo/2")
    assert text_of(confirm, "confirm-title") == "Undo #2?"
    assert "Bob pegs 6" in page_text(confirm)
    assert scores(client, token) == (0, 6)
    done = post_form(client, f"/m/{token}/events",
                     {"form": "void", "after": str(after_seq(confirm)), "seq": "2", "reason": "wrong player"})
    assert done.status_code == 303
    assert scores(client, token) == (0, 0)
    history = client.get(f"/m/{token}/history").get_data(as_text=True)
    assert "undone by #3" in page_text(history)
    assert re.search(r'<li class="entry voided" id="e2">', history)


def test_game_end_skunk_next_game_and_summary(client: FlaskClient) -> None:
    token = create(client, target="61", length_count="3")
    # Hand 1 (Ann deals): Bob pegs 10 and shows 24; Ann shows 29 and her crib 28: Ann 57, Bob 34.
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="10")
    send(client, token, "show", points="24")
    send(client, token, "show", points="29")
    send(client, token, "crib", points="28")
    assert scores(client, token) == (57, 34)
    # Hand 2 (Bob deals): Ann counts first and goes out; Bob on 34 is skunked (45 or less of 61).
    send(client, token, "starter", op="skip")
    send(client, token, "show", points="4")
    page = client.get(f"/m/{token}")
    assert text_of(page, "game-over-title") == "Ann won game 1"
    assert "61–34: skunk, 2 game points (home rules)." in page_text(page)
    # The loser deals the next game.
    assert "Start game 2: Bob deals" in page_text(page)
    send(client, token, "next_game")
    assert text_of(client.get(f"/m/{token}"), "prompt") == "Game 2, hand 1: Bob deals; turn the starter"
    stats = page_text(client.get(f"/m/{token}/stats"))
    assert "Average hand 16.5 (2) 24.0 (1)" in stats  # Ann (29 + 4) / 2, Bob 24
    assert "Pegging per hand 0.0 5.0" in stats  # Bob pegged 10 over two hands
    assert "Skunks given 1 0" in stats and "Skunks received 0 1" in stats


def test_match_summary_after_the_last_game(client: FlaskClient) -> None:
    token = create(client, target="61")
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="32")
    send(client, token, "show", points="29")
    page = client.get(f"/m/{token}")
    assert text_of(page, "summary-title") == "Bob won the match 1–0 in games"
    assert "61–0 double skunk 4" in page_text(page)


def test_muggins_claim_takes_the_missed_points(client: FlaskClient) -> None:
    token = create(client, muggins="on")
    send(client, token, "starter", tap="5D")
    send(client, token, "show", cards="5H 5C 4D 6D", claimed="20", op="score")
    assert scores(client, token) == (0, 20)  # with muggins on, Bob pegs only what he claimed
    page = client.get(f"/m/{token}")
    assert "Muggins! Ann takes the 3 Bob missed (#2)" in page_text(page)
    send(client, token, "muggins", player="0", seq="2", points="3", **{"from": "1"})
    assert scores(client, token) == (3, 20)


def test_share_qr_codes_and_unknown_links(client: FlaskClient) -> None:
    token = create(client)
    qr = client.get(f"/m/{token}/qr.svg")
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"
    assert qr.get_data(as_text=True).startswith("<svg")
    assert client.get(f"/m/{token}/qr.svg", query_string={"for": "scorer"}).status_code == 200
    missing = client.get("/m/no-such-match")
    assert missing.status_code == 404 and "There is no match at this link" in page_text(missing)


def test_htmx_submit_returns_the_whole_screen(client: FlaskClient) -> None:
    token = create(client)
    screen = client.get(f"/m/{token}")
    resp = post_form(client, f"/m/{token}/events",
                     {"form": "starter", "after": str(after_seq(screen)), "tap": "JD"}, HX)
    assert resp.status_code == 200
    assert resp.get_data(as_text=True).lstrip().startswith('<div id="match-screen"')
    assert text_of(resp, "score-0") == "2"


def test_htmx_new_match_redirects_the_page(client: FlaskClient) -> None:
    resp = post_form(client, "/matches", NEW, HX)
    assert resp.status_code == 204 and resp.headers["HX-Redirect"].startswith("/m/")


def test_four_players_score_as_two_partnerships(client: FlaskClient) -> None:
    token = create(client, name3="Cat", name4="Dan")
    page = client.get(f"/m/{token}")
    assert "Ann & Cat v Bob & Dan" in page_text(page)
    body = page.get_data(as_text=True)
    assert body.count('class="board-lane') == 2
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="2", points="5")  # Cat pegs for Ann's side
    assert scores(client, token) == (5, 0)


def test_three_players_have_three_lanes(client: FlaskClient) -> None:
    token = create(client, name3="Cat")
    body = client.get(f"/m/{token}").get_data(as_text=True)
    assert body.count('class="board-lane') == 3
    assert 'id="score-2"' in body


class _Forms(HTMLParser):
    """Every form of a page: its action, hidden fields and submit buttons (name, value, label)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, object]] = []
        self._button: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "hidden": {}, "buttons": []})
        elif tag == "input" and a.get("type") == "hidden" and self.forms:
            self.forms[-1]["hidden"][a["name"]] = a.get("value", "")  # type: ignore[index]
        elif tag == "button" and self.forms:
            self._button = {"name": a.get("name", ""), "value": a.get("value", ""),
                            "label": a.get("aria-label", ""), "text": ""}
            self.forms[-1]["buttons"].append(self._button)  # type: ignore[attr-defined]

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self._button = None


def tap(client: FlaskClient, url: str | TestResponse, label: str) -> TestResponse:
    """Tap the one button of the page at ``url`` (or of a page already answered) whose label (or
    text) is ``label``: its form's hidden fields and the button's name and value are posted, as a
    browser does."""
    parser = _Forms()
    parser.feed((client.get(url) if isinstance(url, str) else url).get_data(as_text=True))
    found = [(form, button) for form in parser.forms for button in form["buttons"]  # type: ignore[attr-defined]
             if label in (button["label"], " ".join(button["text"].split()))]
    assert len(found) == 1, f"{len(found)} buttons named {label!r}"
    form, button = found[0]
    fields = {**form["hidden"], **({button["name"]: button["value"]} if button["name"] else {})}  # type: ignore[dict-item]
    return client.post(str(form["action"]), data=fields)


def test_each_player_pegs_from_their_own_card(client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", op="skip")  # the play, Bob leads
    # Ann's +12 twice: the second stays hers (the old shared form moved to the next player).
    assert tap(client, f"/m/{token}", "Peg 12 for Ann").status_code == 303
    assert tap(client, f"/m/{token}", "Peg 12 for Ann").status_code == 303
    assert scores(client, token) == (24, 0)
    assert tap(client, f"/m/{token}", "Peg 2 for Bob").status_code == 303
    assert scores(client, token) == (24, 2)
    body = client.get(f"/m/{token}").get_data(as_text=True)
    for seat, name in enumerate(("Ann", "Bob")):
        card = re.search(rf'id="peg-card-{seat}".*?(?=id="peg-card-|\Z)', body, flags=re.S)
        assert card and f'name="player" value="{seat}"' in card.group(0)
        assert all(f'aria-label="Peg {n} for {name}"' in card.group(0) for n in (1, 2, 3, 4, 6, 12))


@pytest.mark.parametrize(("label", "dealer"), [("I deal", "you deal"), ("They deal", "Opponent deals")])
def test_one_tap_starts_a_match(web_app: Flask, client: FlaskClient, label: str, dealer: str) -> None:
    started = tap(client, "/matches", label)
    assert started.status_code == 303
    page = client.get(started.headers["Location"])
    assert "You v Opponent" in page_text(page)
    assert text_of(page, "prompt") == f"Game 1, hand 1: {dealer}; turn the starter"
    assert "a single game · to 121" in page_text(page)
    assert count_rows(web_app, "matches") == 1


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v is not None]


def duplicate_ids(resp: TestResponse) -> list[str]:
    parser = _Ids()
    parser.feed(resp.get_data(as_text=True))
    return sorted({i for i in parser.ids if parser.ids.count(i) > 1})


def test_no_match_page_repeats_an_element_id(client: FlaskClient) -> None:
    """Labels, error messages and tests find elements by id: each id once per page, in every phase."""
    seen: dict[str, list[str]] = {}

    def check(url: str, what: str) -> None:
        resp = client.get(url)
        assert resp.status_code == 200, what
        seen[what] = duplicate_ids(resp)

    check("/matches", "matches")
    cut = create(client, first_dealer="cut", name3="Cat", muggins="on")
    check(f"/m/{cut}", "cut")
    token = create(client, target="61", muggins="on")
    check(f"/m/{token}", "starter")
    send(client, token, "starter", tap="5D")
    send(client, token, "play", who="1", tap="5H")
    check(f"/m/{token}", "play")  # the play, with the count waiting below
    check(f"/m/{token}?cards=5H-5C", "play with a draft")
    for label in "A:TS B:5C A:5S B:4D A:KS B:6D A:QS".split():
        send(client, token, "play", who=str("AB".index(label[0])), tap=label[2:])
    send(client, token, "show", cards="5H 5C 4D 6D", claimed="20", op="score")
    check(f"/m/{token}", "show, muggins open")
    send(client, token, "show", points="8")
    check(f"/m/{token}", "crib")
    send(client, token, "crib", points="29")
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="0", points="30")  # Ann reaches 61: game and match over
    assert text_of(client.get(f"/m/{token}"), "summary-title")
    for page in ("", "/history", "/stats", "/undo/2"):
        check(f"/m/{token}{page}", f"match over{page}")
    assert seen == {what: [] for what in seen}


def test_the_match_end_says_the_winner_and_links_statistics_once(client: FlaskClient) -> None:
    token = create(client, target="61")
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="32")
    send(client, token, "show", points="29")
    for link in (token, viewer_token(client, token)):
        body = client.get(f"/m/{link}").get_data(as_text=True)
        text = page_text(re.sub(r'<ol class="recent".*?</ol>', "", body, flags=re.S))  # the log says it too
        assert text.count("Bob won the match") == 1
        assert text.count("Statistics") == 1


def test_the_skunk_choices_show_each_targets_own_lines(client: FlaskClient) -> None:
    body = client.get("/matches").get_data(as_text=True)
    sixty_one = page_text(body[body.index('class="presets presets-61"'):body.index("</fieldset>",
                                                                                 body.index("presets-61"))])
    # Worked from docs/RULES.md: at 61 home's skunk is 45 or less, its double 30 or less.
    assert ("Home plain win (loser on 46 or more): 1 game point; skunk (loser on 45 or less): 2 game points; "
            "double skunk (loser on 30 or less): 4 game points") in sixty_one
    assert "Skunk at 30 or less, no double plain win (loser on 31 or more): 1 game point; " \
           "skunk (loser on 30 or less): 2 game points" in sixty_one
    assert "triple skunk (loser on 15 or less): 8 game points" in sixty_one
    one_twenty_one = page_text(body[body.index('class="presets presets-121"'):body.index("presets-61")])
    assert "Skunk at 30 or less" not in one_twenty_one
    assert "triple skunk (loser on 30 or less): 8 game points" in one_twenty_one


def test_a_61_point_game_under_the_30_or_less_rule(client: FlaskClient) -> None:
    token = create(client, target="61", preset_61="sixty-one-thirty")
    line = text_of(client.get(f"/m/{token}"), "settings-line")
    assert line == "a single game · to 61 · rules: Skunk at 30 or less, no double"
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="32")
    send(client, token, "show", points="29")  # Bob reaches 61, Ann on 0: a skunk worth 2, never a double
    assert "61–0 skunk 2" in page_text(client.get(f"/m/{token}"))


def test_a_preset_of_the_other_target_is_refused(web_app: Flask, client: FlaskClient) -> None:
    resp = post_form(client, "/matches", {**NEW, "preset_121": "sixty-one-thirty"})
    assert resp.status_code == 422
    assert error_for(resp, "preset") == "Choose one of the skunk rules for 121: home, acc, lurch, triple."
    assert count_rows(web_app, "matches") == 0


def test_three_players_choose_who_a_skunk_is_judged_on(client: FlaskClient) -> None:
    token = create(client, name3="Cat", three_player_skunk="each-loser", preset_121="triple")
    line = text_of(client.get(f"/m/{token}"), "settings-line")
    assert line == "a single game · to 121 · rules: Home with a triple skunk · skunks judged on each loser"
    two = create(client, three_player_skunk="each-loser")  # two players: the choice has no meaning
    assert "judged" not in (text_of(client.get(f"/m/{two}"), "settings-line") or "")


def test_scores_only_is_remembered_so_no_hand_asks_for_a_starter(client: FlaskClient) -> None:
    token = create(client)
    assert tap(client, f"/m/{token}", "Scores only: no cards this match").status_code == 303
    page = client.get(f"/m/{token}")
    assert text_of(page, "prompt") == "Game 1, hand 1: Ann deals; the play, Bob leads"
    assert "Turn the starter" not in page_text(page)
    assert "scores only" in (text_of(page, "settings-line") or "")
    for label in ("Peg 2 for Bob", "Peg 1 for Ann"):
        tap(client, f"/m/{token}", label)
    for points in ("8", "12", "4"):  # Bob's hand, Ann's hand, Ann's crib: the pad, one tap each
        form = "crib" if points == "4" else "show"
        assert send(client, token, form, points=points).status_code == 303
    page = client.get(f"/m/{token}")
    assert scores(client, token) == (17, 10)
    assert text_of(page, "prompt") == "Game 1, hand 2: Bob deals; the play, Ann leads"
    assert "Turn the starter" not in page_text(page)
    assert tap(client, f"/m/{token}", "Enter cards from now on").status_code == 303
    assert "Turn the starter" in page_text(client.get(f"/m/{token}"))


def test_a_new_match_can_be_scores_only_from_the_start(client: FlaskClient) -> None:
    token = create(client, entry="scores")
    page = client.get(f"/m/{token}")
    assert text_of(page, "prompt") == "Game 1, hand 1: Ann deals; the play, Bob leads"
    assert 'class="pad show-pad"' in page.get_data(as_text=True)  # Bob's hand can be counted at once


def test_rename_the_players_from_the_score_screen(web_app: Flask, client: FlaskClient) -> None:
    token = tap(client, "/matches", "I deal").headers["Location"].rsplit("/", 1)[1]
    resp = send(client, token, "settings", name0="Ann", name1="Bob")
    assert resp.status_code == 303
    page = client.get(f"/m/{token}")
    assert "Ann v Bob" in page_text(page)
    assert text_of(page, "prompt") == "Game 1, hand 1: Ann deals; turn the starter"
    before = count_rows(web_app, "events")
    same = send(client, token, "settings", name0="Ann", name1="ann")
    assert same.status_code == 422
    assert error_for(same, "settings") == "Two players are called 'ann': give each a different name."
    blank = send(client, token, "settings", name0="Ann", name1=" ")
    assert blank.status_code == 422 and error_for(blank, "settings") == "Enter a name for player 2."
    assert count_rows(web_app, "events") == before


def test_a_show_before_the_last_card_offers_that_card_in_one_tap(web_app: Flask, client: FlaskClient) -> None:
    # Bob 5, Ann 10 (fifteen: 2), Bob 5, Ann 5 (a pair: 2); Bob cannot go on 25 with a 9 and an
    # 8, so Ann plays 4 (29) and 2 (31: 2), 6 for Ann; Bob leads 9 and 8 (17) alone.
    token = create(client)
    send(client, token, "starter", tap="KC")
    for label in "B:5H A:TS B:5C A:5S A:4S A:2S B:9D".split():
        assert send(client, token, "play", who=str("AB".index(label[0])), tap=label[2:]).status_code == 303
    before = count_rows(web_app, "events")
    early = send(client, token, "show", cards="5H 5C 9D 8D", op="score")
    assert early.status_code == 422
    assert error_for(early, "show") == ("The play is not finished: Bob's 8D is still to play "
                                        "(enter Bob:8D as the play first, then the show).")
    assert count_rows(web_app, "events") == before
    assert tap(client, early, "Play Bob’s 8♦ first").status_code == 303
    # Bob's last card pegs 1. Then his hand 5 5 9 8 with the K: fifteens 5-K twice (4) and the
    # pair of fives (2), 6; the form starts with his four played cards.
    assert scores(client, token) == (6, 1)
    assert send(client, token, "show", cards="5H 5C 9D 8D", op="score").status_code == 303
    assert scores(client, token) == (6, 7)


def test_a_play_out_of_turn_is_refused_beside_the_play_form(web_app: Flask, client: FlaskClient) -> None:
    token = create(client, name3="Cat")  # Ann deals: Bob leads, then Cat, then Ann
    send(client, token, "starter", tap="KC")
    before = count_rows(web_app, "events")
    wrong = send(client, token, "play", who="2", tap="5H")
    assert wrong.status_code == 422
    assert error_for(wrong, "play") == "Bob leads the play (the player on the dealer's left), not Cat."
    send(client, token, "play", who="1", tap="5H")
    skipped = send(client, token, "play", who="0", tap="TS")  # Cat's turn, and at 5 every card fits
    assert error_for(skipped, "play") == (
        "Cat could not have said go at 5: Cat still holds 4 cards and every card fits under 31 (a card is "
        "worth at most 10). It was Cat's turn, not Ann's (Ann:TS).")
    assert count_rows(web_app, "events") == before + 1


def test_the_picker_greys_out_cards_shown_elsewhere_in_the_deal(client: FlaskClient) -> None:
    token = create(client)
    send(client, token, "starter", tap="KC")
    send(client, token, "peg", player="1", points="2")  # the play by numbers: no card seen in it
    assert send(client, token, "show", cards="5H 5C 4D 6D", op="score").status_code == 303
    # Ann's hand, then the crib: Bob's shown cards and the starter are taken in both pickers.
    for step in ("hand", "crib"):
        body = client.get(f"/m/{token}").get_data(as_text=True)
        for card in ("5H", "5C", "4D", "6D", "KC"):
            assert re.search(rf'id="count-pick-{card}" class="pick taken"[^>]*disabled', body), (step, card)
        assert re.search(r'id="count-pick-5D" class="pick"[^>]*formnovalidate>', body)
        send(client, token, "show", points="4")


def test_the_board_asks_for_the_screen_on_until_the_match_ends(client: FlaskClient) -> None:
    token = create(client, target="61")
    viewer = viewer_token(client, token)
    for link in (token, viewer):
        body = client.get(f"/m/{link}").get_data(as_text=True)
        assert "data-wake-lock" in body and "/vendor/nosleep.min.js" in body
    send(client, token, "starter", op="skip")
    send(client, token, "peg", player="1", points="32")
    send(client, token, "show", points="29")  # Bob home: the match is over
    for link in (token, viewer):
        assert "data-wake-lock" not in client.get(f"/m/{link}").get_data(as_text=True)
    assert "data-wake-lock" not in client.get(f"/m/{viewer}/live", query_string={"since": "0"},
                                              headers=HX).get_data(as_text=True)


def test_the_cut_is_tapped_on_the_card_picker(web_app: Flask, client: FlaskClient) -> None:
    started = tap(client, "/matches", "Cut for it")
    token = started.headers["Location"].rsplit("/", 1)[1]
    page = client.get(f"/m/{token}")
    assert text_of(page, "cut-next") == "Tap the card You cut"
    first = tap(client, page, "five of hearts")  # a draft in the address: nothing stored yet
    assert first.status_code == 303 and first.headers["Location"].endswith("?cards=5H")
    assert count_rows(web_app, "events") == 0
    page = client.get(first.headers["Location"])
    assert text_of(page, "cut-next") == "Tap the card Opponent cut"
    assert 'id="pick-5H" class="pick taken"' in page.get_data(as_text=True)
    tie = tap(client, page, "five of clubs")  # equal ranks: both cut again
    assert tie.status_code == 303 and count_rows(web_app, "events") == 1
    page = client.get(f"/m/{token}")
    assert text_of(page, "prompt") == "Cut for the first deal: You, Opponent"
    page = client.get(tap(client, page, "king of diamonds").headers["Location"])
    tap(client, page, "ace of spades")  # the ace is low: Opponent deals
    assert text_of(client.get(f"/m/{token}"), "prompt") == "Game 1, hand 1: Opponent deals; turn the starter"
