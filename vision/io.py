"""Turn what a player uploads into a BGR pixel array the recogniser can work on.

Accepts JPEG, PNG, WebP and HEIC (iPhone) bytes, a file path, or a BGR array. EXIF
orientation is applied, so "up" is up as the phone showed it. The pixel count is read from the
file header and refused above `MAX_PIXELS` before anything is decoded (a small file can
declare a huge image: a decompression bomb). Large photos are decoded at reduced size where
the format allows (JPEG's DCT scaling) and shrunk to `WORKING_LONG_SIDE_PX` (the recogniser
loads at `DECODED_LONG_SIDE_PX` and shrinks from there), which keeps a 12-megapixel photo fast.

Every format is shrunk before any colour conversion or copy, so a 12 MP PNG or HEIC costs little
more than its own decoded pixels. Even so a file can cost far more to decode than it weighs (a
38-byte WebP declaring 40 MP of RGBA, a progressive JPEG repeating thousands of empty scans), and
reading the cards in a decoded image can cost far more than decoding it (a photo of random noise
is all edges), so uploads from the web app go through `decode_and_read`: the decode and then the
reader (the recogniser) in one short-lived worker process, limited together to
`DECODE_MEMORY_BYTES` more address space and `DECODE_CPU_SECONDS` of CPU (`decode_upload`: the
decode alone). A worker stopped by its limits is an `ImageError` (too large or too complex to
read), and the server's own memory never holds more than the small result and its reading.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import importlib
import io
import logging
import math
import multiprocessing
import os
import re
import resource
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any, NamedTuple, cast

import cv2
import numpy as np
import pillow_heif
import threadpoolctl
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

from scorer import i18n
from scorer.i18n import _

pillow_heif.register_heif_opener()

MAX_PIXELS = 40_000_000
"""Largest image accepted, in pixels: above any phone's default photo (12-24 MP) and its
48-50 MP full-sensor mode is refused by the contract, which bounds decode memory to ~120 MB."""

MAX_FILE_BYTES = 60 * 1024 * 1024
"""Largest file read from a path, in bytes; a 40 MP PNG fits, anything bigger is not a photo."""

WORKING_LONG_SIDE_PX = 1024
"""Long side, in pixels, the recogniser works at: cards in a table photo then span about
120-320 px, plenty for their corner index, and every stage stays fast on a phone photo."""

FINER_LONG_SIDE_PX = 1280
"""Long side, in pixels, the recogniser reads a photo at again when its reading at
`WORKING_LONG_SIDE_PX` is in doubt (see `vision.recognise.recognise`)."""

DECODED_LONG_SIDE_PX = 1600
"""Long side, in pixels, a photo is decoded at for the recogniser, which shrinks it from there
to each size it reads at (`WORKING_LONG_SIDE_PX`, and `FINER_LONG_SIDE_PX` only for a reading
in doubt): the size the count page sends (``static/js/photo.js``), so that photo is shrunk
once, straight to the working size. Decoded at `FINER_LONG_SIDE_PX` and shrunk from there
instead, it was shrunk twice: decoding and shrinking a generated show took 21-22 ms on the
2-core machine, 13-16 ms now."""

ACCEPTED_FORMATS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIC"}
"""Pillow format names accepted, and how messages name them (MPO is the JPEG variant some
phones write, with a depth map appended)."""

TRANSPARENT_FILL = (128, 128, 128)
"""Colour put behind transparent pixels: a neutral grey table that white cards stand out on."""

MAX_JPEG_SCANS = 100
"""Most scans a JPEG may have: a camera's progressive JPEG has about 10 (libjpeg's default), and
every scan costs a pass over the whole image, so thousands of empty ones are a CPU bomb."""

DECODE_MEMORY_BYTES = 200 * 2**20
"""Address space a photo worker may add to what it starts with (200 MiB), for the decode and the
reading together: a 24 MP phone photo fits; a 40 MP image that Pillow must hold at 4 bytes a pixel
and copy does not, nor the contours of a working-size image of random noise."""

DECODE_CPU_SECONDS = 3
"""CPU seconds a photo worker may use for the decode and the reading together (a 12 MP photo takes
about 0.1 s to decode and 0.3 s to read)."""

DECODE_WALL_SECONDS = 30.0
"""Seconds to wait for a decoder worker's answer before killing it (a busy machine's margin)."""

DECODE_WORKERS = 2
"""Decoder workers one server process runs at once; more uploads wait their turn, so eight
hostile files at once cost at most this many workers' memory."""

WALL_STOPPED = -int(signal.SIGKILL)
"""How `_run_worker` reports a worker it killed for taking longer than `DECODE_WALL_SECONDS`."""

LIMIT_EXITS = frozenset({-int(signal.SIGXCPU), -int(signal.SIGKILL)})
"""Exit codes of a worker stopped by its limits: its CPU time (SIGXCPU, then SIGKILL a second
later) or the wall clock here (killed). A worker that ends otherwise without an answer crashed,
and the photo is read once more (`_in_worker`)."""

TOO_COMPLEX = "this photo is too large or too complex to read"
"""The refusal when a photo worker is stopped by its limits (each message that gives it is one
sentence of its own for translation, starting with these words in English)."""

Reader = Callable[[Any], Any]
"""What `decode_and_read` runs on the decoded BGR pixels in the worker: it must be picklable (a
module-level function, or a ``functools.partial`` of one), and so must what it returns."""

ReaderSpec = str | Reader
"""A reader, or its import path ``"package.module:function"`` (imported in the worker only)."""

_EXIF_TURNS = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
               4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
               6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_90}
"""How each EXIF orientation turns the stored pixels upright (as ``ImageOps.exif_transpose``)."""

_REDUCIBLE = ("L", "RGB")
"""Modes Pillow's ``reduce`` averages in place, without a full-size copy first."""


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
            raise ImageError(_("file too large for a photo: %(file)s is %(size)s bytes",
                               file=repr(path), size=size))
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ImageError(_("no such file: %(file)s", file=repr(path))) from None
    except IsADirectoryError:
        raise ImageError(_("not a file: %(file)s is a folder", file=repr(path))) from None
    except OSError as error:
        raise ImageError(_("cannot read %(file)s: %(reason)s", file=repr(path),
                           reason=error.strerror or error)) from None


def decode_bytes(data: bytes, long_side: int = WORKING_LONG_SIDE_PX, where: str = "upload") -> LoadedImage:
    """Decode image bytes (JPEG, PNG, WebP, HEIC) with EXIF orientation applied, in this process."""
    if not data:
        raise ImageError(_("empty file: %(file)s has no bytes", file=repr(where)))
    try:
        with warnings.catch_warnings():
            # Our own, stricter size limit is checked just below; Pillow's warning would only repeat
            # it, and its other warnings ("Corrupt EXIF data") are about what is handled below.
            warnings.simplefilter("ignore")
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise ImageError(_("image too large: %(file)s declares more than %(megapixels)s MP",
                           file=repr(where), megapixels=f"{MAX_PIXELS / 1e6:.0f}")) from None
    except UnidentifiedImageError:
        raise ImageError(_("not an image: %(file)s is not JPEG, PNG, WebP or HEIC",
                           file=repr(where))) from None
    except MemoryError:
        raise ImageError(_("this photo is too large or too complex to read: %(file)s",
                           file=repr(where))) from None
    except Exception as error:  # a decoder library tripping over a hostile header: bad input, not a crash
        raise ImageError(_("unreadable image %(file)s: %(reason)s", file=repr(where),
                           reason=_one_line(error))) from None
    with image:
        kind = ACCEPTED_FORMATS.get(image.format or "")
        if kind is None:
            raise ImageError(_("unsupported image format %(format)s in %(file)s: use JPEG, PNG, WebP or HEIC",
                               format=image.format, file=repr(where)))
        width, height = image.size
        check_pixel_count(width, height, where)
        if kind == "JPEG":
            first_scan = check_jpeg_scans(data, where)
            # DCT scaling decodes straight to 1/2, 1/4 or 1/8 size: far faster than full decode.
            factor = max(width, height) / long_side
            if factor >= 2:
                image.draft("RGB", (int(width / factor) + 1, int(height / factor) + 1))
            elif image.mode == "RGB" and _orientation(image) == 1:
                # Decoded whole and not turned (the count page's photos, shrunk in the browser):
                # OpenCV gives the same pixels without Pillow's copy (`_whole_jpeg`).
                whole = _whole_jpeg(data, first_scan)
                if whole is not None:
                    return _shrink(whole, (width, height), long_side)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Corrupt EXIF data" and the like: handled below
                image.load()
                turn = _EXIF_TURNS.get(_orientation(image))
                rgb = _to_rgb(_reduced(image, long_side))
        except MemoryError:
            raise ImageError(_("this photo is too large or too complex to read: %(file)s needs more memory "
                               "than it may have", file=repr(where))) from None
        except Exception as error:  # OSError, ValueError, SyntaxError, struct.error...: a damaged file
            raise ImageError(_("truncated or corrupt %(format)s image %(file)s: %(reason)s", format=kind,
                               file=repr(where), reason=_one_line(error))) from None
    if turn is not None:
        rgb = np.asarray(Image.fromarray(rgb).transpose(turn), dtype=np.uint8)
    original_size = (height, width) if turn in _SWAPS else (width, height)
    bgr = cast(NDArray[np.uint8], cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    return _shrink(bgr, original_size, long_side)


_SWAPS = (Image.Transpose.TRANSPOSE, Image.Transpose.ROTATE_270, Image.Transpose.TRANSVERSE,
          Image.Transpose.ROTATE_90)
"""The turns that swap width and height (EXIF orientations 5-8)."""


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:200] or type(error).__name__


def check_jpeg_scans(data: bytes, where: str) -> int | None:
    """Refuse a JPEG with more than `MAX_JPEG_SCANS` scans (start-of-scan markers), before
    decoding; where its first scan starts (`_first_scan`), for the decoder."""
    first = _first_scan(data)
    scans = _scans_from(data, first)
    if scans > MAX_JPEG_SCANS:
        raise ImageError(_("this photo is too large or too complex to read: the JPEG %(file)s has %(scans)s "
                           "scans (a camera's has about 10, the most read is %(most)s)",
                           file=repr(where), scans=scans, most=MAX_JPEG_SCANS))
    return first


_MARKER = re.compile(rb"\xff+([\x01-\xfe])")


def count_jpeg_scans(data: bytes) -> int:
    """Start-of-scan markers in a JPEG: its header segments are skipped by their lengths (an EXIF
    thumbnail's scans are not counted); after the first scan, where entropy-coded data stuffs
    every 0xFF byte, each 0xFF 0xDA is a scan."""
    return _scans_from(data, _first_scan(data))


def _scans_from(data: bytes, first: int | None) -> int:
    """The scans of a JPEG whose first scan starts at `first` (None: it has none)."""
    return 0 if first is None else 1 + data.count(b"\xff\xda", first)


def _first_scan(data: bytes) -> int | None:
    """Where a JPEG's first scan starts (just after its start-of-scan marker), its header
    segments skipped by their lengths; None if it has none."""
    pos = 2
    while True:
        found = _MARKER.match(data, pos)
        if found is None:
            return None
        marker, pos = found.group(1)[0], found.end()
        if marker == 0xDA:
            return pos
        if marker == 0xD9:
            return None
        if 0xD0 <= marker <= 0xD8 or marker == 0x01:
            continue  # no length follows these
        if pos + 2 > len(data):
            return None
        pos += int.from_bytes(data[pos:pos + 2], "big")


def _whole_jpeg(data: bytes, scan: int | None) -> NDArray[np.uint8] | None:
    """A colour JPEG's BGR pixels decoded by OpenCV, or None: when the data ends before the
    image does (no end-of-image marker after the first scan, which starts at `scan`:
    `check_jpeg_scans`), or OpenCV cannot decode it, so that Pillow decodes it and says what is
    wrong.

    Both decode through libjpeg-turbo with its defaults (accurate integer transform, smooth
    chroma upsampling): the same pixels, to the last bit, on 226 development and shared photos
    and on JPEGs written with every chroma subsampling, progressive, optimised and at quality 40.
    Pillow's pixels reach numpy through `tobytes`, a copy that took 8-10 ms of a 1600 x 1200
    photo's decoding (OpenCV's whole decode: 5.4 ms)."""
    if scan is None or data.find(b"\xff\xd9", scan) < 0:
        return None
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    return None if pixels is None else np.asarray(pixels, np.uint8)


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation (1-8), or 1 when the EXIF block is missing or too damaged to read."""
    try:
        value = image.getexif().get(0x0112, 1)
    except Exception:  # a malformed EXIF block only loses the turn: the photo is still a photo
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _reduced(image: Image.Image, long_side: int) -> Image.Image:
    """``image`` shrunk by a whole factor towards ``long_side`` (never below it) before anything
    copies it at full size: box-averaged for RGB and grey, nearest pixel for the rest."""
    factor = max(image.size) // long_side
    if factor < 2:
        return image
    if image.mode in _REDUCIBLE:
        return image.reduce(factor)
    size = (max(1, image.width // factor), max(1, image.height // factor))
    return image.resize(size, Image.Resampling.NEAREST)


def check_pixel_count(width: int, height: int, where: str) -> None:
    """Refuse an image larger than `MAX_PIXELS` (read from its header, before decoding)."""
    if width <= 0 or height <= 0:
        raise ImageError(_("image %(file)s declares no pixels (%(width)sx%(height)s)",
                           file=repr(where), width=width, height=height))
    if width * height > MAX_PIXELS:
        megapixels = width * height / 1e6
        raise ImageError(_("image too large: %(file)s is %(width)sx%(height)s (%(megapixels)s MP), the limit "
                           "is %(limit)s MP", file=repr(where), width=width, height=height,
                           megapixels=f"{megapixels:.0f}", limit=f"{MAX_PIXELS / 1e6:.0f}"))


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
        bgr = shrunk(bgr, size)
    scale = original_size[0] / bgr.shape[1]
    return LoadedImage(pixels=bgr, original_size=original_size, scale=scale)


def shrunk(bgr: NDArray[np.uint8], size: tuple[int, int]) -> NDArray[np.uint8]:
    """`bgr` resized to `size` (width, height) by pixel area, as `cv2.resize` with `INTER_AREA`
    does it, to the last bit: its top and bottom halves on two threads where the photo splits
    into two that shrink alike, each output row from the same input rows with the same weights.
    That is where the rows' scale (input rows over output rows) is exact in binary (the output
    rows in lowest terms a power of two), so that where an output row's input rows start works
    out the same counted from either half's top: a 1600 x 1200 photo from the count page
    shrinks by 1.25 (5/4), a 12 MP one by 3.15 (63/20) does not split. On the two cores a photo
    is read on, the count page's photo shrinks in 5.6 ms instead of 11.1."""
    width, height = size
    rows = bgr.shape[0]
    step = height // math.gcd(rows, height)  # output rows to a whole number of input rows
    top = round(height / 2 / step) * step
    if step & (step - 1) or not 0 < top < height:
        return cast(NDArray[np.uint8], cv2.resize(bgr, size, interpolation=cv2.INTER_AREA))
    middle = top * rows // height
    out = np.empty((height, width, *bgr.shape[2:]), np.uint8)
    with ThreadPoolExecutor(1, thread_name_prefix="shrinking") as beside:
        upper = beside.submit(
            cv2.resize, bgr[:middle], (width, top), out[:top], interpolation=cv2.INTER_AREA
        )
        cv2.resize(bgr[middle:], (width, height - top), out[top:], interpolation=cv2.INTER_AREA)
        upper.result()
    return out


# -------------------------------------------------------------------------- decoding and reading in a worker


_logger = logging.getLogger(__name__)

_slots = threading.BoundedSemaphore(DECODE_WORKERS)
_in_flight = [0]  # photos being decoded or read in workers now (`_run_worker`), under _in_flight_lock
_in_flight_lock = threading.Lock()
_context_lock = threading.Lock()
_context: BaseContext | None = None
_context_pid = 0
LIMIT_MARGIN_BYTES = 16 * 2**20
"""A reader's error is taken for its worker's memory limit when the worker's peak address space
came this close to the limit: OpenCV says "Insufficient memory" with a cv2.error, not a
MemoryError."""


def _worker_context(preload: str | None = None) -> BaseContext:
    """The forkserver context, made on first use in this process (never inherited by a fork).

    A forkserver forks each worker from a quiet process that has imported this module already,
    so a worker starts in milliseconds and never inherits a server thread's locks. ``preload``
    names a reader's module for the forkserver to import too, once: whatever that module loads
    at import (the recogniser's model), every worker then starts with, at no cost of its own.
    Only the first call's preload counts (a forkserver's imports are fixed when it starts); a
    worker imports any other reader itself. The context is made lazily, per process: a gunicorn
    worker forked from a master that had one would share the master's forkserver, which it
    cannot manage.
    """
    global _context, _context_pid
    with _context_lock:
        if _context is None or _context_pid != os.getpid():
            context = multiprocessing.get_context("forkserver")
            # '__main__' as well, so a worker does not import the server's main script again; and
            # that script by its module name, which is what works (see _main_module_name).
            main = _main_module_name()
            modules = ["__main__", *([main] if main else []), "vision.io", *([preload] if preload else [])]
            context.set_forkserver_preload(modules)
            _context, _context_pid = context, os.getpid()
        return _context


def _main_module_name() -> str | None:
    """The name the script running as ``__main__`` can be imported by (``python app.py``: "app").

    Every worker runs the main script again, from its path, before its task (multiprocessing's
    way of giving it the parent's ``__main__``). The forkserver's preload of '__main__' was meant
    to make that cheap, but CPython 3.11 hands it the path under a key it never reads, so each
    worker imported everything app.py imports (Flask, the store, the web app): about 0.9 s of a
    tiny photo's 1 s on the loaded machine. Preloaded by name, those imports are done once in the
    forkserver, and a worker's run of the script costs only its own top-level lines. None for a
    script outside sys.path or started with ``-m`` (which workers do not run again).
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is not None or not isinstance(path, str) or not path.endswith(".py"):
        return None
    path = os.path.abspath(path)
    for entry in sys.path:
        base = os.path.abspath(entry or os.curdir)
        if path.startswith(base + os.sep):
            parts = os.path.relpath(path, base)[:-3].split(os.sep)
            if all(part.isidentifier() for part in parts):
                return ".".join(parts)
    return None


def _module_of(reader: ReaderSpec | None) -> str | None:
    """The module a reader comes from, for the forkserver to preload."""
    if reader is None:
        return None
    if isinstance(reader, str):
        return reader.partition(":")[0] or None
    module = getattr(getattr(reader, "func", reader), "__module__", None)  # a partial's own function
    return module if isinstance(module, str) else None


def resolve_reader(reader: ReaderSpec) -> Reader:
    """The reader an import path ``"package.module:function"`` names (or ``reader`` itself);
    ValueError if it names nothing callable."""
    if not isinstance(reader, str):
        return reader
    module_name, _, name = reader.partition(":")
    if not module_name or not name:
        raise ValueError(f"a photo reader is named 'package.module:function', not {reader!r}")
    found: Any = importlib.import_module(module_name)
    for part in name.split("."):
        found = getattr(found, part)
    if not callable(found):
        raise ValueError(f"the photo reader {reader!r} is not a function")
    return cast(Reader, found)


def _limit_self(memory_bytes: int, cpu_seconds: int, address_space: int | None = None) -> int:
    """Cap this (worker) process: its address space at what it has plus ``memory_bytes`` (at
    ``address_space`` plus them, when given: what a ready worker had before its warm-up), its CPU
    time at ``cpu_seconds`` more (SIGXCPU, then SIGKILL a second later), no core file when a
    limit stops it. Returns the address-space limit (0 off Linux)."""
    _settle()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU dumps core by default
    status = _proc_status()
    limit = 0
    if "VmSize" in status:
        limit = (status["VmSize"] if address_space is None else address_space) + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime)
    resource.setrlimit(resource.RLIMIT_CPU, (spent + cpu_seconds, spent + cpu_seconds + 1))
    return limit


def _settle() -> None:
    """Set this worker's libraries as a photo is read in it: no thread pools (their stacks would
    eat the address-space budget) and malloc as `malloc_as_photo_workers` says."""
    cv2.setNumThreads(1)
    pillow_heif.options.DECODE_THREADS = 1
    _one_blas_thread()
    malloc_as_photo_workers()


def _one_blas_thread() -> None:
    """Have numpy's BLAS (OpenBLAS) multiply on this thread alone. For a large product OpenBLAS
    starts a thread per core, each mapping a buffer of its own, and exits the process (no
    MemoryError to catch) when a mapping fails under the worker's address-space limit, so the
    budget a reading needs would depend on the machine's cores. The recogniser's own products
    run on one thread today; this keeps them so on any machine. (The limit is set when the
    limiter is made and stays for the process: only leaving it as a context manager, or its
    `restore_original_limits`, would undo it.)"""
    threadpoolctl.threadpool_limits(limits=1, user_api="blas")


M_ARENA_MAX = -8
"""glibc's `mallopt` parameter for the most malloc arenas a process keeps."""

M_TRIM_THRESHOLD = -1
"""glibc's `mallopt` parameter for the free memory at the top of the heap it gives back."""

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter for the smallest block it maps on its own, outside the heap."""

KEEP_FREED_BYTES = 32 * 2**20
"""Blocks up to this size come from the heap in a photo worker, and twice as much freed memory
stays there for the next (`malloc_as_photo_workers`)."""


def malloc_as_photo_workers() -> None:
    """Allocate as a photo worker does (`_limit_self`): every thread from the main arena, and
    the photo-sized arrays the reading makes and drops by the hundred kept in the heap once
    freed (`KEEP_FREED_BYTES`). A no-op where the C library is not glibc.

    One arena: glibc gives a thread that allocates its own arena, reserving 64 MiB of address
    space at once. The HEVC decoder's thread did, which left a HEIC photo's reading too little
    of its budget (measured: +64 MiB after decoding a 0.2 MP HEIC, then the network's matrix
    product failed), so every HEIC upload was refused as too large.

    Freed blocks kept: glibc maps each block larger than its threshold on its own (the
    threshold grows to the largest block freed so far), unmaps it when freed, and gives back the
    heap's free top above twice that: a reading's next array of the same size then comes back
    as fresh pages, each a fault the kernel zeroes (7,000-9,000 a development show, three
    quarters of them in the glyph search, whose float64 summed-area tables were mapped anew
    every time). Kept, the same pages serve again. Read in photo workers (`decode_and_read`,
    the app's reader, 40 generated shows and three bridge deals, in turn with and without), the
    reading took 0.960 and 0.999 of its median time in two runs (per photo 0.966 and 0.980); the
    address space a reading took rose by 5-6 MiB at the median (95 → 101 MiB of the worker's
    200), its most by -4 to +5 (the bridge deal6, 121-182 MiB in any run, is the nearest to the
    limit). The benches call it too, so they time the reading as the workers run it."""
    name = ctypes.util.find_library("c")
    if not sys.platform.startswith("linux") or name is None:
        return
    libc = ctypes.CDLL(name)
    if hasattr(libc, "mallopt"):
        libc.mallopt(M_ARENA_MAX, 1)
        libc.mallopt(M_MMAP_THRESHOLD, KEEP_FREED_BYTES)
        libc.mallopt(M_TRIM_THRESHOLD, 2 * KEEP_FREED_BYTES)


def _proc_status() -> dict[str, int]:
    """This process's memory figures from /proc/self/status, in bytes (empty off Linux)."""
    try:
        text = open("/proc/self/status", encoding="ascii").read()  # noqa: SIM115 (closed by GC at once)
    except OSError:
        return {}
    return {m.group(1): int(m.group(2)) * 1024 for m in re.finditer(r"^(Vm\w+):\s+(\d+) kB", text, re.M)}


class _Job(NamedTuple):
    """A photo's work, as its worker is given it (`_work_in_worker`, or a ready worker's pipe)."""

    data: bytes
    long_side: int
    where: str
    """The photo's name in messages."""
    memory_bytes: int
    cpu_seconds: int
    lang: str
    """The caller's language, for the refusals (a worker process does not inherit its context)."""
    reader_options: Mapping[str, Any] | None
    """The reader's keyword arguments."""


def _work_in_worker(answer: Connection, job: _Job, reader: ReaderSpec | None) -> None:
    """A worker's whole life: load the reader (trusted code, before the limits), then `_serve`
    the job."""
    try:
        read = None if reader is None else resolve_reader(reader)
    except Exception as error:  # a misconfigured server, not a bad photo: the caller raises it
        answer.send(("failed", f"cannot load the photo reader {reader!r}: {_one_line(error)}", None))
        answer.close()
        return
    _serve(answer, read, job, _proc_status())


def _serve(answer: Connection, read: Reader | None, job: _Job, start: dict[str, int],
           ready: bool = False) -> None:
    """Limit this worker, decode the photo, read it, and send back the result or the refusal (in
    the job's language), and the cost: peak resident memory above ``start`` (`_proc_status`,
    taken when the worker began: before a ready worker's warm-up, whose address space the limit
    counts from too), CPU seconds, and whether the worker was ``ready`` before the photo came."""
    i18n.activate(job.lang)
    limit = _limit_self(job.memory_bytes, job.cpu_seconds, start.get("VmSize") if ready else None)
    result: tuple[str, Any]
    try:
        loaded = decode_bytes(job.data, job.long_side, job.where)
        options = job.reader_options or {}
        result = ("ok", loaded if read is None else (loaded, read(loaded.pixels, **options)))
    except ImageError as error:
        result = ("refused", str(error))
    except MemoryError:
        result = ("refused", _too_much_memory(job.where, job.memory_bytes))
    except Exception as error:
        if limit and _proc_status().get("VmPeak", 0) >= limit - LIMIT_MARGIN_BYTES:
            result = ("refused", _too_much_memory(job.where, job.memory_bytes))
        else:  # a bug in the reader: the server's error, not the photo's
            result = ("failed", f"the photo reader failed: {type(error).__name__}: {_one_line(error)}")
    used = resource.getrusage(resource.RUSAGE_SELF)
    cost = DecodeCost(max(0, used.ru_maxrss * 1024 - start.get("VmRSS", 0)), used.ru_utime + used.ru_stime,
                      ready)
    answer.send((*result, cost))
    answer.close()


READY = "ready"
"""What a ready worker says once it can take its photo."""


def _wait_in_worker(jobs: Connection, answer: Connection, reader: ReaderSpec) -> None:
    """A ready worker's life (see `READY_WORKER`): load the reader, set the libraries as a photo
    is read (`_settle`), run the reader module's ``warm_up()`` if it has one, say `READY`, and
    wait for the photo's `_Job`, then work it as `_work_in_worker` does, limits and all. A reader
    that cannot be loaded, or no job (the server closed its end), ends the worker: the photo's
    worker is then started when it comes, and says what went wrong."""
    start = _proc_status()
    try:
        read = resolve_reader(reader)
    except Exception:
        return
    _settle()
    warm_up = getattr(sys.modules.get(_module_of(reader) or ""), "warm_up", None)
    if callable(warm_up):
        try:
            warm_up()
        except Exception as error:  # only time lost: the photo is read as by a fresh worker
            _logger.warning("a ready photo worker's warm-up failed: %s", _one_line(error))
    try:
        answer.send(READY)
        job = cast(_Job, jobs.recv())
    except (EOFError, OSError):
        return
    finally:
        jobs.close()
    _serve(answer, read, job, start, ready=True)


def _too_much_memory(where: str, memory_bytes: int) -> str:
    return _("this photo is too large or too complex to read: %(file)s needs more than %(mib)s MiB",
             file=repr(where), mib=memory_bytes // 2**20)


@dataclass(frozen=True)
class DecodeCost:
    """What a photo worker spent: peak resident memory above its start (bytes), CPU seconds
    (a ready worker's warm-up included)."""

    memory_bytes: int
    cpu_seconds: float
    ready: bool = False
    """Whether a ready worker (`READY_WORKER`) took the photo, rather than one started for it."""


last_cost = threading.local()
"""``last_cost.value``: the `DecodeCost` of this thread's last `decode_upload` or `decode_and_read`
(None when its worker was killed), for the bench."""


def decode_upload(data: bytes, long_side: int = WORKING_LONG_SIDE_PX, where: str = "upload",
                  memory_bytes: int = DECODE_MEMORY_BYTES, cpu_seconds: int = DECODE_CPU_SECONDS,
                  ) -> LoadedImage:
    """`decode_bytes` in a worker process limited to ``memory_bytes`` more address space and
    ``cpu_seconds`` of CPU; ImageError if the file is refused or the worker is stopped.

    At most `DECODE_WORKERS` run at once per process; further callers wait. Safe to call from any
    thread of a threaded server, and from each process of a pre-forking one.
    """
    return cast(LoadedImage, _in_worker(data, None, long_side, where, memory_bytes, cpu_seconds))


def decode_and_read(data: bytes, reader: ReaderSpec, long_side: int = WORKING_LONG_SIDE_PX,
                    where: str = "upload", memory_bytes: int = DECODE_MEMORY_BYTES,
                    cpu_seconds: int = DECODE_CPU_SECONDS,
                    reader_options: Mapping[str, Any] | None = None,
                    ready_next: bool = False) -> tuple[LoadedImage, Any]:
    """`decode_bytes`, then ``reader`` on the decoded pixels, in one worker process limited to
    ``memory_bytes`` more address space and ``cpu_seconds`` of CPU for both; the decoded image
    and the reader's answer (about the working-size pixels). ImageError if the file is refused
    or the worker is stopped by its limits; RuntimeError if the reader cannot be loaded or fails
    other than by running out of memory (a bug, not a bad photo).

    ``reader`` is a picklable function or its import path; the first call in a process has the
    worker's forkserver preload the reader's module. ``reader_options``, when given, are passed to
    it as keyword arguments (picklable values: say, how many cards the photo should hold).
    Concurrency as `decode_upload`. A worker that waits ready (`READY_WORKER`) takes the photo
    when there is one for this reader; ``ready_next``: start one, once this photo is answered,
    for the next. A page where a player reads a photo now and then wants it; a stream of camera
    frames does not (a warm-up costs more CPU than it saves, and the frames come before it ends).
    """
    try:
        answer = _in_worker(data, reader, long_side, where, memory_bytes, cpu_seconds, reader_options)
    finally:
        if ready_next:
            make_ready(reader)
    return cast(tuple[LoadedImage, Any], answer)


def make_ready(reader: ReaderSpec) -> None:
    """Start a worker that waits ready for a photo by ``reader`` (`READY_WORKER`), on a thread of
    its own, unless one is there for it already (waiting, warming up, or gone: the next photo's
    `_take_ready` dismisses a worker that is gone), or another photo is read now (its worker would
    share the cores with the warm-up). A page that offers a photo calls it before any is sent, so
    the server's first photo finds the workers' forkserver started and the model loaded too."""
    ready = _ready
    if not READY_WORKER or _in_flight[0] or (ready is not None and ready.reader == reader
                                             and ready.owner == os.getpid()):
        return
    threading.Thread(target=_make_ready, args=(reader,), name="muggins-ready", daemon=True).start()


@contextlib.contextmanager
def _flying() -> Iterator[None]:
    """Count a photo's worker in `_in_flight` while it runs."""
    with _in_flight_lock:
        _in_flight[0] += 1
    try:
        yield
    finally:
        with _in_flight_lock:
            _in_flight[0] -= 1


def _in_worker(data: bytes, reader: ReaderSpec | None, long_side: int, where: str, memory_bytes: int,
               cpu_seconds: int, reader_options: Mapping[str, Any] | None = None) -> Any:
    if not data:
        raise ImageError(_("empty file: %(file)s has no bytes", file=repr(where)))
    last_cost.value = None
    job = _Job(data, long_side, where, memory_bytes, cpu_seconds, i18n.current(), reader_options)
    answer, stopped = _run_worker(job, reader)
    if answer is None and stopped not in LIMIT_EXITS:
        # Not stopped by its limits: it crashed, exited or could not start (a fault of this
        # machine or of a library, not of the photo), so the photo gets one more worker.
        _logger.warning("a photo worker for %s ended without an answer (exit code %s); reading it again",
                        where, stopped)
        answer, stopped = _run_worker(job, reader)
    if answer is None:
        _logger.warning("a photo worker for %s ended without an answer (exit code %s)", where, stopped)
        params = {"file": repr(where), "mib": memory_bytes // 2**20, "cpu": cpu_seconds}
        if reader is None:
            raise ImageError(_("this photo is too large or too complex to read: %(file)s needs more than "
                               "%(mib)s MiB or %(cpu)s s of CPU to decode", **params))
        raise ImageError(_("this photo is too large or too complex to read: %(file)s needs more than "
                           "%(mib)s MiB or %(cpu)s s of CPU to read", **params))
    kind, payload, cost = answer
    last_cost.value = cost
    if kind == "failed":
        raise RuntimeError(payload)
    if kind != "ok":
        raise ImageError(payload)
    return payload


def _run_worker(job: _Job, reader: ReaderSpec | None) -> tuple[Any, int | None]:
    """One worker's answer to ``job`` (None if it gave none) and, when it gave none, how it ended:
    its exit code (negative: the signal that stopped it; `WALL_STOPPED` when it was killed here for
    taking too long), or None when it could not be started."""
    with _slots, _flying():
        context = _worker_context(_module_of(reader))
        ready = None if reader is None or not READY_WORKER else _take_ready(reader, job)
        if ready is not None:
            worker, reader_end = ready.worker, ready.answers
        else:
            reader_end, writer = context.Pipe(duplex=False)
            worker = context.Process(  # type: ignore[attr-defined]
                target=_work_in_worker, args=(writer, job, reader), name="muggins-photo", daemon=True)
        answer: Any = None
        stopped: int | None = None
        try:
            if ready is None:
                worker.start()
                writer.close()
            if reader_end.poll(DECODE_WALL_SECONDS):
                answer = reader_end.recv()
            else:
                stopped = WALL_STOPPED
        except EOFError:  # the worker died before answering: killed by a limit, or crashed
            pass
        finally:
            reader_end.close()
            if ready is None:
                writer.close()
            ended = _end(worker)
            if answer is None and stopped is None:
                stopped = ended
    return answer, stopped


def _end(worker: Any) -> int | None:
    """Stop a worker process if it still runs, reap it and free its handle; its exit code (None
    when it was never started: a failed start leaves nothing to stop)."""
    if worker.pid is None:
        return None
    if worker.is_alive():
        worker.kill()
    worker.join()
    code = cast(int | None, worker.exitcode)
    worker.close()
    return code


READY_WORKER = True
"""Whether photo workers may be started ahead of their photo (`decode_and_read`'s
``ready_next``): one a server process, for the last reader asked for. It waits ready: forked,
the reader loaded, its libraries set, and the reader module's ``warm_up()`` run (the app's
reader reads a blank photo: `web.reader.warm_up`), so the pages a reading's arrays take and the
libraries' first-call set-ups are its own before its photo comes. A photo worker is still used
once: the ready one takes the next photo by its reader, within the same limits, counted from
where it stood before its warm-up (`_serve`; the CPU limit's whole seconds from its CPU time so
far, as in any worker, so the warm-up's part second counts against the photo's). A photo that
comes while it is still warming up gets a worker of its own, started then, as every photo does
when this is False (the bench's fresh workers: `bench/bench_ready_worker.py`). None is started
while another photo is read (a club's server reading photos from several tables at once): the
warm-up would slow that one."""


@dataclass(frozen=True)
class _Ready:
    """A ready worker (`READY_WORKER`): the process, the end its job is sent on and the end it
    answers on, the reader it loaded, and the server process that started it."""

    worker: Any
    jobs: Connection
    answers: Connection
    reader: ReaderSpec
    owner: int


_ready: _Ready | None = None
_ready_lock = threading.Lock()


def ready_worker(timeout: float = 0.0, reader: ReaderSpec | None = None) -> int | None:
    """The process id of the worker waiting ready for a photo (`READY_WORKER`; by ``reader``, when
    given), waiting up to ``timeout`` seconds for one being started or warming up; None if there
    is none by then (for the bench and the tests)."""
    deadline = time.monotonic() + timeout
    while True:
        with _ready_lock:
            ready = _ready if _ready is not None and _ready.owner == os.getpid() else None
            if ready is not None and reader is not None and ready.reader != reader:
                ready = None
        try:
            if ready is not None and ready.answers.poll(0) and ready.worker.is_alive():
                return cast(int, ready.worker.pid)
        except (OSError, ValueError):  # taken or stopped meanwhile
            pass
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


def _take_ready(reader: ReaderSpec, job: _Job) -> _Ready | None:
    """The ready worker for ``reader``, given ``job``; None when there is none, or it is still
    warming up (then kept for the next photo), or it is gone (then dismissed)."""
    global _ready
    with _ready_lock:
        ready = _ready
        if ready is None or ready.owner != os.getpid():
            return None
        if ready.reader != reader or not ready.answers.poll(0):
            if ready.reader == reader and ready.worker.is_alive():
                return None  # still warming up: for the next photo
            _ready = None
            _dismiss(ready)
            return None
        _ready = None
    try:
        said = ready.answers.recv()
        ready.jobs.send(job)
    except (EOFError, OSError):
        said = None
    ready.jobs.close()
    if said != READY:
        _dismiss(ready)
        return None
    return ready


def _make_ready(reader: ReaderSpec) -> None:
    """Start a ready worker for ``reader``, unless there is one (see `READY_WORKER`)."""
    global _ready
    with _ready_lock:
        old = _ready
        if old is not None and old.owner != os.getpid():
            old = None  # a forked server's copy: its parent's to stop
        if not READY_WORKER or (old is not None and old.reader == reader and old.worker.is_alive()):
            return
        context = _worker_context(_module_of(reader))
        answers, answer_end = context.Pipe(duplex=False)
        job_end, jobs = context.Pipe(duplex=False)
        worker = context.Process(  # type: ignore[attr-defined]
            target=_wait_in_worker, args=(job_end, answer_end, reader), name="muggins-photo", daemon=True)
        try:
            worker.start()
        except OSError as error:  # the next photo's worker is started when it comes
            _logger.warning("could not start a ready photo worker: %s", _one_line(error))
            for end in (answers, answer_end, job_end, jobs):
                end.close()
            return
        finally:
            answer_end.close()
            job_end.close()
        _ready = _Ready(worker, jobs, answers, reader, os.getpid())
    if old is not None:
        _dismiss(old)


def _dismiss(ready: _Ready) -> None:
    """Stop a ready worker that will take no photo."""
    ready.jobs.close()
    ready.answers.close()
    _end(ready.worker)
