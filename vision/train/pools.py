"""Worker pools for generating samples and calibrating: forked workers that inherit the face
library (and the model being calibrated), each running OpenCV on one thread."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
from collections.abc import Iterator

import cv2

from vision.synth import FaceLibrary, full_library

_LIBRARIES: dict[int, FaceLibrary] = {}


def worker_library(seed: int) -> FaceLibrary:
    """The face library of `seed`, rendered once per process."""
    if seed not in _LIBRARIES:
        _LIBRARIES[seed] = full_library(seed)
    return _LIBRARIES[seed]


@contextlib.contextmanager
def fork_pool(workers: int) -> Iterator[multiprocessing.pool.Pool]:
    """A pool of forked workers (they inherit the face library and the model being calibrated),
    each running OpenCV on one thread: the pool already uses every core.

    OpenCV's own thread pool is stopped in this process first and restarted afterwards: a
    child forked while its threads are parked (after any parallel OpenCV call here) deadlocks in
    its first cv2.setNumThreads.
    """
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with multiprocessing.get_context("fork").Pool(workers, cv2.setNumThreads, (1,)) as pool:
            yield pool
    finally:
        cv2.setNumThreads(threads)
