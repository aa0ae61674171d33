"""What a page says follows the phone that reads it: filters, typed digits, the one-tap "You".

Jinja folds a filter applied to a literal (``{{ 121|num }}``) into the compiled template; the
templates are compiled once per process, so a folded filter would show every later phone the
digits of the first one. Marathi writes numbers in Devanagari digits (CLDR), the others in Latin.
"""

from __future__ import annotations

import re

from flask.testing import FlaskClient


def test_a_literal_number_follows_each_phone_not_the_first(client: FlaskClient) -> None:
    # /matches says "a game to 121" with the literal 121 through |num.
    said = {"mr": "१२१ गुणांचा एक गेम", "tg": "як бозӣ то 121", "en": "a game to 121", "hi": "121 तक एक खेल"}
    for lang in ("mr", "tg", "en", "mr", "hi"):
        page = client.get("/matches", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert said[lang] in page, lang


def test_awards_are_signed_in_the_phones_digits(client: FlaskClient) -> None:
    # The 29 hand's items are each "+2" (or "+1" for his nobs): the same compiled template.
    for lang, two in (("en", "+2"), ("mr", "+२"), ("tg", "+2"), ("mr", "+२")):
        page = client.get("/?cards=5H-5C-5S-JD-5D", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert f'class="item-points">{two}<' in page, lang


def test_a_marathi_keyboards_digits_are_numbers(client: FlaskClient) -> None:
    # A Marathi phone types १२ in the muggins check; it is 12, and the 29 hand's 12 is short.
    for claimed, lang in (("१२", "mr"), ("12", "en")):
        page = client.get(f"/?cards=5H-5C-5S-JD-5D&claimed={claimed}",
                          headers={"Accept-Language": lang}).get_data(as_text=True)
        missed = ("सांगितले १२, मोजणी २९ आहे: १७ सुटले" if lang == "mr"
                  else "Claimed 12, the count is 29: 17 missed")
        assert missed in " ".join(re.sub(r"<[^>]+>", " ", page).split()), lang
    # Arabic-Indic digits are no digits our languages write: refused as before.
    # (The words on the page, not its markup: a CSRF token may hold any two digits.)
    page = client.get("/?cards=5H-5C-5S-JD-5D&claimed=١٢").get_data(as_text=True)
    shown = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "Enter the points claimed as a whole number" in shown
    assert "missed" not in shown and "the count is 29" not in shown


def test_the_one_tap_you_is_second_person_in_every_language() -> None:
    # A Hindi phone's one-tap match names its player आप ("You"): its lines say "your hand" as
    # the English ones do, in whichever language a phone reads them.
    from scorer.i18n import using
    from scorer.match import Match, new_match_settings

    with using("hi"):
        m = Match(new_match_settings(["आप", "विरोधी"], first_dealer=0))
    for event in ({"type": "peg", "player": 0, "points": 2}, {"type": "show", "player": 1, "points": 8},
                  {"type": "show", "player": 0, "points": 12}):
        m = m.apply(event)
    said = {}
    for lang in ("hi", "en", "tg"):
        with using(lang):
            said[lang] = [e.text for e in m.history]
    assert said["hi"] == ["आपने 2 का पेग लगाया", "विरोधी का हाथ: 8", "आपका हाथ: 12"]
    assert said["en"] == ["you peg 2", "विरोधी's hand: 8", "your hand: 12"]
    assert said["tg"] == ["шумо 2 хол гирифтед", "дасти विरोधी: 8", "дасти шумо: 12"]
