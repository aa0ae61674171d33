"""The engine's words in the players' language: English, Hindi, Marathi and Tajik.

Every sentence the engine says (the spoken count, a ruling, why a card or an event is refused) is
written in English inside ``_()`` / ``ngettext()`` with named placeholders, and looked up in the
project's gettext catalogues (``translations/<lang>/LC_MESSAGES/messages.mo``, compiled from the
``.po`` files by ``make``). The web app uses the same catalogues through Flask-Babel; this module
needs only the standard library and Babel, so the engine stays free of Flask.

The language is a context variable: the web app sets it per request, the CLI from ``--lang``,
and anything else with ``using("hi")``. English is the default and needs no catalogue.

>>> from scorer.i18n import _, using
>>> _("%(name)s deals", name="Ann")
'Ann deals'
>>> with using("en"):
...     number_words(29)
'twenty-nine'
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from pathlib import Path

__all__ = [
    "DEFAULT_LANGUAGE", "LANGUAGES", "LANGUAGE_NAMES", "TRANSLATIONS_DIR",
    "N_", "_", "activate", "current", "digits", "gettext", "join_phrases", "language_or_default",
    "ngettext", "number_words", "pgettext", "using",
]

LANGUAGES = ("en", "hi", "mr", "tg")
"""The languages Muggins speaks, as BCP 47 tags (also the catalogue folder names)."""

DEFAULT_LANGUAGE = "en"

LANGUAGE_NAMES = {"en": "English", "hi": "हिन्दी", "mr": "मराठी", "tg": "Тоҷикӣ"}
"""Each language's name in itself, for the language switcher."""

TRANSLATIONS_DIR = Path(__file__).resolve().parent.parent / "translations"
"""The gettext catalogues: ``<lang>/LC_MESSAGES/messages.po`` (kept in git) and ``.mo`` (built)."""

_active: ContextVar[str] = ContextVar("muggins_language", default=DEFAULT_LANGUAGE)


def language_or_default(tag: str | None) -> str:
    """The supported language a tag names (``"hi-IN"`` → ``"hi"``), else English."""
    if not tag:
        return DEFAULT_LANGUAGE
    base = tag.strip().replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


def activate(lang: str | None) -> str:
    """Speak ``lang`` from now on in this context (thread or task); returns the language used."""
    chosen = language_or_default(lang)
    _active.set(chosen)
    return chosen


def current() -> str:
    """The language in use."""
    return _active.get()


@contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Speak ``lang`` inside the block, then return to the language before it."""
    token = _active.set(language_or_default(lang))
    try:
        yield _active.get()
    finally:
        _active.reset(token)


@cache
def _catalogue(lang: str) -> _gettext.NullTranslations:
    if lang == DEFAULT_LANGUAGE:
        return _gettext.NullTranslations()
    return _gettext.translation("messages", TRANSLATIONS_DIR, [lang], fallback=True)


def gettext(message: str, /, **params: object) -> str:
    """``message`` in the current language, its ``%(name)s`` placeholders filled from ``params``."""
    text = _catalogue(_active.get()).gettext(message)
    return text % params if params else text


_ = gettext


def ngettext(singular: str, plural: str, num: int, /, **params: object) -> str:
    """The singular or plural sentence for ``num`` as the language's plural rule picks it;
    ``%(num)s`` is ``num`` in the language's digits."""
    text = _catalogue(_active.get()).ngettext(singular, plural, num)
    return text % {"num": digits(num), **params}


def pgettext(context: str, message: str, /, **params: object) -> str:
    """``message`` as meant in ``context``: one English word that the other languages say two
    ways (the tab "Count", a noun, and the button "Count", a verb)."""
    text = _catalogue(_active.get()).pgettext(context, message)
    return text % params if params else text


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it yet (module-level tables)."""
    return message


_ZERO = {"latn": "0", "deva": "\u0966"}
"""The zero digit of each numbering system our languages use (CLDR's ``defaultNumberingSystem``:
``deva`` for Marathi, ``latn`` for English, Hindi and Tajik); the other nine follow it in Unicode."""


@cache
def _digit_table(lang: str) -> dict[int, str]:
    from babel import Locale

    zero = _ZERO.get(Locale.parse(lang).default_numbering_system, "0")
    return {ord(str(d)): chr(ord(zero) + d) for d in range(10)}


def digits(n: int, lang: str | None = None) -> str:
    """``n`` written as the language writes numbers: grouped by Babel's CLDR patterns, in the
    digits of CLDR's default numbering system for the locale (Babel formats, it does not change
    digits). Card notation (``5H 10D``) never goes through here.

    >>> digits(121, "mr"), digits(121, "hi"), digits(-3, "en")
    ('१२१', '121', '-3')
    """
    return _digits(n, language_or_default(lang or _active.get()))


@lru_cache(maxsize=4096)
def _digits(n: int, lang: str) -> str:
    # Babel parses the locale on every call; a match's history asks for the same few scores.
    from babel.numbers import format_decimal

    return str(format_decimal(n, locale=lang)).translate(_digit_table(lang))


_EN_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
_EN_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def _english_words(n: int) -> str:
    if n < 0:
        return "minus " + _english_words(-n)
    if n <= 20:
        return _EN_WORDS[n]
    if n < 100:
        tens = _EN_TENS[n // 10 - 2]
        return tens if n % 10 == 0 else f"{tens}-{_EN_WORDS[n % 10]}"
    rest = n % 100
    head = f"{_EN_WORDS[n // 100]} hundred"
    return head if rest == 0 else f"{head} {_english_words(rest)}"


def number_words(n: int, lang: str | None = None) -> str:
    """A cribbage number (0..121 and beyond) in words, as the players of ``lang`` (default: the
    current language) say it: English here, Hindi by ICU's rules (``icu-rbnf``), Tajik by
    ``num2words``, Marathi from the table in ``scorer.marathi``.

    >>> number_words(29, "en"), number_words(121, "en")
    ('twenty-nine', 'one hundred twenty-one')
    """
    lang = language_or_default(lang or _active.get())
    if lang == "hi":
        import icu_rbnf

        return str(icu_rbnf.spellout(n, "hi"))
    if lang == "tg":
        from num2words import num2words  # type: ignore[import-untyped]

        # num2words writes thirty "си"; Tajik writes сӣ (Wiktionary, the Tajik Development
        # Gateway's textbook: tests/test_number_words.py). 31 and on are сию ..., already right.
        return " ".join("сӣ" if w == "си" else w for w in str(num2words(n, lang="tg")).split())
    if lang == "mr":
        from scorer.marathi import marathi_words

        return marathi_words(n)
    return _english_words(n)


def join_phrases(phrases: list[str]) -> str:
    """Phrases said one after another, the last joined with the language's "and":
    ``"fifteen two, fifteen four and a pair is six"``."""
    if not phrases:
        return ""
    text = phrases[0]
    for i, phrase in enumerate(phrases[1:], start=2):
        if i == len(phrases):
            text = _("%(earlier)s and %(last)s", earlier=text, last=phrase)
        else:
            text = _("%(earlier)s, %(next)s", earlier=text, next=phrase)
    return text
