"""The photo reader the web app runs in its photo workers: the recogniser, its model loaded once.

``vision.io.decode_and_read`` runs the reader named by the app setting ``MUGGINS_PHOTO_READER``
(default ``"web.reader:read_cards"``) in a limited worker process, after the decode. The worker's
forkserver imports this module once, so the model is loaded there (about 0.13 s of CPU and a few
MiB) and every worker forked from it starts with it; the server process itself never imports
this module, so it never holds the model.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.classify import default_model
from vision.io import DECODED_LONG_SIDE_PX
from vision.recognise import Recognition, recognise

__all__ = ["read_cards", "warm_up"]

# One thread, before the model's test run: OpenCV would otherwise start its thread pool in the
# forkserver, and a worker forked from it would hang on the pool's locks at its first parallel loop
# (a 12 MP photo did, 30 s until killed). The workers keep OpenCV's pool at one thread anyway (the
# recogniser's own second thread is a plain Python thread, started in the worker).
cv2.setNumThreads(1)
# Cached for the process, loaded (which builds its networks' sessions, each run by whichever
# threads read at once): at import in the forkserver, so every worker has them and builds none.
default_model()


def read_cards(pixels: NDArray[np.uint8], expect: int | None = None,
               starter: str | None = None) -> Recognition:
    """The recogniser's reading of a photo decoded at ``vision.io.DECODED_LONG_SIDE_PX``, corners in
    its pixels; ``expect``: how many cards the page wants from it (see ``vision.recognise``).
    ``starter``: a card the page knows, which may lie in the photo besides those (a match's
    starter, beside the hand): read among fewer than ``expect`` others, the photo holds one card
    more than it was told, and is read again told so. Told four, a reading stops as soon as its
    outlines read four cards surely, and the starter may be one of them."""
    result = recognise(pixels, expect=expect)

    def others(reading: Recognition) -> int:
        return sum(d.card != starter for d in reading.cards)

    if expect is None or starter is None or others(result) == len(result.cards) or others(result) >= expect:
        return result  # the starter not read, or read beside every card asked for
    again = recognise(pixels, expect=expect + 1)
    return again if others(again) > others(result) else result


def warm_up() -> None:
    """Read a blank photo of the size photos are decoded at once, in a photo worker that waits
    ready for its photo (``vision.io.READY_WORKER``): the memory a reading's arrays take is then
    the worker's own, its pages already mapped, and the libraries' first calls are made, before
    the photo comes (see ``bench/bench_ready_worker.py``)."""
    recognise(np.full((DECODED_LONG_SIDE_PX * 3 // 4, DECODED_LONG_SIDE_PX, 3), 128, np.uint8))
