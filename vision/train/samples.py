"""Training samples, generated here and nowhere else.

Each single-card sample is a small synthetic scene (one card from a rendered SVG deck or a
procedural deck, on a synthetic table, often partly covered by a neighbouring card or an
object, seen through `synth.apply_camera`), read back through the same `geometry.read_patch`
the recogniser uses, from a card outline jittered the way a real outline finder misses. Each
scene gives its two index corners (labelled with the card, or "no index" when covered) and a
few patches that must read as "no index": the other two corners, the middle of the card,
outlines shifted off the corner, bare table. Mined samples are whole table photos read
through the recogniser's own proposal stages (`vision.detect`), each proposal labelled from
the generator's truth.

`generate` makes them in a pool of workers, deterministically per seed; `cached` keeps a
generated set on disk so that retraining one network does not render them again.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import CARD_CODES, split_code
from vision.classify import NONE_RANK, NONE_SUIT, features_of_maps, ink_maps
from vision.detect import (
    card_masks,
    corner_proposals,
    find_blobs,
    glyph_proposals,
    outline_proposals,
    paper_and_notches,
    prepare,
    segment_proposals,
    unique_quads,
)
from vision.geometry import (
    CARD_ASPECT,
    INDEX_BOX_HEIGHT,
    INDEX_BOX_WIDTH,
    ROTATE_HALF_TURN,
    build_pyramid,
    card_homography,
    quarter_turn,
    read_patch,
    read_patches,
)
from vision.synth import (
    CARD_MM,
    INDEX_REGION,
    PAPER_CHANCE,
    TIGHT_STRIP,
    Deck,
    FaceLibrary,
    PlacedCard,
    SyntheticPhoto,
    add_clutter,
    add_papers,
    apply_camera,
    face_quad,
    index_extent,
    jpeg,
    make_table,
    paste_card,
    project_tilted,
    render_held_hand,
    render_show,
    render_table,
    visible_share,
)
from vision.train.pools import fork_pool, worker_library

TRAIN_SEED = 1_000_003
"""Seed of the committed model's run: scenes, deck styles, initial weights, batch order."""

DEFAULT_SCENES = 20_000
"""Single-card scenes per run (each yields about four patches)."""

DEFAULT_MINED = 5_000
"""Table photos per run read through the recogniser's own proposals (about 20 patches each)."""

DEFAULT_HELD = 0
"""Hands held fanned in the fingers (`synth.render_held_hand`) read through the recogniser like
the mined table photos, for the tight fans and the fingers over the cards that tables rarely
show (`--held N`). None in the committed model: trained with 1,000 (2026-12-02), it read
generated held hands and the bridge deals a little better but took an ace of spades of
edje_tfod for a club, a false card where the model without them has none."""

TIGHT_NEIGHBOURS = 0.0
"""Share of single-card scenes whose neighbour is laid tight, as bridge players lay a deal
(`_tight_move`; `--tight` of `python -m vision.train`). None in the committed model's
data: see vision/README.md, "Neighbours laid tight in training"."""

SAMPLE_KINDS = ("scene", "mined", "held")
"""What `generate` makes: single-card scenes, proposals mined from table photos, and proposals
mined from held hands."""


MIN_CARD_PX, MAX_CARD_PX = 30.0, 260.0
"""Range of card widths in a scene, in pixels: from a card far away in a small photo (the
smallest whose index is still a few pixels tall) up to where the pyramid takes over."""

VISIBLE_INDEX = 0.9
HIDDEN_INDEX = 0.5
"""An index corner counts as showing its card when this share of its region is uncovered, and
as "no index" below `HIDDEN_INDEX`; corners in between are ambiguous and not used."""

OUTLINE_JITTER = (0.006, 0.012, 0.025)
"""Standard deviations (card widths) of corner errors drawn for outlines: good, typical and poor
fits of a real outline finder."""

ZOOMED_IN = (0.5, 0.7)
"""Card-size factors of negative frames read at too small a size: the index appears 1.4-2
times too big and cut off ("10" cut to "1" must not read as anything)."""

_HALF_TURN = ROTATE_HALF_TURN
_TOP_RIGHT_FRAME = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
"""Card frame whose origin is the top-right corner, turned a quarter: what a reader sees at a
corner that carries no index when it mistakes the card's orientation."""


@dataclass(frozen=True)
class SampleSet:
    """Patches as feature rows and as ink maps, with rank and suit labels (NONE_RANK /
    NONE_SUIT for "no index")."""

    features: NDArray[np.float32]
    ranks: NDArray[np.int64]
    suits: NDArray[np.int64]
    maps: NDArray[np.uint8]
    """The patches' `ink_maps` in 256 levels (0-255 for 0-1), a third of the memory of floats."""

    @staticmethod
    def concat(parts: Sequence[SampleSet]) -> SampleSet:
        """Join several sets."""
        return SampleSet(
            np.concatenate([p.features for p in parts]),
            np.concatenate([p.ranks for p in parts]),
            np.concatenate([p.suits for p in parts]),
            np.concatenate([p.maps for p in parts]),
        )

    def save(self, path: Path) -> None:
        """Write the set as an uncompressed .npz (see `cached`)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, features=self.features, ranks=self.ranks, suits=self.suits, maps=self.maps)

    @staticmethod
    def load(path: Path) -> SampleSet:
        """Read a set written by `save`."""
        with np.load(path) as data:
            return SampleSet(data["features"], data["ranks"], data["suits"], data["maps"])


def _translate(dx: float, dy: float) -> NDArray[np.float64]:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def scene_samples(
    rng: random.Random, library: FaceLibrary, tight: float = TIGHT_NEIGHBOURS
) -> list[tuple[NDArray[np.uint8], int, int]]:
    """One synthetic scene's labelled patches: (BGR patch, rank label, suit label).

    With `tight` above nought, that share of scenes lay the neighbouring card tight beside or
    below the index (`_tight_move`), and every scene's index corners are labelled by how
    much of the deck's own index shows (`synth.index_extent`) rather than of `INDEX_REGION`,
    which holds the largest index of every deck: a small index whole beside a tight edge shows
    its card."""
    deck = library.deck(rng)
    code = rng.choice(CARD_CODES)
    face = deck(code)
    width = math.exp(rng.uniform(math.log(MIN_CARD_PX), math.log(MAX_CARD_PX)))
    aspect = face.shape[0] / face.shape[1] * rng.uniform(0.93, 1.07)
    cw = CARD_MM[0]
    corners = np.array([[0, 0], [cw, 0], [cw, cw * aspect], [0, cw * aspect]], np.float64)
    seen = project_tilted(rng, corners)
    seen *= width / float(np.linalg.norm(seen[1] - seen[0]))
    margin = 0.7 * width
    seen += margin - seen.min(axis=0)
    size = (int(np.ptp(seen[:, 0]) + 2 * margin), int(np.ptp(seen[:, 1]) + 2 * margin))
    quad = seen.astype(np.float32)

    table = make_table(rng, size)
    if rng.random() < 0.3:
        add_clutter(rng, table, rng.randint(1, 3))
    if rng.random() < PAPER_CHANCE:
        add_papers(rng, table, None, 1)
    occupancy = np.full((size[1], size[0]), -1, np.int16)
    paste_card(table, occupancy, face, quad, 0, rng)
    to_image = np.asarray(cv2.getPerspectiveTransform(face_quad(face), quad), np.float64)
    extent = _deck_extent(deck) if tight > 0 else INDEX_REGION
    if tight > 0 and rng.random() < tight:
        other = deck(rng.choice(CARD_CODES))
        _lay_neighbour(rng, table, occupancy, other, face, to_image, _tight_move(rng, face, extent))
    elif rng.random() < 0.4:
        other = deck(rng.choice(CARD_CODES))
        _lay_neighbour(rng, table, occupancy, other, face, to_image, _overlap_move(rng, face))
    if rng.random() < 0.12:
        _cover_with_object(rng, table, occupancy, quad)
    image = jpeg(apply_camera(table, rng, harsh=True), rng.randint(40, 95))
    pyramid = build_pyramid(image)

    jitter = rng.choice(OUTLINE_JITTER) * width
    noisy = quad.astype(np.float64) + np.array(
        [[rng.gauss(0, jitter), rng.gauss(0, jitter)] for _ in range(4)]
    )
    homography = card_homography(noisy)
    rank, suit = split_code(code)
    samples: list[tuple[NDArray[np.uint8], int, int]] = []
    fw, fh = face.shape[1], face.shape[0]
    rw, rh = extent[0] * fw, extent[1] * fw
    boxes = (
        np.array([[[0, 0], [rw, 0], [rw, rh], [0, rh]]], np.float32),
        np.array([[[fw - rw, fh - rh], [fw, fh - rh], [fw, fh], [fw - rw, fh]]], np.float32),
    )
    for frame, box in zip((np.eye(3), _HALF_TURN), boxes, strict=True):
        share = visible_share(occupancy, cv2.perspectiveTransform(box, to_image)[0], 0)
        patch = read_patch(pyramid, homography @ frame)
        if share >= VISIBLE_INDEX:
            samples.append((patch, rank, suit))
        elif share <= HIDDEN_INDEX:
            samples.append((patch, NONE_RANK, NONE_SUIT))
    for _ in range(2):
        samples.append((read_patch(pyramid, homography @ _negative_frame(rng)), NONE_RANK, NONE_SUIT))
    if rng.random() < 0.3:
        samples.append((read_patch(pyramid, _background_frame(rng, size, width)), NONE_RANK, NONE_SUIT))
    return samples


def _negative_frame(rng: random.Random) -> NDArray[np.float64]:
    """A card-frame map whose top-left patch shows no upright index."""
    kind = rng.random()
    if kind < 0.25:
        frame = _TOP_RIGHT_FRAME
        return frame if rng.random() < 0.5 else _HALF_TURN @ frame
    if kind < 0.4:  # a corner read at far too small a card size: the index is cut, magnified
        zoom = rng.uniform(*ZOOMED_IN)
        frame = np.diag([zoom, zoom, 1.0])
        return frame if rng.random() < 0.5 else _HALF_TURN @ frame
    if kind < 0.6:
        return _translate(rng.uniform(0.25, 0.72), rng.uniform(0.3, CARD_ASPECT - 0.55))
    if kind < 0.85:  # an outline found well outside the card: the index sits off the patch
        dx, dy = rng.choice(
            [
                (rng.uniform(-0.35, -0.17), rng.uniform(-0.3, 0.05)),
                (rng.uniform(-0.3, 0.05), rng.uniform(-0.4, -0.25)),
            ]
        )
        return _HALF_TURN @ _translate(dx, dy) if rng.random() < 0.5 else _translate(dx, dy)
    dx, dy = rng.choice(
        [(rng.uniform(0.13, 0.3), rng.uniform(0.0, 0.2)), (rng.uniform(0.0, 0.1), rng.uniform(0.25, 0.5))]
    )
    return _translate(dx, dy)  # an outline found inside the card: the index is cut


def _background_frame(rng: random.Random, size: tuple[int, int], width: float) -> NDArray[np.float64]:
    """A frame placed in a corner of the scene, on bare table, clutter or paper."""
    angle = rng.uniform(0, 2 * math.pi)
    x_axis = width * np.array([math.cos(angle), math.sin(angle)])
    y_axis = quarter_turn(x_axis)
    corner = rng.choice([(0.0, 0.0), (size[0] - 0.3 * width, 0.0), (0.0, size[1] - 0.5 * width)])
    origin = np.array(corner) + np.array([rng.uniform(0, 0.2 * width), rng.uniform(0, 0.2 * width)])
    return np.array([[x_axis[0], y_axis[0], origin[0]], [x_axis[1], y_axis[1], origin[1]], [0, 0, 1.0]])


def _overlap_move(rng: random.Random, face: NDArray[np.uint8]) -> tuple[float, float, float]:
    """Where a second card lies over part of the first, like the next card of a fanned hand: its
    move in face pixels across and down, and degrees turned (see `_lay_neighbour`)."""
    fw, fh = face.shape[1], face.shape[0]
    dx = rng.uniform(0.25, 0.95) * fw * rng.choice([1, 1, -1])
    dy = rng.uniform(-0.35, 0.35) * fh
    return dx, dy, rng.uniform(-20, 20)


def _lay_neighbour(
    rng: random.Random,
    table: NDArray[np.float32],
    occupancy: NDArray[np.int16],
    other: NDArray[np.uint8],
    face: NDArray[np.uint8],
    to_image: NDArray[np.float64],
    move: tuple[float, float, float],
) -> None:
    """Paste `other` over the card `face` moved by `move` (face pixels across and down, and
    degrees turned about its middle), either way up."""
    fw, fh = face.shape[1], face.shape[0]
    dx, dy, degrees = move
    angle = math.radians(degrees)
    local = face_quad(face) - np.array([fw / 2, fh / 2], np.float32)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    moved = local @ rot.T + np.array([fw / 2 + dx, fh / 2 + dy], np.float32)
    if rng.random() < 0.5:
        moved = moved[[2, 3, 0, 1]]  # the neighbour may lie the other way up
    quad = cv2.perspectiveTransform(moved.reshape(1, 4, 2), to_image)[0].astype(np.float32)
    paste_card(table, occupancy, other, quad, 1, rng)


_EXTENTS: dict[str, tuple[float, float]] = {}


def _deck_extent(deck: Deck) -> tuple[float, float]:
    """`synth.index_extent(deck)`, measured once per deck in each process."""
    if deck.name not in _EXTENTS:
        _EXTENTS[deck.name] = index_extent(deck)
    return _EXTENTS[deck.name]


def _tight_move(
    rng: random.Random, face: NDArray[np.uint8], extent: tuple[float, float]
) -> tuple[float, float, float]:
    """Where a second card lies over the first so that only a strip of `TIGHT_STRIP` times the
    deck's index `extent` (across, down) shows beside or below it, a little turned: the next
    card of a deal laid tight, its edge right beside the index (see `_lay_neighbour`)."""
    fw, fh = face.shape[1], face.shape[0]
    strip = rng.uniform(*TIGHT_STRIP)
    if rng.random() < 0.5:
        dx, dy = strip * extent[0] * fw, rng.uniform(-0.05, 0.05) * fh
    else:
        dx, dy = rng.uniform(-0.05, 0.05) * fw, strip * extent[1] * fw
    return dx, dy, rng.uniform(-6, 6)


def _cover_with_object(
    rng: random.Random, table: NDArray[np.float32], occupancy: NDArray[np.int16], quad: NDArray[np.float32]
) -> None:
    """Put an object (a coin, a remote, a box) over part of the card."""
    t = rng.uniform(0.0, 0.6)
    centre = quad[rng.randrange(4)] * (1.0 - t) + quad.mean(axis=0) * t
    size = float(np.linalg.norm(quad[1] - quad[0])) * rng.uniform(0.2, 0.8)
    box = cv2.boxPoints(
        ((float(centre[0]), float(centre[1])), (size, size * rng.uniform(0.4, 1.6)), rng.uniform(0, 180))
    )
    points = [np.round(box).astype(np.int32)]
    colour = [rng.randint(0, 255) for _ in range(3)]
    cv2.fillPoly(table, points, colour, cv2.LINE_AA)
    cv2.fillPoly(occupancy, points, -2)


MATCH_INDEX = 0.07
MISS_INDEX = 0.18
"""A proposal whose index box lies within `MATCH_INDEX` card widths (mean corner distance) of
a card's true index box reads that card; beyond `MISS_INDEX` from every index it must read
"no index"; in between it is ambiguous and not used."""

MINED_NEGATIVES = 8
"""Most "no index" proposals kept per mined photo from each kind of proposal (outline, lone
corner, glyph), so they do not swamp the card samples. Drawn per kind, the rarer kinds are
not crowded out: glyph frames on printed paper, the source of most confident false cards,
are a small share of all proposals."""

MINED_SIZES = ((504, 378), (640, 480), (960, 720), (1280, 960))
"""Photo sizes of mined scenes: small webcam and downscaled phone shots up to working size."""

_INDEX_BOX = np.array(
    [[[0.0, 0.0], [INDEX_BOX_WIDTH, 0.0], [INDEX_BOX_WIDTH, INDEX_BOX_HEIGHT], [0.0, INDEX_BOX_HEIGHT]]]
)


def _index_boxes(card: PlacedCard) -> list[NDArray[np.float64]]:
    """Image positions of the true top-left and bottom-right index boxes of a placed card."""
    a = card.aspect
    frame = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, a], [0.0, a]], np.float32)
    to_image = cv2.getPerspectiveTransform(frame, card.quad.astype(np.float32))
    half_turn = np.array([[-1.0, 0.0, 1.0], [0.0, -1.0, a], [0.0, 0.0, 1.0]])
    return [
        cv2.perspectiveTransform(_INDEX_BOX, to_image)[0],
        cv2.perspectiveTransform(_INDEX_BOX, to_image @ half_turn)[0],
    ]


def mined_samples(
    rng: random.Random, library: FaceLibrary, held: bool = False
) -> list[tuple[NDArray[np.uint8], int, int]]:
    """Labelled patches from the recogniser's own proposals on a synthetic table photo (a hand
    held fanned in the fingers when `held`).

    This teaches the network exactly the mistakes the outline finder makes: outlines around
    pips and court-card frames, lone corners of textured tables, corners of fanned cards read
    at a wrong size, two overlapping cards taken for one.
    """
    size = rng.choice(MINED_SIZES)
    if rng.random() < 0.5:
        size = (size[1], size[0])
    seed = rng.getrandbits(40)
    if held:
        photo = _held_hand(rng, seed, library, size)
    elif rng.random() < 0.3:
        photo = render_show(seed, library, size=size)
    else:
        photo = render_table(seed, library, size)
    bgr = photo.image
    pyramid = build_pyramid(bgr)
    prepared = prepare(bgr)
    masks = card_masks(prepared)
    blobs = find_blobs(prepared, masks)
    paper, notched = paper_and_notches(masks)
    widths = [float(np.linalg.norm(card.quad[1] - card.quad[0])) for card in photo.placed]
    kinds = (
        outline_proposals(unique_quads(blobs)),
        corner_proposals(blobs, widths, [])
        + corner_proposals(blobs, [], [])
        + segment_proposals(prepared, paper, widths, []),
        glyph_proposals(prepared, notched),
    )
    truth_boxes = np.array([box for card in photo.placed for box in _index_boxes(card)])  # (cards*2, 4, 2)
    truth_widths = np.repeat(
        [max(float(np.linalg.norm(card.quad[1] - card.quad[0])), 1.0) for card in photo.placed], 2
    )
    frames: list[NDArray[np.float64]] = []
    labels: list[tuple[int, int]] = []
    for proposals in kinds:
        cards: list[tuple[NDArray[np.float64], int, int]] = []
        negatives: list[NDArray[np.float64]] = []
        for proposal in proposals:
            box = cv2.perspectiveTransform(_INDEX_BOX, proposal.homography)[0]
            distances = np.linalg.norm(truth_boxes - box[None], axis=2).mean(axis=1) / truth_widths
            nearest = int(np.argmin(distances))
            best = float(distances[nearest])
            if best <= MATCH_INDEX:
                card = photo.placed[nearest // 2]
                shown = card.visible[nearest % 2]
                if shown >= VISIBLE_INDEX:
                    rank, suit = split_code(card.card)
                    cards.append((proposal.homography, rank, suit))
                elif shown <= HIDDEN_INDEX:
                    negatives.append(proposal.homography)
            elif best >= MISS_INDEX:
                negatives.append(proposal.homography)
        rng.shuffle(negatives)
        frames += [frame for frame, _, _ in cards] + negatives[:MINED_NEGATIVES]
        labels += [(rank, suit) for _, rank, suit in cards]
        labels += [(NONE_RANK, NONE_SUIT)] * len(negatives[:MINED_NEGATIVES])
    patches = read_patches(pyramid, frames)  # the whole photo's in one batch
    return [(patch, rank, suit) for patch, (rank, suit) in zip(patches, labels, strict=True)]


def _held_hand(rng: random.Random, seed: int, library: FaceLibrary, size: tuple[int, int]) -> SyntheticPhoto:
    """`synth.render_held_hand(seed)`, or at the next seeds `rng` draws if no readable fan was
    found for it (a few seeds in a thousand)."""
    while True:
        try:
            return render_held_hand(seed, library, size=size)
        except RuntimeError:
            seed = rng.getrandbits(40)


def _generate_chunk(args: tuple[int, int, int, str, float]) -> SampleSet:
    seed, library_seed, scenes, kind, tight = args
    rng = random.Random(seed)
    library = worker_library(library_seed)
    patches: list[NDArray[np.uint8]] = []
    ranks: list[int] = []
    suits: list[int] = []
    for _ in range(scenes):
        if kind == "scene":
            samples = scene_samples(rng, library, tight)
        else:
            samples = mined_samples(rng, library, held=kind == "held")
        for patch, rank, suit in samples:
            patches.append(patch)
            ranks.append(rank)
            suits.append(suit)
    maps = ink_maps(np.stack(patches))
    return SampleSet(
        features_of_maps(maps),
        np.array(ranks, np.int64),
        np.array(suits, np.int64),
        np.round(maps * 255.0).astype(np.uint8),
    )


def generate(
    seed: int,
    scenes: int,
    workers: int,
    kind: str = "scene",
    chunk: int = 250,
    tight: float = TIGHT_NEIGHBOURS,
) -> SampleSet:
    """Generate labelled features from `scenes` synthetic scenes (`kind` "scene" for single
    cards, "mined" for whole table photos read through the recogniser, "held" for held hands
    read so), deterministic per seed; `tight` is the share of single-card scenes with a
    neighbour laid tight (`scene_samples`)."""
    if kind not in SAMPLE_KINDS:
        raise ValueError(f"no sample kind {kind!r}: one of {', '.join(SAMPLE_KINDS)}")
    offset = SAMPLE_KINDS.index(kind) * 1_000_000
    jobs = [
        (seed * 7919 + offset + i, seed, min(chunk, scenes - start), kind, tight)
        for i, start in enumerate(range(0, scenes, chunk))
    ]
    if workers <= 1:
        return SampleSet.concat([_generate_chunk(job) for job in jobs])
    with fork_pool(workers) as pool:
        return SampleSet.concat(pool.map(_generate_chunk, jobs))


def cached(
    cache: Path | None,
    seed: int,
    scenes: int,
    workers: int,
    kind: str = "scene",
    tight: float = TIGHT_NEIGHBOURS,
) -> SampleSet:
    """`generate(seed, scenes, workers, kind, tight=tight)`, kept in `cache` (a folder; None
    keeps nothing): generating is most of a training run, and the same seed always gives the
    same set."""
    if cache is None:
        return generate(seed, scenes, workers, kind, tight=tight)
    tag = f"-tight{tight:g}" if kind == "scene" and tight > 0 else ""
    path = cache / f"{kind}-seed{seed}-{scenes}{tag}.npz"
    if path.exists():
        return SampleSet.load(path)
    samples = generate(seed, scenes, workers, kind, tight=tight)
    samples.save(path)
    return samples
