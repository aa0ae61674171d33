"""Cards typed with Hindi, Marathi and Tajik suit names (the glossary's "typed suits" table), in
every page language, and the single letters it says to refuse.

The expected cards are written out here by hand from the glossary (पान = hearts, ईंट = diamonds,
चिड़ी = clubs, हुकुम = spades; Marathi बदाम चौकट किलवर इस्पिक; Tajik дил хишт чиллик пика), and
the scores from docs/RULES.md.
"""

from __future__ import annotations

import pytest

from scorer.cards import Card, parse_cards
from scorer.errors import CardError
from scorer.i18n import using
from scorer.show import score_show


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("5पान", "5H"), ("5 पान", "5H"), ("5लाल पान", "5H"), ("Qईंट", "QD"), ("Qईट", "QD"),
        ("2चिड़ी", "2C"), ("2चिडी", "2C"), ("2 चिड़िया", "2C"), ("Kहुकुम", "KS"), ("Kहुकम", "KS"),
        ("9 काला पान", "9S"),  # "काला पान" (black leaf) is spades; "पान" alone is hearts
        ("10बदाम", "TH"), ("१० बदाम", "TH"), ("३चौकट", "3D"), ("Aकिलवर", "AC"), ("Aकिल्वर", "AC"),
        ("Jइस्पिक", "JS"), ("Jइसपिक", "JS"),
        ("5дил", "5H"), ("5ДИЛ", "5H"), ("5 черва", "5H"), ("7хишт", "7D"), ("7 бубна", "7D"),
        ("8чиллик", "8C"), ("8трефа", "8C"), ("8 крестӣ", "8C"), ("Qпика", "QS"),
        ("गुलाम ईंट", "JD"), ("बेगम पान", "QH"), ("बादशाह हुकुम", "KS"), ("इक्का चिड़ी", "AC"),
        ("राणी बदाम", "QH"), ("राजा किलवर", "KC"), ("एक्का चौकट", "AD"),
        ("валет пика", "JS"), ("дама дил", "QH"), ("шоҳ хишт", "KD"), ("туз чиллик", "AC"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "hi", "mr", "tg"])
def test_local_suit_names_read_in_every_language(token: str, expected: str, lang: str) -> None:
    with using(lang):
        assert [str(c) for c in parse_cards(token)] == [expected]
        assert str(Card.parse(token)) == expected


def test_nukta_typed_as_two_code_points_reads_the_same() -> None:
    # ड़ as one code point (U+095C) and as ड + nukta (U+0921 U+093C): keyboards send either.
    assert str(Card.parse("5\u091a\u093f\u095c\u0940")) == "5C"
    assert str(Card.parse("5\u091a\u093f\u0921\u093c\u0940")) == "5C"


def test_the_29_hand_typed_in_hindi_scores_29() -> None:
    # 5-5-5-J with the fourth 5 of the jack's suit (docs/RULES.md): 16 for fifteens, 12 for the
    # double pair royal, 1 for his nobs.
    score = score_show("5पान 5चिड़ी 5 हुकुम गुलाम ईंट", "5 ईंट")
    assert score.total == 29
    assert [str(c) for c in parse_cards("5पान, 5चिड़ी, 5 हुकुम, गुलाम ईंट")] == ["5H", "5C", "5S", "JD"]


def test_a_marathi_and_tajik_hand_scores_by_hand() -> None:
    # 3-3-4-5 with a king: fifteens 5+K and 3+3+4+5 (4), a double run of three 3-4-5 (6) and the
    # pair of threes (2): 12.
    assert score_show("3बदाम 3किलवर 4इस्पिक 5चौकट", "K किलवर").total == 12
    assert score_show("3дил 3чиллик 4пика 5хишт", "K чиллик").total == 12


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("5च", ["'5च'", "position 1", "च", "चिड़ी", "चौकट", "whole name"]),  # hi clubs, mr diamonds
        ("5H 5 च", ["position 2", "चिड़ी", "चौकट"]),
        ("Jब", ["'Jब'", "बदाम", "बेगम"]),
        ("5प", ["पान", "काला पान"]),
        ("5ч", ["черва", "чиллик"]),
        ("5Т", ["трефа", "туз"]),
    ],
)
def test_ambiguous_single_letters_are_refused_naming_the_choices(text: str, fragments: list[str]) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_a_bad_rank_before_a_local_suit_names_the_rank() -> None:
    with pytest.raises(CardError, match=r"bad card 'Zपान' at position 1: rank must be one of"):
        parse_cards("Zपान")


def test_a_local_rank_alone_says_the_suit_is_missing() -> None:
    with pytest.raises(CardError, match=r"bad card 'बादशाह': the suit is missing"):
        Card.parse("बादशाह")


def test_card_notation_output_stays_latin() -> None:
    with using("hi"):
        assert str(Card.parse("5 पान")) == "5H"
        nobs = score_show("5पान 5चिड़ी 5हुकुम गुलाम ईंट", "5ईंट").to_json()["items"][-1]
        assert nobs == {"kind": "nobs", "cards": ["JD"], "points": 1}
