"""Shrinking a photo in the browser before it is sent changes nothing the server reads.

``static/js/photo.js`` turns a large photo into a JPEG of ``LONG_SIDE`` px on its long side at
``JPEG_QUALITY``, with its EXIF orientation applied to the pixels, before sending it; the
original-size path stays for forms without JavaScript and for the API. ``browser_shrink`` does
the same with Pillow. Every labelled photo in ``../shared/cards`` (at most 1600 px, as their
README says) is first made into a phone's 12 MP original: enlarged to 4032 px on the long side and
stored turned a quarter with the EXIF orientation that turns it back, as a phone held upright
stores it. The cards the recogniser reads from that original and from its shrunk copy must be the
same (but for cards at the edge of being reported: see the test): the server decodes at 1600 px
whatever it is sent.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from vision import recognise
from vision.recognise import UNSURE_BELOW

REPO = Path(__file__).resolve().parents[1]
SHARED_CARDS = REPO.parent / "shared" / "cards"


def _photo_js(name: str) -> float:
    """The number `name` is set to in static/js/photo.js (`var NAME = value;`): the test shrinks
    as the page does, from the page's own settings."""
    source = (REPO / "static" / "js" / "photo.js").read_text()
    match = re.search(rf"\bvar {name} = ([0-9.]+);", source)
    assert match, f"photo.js sets no {name}"
    return float(match.group(1))


LONG_SIDE = int(_photo_js("LONG_SIDE"))
"""``LONG_SIDE`` in static/js/photo.js."""
JPEG_QUALITY = round(_photo_js("JPEG_QUALITY") * 100)
"""``JPEG_QUALITY`` in static/js/photo.js, as a Pillow quality (0-100; the canvas takes 0-1)."""
PHONE_LONG_SIDE = 4032
"""A 12 MP phone photo is 4032 × 3024."""
ORIENTATION = 0x0112
TURNED_A_QUARTER = 6
"""EXIF orientation 6: the stored pixels must be turned a quarter clockwise to be seen upright."""


def browser_shrink(data: bytes) -> bytes:
    """What photo.js sends for a photo: a JPEG with the long side shrunk to ``LONG_SIDE`` and the
    orientation applied, or the file itself when it is no larger already or the JPEG saves nothing."""
    with Image.open(io.BytesIO(data)) as opened:
        image = ImageOps.exif_transpose(opened)
    scale = LONG_SIDE / max(image.size)
    if scale >= 1:
        return data
    # Math.round in the script: halves go up.
    size = tuple(max(1, int(side * scale + 0.5)) for side in image.size)
    out = io.BytesIO()
    small = image.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    small.save(out, format="JPEG", quality=JPEG_QUALITY)
    return out.getvalue() if len(out.getvalue()) < len(data) else data


def phone_original(path: Path) -> bytes:
    """The photo as a phone would store it at 12 MP: enlarged, turned a quarter, oriented by EXIF."""
    with Image.open(path) as opened:
        upright = opened.convert("RGB")
    scale = PHONE_LONG_SIDE / max(upright.size)
    size = (round(upright.width * scale), round(upright.height * scale))
    big = upright.resize(size, Image.Resampling.BICUBIC)
    stored = big.transpose(Image.Transpose.ROTATE_90)  # a quarter anticlockwise: EXIF 6 turns it back
    exif = Image.Exif()
    exif[ORIENTATION] = TURNED_A_QUARTER
    out = io.BytesIO()
    stored.save(out, format="JPEG", quality=92, exif=exif.tobytes())
    return out.getvalue()


def _shared_photos() -> list[Path]:
    if not SHARED_CARDS.is_dir():
        return []
    return [folder / name for folder in sorted(SHARED_CARDS.iterdir()) if (folder / "labels.json").is_file()
            for name in sorted(json.loads((folder / "labels.json").read_text()))]


def test_the_shrink_is_the_scripts() -> None:
    # The constants above are the script's: a change to one side alone would make this test
    # measure something the browser does not do.
    script = (REPO / "static" / "js" / "photo.js").read_text()
    assert f"var LONG_SIDE = {LONG_SIDE};" in script
    assert f"var JPEG_QUALITY = {JPEG_QUALITY / 100};" in script
    assert 'imageOrientation: "from-image"' in script


def test_a_phone_photo_shrinks_to_a_few_hundred_kilobytes_upright() -> None:
    photos = _shared_photos()
    if not photos:
        pytest.skip(f"evaluation photos not present at {SHARED_CARDS}")
    original = phone_original(photos[-1])
    shrunk = browser_shrink(original)
    with Image.open(io.BytesIO(original)) as stored, Image.open(io.BytesIO(shrunk)) as sent:
        upright = ImageOps.exif_transpose(stored).size
        assert upright == stored.size[::-1]  # the phone stored it turned a quarter
        assert max(sent.size) == LONG_SIDE
        assert sent.size[0] / sent.size[1] == pytest.approx(upright[0] / upright[1], abs=0.01)
        assert sent.getexif().get(ORIENTATION) in (None, 1)  # the turn is in the pixels now
    assert len(shrunk) < 700_000 < len(original)


CROWDED = "deal"
"""bidly's deal*.jpg: four 13-card bridge fans overlapping heavily, where the recogniser finds about
70 % of the cards and reads the rest at the edge of what it can: any re-encoding flips a few of
them either way. With the perceptrons trained in PyTorch, the seven photos re-saved at 12 MP (JPEG
90) give 255 right cards, the shrunk copies 253 at quality 92 (244 at 0.85, the first setting),
and no false card in any; with the glyphs looked for again among shorter lines cut (8084e95), 257
and 254. All seven are read: every other one (deal1, 3, 5, 7) gave 142 and 138, then 143 and 138,
a flip of one card at the 97 % bar, where all seven are at 99 %."""


EVERY = 1 if os.environ.get("MUGGINS_SHRINK_ALL") else 4
"""Photos read per test run: every fourth (in name order, so each set is sampled) keeps the file
near a minute, since each photo is made at 12 MP and read twice (about 2.8 s a photo on 2 cores);
``MUGGINS_SHRINK_ALL=1`` reads them all (measured: 118 of 119 the same, the one as described below)."""


@pytest.mark.parametrize("path", [p for p in _shared_photos() if not p.name.startswith(CROWDED)][::EVERY],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_shrunk_photo_reads_as_the_original(path: Path) -> None:
    original = phone_original(path)
    shrunk = browser_shrink(original)
    assert shrunk != original
    read_original = {d.card: d.confidence for d in recognise(original).cards}
    read_shrunk = {d.card: d.confidence for d in recognise(shrunk).cards}
    # The same cards. A card at the edge of being reported (0.7, marked "check this card") may
    # come and go with any re-encoding: one card of one photo does (edje_tfod/IMG_2647.jpg: the
    # A♠, read at 0.71 from the enlarged original; not from the shrunk copy, nor from the photo
    # itself, nor from the original saved again). A card the recogniser is sure of never does.
    for card in set(read_original) ^ set(read_shrunk):
        assert read_original.get(card, read_shrunk.get(card, 1.0)) < UNSURE_BELOW, card


def test_crowded_fans_shrunk_read_as_well_as_the_original_saved_again() -> None:
    photos = [p for p in _shared_photos() if p.name.startswith(CROWDED)]
    if not photos:
        pytest.skip(f"evaluation photos not present at {SHARED_CARDS}")
    right_shrunk = right_resaved = 0
    for path in photos:
        labelled = set(json.loads((path.parent / "labels.json").read_text())[path.name]["cards"])
        original = phone_original(path)
        read_shrunk = {d.card for d in recognise(browser_shrink(original)).cards}
        assert read_shrunk <= labelled, path.name  # no false card
        right_shrunk += len(read_shrunk)
        right_resaved += len({d.card for d in recognise(resaved(original)).cards} & labelled)
    assert right_shrunk >= 0.97 * right_resaved


def resaved(data: bytes) -> bytes:
    """The photo saved again as JPEG 90 at its own size, its EXIF kept."""
    with Image.open(io.BytesIO(data)) as opened:
        out = io.BytesIO()
        opened.save(out, format="JPEG", quality=90, exif=opened.info.get("exif", b""))
    return out.getvalue()
