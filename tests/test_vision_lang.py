"""A refused photo is refused in the player's language, also when a worker process decodes it
(the worker does not inherit the caller's context: the language travels with the job)."""

from __future__ import annotations

import pytest

from scorer.i18n import using
from vision.io import ImageError, decode_bytes, decode_upload

NOT_AN_IMAGE = b"these bytes are no photo"


def test_english_refusal_is_unchanged() -> None:
    with pytest.raises(ImageError, match=r"^not an image: 'upload' is not JPEG, PNG, WebP or HEIC$"):
        decode_bytes(NOT_AN_IMAGE)


def test_refusal_in_this_process_follows_the_language() -> None:
    with using("hi"), pytest.raises(ImageError) as info:
        decode_bytes(NOT_AN_IMAGE)
    # Written by hand: "तस्वीर नहीं" is "not an image"; the format names stay as they are.
    assert str(info.value) == "तस्वीर नहीं: 'upload' JPEG, PNG, WebP या HEIC नहीं है"


def test_refusal_from_a_worker_follows_the_language() -> None:
    with using("tg"), pytest.raises(ImageError) as info:
        decode_upload(NOT_AN_IMAGE)
    assert str(info.value) == "тасвир нест: 'upload' JPEG, PNG, WebP ё HEIC нест"
