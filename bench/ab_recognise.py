"""Two trees of the recogniser timed on the same photos, in turn, each in a process of its own.

Run from the repository root with the project's venv::

    git worktree add ../before REV
    .venv/bin/python bench/ab_recognise.py ../before . [--shows 40] [--photos GLOB]
        [--rounds 3] [--threads 2] [--expect N] [--as-workers]

Each tree (a checkout of this repository) is imported by a worker process of its own, started
from this venv, OpenCV and numpy's BLAS on one thread as in the server's photo workers; each
reads every photo once to warm up. Then, round after round, every photo is read by both workers
one after the other, which first drawn at random (seeded), on ``--threads`` reading threads
(`vision.recognise.READING_THREADS` by default; a tree from before them reads on one, and the
table says so), told ``--expect`` cards if given. A photo's time
in a tree is its best over the rounds. With ``--as-workers``, a tree whose `vision.io` has
`malloc_as_photo_workers` allocates as its photo workers do (and as its `bench_recognise.py`
times it); a tree without it, with glibc's defaults, as its own bench did.

Why in turn: on a shared 2-core machine the speed drifts by a tenth and more from one minute to
the next, so two trees timed one after the other can differ by more than a change does. Read in
turn, photo by photo, both trees meet the same drift, and each round's per-photo ratios show how
far the answer moves from round to round. The drift can still move the two trees apart
(probably: a tree that keeps both cores busier loses more when a neighbour takes one), so runs
an hour apart differ more than a run's rounds: run it more than once.

Photos: ``--shows`` generated cribbage shows (`vision.synth.render_show` at the evaluation seeds,
evaluation faces, typical camera, 1600x1200: the generated shows of `bench_recognise.py`, drawn
by this tree), or the files ``--photos`` matches (a glob pattern), or both.

Prints a markdown table: photos, each tree's median milliseconds, the ratio of the medians, the
median of the per-photo ratios (after over before), and that median in each round.
"""

from __future__ import annotations

import argparse
import glob
import inspect
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(tree: str, expect: int | None, as_workers: bool = False) -> int:
    """Read the photo files named on stdin's first line (tab-separated), then answer "INDEX
    THREADS" lines with the milliseconds `tree`'s `recognise` took to read that photo on that
    many threads (after "ready", once every photo was read once). `as_workers`: allocate as the
    tree's photo workers do, if it says how (see the module's doc)."""
    files = sys.stdin.readline().rstrip("\n").split("\t")
    sys.path.insert(0, str(Path(tree).resolve()))
    import importlib

    import cv2
    import threadpoolctl

    cv2.setNumThreads(1)
    threadpoolctl.threadpool_limits(1)
    if as_workers:
        getattr(importlib.import_module("vision.io"), "malloc_as_photo_workers", lambda: None)()
    from vision.recognise import recognise

    # A tree from before the reading threads (2d86892) or the count told (c137efc) has no such
    # parameter: it reads on one thread, and cannot be told a count.
    known = inspect.signature(recognise).parameters
    if expect is not None and "expect" not in known:
        print(f"{tree}'s recognise cannot be told a count", flush=True)
        return 1
    told = {} if expect is None else {"expect": expect}
    read: Callable[..., object] = recognise  # this tree's, whose parameters are looked at here
    photos = [Path(name).read_bytes() for name in files]
    for data in photos:
        read(data, **told)
    print("ready" if "threads" in known else "ready one thread", flush=True)
    for line in sys.stdin:
        index, threads = (int(word) for word in line.split())
        start = time.perf_counter()
        read(photos[index], **told, **({"threads": threads} if "threads" in known else {}))
        print(f"{(time.perf_counter() - start) * 1000:.3f}", flush=True)
    return 0


def generated_shows(count: int, folder: Path) -> list[str]:
    """`count` generated shows, as `bench_recognise.py` draws them, written to `folder`."""
    from bench_recognise import generated_shows as drawn  # this tree's recogniser: main process only

    names = []
    for i, data in enumerate(drawn(count)[0]):
        path = folder / f"show-{i + 1}.jpg"
        path.write_bytes(data)
        names.append(str(path))
    return names


def _start(
    tree: str, files: Sequence[str], expect: int | None, as_workers: bool
) -> tuple[subprocess.Popen[str], bool]:
    """The worker for `tree`, every photo read once, and whether it reads on one thread only."""
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        tree,
        "-",
        "--worker",
        "--expect",
        str(expect or 0),
        *(["--as-workers"] if as_workers else []),
    ]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\t".join(files) + "\n")
    process.stdin.flush()
    answer = process.stdout.readline().strip()
    if not answer.startswith("ready"):
        raise SystemExit(answer or f"the worker for {tree} did not start")
    return process, answer == "ready one thread"


def _time(process: subprocess.Popen[str], index: int, threads: int) -> float:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{index} {threads}\n")
    process.stdin.flush()
    return float(process.stdout.readline())


def compare(
    before: str,
    after: str,
    files: Sequence[str],
    rounds: int,
    threads: int,
    expect: int | None,
    as_workers: bool = False,
) -> str:
    """The markdown table for `files` read by both trees in turn (`as_workers`: see `worker`)."""
    started = [_start(tree, files, expect, as_workers) for tree in (before, after)]
    workers = [process for process, _ in started]
    alone = [tree for (_, one), tree in zip(started, ("before", "after"), strict=True) if one]
    draw = random.Random(20261206)
    times = [[[0.0] * len(files) for _ in range(rounds)] for _ in workers]
    try:
        for r in range(rounds):
            for i in range(len(files)):
                for k in draw.sample(range(2), 2):
                    times[k][r][i] = _time(workers[k], i, threads)
    finally:
        for process in workers:
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    best = [[min(tree[r][i] for r in range(rounds)) for i in range(len(files))] for tree in times]
    ratios = [a / b for b, a in zip(*best, strict=True)]
    per_round = [
        statistics.median(a / b for b, a in zip(times[0][r], times[1][r], strict=True)) for r in range(rounds)
    ]
    told = "untold" if expect is None else f"told {expect}"
    if alone and threads > 1:
        told += f" ({' and '.join(alone)} on one: no reading threads)"
    medians = [statistics.median(tree) for tree in best]
    return "\n".join(
        [
            "| photos | reading | before ms | after ms | ratio of medians | per-photo ratio | each round |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- |",
            f"| {len(files)} | {told}, {threads} thread{'s' if threads > 1 else ''} | {medians[0]:.1f} "
            f"| {medians[1]:.1f} | {medians[1] / medians[0]:.3f} | {statistics.median(ratios):.3f} "
            f"| {', '.join(f'{r:.3f}' for r in per_round)} |",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("before", help="the tree timed first (a checkout of this repository)")
    parser.add_argument("after", help="the tree compared with it")
    parser.add_argument("--shows", type=int, default=40, help="generated shows to read (0: none)")
    parser.add_argument("--photos", help="a glob pattern of photo files to read too")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="reading threads (0: READING_THREADS)")
    parser.add_argument("--expect", type=int, default=0, help="cards to tell the reading (0: untold)")
    parser.add_argument("--as-workers", action="store_true", help="allocate as each tree's photo workers do")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    expect = args.expect or None
    if args.worker:
        return worker(args.before, expect, args.as_workers)
    threads = args.threads
    if not threads:
        sys.path.insert(0, str(ROOT))
        from vision.recognise import READING_THREADS

        threads = READING_THREADS
    with tempfile.TemporaryDirectory() as folder:
        files = generated_shows(args.shows, Path(folder)) if args.shows else []
        files += sorted(glob.glob(args.photos)) if args.photos else []
        if not files:
            parser.error("no photos: give --shows or --photos")
        print(compare(args.before, args.after, files, args.rounds, threads, expect, args.as_workers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
