"""Hostile uploads made in code: small files that declare big or costly images.

Shared by ``bench/bench_hostile.py`` and ``tests/test_hostile_serving.py``. Each maker returns the
file's bytes; none of them needs more than a few megabytes of memory to build, except the WebP
and HEIC encoders and the noise photos, which take the whole image (Pillow and libheif encode
from pixels). The noise photos are cheap to decode and costly to read: every pixel is an edge.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable

BOMB_SIZE = (8000, 5000)
"""Width and height of every bomb: 40 megapixels, exactly the recogniser's limit (MAX_PIXELS)."""

SCAN_BOMB_SCANS = 1500
"""Empty AC refinement scans in the progressive-JPEG bomb: about 70 kB, and about half a minute of
CPU for an unguarded decoder (each scan walks all 625,000 blocks of the 40 MP image)."""


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png(width: int, height: int, bit_depth: int, colour_type: int, extra: bytes = b"",
        channels: int = 1) -> bytes:
    """A valid PNG of zero pixels, compressed row by row (built without ever holding the image)."""
    row = b"\x00" * (1 + width * channels * bit_depth // 8)
    squeeze = zlib.compressobj(9)
    idat = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + extra + _png_chunk(b"IDAT", idat)
            + _png_chunk(b"IEND", b""))


def png_rgba(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """A transparent 8-bit RGBA PNG."""
    return png(*size, 8, 6, channels=4)


def png_rgba16(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """A transparent 16-bit RGBA PNG."""
    return png(*size, 16, 6, channels=4)


def png_palette_transparent(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """An 8-bit palette PNG whose one colour is transparent (a tRNS chunk)."""
    extra = _png_chunk(b"PLTE", b"\x00\x00\x00") + _png_chunk(b"tRNS", b"\x00")
    return png(*size, 8, 3, extra=extra)


def png_trns_longer_than_palette() -> bytes:
    """A tiny palette PNG whose transparency chunk lists more entries than its palette has colours."""
    extra = _png_chunk(b"PLTE", b"\x00\x00\x00" * 256) + _png_chunk(b"tRNS", b"\x00" * 300)
    return png(4, 4, 8, 3, extra=extra)


def webp_rgba(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """A transparent lossless RGBA WebP: a few dozen bytes."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA", size, (0, 0, 0, 0)).save(out, format="WEBP", lossless=True, quality=0, method=0)
    return out.getvalue()


def heic(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """A flat grey HEIC (lowest quality, x265's fastest preset: small, and a few seconds to make)."""
    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()
    out = io.BytesIO()
    grey = Image.new("RGB", size, (90, 90, 90))
    grey.save(out, format="HEIF", quality=1, enc_params={"preset": "ultrafast"})
    return out.getvalue()


def _segment(marker: int, payload: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload


def _pack_bits(bits: str) -> bytes:
    """Entropy-coded bytes: pad with 1s, stuff a zero after every 0xFF."""
    bits += "1" * (-len(bits) % 8)
    raw = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    return raw.replace(b"\xff", b"\xff\x00")


def jpeg_scan_bomb(size: tuple[int, int] = BOMB_SIZE, scans: int = SCAN_BOMB_SCANS) -> bytes:
    """A grey progressive JPEG (SOF2) whose DC scan is followed by ``scans`` empty AC scans.

    Every block's coefficients are zero: the DC scan codes a zero difference per block in one
    bit, and each AC scan (first the AC first scan, then refinements of it) is nothing but
    end-of-band runs of 32,767 blocks. A decoder still walks the whole coefficient buffer once
    per scan, so the cost grows with pixels times scans while the file stays tiny.
    """
    width, height = size
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    quant = _segment(0xDB, b"\x00" + b"\x01" * 64)
    frame = _segment(0xC2, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
    # DC table 0: one code "0" for category 0. AC table 0: the fifteen end-of-band run symbols
    # (EOBr, 0xr0: a run of 2**r to 2**(r+1)-1 blocks), each a 4-bit code.
    dc_table = _segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")
    ac_table = _segment(0xC4, b"\x10" + bytes([0, 0, 0, 15] + [0] * 12) + bytes(r << 4 for r in range(15)))
    dc_scan = _segment(0xDA, b"\x01\x01\x00\x00\x00\x01") + _pack_bits("0" * blocks)
    bits = []
    left = blocks
    while left:
        r = min(14, left.bit_length() - 1)
        run = min(left, (2 << r) - 1)
        bits.append(format(r, "04b") + (format(run - (1 << r), f"0{r}b") if r else ""))
        left -= run
    ac_data = _pack_bits("".join(bits))
    first_ac = _segment(0xDA, b"\x01\x01\x00\x01\x3f\x01") + ac_data
    refine = _segment(0xDA, b"\x01\x01\x00\x01\x3f\x10") + ac_data
    return (b"\xff\xd8" + quant + frame + dc_table + ac_table + dc_scan + first_ac + refine * scans
            + b"\xff\xd9")


def jpeg_bad_exif() -> bytes:
    """A tiny JPEG whose EXIF block is malformed (a struct.error in Pillow's ``exif_transpose``)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (16, 16), (30, 120, 60)).save(out, format="JPEG")
    plain = out.getvalue()
    # Orientation 6, then an interoperability-index pointer (0xA005) of type BYTE and a tag of
    # type SRATIONAL whose values Pillow cannot pack again when it rewrites the turned EXIF.
    tiff = bytes.fromhex(
        "49492a00080000000400120103000100000006000000"
        "05a00100010000000000000010010200010000000000000025880a00d86dfa7528000000000000"
        "0066b13269dd63fc35c797ff08a6cd9009")
    app1 = _segment(0xE1, b"Exif\x00\x00" + tiff)
    return plain[:2] + app1 + plain[2:]


NOISE_SEED = 1943
"""Seed of the random noise photos: the same bytes every run."""


def noise_png(size: tuple[int, int] = BOMB_SIZE) -> bytes:
    """A 40 MP PNG of random black and white pixels (1 bit each: 5 MB, under the upload limit).

    Decoding it is cheap, but its working-size image is all edges: reading it in-process took
    the server 6.7 s of CPU and 241 MiB more memory."""
    import numpy as np
    from PIL import Image

    width, height = size
    bits = np.random.default_rng(NOISE_SEED).integers(0, 2, (height, width), dtype=np.uint8).astype(bool)
    out = io.BytesIO()
    Image.fromarray(bits).save(out, format="PNG")
    return out.getvalue()


def noise_jpeg(size: tuple[int, int] = (4000, 3000)) -> bytes:
    """A 12 MP JPEG of random colour noise (quality 75: about 7 MB, under the upload limit)."""
    import numpy as np
    from PIL import Image

    width, height = size
    pixels = np.random.default_rng(NOISE_SEED).integers(0, 256, (height, width, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=75)
    return out.getvalue()


def photo_12mp() -> bytes:
    """A normal 12 MP camera-sized JPEG (4000 × 3000, quality 90): a generated show of five cards."""
    import cv2

    from vision.synth import render_show

    show = render_show(12, harsh=False)
    big = cv2.resize(show.image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    ok, jpeg = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return jpeg.tobytes()


HOSTILE: dict[str, Callable[[], bytes]] = {
    "40 MP RGBA WebP": webp_rgba,
    "40 MP RGBA PNG": png_rgba,
    "40 MP 16-bit RGBA PNG": png_rgba16,
    "40 MP palette PNG, transparent": png_palette_transparent,
    "40 MP HEIC": heic,
    "progressive JPEG scan bomb": jpeg_scan_bomb,
    "PNG tRNS longer than palette": png_trns_longer_than_palette,
    "JPEG with malformed EXIF": jpeg_bad_exif,
    "random noise 40 MP PNG": noise_png,
    "random noise 12 MP JPEG": noise_jpeg,
    "12 MP JPEG photo (reference)": photo_12mp,
}
"""Every hostile upload the bench and the tests send, by name."""
