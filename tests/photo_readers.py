"""Photo readers for the tests: a generated photo read exactly as its truth says, and a greedy one.

The web app runs its photo reader (the app setting ``MUGGINS_PHOTO_READER``) in a limited worker
process, so a test that wants the pages' behaviour independent of the recogniser's model gives
the app ``functools.partial(read_as, cards, quads, width)``: picklable, imported by the worker from
this module (tests/ is on the path the worker inherits).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import threadpoolctl
from numpy.typing import NDArray

from vision import Detection, Recognition
from vision.starter import lying_apart

__all__ = [
    "GREEDY_BYTES", "crash_first", "read_as", "read_greedily", "spin", "thread_pools", "where_blocks_live",
]

GREEDY_BYTES = 2**30
"""What `read_greedily` asks for: far past a photo worker's memory limit."""


def read_as(cards: Sequence[str], quads: Sequence[Sequence[tuple[float, float]]], width: int,
            pixels: NDArray[np.uint8], expect: int | None = None,
            starter: str | None = None) -> Recognition:
    """Every card of the truth, sure of each, its corners shrunk to the working size it is given
    (``width``: the photo's own width in pixels), and the card lying apart, as the recogniser
    says it from the corners. The count the page expects (``expect``) and the starter it knows
    (``starter``) change nothing here."""
    scale = pixels.shape[1] / width
    found = [Detection(code, 0.99, [(x * scale, y * scale) for x, y in quad])
             for code, quad in zip(cards, quads, strict=True)]
    return Recognition(cards=found, starter=lying_apart([d.corners for d in found]))


def read_greedily(pixels: NDArray[np.uint8]) -> Recognition:
    """A reader that needs `GREEDY_BYTES` of memory for any photo (filled, so it is really used)."""
    hoard = np.ones(GREEDY_BYTES, dtype=np.uint8)
    return Recognition(warnings=[f"held {int(hoard.sum())} bytes"])


def thread_pools(pixels: NDArray[np.uint8]) -> dict[str, int]:
    """Not a reading: how many threads each of the worker's thread pools would use, after a
    matrix product as large as a photo's feature rows times a network layer."""
    features = np.ones((1200, 2216), np.float32)
    (features @ np.ones((2216, 64), np.float32)).sum()
    pools = {f"{pool['internal_api']} ({pool['user_api']})": pool["num_threads"]
             for pool in threadpoolctl.threadpool_info()}
    return {**pools, "opencv": cv2.getNumThreads()}


def where_blocks_live(pixels: NDArray[np.uint8], mib: int = 16) -> tuple[str, bool]:
    """Not a reading: the mapping (from /proc/self/maps) a block of ``mib`` MiB is allocated in,
    and whether the next block of that size, once it is freed, is given the same place."""
    block = np.ones(mib * 2**20, np.uint8)
    address = block.ctypes.data
    del block
    again = np.ones(mib * 2**20, np.uint8)
    same = again.ctypes.data == address
    for line in Path("/proc/self/maps").read_text().splitlines():
        span, *rest = line.split()
        low, high = (int(end, 16) for end in span.split("-"))
        if low <= again.ctypes.data < high:
            return (rest[4] if len(rest) > 4 else "anonymous"), same
    return "unmapped", same


def crash_first(tries: str, crashes: int, pixels: NDArray[np.uint8]) -> Recognition:
    """A reader whose first ``crashes`` tries die by a segmentation fault, as a library's bug
    would kill a worker; each try leaves a file in the folder ``tries``."""
    folder = Path(tries)
    count = len(list(folder.iterdir()))
    (folder / f"try-{count + 1}").touch()
    if count < crashes:
        os.kill(os.getpid(), signal.SIGSEGV)
    return Recognition(warnings=[f"read at try {count + 1}"])


def spin(tries: str, pixels: NDArray[np.uint8]) -> Recognition:
    """A reader that never ends (until its CPU limit stops it); each try leaves a file in ``tries``."""
    folder = Path(tries)
    (folder / f"try-{len(list(folder.iterdir())) + 1}").touch()
    while True:
        pass
