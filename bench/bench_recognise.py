"""Where the recogniser's time goes: milliseconds per stage of `vision.recognise`, per photo set.

Run from the repository root with the project's venv, on a quiet machine::

    .venv/bin/python bench/bench_recognise.py [--photos DIR] [--shows 30] [--threads 1]

Sets: the labelled photos under ``--photos`` (default ``../shared/cards``; edje_tfod IMG* and
cam*, bidly deal* and single*, as `vision.evaluate --split` splits them) read from their files as
uploaded, and ``--shows`` generated cribbage shows (`vision.synth.render_show` at the evaluation
seeds, evaluation faces, typical camera) at 1600x1200, the size the count page's browser shrinks a
photo to before sending it, read twice: as any photo, and as the count page has them read
(``expect=5``: a show's five cards, see `vision.recognise`). Each photo is read once to warm up,
then timed on one reading thread and on `vision.recognise.READING_THREADS` (the recogniser's own
threads, as the photo workers read); OpenCV and numpy's BLAS run on ``--threads`` threads (1, as
in the server's photo workers), and malloc keeps freed memory as a photo worker's does
(`vision.io.malloc_as_photo_workers`).

Prints one markdown table: a row per stage (`vision.recognise.Laps`, on one reading thread, where
the stages run one after another), the median milliseconds per set, and the total's median and
95th percentile; then the total on the recogniser's threads and its ratio to one thread (each
photo timed both ways in turn), and the cores that reading kept busy (the process's CPU time
over the wall time: 2.00 would be both threads working throughout); then the proposals read
per photo.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import threadpoolctl  # noqa: E402

from vision.classify import default_model  # noqa: E402
from vision.evaluate import EVALUATION_SEED, SHOW_SIZE, evaluation_library, split_prefixes  # noqa: E402
from vision.io import malloc_as_photo_workers  # noqa: E402
from vision.recognise import READING_THREADS, Laps, recognise  # noqa: E402
from vision.synth import render_show  # noqa: E402


def shared_sets(folder: Path) -> dict[str, list[bytes]]:
    """The labelled photos, split as `vision.evaluate --split` splits them."""
    sets: dict[str, list[bytes]] = {}
    for sub in (folder / "edje_tfod", folder / "bidly"):
        if not (sub / "labels.json").is_file():
            continue
        names = sorted(json.loads((sub / "labels.json").read_text()))
        for prefix in split_prefixes(sub):
            sets[f"{sub.name} ({prefix}*)"] = [(sub / n).read_bytes() for n in names if n.startswith(prefix)]
    return sets


def generated_shows(count: int) -> tuple[list[bytes], int, str]:
    """`count` generated shows (typical camera), as `vision.evaluate --synthetic` reads them,
    how many cards a show holds (the hand and the starter: what the count page expects), and
    what faces they were drawn from (`FaceLibrary.summary`)."""
    library = evaluation_library()
    shows = [render_show(EVALUATION_SEED + i, library, SHOW_SIZE, harsh=False) for i in range(count)]
    (cards,) = {len(show.cards) for show in shows}
    return [show.jpeg_bytes() for show in shows], cards, library.summary()


def measure(photos: Sequence[bytes], expect: int | None = None) -> tuple[Laps, Laps, list[float]]:
    """Each photo read once untimed, then timed on one reading thread and on the recogniser's
    own (`READING_THREADS`), one after the other (told to `expect` that many cards, if given);
    and, for each photo's reading on the recogniser's threads, the cores it kept busy: the
    process's CPU time over the wall time (every thread's CPU time counts)."""
    alone, beside, busy = Laps(), Laps(), []
    for data in photos:
        recognise(data, expect=expect)
        recognise(data, laps=alone, threads=1, expect=expect)
        cpu, wall = time.process_time(), time.perf_counter()
        recognise(data, laps=beside, threads=READING_THREADS, expect=expect)
        busy.append((time.process_time() - cpu) / (time.perf_counter() - wall))
    return alone, beside, busy


def totals(laps: Laps) -> list[float]:
    """Each photo's milliseconds, all stages together."""
    return [sum(parts) for parts in zip(*laps.ms.values(), strict=True)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "cards")
    parser.add_argument("--shows", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(args.threads)
    threadpoolctl.threadpool_limits(limits=args.threads, user_api="blas")
    malloc_as_photo_workers()
    default_model()
    sets = shared_sets(args.photos) if args.photos.is_dir() else {}
    expects: dict[str, int] = {}
    faces = ""
    if args.shows:
        shows, cards, library = generated_shows(args.shows)
        faces = f"; generated shows' faces: {library}"
        sets[f"generated shows, {SHOW_SIZE[0]} px"] = shows
        told = f"the same, told to expect {cards} (the count page)"
        sets[told], expects[told] = shows, cards
    both = {name: measure(photos, expects.get(name)) for name, photos in sets.items()}
    measured = {name: alone for name, (alone, _, _) in both.items()}
    names = list(measured)
    stages = list(next(iter(measured.values())).ms)
    print(f"OpenCV and BLAS threads: {args.threads}; milliseconds per photo, median over the set{faces}\n")
    columns = " | ".join(f"{name} ({len(sets[name])})" for name in names)
    print(f"| stage (one reading thread) | {columns} |")
    print("| --- |" + " ---: |" * len(names))
    alone_totals = {name: totals(laps) for name, laps in measured.items()}
    for stage in stages:
        cells = []
        for name in names:
            median = statistics.median(measured[name].ms[stage])
            share = median / statistics.median(alone_totals[name])
            cells.append(f"{median:.1f} ({share:.0%})")
        print(f"| {stage} | " + " | ".join(cells) + " |")
    medians = [statistics.median(alone_totals[n]) for n in names]
    print("| **total, median** | " + " | ".join(f"**{m:.0f}**" for m in medians) + " |")
    print("| total, p95 | " + " | ".join(f"{np.percentile(alone_totals[n], 95):.0f}" for n in names) + " |")
    beside_totals = {name: totals(beside) for name, (_, beside, _) in both.items()}
    beside_medians = [statistics.median(beside_totals[n]) for n in names]
    print(f"| **total on {READING_THREADS} reading threads, median** | "
          + " | ".join(f"**{m:.0f}**" for m in beside_medians) + " |")
    print(f"| total on {READING_THREADS} reading threads, p95 | "
          + " | ".join(f"{np.percentile(beside_totals[n], 95):.0f}" for n in names) + " |")
    print(f"| {READING_THREADS} threads / one, median | "
          + " | ".join(f"{b / a:.2f}" for a, b in zip(medians, beside_medians, strict=True)) + " |")
    print(f"| cores busy on {READING_THREADS} reading threads, median | "
          + " | ".join(f"{statistics.median(busy):.2f}" for _, _, busy in both.values()) + " |")
    for kind in ("outline", "lone"):
        counts = [statistics.median(measured[n].proposals[kind]) for n in names]
        print(f"| {kind} proposals read | " + " | ".join(f"{c:.0f}" for c in counts) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
