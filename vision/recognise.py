"""The recogniser: photo in, cards with confidences and corners out.

Stages (each a function over arrays, see the modules named):

1. `io.load_image`: decode, orient, shrink to working size.
2. `detect.prepare`: grey and "paper" images, edges, masks of where cards may be.
3. `detect.outlines`: whole-card outlines fitted to the masks' blobs and to traced edges; for
   each, `geometry.read_patches` samples both index corners (top-left, and bottom-right turned
   half a turn) and `classify` reads and fuses them.
4. Lone corners, read on their own, for cards whose outline is lost (fanned or overlapping
   cards, a card under an object): `detect.corners` (convex corners of blobs that are not one
   card, and where two straight edges meet), `detect.glyphs` and `detect.index_pairs` (index
   corners placed from rank-above-suit glyph pairs and joined indices).
5. Duplicates are merged (a deck holds each card once) and confidences reported. Each
   candidate keeps the `detect.Stage` that proposed it.
6. `fan_neighbours`: cards of a fan that nothing framed, stepped onto from the cards read on
   either side of them, and cards laid straight, framed at the edges beside a card read; and
   cards of a fan framed a little off, their frames moved until they read surely.
7. `starter.lying_apart`: the card lying apart from the others, from the outlines' gaps.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from threading import Event
from typing import Generic, TypeVar, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.discard import HELD
from scorer.rules import SHOW_CARDS
from vision.cards import split_code
from vision.classify import (
    CardReading,
    IndexModel,
    IndexReading,
    default_model,
    fuse,
    index_presence,
    ink_maps,
)
from vision.detect import (
    Blob,
    Prepared,
    Proposal,
    ShadowLift,
    Share,
    Stage,
    broken_outline_blobs,
    card_corners_from_frame,
    card_masks,
    corner_proposals,
    edge_loop_blobs,
    find_blobs,
    glyph_proposals,
    lift_shadow,
    lone_proposals,
    mask_blobs,
    outline_proposals,
    paper_and_notches,
    paper_outlines,
    prepare,
    segment_proposals,
    squared_proposals,
    stop_if,
    unique_quads,
)
from vision.geometry import (
    CARD_ASPECT,
    ROTATE_HALF_TURN,
    Quad,
    card_homography,
    card_width_px,
    half_move,
    on_level,
    quad_area,
    quad_iou,
    read_patches,
    sample_card_grid,
)
from vision.io import (
    DECODED_LONG_SIDE_PX,
    FINER_LONG_SIDE_PX,
    WORKING_LONG_SIDE_PX,
    ImageInput,
    LoadedImage,
    load_image,
)
from vision.pips import pips_disagree
from vision.starter import lying_apart

MIN_PRESENCE = 0.5
"""A candidate is reported only if it more likely than not shows an index at all."""

MIN_CONFIDENCE = 0.7
"""Detections under this calibrated confidence are not reported. The calibration photos mix
shows with crowded tables and run optimistic on shows: on generated cribbage shows
(development seeds, not the evaluation ones; typical and harsh camera) readings from 0.3 to
0.7 were right 11 times in 35, so reporting them costs the player more than it saves (a
missing card is one tap; an unlikely extra is a card to find and remove)."""

SUPPORT_CONFIDENCE = 0.5
"""Proposals at least this sure of a card count as support for it in calibration."""

UNSURE_BELOW = 0.95
"""Reported cards under this confidence are named in a warning so the player checks them: on
the same development shows, readings from 0.7 to 0.95 were right 28 times in 36."""

SURE_OUTLINE = 0.8
"""Whole outlines read at least this surely give the card widths lone corners are tried at."""

SIZE_SLACK = 0.35
"""How far (as |log ratio|, here 1.4 times) a card's size may differ from the median of the
photo's surely outlined cards before calibration counts it against the reading: a camera
tilted 45 degrees at two and a half layout widths makes the near cards about 1.35 times the
far ones."""

SAME_CARD_IOU = 0.5
"""Two readings whose card outlines overlap this much are of the same physical card."""

SAME_INDEX = 0.2
"""Readings whose index middles are closer than this many card widths read the same index."""

TWO_READINGS_APART = 0.13
"""Two readings naming different cards are of one index only if their index middles, or their
index corners, lie closer than this many card widths (`same_card`): closer than `SAME_INDEX`,
because neighbours laid tight, as bridge players lay a deal, show their indices 0.14-0.37 card
widths apart. Of the cards 15 development deals laid so (9,400,001 on) missed, 9 were taken for
a card read beside them: 7 of them true neighbours 0.14-0.2 widths away, and 2 false readings of
one index 0.065 and 0.09 away."""

INDEX_MIDDLE = (0.12, 0.24)
"""Middle of a printed index (rank over suit), in card widths from the card's corner."""

FAR_INDEX = 0.3
"""Slack, in card widths, for the far index a lone corner's card estimate predicts: that
estimate assumes a poker card and the size read off one corner."""

ON_CARD_SLACK = 0.1
"""How far, in card widths, an index may lie off the card a lone reading estimates and still be
on it (`_head_to_tail`): the estimate's edges are themselves that far off."""

SAME_WAY_COS = 0.8
"""Two index readings are of one index only if turned less than about 37 degrees apart."""

MoveSteps = tuple[tuple[tuple[float, float, float, float], ...], ...]
"""Moves of a card frame, a step at a time, each step's moves tried at once (see
`SECOND_LOOK_MOVES`)."""

SECOND_LOOK_MOVES: MoveSteps = (
    ((1 / 1.2, 0.0, 0.0, 0.0), (1.2, 0.0, 0.0, 0.0), (1.44, 0.0, 0.0, 0.0)),
    ((1.0, 0.04, 0.0, 0.0), (1.0, -0.04, 0.0, 0.0), (1.0, 0.0, 0.04, 0.0), (1.0, 0.0, -0.04, 0.0)),
    ((1.0, 0.0, 0.0, 0.1), (1.0, 0.0, 0.0, -0.1)),
)
"""How `second_look` moves a lone corner's card frame, a step at a time, each move kept when it
reads the card more surely: (scale, x and y shift in card widths, turn in radians) about the
card's corner. A lone corner's frame guesses the card's size from one corner or from the print,
and on development shows those read too weakly to count were up to 1.4 times too small, a few
hundredths of a card off, or turned a few degrees."""

SECOND_LOOK_SHORT = max(SHOW_CARDS, *HELD.values())
"""Read this many cards short of the count or fewer, `second_look` looks for the cards missed, one
at a time (and `likeliest_left` takes any still missing): six, the largest hand a page asks for
(a show's five, or the cards of a two-player deal, `scorer.discard.HELD`), so a photo of any
hand a page asks for is looked at again however much of it was missed. Of 1,130 development
photos told their count (shows, hands held fanned), 15 were read two or three short: the looks
found 9 cards, all right (three hands now exact), and no other card in any. At three, a photo
read four or more short was left as read: 4 of 1,450 development photos (held hands 6,200,003
and 6,200,022, one and two of six read; 6,200,172, none of four; harsh show 8,400,148, one of
five) and 5 of 400 procedural harsh shows (40,001 on). Looked at again, these gained 9 right
cards and 2 wrong, all named for the player to check (the wrong ones, a 5S for the 5C and an
AC, at 0.54); the looks took 20-62 ms. Told four cards more than they hold, 120 development
shows (8,860,001 on, starter apart and harsh) gained one false card in all (0.56), and 60
photos of tables with clutter and printed paper but no card, told five or six, gained none."""

AGAIN_AT_MOST = SECOND_LOOK_SHORT
"""A reading in doubt is read again at `FINER_LONG_SIDE_PX` (`READ_DOUBTFUL_AGAIN`) only when it
read at most this many cards, or was told a count no larger: six, a show or the largest hand. A
deal's many cards often hold one in doubt: read again, the seven bridge deals of
../shared/cards/bidly took a median of 766 ms more on one thread, 1,879 in all
(`bench/bench_recognise.py`), and 12 development deals (9,000,001) gained 0.2 % of their cards."""

SECOND_LOOK_AT_MOST = 32
"""Lone readings `second_look` reads again, the likeliest first: it costs about nine patches
each."""

SECOND_LOOK_CONFIDENCE = 0.9
"""The confidence reported for a card `second_look` finds: under `UNSURE_BELOW`, so the player
is asked to check it. On 800 development shows told five, the cards it found were right 11
times in 11, too few to call it sure."""

FAN_REACH = 1.5
"""How far apart two cards read may lie, in card widths between their index middles, for
`fan_neighbours` to step on from them: a fan's neighbours lie a third of a width apart, and
from two cards several apart the step on and the half step still land on cards. As first
tried, on development deals 9,000,001-100 (295 cards missed): at 0.7, stepping on only, it
found 93 of them; at 1.0 with half steps, 173; at 1.5, 199; none wrong in any."""

FAN_TURN = math.radians(35)
"""Two cards read turned further apart than this are not stepped on from (`fan_neighbours`):
neighbours in a fan are turned a few degrees apart, a few cards apart a few tens."""

FAN_SIZE = 1.25
"""Two cards read whose widths differ by more than this ratio are not stepped on from
(`fan_neighbours`): one of them is read at the wrong size, or lies in another layout."""

FAN_SAME_FRAME = 0.05
"""Two frames `fan_neighbours` would read whose index middles, and whose top edges (as vectors
a card width long), lie within this many card widths of each other are read once
(`_distinct_frames`): they frame the same index, and the moves each read frame is then moved
by (`SECOND_LOOK_MOVES`) close that gap. Development deals 9,000,001-100 read 98.1 % of their cards
without it and 98.2 % with it, from fewer frames."""

FAN_LOCAL = 2.0
"""`fan_neighbours` steps from each card frame at the median width of the cards read whose index
middles lie within this many card widths (the photo's median) of its own (`_fan_sized`): the
cards near it, of its own fan or the next, as near the camera as it. On development deals
9,000,001-100: 98.2 % of the cards read with each frame at its own width, 98.9 % at the local
median, 98.8 % at the photo's median and 98.8 % within 4 widths; deals 9,000,101-300, run
only once it was chosen, 97.0 → 97.7 % (exact 137 → 152 of 200); no false card more on them,
on held hands (6,100,001 told their count, 195 → 197 exact; 6,200,001 untold, 186 the same) or
on shows (5,500,001 told five, 295 → 296; 8,200,001 harsh, 8,300,001 apart and 5,600,001
untold the same)."""

FAN_RESIZE = 1.8
"""A card frame read at a width further than this ratio from the local median
(`FAN_LOCAL`) keeps its own: it is most likely no card of that fan. Development deals
9,000,001-100 read 98.3 % of their cards when frames were resized only within 1.16 times,
98.8 % within 1.8 (the photo's median)."""

FAN_LOOSE_REACH = 1.0
"""How near a card read (`FAN_REACH`'s measure) a lone reading that reads a card unsurely may lie
for `fan_neighbours` to move its frame until it reads surely (`_fan_loose`)."""

FAN_FINER_MOVES: MoveSteps = (
    ((1.0, 0.0, 0.0, 0.05), (1.0, 0.0, 0.0, -0.05)),
    ((1.0, 0.02, 0.0, 0.0), (1.0, -0.02, 0.0, 0.0), (1.0, 0.0, 0.02, 0.0), (1.0, 0.0, -0.02, 0.0)),
    ((1 / 1.1, 0.0, 0.0, 0.0), (1.1, 0.0, 0.0, 0.0)),
)
"""How `_fan_loose`'s last look, after the fan's steps, moves each unsure lone reading's frame on
from where the second look's moves (`SECOND_LOOK_MOVES`) left it, as they do: a turn of 0.05
radians, a shift of 0.02 card widths, a scale of 1.1. A tight card's glyph-pair frame lies a few
hundredths of a card off and turned up to 19 degrees from its true frame, and the coarse moves
end a step from the index. Only what nothing else found is looked for so, and a card found so
is reported at `SECOND_LOOK_CONFIDENCE` at most, for the player to check: the finer the search,
the likelier a misread index reads surely somewhere (vision/README.md, step 7)."""

FAN_LOOSE_AT_MOST = 64
"""Lone readings `_fan_loose` moves in a photo, the likeliest first: each costs about nine
patches, and eight more in the last look (`FAN_FINER_MOVES`)."""

FAN_ROUNDS = 3
"""At most this many times `fan_neighbours` steps on, each time from the cards it found too.
As first tried, on development deals 9,000,101-300, the second round found 37 cards and the
third 9 (of 420); on 9,000,001-100 (reach 1.0), six rounds found none more than three."""

CASCADE_SAMPLES = 24
"""Points per card width at which `_cascade_steps` samples the photo about each card read."""

CASCADE_LEVEL_WIDTH = 2 * CASCADE_SAMPLES
"""`_cascade_steps` samples each card on the coarsest pyramid level on which it is this many
pixels wide at least. On development deals laid straight (9,100,001-040), sampled on the photo
itself: 94.8 % of their cards read; on the level where a card is 24 px wide (a sample a pixel,
edges smoothed most): 94.1 %; at 48 px: 94.9 %."""

CASCADE_REACH = (1.3, 1.1)
"""How far from the corner of each card read `_cascade_steps` looks for the edge of a card slid
over or under it, in card widths: down the card's long side and across it. A run of cards laid
straight shows a strip of each, a quarter to two thirds of a card width."""

CASCADE_EDGES = 3
"""The strongest edges `_cascade_steps` frames a card at, on each side of a card read and each
way (up, down, left, right)."""

CASCADE_EDGE_SHARE = 0.1
"""An edge `_cascade_steps` frames a card at is at least this share of the strongest edge about
the card read, and at least `CASCADE_MIN_EDGE`."""

CASCADE_MIN_EDGE = 3.0
"""The least edge `_cascade_steps` frames a card at: the median step in grey level, across the
card, between two points a `CASCADE_SAMPLES`th of a card width apart."""

CASCADE_OWN_EDGE = 0.12
"""Edges within this many card widths of a card read's own edges are its own: `_cascade_steps`
frames no card there."""

SHORT_FLOOR = 0.5
"""Still short of the count after `second_look`, a photo's likeliest readings left (no kept card
explains them) are added down to this calibrated confidence, under `MIN_CONFIDENCE`, so the
player is asked to check each (`likeliest_left`): a card is known to be missing, and in a photo
read short the readings no card explains are more often the missing card than the calibration
says. On 1,410 development photos told their count (shows typical, harsh and starter apart,
hands held fanned; seeds 5,500,001, 5,600,001, 5,700,001, 8,200,001, 8,400,001, 8,300,001,
8,500,001, 6,100,001, 6,150,001, 6,200,001, 6,250,001), 70 were still one to three short; the
likeliest left was right 6 times in 7 at 0.5 or more (the wrong one at 0.502), 3 in 3 at 0.55,
8 in 9 at 0.4: the bar is where the calibration's own odds are even."""

INSIDE_SURE = 0.1
"""A lone proposal whose index middle lies more than this many card widths inside a surely read
whole outline is not read (`beyond_sure_cards`)."""

COUNT_DOUBT = 0.004
"""The least doubt `past_count` gives a reading: of the cards 198 development shows read at 0.95
or more (seeds 8,200,001 on), 4 in 975 were wrong, so a confidence of 0.99999 is no surer in
truth than one of 0.999, and the count must not choose between such cards by their last digits."""

PAST_COUNT_OVERLAP = 0.2
"""A card read past the count whose card overlaps a surer one's this much (`quad_iou`) may be
that card read again, wrongly (see `past_count`): such readings overlapped their true card by
0.29 to 0.47 on development photos, and a card lying apart overlaps none."""

OUTLINE_IOU = 0.3
"""A whole outline overlapping a lone corner's estimated card this much is that card."""

SHOW_OVERLAP = 0.3
"""Most that two cards named by an untold reading's first look may overlap (`quad_iou`) for
them to be taken for a show (`names_a_show`). The cards of a show lie side by side, touching or
overlapping at their edges: in 116 development shows whose blobs' corners named five cards
(and accounted for their paper), two overlapped 0.23 at most. A hand held fanned overlaps
more, and may hide a sixth card between them: two six-card hands whose blobs' corners named
five (6,100,148 and 9,710,003) overlapped 0.57 and 0.62, and the glyph search found the
sixth."""

SHOW_PAPER = 1.0
"""Most paper, in card areas (the median of the cards named), that the light region holding a
card named by the blobs' corners may show beyond the named cards in it, for an untold reading
to stop there (`_paper_accounted`). A fanned deal whose few whole outlines name five cards shows
a region of many cards around them (13 to 52 card areas in three development deals), a show
all but none (0.79 at most in 116 of the 134 development shows whose blobs' corners named five;
the other 18, 1.07 or more, read on to the glyph search)."""

OUTLINE_PAPER = 0.5
"""Most paper, in card areas, beside the cards named by the whole outlines alone, for an untold
reading to stop there (`_show_read_untold`), where `SHOW_PAPER` allows the reading that has
read the blobs' corners a whole card's. Before the corners are read, a card touching a named
one and outlined with it is known only by its paper: generated development table 11,000,011
named five of its six cards from their outlines, and its king of hearts, touching the ace of
clubs, lay in a region of the ace and 0.83 card areas more. Of 68 development shows (5,600,001
to 5,600,100) whose outlines or corners named five, 57 showed 0.45 at most."""

OUTLINE_PAPER_CARDS = 2.0
"""A light region larger than the named cards and this many card areas more is the table's own
light, which says nothing of cards (`_no_card_beside`; a fanned deal's regions of many cards
fail `_paper_accounted`)."""

DARK_MEAN = 45
"""Mean grey level (0-255) under which a photo is called too dark."""

READ_AT_ONCE = 256
"""Proposals sampled and read together. Every proposal is read on its own, so this changes no
reading, only the memory a photo's reading holds at once: a thousand patches' float maps and
their temporaries took about 100 MiB at their peak (numpy's, traced), the most of any stage,
which a photo worker's address-space budget (`vision.io`) must hold."""

READ_DOUBTFUL_AGAIN = True
"""Whether a photo read doubtfully (unsure of a card, or short of the count it was told) is read
again at `FINER_LONG_SIDE_PX` (`recognise`; off in the tests of what the working size's
reading does alone)."""

READING_THREADS = 2
"""Threads a photo is read on. A player at the table waits for one photo, and the server's
2-core machine is otherwise idle then, so the stages that do not wait on each other run on a
second thread: the broken outlines and the index glyphs beside the card masks' outlines (told
a count, the edge loops beside the enclosed regions' outlines in `edge_outlines`, then the
glyphs beside the other masks' and the broken outlines), and
every other lone proposal's reading beside the others' (OpenCV and numpy let go of the
interpreter while they work). The readings are the same, to the last digit. Measured by
`bench/bench_recognise.py` (OpenCV on one thread, as in a photo worker): a 1600 px generated
show 660 ms median on one thread, 471 on two; the shared table photos 0.81-0.84 of their time.
The photo workers keep OpenCV's and BLAS's own pools at one thread (`vision.io`); this thread is
the recogniser's, and costs a worker up to about 40 MiB more of its address-space budget (six
12 MP shows needed 123-160 MiB on two threads, 112-123 on one; the thread's stack is 8 of it)."""

BLUR_VARIANCE = 12.0
"""Variance of the Laplacian (on the working image) under which a photo is called blurry."""


_T = TypeVar("_T")

FrameReadings = dict[bytes, tuple[NDArray[np.float64], NDArray[np.float64]]]
"""The rank and suit probabilities of frames already read in a photo, by their homography's
bytes (`frame_key`; see `read_candidates`)."""


def frame_key(frame: NDArray[np.float64]) -> bytes:
    """A card frame's key in `FrameReadings`: its homography's bytes."""
    return np.ascontiguousarray(frame).tobytes()


@dataclass(frozen=True)
class Detection:
    """One physical card found in the photo."""

    card: str
    """Card code, e.g. '5H' (rank A23456789TJQK, suit CDHS)."""
    confidence: float
    """Probability, 0..1, that this card is really there and is `card`."""
    corners: list[tuple[float, float]]
    """The card's four corners in the original image's pixels (after EXIF orientation),
    starting at the index corner that was read, clockwise on screen."""
    stage: str = field(default="", compare=False, repr=False)
    """Which detector stage proposed the reading kept (a `vision.detect.Stage` value, "" when
    unknown), to trace a false card (`python -m vision.evaluate --verbose` prints it); not part
    of `to_dict`."""

    @property
    def sure(self) -> bool:
        """Whether the card was read surely (`UNSURE_BELOW`): shown to the player as read, not
        as a card to check."""
        return self.confidence >= UNSURE_BELOW


@dataclass(frozen=True)
class Recognition:
    """Everything recognised in one photo."""

    cards: list[Detection] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    starter: int | None = None
    """The index in `cards` of the card lying apart from the others (the starter of a show, see
    `vision.starter.lying_apart`), or None when no card clearly lies apart."""

    def to_json(self) -> str:
        """The result as JSON: {"cards": [{"card", "confidence", "corners"}], "warnings": [...],
        "starter": index or null}."""
        return json.dumps(self.to_dict())

    def to_dict(self) -> dict[str, object]:
        """The result as plain JSON-ready data."""
        return {
            "cards": [
                {
                    "card": d.card,
                    "confidence": round(d.confidence, 4),
                    "corners": [[round(x, 1), round(y, 1)] for x, y in d.corners],
                }
                for d in self.cards
            ],
            "warnings": list(self.warnings),
            "starter": self.starter,
        }


@dataclass(frozen=True)
class Candidate:
    """A reading of one proposed card, before duplicates are merged."""

    reading: CardReading
    quad: Quad
    whole: bool
    confidence: float = 0.0
    """Calibrated probability that this detection is right (set by `calibrate`)."""
    support: int = 1
    """How many proposals read this same card (set by `calibrate`)."""
    size_offset: float = 0.0
    """How far this reading's card size is from that of the photo's surely read outlines,
    as |log(size / their median)| beyond `SIZE_SLACK`; 0 when there are none (set by
    `calibrate`)."""
    stage: Stage | None = None
    """The detector stage whose proposal this reads (`vision.detect.Stage`), so a false card
    can be traced to what proposed it; None for a candidate made outside `find_candidates`."""

    @functools.cached_property
    def ends(self) -> list[IndexEnd]:
        """Where this reading puts the card's indices (see `index_ends`), worked out once:
        merging compares each candidate with every card kept so far."""
        return index_ends(self)

    @functools.cached_property
    def box(self) -> tuple[float, float, float, float]:
        """The bounding box of `quad` (left, top, right, bottom), which holds every point of
        the card this reading estimates, its index ends' middles among them."""
        left, top = self.quad.min(axis=0).tolist()
        right, bottom = self.quad.max(axis=0).tolist()
        return float(left), float(top), float(right), float(bottom)

    @functools.cached_property
    def top_width(self) -> float:
        """The length of `quad`'s top edge, the card's width as `same_card` judges it."""
        return float(np.linalg.norm(self.quad[1] - self.quad[0]))


class Laps:
    """Wall-clock milliseconds spent in each stage of `recognise`, for the bench: pass one as
    `laps` and read `ms` (stage name -> one entry per photo) after each call. The stages, in
    order: decode, warnings, prepare, edge outlines (told a count only: see `edge_outlines`),
    outlines (card masks, blobs and their outlines), read outlines, lone corners (the blobs'
    corners and those squared up, read there, unless the outlines named a show untold or read
    the count told: see `find_candidates`), lone proposals (segment, glyph and squared
    proposals; read untold, the segments' edge corners only in the next stage), read lone
    proposals, edge corners (read untold, the segments' edge corners looked for and read when
    the lone proposals do not name a show: see `names_a_show`), merge (calibrate and merge),
    fan steps (read untold, or told a count and short of it: see
    `fan_neighbours`), second look (told a count and a card or a few short only: see
    `second_look` and `likeliest_left`), shadow (the photo read again with its shadows lifted,
    when a card read lies in one: see `under_shadow`), starter, finer (read doubtfully, the
    whole reading again at `FINER_LONG_SIDE_PX`: see `recognise`)."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = {}
        self.proposals: dict[str, list[int]] = {}
        self._last = time.perf_counter()

    def start(self) -> None:
        """Start timing a photo."""
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        """The time since the last lap (or `start`) was spent in `stage`."""
        now = time.perf_counter()
        self.ms.setdefault(stage, []).append((now - self._last) * 1000.0)
        self._last = now

    def count(self, kind: str, n: int) -> None:
        """How many proposals of `kind` a photo had."""
        self.proposals.setdefault(kind, []).append(n)


def _no_lap(stage: str) -> None:
    """A lap nobody records."""


def recognise(
    image: ImageInput,
    model: IndexModel | None = None,
    laps: Laps | None = None,
    threads: int = READING_THREADS,
    expect: int | None = None,
) -> Recognition:
    """Find and name the cards in `image` (bytes, a path or a BGR array); `laps` (the bench's)
    records the time each stage took; `threads`: see `READING_THREADS` (the answer is the same
    on one).

    `expect`: how many cards the photo should hold, when the caller knows (a show is five:
    four in hand and the starter). When the whole-card outlines alone read that many distinct
    cards, every one of them surely (`UNSURE_BELOW`), no card is missing, and the search for
    cards whose outline is lost (lone corners and index glyphs, for fanned or overlapping
    cards) is skipped: about half a show's reading time when its cards lie apart. The outlines
    are first looked for in the edges alone, and in the other card masks (made on the second
    thread meanwhile) only when that look falls short (see `edge_outlines`). Short of the
    count, the blobs' corners are read next, and the reading stops there when they read the
    count surely with the outlines (see `find_candidates`). Any other photo is read in full,
    as without `expect`; its index glyphs are looked for, on the second thread, as soon as the
    edge outlines fall short (see `bench/bench_recognise.py`). Read up to `SECOND_LOOK_SHORT`
    cards short of `expect`, the cards missed are looked for again, one at a time (see
    `second_look`), and any still missing taken from the likeliest readings left (see
    `likeliest_left`); before those, and in every photo read untold, the cards of a fan that
    nothing framed are looked for from the cards read beside them (see `fan_neighbours`). Read
    untold, a photo whose first look (the whole outlines alone, those and the blobs' corners,
    or those and the index glyphs) names a show's five cards surely, laid as a show, is read no
    further: no blob corners in the first case, no glyph pairs in the first two, and no edge
    corners, fan steps or second reading under a shadow in any (see `names_a_show`,
    `_show_read_untold` and `_paper_accounted`). Read
    past `expect`, a card read where a surer one lies may be that card
    read again, wrongly, and the count may leave it out (see `past_count`). When a card read
    lies partly in a shadow, the photo is read again with its shadows lifted, for the cards
    the shadow hid (see `under_shadow`). A number card read surely from its whole outline whose
    pips are clearly of the other colour than its suit's is reported for the player to check
    (see `_pips_checked`). The photo is decoded at `DECODED_LONG_SIDE_PX` and read
    shrunk to the working size (`WORKING_LONG_SIDE_PX`); read unsure of a card, or told a count
    and short of it, a hand's worth of cards (`AGAIN_AT_MOST`) is read again shrunk from the
    decoded pixels to `FINER_LONG_SIDE_PX` instead (see `_doubtful`), and that reading is the
    answer when it reads more cards surely, or, told a count, as many and more cards in all (see
    `_standing`), each card both readings read at the mean of its two confidences (see
    `_read_at_both_sizes`). ValueError if `expect` is under 1."""
    if expect is not None and expect < 1:
        raise ValueError(f"expect is a number of cards, at least 1, not {expect}")
    if laps is not None:
        laps.start()
    decoded = load_image(image, DECODED_LONG_SIDE_PX)
    working = working_size(decoded)
    if laps is not None:
        laps.lap("decode")
    result = _read_loaded(working, model, laps, threads, expect)
    held = len(result.cards) if expect is None else expect
    if READ_DOUBTFUL_AGAIN and working is not decoded and held <= AGAIN_AT_MOST and _doubtful(result, expect):
        again = _read_loaded(shrunk_to(decoded, FINER_LONG_SIDE_PX), model, None, threads, expect)
        if _standing(again, expect) > _standing(result, expect):
            result = _read_at_both_sizes(result, again)
    if laps is not None:
        laps.lap("finer")
    return replace(result, warnings=result.warnings + _unsure_warning(result.cards))


def working_size(loaded: LoadedImage) -> LoadedImage:
    """`loaded` (as decoded, `DECODED_LONG_SIDE_PX` at most on its long side) shrunk to the
    working size, `vision.io.WORKING_LONG_SIDE_PX` (see `shrunk_to`)."""
    return shrunk_to(loaded, WORKING_LONG_SIDE_PX)


def shrunk_to(loaded: LoadedImage, long_side: int) -> LoadedImage:
    """`loaded` shrunk to `long_side` on its long side (itself, if no larger), its scale still
    to the original photo."""
    if max(loaded.pixels.shape[:2]) <= long_side:
        return loaded
    shrunk = load_image(loaded.pixels, long_side)
    return replace(shrunk, original_size=loaded.original_size, scale=loaded.scale * shrunk.scale)


def _doubtful(result: Recognition, expect: int | None) -> bool:
    """Whether a reading read a card unsurely (`UNSURE_BELOW`), or, told `expect` cards, fewer."""
    short = expect is not None and len(result.cards) < expect
    return short or not all(d.sure for d in result.cards)


def _standing(result: Recognition, expect: int | None) -> tuple[int, int]:
    """How well a reading did: the cards it read surely (`UNSURE_BELOW`), then, told `expect`
    cards, the cards it read up to `expect`; the larger, the better."""
    sure = sum(d.sure for d in result.cards)
    return sure, 0 if expect is None else min(len(result.cards), expect)


def _read_loaded(
    loaded: LoadedImage,
    model: IndexModel | None,
    laps: Laps | None,
    threads: int,
    expect: int | None,
) -> Recognition:
    """`recognise`'s reading of a photo as loaded, corners in its original pixels; the warning
    naming the cards to check is `recognise`'s, made once for the reading it answers with."""
    lap = _no_lap if laps is None else laps.lap
    model = model or default_model()
    # The photo's own warnings need nothing from the reading, nor it from them. Told a count, they
    # are worked out beside the pyramid and the reading's first stages; untold, the second thread
    # starts on the edges at once (`find_candidates`), and they wait for the merge and the fan
    # steps, beside them; on one thread, here, in their lap.
    warned: Future[list[str]] | _Later[list[str]] | None = None
    prepared = prepare(loaded.pixels)  # its grey image, for the warnings; its pyramid read again later
    with _Beside(threads) as early:
        if threads < 2 or expect is not None:
            warned = early.run(photo_warnings, prepared.gray)
            if threads < 2:
                warned.result()
        lap("warnings")
        candidates = find_candidates(loaded.pixels, model, laps, threads, expect, prepared=prepared)
        if warned is not None:
            warned.result()
    pyramid = prepared.pyramid
    with _Beside(threads) as beside:
        # Read untold, a photo with a card read wants its shadows' lift (`under_shadow`) unless
        # its cards name a show (`names_a_show`): made on the second thread, idle while the fan
        # steps run, after the warnings, which every photo waits for (one with no card read,
        # not for the lift).
        if warned is None:
            warned = beside.run(photo_warnings, prepared.gray)
        merged = merged_cards(candidates, model)
        shown = expect is None and names_a_show(merged[1])
        lift = beside.run(lift_shadow, loaded.pixels) if expect is None and not shown else None
        kept = kept_cards(pyramid, candidates, model, laps, expect, beside, merged)
        if not shown:
            kept += under_shadow(loaded.pixels, kept, model, threads, expect, lift)
        warnings = warned.result()
    lap("shadow")
    kept = [_pips_checked(loaded.pixels, c, kept) for c in kept]
    detections = [
        Detection(
            card=c.reading.card,
            confidence=round(c.confidence, 4),
            corners=[(float(x) * loaded.scale, float(y) * loaded.scale) for x, y in c.quad],
            stage=str(c.stage or ""),
        )
        for c in kept
    ]
    if not detections:
        warnings.append("no cards found")
    starter = lying_apart([d.corners for d in detections])
    lap("starter")
    return Recognition(cards=detections, warnings=warnings, starter=starter)


PIPS_DISAGREE_CONFIDENCE = 0.9
"""The confidence reported for a card read surely from its whole outline whose pips are of the
other colour than its suit's (`vision.pips`): under `UNSURE_BELOW`, so the player is asked to
check it."""


def _pips_checked(bgr: NDArray[np.uint8], card: Candidate, kept: list[Candidate]) -> Candidate:
    """`card`, or, read surely from a whole outline that none of the other cards `kept`
    overlaps, a number card whose pips' colour disagrees with its suit's (`pips_disagree`), at
    `PIPS_DISAGREE_CONFIDENCE`: a small or blurred index whose suit glyph read as the other
    colour's (development harsh show 12,501,175's ten of spades, read TD at 0.997 from its
    outline, its index's spade a blur of a few pixels). The ink on a card that another lies on
    may be that card's."""
    if not card.whole or card.stage != Stage.OUTLINE or card.confidence < UNSURE_BELOW:
        return card
    if any(other is not card and quad_iou(card.quad, other.quad) > 0.0 for other in kept):
        return card
    if not pips_disagree(bgr, card.quad, card.reading.card):
        return card
    return replace(card, confidence=min(card.confidence, PIPS_DISAGREE_CONFIDENCE))


def _unsure_warning(detections: list[Detection]) -> list[str]:
    """The warning naming the cards read unsurely (`Detection.sure`) for the player to check, if
    any."""
    unsure = [d.card for d in detections if not d.sure]
    return [f"not sure of {', '.join(unsure)}: check or retake closer"] if unsure else []


def _read_at_both_sizes(first: Recognition, finer: Recognition) -> Recognition:
    """The reading at `FINER_LONG_SIDE_PX` (`finer`), taken over the one at the working size
    (`first`) for reading more cards surely (`_standing`), each card both read reported at the
    mean of its two confidences.

    A photo is read again only when the first reading is unsure of a card, and the second is
    taken when it reads more surely: the better of two looks, which runs optimistic, as the best
    of many proposals does (`IndexModel.detection_confidences`). On 1,680 development photos read
    untold, the cards the taken reading read surely and the first unsurely were right 35 times
    in 37, where a card read surely is meant to be all but always right; at the mean of the two
    readings, 17 of those 35 stay sure and neither false card does (vision/README.md, "A card
    made sure by the second reading"). A card only the second reading read keeps its confidence:
    there is no other reading of it."""
    before = {d.card: d.confidence for d in first.cards}
    cards = [
        replace(d, confidence=round((d.confidence + before[d.card]) / 2.0, 4)) if d.card in before else d
        for d in finer.cards
    ]
    return replace(finer, cards=cards)


def read_cards(
    bgr: NDArray[np.uint8],
    model: IndexModel,
    laps: Laps | None = None,
    threads: int = READING_THREADS,
    expect: int | None = None,
) -> list[Candidate]:
    """The cards read in a working-size image, one candidate each (`laps`, `threads` and
    `expect`: see `recognise`)."""
    # Made here, in the "prepare" lap, its pyramid to be read from again by the second look.
    prepared = prepare(bgr)
    candidates = find_candidates(bgr, model, laps, threads, expect, prepared=prepared)
    return kept_cards(prepared.pyramid, candidates, model, laps, expect)


def kept_cards(
    pyramid: list[NDArray[np.uint8]],
    candidates: list[Candidate],
    model: IndexModel,
    laps: Laps | None = None,
    expect: int | None = None,
    beside: _Beside | None = None,
    merged: tuple[list[Candidate], list[Candidate]] | None = None,
) -> list[Candidate]:
    """The cards that `find_candidates` found in the image whose `pyramid` is given, one
    candidate each: calibrated and merged, then the fan steps, the second look and the count
    (`laps` and `expect`: see `recognise`; `beside`: see `fan_neighbours`; `merged`: the
    candidates' `merged_cards`, when the caller has them). Read untold, cards that name a show
    (`names_a_show`) are all there is: no fan steps are taken, as none are for a reading told
    its count that read it."""
    lap = _no_lap if laps is None else laps.lap
    calibrated, kept = merged or merged_cards(candidates, model)
    kept = list(kept)
    lap("merge")
    if expect is None and names_a_show(kept):
        _skip_kept(lap)
        return kept
    if expect is None or len(kept) < expect:
        kept += fan_neighbours(pyramid, candidates, kept, model, beside)
    lap("fan steps")
    if expect is not None and 0 < expect - len(kept) <= SECOND_LOOK_SHORT:
        # One card at a time, each found card then explaining its own lone readings.
        moved: MovedFrames = {}
        for _ in range(expect - len(kept)):
            missed = second_look(pyramid, candidates, kept, model, moved)
            if missed is None:
                break
            kept.append(missed)
        kept += likeliest_left(calibrated, kept, expect - len(kept))
    if expect is not None and len(kept) > expect:
        kept = past_count(kept, expect)
    lap("second look")
    return kept


SHADOW_CROSSES = 0.15
"""Share of a card read whose area must lie in a shadow (`lift_shadow`, lifted at least
`SHADOW_GAIN` times) for the photo to be read again with the shadow lifted (`under_shadow`)."""
SHADOW_GAIN = 1.5
"""Least lift (`lift_shadow`) that counts a place as in a shadow for `SHADOW_CROSSES`: a place
that gets at most two thirds of the photo's lit level, as under a player's arm (the generator's,
`synth.CAST_SHADOW_LIGHT`, lets 35-65 % through). The lift itself starts at 80 %
(`SHADOW_LIGHT`), but a card lit at 70-80 % of the brightest paper is mostly one a lamp lights
less, not one a shadow crosses, and such photos were read again for nothing."""


def _skip_kept(lap: Callable[[str], None]) -> None:
    """Lap the stages of `kept_cards` after the merge, not run for this photo (see `_skip`)."""
    lap("fan steps")
    lap("second look")


def merged_cards(candidates: list[Candidate], model: IndexModel) -> tuple[list[Candidate], list[Candidate]]:
    """The `candidates` calibrated (`calibrate`), and the cards they name, one candidate each
    (`merge`)."""
    calibrated = calibrate(candidates, model)
    return calibrated, merge(calibrated)


def names_a_show(kept: list[Candidate]) -> bool:
    """Whether the cards `kept` (one candidate each, see `merge`) are a show's `SHOW_CARDS`,
    every one read surely (`UNSURE_BELOW`), no two overlapping more than `SHOW_OVERLAP`.

    A reading untold whose first look names a show stops there, as a reading told its count
    stops once it has read it. The later looks find cards the first missed (the edge corners,
    `find_candidates`; the fan steps, `kept_cards`; the shadow's second reading,
    `under_shadow`), and a show has none left to find. What it gains and costs is measured in
    vision/README.md, "An untold show named by its first look"."""
    return _all_read_surely(kept, SHOW_CARDS) and all(
        quad_iou(a.quad, b.quad) <= SHOW_OVERLAP for a, b in itertools.combinations(kept, 2)
    )


def _paper_accounted(blobs: list[Blob], kept: list[Candidate], slack: float = SHOW_PAPER) -> bool:
    """Whether the light regions (`blobs`, those of the card masks) holding the cards `kept`
    show no more paper than those cards: the smallest region holding each card's middle is at
    most `slack` card areas larger than the cards whose middles it holds. A reading that
    stops before the glyph search knows no other index in the photo; a fanned deal whose first
    look named a few cards is told by the paper of the many around them."""
    area, middles = _size_and_middles(kept)
    regions = [blob for blob in blobs if blob.lone_corners]
    for middle in middles:
        holding = [b for b in regions if cv2.pointPolygonTest(b.contour, middle, False) >= 0]
        if not holding:
            continue
        region = min(holding, key=lambda b: b.area)
        inside = sum(cv2.pointPolygonTest(region.contour, m, False) >= 0 for m in middles)
        if region.area > (inside + slack) * area:
            return False
    return True


def _size_and_middles(kept: list[Candidate]) -> tuple[float, list[tuple[float, float]]]:
    """The cards' area (the median of `kept`'s quads) and each card's middle, as the paper
    tests (`_paper_accounted`, `_no_card_beside`) weigh regions against them."""
    area = float(np.median([quad_area(k.quad) for k in kept]))
    return area, [(float(x), float(y)) for x, y in (k.quad.mean(axis=0) for k in kept)]


def _show_read_untold(
    candidates: list[Candidate],
    model: IndexModel,
    blobs: list[Blob] | None = None,
    paper: float = SHOW_PAPER,
    touching: bool = False,
) -> bool:
    """Whether an untold reading may stop with the `candidates` read so far: calibrated and
    merged as the full reading is, they name a show (`names_a_show`); and, given the light
    regions (`blobs`), the paper around the named cards is theirs: the smallest region holding
    each card shows at most `paper` card areas beyond the named cards in it
    (`_paper_accounted`), and with `touching`, no region holding named cards shows more than
    `OUTLINE_PAPER` of paper that none of them covers (`_no_card_beside`).

    `find_candidates` asks it at three stops, each of which leaves the later looks unread:
    after the whole outlines (`OUTLINE_PAPER`, touching: before any corner is read, a card
    touching a named one is known only by its paper; the blobs' corners of a show on a
    patterned table are many, and reading them took up to a third of such a show's time),
    after the blobs' corners (`SHOW_PAPER`: a fanned deal whose few cards named five shows the
    paper of many more), and after the glyph pairs (no `blobs`: their search looked at all the
    paper, and the edge corners are what is left)."""
    if len({c.reading.card for c in candidates}) < SHOW_CARDS:
        return False  # no merge names more cards than were read
    kept = merged_cards(candidates, model)[1]
    if not names_a_show(kept):
        return False
    if blobs is None:
        return True
    return _paper_accounted(blobs, kept, paper) and (not touching or _no_card_beside(blobs, kept))


def _no_card_beside(blobs: list[Blob], kept: list[Candidate]) -> bool:
    """Whether no light region (`blobs`, those of the card masks) holding some of the cards
    `kept` shows more than `OUTLINE_PAPER` card areas of paper that none of them covers: a card
    outlined together with a named one that it touches. `_paper_accounted` looks only at the
    smallest region holding each card, and one mask may part the two cards that another joins;
    and a region's paper beyond its cards' count of areas misses a card in a row of touching
    cards, whose paper each mask draws a little inside its edges. A region larger than the
    cards and `OUTLINE_PAPER_CARDS` card areas more is the table's own light, which says
    nothing of cards (a fanned deal's regions of many cards fail `_paper_accounted`)."""
    area, middles = _size_and_middles(kept)
    largest = (len(kept) + OUTLINE_PAPER_CARDS) * area
    for blob in blobs:
        if not blob.lone_corners or not OUTLINE_PAPER * area < blob.area <= largest:
            continue
        if not any(cv2.pointPolygonTest(blob.contour, m, False) >= 0 for m in middles):
            continue
        if _uncovered(blob.contour, [k.quad for k in kept]) > OUTLINE_PAPER * area:
            return False
    return True


def _uncovered(contour: NDArray[np.int32], quads: list[Quad]) -> int:
    """How many pixels of the region inside `contour` lie in none of `quads`."""
    x, y, w, h = cv2.boundingRect(contour)
    canvas = np.zeros((h, w), np.uint8)
    cv2.drawContours(canvas, [contour - np.array([x, y], np.int32)], -1, 255, cv2.FILLED)
    for quad in quads:  # one at a time: `cv2.fillPoly` would leave two quads' overlap unfilled
        cv2.fillConvexPoly(canvas, np.round(quad - (x, y)).astype(np.int32), 0)
    return int(cv2.countNonZero(canvas))


def _all_read_surely(kept: list[Candidate], count: int) -> bool:
    """Whether the cards `kept` (one candidate each, see `merge`) are `count` cards, every one
    read surely (`UNSURE_BELOW`)."""
    return len(kept) == count and all(c.confidence >= UNSURE_BELOW for c in kept)


def under_shadow(
    bgr: NDArray[np.uint8],
    kept: list[Candidate],
    model: IndexModel,
    threads: int = READING_THREADS,
    expect: int | None = None,
    lift: Future[ShadowLift] | _Later[ShadowLift] | None = None,
) -> list[Candidate]:
    """The cards a shadow cast across the table hid from the reading that found `kept`: the
    photo is read again with its shadows lifted (`lift_shadow`), only when a card read lies
    partly in one (`SHADOW_CROSSES`), and its sure cards (`UNSURE_BELOW`) are taken that are
    neither a card of `kept` nor where one lies (`same_card`), up to `expect` when told it.

    A shadow on paper, lifted for the whole reading, reads most of the cards it hid, but the
    lift also changes places not in a shadow (a low-colour table's light between cards), and
    the reading of the lifted photo alone lost cards there. So the first reading stands, and
    the lifted one only adds to it; a photo with no card in a shadow is read once. `lift`: the
    lift of `bgr`'s shadows, when already under way."""
    if not kept or (expect is not None and len(kept) >= expect):
        return []
    lifted = lift_shadow(bgr) if lift is None else lift.result()
    shaded = lifted.gain >= SHADOW_GAIN
    if not any(_share_within(card.quad, shaded) > SHADOW_CROSSES for card in kept):
        return []
    codes = {card.reading.card for card in kept}
    found: list[Candidate] = []
    for card in read_cards(lifted.pixels, model, None, threads, expect):
        if card.confidence < UNSURE_BELOW or card.reading.card in codes:
            continue
        if any(same_card(other, card) for other in kept + found):
            continue
        found.append(card)
    return found if expect is None else found[: expect - len(kept)]


def _share_within(quad: Quad, mask: NDArray[np.bool_]) -> float:
    """The share of the pixels inside `quad` (as drawn) where `mask` is set; drawn in the
    quad's bounding box only, not in a photo-sized mask for each card of a deal."""
    points = np.round(quad).astype(np.int32)
    h, w = mask.shape
    x0, y0 = max(int(points[:, 0].min()), 0), max(int(points[:, 1].min()), 0)
    x1, y1 = min(int(points[:, 0].max()) + 1, w), min(int(points[:, 1].max()) + 1, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inside, points - np.array([x0, y0], np.int32), 1)
    within = inside.astype(bool)
    total = int(np.count_nonzero(within))
    return float(np.count_nonzero(mask[y0:y1, x0:x1] & within)) / total if total else 0.0


def find_candidates(
    bgr: NDArray[np.uint8],
    model: IndexModel,
    laps: Laps | None = None,
    threads: int = READING_THREADS,
    expect: int | None = None,
    prepared: Prepared | None = None,
) -> list[Candidate]:
    """Every reading that may be a card (see `read_candidates`) of every proposal in a
    working-size image, before calibration and merging (`laps` and `expect`: see `recognise`).
    With `threads` 2, the stages that do not wait on each other run side by side (see
    `READING_THREADS`); the readings are the same either way, in the same order. `prepared`:
    the image's (`prepare`), when the caller has it to read from again (its pyramid)."""
    lap: Callable[[str], None] = _no_lap if laps is None else laps.lap
    with _Beside(threads) as beside:
        prepared = prepare(bgr) if prepared is None else prepared
        # Untold, the second thread starts on the edges (the broken outlines') as soon as the
        # grey image is made, while this one makes the pyramid and the card masks: the masks'
        # enclosed regions are the edges', and made after the pyramid, they no longer wait
        # for them.
        broken = beside.run(broken_outline_blobs, prepared) if expect is None else None
        pyramid = prepared.pyramid
        lap("prepare")
        known: FrameReadings = {}
        if expect is not None:
            glanced, glance, edged, others = edge_outlines(prepared, pyramid, model, beside, known)
            lap("edge outlines")
            if _outlines_suffice(glanced, model, expect):
                _skip(lap, "outlines")
                _count_proposals(laps, glance, [])
                return glanced
        else:
            lap("edge outlines")
        if broken is not None:
            masks = card_masks(prepared)
            paper, notched = paper_and_notches(masks)
            glyphs = beside.shared(glyph_proposals, prepared, notched, beside.stop, True)
            blobs = find_blobs(prepared, masks) + broken.result()
        else:
            # The edge outlines fell short. The other masks' blobs were looked for beside them
            # (see `edge_outlines`); the broken outlines are looked for here, and the glyphs
            # beside these (the lone corners will most likely be wanted). The same blobs, in
            # the same order as without `expect`; the edges' are not found again.
            traced = broken_outline_blobs(prepared)
            paper, notched, masked = others.result()
            # Not the glyphs only the broad lines' cut sets free (`glyph_sets`): they found
            # cards in deals, read untold, and none in shows or held hands told their count,
            # where the slowest readings took 8 % longer for them.
            glyphs = beside.shared(glyph_proposals, prepared, notched, beside.stop, False)
            blobs = masked + edged + traced
        outlines = outline_proposals(unique_quads(paper_outlines(prepared, blobs)))
        lap("outlines")
        candidates = read_candidates(pyramid, outlines, model, known)
        lap("read outlines")
        if expect is not None and _outlines_suffice(candidates, model, expect):
            _skip(lap, "lone corners")
            _count_proposals(laps, outlines, [])
            return candidates
        if expect is None and _show_read_untold(candidates, model, blobs, OUTLINE_PAPER, touching=True):
            _skip(lap, "lone corners")
            _count_proposals(laps, outlines, [])
            return candidates
        confident = [c.quad for c in candidates if c.whole and c.reading.confidence >= SURE_OUTLINE]
        widths = [card_width_px(card_homography(quad)) for quad in confident]
        sure = read_at_both_ends(candidates)
        # Each proposal is kept or not on its own (`beyond_sure_cards`), so the blobs' corners
        # are judged once, for the reading told a count and for the full one.
        cornered = corner_proposals(blobs, widths, confident)
        corners = beyond_sure_cards(cornered, sure)
        squared = beyond_sure_cards(squared_proposals(cornered), sure)
        # The blobs' corners are read first, while the glyphs are still looked for beside them:
        # a show's cards overlapping only at their edges are found there, and the glyph pairs,
        # more and dearer to read, are then not read. Untold, the cards must name a show and
        # account for the paper around them (`_paper_accounted`), as a fanned deal's do not.
        first = corners + squared
        corners_read = read_candidates(pyramid, corners, model, known)
        squared_read = read_candidates(pyramid, squared, model, known)
        first_read = corners_read + squared_read
        lap("lone corners")
        if expect is None:
            enough = _show_read_untold(candidates + first_read, model, blobs)
        else:
            enough = _outlines_suffice(candidates + first_read, model, expect)
        if enough:
            _skip(lap, "lone proposals")
            _count_proposals(laps, outlines, first)
            return candidates + first_read
        if expect is None:
            # Untold, the edge corners wait for the first look: when the outlines, the blobs'
            # corners and the glyphs name a show, they are not looked for (`names_a_show`).
            glyphed = beyond_sure_cards(glyphs.result(), sure)
            lap("lone proposals")
            looked = _read_lone(beside, pyramid, corners + glyphed + squared, model, known)

            def read_of(part: list[Proposal]) -> list[Candidate]:
                return read_candidates(pyramid, _among(part, looked), model, known)

            # The blobs' corners and their squared-up corners follow no other frame
            # (`Proposal.after`): all of them are read, as they were for the first look.
            early = [corners_read, read_of(glyphed), squared_read]
            first_read = [candidate for part in early for candidate in part]
            lap("read lone proposals")
            if _show_read_untold(candidates + first_read, model):
                lap("edge corners")
                _count_proposals(laps, outlines, looked)
                return candidates + first_read
            segmented = segment_proposals(prepared, paper, widths, confident)
            at_edges = beyond_sure_cards(segmented, sure)
            squared_at_edges = beyond_sure_cards(squared_proposals(segmented), sure)
            looked += _read_lone(beside, pyramid, at_edges + squared_at_edges, model, known)
            # In the order a reading that looks for them all at once reads them.
            order = (corners, at_edges, glyphed, squared, squared_at_edges)
            lone = [proposal for part in order for proposal in _among(part, looked)]
            parts = (early[0], read_of(at_edges), early[1], early[2], read_of(squared_at_edges))
            read = [candidate for part in parts for candidate in part]
        else:
            segmented = segment_proposals(prepared, paper, widths, confident)
            lone = (
                corners
                + beyond_sure_cards(segmented + glyphs.result(), sure)
                + squared
                + beyond_sure_cards(squared_proposals(segmented), sure)
            )
            lap("lone proposals")
            read, lone = _read_beside(beside, pyramid, lone, model, known)
            lap("read lone proposals")
        lap("edge corners")
    _count_proposals(laps, outlines, lone)
    return candidates + read


_FINDING = (
    "outlines", "read outlines", "lone corners", "lone proposals", "read lone proposals", "edge corners"
)
"""The stages of `find_candidates` after the edge outlines, in order (see `Laps`)."""


def _skip(lap: Callable[[str], None], first: str) -> None:
    """Lap the stages from `first` on (`_FINDING`), not run for this photo: the bench's sets
    need every stage for every photo."""
    for stage in _FINDING[_FINDING.index(first) :]:
        lap(stage)


FOLLOW_FROM = 1e-4
"""A proposal read after another (`Proposal.after`: a glyph pair's or a joined index's frames
but the first, `PAIRS.pair_lead` and `PAIRS.joined_lead`) is read only when that one reads at
least this presence. The frames of one pair or joined index frame the same print at other
sizes and turns, and where one of them shows no trace of an index the others all but never
read one: of 22,725 such frames in 20 untold development shows (5,600,001-020), 12,229 follow
a first frame under this presence, and 6 of those read an index (presence 0.5), of 679 that
did. The readings were the same in all 20 shows and the cards in the 7 bridge deals of
../shared/cards/bidly, and the lone proposals read fell by a third. At 0.001 (the first
perceptron's `FIRST_LOOK`) 13,130 followed, 8 of them read an index, and a generated deal
under a shadow (the tests' first seed) lost its TS, read at 0.82 with every frame read."""


def _read_beside(
    beside: _Beside,
    pyramid: list[NDArray[np.uint8]],
    proposals: list[Proposal],
    model: IndexModel,
    known: FrameReadings,
) -> tuple[list[Candidate], list[Proposal]]:
    """`read_candidates(pyramid, proposals, model, known)` for the proposals read (see
    `_read_lone`), and those proposals."""
    read = _read_lone(beside, pyramid, proposals, model, known)
    return read_candidates(pyramid, read, model, known), read


def _read_lone(
    beside: _Beside,
    pyramid: list[NDArray[np.uint8]],
    proposals: list[Proposal],
    model: IndexModel,
    known: FrameReadings,
) -> list[Proposal]:
    """The `proposals` read, their frames' readings added to `known`: each proposal read after
    another (`Proposal.after`) only when that one shows a trace of an index (`FOLLOW_FROM`).
    The frames not yet in `known` are read half beside the other half (on `beside`'s second
    thread, if it has one), first the proposals read after none (and the frames others are read
    after), then those that follow. Each frame is read on its own (`read_candidates`), so two
    halves read apart are read as the whole would be."""
    firsts = [p.homography for p in proposals if p.after is None]
    firsts += [p.after for p in proposals if p.after is not None]
    _read_halves(beside, pyramid, firsts, model, known)
    # A group's frames all follow its first: whether that one shows a trace, judged once.
    traced: dict[bytes, bool] = {}
    read = []
    for proposal in proposals:
        if proposal.after is not None:
            key = frame_key(proposal.after)
            if key not in traced:
                traced[key] = _traced(known[key])
            if not traced[key]:
                continue
        read.append(proposal)
    _read_halves(beside, pyramid, [p.homography for p in read if p.after is not None], model, known)
    return read


def _among(proposals: list[Proposal], read: list[Proposal]) -> list[Proposal]:
    """Those of `proposals` that are in `read` (the same objects), in their order."""
    ids = {id(proposal) for proposal in read}
    return [proposal for proposal in proposals if id(proposal) in ids]


def _traced(reading: tuple[NDArray[np.float64], NDArray[np.float64]]) -> bool:
    """Whether a frame's rank and suit probabilities show a trace of an index (`FOLLOW_FROM`)."""
    return float(index_presence(*reading)) >= FOLLOW_FROM


def _read_halves(
    beside: _Beside,
    pyramid: list[NDArray[np.uint8]],
    frames: list[NDArray[np.float64]],
    model: IndexModel,
    known: FrameReadings,
) -> None:
    """Read the `frames` not yet in `known` into it, every other one beside the others: the
    frames come in runs of one kind (the blobs' corners, the segments', the glyph pairs'), and
    the kinds cost unlike (a frame the screen turns away costs a fraction of one it lets
    through), so the first half and the second were unlike too: the thread done first waited
    for the other, 6 ms of a generated show's reading."""
    unread = list({key: frame for frame in frames if (key := frame_key(frame)) not in known}.values())
    if not unread:
        return
    beside_half = beside.run(_read_into, pyramid, unread[::2], model, known)
    _read_into(pyramid, unread[1::2], model, known)
    # Still waiting behind another stage on the second thread (the shadows' lift, while the fan
    # steps run): read here instead.
    if isinstance(beside_half, Future) and beside_half.cancel():
        _read_into(pyramid, unread[::2], model, known)
    else:
        beside_half.result()


def _read_into(
    pyramid: list[NDArray[np.uint8]],
    frames: list[NDArray[np.float64]],
    model: IndexModel,
    known: FrameReadings,
) -> None:
    """Read `frames` (none of them in `known`) into `known`, by their `frame_key`."""
    if not frames:
        return
    rank, suit = read_frames(pyramid, frames, model)
    for frame, r, s in zip(frames, rank, suit, strict=True):
        known[frame_key(frame)] = (r, s)


def read_at_both_ends(candidates: list[Candidate]) -> list[Quad]:
    """The whole outlines among `candidates` (as `read_candidates` gives them) whose two index
    corners each read the outline's card surely (`SURE_OUTLINE`) on their own: each outline of
    one whole card. An outline read surely at one end only may be of a card partly covered, or
    of a group of cards lying together, with another card's index inside it."""
    corners = [
        c
        for c in candidates
        if not c.whole and c.stage == Stage.OUTLINE and c.reading.confidence >= SURE_OUTLINE
    ]
    both = []
    for outline in candidates:
        if not outline.whole or outline.reading.confidence < SURE_OUTLINE:
            continue
        card, ends = outline.reading.card, (outline.quad[0], outline.quad[2])
        if all(
            any(c.reading.card == card and np.array_equal(c.quad[0], end) for c in corners) for end in ends
        ):
            both.append(outline.quad)
    return both


MovedFrames = dict[int, tuple[CardReading, NDArray[np.float64]]]
"""What `second_look`, or `_fan_loose`, found moving each lone reading's frame as
`SECOND_LOOK_MOVES` says (by its place in the candidates): the surest reading of its card and
the frame that gave it."""


def second_look(
    pyramid: list[NDArray[np.uint8]],
    candidates: list[Candidate],
    kept: list[Candidate],
    model: IndexModel,
    moved: MovedFrames | None = None,
) -> Candidate | None:
    """The card most likely missed in a photo read short of the count it was told to expect
    (`kept`: the cards read, and any found by looking again before), or None: of the lone
    readings that no kept card explains (another code, elsewhere), each frame is moved as
    `SECOND_LOOK_MOVES` says while the same card reads more surely, and the surest is taken if
    it then reads the card surely (`UNSURE_BELOW`), with the confidence
    `SECOND_LOOK_CONFIDENCE`, which asks the player to check it. `moved`: what earlier looks
    at the same `candidates` found, kept there and added to (each frame's moves depend on its
    own readings only, so a reading moved once is not moved again).

    A fanned or overlapping card's lone corner is often framed a little off (its size guessed
    from one corner or from the print), and reads too weakly to count. Moving frames until
    something reads surely finds print that reads as a card too, so it is done only where a
    card is known to be missing, one card for each missing, and what it finds is never called
    sure. Of 400 development shows told five (seeds 5,500,001, 8,200,001 harsh and 8,300,001
    starter apart), on which the moves and the bar were chosen, 15 were read one short: it found
    the missed card in 6 and no other card in any; of 400 more (5,600,001, 5,700,001, 8,400,001
    harsh and 8,500,001 apart), 17 one short, 5 found, none wrong; of 240 development hands held
    fanned, each told its count (6,100,001 and 6,200,001), 26 one short, 11 found, none wrong.
    Tried on every photo instead, it made print read as cards surely on development shows and
    held hands."""
    loose = [
        i
        for i, c in enumerate(candidates)
        if not c.whole and c.reading.presence >= MIN_PRESENCE and not _explained(c, kept)
    ]
    loose = sorted(loose, key=lambda i: -candidates[i].reading.confidence)[:SECOND_LOOK_AT_MOST]
    if not loose:
        return None
    if moved is None:
        moved = {}
    fresh = [i for i in loose if i not in moved]
    if fresh:
        moved.update(zip(fresh, _moved_frames(pyramid, [candidates[i] for i in fresh], model), strict=True))
    surest = max(loose, key=lambda i: moved[i][0].confidence)
    reading, frame = moved[surest]
    if reading.confidence < UNSURE_BELOW:
        return None
    return replace(
        candidates[surest],
        reading=reading,
        quad=card_corners_from_frame(frame),
        confidence=SECOND_LOOK_CONFIDENCE,
    )


def fan_neighbours(
    pyramid: list[NDArray[np.uint8]],
    candidates: list[Candidate],
    kept: list[Candidate],
    model: IndexModel,
    beside: _Beside | None = None,
) -> list[Candidate]:
    """Cards of a fan that no proposal framed, found from the cards read beside them
    (`kept`, merged from `candidates`): the most of the cards a deal laid out in fans misses.
    `beside`: where half of each step's frames are read (see `_read_halves`), when the
    caller has a second thread.

    Cards fanned in a hand each lie turned about the fan's pivot from the one under them, by
    much the same turn. For two cards read (`kept`) alike in size (`FAN_SIZE`), turned alike
    (`FAN_TURN`) and near each other (`FAN_REACH`), the move that takes the one's card frame
    to the other's is that turn, seen through the camera (each frame first sized as the cards
    read near it are, `_fan_sized`); made once more from the other, it
    frames the next card of the fan, and made half from the one, a card between them
    (`geometry.half_move`). Each such frame not on an index already read is read, moved as
    `second_look` moves a frame while its card reads more surely (`SECOND_LOOK_MOVES`), and
    taken if it then reads surely (`UNSURE_BELOW`) a card that no card kept explains, surest
    first, at its calibrated confidence; up to `FAN_ROUNDS` times, stepping on from what it
    found too. A card laid apart has no neighbour to step on from, and two laid side by side
    step onto the table, where nothing reads. Cards laid straight, each slid a strip over the
    one before (a row or a column, as a bridge dummy is laid or a hand spread to be counted),
    are framed from one card read alone too: at the edges that cross it or lie beside it
    (`_cascade_steps`), each card read once, when first read or found. Before any step, the lone
    readings beside the cards kept that read a card unsurely, framed a little off, are moved
    until they read surely (`_fan_loose`), and step on from too; after the last step, those
    still unsure beside any card read are moved on by finer steps (`FAN_FINER_MOVES`), and a
    card found so is reported for the player to check.

    Against the reading without it, on development photos: deals read 93.3 → 98.2 % of their
    cards (9,000,001-100) and 92.0 → 97.0 % (9,000,101-300); hands held fanned read untold
    97.0 → 97.7 % (6,200,001-200, exact 180 → 186), told their count 194 → 195 exact of 200
    (6,100,001); shows told five 294 → 295 exact of 300 (5,500,001), the harsh ones (8,200,001,
    200), those with the starter apart (8,300,001, 300) and shows read untold (5,600,001 and
    8,500,001, 200 each) the same; not one false card more in any.
    """
    moved: MovedFrames = {}
    loose = _unsure_lone(candidates, kept)
    found = _fan_loose(pyramid, candidates, loose, kept, model, moved)
    fresh_cards = kept + found
    for _ in range(FAN_ROUNDS):
        cards = kept + found
        # Each set apart (`_off_read`): a frame stepped onto from two cards, and one at an edge
        # near it, frame a card a little differently, and either may read it.
        frames = _off_read(_fan_steps(cards), cards) + _off_read(_cascade_steps(pyramid, fresh_cards), cards)
        if not frames:
            break
        stepped = lone_proposals(frames, Stage.FAN_STEP)
        known: FrameReadings = {}
        if beside is not None:
            _read_halves(beside, pyramid, [p.homography for p in stepped], model, known)
        read = [
            candidate
            for candidate in read_candidates(pyramid, stepped, model, known)
            if not _explained(candidate, kept + found)
        ]
        if not read:
            break
        added = _moved_surely(pyramid, read, model, candidates, kept + found)
        if not added:
            break
        found += added
        fresh_cards = added
    still = [i for i in loose if not _explained(candidates[i], found)]
    return found + _fan_loose(pyramid, candidates, still, kept + found, model, moved, finer=True)


def _unsure_lone(candidates: list[Candidate], kept: list[Candidate]) -> list[int]:
    """The places among `candidates` of the lone readings of a card (`MIN_PRESENCE`) under
    `UNSURE_BELOW` that no card `kept` explains: those `_fan_loose` may move."""
    return [
        i
        for i, c in enumerate(candidates)
        if not c.whole
        and c.reading.presence >= MIN_PRESENCE
        and c.reading.confidence < UNSURE_BELOW
        and not _explained(c, kept)
    ]


def _fan_loose(
    pyramid: list[NDArray[np.uint8]],
    candidates: list[Candidate],
    loose: list[int],
    kept: list[Candidate],
    model: IndexModel,
    moved: MovedFrames,
    finer: bool = False,
) -> list[Candidate]:
    """The cards of a fan whose lone corner was framed a little off and read unsurely: each lone
    reading of a card (`MIN_PRESENCE`) under `UNSURE_BELOW` that no card kept explains (`loose`,
    their places among `candidates`: see `_unsure_lone`), lying beside a card kept
    (`FAN_LOOSE_REACH`) turned and sized alike (`FAN_TURN`, `FAN_SIZE`), has its frame moved as
    `second_look` moves one (`SECOND_LOOK_MOVES`), and is taken, as `fan_neighbours` takes a
    step, if it then reads the same card surely (`UNSURE_BELOW`) and its calibrated confidence
    is at least `MIN_CONFIDENCE`, surest first. `moved`: the moves
    found before for these `candidates`, kept there and added to (see `second_look`). With
    `finer`, the last look, after the fan's steps: each frame is moved on by finer steps
    (`FAN_FINER_MOVES`), and a card found so is reported at `SECOND_LOOK_CONFIDENCE` at most,
    for the player to check.

    Where cards lie tight, a glyph pair's frame, sized from the print, often takes in the next
    card's index or edge, and reads its own card too unsurely to keep (under 0.8, calibrated under
    `MIN_CONFIDENCE`): of 77 cards 15 development deals laid tight (9,400,001 on) missed, 47
    were read so. Beside a card read, in a fan, it is most likely a card; moved where nothing
    is read, print on a card's picture reads as a card too (see `second_look`)."""
    if not loose or not kept:
        return []
    kept_lines = _index_lines(np.stack([card_homography(c.quad) for c in kept]))
    loose_lines = _index_lines(np.stack([card_homography(candidates[i].quad) for i in loose]))
    beside = np.flatnonzero(_fan_alike(kept_lines, loose_lines, FAN_LOOSE_REACH).any(axis=0))
    near = sorted((loose[k] for k in beside), key=lambda i: -candidates[i].reading.confidence)
    near = near[:FAN_LOOSE_AT_MOST]
    if not near:
        return []
    fresh = [i for i in near if i not in moved]
    if fresh:
        moved.update(zip(fresh, _moved_frames(pyramid, [candidates[i] for i in fresh], model), strict=True))
    read = [candidates[i] for i in near]
    if not finer:
        return _taken(read, [moved[i] for i in near], model, candidates, kept)
    further = _moved_frames(pyramid, read, model, FAN_FINER_MOVES, [moved[i] for i in near])
    return [
        replace(c, confidence=min(c.confidence, SECOND_LOOK_CONFIDENCE))
        for c in _taken(read, further, model, candidates, kept)
    ]


def _moved_surely(
    pyramid: list[NDArray[np.uint8]],
    read: list[Candidate],
    model: IndexModel,
    candidates: list[Candidate],
    kept: list[Candidate],
) -> list[Candidate]:
    """Of the lone readings `read` (frames `fan_neighbours` stepped onto), each moved as
    `SECOND_LOOK_MOVES` says while its card reads more surely, those taken (see `_taken`)."""
    return _taken(read, _moved_frames(pyramid, read, model), model, candidates, kept)


def _taken(
    read: list[Candidate],
    moved: list[tuple[CardReading, NDArray[np.float64]]],
    model: IndexModel,
    candidates: list[Candidate],
    kept: list[Candidate],
) -> list[Candidate]:
    """Of the lone readings `read`, each at its surest reading and frame (`moved`, see
    `_moved_frames`), those that read surely (`UNSURE_BELOW`), calibrated among the photo's
    `candidates`, surest first, each at least `MIN_CONFIDENCE`, explained by no card `kept`
    or taken before it, and lying on no card read at both ends (`lies_on_a_sure_card`)."""
    fresh = [
        replace(c, reading=reading, quad=card_corners_from_frame(frame), stage=Stage.FAN_STEP)
        for c, (reading, frame) in zip(read, moved, strict=True)
        if reading.confidence >= UNSURE_BELOW
    ]
    if not fresh:
        return []
    added: list[Candidate] = []
    calibrated = calibrate(candidates + fresh, model)[len(candidates) :]
    sure = read_at_both_ends(candidates)
    for candidate in sorted(calibrated, key=lambda c: -c.confidence):
        if (
            candidate.confidence >= MIN_CONFIDENCE
            and not _explained(candidate, kept + added)
            and not lies_on_a_sure_card(candidate.quad, sure)
        ):
            added.append(candidate)
    return added


def lies_on_a_sure_card(quad: Quad, sure: list[Quad]) -> bool:
    """Whether a card moved onto (`_taken`) at `quad` lies where no card can: its index middle
    (`INDEX_MIDDLE`) on one of the `sure` cards, each read the same at both its index corners
    (`read_at_both_ends`), and its own paper over one of that card's two index middles. Lying
    on that card, it would hide the index that card was read at; lying under it, its own index
    would be hidden. What a frame moved there reads is that card's print.

    Development harsh show 12,500,242 (a four and a nine of diamonds side by side): a fan
    step's half step between them, moved onto the four's corner pip, read an ace of diamonds
    at 0.994, its index 0.09 card widths inside the four's edge (too near it for
    `beyond_sure_cards`) and its paper over the four's far index. A card stepped onto in a
    real fan lies over the card before it, whose far index it hides, so that card is not read
    at both ends."""
    middle = cv2.perspectiveTransform(np.array([[INDEX_MIDDLE]], np.float64), card_homography(quad))[0]
    ends = np.array([[INDEX_MIDDLE, (1.0 - INDEX_MIDDLE[0], CARD_ASPECT - INDEX_MIDDLE[1])]], np.float64)
    own = quad.astype(np.float32).reshape(-1, 1, 2)
    for other in sure:
        homography = card_homography(other)
        x, y = cv2.perspectiveTransform(middle[None], np.linalg.inv(homography))[0, 0]
        if not (0.0 < x < 1.0 and 0.0 < y < CARD_ASPECT):
            continue
        covered = cv2.perspectiveTransform(ends, homography)[0]
        if any(cv2.pointPolygonTest(own, (float(px), float(py)), False) > 0 for px, py in covered):
            return True
    return False


def _fan_alike(
    lines: tuple[NDArray[np.float64], NDArray[np.float64]],
    others: tuple[NDArray[np.float64], NDArray[np.float64]],
    reach: float,
) -> NDArray[np.bool_]:
    """For card frames' index `lines` and `others` (`_index_lines`), which pairs could be cards
    of one fan (rows the first, columns the others): index middles within `reach` of the first
    card's widths, turned alike (`FAN_TURN`) and sized alike (`FAN_SIZE`)."""
    (middles, acrosses), (other_middles, other_acrosses) = lines, others
    widths = np.linalg.norm(acrosses, axis=1)[:, None]
    other_widths = np.linalg.norm(other_acrosses, axis=1)[None]
    turns = np.arctan2(acrosses[:, 1], acrosses[:, 0])[:, None]
    other_turns = np.arctan2(other_acrosses[:, 1], other_acrosses[:, 0])[None]
    turn = np.abs(np.angle(np.exp(1j * (other_turns - turns))))
    with np.errstate(all="ignore"):  # a degenerate frame has no width: it is alike no card
        apart = np.linalg.norm(other_middles[None] - middles[:, None], axis=2) / widths
        sizes = np.maximum(widths, other_widths) / np.minimum(widths, other_widths)
        alike: NDArray[np.bool_] = (apart <= reach) & (turn <= FAN_TURN) & (sizes <= FAN_SIZE)
    return alike


def _fan_steps(cards: list[Candidate]) -> list[NDArray[np.float64]]:
    """The card frames `fan_neighbours` steps onto from `cards`: from each two alike and near,
    one step on past the second and half a step on from the first."""
    if len(cards) < 2:
        return []
    frames = _fan_sized(np.stack([card_homography(c.quad) for c in cards]))
    lines = _index_lines(frames)
    first, second = np.nonzero(_fan_alike(lines, lines, FAN_REACH) & ~np.eye(len(cards), dtype=bool))
    if not len(first):
        return []
    try:
        moves = frames[second] @ np.linalg.inv(frames[first])
        steps = np.concatenate([moves @ frames[second], half_move(moves) @ frames[first]])
    except np.linalg.LinAlgError:
        # A frame with no inverse is a reading of no card's shape: there is no fan to step in.
        return []
    return list(steps)


def _off_read(frames: list[NDArray[np.float64]], cards: list[Candidate]) -> list[NDArray[np.float64]]:
    """`frames` less each whose index lies at an index one of `cards` read (within `SAME_INDEX`,
    turned alike), each once (`_distinct_frames`)."""
    if not frames:
        return []
    steps = np.stack(frames)
    step_middles, step_acrosses = _index_lines(steps)
    step_widths = np.linalg.norm(step_acrosses, axis=1)
    ends = [end for c in cards for end in c.ends if end.read]
    read_middles = np.array([end.middle for end in ends]).reshape(-1, 2)
    read_acrosses = np.array([end.across for end in ends]).reshape(-1, 2)
    distance = np.linalg.norm(step_middles[:, None] - read_middles[None], axis=2)
    with np.errstate(all="ignore"):  # a degenerate frame is turned no way: `_distinct_frames` drops it
        alike = (step_acrosses / step_widths[:, None]) @ read_acrosses.T > SAME_WAY_COS
    at_read = ((distance < SAME_INDEX * step_widths[:, None]) & alike).any(axis=1)
    return _distinct_frames(steps[~at_read], step_middles[~at_read], step_acrosses[~at_read])


def _cascade_steps(pyramid: list[NDArray[np.uint8]], cards: list[Candidate]) -> list[NDArray[np.float64]]:
    """The card frames `fan_neighbours` reads about each of `cards` for the cards slid straight
    over or under it, as a run of cards is laid in a row or a column: at each strong straight
    edge (`CASCADE_EDGES`) that crosses the card's width, or its length, within `CASCADE_REACH`
    of its corner, a frame turned as the card is, its corner on that edge (placed between two
    samples by the parabola through the peak); and for a card outlined whole, the same from its
    other end, half a turn round. An edge is strong by the median, along it, of the step in
    grey level across it, sampled `CASCADE_SAMPLES` times a card width on a smoothed pyramid
    level (`CASCADE_LEVEL_WIDTH`): a card's edge runs the whole width, the print on a card does
    not, and the edge of a white card on a white card is faint (`CASCADE_EDGE_SHARE`)."""
    if not cards:
        return []
    upright = np.stack([card_homography(c.quad) for c in cards])
    # A card outlined whole is looked about from both its ends: the top card of a row read at its
    # left end has the cards under it showing their right-hand ends. A lone corner's other end
    # is a guess: looked about from it too, development deals laid straight 9,100,041-140 read
    # 3 cards more of their 4,423, fanned deals 9,000,001-100 none, at twice the time (the fan
    # steps of a fanned deal 73 -> 126 ms, one thread).
    whole = np.array([c.whole for c in cards], bool)
    frames = np.concatenate([upright, upright[whole] @ ROTATE_HALF_TURN])
    step = 1.0 / CASCADE_SAMPLES
    down_reach, across_reach = CASCADE_REACH
    ys = np.arange(-down_reach, down_reach + step / 2, step)
    xs = np.arange(-across_reach, across_reach + step / 2, step)
    down_edges = np.empty((len(frames), len(ys) - 1))
    across_edges = np.empty((len(frames), len(xs) - 1))
    # Each card sampled on the coarsest pyramid level where it is `CASCADE_LEVEL_WIDTH` wide: a
    # level is the photo smoothed, so a thin edge between two samples is not lost between them.
    _, tops = _index_lines(frames)
    with np.errstate(all="ignore"):  # a degenerate frame has no width: it is sampled at full size
        widths = np.nan_to_num(np.linalg.norm(tops, axis=1), nan=1.0, posinf=1.0)
        finest = np.floor(np.log2(np.maximum(widths, 1.0) / CASCADE_LEVEL_WIDTH))
    levels = np.clip(finest, 0, len(pyramid) - 1)
    for level in np.unique(levels).astype(np.int64):
        rows = levels == level
        image = pyramid[level]
        if image.ndim == 3:
            image = cast("NDArray[np.uint8]", cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        framed = on_level(frames[rows], np.full(int(rows.sum()), level))
        # Across the card's width, clear of its corners; down its length, clear of its ends.
        down_grid = sample_card_grid(image, framed, np.linspace(0.08, 0.92, 22), ys)
        across_grid = sample_card_grid(image, framed, xs, np.linspace(0.1, CARD_ASPECT - 0.1, 30))
        down_edges[rows] = np.median(np.abs(np.diff(down_grid, axis=1)), axis=2)
        across_edges[rows] = np.median(np.abs(np.diff(across_grid, axis=2)), axis=1)
    steps: list[NDArray[np.float64]] = []
    for frame, down_edge, across_edge in zip(frames, down_edges, across_edges, strict=True):
        for offset in _strong_edges(ys[:-1] + step / 2, down_edge, (0.0,)):
            steps.append(frame @ _slide(0.0, offset))
        for offset in _strong_edges(xs[:-1] + step / 2, across_edge, (0.0, 1.0)):
            steps.append(frame @ _slide(offset, 0.0))
    return steps


def _strong_edges(at: NDArray[np.float64], edges: NDArray[np.float64], own: tuple[float, ...]) -> list[float]:
    """Where (`at`) the strongest local peaks of `edges` lie, up to `CASCADE_EDGES` on each side
    of 0, none within `CASCADE_OWN_EDGE` of `own` and none weaker than `CASCADE_EDGE_SHARE` of
    the strongest or `CASCADE_MIN_EDGE`."""
    peak = np.zeros(len(edges), bool)
    peak[1:-1] = (edges[1:-1] >= edges[:-2]) & (edges[1:-1] >= edges[2:])
    for edge in own:
        peak &= np.abs(at - edge) > CASCADE_OWN_EDGE
    floor = max(CASCADE_EDGE_SHARE * float(edges.max()), CASCADE_MIN_EDGE)
    strong = [i for i in np.argsort(-edges, kind="stable") if peak[i] and edges[i] >= floor]
    # Each peak placed between samples by the parabola through it and its two neighbours.
    places = at.copy()
    left, middle, right = edges[:-2], edges[1:-1], edges[2:]
    bend = left - 2.0 * middle + right
    with np.errstate(all="ignore"):  # a flat top (no bend) stays on its sample
        shift = np.where(bend < 0, 0.5 * (left - right) / bend, 0.0)
    places[1:-1] += np.clip(shift, -0.5, 0.5) * (at[1] - at[0])
    before = [float(places[i]) for i in strong if at[i] < 0][:CASCADE_EDGES]
    after = [float(places[i]) for i in strong if at[i] > 0][:CASCADE_EDGES]
    return before + after


def _slide(x: float, y: float) -> NDArray[np.float64]:
    """The card frame move sliding a card `x`, `y` card widths (multiply on the right)."""
    return np.array([[1.0, 0.0, x], [0.0, 1.0, y], [0.0, 0.0, 1.0]])


def _fan_sized(frames: NDArray[np.float64]) -> NDArray[np.float64]:
    """A stack of card frames, each scaled about its card's corner to the median card width of
    the frames whose index middles lie within `FAN_LOCAL` of its own, when that is within
    `FAN_RESIZE` times its own width. The cards of one fan are one size, but a lone corner's
    frame guesses its card's size from its print, and a step made from two frames carries
    their errors on: a stepped frame at 0.84 of its card's size and 0.1 card widths off read
    nothing where the card's own frame read it surely."""
    middles, acrosses = _index_lines(frames)
    widths = np.linalg.norm(acrosses, axis=1)
    apart = np.linalg.norm(middles[:, None] - middles[None], axis=2)
    # Each frame is near itself, whatever the others' widths.
    near = (apart < FAN_LOCAL * float(np.median(widths))) | np.eye(len(frames), dtype=bool)
    with np.errstate(all="ignore"):  # a degenerate frame has no width to scale by: it keeps its own
        scale = np.array([np.median(widths[row]) for row in near]) / widths
        scale[~np.isfinite(scale) | (np.abs(np.log(scale)) > math.log(FAN_RESIZE))] = 1.0
    sized = frames.copy()
    sized[:, :, :2] *= scale[:, None, None]
    return sized


def _index_lines(frames: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For a stack of card frames, each index's middle (`INDEX_MIDDLE`) and the image vector of
    one card width along the card's top edge there."""
    x, y = INDEX_MIDDLE
    points = np.array([[x, y, 1.0], [x + 1.0, y, 1.0]])
    projected = frames @ points.T
    with np.errstate(all="ignore"):  # a degenerate frame's points are nowhere
        planar = projected[:, :2] / projected[:, 2:]
    return planar[:, :, 0], planar[:, :, 1] - planar[:, :, 0]


def _distinct_frames(
    frames: NDArray[np.float64], middles: NDArray[np.float64], acrosses: NDArray[np.float64]
) -> list[NDArray[np.float64]]:
    """`frames` less each that lies where one before it does: its index middle, and its top
    edge as a vector a card width long (`middles` and `acrosses`, as `_index_lines` gives them
    for `frames`), within `FAN_SAME_FRAME` card widths of that one's. In a fan of thirteen
    read, most cards are stepped onto from several pairs, a little apart."""
    widths = np.linalg.norm(acrosses, axis=1)
    finite = np.isfinite(middles).all(axis=1) & np.isfinite(acrosses).all(axis=1) & (widths > 0)
    reach = FAN_SAME_FRAME * widths
    # Each frame kept covers the later ones near it, within their own reach.
    covered = ~finite
    distinct: list[int] = []
    for k in range(len(frames)):
        if covered[k]:
            continue
        distinct.append(k)
        with np.errstate(all="ignore"):  # frames not finite are covered already
            near = np.linalg.norm(middles - middles[k], axis=1) < reach
            alike = np.linalg.norm(acrosses - acrosses[k], axis=1) < reach
        covered |= near & alike
    return [frames[k] for k in distinct]


def likeliest_left(candidates: list[Candidate], kept: list[Candidate], wanted: int) -> list[Candidate]:
    """Up to `wanted` more cards for a photo read short of the count it was told to expect, after
    `second_look` (`candidates`: calibrated; `kept`: the cards read and found again): the
    readings no kept card explains (another code, elsewhere), merged as `merge` does down to
    `SHORT_FLOOR`, the likeliest first, each at its own confidence, which asks the player to
    check it."""
    if wanted < 1:
        return []
    # The floor first: `merge` would drop what lies under it, and it saves the card comparisons.
    left = [c for c in candidates if c.confidence >= SHORT_FLOOR and not _explained(c, kept)]
    return merge(left, SHORT_FLOOR)[:wanted]


def past_count(kept: list[Candidate], expect: int) -> list[Candidate]:
    """The cards `merge` kept (surest first) of a photo read past the count it was told to
    `expect`, less those the count makes unlikely: each whose card overlaps a surer one's
    (`PAST_COUNT_OVERLAP`) and that the count (`within_count`, no reading taken as surer than
    1 - `COUNT_DOUBT`) leaves under `MIN_CONFIDENCE`, and each that reads another card at a
    surer one's index by the wider bar (`SAME_INDEX`, not `TWO_READINGS_APART`), the least
    likely first, and no more of them than the photo was read past its count. The others keep
    their readings.

    The closer bar lets `merge` keep neighbours laid tight, and with them, now and then, one
    index read twice: an evaluation show (harsh camera, told five) read a five of hearts at
    0.99 at a surer heart's index (within 0.2 card widths of it, not 0.13), and its queen at
    0.98, so the count alone would have left out the queen. Read past the count, the second
    reading is the likelier extra; read untold, or within the count, both are kept.

    Development photos read one card past their count (5 of 1,190: shows apart and harsh, hands
    held fanned, 12 MP shows) each held one false card, read at 0.84 to 0.97 and the least sure
    of its photo, and each a second, wrong reading of a card read rightly at its other corner
    (clubs courts read again as spades, a nine of hearts as a seven, an eight whose index a
    finger half covers as a nine), its card overlapping the true one's by 0.29 to 0.47 (IoU).
    Weighed by the count, each was under 0.2 likely and is left out: the five photos now read
    exact. A card lying on its own is a card whatever the count: a match's hand photographed
    with the starter beside it, or a show told too few, keeps every card. So does a hand of
    five fanned and read surely, told four: each is 4/5 likely, and the reading cannot tell
    which is extra (taken at their own confidences, 0.99999 beside 0.9999, the count had left
    two of them out)."""
    weighed = within_count([min(c.confidence, 1.0 - COUNT_DOUBT) for c in kept], expect)
    unlikely = [
        i
        for i, candidate in enumerate(kept)
        if (
            weighed[i] < MIN_CONFIDENCE
            and any(quad_iou(k.quad, candidate.quad) >= PAST_COUNT_OVERLAP for k in kept[:i])
        )
        or any(same_card(k, candidate, SAME_INDEX) for k in kept[:i])
    ]
    out = set(sorted(unlikely, key=lambda i: weighed[i])[: len(kept) - expect])
    return [candidate for i, candidate in enumerate(kept) if i not in out]


def within_count(confidences: Sequence[float], most: int) -> list[float]:
    """Each reading's probability of being a real card, given its own (`confidences`, each
    reading's, taken as independent) and that at most `most` of them are: in a photo told its
    count and read past it, a false reading or more, and the count says which are likeliest.
    Six cards read surely, told five, are each 5/6 likely.

    Worked exactly: P(i real and at most `most` real) / P(at most `most` real), each a sum over how
    many of the others are real (the Poisson-binomial distribution, built by convolution, from
    the confidences kept within `_CERTAIN` of 0 and 1 so that certainties do not divide 0 by 0)."""
    clipped = [min(max(float(p), _CERTAIN), 1.0 - _CERTAIN) for p in confidences]
    within = sum(_real_counts(clipped)[: most + 1])
    return [
        p * sum(_real_counts(clipped[:i] + clipped[i + 1 :])[:most]) / within for i, p in enumerate(clipped)
    ]


_CERTAIN = 1e-9
"""How near 0 or 1 `within_count` takes a confidence to be at most."""


def _real_counts(probabilities: Sequence[float]) -> list[float]:
    """The probability that exactly k of some independent events happen, for k = 0 to their
    number, given each one's probability: each a sum of products, never one less the others,
    so that the smallest (every reading near certain, the count one short) keep their digits."""
    counts = [1.0]
    for p in probabilities:
        counts = [a * (1.0 - p) + b * p for a, b in zip([*counts, 0.0], [0.0, *counts], strict=True)]
    return counts


def _explained(candidate: Candidate, kept: list[Candidate]) -> bool:
    """Whether a kept card explains a reading: it names the same code (one deck), or it is the
    same physical card (`same_card`)."""
    return any(k.reading.card == candidate.reading.card or same_card(k, candidate) for k in kept)


def _moved_frames(
    pyramid: list[NDArray[np.uint8]],
    loose: list[Candidate],
    model: IndexModel,
    steps: MoveSteps = SECOND_LOOK_MOVES,
    start: list[tuple[CardReading, NDArray[np.float64]]] | None = None,
) -> list[tuple[CardReading, NDArray[np.float64]]]:
    """Each of the `loose` readings' frames moved as `steps` say (`SECOND_LOOK_MOVES`), a step at
    a time, while its card reads more surely: the surest reading and its frame. `start`: each
    one's surest reading and frame so far (an earlier call's answer); its own by default."""
    if start is None:
        start = [(c.reading, card_homography(c.quad)) for c in loose]
    best = [reading for reading, _ in start]
    frames = [frame for _, frame in start]
    for step in steps:
        moves = [_frame_move(*move) for move in step]
        tried = [frame @ move for frame in frames for move in moves]
        rank, suit = read_frames(pyramid, tried, model)
        for k, frame in enumerate(tried):
            i = k // len(moves)
            reading = fuse([IndexReading(rank[k], suit[k])])
            if reading.card == loose[i].reading.card and reading.confidence > best[i].confidence:
                best[i], frames[i] = reading, frame
    return list(zip(best, frames, strict=True))


def _frame_move(scale: float, x: float, y: float, turn: float) -> NDArray[np.float64]:
    """A card frame's move about the card's corner, in card coordinates (see
    `SECOND_LOOK_MOVES`): multiply a card-to-image homography by it on the right."""
    cos, sin = scale * math.cos(turn), scale * math.sin(turn)
    return np.array([[cos, -sin, x], [sin, cos, y], [0.0, 0.0, 1.0]])


def beyond_sure_cards(proposals: list[Proposal], sure: list[Quad]) -> list[Proposal]:
    """The `proposals` whose index middle (`INDEX_MIDDLE`) does not lie well inside (by more
    than `INSIDE_SURE` card widths) one of the `sure` outlines (`read_at_both_ends`) away from
    its own two indices (`SAME_INDEX`), in their order.

    What the glyph and corner searches find there is print on that card (its pips, its court
    figure): a card read the same at both its index corners is seldom crossed by another, and
    one lying under it is hidden there. The corners found at the card's own indices are kept:
    they read it again, and calibration counts them in its support."""
    if not proposals or not sure:
        return proposals
    frames = np.stack([p.homography for p in proposals])
    with np.errstate(all="ignore"):  # a degenerate frame's middle is not inside anything
        projected = frames @ np.array([INDEX_MIDDLE[0], INDEX_MIDDLE[1], 1.0])
        middles = projected[:, :2] / projected[:, 2:]
    m = INSIDE_SURE
    inner = np.array([[[m, m], [1.0 - m, m], [1.0 - m, CARD_ASPECT - m], [m, CARD_ASPECT - m]]])
    inside = np.zeros(len(proposals), bool)
    own = np.array([[INDEX_MIDDLE, (1.0 - INDEX_MIDDLE[0], CARD_ASPECT - INDEX_MIDDLE[1])]])
    for quad in sure:
        homography = card_homography(quad)
        corners = cv2.perspectiveTransform(inner, homography)[0]
        sides = np.roll(corners, -1, axis=0) - corners
        to_middle = middles[:, None, :] - corners[None]
        turn = sides[None, :, 0] * to_middle[..., 1] - sides[None, :, 1] * to_middle[..., 0]
        within = (turn > 0).all(axis=1) | (turn < 0).all(axis=1)
        ends = cv2.perspectiveTransform(own, homography)[0]
        apart = np.linalg.norm(middles[:, None, :] - ends[None], axis=2).min(axis=1)
        inside |= within & (apart > SAME_INDEX * card_width_px(homography))
    return [proposal for proposal, within in zip(proposals, inside, strict=True) if not within]


def edge_outlines(
    prepared: Prepared,
    pyramid: list[NDArray[np.uint8]],
    model: IndexModel,
    beside: _Beside,
    known: FrameReadings | None = None,
) -> tuple[list[Candidate], list[Proposal], list[Blob], Future[_Masked] | _Later[_Masked]]:
    """The whole outlines found in the edges alone, read: where a reading told how many cards
    to expect looks first. Of the card masks (`vision.detect.card_masks`) only the regions the
    edges enclose, and the edges' closed loops, which share the photo's edge trace (found on
    `beside`'s second thread). A card's outline there follows its edge, where the table turns
    to paper; the bright-paper masks put it a pixel or two inside, in the edge's fall-off, and
    the starter's gap (`vision.starter`), in card widths, is sensitive to that. The other
    masks, the broken outlines and the lone corners are wanted only when this look does not
    read every expected card surely, and the full reading then finds the outlines it finds
    without `expect` (these blobs are not found twice). The other masks' blobs are looked for
    on the second thread while this look's outlines are read (`others`), and stop when the
    reading leaves `beside` without them; on one thread, only when asked for.

    Returns the candidates, the outline proposals they read, the blobs of the enclosed regions
    then of the loops, and `others`; the frames read are added to `known` (see
    `read_candidates`)."""
    looped = beside.run(edge_loop_blobs, prepared)
    edged = mask_blobs(prepared, [prepared.enclosed]) + looped.result()
    others = beside.run(_other_masks, prepared, beside.stop)
    glance = outline_proposals(unique_quads(paper_outlines(prepared, edged)))
    return read_candidates(pyramid, glance, model, known), glance, edged, others


_Masked = tuple[NDArray[np.uint8], NDArray[np.uint8], list[Blob]]
"""The paper and notched masks (`vision.detect.paper_and_notches`) and the blobs of the card
masks other than the edges' (see `_other_masks`)."""


def _other_masks(prepared: Prepared, stop: Event) -> _Masked:
    """The card masks' paper and notched masks and the blobs of every card mask but the edges'
    enclosed regions (the last), as the reading without `expect` finds them; raises `Stopped`
    at its next step once `stop` is set (see `vision.detect.stop_if`)."""
    masks = card_masks(prepared)
    stop_if(stop)
    paper, notched = paper_and_notches(masks)
    return paper, notched, mask_blobs(prepared, masks[:-1], stop)


def _count_proposals(laps: Laps | None, outlines: list[Proposal], lone: list[Proposal]) -> None:
    """Note on the bench's `laps` how many outline and lone proposals were read."""
    if laps is not None:
        laps.count("outline", len(outlines))
        laps.count("lone", len(lone))


class _Later(Generic[_T]):
    """A stage run on the calling thread when its result is first asked for."""

    def __init__(self, function: Callable[..., _T], args: tuple[object, ...]) -> None:
        self._function, self._args = function, args
        self._value: list[_T] = []

    def result(self) -> _T:
        if not self._value:
            self._value.append(self._function(*self._args))
        return self._value[0]


class _Beside:
    """Runs stages beside the calling thread: on a second thread when `threads` is 2 or more; on
    one, each runs on the calling thread when its result is first asked for, where a reading on
    one thread has always run it (so the bench's stage laps keep their meaning). A context
    manager: leaving it sets `stop` and does not wait. A stage given `stop` stops at its next
    step (`vision.detect.stop_if`), when nothing asked for its result: the reading found what it
    looked for without it, and its answer does not wait for that step to end. Every other stage
    run beside is one whose result the reading asks for before it returns; a reading that raises
    leaves what still runs beside to end on its own."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="reading") if threads > 1 else None
        self.stop = Event()

    def __enter__(self) -> _Beside:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def run(self, function: Callable[..., _T], *args: object) -> Future[_T] | _Later[_T]:
        """`function(*args)`, started on the second thread, or to be run when asked for."""
        if self._pool is not None:
            return self._pool.submit(function, *args)
        return _Later(function, args)

    def shared(self, function: Callable[..., _T], *args: object) -> _Helped[_T] | _Later[_T]:
        """`function(*args, share)`, as `run` runs it, given a `Share` for the parts of it that
        the calling thread may take once it asks for the result (`Share.help`): the stage run
        beside the reading and the reading's own work are rarely of a length, and the thread
        that ends first would otherwise wait for the other."""
        if self._pool is None:
            return _Later(function, (*args, None))
        share = Share()
        return _Helped(self._pool.submit(_closing, share, function, (*args, share)), share)


def _closing(share: Share, function: Callable[..., _T], args: tuple[object, ...]) -> _T:
    """`function(*args)`, its `share` closed once it returns or raises."""
    try:
        return function(*args)
    finally:
        share.close()


class _Helped(Generic[_T]):
    """A stage run on the second thread with a `Share`: its result is asked for by helping it."""

    def __init__(self, future: Future[_T], share: Share) -> None:
        self._future, self._share = future, share

    def result(self) -> _T:
        self._share.help()
        return self._future.result()


def photo_warnings(gray: NDArray[np.uint8]) -> list[str]:
    """Problems with the photo itself (its grey image), in a player's words."""
    warnings = []
    if float(gray.mean()) < DARK_MEAN:
        warnings.append("image too dark")
    # The Laplacian of whole grey levels is whole, within int16: its variance is the same to the
    # bit as that of OpenCV's float64 Laplacian (the sum for the mean is exact either way), and
    # a quarter of the memory to write.
    elif float(cv2.Laplacian(gray, cv2.CV_16S).var(dtype=np.float64)) < BLUR_VARIANCE:
        warnings.append("image too blurry")
    return warnings


def read_frames(
    pyramid: list[NDArray[np.uint8]], frames: list[NDArray[np.float64]], model: IndexModel
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The rank and suit probabilities of the index under each card frame (at least one),
    `READ_AT_ONCE` patches at a time."""
    readings = [
        model.read_maps(ink_maps(read_patches(pyramid, frames[i : i + READ_AT_ONCE])))
        for i in range(0, len(frames), READ_AT_ONCE)
    ]
    return np.concatenate([rank for rank, _ in readings]), np.concatenate([suit for _, suit in readings])


def read_candidates(
    pyramid: list[NDArray[np.uint8]],
    proposals: list[Proposal],
    model: IndexModel,
    known: FrameReadings | None = None,
) -> list[Candidate]:
    """Read every proposal; fuse the two corners of each outline. A corner that is no card
    (presence under `MIN_PRESENCE`, most of a photo's thousand lone proposals) is left out
    here, where it costs an array lookup: `calibrate` and `merge` would pass it over anyway.

    `known`: the rank and suit probabilities of frames already read in this photo, by their
    homography's bytes; only the others are read, and added. Each frame is read on its own
    (`READ_AT_ONCE`), so the readings are the same: the edge outlines read first, when they
    fall short, are not read again with the other masks' (`find_candidates`)."""
    if not proposals:
        return []
    frames = [p.homography for p in proposals]
    if known is None:
        rank, suit = read_frames(pyramid, frames, model)
    else:
        keys = [frame_key(frame) for frame in frames]
        missing = [frame for frame, key in zip(frames, keys, strict=True) if key not in known]
        _read_into(pyramid, missing, model, known)
        rank = np.stack([known[key][0] for key in keys])
        suit = np.stack([known[key][1] for key in keys])
    # A corner's presence as `fuse` works it out for that corner alone.
    alone = 1.0 - (1.0 - index_presence(rank, suit))
    by_outline: dict[int, list[tuple[Proposal, IndexReading]]] = {}
    candidates = []
    for i, proposal in enumerate(proposals):
        if proposal.outline is not None:
            by_outline.setdefault(proposal.outline, []).append((proposal, IndexReading(rank[i], suit[i])))
        elif alone[i] >= MIN_PRESENCE:
            reading = fuse([IndexReading(rank[i], suit[i])])
            candidates.append(Candidate(reading, proposal.quad, whole=False, stage=proposal.stage))
    for pairs in by_outline.values():
        fused = fuse([reading for _, reading in pairs])
        # Report corners starting at the index corner that read best.
        best = max(pairs, key=lambda pair: pair[1].presence)[0]
        candidates.append(Candidate(fused, best.quad, whole=True, stage=best.stage))
        # Each corner alone too: an outline of a partly covered card is right at one end only,
        # and the wrong end must not drag down what the right one reads.
        candidates.extend(
            Candidate(fuse([reading]), proposal.quad, whole=False, stage=proposal.stage)
            for proposal, reading in pairs
        )
    return candidates


def _outlines_suffice(candidates: list[Candidate], model: IndexModel, expect: int) -> bool:
    """Whether the readings of the whole outlines alone (calibrated and merged as the full
    reading is) name `expect` distinct cards, every one surely (`UNSURE_BELOW`)."""
    return _all_read_surely(merged_cards(candidates, model)[1], expect)


def calibrate(candidates: list[Candidate], model: IndexModel) -> list[Candidate]:
    """Attach the calibrated confidence to each candidate (see `IndexModel.detection_confidences`).

    Besides its own reading, a candidate is judged by how many proposals read the same card
    and by its size next to the cards surely outlined in the same photo: the cards on a table
    are one size, give or take the camera's tilt, so an "index" read at half or twice that
    size is more likely print on a card's picture or on paper than a card.
    """
    if not candidates:
        return []
    votes: dict[str, int] = {}
    for c in candidates:
        if c.reading.presence >= MIN_PRESENCE and c.reading.confidence >= SUPPORT_CONFIDENCE:
            votes[c.reading.card] = votes.get(c.reading.card, 0) + 1
    support = np.array([max(1, votes.get(c.reading.card, 0)) for c in candidates], np.float64)
    whole = np.array([c.whole for c in candidates], np.float64)
    raw = np.array([c.reading.confidence for c in candidates], np.float64)
    sizes = np.array([_card_size(c.quad) for c in candidates])
    sure = sizes[(whole > 0) & (raw >= SURE_OUTLINE)]
    offsets = np.zeros(len(candidates))
    if len(sure):
        reference = float(np.median(sure))
        # An empty quad has no size to compare (offset 0), as when no outline was sure.
        shown = sizes > 0
        offsets[shown] = np.maximum(0.0, np.abs(np.log(sizes[shown] / reference)) - SIZE_SLACK)
    confidences = model.detection_confidences(raw, whole, support, offsets)
    return [
        replace(c, confidence=float(p), support=int(n), size_offset=float(o))
        for c, p, n, o in zip(candidates, confidences, support, offsets, strict=True)
    ]


def _card_size(quad: Quad) -> float:
    """A card's size in pixels whichever way it is turned: the square root of its area."""
    return math.sqrt(quad_area(quad))


def merge(candidates: list[Candidate], minimum: float | None = None) -> list[Candidate]:
    """Keep the best reading of each physical card, and each card code once (one deck); a card
    that another reading of it names otherwise is kept less surely (`rivalled`)."""
    floor = MIN_CONFIDENCE if minimum is None else minimum
    sure = [c for c in candidates if c.reading.presence >= MIN_PRESENCE and c.confidence >= floor]
    ranked = sorted(sure, key=lambda c: (-c.confidence, not c.whole))
    kept: list[Candidate] = []
    rivals: list[tuple[int, Candidate]] = []
    for candidate in ranked:
        same = [i for i, k in enumerate(kept) if k.reading.card == candidate.reading.card]
        if same:
            # A lone corner only estimates the card's far corners; an outline of the same
            # card, even a less confident one, knows them.
            i = same[0]
            if candidate.whole and not kept[i].whole and quad_iou(kept[i].quad, candidate.quad) > OUTLINE_IOU:
                kept[i] = replace(kept[i], quad=candidate.quad, whole=True)
            continue
        twin = next((i for i, k in enumerate(kept) if same_card(k, candidate)), None)
        if twin is not None:
            rivals.append((twin, candidate))
            continue
        kept.append(candidate)
    return rivalled(kept, rivals, floor)


def rivalled(kept: list[Candidate], rivals: list[tuple[int, Candidate]], floor: float) -> list[Candidate]:
    """`kept`, each card that a rival reading of the same physical card names otherwise (`rivals`:
    the kept card's index and the rival, less sure than it, as `merge` ranks them) given the
    confidence the two readings leave it: k(1 - r) / (k(1 - r) + r(1 - k)), the odds of two
    opinions of one thing that cannot both be right (at least `floor`: still the likeliest
    reading of a card that is there). The strongest rival counts, and only one whose card no
    other card kept names: a card kept elsewhere is a neighbour, not a rival.

    A card read surely at one frame and as another card at a frame a little off is in doubt, and
    the player is asked to check it. On development photos read untold (550 harsh shows from
    8,200,001, 100 shows from 5,600,001, 100 with the starter apart from 8,300,001, 60 hands
    held fanned from 6,100,001 and 10 deals from 9,000,001) rivals were read for about one card
    in nine, nearly all of them under `UNSURE_BELOW` and beside a card read surely and rightly;
    with this, one false card read surely (8,200,240's 5H, read as 6H at 0.992 and as 5H at
    0.977 from a second outline) is asked about, and no right card is.

    Two cards kept that may be one read at both ends (`_ends_alike`: their estimated cards
    overlap too little for `same_card`, as a card lying head to tail over another's end does)
    are both kept, each with the other as its rival: when they are one card, one of them is
    wrong, and a card read much more surely than the other stays sure. On development photos read untold
    (400 shows from 5,600,001, 300 harsh ones from 8,200,001, 120 held hands from 6,100,001, 10
    deals fanned, 12 laid tight and 12 straight) such pairs were kept in five photos: the less
    sure card false in three (sure in one: 5,600,389's 7H, 0.995, a ten of hearts' far index
    misread), right in two (5,600,128's QH lying head to tail over a 6H, 6,100,099's TD), which
    the player is now asked to check; in no deal. (At first only the less sure card had a
    rival; since both have, 400 harsh shows from 8,700,001 read one false card surely fewer:
    8,700,208's QS, 0.955, the other end of a queen of clubs read 0.935; no right card became
    unsure in 850 development photos, and 5,600,128's 6H is 0.983.)

    So are two cards each read from one index alone that may be one card read at both ends though
    their estimated cards put neither far index near the other reading (`_head_to_tail`). On
    development photos read untold (300 shows from 5,600,001, 360 harsh ones from 8,200,001 and
    8,700,001, 100 with the starter apart from 8,300,001, 200 held hands from 6,100,001, 10 deals
    fanned, 12 laid tight and 12 straight) such pairs were kept in three photos, the less sure
    card false in all three: 8,700,058's QS (0.965, a ten of spades' other index, its 10 half
    under another card), and two already unsure (8,200,018's KS, 8,200,243's KD); with each
    index allowed `ON_CARD_SLACK` off the other's card, two more, both false (8,700,208's QS
    and 5,600,123's unsure 8D). And so are a card outlined whole and one read at one index alone
    at a corner of it where decks of four indices print one (`_corner_index`): on 400 harsh
    development shows from 8,700,001, 100 held hands and 100 shows read before and after, one
    false card read surely fewer (8,700,222's AD, 0.954 → 0.70), nothing else changed."""
    names = {k.reading.card for k in kept}
    strongest: dict[int, float] = {}
    for i, rival in rivals:
        if rival.reading.card not in names:
            strongest[i] = max(strongest.get(i, 0.0), rival.confidence)
    for (i, a), (j, b) in itertools.combinations(enumerate(kept), 2):
        if _read_twice(a, b):
            strongest[i] = max(strongest.get(i, 0.0), b.confidence)
            strongest[j] = max(strongest.get(j, 0.0), a.confidence)
    for i, r in strongest.items():
        k = kept[i].confidence
        left = k * (1.0 - r) / max(k * (1.0 - r) + r * (1.0 - k), _CERTAIN)
        kept[i] = replace(kept[i], confidence=max(floor, min(k, left)))
    return kept


def same_card(a: Candidate, b: Candidate, apart: float = TWO_READINGS_APART) -> bool:
    """Whether two readings are of one physical card: two outlines overlapping, or an index
    corner or index of one where that of the other is, turned the same way (two cards laid
    corner to corner, turned apart, are two cards).

    Fanned cards overlap most of their area, so overlap alone cannot tell neighbours apart,
    but their indices are a fraction of a card width apart at least (`TWO_READINGS_APART`: the
    two readings name different cards, as `merge` and `_explained` keep a code once before they
    ask). Indices are compared by their middles as well as by the card corners: two frames read
    at different card sizes put the corner in different places around one and the same index.
    A card read at both ends from two lone corners is one card too: each reading's estimated
    far index, read the other way up, is where the other reading is (within the estimate's
    slack). One estimate landing on another card's index is not enough: in a fan, a card's
    index often lies where the card on top of it would have its far end if it were a little
    larger. It is enough when,
    besides, the two estimated cards are mostly one (`SAME_CARD_IOU`) and the two readings
    share a rank or a suit, as a card's two ends misread one way or the other do (a court
    card's small club read as a spade at one end); the other estimate may then be far off, as
    one from a corner read at the wrong size is.
    """
    width = _judging_width(a, b)
    if _boxes_apart(a, b, max(apart, FAR_INDEX) * width):
        return False  # the cards do not overlap, and every point compared below lies on its own
    if a.whole and b.whole and quad_iou(a.quad, b.quad) > SAME_CARD_IOU:
        return True
    corner_pairs = itertools.product(_index_corners(a), _index_corners(b))
    if any(
        float(np.linalg.norm(p - q)) < apart * width and _turned_alike(u, v)
        for (p, u), (q, v) in corner_pairs
    ):
        return True
    pairs = itertools.product(a.ends, b.ends)
    if any(end_a.read and end_b.read and _same_index(end_a, end_b, width, apart) for end_a, end_b in pairs):
        return True
    # Read at opposite ends: each reading's far index where the other one's index is. (The
    # same ends both read were compared above.)
    if _same_index(a.ends[0], b.ends[1], width, apart) and _same_index(a.ends[1], b.ends[0], width, apart):
        return True
    return quad_iou(a.quad, b.quad) > SAME_CARD_IOU and _ends_alike(a, b, width, apart)


def _ends_alike(
    a: Candidate, b: Candidate, width: float | None = None, apart: float = TWO_READINGS_APART
) -> bool:
    """Whether two readings that share a rank or a suit could be one card read at its two ends:
    one's index where the other's estimated far index is, turned the same way (`_same_index`),
    `width` apart (`_judging_width`'s, worked out only for two such readings when not given)."""
    if not _alike_cards(a.reading.card, b.reading.card):
        return False
    width = _judging_width(a, b) if width is None else width
    return any(
        near.read != far.read and _same_index(near, far, width, apart)
        for near, far in ((a.ends[0], b.ends[1]), (a.ends[1], b.ends[0]))
    )


def _read_twice(a: Candidate, b: Candidate) -> bool:
    """Whether two cards kept, sharing a rank or a suit, may be one card read twice, each then the
    other's rival (`rivalled`): read at its two ends (`_ends_alike`, `_head_to_tail`), or at an
    index that decks of four indices print (`_corner_index`). The rank and suit are compared and
    the judging width worked out once for the three."""
    if not _alike_cards(a.reading.card, b.reading.card):
        return False
    width = _judging_width(a, b)
    return _ends_alike(a, b, width) or _head_to_tail(a, b, width) or _corner_index(a, b, width)


def _corner_index(a: Candidate, b: Candidate, width: float) -> bool:
    """Whether one of two readings that share a rank or a suit, read at one index alone, could be
    the card the other outlines whole read again at an index that decks printed with four indices
    have: its index corner lies within `FAR_INDEX` card widths (`width`, `_judging_width`'s) of
    one of the two corners where a deck of two indices has none, and its index lies on that card
    (`ON_CARD_SLACK`).

    On 884 development photos read untold, one such pair was kept: 8,700,222's AD (0.954), the
    third index of a four of diamonds whose face (procedural style 36) prints one in every corner,
    0.16 of a card width from that corner. A card lying on the outlined one with its index corner
    there would make such a pair too; none was seen."""
    if a.whole == b.whole:
        return False
    whole, lone = (a, b) if a.whole else (b, a)
    if not _on_card(lone.ends[0].middle, whole.quad, ON_CARD_SLACK * width):
        return False
    return any(float(np.linalg.norm(lone.quad[0] - whole.quad[k])) < FAR_INDEX * width for k in (1, 3))


def _head_to_tail(a: Candidate, b: Candidate, width: float) -> bool:
    """Whether two readings that share a rank or a suit, each read at one index alone (neither a
    whole outline), could be one card read at its two ends: read turned opposite ways
    (`SAME_WAY_COS`), and each index on the card the other reading estimates (`ON_CARD_SLACK` of
    `width`, `_judging_width`'s).

    A lone reading estimates its card from its index's size and frame, and on development photos
    a card's far index lay 0.65-1.06 of the narrower card's width from where such an estimate put
    it (8,700,058, 6,100,147), beyond the `FAR_INDEX` that `_ends_alike` allows. Two cards lying
    head to tail side by side, as shows often have them, each have the other's index just off
    their own card (up to half a width off on development shows): only a reading on the other's
    card counts."""
    if a.whole or b.whole or float(a.ends[0].across @ b.ends[0].across) > -SAME_WAY_COS:
        return False
    slack = ON_CARD_SLACK * width
    return _on_card(a.ends[0].middle, b.quad, slack) and _on_card(b.ends[0].middle, a.quad, slack)


def _on_card(point: NDArray[np.float64], quad: Quad, slack: float) -> bool:
    """Whether `point` lies on the card `quad` outlines, or within `slack` pixels of it."""
    outline = np.asarray(quad, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(outline, (float(point[0]), float(point[1])), True) >= -slack


def _boxes_apart(a: Candidate, b: Candidate, reach: float) -> bool:
    """Whether two readings' cards (`Candidate.box`) lie further apart than `reach` pixels
    along either axis, so that no point of one lies within `reach` of a point of the other.
    A bridge deal's fifty cards make thousands of pairs to compare, nearly all of them apart;
    the margin keeps a distance worked out otherwise on the safe side of the bound."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.box, b.box
    bound = reach * (1.0 + 1e-9) + 1e-9
    return max(ax0 - bx1, bx0 - ax1, ay0 - by1, by0 - ay1) > bound


def _judging_width(a: Candidate, b: Candidate) -> float:
    """The card width `same_card` measures two readings' distances in: the narrower one's, so
    that tight neighbours stay apart; but a reading at a size the photo's cards do not have
    (`Candidate.size_offset`) is measured at the width of the one that has it, the photo's own
    card size."""
    wide_a, wide_b = a.top_width, b.top_width
    if (a.size_offset > 0.0) != (b.size_offset > 0.0):
        return wide_b if a.size_offset > 0.0 else wide_a
    return min(wide_a, wide_b)


def _alike_cards(a: str, b: str) -> bool:
    """Whether two card codes share their rank or their suit."""
    (rank_a, suit_a), (rank_b, suit_b) = split_code(a), split_code(b)
    return rank_a == rank_b or suit_a == suit_b


def _index_corners(candidate: Candidate) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """The index corners a reading read (both ends of an outline, else the one), each with the
    direction its index is read in (`IndexEnd.across`)."""
    corners = [(candidate.quad[0], candidate.ends[0].across)]
    if candidate.whole:
        corners.append((candidate.quad[2], candidate.ends[1].across))
    return corners


def _same_index(a: IndexEnd, b: IndexEnd, width: float, apart: float) -> bool:
    """Whether two index ends (of cards `width` wide) of readings naming different cards agree:
    within `apart` card widths when both were read, `FAR_INDEX` when one is an estimate; two
    estimates say nothing either way."""
    if not (a.read or b.read):
        return True
    slack = apart if a.read and b.read else FAR_INDEX
    return float(np.linalg.norm(a.middle - b.middle)) < slack * width and _turned_alike(a.across, b.across)


def _turned_alike(u: NDArray[np.float64], v: NDArray[np.float64]) -> bool:
    """Whether two indices, read along unit vectors `u` and `v`, are turned the same way."""
    return float(u @ v) > SAME_WAY_COS


@dataclass(frozen=True)
class IndexEnd:
    """Where a card's index is, or would be, according to one reading."""

    middle: NDArray[np.float64]
    """Middle of the index (rank over suit) in image pixels."""
    across: NDArray[np.float64]
    """Unit vector along the card's top edge as that index is read."""
    read: bool
    """Whether this index was read (False for the far end of a lone corner's estimated card)."""


def index_ends(candidate: Candidate) -> list[IndexEnd]:
    """Both index ends of a reading's card: read ones, and the estimated far end of a lone corner."""
    homography = card_homography(candidate.quad)
    ends = []
    for h, read in ((homography, True), (homography @ ROTATE_HALF_TURN, candidate.whole)):
        middle, beside = cv2.perspectiveTransform(np.array([[INDEX_MIDDLE, (1.0, INDEX_MIDDLE[1])]]), h)[0]
        across = beside - middle
        ends.append(IndexEnd(middle, across / max(float(np.linalg.norm(across)), 1e-9), read))
    return ends
