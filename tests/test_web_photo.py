"""The photo flow without JavaScript, and ``POST /api/recognise``.

Photos are generated with ``vision.synth`` (procedural decks, fixed seeds), so the cards and where
they lie are known before the recogniser sees them. Totals worked by hand from docs/RULES.md:

- Seed 101 is the hand K♣ 9♥ 10♦ 4♥ with the 4♣ lying apart as the starter: the fours are a pair
  (2); no fifteen (10+4 is 14, 9+4 is 13, 9+4+4 is 17) and no run (9-10, then the king): 2.
- With the 9♥ corrected to the 5♥: K♣ 5♥ 10♦ 4♥ and the 4♣ make two fifteens (K+5, 10+5: 4) and
  the pair of fours (2): 6.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import json
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import cv2
import noting_reader
import numpy as np
import photo_readers
import pytest
from flask.testing import FlaskClient
from PIL import Image
from web_fixtures import HX, csrf_token, page_text, post_form, text_of
from werkzeug.test import TestResponse

import vision
import vision.io
from scorer.cards import Card
from vision.synth import SyntheticPhoto, render_blank_table, render_show
from web.photo import CHECK_BELOW

REPO = Path(__file__).resolve().parents[1]
SHOW_SEED = 101
"""K♣ 9♥ 10♦ 4♥ and the 4♣ apart: a show the recogniser reads exactly."""
SHOW_CARDS = ("KC", "9H", "TD", "4H", "4C")
DISPLAY_SCALE = 960 / 1600
"""The 1600 × 1200 photo is shown 960 × 720."""
UPLOAD_LIMIT = 15 * 1024 * 1024
"""Issue 5: uploads over 15 MB are refused."""


@pytest.fixture(scope="module")
def show() -> SyntheticPhoto:
    """The generated show photo (with its truth)."""
    photo = render_show(SHOW_SEED, harsh=False)
    assert photo.cards == SHOW_CARDS and photo.starter_index == 4
    return photo


@pytest.fixture(scope="module")
def show_jpeg(show: SyntheticPhoto) -> bytes:
    """The show photo as an uploaded JPEG."""
    return show.jpeg_bytes()


@pytest.fixture
def truth_reader(client: FlaskClient, show: SyntheticPhoto, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read the show photo as its truth says, sure of every card: the flow tests below are about
    the web pages, so they must not change with the recogniser's model (tested in test_vision).
    The app's photo reader is swapped, not the worker: the upload is still decoded in a limited
    worker process, and the truth reader runs there on the decoded pixels."""
    quads = [[(float(x), float(y)) for x, y in quad] for quad in show.quads]
    reader = functools.partial(photo_readers.read_as, show.cards, quads, show.image.shape[1])
    monkeypatch.setitem(client.application.config, "MUGGINS_PHOTO_READER", reader)


BOUNDARY = "photo-boundary"


def multipart(fields: dict[str, str], data: bytes, filename: str) -> bytes:
    """A multipart body with ``fields`` and the photo as field ``image``, built here: given a file,
    the test client spools a big body to a temporary file of its own and leaves it open."""
    head = "".join(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
                   for name, value in fields.items())
    return (head + f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="{filename}"\r\n'
            "Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def upload(client: FlaskClient, data: bytes, filename: str = "show.jpg", path: str = "/photo",
           headers: dict[str, str] | None = None, fields: dict[str, str] | None = None) -> TestResponse:
    """Send the "Take photo" form as the browser does (multipart, with the CSRF token)."""
    form = {"csrf_token": csrf_token(client), "for": "count", "kind": "hand", **(fields or {})}
    body = multipart(form, data, filename)
    return client.post(path, data=body, content_type=f"multipart/form-data; boundary={BOUNDARY}",
                       headers=headers or {})


def cards_form(resp: TestResponse) -> dict[str, str]:
    """The correction form's fields as the page holds them: hidden fields and the checked starter."""
    body = resp.get_data(as_text=True)
    start = body.index('action="/photo/cards"')
    form = body[start:body.index("</form>", start)]
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form)}
    starter = re.search(r'name="starter" value="(\d+)"[^>]*\bchecked\b', form)
    if starter:
        fields["starter"] = starter.group(1)
    return fields


def tap(client: FlaskClient, page: TestResponse, headers: dict[str, str] | None = None,
        **fields: str) -> TestResponse:
    """Press a button of the correction form (with any field changed), as the browser would."""
    return client.post("/photo/cards", data={**cards_form(page), **fields}, headers=headers or {})


def chip_names(resp: TestResponse) -> list[str]:
    """The chips' cards as a screen reader hears them, in order."""
    return re.findall(r'aria-label="Card \d+: ([a-z ]+), ', resp.get_data(as_text=True))


def chip_of(resp: TestResponse, card: str) -> str:
    """The chip position (the button's value) holding ``card``."""
    for found in re.finditer(r'name="chip" value="(\d+)"[^>]*aria-label="Card \d+: ([a-z ]+),',
                             resp.get_data(as_text=True)):
        if found.group(2) == Card.parse(card).name:
            return found.group(1)
    raise AssertionError(f"no chip holds {card}")


def names(*codes: str) -> list[str]:
    return [Card.parse(c).name for c in codes]


def notes(resp: TestResponse) -> str:
    """The problems and notes above the chips."""
    return text_of(resp, "photo-notes") or ""


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` × ``height`` pixels and holds none: 45 bytes."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IEND", b""))


def truncated_jpeg() -> bytes:
    """The first half of a real JPEG."""
    out = io.BytesIO()
    noise = np.random.default_rng(3).integers(0, 255, (200, 300, 3), dtype=np.uint8)
    Image.fromarray(noise).save(out, format="JPEG", quality=90)
    return out.getvalue()[: len(out.getvalue()) // 2]


BAD_IMAGES = [
    ("random bytes", bytes(np.random.default_rng(7).integers(0, 256, 5000, dtype=np.uint8)), "not an image"),
    ("truncated JPEG", truncated_jpeg(), "truncated or corrupt JPEG"),
    ("48 MP PNG header", png_header_only(8000, 6000), "too large.*8000x6000 \\(48 MP\\), the limit is 40 MP"),
    ("empty file", b"", "empty file"),
]


# ------------------------------------------------------------------------------ the starter

STARTER_NOTE = "{} lies apart: the starter? If not, tap “Starter” under the right card."
APART_SEED = 8_300_001
"""A generated show whose starter lies clearly apart (``render_show(..., apart=True)``)."""


def test_the_card_lying_apart_is_preset_as_the_starter_and_the_api_names_it(client: FlaskClient) -> None:
    photo = render_show(APART_SEED, harsh=False, apart=True)
    starter = photo.cards[4]
    api = client.post("/api/recognise", data=multipart({}, photo.jpeg_bytes(), "show.jpg"),
                      content_type=f"multipart/form-data; boundary={BOUNDARY}").get_json()
    assert sorted(c["card"] for c in api["cards"]) == sorted(photo.cards)
    assert api["cards"][api["starter"]]["card"] == starter
    assert all(isinstance(c["confidence"], float) for c in api["cards"])  # the numbers stay here
    page = upload(client, photo.jpeg_bytes())  # the real recogniser, in the worker
    assert cards_form(page)["starter"] == chip_of(page, starter)
    label = Card.parse(starter).label
    assert text_of(page, "starter-note") == STARTER_NOTE.format(label)
    # Two taps from the photo to the count: choosing it, then "Count".
    done = tap(client, page, op="done")
    assert done.status_code == 303
    hand, told = urlsplit(done.headers["Location"]).path.removeprefix("/hand/").split("/")
    assert told == starter and sorted(hand.split("-")) == sorted(photo.cards[:4])


def test_one_tap_changes_the_preset_starter(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg)
    assert cards_form(page)["starter"] == chip_of(page, "4C")
    done = tap(client, page, op="done", starter=chip_of(page, "KC"))
    hand, starter = urlsplit(done.headers["Location"]).path.removeprefix("/hand/").split("/")
    assert starter == "KC" and sorted(hand.split("-")) == sorted(["9H", "TD", "4H", "4C"])


# ------------------------------------------------------------------------------ the entry points


def test_every_card_entry_offers_take_photo(client: FlaskClient) -> None:
    for path, fields in [("/", {"for": "count", "kind": "hand"}),
                         ("/?kind=crib", {"for": "count", "kind": "crib"}),
                         ("/discard?players=3&dealer=1", {"for": "discard", "players": "3", "dealer": "1"})]:
        body = client.get(path).get_data(as_text=True)
        form = re.search(r'<form id="photo-form".*?</form>', body, flags=re.S)
        assert form, path
        assert 'enctype="multipart/form-data"' in form.group(0) and 'action="/photo"' in form.group(0)
        for name, value in fields.items():
            assert f'name="{name}" value="{value}"' in form.group(0), (path, name)
        assert re.search(r'<input type="file" id="photo-file" name="image" accept="image/\*" '
                         r'capture="environment"\s+form="photo-form"', body), path
        assert 'id="photo-progress"' in body  # the progress state htmx shows while the photo is read


def test_a_finished_count_offers_no_photo(client: FlaskClient) -> None:
    assert 'id="photo-form"' not in client.get("/hand/5H-5C-5S-JD/5D").get_data(as_text=True)


def test_images_may_be_data_urls_under_the_csp(client: FlaskClient) -> None:
    policy = client.get("/").headers["Content-Security-Policy"]
    assert "img-src 'self' data:" in policy and "script-src 'self';" in policy


# ------------------------------------------------------------------------------ reading a photo


def test_the_cards_found_are_outlined_numbered_and_offered_as_chips(
        client: FlaskClient, show: SyntheticPhoto, show_jpeg: bytes) -> None:
    resp = upload(client, show_jpeg)  # the real recogniser
    assert resp.status_code == 200
    assert resp.headers["Cache-Control"] == "no-store"
    body = resp.get_data(as_text=True)
    # Each outline the recogniser is sure of lies on the card it names (the truth's corners, shrunk
    # to the shown size) and is numbered as its chip; any card it doubts is flagged for the player.
    marks = re.findall(r'<g class="mark (\w+)">\s*<polygon points="([^"]+)"></polygon>\s*'
                       r'<text[^>]*>(\d+) ([^<]+)</text>', body)
    found = set()
    for status, points, number, label in marks:
        chip_name = chip_names(resp)[int(number) - 1]
        if status == "unsure":
            assert re.search(rf'aria-label="Card {number}: {chip_name}, check this card\. Tap', body)
        xy = np.array([[float(v) for v in p.split(",")] for p in points.split()])
        centre = tuple(xy.mean(axis=0))
        inside = [code for code, quad in zip(show.cards, show.quads, strict=True)
                  if cv2.pointPolygonTest((np.asarray(quad) * DISPLAY_SCALE).astype(np.float32), centre,
                                          False) > 0]
        if status == "unsure" and not (len(inside) == 1 and Card.parse(inside[0]).label == label):
            continue  # a doubted extra, flagged above: the player drops it below
        assert len(inside) == 1, (number, label)
        assert Card.parse(inside[0]).label == label and chip_name == Card.parse(inside[0]).name
        found.add(inside[0])
    assert found == set(SHOW_CARDS)
    # The photo comes back inline, shrunk to 960 px, and nothing else holds it.
    photo = re.search(r'<img id="photo-img" src="data:image/jpeg;base64,([^"]+)" width="960" height="720"',
                      body)
    assert photo
    shown = Image.open(io.BytesIO(base64.b64decode(photo.group(1))))
    assert shown.format == "JPEG" and shown.size == (960, 720)
    # Once any doubted extras are gone (one tap), the 4♣ lying apart is preset as the starter.
    if len(marks) > len(SHOW_CARDS):
        resp = tap(client, resp, op="drop_unsure")
    assert sorted(chip_names(resp)) == sorted(names(*SHOW_CARDS))
    assert cards_form(resp)["starter"] == chip_of(resp, "4C")
    assert text_of(resp, "starter-note") == STARTER_NOTE.format("4♣")


def test_the_photo_is_decoded_and_read_in_a_worker_as_it_is_in_process(
        client: FlaskClient, show_jpeg: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reading the page shows is the recogniser's own for the decoded array, exactly as this
    # process reads it; and this process neither decodes nor reads: both happen in the worker.
    expected = vision.recognise(show_jpeg)  # corners in the photo's own pixels
    assert len(expected.cards) >= len(SHOW_CARDS)
    recogniser = sys.modules["vision.recognise"]

    def nowhere(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server process decoded or read the photo itself")

    monkeypatch.setattr(vision.io, "decode_bytes", nowhere)
    monkeypatch.setattr(recogniser, "recognise", nowhere)
    monkeypatch.setattr(recogniser, "load_image", nowhere)
    resp = upload(client, show_jpeg)
    assert resp.status_code == 200
    labels = sorted(re.findall(r'<text[^>]*>\d+ ([^<]+)</text>', resp.get_data(as_text=True)))
    assert labels == sorted(Card.parse(d.card).label for d in expected.cards)
    api = client.post("/api/recognise", data=multipart({}, show_jpeg, "show.jpg"),
                      content_type=f"multipart/form-data; boundary={BOUNDARY}")
    assert api.get_json() == expected.to_dict()


def test_the_photo_page_has_the_next_photos_worker_wait_ready_and_the_camera_does_not(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    # A player photographs one show after another: once the page's photo is read, the next
    # photo's worker is started and waits ready, and takes that photo. A live camera's frames
    # come faster than a worker warms up: a frame is read by the one waiting, if any, and starts
    # none.
    reader = client.application.config["MUGGINS_PHOTO_READER"]
    assert upload(client, show_jpeg).status_code == 200
    assert vision.io.ready_worker(timeout=60, reader=reader) is not None
    assert upload(client, show_jpeg).status_code == 200
    assert vision.io.last_cost.value.ready is True
    waiting = vision.io.ready_worker(timeout=60, reader=reader)
    assert waiting is not None
    assert "photo-form" in client.get("/").get_data(as_text=True)
    assert vision.io.ready_worker() == waiting  # a page that offers a photo starts no second one
    frame = client.post("/api/recognise/frame", data={"image": (io.BytesIO(show_jpeg), "frame.jpg")})
    assert frame.status_code == 200 and vision.io.last_cost.value.ready is True
    frame = client.post("/api/recognise/frame", data={"image": (io.BytesIO(show_jpeg), "frame.jpg")})
    assert frame.status_code == 200 and vision.io.last_cost.value.ready is False
    assert vision.io.ready_worker(timeout=3, reader=reader) is None


def test_a_page_that_offers_a_photo_has_its_first_photos_worker_wait_ready(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    # The server's first photo: the page that offers the photo starts its worker as it is drawn,
    # and the photo sent from it is read by that worker, warmed up.
    reader = client.application.config["MUGGINS_PHOTO_READER"]
    assert vision.io.ready_worker(reader=reader) is None
    assert "photo-form" in client.get("/").get_data(as_text=True)
    assert vision.io.ready_worker(timeout=60, reader=reader) is not None
    assert upload(client, show_jpeg).status_code == 200
    assert vision.io.last_cost.value.ready is True


def test_no_js_flow_correct_a_card_pick_the_starter_and_count(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg)
    page = tap(client, page, chip=chip_of(page, "9H"))
    assert page.status_code == 200
    assert "Card 2, the nine of hearts: tap the right card below" in page_text(page)
    assert re.search(r'id="pick-5H" class="pick"', page.get_data(as_text=True))  # the picker is open
    page = tap(client, page, tap="5H")
    assert page.status_code == 200
    assert sorted(chip_names(page)) == sorted(names("KC", "5H", "TD", "4H", "4C"))
    assert re.search(r'Card \d: five of hearts, changed', page.get_data(as_text=True))
    assert '<img id="photo-img" hx-preserve="true" alt="" hidden>' in page.get_data(as_text=True)  # not kept
    done = tap(client, page, op="done", starter=chip_of(page, "4C"))
    assert done.status_code == 303
    path = urlsplit(done.headers["Location"]).path
    hand, starter = path.removeprefix("/hand/").split("/")
    assert starter == "4C" and sorted(hand.split("-")) == sorted(["KC", "5H", "TD", "4H"])
    counted = client.get(done.headers["Location"])
    assert text_of(counted, "count-total") == "6"


def test_a_crib_goes_to_the_crib_count(client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg, fields={"kind": "crib"})
    assert text_of(page, "photo-title") == "Count a crib"
    done = tap(client, page, op="done")  # the suggested starter, untouched
    assert done.status_code == 303
    assert re.fullmatch(r"/crib/(\w\w-){3}\w\w/4C", done.headers["Location"])
    assert text_of(client.get(done.headers["Location"]), "count-total") == "2"


def test_htmx_gets_the_panel_and_a_redirect_at_the_end(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg, headers=HX)
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" not in body
    assert 'id="photo-panel"' in body and "HX-Request" in page.headers.get("Vary", "")
    page = tap(client, page, headers=HX, chip="0")
    assert '<img id="photo-img" hx-preserve="true"' in page.get_data(as_text=True)
    done = tap(client, page, headers=HX, op="done", starter=chip_of(page, "4C"))
    assert done.status_code == 204 and done.headers["HX-Redirect"].endswith("/4C")


def test_the_upload_form_needs_its_csrf_token(client: FlaskClient, show_jpeg: bytes) -> None:
    resp = client.post("/photo", data=multipart({"for": "count"}, show_jpeg, "show.jpg"),
                       content_type=f"multipart/form-data; boundary={BOUNDARY}")
    assert resp.status_code == 400 and "form has expired" in page_text(resp)


# ------------------------------------------------------------------------------ wrong counts


def test_a_photo_without_cards_says_how_to_retake_it(client: FlaskClient) -> None:
    ok, jpeg = cv2.imencode(".jpg", render_blank_table(11))
    assert ok
    page = upload(client, jpeg.tobytes())
    assert page.status_code == 200
    assert "No cards found. Lay the cards apart on a darker surface" in notes(page)
    assert chip_names(page) == []
    assert 'id="pick-5H"' in page.get_data(as_text=True)  # every card can still be tapped in
    done = tap(client, page, op="done")
    assert done.status_code == 422
    assert "No cards found" in (text_of(done, "cards-error") or "")


def _crafted(client: FlaskClient, page: TestResponse, cards: list[str], confidence: float = 0.99,
             unsure: tuple[str, ...] = (), **fields: str) -> TestResponse:
    """The panel as if the photo had shown ``cards`` (one outline each, in a row), read with
    ``confidence``, except the ``unsure`` ones, read with half of it."""
    found = [[code, confidence / 2 if code in unsure else confidence,
              [x, 10, x + 60, 10, x + 60, 100, x, 100]]
             for code, x in zip(cards, range(10, 900, 110), strict=False)]
    chips = " ".join(f"{c}@{i}" for i, c in enumerate(cards))
    state = {**cards_form(page), "found": json.dumps(found), "chips": chips, "size": "960 720", **fields}
    state.pop("starter", None)
    return client.post("/photo/cards", data={**state, "chip": "", "op": ""})


def test_three_cards_found_asks_for_the_missing_two(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "4C"])
    assert ("3 of 5 cards: tap the missing 2 cards below, or lay the cards apart on a darker surface and "
            "take the photo again.") in notes(page)
    page = tap(client, page, tap="TD")
    page = tap(client, page, tap="4H")
    assert notes(page) == "" and sorted(chip_names(page)) == sorted(names(*SHOW_CARDS))
    assert re.search(r"Card 4: ten of diamonds, added", page.get_data(as_text=True))
    assert "Tap which card is the starter." in (text_of(page, "starter-note") or "")  # added cards: no guess
    refused = tap(client, page, op="done")
    assert refused.status_code == 422 and text_of(refused, "cards-error") == "Tap which card is the starter."


def test_seven_cards_found_asks_to_remove_two(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "TD", "4H", "4C", "AD", "7S"])
    assert ("7 cards, 5 wanted: tap a card that is not in the hand and remove it, or take the photo again "
            "with only those 5 cards in view.") in notes(page)
    assert "To change a card, tap it above" in page_text(page)  # nothing to add: the picker stays shut
    for card in ("AD", "7S"):
        page = tap(client, page, chip=chip_of(page, card))
        page = tap(client, page, op="remove")
    assert notes(page) == ""
    assert page.get_data(as_text=True).count('class="mark removed"') == 2  # ✕ on the photo
    done = tap(client, page, op="done", starter=chip_of(page, "4C"))
    assert done.status_code == 303


def test_unsure_extra_cards_go_in_one_tap(client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "AD", "TD", "4H", "7S", "4C"],
                    unsure=("AD", "7S"))
    assert text_of(page, "drop-unsure") == "Remove the 2 cards marked “check this card”"
    page = tap(client, page, op="drop_unsure")
    assert chip_names(page) == names("KC", "9H", "TD", "4H", "4C") and notes(page) == ""
    assert text_of(page, "drop-unsure") is None


def test_a_duplicate_is_explained(client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "KC", "4H", "4C"])
    assert ("Cards 1 and 3 are both the king of clubs: a deck holds each card once. Tap the wrong one, then "
            "the right card below.") in notes(page)
    assert tap(client, page, op="done").status_code == 422


def test_a_picker_tap_that_cannot_apply_says_why(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg)
    full = tap(client, page, tap="2S")
    assert full.status_code == 422
    assert "5 cards are in: tap a card above to change or remove it" in (text_of(full, "cards-error") or "")
    selected = tap(client, page, chip=chip_of(page, "9H"))
    taken = tap(client, selected, tap="KC")
    assert taken.status_code == 422
    assert re.fullmatch(r"The king of clubs is already card \d: tap that card first to change it\.",
                        text_of(taken, "cards-error") or "")


def test_removing_a_card_before_the_starter_keeps_the_starter(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg)
    starter = cards_form(page)["starter"]
    first = "0" if starter != "0" else "1"
    page = tap(client, tap(client, page, chip=first), op="remove")
    assert chip_names(page)[int(cards_form(page)["starter"])] == "four of clubs"


def test_unsure_cards_stand_out(client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    unsure = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "TD", "4H", "4C"],
                      confidence=round(CHECK_BELOW - 0.01, 2))
    body = unsure.get_data(as_text=True)
    assert body.count('class="photo-chip unsure') == 5 and body.count("check this card") >= 5
    assert "Check cards 1, 2, 3, 4 and 5: the photo was not clear enough" in notes(unsure)
    assert body.count('<span class="chip-check">⚠</span>') == 5  # marked by a sign too, not by colour alone
    sure = _crafted(client, upload(client, show_jpeg), ["KC", "9H", "TD", "4H", "4C"], confidence=CHECK_BELOW)
    assert "check this card" not in sure.get_data(as_text=True) and "⚠" not in sure.get_data(as_text=True)
    # Words, not percentages: the numbers stay in the API.
    assert sure.get_data(as_text=True).count('<span class="chip-note" aria-hidden="true">sure</span>') == 5
    assert 'aria-label="Card 1: king of clubs, sure. Tap to change it."' in sure.get_data(as_text=True)
    assert "%" not in page_text(sure)


@pytest.mark.parametrize("fields", [
    {"size": "0 0"}, {"size": "960"}, {"size": "96000 720"},
    {"found": "[" * 5000}, {"found": "x" * 9000}, {"found": '[["5H", NaN, [1,2,3,4,5,6,7,8]]]'},
    {"found": '[["5H", true, [1,2,3,4,5,6,7,8]]]'}, {"found": '[["ZZ", 0.5, [1,2,3,4,5,6,7,8]]]'},
    {"found": '[["5H", 0.5, [1,2,3]]]'}, {"found": '{"a": 1}'},
    {"chips": "5H@9"}, {"chips": "5H@0 KC@0"}, {"chips": "XX"}, {"chips": "5H@²"},
])
def test_a_damaged_correction_form_is_refused_with_a_message(
        client: FlaskClient, show_jpeg: bytes, fields: dict[str, str], truth_reader: None) -> None:
    page = upload(client, show_jpeg)
    resp = client.post("/photo/cards", data={**cards_form(page), **fields})
    assert resp.status_code == 422
    assert "record of the photo is damaged" in (text_of(resp, "image-error") or "")


def test_an_empty_correction_form_is_refused(client: FlaskClient) -> None:
    resp = post_form(client, "/photo/cards", {})
    assert resp.status_code == 422


# ------------------------------------------------------------------------------ bad uploads


@pytest.mark.parametrize(("what", "data", "message"), BAD_IMAGES, ids=[b[0] for b in BAD_IMAGES])
def test_bad_images_get_a_clear_message(client: FlaskClient, what: str, data: bytes, message: str) -> None:
    resp = upload(client, data, filename="photo.png")
    assert resp.status_code == 422, what
    error = text_of(resp, "image-error") or ""
    assert re.search(message, error, flags=re.I), error
    assert error.endswith("Take the photo again, or type the cards.")
    assert "take the photo again" in page_text(resp).lower()  # the retake button is right there


def test_a_form_without_a_photo_asks_for_one(client: FlaskClient) -> None:
    resp = post_form(client, "/photo", {"for": "count"})
    assert resp.status_code == 422
    assert (text_of(resp, "image-error") or "").startswith("No photo came with the form")


def test_uploads_over_15_mb_are_refused_with_413(client: FlaskClient) -> None:
    resp = upload(client, b"\x00" * (UPLOAD_LIMIT + 1))
    assert resp.status_code == 413
    assert "That photo is too large: the most the server takes is 15 MB" in page_text(resp)
    api = upload(client, b"\x00" * (UPLOAD_LIMIT + 1), path="/api/recognise")
    assert api.status_code == 413
    assert api.get_json() == {"error": "photo too large: the most the server takes is 15 MB"}


def test_a_14_mb_upload_is_not_refused_for_its_size(client: FlaskClient) -> None:
    resp = upload(client, b"\x00" * (14 * 1024 * 1024))
    assert resp.status_code == 422 and "not an image" in (text_of(resp, "image-error") or "").lower()


# ------------------------------------------------------------------------------ the other flows


def _match_after_starter(client: FlaskClient, starter: str) -> dict[str, str]:
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 1}).get_json()
    resp = client.post(f"/api/matches/{created['id']}/events",
                       json={"after": 0, "event": {"type": "starter", "card": starter}})
    assert resp.status_code == 201
    return {"scorer": created["id"], "viewer": created["viewer_id"]}


def test_a_match_hand_from_a_photo_fills_the_card_entry(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    links = _match_after_starter(client, "4C")
    screen = client.get(f"/m/{links['scorer']}").get_data(as_text=True)
    assert f'name="match" value="{links["scorer"]}"' in screen and 'form="photo-form"' in screen
    page = upload(client, show_jpeg, fields={"for": "match", "match": links["scorer"]})
    assert page.status_code == 200 and text_of(page, "photo-title") == "Count Ann’s hand"
    assert sorted(chip_names(page)) == sorted(names("KC", "9H", "TD", "4H"))  # the starter is left out
    assert "The starter (4♣) is in the photo: it is left out of the hand." in notes(page)
    assert 'name="starter"' not in page.get_data(as_text=True)
    done = tap(client, page, op="done")
    assert done.status_code == 303
    target = urlsplit(done.headers["Location"])
    assert target.path == f"/m/{links['scorer']}"
    assert sorted(parse_qs(target.query)["cards"][0].split("-")) == sorted(["KC", "9H", "TD", "4H"])
    filled = client.get(done.headers["Location"]).get_data(as_text=True)
    assert re.search(r'class="preview".*?<span class="total">2</span>', filled, flags=re.S)


def test_a_viewer_link_cannot_use_the_photo_flow(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    links = _match_after_starter(client, "4C")
    assert 'id="photo-form"' not in client.get(f"/m/{links['viewer']}").get_data(as_text=True)
    assert upload(client, show_jpeg, fields={"for": "match", "match": links["viewer"]}).status_code == 403
    assert upload(client, show_jpeg, fields={"for": "match", "match": "no-such-match"}).status_code == 404


def test_a_match_with_nothing_to_count_says_so(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    created = client.post("/api/matches", json={"players": ["Ann", "Bob"], "first_dealer": 1}).get_json()
    resp = upload(client, show_jpeg, fields={"for": "match", "match": created["id"]})
    assert resp.status_code == 422
    assert (text_of(resp, "image-error") or "").startswith("No hand or crib is waiting to be counted")


def test_the_throw_advisor_takes_five_cards_for_three_players(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg, fields={"for": "discard", "players": "3", "dealer": "0"})
    assert text_of(page, "photo-title") == "Which to throw?"
    assert 'name="starter"' not in page.get_data(as_text=True)
    done = tap(client, page, op="done")
    assert done.status_code == 303
    target = urlsplit(done.headers["Location"])
    query = parse_qs(target.query)
    assert target.path == "/discard" and query["players"] == ["3"] and "rank" not in query
    assert sorted(query["cards"][0].split("-")) == sorted(SHOW_CARDS)
    complete = client.get(done.headers["Location"]).get_data(as_text=True)
    assert 'name="guess"' in complete  # the deal is complete: the throw can be marked


def test_the_throw_advisor_asks_for_the_sixth_card_for_two_players(
        client: FlaskClient, show_jpeg: bytes, truth_reader: None) -> None:
    page = upload(client, show_jpeg, fields={"for": "discard", "players": "2", "dealer": "1"})
    assert "5 of 6 cards: tap the missing card below" in notes(page)
    page = tap(client, page, tap="2S")
    done = tap(client, page, op="done")
    query = parse_qs(urlsplit(done.headers["Location"]).query)
    assert sorted(query["cards"][0].split("-")) == sorted([*SHOW_CARDS, "2S"]) and query["dealer"] == ["1"]


# ------------------------------------------------------------------------------ the JSON API


def test_api_recognise_answers_as_the_cli_does(client: FlaskClient, show: SyntheticPhoto, show_jpeg: bytes,
                                               tmp_path: Path) -> None:
    resp = client.post("/api/recognise", data=multipart({}, show_jpeg, "show.jpg"),  # no CSRF token:
                       content_type=f"multipart/form-data; boundary={BOUNDARY}")  # the API is exempt
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    data = resp.get_json()
    assert set(data) == {"cards", "warnings", "starter"}
    for d in data["cards"]:
        assert set(d) == {"card", "confidence", "corners"} and 0 <= d["confidence"] <= 1
    assert sorted(d["card"] for d in data["cards"]) == sorted(SHOW_CARDS)
    assert data["cards"][data["starter"]]["card"] == "4C"  # lying apart from the hand
    for d in data["cards"]:
        if d["confidence"] < CHECK_BELOW:  # a card it doubts is named for the player to check
            assert any(d["card"] in warning and "not sure" in warning for warning in data["warnings"])
        centre = tuple(np.asarray(d["corners"], dtype=float).mean(axis=0))  # in the 1600 × 1200 original
        quad = np.asarray(show.quads[show.cards.index(d["card"])], dtype=np.float32)
        assert cv2.pointPolygonTest(quad, centre, False) > 0
    photo = tmp_path / "show.jpg"
    photo.write_bytes(show_jpeg)
    cli = subprocess.run([sys.executable, "-m", "vision", str(photo), "--json"], capture_output=True,
                         text=True, cwd=REPO, check=True)
    assert json.loads(cli.stdout) == data


def test_api_recognise_reads_a_show_told_to_expect_five_as_the_cli_does(client: FlaskClient,
                                                                         tmp_path: Path) -> None:
    # A show with its five cards apart (seed 202): told to expect five, the recogniser reads them
    # from their outlines alone; the cards, and the one lying apart, are those of the full reading.
    photo = render_show(202, harsh=False)
    answers = {}
    for fields in ({}, {"expect": "5"}):
        resp = client.post("/api/recognise", data=multipart(fields, photo.jpeg_bytes(), "show.jpg"),
                           content_type=f"multipart/form-data; boundary={BOUNDARY}")
        assert resp.status_code == 200, resp.get_data(as_text=True)
        answers[bool(fields)] = resp.get_json()
    for data in answers.values():
        assert sorted(d["card"] for d in data["cards"]) == sorted(photo.cards)
        assert data["cards"][data["starter"]]["card"] == photo.cards[photo.starter_index]
    assert not answers[True]["warnings"]
    path = tmp_path / "show.jpg"
    path.write_bytes(photo.jpeg_bytes())
    cli = subprocess.run([sys.executable, "-m", "vision", str(path), "--json", "--expect", "5"],
                         capture_output=True, text=True, cwd=REPO, check=True)
    assert json.loads(cli.stdout) == answers[True]


@pytest.mark.parametrize("value", ["0", "53", "five", "4.5", "-5", "\u0665", "5" * 5000])
def test_api_recognise_refuses_a_count_that_is_no_number_of_cards(client: FlaskClient, show_jpeg: bytes,
                                                                  value: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    reads = tmp_path / "reads"
    reads.mkdir()
    reader = functools.partial(noting_reader.read_noting_expect, str(reads))
    monkeypatch.setitem(client.application.config, "MUGGINS_PHOTO_READER", reader)
    resp = client.post("/api/recognise", data=multipart({"expect": value}, show_jpeg, "show.jpg"),
                       content_type=f"multipart/form-data; boundary={BOUNDARY}")
    assert resp.status_code == 400
    error = resp.get_json()["error"]
    assert error.startswith("bad 'expect': ") and error.endswith("give it like 5") and len(error) < 120
    assert not list(reads.iterdir())  # refused before any photo was read


def test_each_photo_form_tells_the_reader_how_many_cards_it_wants(client: FlaskClient, show_jpeg: bytes,
                                                                  tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The count page wants a show (five cards), the throw advisor the cards dealt (six to each of
    # two players, five to each of three); the API only what it is told.
    reads = tmp_path / "reads"
    reads.mkdir()
    reader = functools.partial(noting_reader.read_noting_expect, str(reads))
    monkeypatch.setitem(client.application.config, "MUGGINS_PHOTO_READER", reader)
    sent = [
        ("/photo", {}),
        ("/photo", {"for": "discard", "players": "2"}),
        ("/photo", {"for": "discard", "players": "3"}),
        ("/api/recognise", {}),
        ("/api/recognise", {"expect": "4"}),
    ]
    for path, fields in sent:
        resp = upload(client, show_jpeg, path=path, fields=fields)
        assert resp.status_code == 200, resp.get_data(as_text=True)
    told = [(reads / f"read-{i}").read_text() for i in range(len(sent))]
    assert told == ["5", "6", "5", "None", "4"]


def test_an_iphone_heic_reads_as_its_jpeg_does(client: FlaskClient, show: SyntheticPhoto,
                                               show_jpeg: bytes) -> None:
    # An iPhone stores HEIC. Decoding HEVC once took a malloc arena (64 MiB of address space) of
    # the photo worker's budget, and every HEIC upload was refused as "too large or too complex".
    import pillow_heif

    heic = io.BytesIO()
    with Image.open(io.BytesIO(show_jpeg)) as photo:
        pillow_heif.from_pillow(photo.convert("RGB")).save(heic, quality=90)
    answers = []
    for data, name in ((heic.getvalue(), "show.heic"), (show_jpeg, "show.jpg")):
        resp = client.post("/api/recognise", data=multipart({}, data, name),
                           content_type=f"multipart/form-data; boundary={BOUNDARY}")
        assert resp.status_code == 200, resp.get_data(as_text=True)
        answers.append(sorted(d["card"] for d in resp.get_json()["cards"]))
    assert answers[0] == answers[1] == sorted(SHOW_CARDS)


@pytest.mark.parametrize(("what", "data", "message"), BAD_IMAGES, ids=[b[0] for b in BAD_IMAGES])
def test_api_recognise_refuses_bad_images_with_400(client: FlaskClient, what: str, data: bytes,
                                                   message: str) -> None:
    resp = client.post("/api/recognise", data={"image": (io.BytesIO(data), "photo.png")},
                       content_type="multipart/form-data")
    assert resp.status_code == 400, what
    error = resp.get_json()["error"]
    assert re.search(message, error) and "\n" not in error


def test_api_recognise_without_an_image_field(client: FlaskClient) -> None:
    resp = client.post("/api/recognise", json={"image": "5H"})
    assert resp.status_code == 400
    assert resp.get_json() == {
        "error": "missing 'image': send the photo as the multipart form field named image"}


def test_odd_forms_to_the_photo_routes_are_refused_never_a_500(client: FlaskClient) -> None:
    token = csrf_token(client)
    for path in ("/photo", "/photo/cards", "/api/recognise"):
        for data in ({}, {"image": (io.BytesIO(b"x"), "")}, {"for": "match"},
                     {"for": "discard", "players": "9"}, {"image": (io.BytesIO(b""), "")}):
            resp = client.post(path, data={**data, "csrf_token": token}, content_type="multipart/form-data")
            assert 400 <= resp.status_code < 500, (path, data, resp.status_code)


def test_a_match_hand_photo_holding_the_starter_too_reads_the_hand_s_four_cards() -> None:
    # A match's hand photo (four cards wanted) often holds the starter as well. Told four, a
    # reading stops as soon as its outlines read four cards surely: in this show (the K♦ its
    # starter) those are three hand cards and the starter. Told the starter too, the app's
    # reader reads the photo again told five, and has the hand's four cards.
    from web.reader import read_cards

    photo = render_show(202, harsh=False)
    pixels = vision.io.load_image(photo.jpeg_bytes(), vision.io.FINER_LONG_SIDE_PX).pixels
    hand = sorted(set(photo.cards) - {"KD"})
    told_four = read_cards(pixels, expect=4)
    assert "KD" in {d.card for d in told_four.cards} and len(told_four.cards) == 4
    knowing = read_cards(pixels, expect=4, starter="KD")
    assert sorted(d.card for d in knowing.cards if d.card != "KD") == hand
    assert all(d.confidence >= CHECK_BELOW for d in knowing.cards)
    # A starter the photo does not hold, or four hand cards read beside it, change nothing.
    assert read_cards(pixels, expect=4, starter="2C").to_dict() == told_four.to_dict()
    assert read_cards(pixels, expect=5, starter="KD").to_dict() == read_cards(pixels, expect=5).to_dict()
