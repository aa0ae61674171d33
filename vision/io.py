"""Turn what a player uploads into a BGR pixel array the recogniser can work on.

Accepts JPEG, PNG, WebP and HEIC (iPhone) bytes, a file path, or a BGR array. EXIF
orientation is applied, so "up" is up as the phone showed it. The pixel count is read from the
file header and refused above `MAX_PIXELS` before anything is decoded (a small file can
declare a huge image: a decompression bomb). Large photos are decoded at reduced size where
the format allows (JPEG's DCT scaling) and shrunk to `WORKING_LONG_SIDE_PX`, which keeps a
12-megapixel photo fast.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np
import pillow_heif
from numpy.typing import NDArray
from PIL import Image, ImageOps, UnidentifiedImageError

pillow_heif.register_heif_opener()

MAX_PIXELS = 40_000_000
"""Largest image accepted, in pixels: above any phone's default photo (12-24 MP) and its
48-50 MP full-sensor mode is refused by the contract, which bounds decode memory to ~120 MB."""

MAX_FILE_BYTES = 60 * 1024 * 1024
"""Largest file read from a path, in bytes; a 40 MP PNG fits, anything bigger is not a photo."""

WORKING_LONG_SIDE_PX = 1280
"""Long side, in pixels, the recogniser works at: cards in a table photo then span about
150-400 px, plenty for their corner index, and every stage stays fast on a phone photo."""

ACCEPTED_FORMATS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIC"}
"""Pillow format names accepted, and how messages name them (MPO is the JPEG variant some
phones write, with a depth map appended)."""

TRANSPARENT_FILL = (128, 128, 128)
"""Colour put behind transparent pixels: a neutral grey table that white cards stand out on."""


class ImageError(ValueError):
    """The input is not an image the recogniser can read; the message says why."""


@dataclass(frozen=True)
class LoadedImage:
    """A decoded photo at working size, and how it maps back to the original."""

    pixels: NDArray[np.uint8]
    """BGR pixels, at most `WORKING_LONG_SIDE_PX` on the long side."""
    original_size: tuple[int, int]
    """(width, height) of the photo after EXIF orientation, in its own pixels."""
    scale: float
    """Original pixels per working pixel (1.0 when the photo was small enough)."""


ImageInput = bytes | bytearray | memoryview | str | os.PathLike[str] | NDArray[np.uint8]
"""What `load_image` accepts."""


def load_image(source: ImageInput, long_side: int = WORKING_LONG_SIDE_PX) -> LoadedImage:
    """Decode bytes, a path or a BGR array into a `LoadedImage`; ImageError if it cannot."""
    if isinstance(source, np.ndarray):
        return _from_array(source, long_side)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_bytes(bytes(source), long_side)
    return decode_bytes(_read_file(os.fspath(source)), long_side, where=os.fspath(source))


def _read_file(path: str) -> bytes:
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise ImageError(f"file too large for a photo: {path!r} is {size} bytes")
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ImageError(f"no such file: {path!r}") from None
    except IsADirectoryError:
        raise ImageError(f"not a file: {path!r} is a folder") from None
    except OSError as error:
        raise ImageError(f"cannot read {path!r}: {error.strerror or error}") from None


def decode_bytes(data: bytes, long_side: int = WORKING_LONG_SIDE_PX, where: str = "upload") -> LoadedImage:
    """Decode image bytes (JPEG, PNG, WebP, HEIC) with EXIF orientation applied."""
    if not data:
        raise ImageError(f"empty file: {where!r} has no bytes")
    try:
        with warnings.catch_warnings():
            # Our own, stricter limit is checked just below; Pillow's warning would only repeat it.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise ImageError(f"image too large: {where!r} declares more than {MAX_PIXELS / 1e6:.0f} MP") from None
    except UnidentifiedImageError:
        raise ImageError(f"not an image: {where!r} is not JPEG, PNG, WebP or HEIC") from None
    except (OSError, ValueError) as error:
        raise ImageError(f"unreadable image {where!r}: {error}") from None
    with image:
        kind = ACCEPTED_FORMATS.get(image.format or "")
        if kind is None:
            raise ImageError(
                f"unsupported image format {image.format} in {where!r}: use JPEG, PNG, WebP or HEIC"
            )
        width, height = image.size
        check_pixel_count(width, height, where)
        if kind == "JPEG":
            # DCT scaling decodes straight to 1/2, 1/4 or 1/8 size: far faster than full decode.
            factor = max(width, height) / long_side
            if factor >= 2:
                image.draft("RGB", (int(width / factor) + 1, int(height / factor) + 1))
        try:
            image.load()
            oriented = ImageOps.exif_transpose(image)
        except (OSError, ValueError, SyntaxError) as error:
            raise ImageError(f"truncated or corrupt {kind} image {where!r}: {error}") from None
        original_size = _oriented_size(width, height, image)
        rgb = _to_rgb(oriented)
    bgr = cast(NDArray[np.uint8], cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    return _shrink(bgr, original_size, long_side)


def check_pixel_count(width: int, height: int, where: str) -> None:
    """Refuse an image larger than `MAX_PIXELS` (read from its header, before decoding)."""
    if width <= 0 or height <= 0:
        raise ImageError(f"image {where!r} declares no pixels ({width}x{height})")
    if width * height > MAX_PIXELS:
        megapixels = width * height / 1e6
        raise ImageError(
            f"image too large: {where!r} is {width}x{height} ({megapixels:.0f} MP), the limit is "
            f"{MAX_PIXELS / 1e6:.0f} MP"
        )


def _oriented_size(width: int, height: int, image: Image.Image) -> tuple[int, int]:
    """Size of the photo as displayed: EXIF orientations 5-8 swap width and height."""
    orientation = image.getexif().get(0x0112, 1)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def _to_rgb(image: Image.Image) -> NDArray[np.uint8]:
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (*TRANSPARENT_FILL, 255))
        background.alpha_composite(rgba)
        image = background
    return np.asarray(image.convert("RGB"), dtype=np.uint8)


def _from_array(array: NDArray[np.uint8], long_side: int) -> LoadedImage:
    if array.dtype != np.uint8:
        raise ImageError(f"image array must be uint8, got {array.dtype}")
    if array.ndim == 2:
        array = cast(NDArray[np.uint8], cv2.cvtColor(array, cv2.COLOR_GRAY2BGR))
    elif array.ndim == 3 and array.shape[2] == 4:
        array = cast(NDArray[np.uint8], cv2.cvtColor(array, cv2.COLOR_BGRA2BGR))
    elif array.ndim != 3 or array.shape[2] != 3:
        raise ImageError(f"image array must be HxW, HxWx3 (BGR) or HxWx4, got shape {array.shape}")
    height, width = array.shape[:2]
    check_pixel_count(width, height, "array")
    return _shrink(np.ascontiguousarray(array), (width, height), long_side)


def _shrink(bgr: NDArray[np.uint8], original_size: tuple[int, int], long_side: int) -> LoadedImage:
    height, width = bgr.shape[:2]
    factor = max(width, height) / long_side
    if factor > 1:
        size = (max(1, round(width / factor)), max(1, round(height / factor)))
        bgr = cast(NDArray[np.uint8], cv2.resize(bgr, size, interpolation=cv2.INTER_AREA))
    scale = original_size[0] / bgr.shape[1]
    return LoadedImage(pixels=bgr, original_size=original_size, scale=scale)
