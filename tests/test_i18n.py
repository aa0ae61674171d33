"""Muggins speaks English, Hindi, Marathi and Tajik (issue 26): the catalogues, the pages, the choice.

- Every message the code marks is in each language's catalogue, translated (every plural form),
  not fuzzy, with exactly the msgid's ``%(name)s`` placeholders, and no catalogue holds a message
  the code no longer has. The extraction is the one ``make catalogues`` runs (babel.cfg, keywords
  ``_ N_ ngettext:1,2``); the compiled ``.mo`` files the app reads say what the ``.po`` files say.
- Every page a player sees, rendered for a Hindi, Marathi or Tajik phone, has no English word
  left in its visible text or its spoken labels (aria-label, title, placeholder, alt, button
  values, the data- attributes scripts read words from).
- The language is chosen by a JSON body's ``"lang"``, then the switcher's cookie, then
  ``Accept-Language``; the switcher works without JavaScript and never redirects off the site;
  share links carry no language.
- Marathi writes numbers in Devanagari digits (CLDR's default numbering system for ``mr``) while
  card codes stay as the rules write them (docs/RULES.md, "Cards and notation").

The player and group names below are chosen in each language's own script, so any Latin word on
a page is the app's, never the test's.
"""

from __future__ import annotations

import functools
import gettext
import html
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import photo_readers
import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from web_fixtures import after_seq, csrf_token, make_app, page_text, text_of
from werkzeug.test import TestResponse

from scorer import i18n

REPO = Path(__file__).resolve().parents[1]
TRANSLATED = ("hi", "mr", "tg")
"""Every language but English, which is the msgids themselves."""
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")

NAMES = {"hi": ("अनु", "बबलू"), "mr": ("अनु", "बाळू"), "tg": ("Аня", "Бобур")}
"""Seat 0 and seat 1 of every match, in the language's own script."""
GROUP_NAMES = {"hi": "गुरुवार मंडली", "mr": "गुरुवारचा अड्डा", "tg": "Клуби панҷшанбе"}


# =============================================================================================
# The catalogues
# =============================================================================================


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """Every message the code marks, extracted exactly as ``make catalogues`` does."""
    pot = tmp_path_factory.mktemp("pot") / "messages.pot"
    done = subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg",
         "-k", "N_", "-k", "_", "-k", "ngettext:1,2", "--no-location", "-o", str(pot), "."],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    with pot.open("rb") as f:
        catalog = read_po(f)
    assert len(catalog) > 0, "extraction found no message at all: is babel.cfg read?"
    return catalog


def po_path(lang: str) -> Path:
    return i18n.TRANSLATIONS_DIR / lang / "LC_MESSAGES" / "messages.po"


def load_po(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def forms_for_one_only(po: Catalog) -> set[int]:
    """Plural forms the catalogue's rule uses for the number 1 alone: those may say "one" in words.
    (Hindi's first form also serves 0, so it must keep the number.)"""
    rule = gettext.c2py(po.plural_expr)
    used: dict[int, set[int]] = {}
    for n in range(0, 1001):
        used.setdefault(rule(n), set()).add(n)
    return {form for form, numbers in used.items() if numbers == {1}}


def msgid(msg: Message) -> str:
    """A message's context and msgid, singular and plural joined (the .po reader gives a tuple,
    the .mo reader a list)."""
    text = msg.id if isinstance(msg.id, str) else " | ".join(msg.id)
    return f"{msg.context}\x04{text}" if msg.context else text


def strings(msg: Message) -> list[str]:
    """A message's translation, as a list of its plural forms (one for a plain message)."""
    return [msg.string] if isinstance(msg.string, str) else list(msg.string or ())


def catalogue_problems(wanted: Catalog, po: Catalog) -> list[str]:
    """What is wrong with ``po`` against the extracted ``wanted`` messages, one line each."""
    problems: list[str] = []
    one_only = forms_for_one_only(po)
    for msg in wanted:
        if not msg.id:
            continue
        english_texts = [msg.id] if isinstance(msg.id, str) else list(msg.id)
        singular = english_texts[0] + (f" (context {msg.context!r})" if msg.context else "")
        have: Message | None = po.get(english_texts[0], context=msg.context)
        if have is None:
            problems.append(f"missing: {singular!r}")
            continue
        if have.fuzzy:
            problems.append(f"fuzzy: {singular!r}")
        if msg.pluralizable != have.pluralizable or (msg.pluralizable and tuple(msg.id) != tuple(have.id)):
            problems.append(f"plural differs from the code's: {singular!r}")
            continue
        forms = strings(have)
        if msg.pluralizable and len(forms) != po.num_plurals:
            problems.append(f"{len(forms)} plural forms, not {po.num_plurals}: {singular!r}")
        for index, text in enumerate(forms):
            if not text:
                problems.append(f"untranslated{f' (form {index})' if msg.pluralizable else ''}: {singular!r}")
                continue
            # A plural's first form is said for 1 (as the English singular), the others as the
            # English plural. ngettext always fills %(num)s, so a form may add it; only a form
            # said for 1 alone may leave it out ("one card").
            expected = placeholders(english_texts[min(index, len(english_texts) - 1)])
            found = placeholders(text)
            if msg.pluralizable:
                may_drop = index in one_only
                if "num" in expected and "num" not in found and not may_drop:
                    problems.append(f"form {index} has no %(num)s but serves other numbers than 1: "
                                    f"{singular!r} -> {text!r}")
                found, expected = found - {"num"}, expected - {"num"}
            if found != expected:
                problems.append(f"placeholders {sorted(found)} not {sorted(expected)}: "
                                f"{singular!r} -> {text!r}")
    extracted_ids = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in wanted if m.id}
    for have in po:
        key = (have.id if isinstance(have.id, str) else have.id[0], have.context)
        if key[0] and key not in extracted_ids:
            context = f" (context {have.context!r})" if have.context else ""
            problems.append(f"stale (the code no longer has it): {key[0] + context!r}")
    return problems


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogue_translates_every_message_of_the_code(lang: str, extracted: Catalog) -> None:
    problems = catalogue_problems(extracted, load_po(lang))
    listed = "\n".join(problems)
    assert not problems, f"{po_path(lang).relative_to(REPO)}: {len(problems)} problems\n{listed}"


def test_the_catalogue_check_catches_each_kind_of_problem() -> None:
    """The check above on a catalogue made wrong on purpose, one fault per message."""
    wanted = Catalog(locale="mr")
    for msgid in ("Peg", "%(name)s deals", "Gone", "Fresh"):
        wanted.add(msgid)
    wanted.add(("%(num)s point", "%(num)s points"))
    wanted.add(("one game", "%(num)s games"))
    wanted.add("Count", context="tab")
    po = Catalog(locale="mr")
    po.add("Count", "मोजणी", context="tab")
    po.add("Count", "गणना", context="running total in the play")
    po.add("Peg", "पेग", flags=["fuzzy"])
    po.add("%(name)s deals", "%(nam)s वाटतो")
    po.add("Gone", "")
    po.add(("%(num)s point", "%(num)s points"), ("%(num)s गुण", ""))
    po.add(("one game", "%(num)s games"), ("एक डाव", "%(num)s डाव"))  # "one" for 1 alone: fine in mr
    po.add("Old", "जुने")
    problems = catalogue_problems(wanted, po)
    assert problems == [
        "fuzzy: 'Peg'",
        "placeholders ['nam'] not ['name']: '%(name)s deals' -> '%(nam)s वाटतो'",
        "untranslated: 'Gone'",
        "missing: 'Fresh'",
        "untranslated (form 1): '%(num)s point'",
        "stale (the code no longer has it): \"Count (context 'running total in the play')\"",
        "stale (the code no longer has it): 'Old'",
    ]
    # Hindi gives form 0 to 0 and 1 both: there "one game" would be wrong for 0 games.
    po_hi = Catalog(locale="hi")
    po_hi.add(("%(num)s game", "%(num)s games"), ("एक खेल", "%(num)s खेल"))
    po_hi.add(("%(name)s's last card", "%(name)s's last %(num)s cards"),
              ("%(name)s का आख़िरी पत्ता", "%(name)s के आख़िरी %(num)s पत्ते"))
    po_hi.add(("%(name)s holds one card", "%(name)s holds %(num)s cards"), ("%(num)s पत्ता", "%(num)s पत्ते"))
    wanted_hi = Catalog(locale="hi")
    for message in po_hi:
        if message.id:
            wanted_hi.add(message.id)
    assert catalogue_problems(wanted_hi, po_hi) == [
        "form 0 has no %(num)s but serves other numbers than 1: '%(num)s game' -> 'एक खेल'",
        "placeholders [] not ['name']: '%(name)s holds one card' -> '%(num)s पत्ता'",
        "placeholders [] not ['name']: '%(name)s holds one card' -> '%(num)s पत्ते'",
    ]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogue_is_the_po_file(lang: str) -> None:
    """The app reads ``messages.mo`` (``make setup`` compiles it): it must say what the .po says."""
    po_file = po_path(lang)
    mo_file = po_file.with_suffix(".mo")
    assert mo_file.exists(), f"{mo_file.relative_to(REPO)} is missing: run make setup"
    assert mo_file.stat().st_mtime >= po_file.stat().st_mtime, \
        f"{mo_file.relative_to(REPO)} is older than its .po: run make setup"
    with mo_file.open("rb") as f:
        mo = read_mo(f)
    po = load_po(lang)
    translated = {msgid(m): strings(m) for m in po if m.id and not m.fuzzy and all(strings(m))}
    compiled = {msgid(m): strings(m) for m in mo if m.id}
    assert len(compiled) == len(translated), "the .mo holds another number of messages than the .po"
    differ = sorted(k for k in translated.keys() | compiled.keys() if translated.get(k) != compiled.get(k))
    assert not differ, f"{mo_file.relative_to(REPO)} differs from its .po: run make setup\n{differ}"


# =============================================================================================
# No English left on any page
# =============================================================================================

CARD_CODE = re.compile(r"(?i)[akqjt][cdhs]")
"""A card as the rules write it (``KC``, ``TD``; the input help also shows ``td``, ``as``)."""
ALLOWED_WORDS = frozenset({
    "Muggins",  # the brand name stays in every language (I18N.md, rule 4)
    "QR",  # "QR code" is the name of the thing in every language the app speaks
    "ACC",  # the American Cribbage Congress, whose tournament rules a preset follows: a name
    "CSV", "JSON",  # the names of the file formats the group page exports
    "MB",  # the unit of a photo's size, written so in every language's UI
})
ALLOWED_TERMS = re.compile(r"Wi-Fi|%\(\w+\)s|\{\w+\}")
"""Names written with a hyphen (Wi-Fi, a trademark), and placeholders a script fills in."""
NOT_WORDS = frozenset({"data-theme", "data-share-url", "data-max-bytes", "data-digits"})
"""data- attributes that hold a state, an address or numbers for a script, never words."""
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
URL = re.compile(r"\bhttps?://\S+|(?<!\w)/[\w./?=&%-]+")
"""Links shown as text (the viewer and scorer links): addresses, not words."""
UNREAD = frozenset({"script", "style", "code", "kbd", "samp"})
"""Scripts and styles are not shown; code (``POST /api/groups/import``) is typed, not read."""
SPOKEN_ATTRIBUTES = frozenset({"aria-label", "title", "placeholder", "alt"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                  "track", "wbr"})


def english_words(text: str) -> list[str]:
    """The Latin words of 2 letters or more in ``text`` that may not stay English."""
    return [w for w in LATIN_WORD.findall(ALLOWED_TERMS.sub(" ", URL.sub(" ", text)))
            if w not in ALLOWED_WORDS and not CARD_CODE.fullmatch(w)]


class WordsOnPage(HTMLParser):
    """Collects what a reader sees or a screen reader says: text nodes and the spoken attributes.
    Skips scripts, styles and code, the language switcher's links (each language's name in itself)
    and anything marked ``lang="en"``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.found: list[str] = []

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        lang = (values.get("lang") or "").lower()
        skip = (self._skipping() or tag in UNREAD or "hreflang" in values
                or lang == "en" or lang.startswith("en-"))
        if not skip:
            for name, value in attrs:
                words = name in SPOKEN_ATTRIBUTES or (name.startswith("data-") and name not in NOT_WORDS)
                if value and words:
                    self.found.append(value)
            if tag == "input" and values.get("type") in ("submit", "button", "reset") and values.get("value"):
                self.found.append(values["value"] or "")
        if tag not in VOID:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        # Pop to the matching start tag: an implicitly closed <p> or <li> closes with its parent.
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        if not self._skipping() and data.strip():
            self.found.append(data)


def words_left(html: str) -> list[str]:
    parser = WordsOnPage()
    parser.feed(html)
    parser.close()
    return [w for chunk in parser.found for w in english_words(chunk)]


def test_the_english_check_finds_english_and_only_english() -> None:
    page = """<html lang="mr"><head><title>२९ · Muggins</title><style>.a{color:red}</style></head>
      <body><p>पंधरा दोन <b>Crib</b></p><img alt="card back"><button aria-label="तपासा">✓</button>
      <input type="submit" value="Save"><input placeholder="5h, td, as">
      <a href="/lang/en" hreflang="en" lang="en">English</a><span lang="en">left alone</span>
      <script>const words = "not shown";</script><p>फाइल <code>POST /api</code></p><p>KC 10D QR http://localhost/m/abc-def</p>
      <li>एक<li>दोन <i title="Undo">↶</i><p data-msg="%(size)s MB, Wi-Fi ({status})" hidden></p>
      <div data-theme="auto" data-plays="plays"></div>
      </body></html>"""
    assert words_left(page) == ["Crib", "card", "back", "Save", "Undo", "plays"]


@dataclass
class Pages:
    """The pages one phone saw, by name, with the answers' statuses."""

    lang: str
    html: dict[str, str] = field(default_factory=dict)
    status: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, resp: TestResponse) -> TestResponse:
        self.html[name] = resp.get_data(as_text=True)
        self.status[name] = resp.status_code
        return resp


def api(client: FlaskClient, url: str, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
    resp = client.post(url, json=body)
    assert resp.status_code == status, resp.get_data(as_text=True)
    answer = resp.get_json()
    assert isinstance(answer, dict)
    return answer


def event(client: FlaskClient, token: str, after: int, body: dict[str, Any]) -> int:
    answer = api(client, f"/api/matches/{token}/events", {"after": after, "event": body})
    return int(answer["seq"])


def play_a_hand_with_cards(client: FlaskClient, names: tuple[str, str]) -> tuple[str, str]:
    """A match by cards, muggins on: the starter, the whole play, an under-claimed show, a muggins
    claim, the dealer's show, the crib, a correction and an undo. Returns (scorer, viewer) ids."""
    created = api(client, "/api/matches", {"players": list(names), "first_dealer": 0, "muggins": True})
    token = created["id"]
    seq = 0
    for body in ({"type": "starter", "card": "JD"},  # his heels: 2 for the dealer
                 {"type": "peg", "plays": "B:5H A:TS B:5C A:5S"},
                 {"type": "peg", "plays": "B:4D A:KS B:6D A:QS"},
                 {"type": "show", "player": 1, "hand": "5H 5C 4D 6D", "claimed": 12}):
        seq = event(client, token, seq, body)
    seq = event(client, token, seq, {"type": "muggins", "player": 0, "seq": seq, "points": 4})
    seq = event(client, token, seq, {"type": "show", "player": 0, "hand": "TS 5S KS QS"})
    seq = event(client, token, seq, {"type": "correction", "player": 1, "points": 1, "reason": "गलती"})
    event(client, token, seq, {"type": "void", "seq": seq, "reason": "गलती"})
    return token, created["viewer_id"]


def play_a_match_to_the_end(client: FlaskClient, names: tuple[str, str], group: str | None = None
                            ) -> tuple[str, str]:
    """A 61-point match by numbers that seat 0 wins 61–34, a skunk (the e2e match of test_phone)."""
    body: dict[str, Any] = {"players": list(names), "first_dealer": 0, "target": 61, "scores_only": True}
    if group:
        body["group"] = group
    created = api(client, "/api/matches", body)
    token = created["id"]
    seq = 0
    for ev in ({"type": "peg", "player": 1, "points": 10}, {"type": "show", "player": 1, "points": 24},
               {"type": "show", "player": 0, "points": 29}, {"type": "crib", "points": 28},
               {"type": "show", "player": 0, "points": 4}):
        seq = event(client, token, seq, ev)
    return token, created["viewer_id"]


def one_tap_start(client: FlaskClient, matches_page: str) -> str:
    """Tap "I deal" in the quick-start box: post its form's fields as the page holds them (the
    players' names among them), as the browser would. Returns the new match's address."""
    box = matches_page[matches_page.index('class="box quick-start"'):]
    form = box[:box.index("</form>")]
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)}
    resp = client.post("/matches", data={**fields, "first_dealer": "0"})
    assert resp.status_code == 303, page_text(resp)
    return resp.headers["Location"]


@functools.cache
def _show_photo() -> tuple[bytes, tuple[str, ...], list[list[tuple[float, float]]], int]:
    from vision.synth import render_show

    photo = render_show(101, harsh=False)  # K♣ 9♥ 10♦ 4♥ and the 4♣ apart (tests/test_web_photo.py)
    quads = [[(float(x), float(y)) for x, y in quad] for quad in photo.quads]
    return photo.jpeg_bytes(), tuple(photo.cards), quads, int(photo.image.shape[1])


def upload_photo(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> TestResponse:
    """The "Take photo" form with the generated show photo, read as its truth says."""
    jpeg, cards, quads, width = _show_photo()
    reader = functools.partial(photo_readers.read_as, cards, quads, width)
    monkeypatch.setitem(client.application.config, "MUGGINS_PHOTO_READER", reader)
    boundary = "i18n-boundary"
    fields = {"csrf_token": csrf_token(client), "for": "count", "kind": "hand"}
    head = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                   for k, v in fields.items())
    body = (head + f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="show.jpg"\r\n'
            "Content-Type: image/jpeg\r\n\r\n").encode() + jpeg + f"\r\n--{boundary}--\r\n".encode()
    return client.post("/photo", data=body, content_type=f"multipart/form-data; boundary={boundary}")


def every_page(app: Flask, lang: str, monkeypatch: pytest.MonkeyPatch) -> Pages:
    """Every page a player sees, opened by a phone whose browser asks for ``lang``."""
    client = app.test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{lang}-IN,{lang};q=0.9" if lang != "tg" else "tg-TJ,tg"
    names = NAMES[lang]
    pages = Pages(lang)
    token = csrf_token(client)

    pages.add("count", client.get("/"))
    pages.add("count: 29 hand, claimed 27", client.get("/hand/5H-5C-5S-JD/5D?claimed=27"))
    pages.add("count: crib with rulings", client.get("/crib/JC-2H-4H-6H/8H"))
    pages.add("count: refused cards", client.post("/count", data={"csrf_token": token, "cards": "5H 5H ZZ",
                                                                   "kind": "hand", "op": "count"}))
    pages.add("peg", client.get("/peg"))
    pages.add("peg: a go and a 31", client.get("/peg?plays=A:TS+B:KH+A:9D+B:8C+A:JS+B:7H+A:6S"))
    pages.add("throw", client.get("/discard"))
    pages.add("throw: ranked", client.get("/discard?cards=5H-5C-5S-JD-2C-9D&rank=1&dealer=1"))
    pages.add("photo", upload_photo(client, monkeypatch))
    pages.add("new match form", client.get("/matches"))
    pages.add("new match: refused", client.post("/matches", data={
        "csrf_token": token, "name1": names[0], "name2": "", "target": "121", "preset": "home",
        "length_kind": "best_of", "length_count": "1", "first_dealer": "0", "muggins": "off"}))

    scorer, viewer = play_a_hand_with_cards(client, names)
    pages.add("match screen", client.get(f"/m/{scorer}"))
    pages.add("match: share page (viewer link)", client.get(f"/m/{viewer}"))
    pages.add("match: history", client.get(f"/m/{scorer}/history"))
    pages.add("match: statistics", client.get(f"/m/{scorer}/stats"))
    pages.add("match: undo confirm", client.get(f"/m/{scorer}/undo/2"))
    screen = client.get(f"/m/{scorer}")
    key = re.search(r'name="key" value="([\w-]+-crib)"', screen.get_data(as_text=True))
    pages.add("match: refused crib", client.post(f"/m/{scorer}/events", data={
        "csrf_token": token, "form": "crib", "after": str(after_seq(screen)),
        "key": key.group(1) if key else "", "points": "19"}))
    pages.add("matches index", client.get("/matches"))
    started = one_tap_start(client, pages.html["matches index"])
    pages.add("match: one-tap start", client.get(started))

    group = api(client, "/api/groups", {"name": GROUP_NAMES[lang], "players": list(names),
                                        "rules": {"target": 61}})
    over, over_viewer = play_a_match_to_the_end(client, names, group["id"])
    pages.add("match: over", client.get(f"/m/{over}"))
    pages.add("match: over, viewer", client.get(f"/m/{over_viewer}"))
    pages.add("match: over, statistics", client.get(f"/m/{over}/stats"))
    pages.add("groups index", client.get("/groups"))
    pages.add("group page", client.get(f"/g/{group['id']}"))
    pages.add("group page, viewer", client.get(f"/g/{group['viewer_id']}"))
    pages.add("not found", client.get("/no/such/page"))
    return pages


@pytest.fixture(params=TRANSLATED)
def pages(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Pages]:
    app = make_app(tmp_path)
    try:
        yield every_page(app, request.param, monkeypatch)
    finally:
        app.extensions["muggins.store"].close()


def test_every_page_is_in_the_phones_language(pages: Pages) -> None:
    wrong_status = {name: code for name, code in pages.status.items()
                    if code != {"not found": 404}.get(name, 422 if "refused" in name else 200)}
    assert not wrong_status, f"pages that did not answer as expected: {wrong_status}"
    seat_0 = NAMES[pages.lang][0]
    assert seat_0 in pages.html["match screen"] and seat_0 in pages.html["group page"]  # the pages are real
    not_lang = [name for name, body in pages.html.items() if f'<html lang="{pages.lang}"' not in body]
    assert not not_lang, f"pages without <html lang={pages.lang!r}>: {not_lang}"
    left = {name: sorted(set(words)) for name, body in pages.html.items() if (words := words_left(body))}
    listed = "\n".join(f"  {name}: {' '.join(words)}" for name, words in left.items())
    assert not left, f"English left on {len(left)} of {len(pages.html)} pages in {pages.lang}:\n{listed}"


# =============================================================================================
# Which language a request gets
# =============================================================================================


def lang_of(resp: TestResponse) -> str | None:
    found = re.search(r'<html lang="([\w-]+)"', resp.get_data(as_text=True))
    return found.group(1) if found else None


@pytest.mark.parametrize(
    ("accept", "lang"),
    [("hi", "hi"), ("mr-IN,mr;q=0.9,en;q=0.8", "mr"), ("tg-TJ", "tg"), ("en-GB,en;q=0.9", "en"),
     ("fr-FR,fr;q=0.9", "en"), ("de,mr;q=0.5", "mr"), ("", "en")],
)
def test_the_browsers_language_is_the_pages(client: FlaskClient, accept: str, lang: str) -> None:
    resp = client.get("/peg", headers={"Accept-Language": accept} if accept else {})
    assert lang_of(resp) == lang
    assert resp.headers["Content-Language"] == lang
    assert "Accept-Language" in resp.headers["Vary"] and "Cookie" in resp.headers["Vary"]


def test_the_switcher_works_without_javascript(client: FlaskClient) -> None:
    page = client.get("/peg", headers={"Accept-Language": "hi"}).get_data(as_text=True)
    assert 'href="/lang/mr?next=%2Fpeg"' in page  # a plain link on the page itself
    resp = client.get("/lang/mr?next=/peg", headers={"Accept-Language": "hi"})
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/peg"
    cookie = resp.headers["Set-Cookie"]
    assert cookie.startswith("lang=mr;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    after = client.get("/peg", headers={"Accept-Language": "hi"})  # the cookie beats the browser
    assert lang_of(after) == "mr"
    assert 'aria-current="true">मराठी<' in after.get_data(as_text=True)


def test_the_switcher_keeps_the_pages_query(client: FlaskClient) -> None:
    page = client.get("/hand/5H-5C-5S-JD/5D?claimed=27").get_data(as_text=True)
    link = re.search(r'href="(/lang/tg\?next=[^"]+)"', page)
    assert link
    resp = client.get(link.group(1).replace("&amp;", "&"))
    assert resp.headers["Location"] == "/hand/5H-5C-5S-JD/5D?claimed=27"


def test_an_unknown_language_changes_nothing(client: FlaskClient) -> None:
    client.get("/lang/mr?next=/")
    resp = client.get("/lang/xx?next=/peg")
    assert resp.status_code == 303 and resp.headers["Location"] == "/peg"
    assert "Set-Cookie" not in resp.headers
    assert lang_of(client.get("/peg", headers={"Accept-Language": "tg"})) == "mr"
    client.set_cookie("lang", "xx")  # a forged cookie is ignored: the browser's language again
    assert lang_of(client.get("/peg", headers={"Accept-Language": "tg"})) == "tg"


@pytest.mark.parametrize("target", ["//evil.com", "//evil.com/peg", "https://evil.com/", "/\\evil.com",
                                    "\\\\evil.com", "evil.com", "", "javascript:alert(1)"])
def test_the_switcher_never_leaves_the_site(client: FlaskClient, target: str) -> None:
    resp = client.get("/lang/hi", query_string={"next": target} if target else {})
    assert resp.status_code == 303
    assert resp.headers["Location"] == "/"


def test_a_json_lang_beats_the_cookie_and_the_browser(client: FlaskClient) -> None:
    client.get("/lang/mr?next=/")
    body = {"hand": "5H 5C 5S JD", "starter": "5D"}
    headers = {"Accept-Language": "hi"}
    assert client.post("/api/score", json=body, headers=headers).headers["Content-Language"] == "mr"
    resp = client.post("/api/score", json={**body, "lang": "tg"}, headers=headers)
    assert resp.status_code == 200 and resp.headers["Content-Language"] == "tg"
    assert resp.get_json()["total"] == 29  # JSON keys and values stay as they are
    assert client.post("/api/score", json={**body, "lang": "xx"}, headers=headers
                       ).headers["Content-Language"] == "mr"


def test_an_api_refusal_speaks_the_json_lang(client: FlaskClient) -> None:
    """The same one-line refusal in two languages: different words, the card code unchanged."""
    body = {"hand": "5H 5H 5S JD", "starter": "5D"}
    english = client.post("/api/score", json=body).get_json()["error"]
    marathi = client.post("/api/score", json={**body, "lang": "mr"}).get_json()["error"]
    assert "5H" in english and "5H" in marathi
    assert english_words(marathi) == [], marathi


def test_a_share_link_carries_no_language(web_app: Flask) -> None:
    scorer_phone = web_app.test_client()
    scorer_phone.get("/lang/mr?next=/matches")
    created = api(scorer_phone, "/api/matches", {"players": list(NAMES["mr"]), "first_dealer": 0})
    screen = scorer_phone.get(f"/m/{created['id']}")
    assert lang_of(screen) == "mr"
    body = screen.get_data(as_text=True)
    shared = re.findall(r'data-share-url="([^"]+)"', body) + re.findall(r'id="viewer-link">([^<]+)<', body)
    viewer_path = "/m/" + created["viewer_id"]
    assert any(url.endswith(viewer_path) for url in shared), shared
    assert all(url.endswith(("/m/" + created["id"], viewer_path)) for url in shared), shared
    friend = web_app.test_client()  # another phone, set to Tajik, opens the link
    assert lang_of(friend.get(viewer_path, headers={"Accept-Language": "tg"})) == "tg"
    assert lang_of(friend.get(viewer_path, headers={"Accept-Language": "hi"})) == "hi"
    qr = scorer_phone.get(f"/m/{created['id']}/qr.svg").get_data(as_text=True)
    assert "lang" not in qr


# =============================================================================================
# The spoken count and digits
# =============================================================================================

SPOKEN_29 = {
    # (words that must be said, words that must not), by hand from translations/GLOSSARY.md, "The
    # spoken count": 29 and fifteen as scorer.i18n.number_words spells them, and the glossary's
    # term for his nobs. Hindi spells fifteen पन्द्रह, never also पंद्रह ("a line never shows both").
    "hi": (["उनतीस", "पन्द्रह", "नॉब्स"], ["पंद्रह"]),
    "mr": (["एकोणतीस", "पंधरा", "नोब्स"], []),
    "tg": (["бисту нӯҳ", "понздаҳ", "валети ҳамранг"], []),
}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_29_hand_is_spoken_in_the_glossarys_words(client: FlaskClient, lang: str) -> None:
    page = client.get("/hand/5H-5C-5S-JD/5D", headers={"Accept-Language": lang}).get_data(as_text=True)
    found = re.search(r'<p class="spoken">(.*?)</p>', page, flags=re.S)
    assert found
    spoken = html.unescape(found.group(1))
    must, never = SPOKEN_29[lang]
    assert [w for w in must if w not in spoken] == [], spoken
    assert [w for w in never if w in spoken] == [], spoken
    assert english_words(spoken) == [], spoken


def test_marathi_scores_are_in_devanagari_digits_and_cards_stay_latin(client: FlaskClient) -> None:
    client.get("/lang/mr?next=/")
    token, _ = play_a_match_to_the_end(client, NAMES["mr"])
    screen = client.get(f"/m/{token}")
    assert (text_of(screen, "score-0"), text_of(screen, "score-1")) == ("६१", "३४")
    count = client.get("/hand/5H-5C-5S-JD/5D")
    assert text_of(count, "count-total") == "२९"
    assert "एकोणतीस" in page_text(count)  # the spoken count in Marathi words
    cards_token, _ = play_a_hand_with_cards(client, NAMES["mr"])
    history = page_text(client.get(f"/m/{cards_token}/history"))
    assert "5♥ 5♣ 4♦ 6♦" in history  # the cards as the rules write them (docs/RULES.md)
    assert not re.search(r"[०-९]\s?[♥♦♣♠HDSC]", history), "a card in Devanagari digits"
    client.set_cookie("lang", "hi")
    hindi = client.get("/hand/5H-5C-5S-JD/5D")
    assert text_of(hindi, "count-total") == "29"  # Hindi's CLDR default is Latin digits


# =============================================================================================
# One match, every phone in its own language; nothing stored in any language
# =============================================================================================


def test_each_phone_reads_a_shared_match_in_its_own_language(web_app: Flask) -> None:
    """The app caches replayed matches and polled boards per match and seq: a cache filled by one
    language must never answer another (docs/DESIGN.md, "Languages")."""
    english, marathi = web_app.test_client(), web_app.test_client()
    marathi.environ_base["HTTP_ACCEPT_LANGUAGE"] = "mr"
    token, viewer = play_a_hand_with_cards(english, NAMES["mr"])
    first = english.get(f"/m/{viewer}")
    prompt_en, scores_en = text_of(first, "prompt"), text_of(first, "score-0")
    live_en = english.get(f"/m/{viewer}/live", query_string={"since": "0"}, headers={"HX-Request": "true"})
    assert live_en.status_code == 200 and scores_en and scores_en.isascii()

    for path in (f"/m/{viewer}", f"/m/{viewer}/live?since=0"):
        seen = marathi.get(path, headers={"HX-Request": "true"} if "live" in path else {})
        assert seen.status_code == 200
        assert text_of(seen, "prompt") != prompt_en, f"{path}: the English prompt on a Marathi phone"
        assert words_left(seen.get_data(as_text=True).split('id="prompt"')[1].split("</p>")[0]) == []
        assert text_of(seen, "score-0") == "".join("०१२३४५६७८९"[int(d)] for d in scores_en), path
    history = marathi.get(f"/m/{token}/history").get_data(as_text=True)
    entry = re.search(r'id="e2">(.*?)</li>', history, flags=re.S)
    assert entry and words_left(entry.group(1)) == [], entry

    again = english.get(f"/m/{viewer}")  # and English is still English, unchanged
    assert (text_of(again, "prompt"), text_of(again, "score-0")) == (prompt_en, scores_en)
    live_again = english.get(f"/m/{viewer}/live", query_string={"since": "0"}, headers={"HX-Request": "true"})
    assert live_again.get_data() == live_en.get_data()


def test_a_match_scored_in_marathi_is_stored_as_in_english(web_app: Flask) -> None:
    """Events, kinds and numbers are data: a Marathi phone's taps store exactly what an English
    phone's would (the export is the stored log)."""
    stored: list[tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]] = []
    for lang in ("mr", "en"):
        client = web_app.test_client()
        client.environ_base["HTTP_ACCEPT_LANGUAGE"] = lang
        token = csrf_token(client)
        resp = client.post("/matches", data={
            "csrf_token": token, "name1": NAMES["mr"][0], "name2": NAMES["mr"][1], "target": "121",
            "preset": "home", "length_kind": "best_of", "length_count": "1", "first_dealer": "0",
            "muggins": "off"})
        assert resp.status_code == 303, page_text(resp)
        match = resp.headers["Location"].rsplit("/", 1)[1]
        for form, fields in (("starter", {"tap": "5D"}), ("peg", {"player": "1", "points": "2"}),
                             ("peg", {"player": "0", "points_typed": "6", "op": "typed"})):
            screen = client.get(f"/m/{match}")
            key = re.search(rf'name="key" value="([\w-]+-{form})"', screen.get_data(as_text=True))
            done = client.post(f"/m/{match}/events", data={
                "csrf_token": token, "form": form, "after": str(after_seq(screen)),
                "key": key.group(1) if key else "", **fields})
            assert done.status_code == 303, page_text(done)
        export = client.get(f"/api/matches/{match}/export").get_json()
        (played,) = export["matches"]
        stored.append((played["settings"], [(e["seq"], e["event"]) for e in played["events"]]))
    assert stored[0] == stored[1]
    assert [event["type"] for _, event in stored[0][1]] == ["starter", "peg", "peg"]
