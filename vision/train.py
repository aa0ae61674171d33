"""Build the index classifier from scratch: `python -m vision.train`.

Training data is generated here and nowhere else: each sample is a small synthetic scene (one
card from a rendered SVG deck or a procedural deck, on a synthetic table, often partly covered
by a neighbouring card or an object, seen through `synth.apply_camera`), read back through the
same `geometry.read_patch` the recogniser uses, from a card outline jittered the way a real
outline finder misses. Each scene gives its two index corners (labelled with the card, or "no
index" when covered) and a few patches that must read as "no index": the other two corners,
the middle of the card, outlines shifted off the corner, bare table.

The classifier is a small ensemble of MLPs in numpy (two ReLU layers, two softmax heads each),
trained with AdamW on the same data from different starting weights, and a small convolutional
network over the patches' ink maps, trained with PyTorch (`pip install -r
requirements-train.txt`; only training needs it: the recogniser runs the network through
OpenCV from its ONNX export). The temperatures of each network's heads are then fitted on
held-out synthetic scenes so that the probabilities are calibrated, and the detection
confidence is calibrated on whole synthetic photos. The run is seeded end to end and prints a
report.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import itertools
import math
import multiprocessing
import multiprocessing.pool
import random
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.cards import CARD_CODES, split_code
from vision.classify import (
    MODEL_PATH,
    NONE_RANK,
    NONE_SUIT,
    ConvNet,
    IndexModel,
    Network,
    detection_features,
    features_of_maps,
    ink_maps,
    softmax,
)
from vision.detect import (
    card_masks,
    corner_proposals,
    find_blobs,
    glyph_proposals,
    outline_proposals,
    paper_regions,
    prepare,
    segment_proposals,
    unique_quads,
)
from vision.geometry import (
    CARD_ASPECT,
    INDEX_BOX_HEIGHT,
    INDEX_BOX_WIDTH,
    PATCH_HEIGHT_PX,
    PATCH_WIDTH_PX,
    ROTATE_HALF_TURN,
    build_pyramid,
    card_homography,
    quarter_turn,
    read_patch,
)
from vision.io import load_image
from vision.recognise import calibrate, find_candidates, merge
from vision.synth import (
    CARD_MM,
    INDEX_REGION,
    PAPER_CHANCE,
    FaceLibrary,
    PlacedCard,
    add_clutter,
    add_papers,
    apply_camera,
    face_quad,
    full_library,
    jpeg,
    make_table,
    paste_card,
    project_tilted,
    render_show,
    render_table,
    visible_share,
)

TRAIN_SEED = 1_000_003
"""Seed of the committed model's run: scenes, deck styles, initial weights, batch order."""

DEFAULT_SCENES = 20_000
"""Single-card scenes per run (each yields about four patches)."""

DEFAULT_MINED = 5_000
"""Table photos per run read through the recogniser's own proposals (about 20 patches each)."""

DEFAULT_NETWORKS = 3
"""Networks in the ensemble. On generated development shows (not the evaluation seeds)
averaging two networks lifted the exact-photo rate from 87 % to 91 % and three to 93 %; each
costs about 2 minutes to train, 1.7 MB on disk and some milliseconds per photo (the features
are computed once)."""

NETWORK_SEED_STEP = 7_919
"""Offset between the starting-weight seeds of the ensemble's networks."""

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


def _translate(dx: float, dy: float) -> NDArray[np.float64]:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def scene_samples(rng: random.Random, library: FaceLibrary) -> list[tuple[NDArray[np.uint8], int, int]]:
    """One synthetic scene's labelled patches: (BGR patch, rank label, suit label)."""
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
    if rng.random() < 0.4:
        _overlap_neighbour(rng, table, occupancy, deck(rng.choice(CARD_CODES)), face, to_image)
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
    rw, rh = INDEX_REGION[0] * fw, INDEX_REGION[1] * fw
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


def _overlap_neighbour(
    rng: random.Random,
    table: NDArray[np.float32],
    occupancy: NDArray[np.int16],
    other: NDArray[np.uint8],
    face: NDArray[np.uint8],
    to_image: NDArray[np.float64],
) -> None:
    """Lay a second card over part of the first, like the next card of a fanned hand."""
    fw, fh = face.shape[1], face.shape[0]
    dx = rng.uniform(0.25, 0.95) * fw * rng.choice([1, 1, -1])
    dy = rng.uniform(-0.35, 0.35) * fh
    angle = math.radians(rng.uniform(-20, 20))
    local = face_quad(face) - np.array([fw / 2, fh / 2], np.float32)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    moved = local @ rot.T + np.array([fw / 2 + dx, fh / 2 + dy], np.float32)
    if rng.random() < 0.5:
        moved = moved[[2, 3, 0, 1]]  # the neighbour may lie the other way up
    quad = cv2.perspectiveTransform(moved.reshape(1, 4, 2), to_image)[0].astype(np.float32)
    paste_card(table, occupancy, other, quad, 1, rng)


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


def mined_samples(rng: random.Random, library: FaceLibrary) -> list[tuple[NDArray[np.uint8], int, int]]:
    """Labelled patches from the recogniser's own proposals on a synthetic table photo.

    This teaches the network exactly the mistakes the outline finder makes: outlines around
    pips and court-card frames, lone corners of textured tables, corners of fanned cards read
    at a wrong size, two overlapping cards taken for one.
    """
    size = rng.choice(MINED_SIZES)
    if rng.random() < 0.5:
        size = (size[1], size[0])
    seed = rng.getrandbits(40)
    photo = render_show(seed, library, size=size) if rng.random() < 0.3 else render_table(seed, library, size)
    bgr = photo.image
    pyramid = build_pyramid(bgr)
    prepared = prepare(bgr)
    masks = card_masks(prepared)
    blobs = find_blobs(prepared, masks)
    paper = paper_regions(masks)
    widths = [float(np.linalg.norm(card.quad[1] - card.quad[0])) for card in photo.placed]
    kinds = (
        outline_proposals(unique_quads(blobs)),
        corner_proposals(blobs, widths, [])
        + corner_proposals(blobs, [], [])
        + segment_proposals(prepared, paper, widths, []),
        glyph_proposals(prepared, paper),
    )
    truth_boxes = np.array([box for card in photo.placed for box in _index_boxes(card)])  # (cards*2, 4, 2)
    truth_widths = np.repeat(
        [max(float(np.linalg.norm(card.quad[1] - card.quad[0])), 1.0) for card in photo.placed], 2
    )
    samples: list[tuple[NDArray[np.uint8], int, int]] = []
    for proposals in kinds:
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
                    samples.append((read_patch(pyramid, proposal.homography), rank, suit))
                elif shown <= HIDDEN_INDEX:
                    negatives.append(proposal.homography)
            elif best >= MISS_INDEX:
                negatives.append(proposal.homography)
        rng.shuffle(negatives)
        samples += [(read_patch(pyramid, h), NONE_RANK, NONE_SUIT) for h in negatives[:MINED_NEGATIVES]]
    return samples


def _generate_chunk(args: tuple[int, int, int, str]) -> SampleSet:
    seed, library_seed, scenes, kind = args
    rng = random.Random(seed)
    library = _worker_library(library_seed)
    patches: list[NDArray[np.uint8]] = []
    ranks: list[int] = []
    suits: list[int] = []
    sampler = mined_samples if kind == "mined" else scene_samples
    for _ in range(scenes):
        for patch, rank, suit in sampler(rng, library):
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


_LIBRARIES: dict[int, FaceLibrary] = {}


def _worker_library(seed: int) -> FaceLibrary:
    if seed not in _LIBRARIES:
        _LIBRARIES[seed] = full_library(seed)
    return _LIBRARIES[seed]


def generate(seed: int, scenes: int, workers: int, kind: str = "scene", chunk: int = 250) -> SampleSet:
    """Generate labelled features from `scenes` synthetic scenes (`kind` "scene" for single
    cards, "mined" for whole photos read through the recogniser), deterministic per seed."""
    offset = 0 if kind == "scene" else 1_000_000
    jobs = [
        (seed * 7919 + offset + i, seed, min(chunk, scenes - start), kind)
        for i, start in enumerate(range(0, scenes, chunk))
    ]
    if workers <= 1:
        return SampleSet.concat([_generate_chunk(job) for job in jobs])
    with _fork_pool(workers) as pool:
        return SampleSet.concat(pool.map(_generate_chunk, jobs))


@contextlib.contextmanager
def _fork_pool(workers: int) -> Iterator[multiprocessing.pool.Pool]:
    """A pool of forked workers (they inherit the face library and the model being calibrated),
    each running OpenCV on one thread: the pool already uses every core.

    OpenCV's own thread pool is stopped in this process first and restarted afterwards: a
    child forked while its threads are parked (after any parallel OpenCV call here, such as a
    cv2.dnn forward pass) deadlocks in its first cv2.setNumThreads.
    """
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with multiprocessing.get_context("fork").Pool(workers, cv2.setNumThreads, (1,)) as pool:
            yield pool
    finally:
        cv2.setNumThreads(threads)


# The network ---------------------------------------------------------------------------------


@dataclass
class _Params:
    weights: list[NDArray[np.float32]]
    biases: list[NDArray[np.float32]]


DROPOUT = 0.3
"""Share of hidden units silenced per training step; without it the net memorises the decks."""


def _forward(
    params: _Params, x: NDArray[np.float32], nrng: np.random.Generator | None = None
) -> tuple[list[NDArray[np.float32]], NDArray[np.float32]]:
    """Activations of every layer and the output logits; `nrng` turns dropout on."""
    activations = [x]
    for w, b in zip(params.weights[:-1], params.biases[:-1], strict=True):
        hidden = np.maximum(activations[-1] @ w + b, 0.0)
        if nrng is not None:
            hidden *= (nrng.random(hidden.shape, dtype=np.float32) >= DROPOUT) / np.float32(1.0 - DROPOUT)
        activations.append(hidden)
    out = activations[-1] @ params.weights[-1] + params.biases[-1]
    return activations, out


def train_network(
    train: SampleSet,
    seed: int,
    epochs: int,
    hidden: tuple[int, ...] = (384, 192),
    batch: int = 256,
    learning_rate: float = 2e-3,
    weight_decay: float = 1e-4,
    log: bool = True,
) -> Network:
    """Fit one MLP (uncalibrated: temperatures 1) to `train`, from starting weights `seed`."""
    nrng = np.random.default_rng(seed)
    mean = train.features.mean(axis=0)
    scale = train.features.std(axis=0) + 1e-3
    x_all = ((train.features - mean) / scale).astype(np.float32)
    sizes = [x_all.shape[1], *hidden, NONE_RANK + 1 + NONE_SUIT + 1]
    params = _Params(
        [
            (nrng.standard_normal((a, b)) * math.sqrt(2.0 / a)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ],
        [np.zeros(b, np.float32) for b in sizes[1:]],
    )
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in [*params.weights, *params.biases]]
    step = 0
    n = len(x_all)
    steps_total = epochs * math.ceil(n / batch)
    split = NONE_RANK + 1
    for epoch in range(epochs):
        order = nrng.permutation(n)
        started = time.perf_counter()
        total_loss = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            x, rank, suit = x_all[idx], train.ranks[idx], train.suits[idx]
            activations, out = _forward(params, x, nrng)
            p_rank = softmax(out[:, :split].astype(np.float64))
            p_suit = softmax(out[:, split:].astype(np.float64))
            rows = np.arange(len(idx))
            total_loss += float(
                -np.log(p_rank[rows, rank] + 1e-12).sum() - np.log(p_suit[rows, suit] + 1e-12).sum()
            )
            p_rank[rows, rank] -= 1.0
            p_suit[rows, suit] -= 1.0
            grad = (np.concatenate([p_rank, p_suit], axis=1) / len(idx)).astype(np.float32)
            grads_w: list[NDArray[np.float32]] = []
            grads_b: list[NDArray[np.float32]] = []
            for layer in range(len(params.weights) - 1, -1, -1):
                grads_w.append(activations[layer].T @ grad)
                grads_b.append(grad.sum(axis=0))
                if layer:
                    grad = (grad @ params.weights[layer].T) * (activations[layer] > 0)
            grads_w.reverse()
            grads_b.reverse()
            step += 1
            lr = learning_rate * 0.5 * (1 + math.cos(math.pi * step / steps_total))
            for i, (p, g) in enumerate(
                zip([*params.weights, *params.biases], [*grads_w, *grads_b], strict=True)
            ):
                m, v = moments[i]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                m_hat = m / (1 - 0.9**step)
                v_hat = v / (1 - 0.999**step)
                if p.ndim == 2:
                    p *= 1.0 - lr * weight_decay
                p -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        if log:
            seconds = time.perf_counter() - started
            print(f"  epoch {epoch + 1}/{epochs}: loss {total_loss / n:.4f} ({seconds:.0f} s)", flush=True)
    return Network(
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        hidden=tuple(zip(params.weights[:-1], params.biases[:-1], strict=True)),
        rank_head=(params.weights[-1][:, :split].copy(), params.biases[-1][:split].copy()),
        suit_head=(params.weights[-1][:, split:].copy(), params.biases[-1][split:].copy()),
    )


def fit_temperature(logits: NDArray[np.float32], labels: NDArray[np.int64]) -> float:
    """The softmax temperature minimising held-out negative log-likelihood (grid search)."""
    best, best_nll = 1.0, math.inf
    for temperature in np.exp(np.linspace(math.log(0.3), math.log(5.0), 80)):
        probs = softmax(logits.astype(np.float64) / temperature)
        nll = float(-np.log(probs[np.arange(len(labels)), labels] + 1e-12).mean())
        if nll < best_nll:
            best, best_nll = float(temperature), nll
    return best


def calibrate_heads(network: Network, validation: SampleSet) -> Network:
    """Return `network` with both heads' temperatures fitted on `validation`."""
    rank_logits, suit_logits = network.logits(validation.features)
    return replace(
        network,
        rank_temperature=fit_temperature(rank_logits, validation.ranks),
        suit_temperature=fit_temperature(suit_logits, validation.suits),
    )


CONV_EPOCHS = 6
"""Passes of the convolutional network over the training patches (about 2 minutes each on 2
cores); held-out accuracy on index patches was still rising at 6, by 0.3 points an epoch."""

CONV_LAYERS = ((2, 16), (16, 32), (32, 64))
"""(input, output) channels of its three 3x3 convolutions, each followed by ReLU and a 2x2 max
pool; then a dropout, a 128-unit ReLU layer and the two heads."""

CONV_HIDDEN = 128
CONV_DROPOUT = 0.2


def _torch() -> Any:
    """PyTorch, imported only for training (neither it nor onnx, which its export needs, is a
    runtime dependency)."""
    try:
        importlib.import_module("onnx")
        return importlib.import_module("torch")
    except ModuleNotFoundError:
        raise SystemExit(
            "training the convolutional network needs PyTorch: pip install -r requirements-train.txt "
            "(or pass --conv-epochs 0 to build a model without it)"
        ) from None


def _as_maps(stored: NDArray[np.uint8]) -> NDArray[np.float32]:
    return stored.astype(np.float32) / np.float32(255.0)


def train_conv(
    train: SampleSet, validation: SampleSet, seed: int, epochs: int, batch: int = 256, log: bool = True
) -> ConvNet:
    """Fit the convolutional network to `train` (AdamW, one-cycle learning rate), export it as
    ONNX and fit its heads' temperatures on `validation`, read through OpenCV as the
    recogniser reads it."""
    torch = _torch()
    nn = torch.nn
    torch.manual_seed(seed)
    layers: list[Any] = []
    for channels_in, channels_out in CONV_LAYERS:
        layers += [nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    flat = CONV_LAYERS[-1][1] * (PATCH_HEIGHT_PX // 8) * (PATCH_WIDTH_PX // 8)
    split = NONE_RANK + 1
    net = nn.Sequential(
        *layers,
        nn.Flatten(),
        nn.Dropout(CONV_DROPOUT),
        nn.Linear(flat, CONV_HIDDEN),
        nn.ReLU(),
        nn.Linear(CONV_HIDDEN, split + NONE_SUIT + 1),
    )
    optimiser = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, 3e-3, total_steps=epochs * math.ceil(len(train.ranks) / batch)
    )
    maps, ranks, suits = (torch.from_numpy(a) for a in (train.maps, train.ranks, train.suits))
    generator = torch.Generator().manual_seed(seed)
    cross_entropy = nn.functional.cross_entropy
    net.train()
    for epoch in range(epochs):
        started = time.perf_counter()
        order = torch.randperm(len(ranks), generator=generator)
        total_loss = 0.0
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            out = net(maps[idx].float() / 255.0)
            loss = cross_entropy(out[:, :split], ranks[idx]) + cross_entropy(out[:, split:], suits[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total_loss += float(loss.item()) * len(idx)
        if log:
            seconds = time.perf_counter() - started
            mean_loss = total_loss / len(ranks)
            print(f"  epoch {epoch + 1}/{epochs}: loss {mean_loss:.4f} ({seconds:.0f} s)", flush=True)
    net.eval()
    buffer = io.BytesIO()
    example = torch.zeros((1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX))
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of torch.export, which needs the
        # onnxscript package too; it still writes this plain convolutional stack exactly.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            net, example, buffer, dynamo=False, input_names=["maps"], dynamic_axes={"maps": {0: "patches"}}
        )
    conv = ConvNet(buffer.getvalue())
    rank_logits, suit_logits = _conv_logits(conv, validation.maps)
    return replace(
        conv,
        rank_temperature=fit_temperature(rank_logits, validation.ranks),
        suit_temperature=fit_temperature(suit_logits, validation.suits),
    )


def _conv_logits(conv: ConvNet, stored: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    parts = [conv.logits(_as_maps(stored[i : i + 4096])) for i in range(0, len(stored), 4096)]
    return np.concatenate([r for r, _ in parts]), np.concatenate([s for _, s in parts])


CALIBRATION_PHOTOS = 400
"""Synthetic photos read end to end to calibrate the confidence of whole detections."""

CALIBRATION_SIZES = ((504, 378), (800, 600), (1280, 960), (1600, 1200))
"""Photo sizes for calibration: small webcam shots up to a phone photo above working size."""

_CALIBRATING: IndexModel | None = None


def _detections_chunk(args: tuple[int, int, int]) -> list[tuple[float, float, float, float, float]]:
    """(raw confidence, whole, support, size offset, right) for every detection in some
    synthetic photos."""
    seed, library_seed, photos = args
    if _CALIBRATING is None:
        raise RuntimeError("no model to calibrate")
    library = _worker_library(library_seed)
    rng = random.Random(seed)
    rows = []
    for _ in range(photos):
        size = rng.choice(CALIBRATION_SIZES)
        photo_seed = rng.getrandbits(40)
        photo = (
            render_show(photo_seed, library, size=size)
            if rng.random() < 0.5
            else render_table(photo_seed, library, size)
        )
        loaded = load_image(photo.image)
        outlines = {card.card: card.quad.astype(np.float32) / loaded.scale for card in photo.placed}
        for c in merge(calibrate(find_candidates(loaded.pixels, _CALIBRATING), _CALIBRATING), minimum=0.0):
            # Right only if the card is there and the index read lies on it: a misreading that
            # happens to name another card in the photo is still wrong.
            outline = outlines.get(c.reading.card)
            middle = tuple(float(v) for v in c.ends[0].middle)
            right = outline is not None and cv2.pointPolygonTest(outline, middle, False) >= 0
            rows.append((c.reading.confidence, float(c.whole), float(c.support), c.size_offset, float(right)))
    return rows


def fit_detection_weights(model: IndexModel, seed: int, photos: int, workers: int) -> tuple[float, ...]:
    """Logistic regression of "this detection is right" on the detection's features."""
    global _CALIBRATING
    _CALIBRATING = replace(model, detection_weights=None)
    chunk = 25
    jobs = [
        (seed * 7919 + 2_000_000 + i, seed, min(chunk, photos - start))
        for i, start in enumerate(range(0, photos, chunk))
    ]
    with _fork_pool(workers) as pool:
        rows = np.array([row for part in pool.map(_detections_chunk, jobs) for row in part])
    _CALIBRATING = None
    x = detection_features(rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3])
    y = rows[:, 4]
    weights = np.zeros(x.shape[1])
    for _ in range(50):  # Newton's method with a small ridge, which keeps it finite if separable
        p = 1.0 / (1.0 + np.exp(-(x @ weights)))
        gradient = x.T @ (p - y) + 1e-3 * weights
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(x.shape[1])
        weights -= np.linalg.solve(hessian, gradient)
    p = 1.0 / (1.0 + np.exp(-(x @ weights)))
    print(f"calibration: {len(rows)} detections on {photos} photos, {y.mean():.3f} right")
    print("| reported confidence | detections | right |\n| --- | --- | --- |")
    for lo, hi in ((0.0, 0.5), (0.5, 0.8), (0.8, 0.95), (0.95, 0.99), (0.99, 1.01)):
        sel = (p >= lo) & (p < hi)
        if sel.any():
            print(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {int(sel.sum())} | {y[sel].mean():.3f} |")
    return tuple(float(w) for w in weights)


def report(model: IndexModel, validation: SampleSet) -> str:
    """Accuracy and a reliability table of the calibrated model on held-out samples, read as
    the recogniser reads them."""
    parts = [
        model.read_maps(_as_maps(validation.maps[i : i + 4096]), validation.features[i : i + 4096])
        for i in range(0, len(validation.ranks), 4096)
    ]
    p_rank = np.concatenate([r for r, _ in parts])
    p_suit = np.concatenate([s for _, s in parts])
    rank_ok = p_rank.argmax(axis=1) == validation.ranks
    suit_ok = p_suit.argmax(axis=1) == validation.suits
    both = rank_ok & suit_ok
    index = validation.ranks != NONE_RANK
    lines = [
        f"held-out patches: {len(both)} ({int(index.sum())} with an index)",
        f"rank accuracy {rank_ok.mean():.4f}, suit accuracy {suit_ok.mean():.4f}, both {both.mean():.4f}",
        f"on index patches: both right {both[index].mean():.4f}; "
        f"said 'no index' for {float((p_rank.argmax(axis=1)[index] == NONE_RANK).mean()):.4f}",
        f"on blank patches: called an index {float((p_rank.argmax(axis=1)[~index] != NONE_RANK).mean()):.4f}",
        "temperatures (rank, suit): "
        + ", ".join(f"{n.rank_temperature:.3f} {n.suit_temperature:.3f}" for n in model.networks)
        + (
            f"; convolutional {model.conv.rank_temperature:.3f} {model.conv.suit_temperature:.3f}"
            if model.conv
            else ""
        ),
        "",
        "| confidence | patches | right |",
        "| --- | --- | --- |",
    ]
    confidence = p_rank.max(axis=1) * p_suit.max(axis=1)
    for lo, hi in ((0.0, 0.5), (0.5, 0.8), (0.8, 0.95), (0.95, 0.99), (0.99, 1.01)):
        sel = (confidence >= lo) & (confidence < hi)
        if sel.any():
            lines.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {int(sel.sum())} | {both[sel].mean():.3f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Generate data, train, calibrate and write the model; prints a report."""
    parser = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=DEFAULT_SCENES, help="single-card training scenes")
    parser.add_argument(
        "--mined", type=int, default=DEFAULT_MINED, help="table photos read through the recogniser"
    )
    parser.add_argument(
        "--photos", type=int, default=CALIBRATION_PHOTOS, help="photos for confidence calibration"
    )
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument(
        "--networks", type=int, default=DEFAULT_NETWORKS, help="networks in the ensemble (same data)"
    )
    parser.add_argument(
        "--conv-epochs",
        type=int,
        default=CONV_EPOCHS,
        help="epochs of the convolutional network (0: none; otherwise needs requirements-train.txt)",
    )
    parser.add_argument("--seed", type=int, default=TRAIN_SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.conv_epochs:
        _torch()  # fail now, not after the data is generated
    print(
        f"generating {args.scenes} card scenes and {args.mined} table photos (seed {args.seed})", flush=True
    )
    train = SampleSet.concat(
        [
            generate(args.seed, args.scenes, args.workers),
            generate(args.seed, args.mined, args.workers, kind="mined"),
        ]
    )
    validation = SampleSet.concat(
        [
            generate(args.seed + 1, max(args.scenes // 10, 100), args.workers),
            generate(args.seed + 1, max(args.mined // 10, 50), args.workers, kind="mined"),
        ]
    )
    print(
        f"  {len(train.ranks)} training patches, {len(validation.ranks)} held out "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    networks = []
    for member in range(args.networks):
        print(f"network {member + 1} of {args.networks}", flush=True)
        network = train_network(train, args.seed + member * NETWORK_SEED_STEP, args.epochs)
        networks.append(calibrate_heads(network, validation))
    conv = None
    if args.conv_epochs:
        print("convolutional network", flush=True)
        conv = train_conv(train, validation, args.seed, args.conv_epochs)
    model = IndexModel(networks=tuple(networks), conv=conv)
    print(report(model, validation))
    weights = fit_detection_weights(model, args.seed + 2, args.photos, args.workers)
    model = replace(model, detection_weights=weights)
    model.save(args.out)
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
