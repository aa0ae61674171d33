"""Number words for every cribbage number, 0..121, in Hindi, Marathi and Tajik, checked against
published lists that are not the code under test.

Each table below is written out by hand from its named source. Where the engine's word is another
accepted spelling of the same number, the engine's spelling is listed as a variant next to the
source's (a literal too), and the test requires exactly that variant, so a new difference cannot
slip in unseen.
"""

from __future__ import annotations

import pytest

from scorer.i18n import number_words
from scorer.marathi import marathi_words
from scorer.show import number_word

# ---- Hindi ---------------------------------------------------------------------------------------
# Source: Wikipedia, "Hindustani numerals", the table of 0-99
# (https://en.wikipedia.org/wiki/Hindustani_numerals, romanized: pandrah, cavālīs, tirpan, ...),
# written in Devanagari as the Transparent Language Hindi grammar spells 0-38
# (https://tplsites.s3.amazonaws.com/resources/HINin-ENGus/grammar/Cardinal_Numerals.htm); 100 is
# "sau" there, said "एक सौ" as a score.
HINDI_SOURCE = (
    "शून्य एक दो तीन चार पाँच छह सात आठ नौ "
    "दस ग्यारह बारह तेरह चौदह पंद्रह सोलह सत्रह अठारह उन्नीस "
    "बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस उनतीस "
    "तीस इकतीस बत्तीस तैंतीस चौंतीस पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस "
    "चालीस इकतालीस बयालीस तैंतालीस चवालीस पैंतालीस छियालीस सैंतालीस अड़तालीस उनचास "
    "पचास इक्यावन बावन तिरपन चौवन पचपन छप्पन सत्तावन अट्ठावन उनसठ "
    "साठ इकसठ बासठ तिरसठ चौंसठ पैंसठ छियासठ सरसठ अड़सठ उनहत्तर "
    "सत्तर इकहत्तर बहत्तर तिहत्तर चौहत्तर पचहत्तर छिहत्तर सतहत्तर अठहत्तर उन्यासी "
    "अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी सत्तासी अट्ठासी नवासी "
    "नब्बे इक्यानवे बानवे तिरानवे चौरानवे पचानवे छियानवे सत्तानवे अट्ठानवे निन्यानवे"
).split()

# icu-rbnf (CLDR's hi rules) spells these differently; each is a recognised spelling of the same
# word: पन्द्रह is the Central Hindi Directorate's 1980 standard form (teachersofindia.org, "एक से
# सौ तक संख्यावाचक शब्दों का मानक रूप"), chauvālīs/cavālīs, tir(e)pan, tir(e)saṭh, saṛsaṭh/sarsaṭh,
# un(y)āsī and the nineties' nabbe/navve forms are the variants Wikipedia's table lists.
HINDI_ENGINE_SPELLINGS = {
    15: "पन्द्रह", 44: "चौवालीस", 53: "तिरेपन", 63: "तिरेसठ", 67: "सड़सठ", 79: "उनासी",
    91: "इक्यानबे", 92: "बानबे", 93: "तिरानबे", 94: "चौरानबे", 95: "पंचानबे", 96: "छियानबे",
    97: "सत्तानबे", 98: "अट्ठानबे", 99: "निन्यानबे",
}


def hindi_expected(n: int) -> str:
    if n < 100:
        return HINDI_SOURCE[n]
    return "एक सौ" if n == 100 else f"एक सौ {HINDI_SOURCE[n - 100]}"


@pytest.mark.parametrize("n", range(122))
def test_hindi_words_match_the_published_list(n: int) -> None:
    rest = n % 100 if n >= 100 else n
    if rest in HINDI_ENGINE_SPELLINGS and (n < 100 or rest):
        variant = HINDI_ENGINE_SPELLINGS[rest]
        expected = variant if n < 100 else f"एक सौ {variant}"
    else:
        expected = hindi_expected(n)
    assert number_words(n, "hi") == expected


def test_hindi_source_table_is_whole() -> None:
    assert len(HINDI_SOURCE) == 100
    assert all(HINDI_SOURCE[n] != variant for n, variant in HINDI_ENGINE_SPELLINGS.items())


# ---- Marathi -------------------------------------------------------------------------------------
# Source: the Marathi cardinal test table of Vernacular.ai's num2words, 0-99
# (https://github.com/Vernacular-ai/num2words/blob/42999c72fe907dbc50fedac559fb2df7d3778888/tests/test_mr.py),
# compared word for word. Above 100, "एकशे" and the rest, as speakfluentli's "Marathi Numbers 1 to
# 100" gives 120: "एकशे वीस" (https://speakfluentli.com/marathi/blog/marathi-numbers-1-to-100).
MARATHI_SOURCE = (
    "शून्य एक दोन तीन चार पाच सहा सात आठ नऊ "
    "दहा अकरा बारा तेरा चौदा पंधरा सोळा सतरा अठरा एकोणीस "
    "वीस एकवीस बावीस तेवीस चोवीस पंचवीस सव्वीस सत्तावीस अठ्ठावीस एकोणतीस "
    "तीस एकतीस बत्तीस तेहतीस चौतीस पस्तीस छत्तीस सदतीस अडतीस एकोणचाळीस "
    "चाळीस एकेचाळीस बेचाळीस त्रेचाळीस चव्वेचाळीस पंचेचाळीस सेहेचाळीस सत्तेचाळीस अठ्ठेचाळीस एकोणपन्नास "
    "पन्नास एकावन्न बावन्न त्रेपन्न चौवन्न पंचावन्न छप्पन्न सत्तावन्न अठ्ठावन्न एकोणसाठ "
    "साठ एकसष्ट बासष्ट त्रेसष्ट चौसष्ट पासष्ट सहासष्ट सदुसष्ट अडुसष्ट एकोणसत्तर "
    "सत्तर एकाहत्तर बहात्तर त्र्याहत्तर चौरेहत्तर पंच्याहत्तर शहात्तर सत्याहत्तर अठ्ठ्याहत्तर एकोणऐंशी "
    "ऐंशी एक्याऐंशी ब्याऐंशी त्र्याऐंशी चौरेऐंशी पंच्याऐंशी सह्यांशी सत्त्याऐंशी अठ्ठ्याऐंशी एकोणनव्वद "
    "नव्वद एक्याण्णव ब्याण्णव त्र्याण्णव चौऱ्याण्णव पंच्याण्णव शह्याण्णव सत्त्याण्णव अठ्ठ्याण्णव नव्व्याण्णव"
).split()

# scorer.marathi's spelling where the source writes the same number another way (doubled क्क,
# तेहे-/तेह-, चोपन्न/चौवन्न, चौऱ्या-/चौरे-, शहा-/सह्यां-): the school-book spellings, kept. 100 alone is
# "शंभर" (the source's "एक शंभर" is how it composes larger numbers, not how a score is said).
MARATHI_ENGINE_SPELLINGS = {
    33: "तेहेतीस", 41: "एक्केचाळीस", 51: "एक्कावन्न", 54: "चोपन्न", 71: "एक्काहत्तर", 72: "बाहत्तर",
    74: "चौऱ्याहत्तर", 77: "सत्त्याहत्तर", 81: "एक्क्याऐंशी", 84: "चौऱ्याऐंशी", 86: "शहाऐंशी",
    91: "एक्क्याण्णव", 96: "शहाण्णव",
}


@pytest.mark.parametrize("n", range(122))
def test_marathi_words_match_the_published_list(n: int) -> None:
    rest = n % 100 if n >= 100 else n
    word = MARATHI_ENGINE_SPELLINGS.get(rest, MARATHI_SOURCE[rest])
    if n == 100:
        expected = "शंभर"
    elif n > 100:
        expected = f"एकशे {word}"
    else:
        expected = word
    assert marathi_words(n) == expected
    assert number_words(n, "mr") == expected


def test_marathi_source_table_is_whole() -> None:
    assert len(MARATHI_SOURCE) == 100
    assert all(MARATHI_SOURCE[n] != variant for n, variant in MARATHI_ENGINE_SPELLINGS.items())


# ---- Tajik ---------------------------------------------------------------------------------------
# Sources: Wiktionary's Tajik number list, 0-39 (https://en.wiktionary.org/wiki/Module:number_list/data/tg)
# and the Tajik textbook of the Tajik Development Gateway, lesson 7, for the tens, 100 and 120
# (https://tajik-gateway.org/wp/zaboni-tojiki/lesson-7/lesson-7-numerals: чил, панҷоҳ, ...,
# "як саду бист"). Wiktionary writes 9 нуҳ, the textbook нӯҳ; num2words (the engine) writes нӯҳ.
TAJIK_SOURCE = {
    0: "сифр", 1: "як", 2: "ду", 3: "се", 4: "чор", 5: "панҷ", 6: "шаш", 7: "ҳафт", 8: "ҳашт",
    9: "нӯҳ", 10: "даҳ", 11: "ёздаҳ", 12: "дувоздаҳ", 13: "сенздаҳ", 14: "чордаҳ", 15: "понздаҳ",
    16: "шонздаҳ", 17: "ҳабдаҳ", 18: "ҳаждаҳ", 19: "нуздаҳ", 20: "бист", 21: "бисту як", 22: "бисту ду",
    23: "бисту се", 24: "бисту чор", 25: "бисту панҷ", 26: "бисту шаш", 27: "бисту ҳафт",
    28: "бисту ҳашт", 29: "бисту нӯҳ", 30: "сӣ", 31: "сию як", 32: "сию ду", 35: "сию панҷ",
    39: "сию нӯҳ", 40: "чил", 50: "панҷоҳ", 60: "шаст", 70: "ҳафтод", 80: "ҳаштод", 90: "навад",
    100: "сад", 120: "як саду бист",
}
# num2words writes 30 "си" (the sources: сӣ; scorer.i18n mends it) and 120 as one word "яксаду
# бист" (the textbook: "як саду бист"; both are written): kept as the engine's spelling.
TAJIK_ENGINE_SPELLINGS = {120: "яксаду бист"}


@pytest.mark.parametrize("n", sorted(TAJIK_SOURCE))
def test_tajik_words_match_the_published_lists(n: int) -> None:
    assert number_words(n, "tg") == TAJIK_ENGINE_SPELLINGS.get(n, TAJIK_SOURCE[n])


# ---- English -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "word"),
    [(0, "zero"), (15, "fifteen"), (29, "twenty-nine"), (31, "thirty-one"), (100, "one hundred"),
     (121, "one hundred twenty-one")],
)
def test_english_words_and_number_word_agree(n: int, word: str) -> None:
    assert number_words(n, "en") == word
    assert number_word(n) == word
