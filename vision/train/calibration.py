"""Calibrating whole detections: synthetic photos read end to end by the recogniser, each
detection labelled right only if its card is in the photo and the index it read lies on that
card; a logistic regression on the detection's features (`classify.detection_features`)
gives the reported `confidence`. Fitted here, never on evaluation shows."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np

from vision.classify import IndexModel, detection_features
from vision.io import load_image
from vision.recognise import calibrate, find_candidates, merge
from vision.synth import render_show, render_table
from vision.train.pools import fork_pool, worker_library

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
    library = worker_library(library_seed)
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
    with fork_pool(workers) as pool:
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
