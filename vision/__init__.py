"""Muggins vision: read the cards in a table photo.

    >>> from vision import recognise
    >>> result = recognise("show.jpg")          # doctest: +SKIP
    >>> [(d.card, round(d.confidence, 2)) for d in result.cards]  # doctest: +SKIP
    [('5H', 0.99), ('5C', 0.98), ('5S', 0.99), ('JD', 0.97), ('5D', 0.99)]

`recognise` accepts JPEG/PNG/WebP/HEIC bytes, a path or a BGR array and returns a
`Recognition` (cards and warnings); bad input raises `ImageError` (a ValueError).
"""

from vision.io import ImageError
from vision.recognise import Detection, Recognition, recognise

__all__ = ["Detection", "ImageError", "Recognition", "recognise"]
