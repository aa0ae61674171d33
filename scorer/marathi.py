"""Marathi number words, 0..999: the one language of ours no well-kept library spells.

ICU's RBNF rules (``icu-rbnf``) fall back to English for Marathi and ``num2words`` has no Marathi,
so the words are a table. Marathi names every number from 1 to 99 with its own word (like Hindi,
not by tens and units), so 0..99 are listed whole; hundreds are "एकशे", "दोनशे", ... followed by
the rest (``एकशे एकवीस`` is 121), and 100 alone is "शंभर". The table is checked against a second
source in tests/test_number_words.py (the school-book spellings are kept where lists differ).
"""

from __future__ import annotations

__all__ = ["marathi_words"]

_UNDER_100 = (
    "शून्य एक दोन तीन चार पाच सहा सात आठ नऊ "
    "दहा अकरा बारा तेरा चौदा पंधरा सोळा सतरा अठरा एकोणीस "
    "वीस एकवीस बावीस तेवीस चोवीस पंचवीस सव्वीस सत्तावीस अठ्ठावीस एकोणतीस "
    "तीस एकतीस बत्तीस तेहेतीस चौतीस पस्तीस छत्तीस सदतीस अडतीस एकोणचाळीस "
    "चाळीस एक्केचाळीस बेचाळीस त्रेचाळीस चव्वेचाळीस पंचेचाळीस सेहेचाळीस सत्तेचाळीस अठ्ठेचाळीस एकोणपन्नास "
    "पन्नास एक्कावन्न बावन्न त्रेपन्न चोपन्न पंचावन्न छप्पन्न सत्तावन्न अठ्ठावन्न एकोणसाठ "
    "साठ एकसष्ट बासष्ट त्रेसष्ट चौसष्ट पासष्ट सहासष्ट सदुसष्ट अडुसष्ट एकोणसत्तर "
    "सत्तर एक्काहत्तर बाहत्तर त्र्याहत्तर चौऱ्याहत्तर पंच्याहत्तर शहात्तर सत्त्याहत्तर अठ्ठ्याहत्तर एकोणऐंशी "
    "ऐंशी एक्क्याऐंशी ब्याऐंशी त्र्याऐंशी चौऱ्याऐंशी पंच्याऐंशी शहाऐंशी सत्त्याऐंशी अठ्ठ्याऐंशी एकोणनव्वद "
    "नव्वद एक्क्याण्णव ब्याण्णव त्र्याण्णव चौऱ्याण्णव पंच्याण्णव शहाण्णव सत्त्याण्णव अठ्ठ्याण्णव नव्व्याण्णव"
).split()

_HUNDREDS = ("", "एकशे", "दोनशे", "तीनशे", "चारशे", "पाचशे", "सहाशे", "सातशे", "आठशे", "नऊशे")


def marathi_words(n: int) -> str:
    """``n`` in Marathi words.

    >>> marathi_words(15), marathi_words(29), marathi_words(121)
    ('पंधरा', 'एकोणतीस', 'एकशे एकवीस')
    """
    if n < 0:
        return "उणे " + marathi_words(-n)
    if n < 100:
        return _UNDER_100[n]
    if n >= 1000:
        raise ValueError(f"{n} is beyond a cribbage score (Marathi words go to 999)")
    if n == 100:
        return "शंभर"
    head, rest = _HUNDREDS[n // 100], n % 100
    return head if rest == 0 else f"{head} {_UNDER_100[rest]}"
