"""A photo's wait for its reading: a worker started for the photo against one waiting ready.

    .venv/bin/python bench/bench_ready_worker.py [--shows 16] [--pause 1.5] [--expect 5]

The server reads every photo in a worker process of its own (`vision.io.decode_and_read`), forked
when the photo comes, and a reading in a fresh process pays for its memory page by page as it
first touches it, and for its libraries' first calls. The photo page has the next photo's
worker started as soon as a photo is read, and wait ready, warmed up by a blank photo's reading
(`vision.io.READY_WORKER`, `web.reader.warm_up`). This bench reads ``--shows`` generated shows at
1600 x 1200 (`bench_recognise.py`'s), uploaded as JPEG, through `decode_and_read` with the app's
reader, as the photo page does, ``--pause`` seconds apart (a player's pace, and time for the
warm-up), photo by photo in turn: once with `READY_WORKER` off (a worker started for the photo,
as before), once taken by the worker waiting ready, which first drawn in turn. ``--expect``: the
count the reader is told (the count page tells five; untold by default).

Prints a markdown table: each way's median and 95th-percentile milliseconds from the call to the
answer (the server's wait: the worker's start or hand-over, the decode, the reading, the answer's
way back), the worker's CPU milliseconds (median; a ready worker's warm-up included), and how many
photos a ready worker took; then the median of the per-photo ratios (ready over fresh).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_recognise import generated_shows  # noqa: E402
from vision import io as vision_io  # noqa: E402
from web.api import PHOTO_READER  # noqa: E402


def read(photo: bytes, ready: bool, expect: int | None) -> tuple[float, float, bool]:
    """One photo's milliseconds from the call to the answer, its worker's CPU milliseconds and
    whether a ready worker took it; with a ready worker waiting for it (``ready``) or none."""
    vision_io.READY_WORKER = ready
    options = None if expect is None else {"expect": expect}
    start = time.perf_counter()
    vision_io.decode_and_read(photo, PHOTO_READER, reader_options=options, ready_next=ready)
    wall = (time.perf_counter() - start) * 1000
    cost = vision_io.last_cost.value
    return wall, cost.cpu_seconds * 1000, cost.ready


def main() -> int:
    """Read the shows both ways and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shows", type=int, default=16)
    parser.add_argument("--pause", type=float, default=1.5, help="seconds between photos")
    parser.add_argument("--expect", type=int, default=None)
    args = parser.parse_args()
    photos, _, _ = generated_shows(args.shows)
    # The forkserver started, and one photo read each way first.
    for ready in (False, True):
        read(photos[0], ready, args.expect)
        time.sleep(args.pause)
    times: dict[bool, list[tuple[float, float, bool]]] = {False: [], True: []}
    for i, photo in enumerate(photos):
        for ready in (True, False) if i % 2 else (False, True):
            if ready:
                vision_io.READY_WORKER = True
                vision_io.ready_worker(timeout=30)  # the warm-up of the one started after the last
            else:
                time.sleep(args.pause)
            times[ready].append(read(photo, ready, args.expect))
            time.sleep(args.pause if ready else 0.0)
    told = "untold" if args.expect is None else f"told {args.expect}"
    print(f"{len(photos)} generated shows, 1600 x 1200 JPEG, {told}, {args.pause} s apart\n")
    print("| worker | wait ms, median | wait ms, p95 | worker CPU ms, median | taken by a ready worker |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for ready, name in ((False, "started for the photo"), (True, "waiting ready")):
        walls = [wall for wall, _, _ in times[ready]]
        cpus = [cpu for _, cpu, _ in times[ready]]
        taken = sum(was for _, _, was in times[ready])
        p95 = statistics.quantiles(walls, n=20)[-1]
        print(f"| {name} | {statistics.median(walls):.0f} | {p95:.0f} | {statistics.median(cpus):.0f} | "
              f"{taken} of {len(walls)} |")
    ratios = [r[0] / f[0] for f, r in zip(times[False], times[True], strict=True)]
    print(f"\nWait, ready over fresh, median of the per-photo ratios: {statistics.median(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
