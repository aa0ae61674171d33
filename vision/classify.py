"""Read an index patch: features, the trained networks, and fusing a card's two corners.

The model is an ensemble of small multilayer perceptrons over hand-made features (gradient
histograms and a coarse ink and red map of the patch) and, for the patches they think show an
index, a small convolutional network over the full-resolution ink and red maps, all trained by
`vision.train` on synthetic patches only. Each network has two softmax heads: rank (13 ranks
plus "no index here") and suit (4 suits plus "no index here"), each temperature-calibrated on
held-out synthetic data, so its probabilities can be read as probabilities.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

import cv2
import numpy as np
import onnxruntime as ort
from numpy.typing import NDArray

from vision.cards import CARD_CODES, RANKS, SUITS
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX

MODEL_PATH = Path(__file__).with_name("model") / "index_model.npz"
"""The committed artefact built by `python -m vision.train`."""

NONE_RANK = len(RANKS)
NONE_SUIT = len(SUITS)
"""Index of the "no index here" class in the rank and suit heads."""

INK_FLOOR = 40.0
"""Smallest paper-to-ink contrast (grey levels) a patch is stretched by: a blank patch keeps
its faint texture faint instead of being blown up into fake strokes."""

_HOG = cv2.HOGDescriptor((PATCH_WIDTH_PX, PATCH_HEIGHT_PX), (16, 16), (8, 8), (8, 8), 9)
_HOG_FINE = cv2.HOGDescriptor((PATCH_WIDTH_PX, PATCH_HEIGHT_PX), (8, 8), (8, 8), (4, 4), 9)


LUMA = np.array([0.114, 0.587, 0.299], np.float32)
"""The weights of blue, green and red in a pixel's grey level: ITU-R 601 luma, as cv2 uses."""

PAPER_PERCENTILE = 90.0
INK_PERCENTILE = 2.0
"""Percentiles of a patch's grey levels taken as its paper and its ink."""


def ink_maps(patches: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The darkness and redness of BGR patches of shape (n, PATCH_HEIGHT_PX, PATCH_WIDTH_PX, 3),
    each in [0, 1]: shape (n, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX). Both are stretched between
    the patch's ink and its paper, so dim light, glare and grey paper all look alike."""
    n = len(patches)
    bgr = patches.astype(np.float32)
    gray = bgr @ LUMA
    maps = np.empty((n, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), np.float32)
    if n == 0:
        return maps
    paper, ink = row_percentiles(gray.reshape(n, -1), PAPER_PERCENTILE, INK_PERCENTILE)
    paper, ink = paper[:, None, None], ink[:, None, None]
    span = np.maximum(paper - ink, INK_FLOOR)
    maps[:, 0] = np.clip((paper - gray) / span, 0.0, 1.0)
    # Red over the larger of blue and green, in whole grey levels (int16) and then as float32:
    # the same values as working it in the float32 copy, whose channels lie apart in memory
    # (5.6 -> 1.6 ms for 850 patches).
    excess_red = patches[..., 2].astype(np.int16) - np.maximum(patches[..., 0], patches[..., 1])
    maps[:, 1] = np.clip(excess_red.astype(np.float32) / span, 0.0, 1.0)
    return maps


def row_percentiles(rows: NDArray[np.float32], *percents: float) -> list[NDArray[np.float32]]:
    """Each row's `percents` as `np.percentile(rows, q, axis=1)` gives them (linear
    interpolation between the two nearest ranks, to the last bit), from one sort of the rows
    instead of a partial sort per percentile. OpenCV sorts each row of a photo's patches (1,792
    grey levels) whole in about two thirds of the time numpy's partial sort for the four ranks
    takes (10.6 against 16.5 µs a patch), and the ranks hold the same values either way."""
    last = rows.shape[1] - 1
    positions = [last * (q / 100.0) for q in percents]
    below = [min(int(np.floor(p)), last) for p in positions]
    ordered = np.asarray(cv2.sort(np.ascontiguousarray(rows, np.float32), cv2.SORT_EVERY_ROW), np.float32)
    values = []
    for position, low in zip(positions, below, strict=True):
        high = min(low + 1, last)
        a, b = ordered[:, low], ordered[:, high]
        t = position - low  # a Python float, as numpy's own weight for a scalar percentile
        diff = b - a
        # numpy's own lerp: from the nearer end, so t = 1 gives b exactly
        values.append(b - diff * (1 - t) if t >= 0.5 else a + diff * t)
    return values


def patch_features(patches: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Feature rows for BGR patches of shape (n, PATCH_HEIGHT_PX, PATCH_WIDTH_PX, 3)."""
    return features_of_maps(ink_maps(patches))


def features_of_maps(maps: NDArray[np.float32]) -> NDArray[np.float32]:
    """Feature rows for the `ink_maps` of some patches: each patch's two gradient histograms of
    its stretched grey, its darkness shrunk to half and its redness to a quarter, worked out for
    the whole batch in one call of each OpenCV function, each row what its patch gives alone.

    The gradient histograms read the patches stacked into one image, each framed by the two
    rows its own borders would reflect (`_stacked`), at one window a patch; the coarse maps
    shrink the stacked maps by whole blocks that no two patches share. 300 patches took 13.9
    ms against 18.0 one patch at a time, and the loop over patches let go of the interpreter
    lock six times a patch, where the other thread reading beside it waited for it."""
    n = len(maps)
    if n == 0:
        return np.zeros((0, feature_length()), np.float32)
    height, width = PATCH_HEIGHT_PX, PATCH_WIDTH_PX
    stretched = np.round((1.0 - maps[:, 0]) * 255.0).astype(np.uint8)
    stacked, windows = _stacked(stretched)
    hog = np.asarray(_HOG.compute(stacked, _HOG_STRIDE, (0, 0), windows), np.float32).reshape(n, -1)
    hog_fine = np.asarray(_HOG_FINE.compute(stacked, _HOG_STRIDE, (0, 0), windows), np.float32).reshape(n, -1)
    darkness = np.ascontiguousarray(maps[:, 0]).reshape(n * height, width)
    redness = np.ascontiguousarray(maps[:, 1]).reshape(n * height, width)
    coarse = cv2.resize(darkness, (width // 2, n * height // 2), interpolation=cv2.INTER_AREA)
    red = cv2.resize(redness, (width // 4, n * height // 4), interpolation=cv2.INTER_AREA)
    columns = [hog, hog_fine, coarse.reshape(n, -1), red.reshape(n, -1)]
    return np.concatenate(columns, axis=1, dtype=np.float32)


_HOG_STRIDE = (8, 8)
"""The window stride the gradient histograms are given; with the windows named, it moves none."""


def _stacked(patches: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], list[tuple[int, int]]]:
    """Grey patches (n, PATCH_HEIGHT_PX, PATCH_WIDTH_PX) stacked into one image, and where each
    lies in it (its top left corner). Each patch has above it its own second row and below it
    its next to last: the rows a gradient at its top or bottom edge reads, as OpenCV reflects
    a patch's borders when it is the whole image (BORDER_REFLECT_101), and no neighbour's."""
    n, height, width = patches.shape
    pitch = height + 2
    stacked = np.empty((n, pitch, width), np.uint8)
    stacked[:, 1 : height + 1] = patches
    stacked[:, 0] = patches[:, 1]
    stacked[:, height + 1] = patches[:, height - 2]
    return stacked.reshape(n * pitch, width), [(0, k * pitch + 1) for k in range(n)]


@functools.cache
def feature_length() -> int:
    """Number of features per patch."""
    return int(features_of_maps(np.zeros((1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), np.float32)).shape[1])


def screen_features(maps: NDArray[np.float32]) -> NDArray[np.float32]:
    """The screen's feature rows (`Screen`) for the `ink_maps` of some patches: how sharply the
    darkness changes across, down and along either diagonal (the absolute difference of the two
    pixels either side), averaged over blocks of 8 x 8 and 4 x 4 pixels, then the darkness
    over 4 x 4 blocks and the redness over 8 x 8.

    Made for the whole batch at once in 256 grey levels, the patches stacked into one image; a
    patch's first and last rows and columns, where a difference would reach past it, have none.
    So each patch's row is what it would be read alone. About a tenth of the time of the
    perceptrons' features (`features_of_maps`): the screen exists to spare most patches those."""
    n = len(maps)
    if n == 0:
        return np.zeros((0, _screen_length()), np.float32)
    height, width = PATCH_HEIGHT_PX, PATCH_WIDTH_PX
    # Rounded half to even, as numpy rounds, and saturated: 0-1 to 0-255 in one pass.
    levels = cv2.convertScaleAbs(np.ascontiguousarray(maps, np.float32).reshape(-1, width), alpha=255.0)
    levels = levels.reshape(n, 2, height, width)
    darkness = np.ascontiguousarray(levels[:, 0]).reshape(n * height, width)
    redness = np.ascontiguousarray(levels[:, 1]).reshape(n * height, width)
    edges = np.zeros((4, n * height, width), np.uint8)
    cv2.absdiff(darkness[:, 2:], darkness[:, :-2], dst=edges[0, :, 1:-1])
    cv2.absdiff(darkness[2:], darkness[:-2], dst=edges[1, 1:-1])
    cv2.absdiff(darkness[2:, 2:], darkness[:-2, :-2], dst=edges[2, 1:-1, 1:-1])
    cv2.absdiff(darkness[2:, :-2], darkness[:-2, 2:], dst=edges[3, 1:-1, 1:-1])
    across_patches = edges.reshape(4, n, height, width)
    across_patches[1:, :, 0] = 0
    across_patches[1:, :, -1] = 0
    fine = (width // 4, n * height // 4)
    coarse = (width // 8, n * height // 8)
    columns = []
    for direction in edges:
        blocks = cv2.resize(direction, fine, interpolation=cv2.INTER_AREA)
        columns.append(cv2.resize(blocks, coarse, interpolation=cv2.INTER_AREA).reshape(n, -1))
        columns.append(blocks.reshape(n, -1))
    columns.append(cv2.resize(darkness, fine, interpolation=cv2.INTER_AREA).reshape(n, -1))
    columns.append(cv2.resize(redness, coarse, interpolation=cv2.INTER_AREA).reshape(n, -1))
    return np.concatenate(columns, axis=1).astype(np.float32)


@functools.cache
def _screen_length() -> int:
    """Number of screen features per patch."""
    return int(screen_features(np.zeros((1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), np.float32)).shape[1])


def index_presence(rank: NDArray[np.float64], suit: NDArray[np.float64]) -> NDArray[np.float64]:
    """Probability that a patch shows an index at all (both heads agree it does), from its rank
    and suit probabilities (one patch, or rows of patches)."""
    return cast("NDArray[np.float64]", np.sqrt((1.0 - rank[..., NONE_RANK]) * (1.0 - suit[..., NONE_SUIT])))


@dataclass(frozen=True)
class IndexReading:
    """What the network says about one corner patch."""

    rank: NDArray[np.float64]
    """Probabilities over 13 ranks then "no index" (sums to 1)."""
    suit: NDArray[np.float64]
    """Probabilities over 4 suits then "no index" (sums to 1)."""

    @property
    def presence(self) -> float:
        """Probability that the patch shows an index at all (both heads agree it does)."""
        return float(index_presence(self.rank, self.suit))

    def card_probabilities(self) -> NDArray[np.float64]:
        """Probabilities over the 52 `CARD_CODES` given that an index is present."""
        rank = self.rank[:NONE_RANK] / max(float(self.rank[:NONE_RANK].sum()), 1e-12)
        suit = self.suit[:NONE_SUIT] / max(float(self.suit[:NONE_SUIT].sum()), 1e-12)
        return np.outer(suit, rank).ravel()  # suit-major, matching CARD_CODES


@dataclass(frozen=True)
class CardReading:
    """A card's identity fused from its corner readings."""

    card: str
    confidence: float
    """Probability that the card is there and is `card`."""
    presence: float
    """Probability that at least one corner shows an index."""


def fuse(readings: list[IndexReading]) -> CardReading:
    """Combine the corner readings of one card into a single reading.

    Each corner either shows the index (probability `presence`), and then its card
    distribution is evidence, or it does not, and then it says nothing: a product of
    mixtures, so a hidden corner does not veto a clear one and two clear corners that
    disagree pull the confidence down.
    """
    if not readings:
        raise ValueError("fuse needs at least one corner reading")
    log_posterior = np.zeros(len(CARD_CODES))
    absent = 1.0
    for reading in readings:
        present = reading.presence
        absent *= 1.0 - present
        mixture = present * reading.card_probabilities() + (1.0 - present) / len(CARD_CODES)
        log_posterior += np.log(np.maximum(mixture, 1e-300))
    posterior = np.exp(log_posterior - log_posterior.max())
    posterior /= posterior.sum()
    best = int(np.argmax(posterior))
    presence = 1.0 - absent
    return CardReading(card=CARD_CODES[best], confidence=float(posterior[best]) * presence, presence=presence)


@dataclass(frozen=True)
class OnnxNetwork:
    """A trained network stored as ONNX and run by ONNX Runtime, with two temperature-calibrated
    softmax heads: its one output row per input is the rank logits then the suit logits."""

    onnx: bytes
    rank_temperature: float = 1.0
    suit_temperature: float = 1.0

    @functools.cached_property
    def _session(self) -> tuple[ort.InferenceSession, str]:
        """The network's one session and its input's name, built on first use (loading a model
        file runs every network once, so a loaded model has them all, and a photo worker forked
        from a process that loaded it builds none): a session may run from many threads at
        once, each run on the calling thread."""
        session = ort.InferenceSession(self.onnx, _session_options(), providers=["CPUExecutionProvider"])
        return session, session.get_inputs()[0].name

    def logits(self, inputs: NDArray[np.float32]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Uncalibrated rank and suit logits for a batch of inputs."""
        if len(inputs) == 0:
            out = np.zeros((0, NONE_RANK + 1 + NONE_SUIT + 1), np.float32)
        else:
            out = self.outputs(inputs)
        return out[:, : NONE_RANK + 1], out[:, NONE_RANK + 1 :]

    def outputs(self, inputs: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's output rows for a batch of inputs (at least one)."""
        session, name = self._session
        return np.asarray(session.run(None, {name: np.ascontiguousarray(inputs, np.float32)})[0], np.float32)

    def probabilities(self, inputs: NDArray[np.float32]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Calibrated rank and suit probabilities for a batch of inputs."""
        return _calibrated(self.logits(inputs), self.rank_temperature, self.suit_temperature)


def _session_options() -> ort.SessionOptions:
    """A session's options: every run on the thread that calls it (a photo is read on two
    threads already, `vision.recognise.READING_THREADS`, and a server reads two photos at
    once); no memory arena, so a run's buffers go back when it ends (a photo worker's address
    space is capped, `vision.io`; the arena was no faster here); only errors logged."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 3
    return options


@dataclass(frozen=True)
class Network(OnnxNetwork):
    """One perceptron of the ensemble over feature rows (`features_of_maps`): the features
    normalised, two ReLU layers and the two heads, in one ONNX graph (trained with PyTorch by
    `vision.train.models`, its weights stored as float16 to stay small)."""


CONV_GATE = 0.05
"""The convolutional network reads only patches the perceptrons give at least this presence
(about one patch in fifteen of a photo's proposals): the others are bare table, print or the
middle of a card, which the perceptrons already reject, and skipping them keeps a 12 MP photo's
reading time."""

FIRST_LOOK = 0.001
"""The ensemble's other perceptrons read only patches its first one gives at least this presence:
a photo's proposals are mostly bare table, print and card middles, and the first perceptron
alone is all but sure of nine in ten of them. On 11,826 proposals of ten photos (six of
edje_tfod IMG*, four generated shows) the full ensemble gave none of the patches this skips a
presence of 0.1 (it takes 0.5 to be a card), and reading costs about 60 % less perceptron time."""

CONV_SHARE = 0.5
"""Weight of the convolutional network's probabilities against the perceptrons' average."""


@dataclass(frozen=True)
class ConvNet(OnnxNetwork):
    """A small convolutional network over a patch's `ink_maps` (n, 2, PATCH_HEIGHT_PX,
    PATCH_WIDTH_PX)."""


@dataclass(frozen=True)
class Screen(OnnxNetwork):
    """A cheap first look at every patch (`screen_features`, two hidden layers, one output):
    the patches it scores under `threshold` are taken to show no index and are read no
    further, sparing them the perceptrons' features (two gradient histograms) and the first
    perceptron, most of a patch's reading time. Trained by `vision.train.screen` on the
    patches the recogniser reads in generated photos, to score high those the first perceptron
    does not rule out (`FIRST_LOOK`); `threshold` is the lowest score of those it was trained
    on, so it lets through every one of them."""

    threshold: float = 0.0

    def passes(self, maps: NDArray[np.float32]) -> NDArray[np.bool_]:
        """Which patches (their `ink_maps`) the screen lets through to be read."""
        if len(maps) == 0:
            return np.zeros(0, np.bool_)
        return np.asarray(self.outputs(screen_features(maps))[:, 0] >= self.threshold, np.bool_)


def detection_features(
    confidence: NDArray[np.float64],
    whole: NDArray[np.float64],
    support: NDArray[np.float64],
    size_offset: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Rows of the detection calibration's inputs, one per detection: a constant, the fused
    confidence's log-odds, whether the detection is a whole outline (1 or 0), the log of how
    many proposals read the same card, and the size offset (see `detection_confidences`).
    The one definition both the fit in `vision.train` and the recogniser use."""
    raw = np.clip(np.asarray(confidence, np.float64), 1e-6, 1 - 1e-6)
    columns = [np.ones(len(raw)), np.log(raw / (1 - raw)), whole, np.log(support), size_offset]
    return np.stack([np.asarray(c, np.float64) for c in columns], axis=1)


DETECTION_FEATURES = detection_features(np.ones(1) / 2, np.zeros(1), np.ones(1), np.zeros(1)).shape[1]
"""How many weights the detection calibration has."""


@dataclass(frozen=True)
class IndexModel:
    """The trained classifier: several networks trained alike from different starting weights,
    whose calibrated probabilities are averaged (an ensemble errs less, and is less often
    sure of a wrong answer, than any one of its members)."""

    networks: tuple[Network, ...]
    detection_weights: tuple[float, ...] | None = None
    """Logistic calibration of a whole detection (see `detection_confidences`), fitted by
    `vision.train` on synthetic photos; None before it is fitted."""
    conv: ConvNet | None = None
    """The second reader of likely indexes (see `read`); None reads with the perceptrons alone."""
    screen: Screen | None = None
    """The first look that turns most patches away unread (see `read`); None reads every patch
    with the perceptrons."""

    def detection_confidences(
        self,
        confidence: NDArray[np.float64],
        whole: NDArray[np.float64],
        support: NDArray[np.float64],
        size_offset: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """Probability that each detection is right, from its fused confidence, whether it came
        from a whole outline, how many proposals read the same card (`support` >= 1) and how
        far its size is from the photo's surely outlined cards (`size_offset`, a |log ratio|
        beyond the slack a tilted camera explains); one value per detection.

        The raw fused confidence of the best of many proposals runs high (the maximum of
        noisy estimates is biased upwards); this logistic map, fitted on synthetic photos,
        makes the reported number mean what it says.
        """
        if self.detection_weights is None:
            return np.asarray(confidence, np.float64)
        z = detection_features(confidence, whole, support, size_offset) @ np.array(self.detection_weights)
        return cast("NDArray[np.float64]", 1.0 / (1.0 + np.exp(-z)))

    def probabilities(self, features: NDArray[np.float32]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Rank and suit probabilities for feature rows, averaged over the networks."""
        if not self.networks:
            raise ValueError("an index model needs at least one network")
        outputs = [network.probabilities(features) for network in self.networks]
        rank = np.mean([rank for rank, _ in outputs], axis=0)
        suit = np.mean([suit for _, suit in outputs], axis=0)
        return rank, suit

    def screened_probabilities(
        self, features: NDArray[np.float32]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Rank and suit probabilities as `probabilities` gives them, except for the patches the
        first network is all but sure show no index (presence under `FIRST_LOOK`), which it
        reads alone."""
        if not self.networks:
            raise ValueError("an index model needs at least one network")
        first, *others = self.networks
        rank, suit = first.probabilities(features)
        if not others:
            return rank, suit
        rest = np.flatnonzero(index_presence(rank, suit) >= FIRST_LOOK)
        if len(rest):
            outputs = [(rank[rest], suit[rest])]
            outputs += [network.probabilities(features[rest]) for network in others]
            rank[rest] = np.mean([r for r, _ in outputs], axis=0)
            suit[rest] = np.mean([s for _, s in outputs], axis=0)
        return rank, suit

    def read(self, patches: NDArray[np.uint8]) -> list[IndexReading]:
        """Calibrated readings for a batch of BGR patches.

        The screen, if the model has one, turns away the patches it is sure show no index:
        they read "no index" for certain. The first perceptron reads every other patch and the
        others those it does not rule out
        (`FIRST_LOOK`); where they see an index (presence of at least `CONV_GATE`), the
        convolutional network reads it too and the two are averaged (`CONV_SHARE`). It sees
        the strokes the perceptrons' coarse features blur (a club from a spade, a J from a 3,
        at a few pixels a stroke): on held-out synthetic index patches it names both rank and
        suit right 94.9 % of the time, the perceptrons 91.5 % and the mixture 95.1 %.
        """
        if len(patches) == 0:
            return []
        rank, suit = self.read_maps(ink_maps(patches))
        return [IndexReading(rank=r, suit=s) for r, s in zip(rank, suit, strict=True)]

    def read_maps(
        self, maps: NDArray[np.float32], features: NDArray[np.float32] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Rank and suit probabilities, as `read` gives them, for the `ink_maps` of some
        patches (and their features, when already worked out)."""
        if self.screen is None:
            return self._read_unscreened(maps, features)
        passed = np.flatnonzero(self.screen.passes(maps))
        rank = np.zeros((len(maps), NONE_RANK + 1))
        suit = np.zeros((len(maps), NONE_SUIT + 1))
        rank[:, NONE_RANK] = 1.0
        suit[:, NONE_SUIT] = 1.0
        if len(passed):
            rank[passed], suit[passed] = self._read_unscreened(
                maps[passed], None if features is None else features[passed]
            )
        return rank, suit

    def _read_unscreened(
        self, maps: NDArray[np.float32], features: NDArray[np.float32] | None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """`read_maps` for patches the screen lets through (or every patch, without one)."""
        rank, suit = self.screened_probabilities(features_of_maps(maps) if features is None else features)
        if self.conv is not None:
            likely = np.flatnonzero(index_presence(rank, suit) >= CONV_GATE)
            conv_rank, conv_suit = self.conv.probabilities(maps[likely])
            rank[likely] = (1.0 - CONV_SHARE) * rank[likely] + CONV_SHARE * conv_rank
            suit[likely] = (1.0 - CONV_SHARE) * suit[likely] + CONV_SHARE * conv_suit
        return rank, suit

    def save(self, path: Path) -> None:
        """Write the model as a compressed .npz."""
        arrays: dict[str, NDArray[np.generic]] = {
            "networks": np.array(len(self.networks)),
            "detection_weights": np.array(self.detection_weights or ()),
            "feature_length": np.array(feature_length()),
        }
        for k, network in enumerate(self.networks):
            arrays[f"net{k}_onnx"] = np.frombuffer(network.onnx, np.uint8)
            arrays[f"net{k}_temperatures"] = np.array([network.rank_temperature, network.suit_temperature])
        if self.conv is not None:
            arrays["conv_onnx"] = np.frombuffer(self.conv.onnx, np.uint8)
            arrays["conv_temperatures"] = np.array([self.conv.rank_temperature, self.conv.suit_temperature])
        if self.screen is not None:
            arrays["screen_onnx"] = np.frombuffer(self.screen.onnx, np.uint8)
            arrays["screen_threshold"] = np.array(self.screen.threshold)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> IndexModel:
        """Read a model written by `save`; FileNotFoundError names the rebuild command."""
        if not path.exists():
            raise FileNotFoundError(f"no trained model at {path}; build it with `python -m vision.train`")
        with np.load(path) as data:
            if int(data["feature_length"]) != feature_length() or "networks" not in data:
                raise ValueError(f"model {path} was built for other features; run `python -m vision.train`")
            weights = tuple(float(v) for v in data["detection_weights"])
            if weights and len(weights) != DETECTION_FEATURES:
                raise ValueError(
                    f"model {path} was calibrated on other detection features; run `python -m vision.train`"
                )
            networks = []
            for k in range(int(data["networks"])):
                if f"net{k}_onnx" not in data:
                    raise ValueError(
                        f"model {path} holds perceptrons of an older format; run `python -m vision.train`"
                    )
                temperatures = data[f"net{k}_temperatures"]
                network = Network(
                    data[f"net{k}_onnx"].tobytes(), float(temperatures[0]), float(temperatures[1])
                )
                rows = np.zeros((1, feature_length()), np.float32)
                networks.append(_runs(network, rows, "a perceptron", path))
            conv = _stored_conv(data, path)
            return cls(
                networks=tuple(networks),
                detection_weights=weights or None,
                conv=conv,
                screen=_stored_screen(data, path),
            )


def _stored_conv(data: Mapping[str, NDArray[np.generic]], path: Path) -> ConvNet | None:
    """The convolutional network stored in a model file's arrays, checked to run; None if the
    model has none."""
    if "conv_onnx" not in data:
        return None
    temperatures = data["conv_temperatures"]
    conv = ConvNet(data["conv_onnx"].tobytes(), float(temperatures[0]), float(temperatures[1]))
    maps = np.zeros((1, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), np.float32)
    return _runs(conv, maps, "a convolutional network", path)


def _stored_screen(data: Mapping[str, NDArray[np.generic]], path: Path) -> Screen | None:
    """The screen stored in a model file's arrays, checked to run; None if the model has none."""
    if "screen_onnx" not in data:
        return None
    screen = Screen(data["screen_onnx"].tobytes(), threshold=float(data["screen_threshold"]))
    return _runs(screen, np.zeros((1, _screen_length()), np.float32), "a screen", path)


_Stored = TypeVar("_Stored", bound=OnnxNetwork)

_ONNX_ERRORS = tuple(
    error
    for error in vars(ort.capi.onnxruntime_pybind11_state).values()
    if isinstance(error, type) and issubclass(error, Exception)
)
"""ONNX Runtime's own errors (a graph it cannot parse, load or run): each is its own class,
straight under `Exception`."""


def _runs(network: _Stored, inputs: NDArray[np.float32], what: str, path: Path) -> _Stored:
    """`network` (`what`, of the model file at `path`) once it has read `inputs`: a damaged
    network fails here, when the model is loaded, not on the first photo."""
    try:
        network.outputs(inputs)
    except _ONNX_ERRORS as error:
        raise ValueError(
            f"model {path} holds {what} ONNX Runtime cannot run; run `python -m vision.train`"
        ) from error
    return network


def stored_conv(path: Path) -> ConvNet | None:
    """The convolutional network of the model file at `path` alone (whatever the format of its
    perceptrons), for a training run that keeps it; None if it has none."""
    with np.load(path) as data:
        return _stored_conv(data, path)


@functools.cache
def default_model() -> IndexModel:
    """The committed model, loaded once per process."""
    return IndexModel.load()


def _calibrated(
    logits: tuple[NDArray[np.float32], NDArray[np.float32]], rank_temperature: float, suit_temperature: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Rank and suit probabilities from a network's two heads' logits and temperatures."""
    rank_logits, suit_logits = logits
    return (
        softmax(rank_logits.astype(np.float64) / rank_temperature),
        softmax(suit_logits.astype(np.float64) / suit_temperature),
    )


def softmax(logits: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row-wise softmax."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return cast("NDArray[np.float64]", exp / exp.sum(axis=-1, keepdims=True))
