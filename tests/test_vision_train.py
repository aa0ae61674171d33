"""The training data generator: labels from the generator's truth, and the balance of its
"no index" samples. (The model itself is measured by `vision.evaluate`, not here.)"""

from __future__ import annotations

import random

import numpy as np
import pytest

from vision.classify import NONE_RANK, NONE_SUIT
from vision.geometry import PATCH_HEIGHT_PX, PATCH_WIDTH_PX
from vision.synth import procedural_library
from vision.train import MINED_NEGATIVES, mined_samples

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
