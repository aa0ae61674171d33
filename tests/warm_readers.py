"""A photo reader whose module warms its ready workers up by holding memory (see
``vision.io.READY_WORKER``): for the test that a ready worker's limits count its warm-up.

Its own module, not ``photo_readers``: the web tests' readers come from there, and a ready
worker started for one of them would run this warm-up too.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision import Recognition

__all__ = ["HELD_BYTES", "NEEDED_BYTES", "read_needing", "warm_up"]

HELD_BYTES = 120 * 2**20
"""What `warm_up` takes and keeps: over half a photo worker's 200 MiB."""

NEEDED_BYTES = 100 * 2**20
"""What `read_needing` takes for any photo: half a photo worker's 200 MiB, so it fits a fresh
worker but not one that holds `HELD_BYTES` too."""

_held: list[NDArray[np.uint8]] = []


def warm_up() -> None:
    """Take `HELD_BYTES` (filled, so they are really used) and keep them."""
    _held.append(np.ones(HELD_BYTES, np.uint8))


def read_needing(pixels: NDArray[np.uint8]) -> Recognition:
    """A reader that needs `NEEDED_BYTES` of memory for any photo, and says whether its worker
    warmed up first."""
    block = np.ones(NEEDED_BYTES, np.uint8)
    return Recognition(warnings=[f"used {int(block.sum())} bytes, warm: {bool(_held)}"])
