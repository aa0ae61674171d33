"""Take photo: read the cards in a photo, let the player correct them, then count as if typed.

The count page, the throw advisor and a match's show entry each carry a "Take photo" form
(``POST /photo``, multipart field ``image``). The answer shows the photo with every card found
outlined and numbered, and the cards as numbered chips: tap a chip, then a card in the picker, to
change it; tap a card in the picker to add one that was missed; the starter is a radio button on
each chip, preset to the card lying apart. Finishing redirects to the typed flow's own address
(``/hand/<4 cards>/<starter>``, ``/discard?cards=...``, ``/m/<token>?cards=...``), so the count is
exactly the typed one.

``static/js/photo.js`` shrinks a large photo in the browser before sending it (1600 px on the
long side, JPEG, the EXIF orientation applied to the pixels: a 12 MP photo goes up as a few
hundred kB instead of a few MB); the cards read are the same (tests/test_photo_shrink.py), since
the server decodes at 1600 px anyway. Forms without JavaScript and the API send the original.

The server keeps no photo. The upload is decoded once, at 1600 px
(``vision.io.DECODED_LONG_SIDE_PX``, which the recogniser shrinks to its working size, and to a
finer one for a reading in doubt), and read from that array (told how many cards the page wants,
``Target.wanted``: a show read whole from its cards' outlines then skips the search for cards whose
outline is lost), both in one worker process with memory and CPU limits
(``web.api.decode_and_read_upload``: a file that declares a huge image, costs minutes to decode or
is too busy to read stops the worker, not the server); the server shrinks the decoded array into the
JPEG sent back inline as a ``data:`` URL. Corrections (``POST /photo/cards``) carry the outlines and
chips in hidden fields; htmx swaps only the panel and keeps the photo on screen (``hx-preserve``);
without JavaScript the outlines are drawn on a plain background instead.

``POST /api/recognise``, the same reading as JSON, is in the API blueprint (``web.api``).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import cast

import cv2
import numpy as np
from flask import Blueprint, make_response, redirect, request, url_for
from numpy.typing import NDArray
from werkzeug.wrappers import Response

from scorer.cards import Card
from scorer.discard import HELD
from scorer.errors import CardError
from scorer.i18n import N_, _, digits, join_phrases, ngettext
from scorer.rules import SHOW_CARDS
from vision import ImageError
from vision.recognise import UNSURE_BELOW
from vision.starter import lying_apart
from web.api import decode_and_read_upload
from web.discard import DiscardView
from web.forms import sentence, whole_number
from web.http import is_htmx, render, url_with_query
from web.matches import HAND_CARDS, Screen, load, require_writer

__all__ = [
    "bp", "CHECK_BELOW", "Chip", "Flow", "Mark", "Outline", "PhotoFormError", "PhotoView", "Target",
    "apply_action", "read_photo", "read_state", "read_target",
]

bp = Blueprint("photo", __name__)

DISPLAY_LONG_SIDE_PX = 960
"""Long side of the photo sent back for display: sharp on a 360 px phone screen at 2.6x pixels,
and about 100 kB as JPEG, so the answer stays quick over the table's Wi-Fi."""
DISPLAY_JPEG_QUALITY = 75
"""JPEG quality of the displayed photo: enough to read the cards' corners again by eye."""
CHECK_BELOW = UNSURE_BELOW
"""Chips less sure than this say "check this card", the others "sure": the recogniser's own
threshold (0.95), under which it also warns. Its confidence is calibrated (the probability that
the card is there and is that card); on 198 generated development shows (seeds 8,200,001 on,
typical camera, starter apart or not) the cards reported at 0.95 or more were right 971 times in
975 (99.6 %), those from 0.7 to 0.95 only 5 times in 8: below it a card is worth a look, above it
one in 250 is wrong. On the labelled photos in ../shared/cards 412 cards read say "sure" and 24
"check this card"."""
MAX_OUTLINES = 52
"""Most outlines a correction form may carry: one deck."""
MAX_OUTLINES_TEXT = 8192
"""Longest outline field accepted, in characters: 52 outlines take about 3,500."""
LABEL_SHARE = 0.045
"""Outline labels' font size as a share of the photo's width: about 16 px on a phone screen."""
PHOTO_WARNINGS = {
    "image too dark": N_("Image too dark."),
    "image too blurry": N_("Image too blurry."),
}
"""The recogniser's warnings about a photo (``vision.recognise.photo_warnings``, English: they are
also the API's and the CLI's words) as sentences in the player's language."""

Point = tuple[float, float]


class PhotoFormError(ValueError):
    """A correction form whose hidden state is damaged (edited by hand, or from an older page)."""


class Flow(Enum):
    """Where the photo's cards go once the player is happy with them."""

    COUNT = "count"
    """The count page: four hand (or crib) cards and the starter."""
    DISCARD = "discard"
    """The throw advisor: the cards dealt, no starter."""
    MATCH = "match"
    """A match's show or crib entry: four cards; the starter is already known."""


@dataclass(frozen=True, slots=True)
class Target:
    """The page the photo was taken for, and what it needs from the photo."""

    flow: Flow = Flow.COUNT
    crib: bool = False
    players: int = 2
    dealer: bool = False
    token: str = ""
    starter: Card | None = None
    """In a match: the hand's starter (which may lie in the photo too)."""
    counter: str = ""
    """In a match: whose hand or crib is counted."""

    @property
    def wanted(self) -> int:
        """How many cards the photo should give."""
        if self.flow is Flow.DISCARD:
            return HELD[self.players]
        return HAND_CARDS if self.flow is Flow.MATCH else SHOW_CARDS

    @property
    def picks_starter(self) -> bool:
        """Whether the player marks one of the photo's cards as the starter."""
        return self.flow is Flow.COUNT

    @property
    def what(self) -> str:
        """What the cards are: "hand", "crib" or "deal" (a key, not words: each sentence that names
        it is a message of its own, since the noun's gender and case differ between languages)."""
        if self.flow is Flow.DISCARD:
            return "deal"
        return "crib" if self.crib else "hand"

    @property
    def title(self) -> str:
        """The panel's heading."""
        if self.flow is Flow.DISCARD:
            return _("Which to throw?")
        if self.flow is Flow.MATCH and self.counter:
            if self.crib:
                return _("Count %(name)s’s crib", name=self.counter)
            return _("Count %(name)s’s hand", name=self.counter)
        return _("Count a crib") if self.crib else _("Count a hand")

    @property
    def hint(self) -> str:
        """What the photo should show."""
        if self.flow is Flow.DISCARD:
            return ngettext("The %(num)s card dealt to you.", "The %(num)s cards dealt to you.", self.wanted)
        if self.flow is Flow.MATCH:
            if self.starter and self.crib:
                return _("The four cards of the crib (the starter, %(card)s, may be in it too).",
                         card=self.starter.label)
            if self.starter:
                return _("The four cards of the hand (the starter, %(card)s, may be in it too).",
                         card=self.starter.label)
            return _("The four cards of the crib.") if self.crib else _("The four cards of the hand.")
        if self.crib:
            return _("The four crib cards, and the starter lying apart from them.")
        return _("The four hand cards, and the starter lying apart from them.")

    @property
    def legend(self) -> str:
        """The chips' heading: whose cards they are."""
        if self.flow is Flow.DISCARD:
            return _("Your deal")
        return _("Your crib") if self.crib else _("Your hand")

    @property
    def done_label(self) -> str:
        """The finishing button's text."""
        return _("Count") if self.flow is Flow.COUNT else _("Use these cards")

    @property
    def back_url(self) -> str:
        """The page the photo was taken from, where cards can be typed instead."""
        if self.flow is Flow.DISCARD:
            return url_with_query(url_for("discard.page"), players=self.players,
                                  dealer="1" if self.dealer else None)
        if self.flow is Flow.MATCH:
            return url_for("matches.screen", token=self.token)
        return url_with_query(url_for("count.home"), kind="crib" if self.crib else None)

    def fields(self) -> dict[str, str]:
        """Hidden fields that carry the target through the photo forms."""
        if self.flow is Flow.DISCARD:
            return {"for": "discard", "players": str(self.players), "dealer": "1" if self.dealer else "0"}
        if self.flow is Flow.MATCH:
            return {"for": "match", "match": self.token}
        return {"for": "count", "kind": "crib" if self.crib else "hand"}

    def done_url(self, cards: Sequence[Card], starter: Card | None) -> str:
        """The typed flow's address for these cards (``starter`` only on the count page)."""
        if self.flow is Flow.DISCARD:
            return DiscardView(tuple(cards), players=self.players, dealer=self.dealer).url(ranked=False)
        if self.flow is Flow.MATCH:
            return url_with_query(url_for("matches.screen", token=self.token),
                                  cards="-".join(map(str, cards)))
        return url_for("count.result", kind="crib" if self.crib else "hand",
                       hand="-".join(map(str, cards)), starter=str(starter))


@dataclass(frozen=True, slots=True)
class Outline:
    """A card the recogniser found: what it read, how sure it was, where it lies (display pixels)."""

    card: Card
    confidence: float
    corners: tuple[Point, Point, Point, Point]

    @property
    def centre(self) -> Point:
        """The middle of the card."""
        return (sum(x for x, _ in self.corners) / 4, sum(y for _, y in self.corners) / 4)


@dataclass(frozen=True, slots=True)
class Chip:
    """One of the player's cards: read from outline ``outline``, or added from the picker (None)."""

    card: Card
    outline: int | None = None


@dataclass(frozen=True, slots=True)
class Mark:
    """One outline as drawn over the photo."""

    points: str
    """SVG polygon points, ``"x,y x,y x,y x,y"``."""
    x: float
    y: float
    label: str
    status: str
    """CSS class: sure, unsure, changed, starter or removed."""


@dataclass(frozen=True)
class PhotoView:
    """The photo panel: the outlines, the player's chips, and what still needs doing."""

    target: Target
    outlines: tuple[Outline, ...] = ()
    size: tuple[int, int] = (0, 0)
    """Width and height of the displayed photo, the outlines' coordinate space."""
    chips: tuple[Chip, ...] = ()
    selected: int | None = None
    """The chip the player tapped to change, if any."""
    starter: int | None = None
    """The chip marked as the starter (count page only)."""
    photo: str | None = None
    """The photo as a ``data:`` URL, only in the answer to the upload itself."""
    warnings: tuple[str, ...] = ()
    """The recogniser's words about the photo (only in the answer to the upload)."""
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def uploaded(self) -> bool:
        """Whether a photo was read (so the chips and outlines mean something)."""
        return self.size != (0, 0)

    @property
    def cards(self) -> list[Card]:
        """The chips' cards in order."""
        return [chip.card for chip in self.chips]

    def confidence(self, chip: Chip) -> float | None:
        """The recogniser's confidence in a chip, while it still shows the card as read."""
        if chip.outline is None or self.outlines[chip.outline].card != chip.card:
            return None
        return self.outlines[chip.outline].confidence

    def note(self, chip: Chip) -> str:
        """The chip's small print: how sure the recogniser is, in words, or how the card got there."""
        confidence = self.confidence(chip)
        if confidence is not None:
            # TRANSLATORS: a card's small print on the photo page: the recogniser is sure of it, or it is not.
            return _("check this card") if confidence < CHECK_BELOW else _("sure")
        # TRANSLATORS: a card's small print on the photo page: the player added it from the picker.
        return _("added") if chip.outline is None else _("changed")

    def unsure(self, chip: Chip) -> bool:
        """Whether the player should check this chip."""
        confidence = self.confidence(chip)
        return confidence is not None and confidence < CHECK_BELOW

    @property
    def droppable(self) -> int:
        """How many unsure chips one tap may remove: those, when there are more chips than wanted."""
        unsure = sum(1 for chip in self.chips if self.unsure(chip))
        return unsure if len(self.chips) > self.target.wanted else 0

    @property
    def taken(self) -> frozenset[Card]:
        """Cards the picker greys out: the chips' and a match's starter."""
        known = {self.target.starter} if self.target.starter else set()
        return frozenset(self.cards) | known

    @property
    def full(self) -> bool:
        """No chip is selected and every card wanted is in: the picker has nothing to add."""
        return self.selected is None and len(self.chips) >= self.target.wanted

    @property
    def starter_outline(self) -> int | None:
        """In a match, the outline of the known starter when the photo shows it."""
        if self.target.starter is None:
            return None
        return next((i for i, o in enumerate(self.outlines) if o.card == self.target.starter), None)

    @cached_property
    def duplicates(self) -> list[tuple[int, int]]:
        """Pairs of chip positions holding the same card (each card is in a deck once)."""
        first: dict[Card, int] = {}
        pairs = []
        for i, card in enumerate(self.cards):
            if card in first:
                pairs.append((first[card], i))
            else:
                first[card] = i
        return pairs

    @property
    def problems(self) -> list[str]:
        """What stops the cards being used yet, each with what to do about it."""
        wanted, have = self.target.wanted, len(self.chips)
        out = []
        if not self.chips:
            out.append(ngettext(
                "No cards found. Lay the cards apart on a darker surface, face up, and take the photo again "
                "from above, or tap the %(num)s card below.",
                "No cards found. Lay the cards apart on a darker surface, face up, and take the photo again "
                "from above, or tap the %(num)s cards below.", wanted))
        elif have < wanted:
            out.append(ngettext(
                "%(have)s of %(wanted)s cards: tap the missing card below, or lay the cards apart on a "
                "darker surface and take the photo again.",
                "%(have)s of %(wanted)s cards: tap the missing %(num)s cards below, or lay the cards apart "
                "on a darker surface and take the photo again.",
                wanted - have, have=digits(have), wanted=digits(wanted)))
        elif have > wanted:
            out.append(self._too_many(have, wanted))
        for a, b in self.duplicates:
            out.append(_("Cards %(first)s and %(second)s are both the %(card)s: a deck holds each card once. "
                         "Tap the wrong one, then the right card below.",
                         first=digits(a + 1), second=digits(b + 1), card=self.chips[a].card.name))
        return out

    def _too_many(self, have: int, wanted: int) -> str:
        """More cards than wanted: which to remove, said for the hand, the crib or the deal."""
        if self.target.what == "deal":
            return ngettext(
                "%(num)s card, %(wanted)s wanted: tap a card that is not in the deal and remove it, or take "
                "the photo again with only those %(wanted)s cards in view.",
                "%(num)s cards, %(wanted)s wanted: tap a card that is not in the deal and remove it, or take "
                "the photo again with only those %(wanted)s cards in view.", have, wanted=digits(wanted))
        if self.target.what == "crib":
            return ngettext(
                "%(num)s card, %(wanted)s wanted: tap a card that is not in the crib and remove it, or take "
                "the photo again with only those %(wanted)s cards in view.",
                "%(num)s cards, %(wanted)s wanted: tap a card that is not in the crib and remove it, or take "
                "the photo again with only those %(wanted)s cards in view.", have, wanted=digits(wanted))
        return ngettext(
            "%(num)s card, %(wanted)s wanted: tap a card that is not in the hand and remove it, or take "
            "the photo again with only those %(wanted)s cards in view.",
            "%(num)s cards, %(wanted)s wanted: tap a card that is not in the hand and remove it, or take "
            "the photo again with only those %(wanted)s cards in view.", have, wanted=digits(wanted))

    @property
    def notes(self) -> list[str]:
        """Helpful words that stop nothing: the recogniser's warnings, cards to check, the starter."""
        out = [_(PHOTO_WARNINGS[w]) if w in PHOTO_WARNINGS else sentence(w) for w in self.warnings
               if w != "no cards found" and not w.startswith("not sure of")]  # said better by problems
        unsure = [digits(i + 1) for i, chip in enumerate(self.chips) if self.unsure(chip)]
        if unsure:
            out.append(ngettext(
                "Check card %(cards)s: the photo was not clear enough to be sure. Tap a card to change it.",
                "Check cards %(cards)s: the photo was not clear enough to be sure. Tap a card to change it.",
                len(unsure), cards=join_phrases(unsure)))
        if self.starter_outline is not None and self.target.starter:
            label = self.target.starter.label
            out.append(_("The starter (%(card)s) is in the photo: it is left out of the crib.", card=label)
                       if self.target.crib else
                       _("The starter (%(card)s) is in the photo: it is left out of the hand.", card=label))
        return out

    @property
    def starter_note(self) -> str | None:
        """On the count page, what the starter choice is based on."""
        if not self.target.picks_starter or len(self.chips) != SHOW_CARDS:
            return None
        if self.starter is None:
            return _(_PICK_STARTER)
        if self.starter == self.suggested_starter():
            # TRANSLATORS: %(card)s is a card such as 5♦; "Starter" is the button under each card.
            return _("%(card)s lies apart: the starter? If not, tap “Starter” under the right card.",
                     card=self.chips[self.starter].card.label)
        return None

    def suggested_starter(self) -> int | None:
        """The chip lying apart from the others, when all five came from the photo."""
        if not self.target.picks_starter or len(self.chips) != SHOW_CARDS:
            return None
        outlines = [chip.outline for chip in self.chips]
        if any(o is None for o in outlines):
            return None
        return lying_apart([self.outlines[cast(int, o)].corners for o in outlines])

    @property
    def marks(self) -> list[Mark]:
        """Every outline as drawn: numbered with its chip and labelled with the chip's card."""
        chip_of = {chip.outline: i for i, chip in enumerate(self.chips) if chip.outline is not None}
        marks = []
        for i, outline in enumerate(self.outlines):
            j = chip_of.get(i)
            if j is None:
                is_starter = i == self.starter_outline
                status = "starter" if is_starter else "removed"
                # TRANSLATORS: drawn on the photo over the starter's outline, e.g. "starter K♦".
                label = _("starter %(card)s", card=outline.card.label) if is_starter else "✕"
            else:
                chip = self.chips[j]
                status = ("starter" if j == self.starter and self.target.picks_starter
                          else "changed" if chip.card != outline.card
                          else "unsure" if self.unsure(chip) else "sure")
                label = f"{digits(j + 1)} {chip.card.label}"  # the chip's number and card: no words
            x, y = outline.centre
            points = " ".join(f"{px:.1f},{py:.1f}" for px, py in outline.corners)
            marks.append(Mark(points, round(x, 1), round(y, 1), label, status))
        return marks

    @property
    def font_size(self) -> int:
        """Outline labels' font size in photo pixels."""
        return max(1, round(self.size[0] * LABEL_SHARE))

    def state_fields(self) -> dict[str, str]:
        """Hidden fields that carry the outlines and chips to the next correction."""
        fields = {"size": f"{self.size[0]} {self.size[1]}", "found": encode_outlines(self.outlines),
                  "chips": encode_chips(self.chips)}
        if self.selected is not None:
            fields["selected"] = str(self.selected)
        return fields


# ------------------------------------------------------------------------------ pure helpers


def encode_outlines(outlines: Sequence[Outline]) -> str:
    """Outlines as compact JSON for a hidden field: ``[["5H", 0.99, [x1, y1, ... x4, y4]], ...]``."""
    return json.dumps([[str(o.card), round(o.confidence, 4), [round(v, 1) for p in o.corners for v in p]]
                       for o in outlines], separators=(",", ":"))


def _number(value: object) -> float | None:
    """A JSON number as a finite float (never a bool, which JSON calls true/false)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def decode_outlines(text: str, size: tuple[int, int]) -> tuple[Outline, ...]:
    """Outlines from their hidden field; PhotoFormError if the field is not one this app wrote."""
    if not text:
        return ()
    if len(text) > MAX_OUTLINES_TEXT:
        raise PhotoFormError(f"outline field too long ({len(text)} characters)")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise PhotoFormError("outline field is not JSON") from None
    if not isinstance(data, list) or len(data) > MAX_OUTLINES:
        raise PhotoFormError("outline field is not a list of at most 52 outlines")
    reach = 2 * max(size)  # a card at the edge may stick out a little; nothing lies far outside
    outlines = []
    for item in data:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and isinstance(item[2], list) and len(item[2]) == 8):
            raise PhotoFormError(f"bad outline {item!r:.60}")
        try:
            card = Card.parse(item[0])
        except CardError as e:
            raise PhotoFormError(str(e)) from None
        confidence = _number(item[1])
        coords = [_number(v) for v in item[2]]
        if confidence is None or not 0 <= confidence <= 1:
            raise PhotoFormError(f"bad confidence {item[1]!r:.20}")
        if any(v is None or abs(v) > reach for v in coords):
            raise PhotoFormError("outline corners outside the photo")
        xs = cast(list[float], coords)
        corners = cast(tuple[Point, Point, Point, Point], tuple((xs[k], xs[k + 1]) for k in range(0, 8, 2)))
        outlines.append(Outline(card, confidence, corners))
    return tuple(outlines)


def encode_chips(chips: Sequence[Chip]) -> str:
    """Chips for a hidden field: ``"5H@0 KD@1 2C"`` (a card, then ``@outline`` if read from one)."""
    return " ".join(str(c.card) if c.outline is None else f"{c.card}@{c.outline}" for c in chips)


def decode_chips(text: str, outlines: int) -> tuple[Chip, ...]:
    """Chips from their hidden field; PhotoFormError if it does not fit the outlines."""
    chips = []
    used: set[int] = set()
    for token in text.split():
        code, at, index_text = token.partition("@")
        try:
            card = Card.parse(code)
        except CardError as e:
            raise PhotoFormError(str(e)) from None
        index = whole_number(index_text) if at else None
        if at and (index is None or index >= outlines or index in used):
            raise PhotoFormError(f"chip {token!r:.20} names no outline")
        if index is not None:
            used.add(index)
        chips.append(Chip(card, index))
        if len(chips) > MAX_OUTLINES:
            raise PhotoFormError("more chips than a deck has cards")
    return tuple(chips)


def _index(text: str | None, length: int) -> int | None:
    """A chip position from a form field, or None when absent or out of range."""
    value = whole_number((text or "").strip())
    return value if value is not None and value < length else None


# ------------------------------------------------------------------------------ reading a photo


def read_target(form: Mapping[str, str]) -> Target:
    """The page a photo form came from (a match link must be its scorer link)."""
    flow = form.get("for", "count")
    if flow == Flow.DISCARD.value:
        players_text = form.get("players", "2")
        players = int(players_text) if players_text in ("2", "3", "4") else 2
        return Target(Flow.DISCARD, players=players, dealer=form.get("dealer") == "1")
    if flow == Flow.MATCH.value:
        access = require_writer(form.get("match", ""))
        match, seq = load(access.record)
        screen = Screen(access, match, seq)
        if not screen.can_count or screen.starter_card is None or screen.counter is None:
            return Target(Flow.MATCH, token=access.token)
        return Target(Flow.MATCH, crib=screen.counting_crib, token=access.token, starter=screen.starter_card,
                      counter=screen.players[screen.counter])
    return Target(Flow.COUNT, crib=form.get("kind") == "crib")


def _display_name(filename: str | None) -> str:
    """The upload's file name for messages: its last part, printable, short; "the photo" if none."""
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable())[:40]
    return name or _("the photo")


def read_photo(data: bytes, target: Target, filename: str | None = None) -> PhotoView:
    """Decode the photo once and read its cards (in a limited worker), and shrink it for display;
    ImageError if unreadable."""
    # A player photographs one show after another: the next photo's worker waits ready for it.
    # In a match the starter is known, and may lie in the photo beside the hand's four cards.
    known = None if target.starter is None else str(target.starter)
    loaded, result = decode_and_read_upload(data, where=_display_name(filename), expect=target.wanted,
                                            ready_next=True, starter=known)
    pixels = loaded.pixels  # the array the worker read: corners are in its pixels
    height, width = pixels.shape[:2]
    factor = min(1.0, DISPLAY_LONG_SIDE_PX / max(width, height))
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    shown: NDArray[np.uint8] = pixels
    if size != (width, height):
        shown = cast(NDArray[np.uint8], cv2.resize(pixels, size, interpolation=cv2.INTER_AREA))
    ok, jpeg = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, DISPLAY_JPEG_QUALITY])
    photo = f"data:image/jpeg;base64,{base64.b64encode(jpeg.tobytes()).decode('ascii')}" if ok else None
    sx, sy = size[0] / width, size[1] / height
    outlines = [
        Outline(Card.parse(d.card), float(d.confidence),
                cast(tuple[Point, Point, Point, Point], tuple((x * sx, y * sy) for x, y in d.corners)))
        for d in result.cards
    ]
    # Number the cards as they lie, left to right, so chip 1 is the leftmost outline.
    order = sorted(range(len(outlines)), key=lambda i: outlines[i].centre)
    outlines = [outlines[i] for i in order]
    chips = tuple(Chip(o.card, i) for i, o in enumerate(outlines) if o.card != target.starter)
    view = PhotoView(target, tuple(outlines), size, chips, photo=photo, warnings=tuple(result.warnings))
    # The recogniser's card lying apart is preset as the starter (one tap on another changes it).
    starter = order.index(result.starter) if result.starter is not None and target.picks_starter else None
    return replace(view, starter=starter)


def read_state(form: Mapping[str, str], target: Target) -> PhotoView:
    """The panel as a correction form describes it; PhotoFormError if its hidden state is damaged."""
    parts = form.get("size", "").split()
    numbers = [whole_number(p) for p in parts]
    if len(numbers) != 2 or any(n is None or not 1 <= n <= DISPLAY_LONG_SIDE_PX for n in numbers):
        raise PhotoFormError(f"bad photo size {form.get('size', '')!r:.30}")
    size = (cast(int, numbers[0]), cast(int, numbers[1]))
    outlines = decode_outlines(form.get("found", ""), size)
    chips = decode_chips(form.get("chips", ""), len(outlines))
    return PhotoView(target, outlines, size, chips, selected=_index(form.get("selected"), len(chips)),
                     starter=_index(form.get("starter"), len(chips)) if target.picks_starter else None)


def apply_action(view: PhotoView, form: Mapping[str, str]) -> PhotoView:
    """One tap on the panel: select a chip, replace or add a card from the picker, remove a chip."""
    chips, selected, starter = list(view.chips), view.selected, view.starter
    errors: dict[str, str] = {}
    op = form.get("op", "")
    tapped_chip = _index(form.get("chip"), len(chips))
    if tapped_chip is not None:
        selected = None if tapped_chip == selected else tapped_chip
    elif op == "remove" and selected is not None:
        del chips[selected]
        if starter is not None:
            starter = None if starter == selected else starter - (starter > selected)
        selected = None
    elif op == "drop_unsure":
        keep = [i for i, chip in enumerate(chips) if not view.unsure(chip)]
        chips = [chips[i] for i in keep]
        starter = keep.index(starter) if starter is not None and starter in keep else None
        selected = None
    elif form.get("tap"):
        card: Card | None = None
        try:
            card = Card.parse(form["tap"])
        except CardError as e:
            errors["cards"] = sentence(str(e))
        error = _tap_error(view, card, selected) if card is not None else None
        if error:
            errors["cards"] = error
        elif card is not None and selected is not None:
            chips[selected] = Chip(card, chips[selected].outline)
            selected = None
        elif card is not None:
            chips.append(Chip(card))
    moved = replace(view, chips=tuple(chips), selected=selected, starter=starter, errors=errors)
    if moved.starter is None:
        moved = replace(moved, starter=moved.suggested_starter())
    return moved


def _tap_error(view: PhotoView, card: Card, selected: int | None) -> str | None:
    """Why a picker tap cannot be applied, or None."""
    if view.target.starter == card:
        if view.target.crib:
            return _("The %(card)s is the starter: tap a card of the crib.", card=card.name)
        return _("The %(card)s is the starter: tap a card of the hand.", card=card.name)
    if card in view.cards:
        where = view.cards.index(card)
        if where == selected:
            return None  # the same card again: nothing changes, and the chip is let go
        return _("The %(card)s is already card %(number)s: tap that card first to change it.",
                 card=card.name, number=digits(where + 1))
    if selected is None and len(view.chips) >= view.target.wanted:
        return ngettext(
            "%(num)s card is in: tap a card above to change or remove it, then the right card here.",
            "%(num)s cards are in: tap a card above to change or remove it, then the right card here.",
            len(view.chips))
    return None


# ------------------------------------------------------------------------------ routes


_DAMAGED = N_("This page’s record of the photo is damaged (or from an older version): take the photo again.")
_NOTHING_TO_COUNT = N_("No hand or crib is waiting to be counted with cards in this match now: go back to "
                       "the match.")
_PICK_STARTER = N_("Tap which card is the starter.")


def _page(view: PhotoView, status: int = 200) -> Response:
    resp = render("photo/page.html", "photo/_panel.html", status, v=view)
    resp.headers["Cache-Control"] = "no-store"  # it may hold the photo: never keep it in a cache
    return resp


@bp.post("/photo")
def upload() -> Response:
    """Read the uploaded photo (multipart field ``image``) and show its cards to correct."""
    target = read_target(request.form)
    if target.flow is Flow.MATCH and target.starter is None:
        return _page(PhotoView(target, errors={"image": _(_NOTHING_TO_COUNT)}), 422)
    upload_file = request.files.get("image")
    data = upload_file.read() if upload_file is not None else b""
    if not data and not (upload_file and upload_file.filename):
        return _page(PhotoView(target, errors={"image": _("No photo came with the form: tap “Take photo” and "
                                                          "take or choose one.")}), 422)
    try:
        view = read_photo(data, target, upload_file.filename if upload_file else None)
    except ImageError as e:
        retake = _("%(problem)s Take the photo again, or type the cards.", problem=sentence(str(e)))
        return _page(PhotoView(target, errors={"image": retake}), 422)
    return _page(view)


@bp.post("/photo/cards")
def cards() -> Response:
    """Apply a correction (chip, picker, remove) or finish: redirect to the typed flow's address."""
    form = request.form
    target = read_target(form)
    if target.flow is Flow.MATCH and target.starter is None:
        return _page(PhotoView(target, errors={"image": _(_NOTHING_TO_COUNT)}), 422)
    try:
        view = read_state(form, target)
    except PhotoFormError:
        return _page(PhotoView(target, errors={"image": _(_DAMAGED)}), 422)
    if form.get("op") != "done":
        view = apply_action(view, form)
        return _page(view, 422 if view.errors else 200)
    problems = view.problems
    if problems:
        return _page(replace(view, errors={"cards": problems[0]}), 422)
    starter = None
    hand = view.cards
    if target.picks_starter:
        if view.starter is None:
            return _page(replace(view, errors={"cards": _(_PICK_STARTER)}), 422)
        starter = hand.pop(view.starter)
    target_url = target.done_url(hand, starter)
    if not is_htmx():
        return redirect(target_url, 303)
    resp = make_response("", 204)
    resp.headers["HX-Redirect"] = target_url
    return resp
