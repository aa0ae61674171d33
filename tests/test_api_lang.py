"""The JSON API answers in the request's language: the spoken count and the rulings follow
``Accept-Language`` or the body's ``"lang"``; keys, item kinds and card codes stay English.

The expected texts are written by hand: the words from translations/GLOSSARY.md ("The spoken
count": पन्द्रह दो, पन्द्रह चार ...; चार एक जैसी for a double pair royal, नॉब्स; Marathi पंधरा,
डबल पेअर रॉयल, त्याचे नोब्स, आणि) and the number words from the lists named in
tests/test_number_words.py (Hindi अट्ठाईस 28, उनतीस 29; Marathi अठ्ठावीस, एकोणतीस). They need the
repository's catalogues (``make setup`` compiles them).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from scorer import i18n


@pytest.fixture(autouse=True)
def _english_after_each_request() -> Iterator[None]:
    # web/i18n.py activates the request's language in the test's own context and leaves it there;
    # the engine's tests after these must start from English again.
    yield
    i18n.activate(i18n.DEFAULT_LANGUAGE)


TWENTY_NINE = {"hand": "5H 5C 5S JD", "starter": "5D"}

# 5-5-5-J with the fourth 5 of the jack's suit: eight fifteens, a double pair royal (12) at 28,
# his nobs at 29 (docs/RULES.md).
ENGLISH = (
    "fifteen two, fifteen four, fifteen six, fifteen eight, fifteen ten, fifteen twelve, fifteen fourteen, "
    "fifteen sixteen, a double pair royal is twenty-eight and his nobs is twenty-nine"
)
HINDI = (
    "पन्द्रह दो, पन्द्रह चार, पन्द्रह छह, पन्द्रह आठ, पन्द्रह दस, पन्द्रह बारह, पन्द्रह चौदह, पन्द्रह सोलह, "
    "चार एक जैसी, अट्ठाईस और नॉब्स, उनतीस"
)
MARATHI = (
    "पंधरा दोन, पंधरा चार, पंधरा सहा, पंधरा आठ, पंधरा दहा, पंधरा बारा, पंधरा चौदा, पंधरा सोळा, "
    "डबल पेअर रॉयल, अठ्ठावीस आणि त्याचे नोब्स, एकोणतीस"
)


def test_english_is_the_default(client: FlaskClient) -> None:
    body = client.post("/api/score", json=TWENTY_NINE).get_json()
    assert (body["total"], body["spoken"], body["lang"]) == (29, ENGLISH, "en")


def test_accept_language_hi_speaks_the_count_in_hindi(client: FlaskClient) -> None:
    resp = client.post("/api/score", json=TWENTY_NINE, headers={"Accept-Language": "hi-IN,hi;q=0.9,en;q=0.5"})
    body = resp.get_json()
    assert resp.status_code == 200
    assert body["lang"] == "hi"
    assert body["spoken"] == HINDI
    # API, not words: keys, kinds and cards stay as they are.
    assert body["total"] == 29
    assert [item["kind"] for item in body["items"]] == ["fifteen"] * 8 + ["pair"] * 6 + ["nobs"]
    assert body["items"][-1]["cards"] == ["JD"]


def test_the_totals_are_hindi_number_words(client: FlaskClient) -> None:
    # The running totals come from the number words (icu-rbnf), whatever the catalogue says.
    resp = client.post("/api/score", json=TWENTY_NINE, headers={"Accept-Language": "hi"})
    spoken = resp.get_json()["spoken"]
    for word in ("दो", "चार", "सोलह", "अट्ठाईस", "उनतीस"):
        assert word in spoken
    assert "twenty" not in spoken


def test_the_body_lang_overrides_the_header(client: FlaskClient) -> None:
    hindi_header = {"Accept-Language": "hi"}
    body = client.post("/api/score", json={**TWENTY_NINE, "lang": "en"}, headers=hindi_header).get_json()
    assert (body["spoken"], body["lang"]) == (ENGLISH, "en")
    body = client.post("/api/score", json={**TWENTY_NINE, "lang": "mr"}, headers=hindi_header).get_json()
    assert (body["spoken"], body["lang"]) == (MARATHI, "mr")


def test_a_ruling_follows_the_language(client: FlaskClient) -> None:
    # Four hearts in the crib with a club starter: no flush, and nothing else scores (docs/RULES.md).
    crib = {"hand": "2H 4H 6H 8H", "starter": "KC", "crib": True}
    english = client.post("/api/score", json=crib).get_json()
    assert english["rulings"][0].startswith("Crib flush: a crib flush needs all five cards of one suit")
    hindi = client.post("/api/score", json=crib, headers={"Accept-Language": "hi"}).get_json()
    assert hindi["lang"] == "hi"
    assert hindi["spoken"] == "उन्नीस: कोई अंक नहीं"
    assert len(hindi["rulings"]) == 2
    assert "फ़्लश" in hindi["rulings"][0] and "KC" in hindi["rulings"][0]
    assert all(not note.isascii() for note in hindi["rulings"])


def test_a_refusal_follows_the_language(client: FlaskClient) -> None:
    resp = client.post("/api/score", json={"hand": "5H 5C 5S JD", "starter": "5H"},
                       headers={"Accept-Language": "hi"})
    assert resp.status_code == 400
    error = resp.get_json()["error"]
    assert "'5H'" in error and not error.isascii()


def test_match_answers_say_their_language(client: FlaskClient) -> None:
    tajik = {"Accept-Language": "tg"}
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"]}, headers=tajik)
    assert created.status_code == 201
    assert created.get_json()["lang"] == "tg"
    state = client.get(f"/api/matches/{created.get_json()['id']}").get_json()
    assert state["lang"] == "en"
