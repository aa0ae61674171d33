"""``python -m scorer --lang``: the spoken count, rulings and messages in Hindi, Marathi or Tajik.

Expected texts are written by hand from translations/GLOSSARY.md and the number lists named in
tests/test_number_words.py; card codes and JSON keys stay English.
"""

from __future__ import annotations

import json

import pytest

from scorer import i18n
from scorer.cli import EXIT_BAD_INPUT, EXIT_OK, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_lang_before_or_after_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    # 3-3-4-5 with a king: fifteens 5+K and 3+3+4+5, then a double run of three (8): twelve.
    spoken = "पन्द्रह दो, पन्द्रह चार और तीन का दोहरा क्रम, बारह"
    for argv in (["--lang", "hi", "show", "3H", "3C", "4S", "5D", "KC"],
                 ["show", "3H", "3C", "4S", "5D", "KC", "--lang", "hi"]):
        status, out, _err = run(capsys, *argv)
        assert status == EXIT_OK
        assert out.splitlines()[-1] == spoken


def test_json_says_its_language(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(capsys, "show", "5H", "5C", "5S", "JD", "5D", "--json", "--lang", "tg")
    assert status == EXIT_OK
    data = json.loads(out)
    assert (data["total"], data["lang"]) == (29, "tg")
    # Tajik words: понздаҳ (fifteen), the totals ду ... шонздаҳ, бисту ҳашт 28, бисту нӯҳ 29.
    assert data["spoken"].startswith("понздаҳ ду, понздаҳ чор, ")
    assert data["spoken"].endswith("бисту нӯҳ")
    assert data["items"][-1] == {"kind": "nobs", "cards": ["JD"], "points": 1}


def test_marathi_total_is_in_devanagari_digits(capsys: pytest.CaptureFixture[str]) -> None:
    # The total line's number is the language's digits (Marathi writes १२ for 12).
    _status, out, _err = run(capsys, "show", "3H", "3C", "4S", "5D", "KC", "--lang", "mr")
    assert "१२" in out.splitlines()[-2]
    assert out.splitlines()[-1] == "पंधरा दोन, पंधरा चार आणि तीनचा दुहेरी क्रम, बारा"


def test_a_bad_card_is_refused_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "5H", "5C", "5S", "JD", "ZD", "--lang", "hi")
    assert (status, out) == (EXIT_BAD_INPUT, "")
    assert "'ZD'" in err and not err.isascii()


def test_an_unknown_language_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = run(capsys, "--lang", "fr", "show", "5H", "5C", "5S", "JD", "5D")
    assert status == EXIT_BAD_INPUT
    assert "invalid choice: 'fr'" in err


def test_the_language_does_not_outlive_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with i18n.using("en"):
        run(capsys, "--lang", "hi", "show", "5H", "5C", "5S", "JD", "5D")
        assert i18n.current() == "en"
        _status, out, _err = run(capsys, "show", "3H", "3C", "4S", "5D", "KC")
    assert out.splitlines()[-1] == "fifteen two, fifteen four and a double run of three is twelve"
