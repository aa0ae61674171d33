"""Match pages in the players' languages: numbers in the phone's digits, a polled board never
shared between phones reading different languages, the one-tap players named in the language of
the phone that starts the match, and messages looked up in the catalogue.

The catalogues here are tiny ones written for the test (the project's own are filled by hand), so
the test knows exactly which words a phone must read (a message missing from them stays English).
Marathi digits are CLDR's: ० is U+0966, so 2 is २ and 12 is १२.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from flask.testing import FlaskClient
from web_fixtures import HX, make_app, page_text, post_form, text_of

from scorer import i18n
from scorer.match import Match, new_match_settings

NEW = {"name1": "Ann", "name2": "Bob", "target": "121", "preset": "home", "length_kind": "best_of",
       "length_count": "1", "first_dealer": "0", "muggins": "off"}

HINDI = {
    "You": "आप",
    "Opponent": "विरोधी",
    "I deal": "मैं बाँटूँगा",
    "Enter at least two names.": "कम से कम दो नाम लिखें।",
    "%(sides)s v %(side)s": "%(sides)s बनाम %(side)s",
}
"""The test catalogue's Hindi: what a Hindi phone must read for these messages."""


def phone(tmp_path: Path, lang: str, messages: dict[str, str]) -> FlaskClient:
    """A phone set to ``lang``, on an app whose only catalogue is ``messages`` in that language."""
    folder = tmp_path / "translations" / lang / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalog = Catalog(locale=lang)
    for english, translated in messages.items():
        catalog.add(english, translated)
    with open(folder / "messages.mo", "wb") as out:
        write_mo(out, catalog)
    app = make_app(tmp_path, BABEL_TRANSLATION_DIRECTORIES=str(tmp_path / "translations"))
    client = app.test_client()
    client.set_cookie("lang", lang)
    return client


def create(client: FlaskClient) -> str:
    resp = post_form(client, "/matches", NEW)
    assert resp.status_code == 303
    return resp.headers["Location"].rsplit("/", 1)[1]


def peg(client: FlaskClient, token: str, player: int, points: int) -> None:
    screen = client.get(f"/m/{token}").get_data(as_text=True)
    after = re.search(r'name="after" value="(\d+)"', screen)
    assert after
    resp = post_form(client, f"/m/{token}/events",
                     {"form": "peg", "after": after.group(1), "player": str(player), "points": str(points)})
    assert resp.status_code == 303


def test_a_marathi_phone_reads_scores_in_devanagari_digits(tmp_path: Path) -> None:
    client = phone(tmp_path, "mr", {})
    token = create(client)
    peg(client, token, 0, 12)
    page = client.get(f"/m/{token}")
    assert text_of(page, "score-0") == "१२"
    assert "१०९ to go" in page_text(page)  # 121 - 12
    # What a form or a script reads back stays in ASCII digits: the pad's values and labels.
    body = page.get_data(as_text=True)
    assert 'value="12" class="btn pad-key" aria-label="Peg 12 for Ann">+१२</button>' in body


def test_phones_in_two_languages_never_share_a_polled_board(tmp_path: Path) -> None:
    client = phone(tmp_path, "mr", {})
    token = create(client)
    peg(client, token, 1, 2)
    marathi = client.get(f"/m/{token}/live", query_string={"since": "0"}, headers=HX)
    assert text_of(marathi, "score-1") == "२"
    client.set_cookie("lang", "en")
    english = client.get(f"/m/{token}/live", query_string={"since": "0"}, headers=HX)
    assert text_of(english, "score-1") == "2"


def test_one_tap_players_are_named_in_the_phone_language(tmp_path: Path) -> None:
    client = phone(tmp_path, "hi", HINDI)
    index = client.get("/matches").get_data(as_text=True)
    form = re.search(r'<form class="btn-row".*?</form>', index, flags=re.S)
    assert form
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form.group(0)))
    started = client.post("/matches", data={**fields, "first_dealer": "0"})
    assert started.status_code == 303
    page = client.get(started.headers["Location"])
    assert text_of(page, "score-0") == "0"
    assert "आप बनाम विरोधी" in page_text(page)  # the stored names, and the title in Hindi
    assert "मैं बाँटूँगा" in index


def test_a_settings_error_reads_in_the_phone_language(tmp_path: Path) -> None:
    client = phone(tmp_path, "hi", HINDI)
    resp = post_form(client, "/matches", {**NEW, "name2": ""})
    assert resp.status_code == 422
    assert text_of(resp, "names-error") == "कम से कम दो नाम लिखें।"



ENGINE_LINE = ("hand %(hand)s starter %(card)s", "डाव %(hand)s स्टार्टर %(card)s")
"""A history line as scorer.match words it (its part of the catalogue), and its Marathi."""


def test_a_replay_worded_in_one_language_is_never_shown_in_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One catalogue for the pages and the engine alike, as the project's own is.
    client = phone(tmp_path, "mr", dict([ENGINE_LINE]))
    monkeypatch.setattr(i18n, "TRANSLATIONS_DIR", tmp_path / "translations")
    i18n._catalogue.cache_clear()
    try:
        with i18n.using("mr"):
            line = Match(new_match_settings(["Ann", "Bob"], first_dealer=0)).apply(
                {"type": "starter", "card": "5D"}).history[-1].text
        if "डाव" not in line:
            pytest.skip("the engine's history lines are not messages here yet (scorer/match is marked apart)")
        token = create(client)
        peg_after = re.search(r'name="after" value="(\d+)"', client.get(f"/m/{token}").get_data(as_text=True))
        assert peg_after
        post_form(client, f"/m/{token}/events", {"form": "starter", "after": peg_after.group(1), "tap": "5D"})
        assert "डाव" in page_text(client.get(f"/m/{token}"))  # the replay now cached, worded in Marathi
        client.set_cookie("lang", "en")
        english = page_text(client.get(f"/m/{token}"))
        assert "hand 1 starter" in english and "डाव" not in english
    finally:
        i18n._catalogue.cache_clear()
