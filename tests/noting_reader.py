"""A photo reader for the tests that notes what the page asked of it, then reads as the app does.

Its own module, apart from ``photo_readers``: it imports the app's reader (``web.reader``, which
loads the recogniser's model and keeps OpenCV on one thread), and a photo worker must import it
before the worker's limits are set, as the worker unpickles its reader, not while reading.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision import Recognition
from web.reader import read_cards

__all__ = ["read_noting_expect"]


def read_noting_expect(folder: str, pixels: NDArray[np.uint8], expect: int | None = None) -> Recognition:
    """The app's own reader (``web.reader.read_cards``) on the photo, after writing the count the
    page expects (``expect``, "None" when it gave none) to the next numbered file in ``folder``."""
    (Path(folder) / f"read-{len(os.listdir(folder))}").write_text(str(expect))
    return read_cards(pixels, expect=expect)
