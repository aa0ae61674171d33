"""Measure the recogniser: `python -m vision.evaluate DIR... [--synthetic N] [--large N]`.

Each DIR holds photos and a `labels.json` mapping file name to {"cards": [...]} (the layout of
the shared evaluation photos). `--synthetic N` adds N freshly generated cribbage shows (seed
`EVALUATION_SEED`, never used in training) photographed twice over: with a typical phone
camera, and with the harsh camera the training uses (dim light, strong glare and shadows,
heavy blur and noise, JPEG down to quality 55). `--large N` adds N typical shows at 12
megapixels for timing. Prints one markdown table: images, card recall, card precision, exact-photo rate
(every card right and nothing extra), and the median and 95th-percentile time per photo,
measured from the file's bytes (decode included).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.classify import default_model
from vision.io import ImageError
from vision.recognise import recognise
from vision.synth import FaceLibrary, full_library, render_show

EVALUATION_SEED = 7_000_001
"""First seed of evaluation shows; training uses seeds near `vision.train.TRAIN_SEED`."""

LARGE_SIZE = (4032, 3024)
"""A 12-megapixel phone photo (4:3)."""

SHOW_SIZE = (1600, 1200)
"""Size of the generated show photos: a phone photo as a web page would upload it."""


@dataclass
class Tally:
    """Running counts for one set of photos."""

    name: str
    images: int = 0
    truth: int = 0
    found: int = 0
    right: int = 0
    exact: int = 0
    millis: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def add(
        self,
        label: str,
        expected: Iterable[str],
        got: Iterable[str],
        millis: float,
        stages: Mapping[str, str] | None = None,
    ) -> None:
        """Count one photo; `stages` names the detector stage that proposed each card found, to
        trace an extra one."""
        want, have = set(expected), list(got)
        hits = len(want & set(have))
        self.images += 1
        self.truth += len(want)
        self.found += len(have)
        self.right += hits
        self.millis.append(millis)
        if hits == len(want) == len(have):
            self.exact += 1
        else:
            missing = sorted(want - set(have))
            extra = [
                f"{card} ({stages[card]})" if stages and stages.get(card) else card
                for card in sorted(set(have) - want)
            ]
            self.misses.append(f"{label}: missing {' '.join(missing) or '-'}; extra {' '.join(extra) or '-'}")

    def row(self) -> str:
        """This tally as a markdown table row."""
        recall = self.right / self.truth if self.truth else 1.0
        precision = self.right / self.found if self.found else 1.0
        exact = self.exact / self.images if self.images else 0.0
        median = float(np.median(self.millis)) if self.millis else 0.0
        p95 = float(np.percentile(self.millis, 95)) if self.millis else 0.0
        return (
            f"| {self.name} | {self.images} | {recall:.1%} | {precision:.1%} | {exact:.1%} | "
            f"{median:.0f} | {p95:.0f} |"
        )


HEADER = (
    "| set | images | card recall | card precision | exact photos | median ms | p95 ms |\n"
    "| --- | --- | --- | --- | --- | --- | --- |"
)


def _timed(data: bytes) -> tuple[list[str], float, dict[str, str]]:
    """The cards found in a photo, the milliseconds taken, and the stage that proposed each."""
    started = time.perf_counter()
    result = recognise(data)
    millis = (time.perf_counter() - started) * 1000.0
    return [d.card for d in result.cards], millis, {d.card: d.stage for d in result.cards}


def evaluate_folder(folder: Path, only: str | None = None) -> Tally:
    """Recognise every labelled photo in `folder` (optionally only names starting with `only`)."""
    labels = json.loads((folder / "labels.json").read_text())
    tally = Tally(folder.name + (f" ({only}*)" if only else ""))
    for name in sorted(labels):
        if only and not name.startswith(only):
            continue
        cards, millis, stages = _timed((folder / name).read_bytes())
        tally.add(name, labels[name]["cards"], cards, millis, stages)
    return tally


def evaluate_synthetic(
    count: int,
    library: FaceLibrary,
    size: tuple[int, int],
    name: str,
    seed: int = EVALUATION_SEED,
    harsh: bool = False,
) -> Tally:
    """Recognise `count` freshly generated cribbage shows (`harsh` for the stress camera)."""
    tally = Tally(name)
    for i in range(count):
        photo = render_show(seed + i, library, size=size, harsh=harsh)
        cards, millis, stages = _timed(photo.jpeg_bytes())
        tally.add(f"seed {seed + i}", photo.cards, cards, millis, stages)
    return tally


def main(argv: Sequence[str] | None = None) -> int:
    """Evaluate folders and synthetic shows; print a markdown table."""
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="folders with labels.json")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N", help="also N generated shows")
    parser.add_argument("--large", type=int, default=0, metavar="N", help="also N generated 12 MP shows")
    parser.add_argument("--split", action="store_true", help="report file-name groups (single_, deal) apart")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="list every photo that was not exact (each extra card with the detector stage that proposed it)",
    )
    args = parser.parse_args(argv)
    default_model()  # load once, outside the timings
    tallies: list[Tally] = []
    try:
        for folder in args.folders:
            if args.split:
                prefixes = sorted(
                    {
                        re.sub(r"[^A-Za-z].*", "", name)
                        for name in json.loads((folder / "labels.json").read_text())
                    }
                )
                tallies.extend(evaluate_folder(folder, prefix) for prefix in prefixes)
            else:
                tallies.append(evaluate_folder(folder))
    except (OSError, ValueError, ImageError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.synthetic or args.large:
        library = full_library(EVALUATION_SEED)
        if args.synthetic:
            tallies.append(evaluate_synthetic(args.synthetic, library, SHOW_SIZE, "synthetic shows"))
            tallies.append(
                evaluate_synthetic(args.synthetic, library, SHOW_SIZE, "synthetic shows, harsh", harsh=True)
            )
        if args.large:
            tallies.append(
                evaluate_synthetic(
                    args.large, library, LARGE_SIZE, "synthetic shows, 12 MP", seed=EVALUATION_SEED + 500_000
                )
            )
    overall = Tally("overall")
    for tally in tallies:
        overall.images += tally.images
        overall.truth += tally.truth
        overall.found += tally.found
        overall.right += tally.right
        overall.exact += tally.exact
        overall.millis += tally.millis
    print(HEADER)
    for tally in [*tallies, overall] if len(tallies) > 1 else tallies:
        print(tally.row())
    if args.verbose:
        for tally in tallies:
            for miss in tally.misses:
                print(f"{tally.name}: {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
