"""Wall time of ``python -m scorer stats`` (the distribution of all 12,994,800 deals), start-up included.

Run from the repository root with the project's venv::

    .venv/bin/python bench/bench_stats.py [--runs 7]

Each command runs as a fresh subprocess of the same interpreter, so the times include Python's
start-up and the numpy import, as a player typing the command would wait. Two baselines show
how much of that is start-up alone. Where ``scorer/__main__.py`` does not exist yet, the
distribution is timed through ``python -c`` instead. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RUNS = 7
TARGET_S = 2.0
"""Longest acceptable wall time for ``stats`` on the project's 2-core machine, start-up included."""
TIMEOUT_S = 120


def commands() -> list[tuple[str, list[str], bool]]:
    """(label, argv after the interpreter, held to the target) for each timed command."""
    if (ROOT / "scorer" / "__main__.py").exists():
        timed = [
            ("python -m scorer stats", ["-m", "scorer", "stats"]),
            ("python -m scorer stats --crib", ["-m", "scorer", "stats", "--crib"]),
        ]
    else:
        call = "from scorer.tables import distribution; distribution(crib={})"
        timed = [
            ("python -c 'distribution()'", ["-c", call.format(False)]),
            ("python -c 'distribution(crib=True)'", ["-c", call.format(True)]),
        ]
    baselines = [
        ("baseline: python -c pass", ["-c", "pass"]),
        ("baseline: python -c 'import numpy'", ["-c", "import numpy"]),
    ]
    held = [(label, argv, True) for label, argv in timed]
    return held + [(label, argv, False) for label, argv in baselines]


def wall_times(argv: list[str], runs: int) -> list[float]:
    """Seconds per run of ``python argv``; a failing run stops the bench with its stderr."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"python {' '.join(argv)} failed (exit {done.returncode}):\n{done.stderr}")
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    args = parser.parse_args(argv)
    rows = [
        "| command | runs | min s | median s | max s | within 2 s |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for label, cmd, held in commands():
        times = wall_times(cmd, args.runs)
        verdict = ("yes" if max(times) <= TARGET_S else "NO") if held else "—"
        rows.append(
            f"| `{label}` | {args.runs} | {min(times):.3f} | {statistics.median(times):.3f} "
            f"| {max(times):.3f} | {verdict} |"
        )
    print(f"Distribution wall time, fresh process each run, Python {sys.version.split()[0]}\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
