"""The screen (`classify.Screen`): a cheap first look that turns away the patches the first
perceptron would rule out, trained on what the recogniser itself reads.

Generated photos of every kind the recogniser meets (shows typical, harsh and with the starter
apart, hands held fanned, tables of 1-10 cards, bridge-style deals fanned, laid straight, laid
tight and under a shadow) are read untold, as the API reads them, by the model without a
screen; every patch it reads is kept with the first perceptron's index presence, which labels
it: one to let through when that is at least `classify.FIRST_LOOK`. The screen is fitted to
score those high (weighted `POSITIVE_WEIGHT` times the others), and its threshold set at the
lowest score of any of them, read through ONNX Runtime as the recogniser reads it: on the photos it
was trained on, it turns away no patch the first perceptron lets through.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.classify import FIRST_LOOK, IndexModel, Screen, features_of_maps, index_presence, screen_features
from vision.recognise import recognise
from vision.synth import (
    FaceLibrary,
    SyntheticPhoto,
    render_deal,
    render_held_hand,
    render_shaded_deal,
    render_show,
    render_spread_deal,
    render_table,
    render_tight_deal,
)
from vision.train.models import export_onnx, torch_module
from vision.train.pools import fork_pool, worker_library

SCREEN_PHOTOS = 240
"""Generated photos read to train the screen (about a thousand patches each)."""

SCREEN_HELD_OUT = 60
"""Generated photos (other seeds) read to report what the screen turns away."""

SCREEN_SIZES = ((1600, 1200), (1280, 960), (800, 600))
"""Photo sizes: what the count page sends, the working size, and a small photo."""

SCREEN_HIDDEN = (256, 128)
"""Units of the screen's two ReLU layers (about 4 µs a patch through ONNX Runtime). With one layer of
128, set to let through every patch it was trained to, it turned away 46 % of the held-out
patches (67 % with these), losing none of those read as an index (5 of 12,979 with these)."""

SCREEN_EPOCHS = 30
POSITIVE_WEIGHT = 20.0
"""How much more a patch to let through weighs in the loss than one to turn away: losing an
index costs a card, reading a blank patch only time."""

_READING: IndexModel | None = None


def _photo(kind: int, rng: random.Random, library: FaceLibrary, size: tuple[int, int]) -> SyntheticPhoto:
    """The generated photo of `kind` (one of `PHOTO_KINDS`) at the seed `rng` draws, or at the
    next it draws where the generator finds no photo of that kind for a seed (a few fans or
    deals in a thousand)."""
    while True:
        try:
            return _render(kind, rng.getrandbits(40), library, size)
        except RuntimeError:
            continue


def _render(kind: int, seed: int, library: FaceLibrary, size: tuple[int, int]) -> SyntheticPhoto:
    """The generated photo of `kind` at `seed` (RuntimeError when there is none)."""
    render, options = _KINDS[kind]
    return render(seed, library, size, **options)


_KINDS: tuple[tuple[Callable[..., SyntheticPhoto], dict[str, bool]], ...] = (
    (render_show, {"harsh": False}),
    (render_show, {"harsh": True}),
    (render_show, {"harsh": False, "apart": True}),
    (render_held_hand, {}),
    (render_table, {}),
    (render_deal, {}),
    (render_spread_deal, {}),
    (render_tight_deal, {}),
    (render_shaded_deal, {}),
)
"""The kinds of photo `_photo` draws, in turn: a renderer and its options."""

PHOTO_KINDS = len(_KINDS)


@dataclass(frozen=True)
class ScreenSamples:
    """Patches the recogniser read, as stored ink maps (0-255), with the first perceptron's
    index presence and the whole reading's."""

    maps: NDArray[np.uint8]
    first: NDArray[np.float64]
    whole: NDArray[np.float64]

    @staticmethod
    def concat(parts: Sequence[ScreenSamples]) -> ScreenSamples:
        """Join several sets, in order."""
        joined = (np.concatenate([getattr(part, f.name) for part in parts]) for f in fields(ScreenSamples))
        return ScreenSamples(*joined)

    @property
    def passing(self) -> NDArray[np.bool_]:
        """The patches the screen must let through: the first perceptron does not rule them out."""
        return np.asarray(self.first >= FIRST_LOOK, np.bool_)


@dataclass(frozen=True)
class _Recording(IndexModel):
    """A model that keeps every batch of patches it reads, with the first perceptron's index
    presence and the whole reading's."""

    seen: list[ScreenSamples] = field(default_factory=list, compare=False)

    def read_maps(
        self, maps: NDArray[np.float32], features: NDArray[np.float32] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        rows = features_of_maps(maps) if features is None else features
        first = index_presence(*self.networks[0].probabilities(rows))
        rank, suit = super().read_maps(maps, rows)
        stored = np.round(maps * np.float32(255.0)).astype(np.uint8)
        self.seen.append(ScreenSamples(stored, first, index_presence(rank, suit)))
        return rank, suit


def _read_chunk(args: tuple[int, int, int, int]) -> ScreenSamples:
    """Read `photos` generated photos (the kinds in turn from `first_kind`) untold on one
    thread, and keep every patch read."""
    seed, library_seed, first_kind, photos = args
    if _READING is None:
        raise RuntimeError("no model to read with")
    library = worker_library(library_seed)
    rng = random.Random(seed)
    recording = _Recording(
        networks=_READING.networks, detection_weights=_READING.detection_weights, conv=_READING.conv
    )
    for i in range(photos):
        size = rng.choice(SCREEN_SIZES)
        photo = _photo((first_kind + i) % PHOTO_KINDS, rng, library, size)
        recognise(photo.jpeg_bytes(), recording, threads=1)
    return ScreenSamples.concat(recording.seen)


def screen_samples(model: IndexModel, seed: int, photos: int, workers: int, chunk: int = 20) -> ScreenSamples:
    """Every patch `model` (its screen left out) reads in `photos` generated photos drawn from
    `seed`, read untold on one thread each, in a pool of `workers`."""
    global _READING
    _READING = replace(model, screen=None)
    jobs = [
        (seed * 7919 + i, seed, start % PHOTO_KINDS, min(chunk, photos - start))
        for i, start in enumerate(range(0, photos, chunk))
    ]
    try:
        if workers <= 1:
            parts = [_read_chunk(job) for job in jobs]
        else:
            with fork_pool(workers) as pool:
                parts = pool.map(_read_chunk, jobs)
    finally:
        _READING = None
    return ScreenSamples.concat(parts)


def cached_screen_samples(
    cache: Path | None, model: IndexModel, seed: int, photos: int, workers: int
) -> ScreenSamples:
    """`screen_samples(model, seed, photos, workers)`, kept in `cache` (a folder; None keeps
    nothing) under the first perceptron's digest, since its presence labels them."""
    if cache is None:
        return screen_samples(model, seed, photos, workers)
    digest = hashlib.sha256(model.networks[0].onnx).hexdigest()[:12]
    path = cache / f"screen-seed{seed}-{photos}-{digest}.npz"
    if path.exists():
        with np.load(path) as data:
            return ScreenSamples(data["maps"], data["first"], data["whole"])
    samples = screen_samples(model, seed, photos, workers)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, maps=samples.maps, first=samples.first, whole=samples.whole)
    return samples


def _features(samples: ScreenSamples, chunk: int = 4096) -> NDArray[np.float32]:
    """The screen's features of every sample, as the recogniser makes them."""
    return np.concatenate(
        [
            screen_features(samples.maps[i : i + chunk].astype(np.float32) / np.float32(255.0))
            for i in range(0, len(samples.maps), chunk)
        ]
    )


def train_screen(samples: ScreenSamples, seed: int, epochs: int = SCREEN_EPOCHS, log: bool = True) -> Screen:
    """Fit the screen to let `samples.passing` through, export it to ONNX, and set its threshold
    at the lowest score OpenCV gives any of those."""
    torch = torch_module()
    torch.manual_seed(seed)
    features = _features(samples)
    labels = samples.passing.astype(np.float32)
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-3
    net = _screen_module(torch, mean, scale)
    optimiser = torch.optim.Adam(net.parameters(), 2e-3, weight_decay=1e-5)
    steps = epochs * math.ceil(len(labels) / 256)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    inputs, targets = torch.from_numpy(features), torch.from_numpy(labels)
    weights = torch.where(targets > 0, POSITIVE_WEIGHT, 1.0)
    generator = torch.Generator().manual_seed(seed)
    loss_of = torch.nn.functional.binary_cross_entropy_with_logits
    net.train()
    for epoch in range(epochs):
        order = torch.randperm(len(labels), generator=generator)
        total = 0.0
        for start in range(0, len(order), 256):
            idx = order[start : start + 256]
            loss = loss_of(net(inputs[idx])[:, 0], targets[idx], weight=weights[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.item()) * len(idx)
        if log and (epoch + 1) % 10 == 0:
            print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(labels):.4f}", flush=True)
    net.eval()
    screen = Screen(export_onnx(torch, net, (1, features.shape[1]), "features"))
    scores = _scores(screen, features)
    threshold = float(scores[samples.passing].min()) if samples.passing.any() else math.inf
    return Screen(screen.onnx, threshold=threshold)


def _screen_module(torch: Any, mean: NDArray[np.float32], scale: NDArray[np.float32]) -> Any:
    """The untrained screen as a torch module: (features - mean) / scale, the `SCREEN_HIDDEN`
    ReLU layers, one output."""
    nn = torch.nn
    module: Any = nn.Module

    class ScreenModule(module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.from_numpy(np.asarray(mean, np.float32)))
            self.register_buffer("scale", torch.from_numpy(np.asarray(scale, np.float32)))
            sizes = [len(mean), *SCREEN_HIDDEN]
            self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
            self.out = nn.Linear(sizes[-1], 1)

        def forward(self, x: Any) -> Any:
            x = (x - self.mean) / self.scale
            for layer in self.hidden:
                x = torch.relu(layer(x))
            return self.out(x)

    return ScreenModule()


def _scores(screen: Screen, features: NDArray[np.float32], chunk: int = 4096) -> NDArray[np.float32]:
    """The screen's score of every feature row, read through ONNX Runtime."""
    parts = [screen.outputs(features[i : i + chunk])[:, 0] for i in range(0, len(features), chunk)]
    return np.concatenate(parts)


def screen_report(screen: Screen, samples: ScreenSamples) -> str:
    """What the screen turns away of `samples` (held out): every patch, those the first
    perceptron lets through, and those the whole reading reads as an index."""
    kept = _scores(screen, _features(samples)) >= screen.threshold
    cards = samples.whole >= 0.5
    return (
        f"screen on {len(kept)} held-out patches: turns away {1 - kept.mean():.1%}; "
        f"lets through {int((kept & samples.passing).sum())} of {int(samples.passing.sum())} the first "
        f"perceptron does and {int((kept & cards).sum())} of {int(cards.sum())} read as an index (0.5)"
    )
