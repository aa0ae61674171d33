"""The training data generator: labels from the generator's truth, and the balance of its
"no index" samples. (The model itself is measured by `vision.evaluate`, not here.)"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classify import NONE_RANK, NONE_SUIT, default_model
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX
from vision.synth import procedural_library
from vision.train import MINED_NEGATIVES, _fork_pool, mined_samples

PROPOSAL_KINDS = 3
"""Outlines, lone corners and glyph frames: negatives are capped per kind."""


@pytest.mark.parametrize("seed", [11, 12])
def test_mined_samples_are_labelled_patches_with_negatives_capped_per_kind(seed: int) -> None:
    samples = mined_samples(random.Random(seed), procedural_library(seed, count=4))
    assert samples
    negatives = [s for s in samples if s[1] == NONE_RANK]
    cards = [s for s in samples if s[1] != NONE_RANK]
    # Every "no index" sample says so in both heads; every card sample names a real card.
    assert all(suit == NONE_SUIT for _, _, suit in negatives)
    assert all(rank < NONE_RANK and suit < NONE_SUIT for _, rank, suit in cards)
    # Each kind of proposal gives at most MINED_NEGATIVES; more than that in all means more
    # than one kind was drawn from (a table photo has plenty of every kind).
    assert MINED_NEGATIVES < len(negatives) <= PROPOSAL_KINDS * MINED_NEGATIVES
    assert all(patch.shape == (PATCH_HEIGHT_PX, PATCH_WIDTH_PX, 3) and patch.dtype == np.uint8
               for patch, _, _ in samples)


@functools.cache
def _maps() -> np.ndarray:
    return np.random.default_rng(3).random((4000, 2, PATCH_HEIGHT_PX, PATCH_WIDTH_PX), dtype=np.float32)


def _read_in_worker(rows: int) -> float:
    conv = default_model().conv
    assert conv is not None
    return float(conv.logits(_maps()[:rows])[0].sum())


@pytest.mark.timeout(60)
def test_workers_forked_after_the_network_ran_here_do_not_hang() -> None:
    # Training fits the network's temperatures here, then forks workers to calibrate whole
    # photos: a child forked while OpenCV's threads are parked deadlocked in its first
    # cv2.setNumThreads (the pool's workers each set one thread), and the run hung after half
    # an hour of work.
    conv = default_model().conv
    assert conv is not None
    threads = cv2.getNumThreads()
    runs = []
    for _ in range(5):
        conv.logits(_maps())  # a parallel OpenCV call in this process
        with _fork_pool(2) as pool:
            runs.append(pool.map(_read_in_worker, [50, 60, 70]))
    assert cv2.getNumThreads() == threads
    expected = [float(conv.logits(_maps()[:n])[0].sum()) for n in (50, 60, 70)]
    for sums in runs:
        assert sums == pytest.approx(expected, rel=1e-5)


def test_training_refuses_to_start_without_the_svg_decks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Procedural faces alone made a model that read every real spade as a club; the trainer says
    # which packages are missing before generating anything.
    from vision import decks
    from vision.train import cli

    gone = decks.SvgDeck("aisleriot-gone", str(tmp_path / "gone.svgz"), False, "test", "none")
    monkeypatch.setattr(decks, "SVG_DECKS", (gone,))
    monkeypatch.setattr(cli, "SVG_DECKS", (gone,))
    monkeypatch.setenv("MUGGINS_VISION_CACHE", str(tmp_path / "cache"))
    assert decks.missing_svg_decks() == ["aisleriot-gone"]
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--out", str(tmp_path / "model.npz")])
    assert stopped.value.code == 2
    assert "gnome-cards-data" in capsys.readouterr().err
    assert not (tmp_path / "model.npz").exists()
