"""The recogniser's outputs, recorded, to show that a refactor changes nothing.

Run from the repository root with the project's venv::

    .venv/bin/python bench/vision_identity.py OUT.json [--photos DIR] [--shows 200]
    .venv/bin/python bench/vision_identity.py --compare BEFORE.json AFTER.json

The first form runs ``vision.recognise`` on every photo under ``--photos`` (default
``../shared/cards``, searched recursively; JPEG, PNG, WebP and HEIC by extension) and on
``--shows`` generated cribbage shows (``vision.synth.render_show`` at the evaluation seeds from
``vision.evaluate.EVALUATION_SEED``, the evaluation face library and photo size, read from their
JPEG bytes exactly as ``python -m vision.evaluate --synthetic`` reads them), and writes a JSON
object mapping each photo (its path under the folder, or ``show SEED``) to its detections (card,
confidence rounded to 1e-9, corners rounded to 1e-3 px) and warnings, in the recogniser's order.

``--compare`` prints a markdown table (photos compared, identical, differing, only in one file)
and then each photo that differs with both results, and exits with status 1 if any differ.
Record at the commit before a change and after it; nothing is timed here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif"}

Result = dict[str, object]


def _result(image: bytes) -> Result:
    from vision import recognise

    recognition = recognise(image)
    return {
        "cards": [
            {
                "card": d.card,
                "confidence": round(d.confidence, 9),
                "corners": [[round(x, 3), round(y, 3)] for x, y in d.corners],
            }
            for d in recognition.cards
        ],
        "warnings": list(recognition.warnings),
    }


def record(photos: Path, shows: int, out: Path) -> int:
    """Recognise every photo and show; write the JSON to `out`."""
    from vision.evaluate import EVALUATION_SEED, SHOW_SIZE, evaluation_library
    from vision.synth import render_show

    results: dict[str, Result] = {}
    started = time.perf_counter()
    files = sorted(p for p in photos.rglob("*") if p.is_file() and p.suffix.lower() in PHOTO_SUFFIXES)
    for path in files:
        results[str(path.relative_to(photos))] = _result(path.read_bytes())
    library = evaluation_library() if shows else None
    for i in range(shows):
        assert library is not None
        seed = EVALUATION_SEED + i
        photo = render_show(seed, library, size=SHOW_SIZE)
        results[f"show {seed}"] = _result(photo.jpeg_bytes())
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    seconds = time.perf_counter() - started
    print(f"{len(files)} photos and {shows} shows recorded in {out} ({seconds:.0f} s)")
    return 0


def _brief(result: object) -> str:
    if not isinstance(result, dict):
        return "(absent)"
    cards = " ".join(f"{c['card']}@{c['confidence']}" for c in result.get("cards", []) if isinstance(c, dict))
    return f"[{cards}] warnings {result.get('warnings')}"


def compare(before: Path, after: Path) -> int:
    """Print how many photos give identical results in the two recordings; 1 if any differ."""
    a: dict[str, object] = json.loads(before.read_text())
    b: dict[str, object] = json.loads(after.read_text())
    common = sorted(set(a) & set(b))
    differing = [name for name in common if a[name] != b[name]]
    only = sorted(set(a) ^ set(b))
    print("| set | photos | identical | differing | only in one file |")
    print("| --- | --- | --- | --- | --- |")
    for label, names in (
        ("shared photos", [n for n in common if not n.startswith("show ")]),
        ("generated shows", [n for n in common if n.startswith("show ")]),
        ("all", common),
    ):
        diff = sum(1 for n in names if n in set(differing))
        extra = len(only) if label == "all" else 0
        print(f"| {label} | {len(names)} | {len(names) - diff} | {diff} | {extra} |")
    for name in differing:
        print(f"{name}:\n  before {_brief(a[name])}\n  after  {_brief(b[name])}")
    for name in only:
        print(f"{name}: only in {before if name in a else after}")
    return 1 if differing or only else 0


def _shared_cards() -> Path:
    """The team's labelled photos: beside the main checkout, or two levels up from a worktree."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "cards").is_dir():
            return base / "shared" / "cards"
    return ROOT.parent / "shared" / "cards"


def main(argv: Sequence[str] | None = None) -> int:
    """Record or compare recogniser outputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", nargs="?", type=Path, help="JSON file to write")
    parser.add_argument("--photos", type=Path, default=_shared_cards(), help="default: ../shared/cards")
    parser.add_argument("--shows", type=int, default=200, help="generated shows (default 200)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give OUT.json, or --compare BEFORE.json AFTER.json")
    return record(args.photos, args.shows, args.out)


if __name__ == "__main__":
    sys.exit(main())
