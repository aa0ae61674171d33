"""Measure the recogniser: `python -m vision.evaluate DIR... [--synthetic N] [--large N]`.

Each DIR holds photos and a `labels.json` mapping file name to {"cards": [...]} (the layout of
the shared evaluation photos). `--synthetic N` adds N freshly generated cribbage shows (seed
`EVALUATION_SEED`, never used in training) photographed twice over: with a typical phone camera,
and with the harsh camera the training uses (dim light, strong glare and shadows, heavy blur and
noise, JPEG down to quality 55), and N shows whose starter lies clearly apart (typical camera).
`--held N` adds N hands of four to six cards held fanned in the fingers (`render_held_hand`,
typical camera, seeds from `HELD_SEED`): only each card's top-left index shows, fingers over the
cards' lower parts. `--deals N` adds N deals laid out to show, four hands of nine to thirteen
cards each fanned on the table (`render_deal`, typical camera, seeds from `DEAL_SEED`, read
untold): a stand-in for the bridge deals among the labelled photos, which only measure; N deals
whose hands are laid straight, each in runs of cards slid over one another in rows or columns
(`render_spread_deal`, seeds from `SPREAD_SEED`, read untold); and N deals laid tight, fanned or
straight, each card showing its deck's own index and little more (`render_tight_deal`, seeds
from `TIGHT_SEED`, read untold), as the bridge deals are; and N deals fanned as the first, with
the shadow of the player's arm across them (`render_shaded_deal`, seeds from `SHADED_SEED`, read
untold), as one bridge deal is. `--large N` adds N typical shows at 12 megapixels for timing.
`--expect 5` reads the generated shows (not the folders) as the count page has them read, told
how many cards they hold (`recognise`'s `expect`), and with `--held` adds a row of the same
hands read told how many cards each holds, as a match's photo of a hand and the throw advisor
read them (the first held row stays untold). Prints a markdown table: images, card recall, card
precision, the false cards read surely (at least `recognise.UNSURE_BELOW`: shown to the player
as sure, not as a card to check), the right cards read unsurely (the player asked to check a card
that was right: what a rule of sureness costs), exact-photo rate (every card right and nothing
extra), and the median and 95th-percentile time per photo, measured from the file's bytes (decode included);
then a second one for `Recognition.starter`: on generated shows how often the card suggested as
the starter is the starter, a hand card (wrong) or none, and on the labelled photos (no shows,
so no starter to be right about) how often any card is suggested. `--verbose` lists every photo
not read exactly, a generated one with the deck its faces are drawn from, and then, for the
generated photos, the decks that missed a card or reported a false one (`decks_missed`): a deck
whose print a stage loses misses cards photo after photo.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.classify import default_model
from vision.io import ImageError
from vision.recognise import recognise
from vision.synth import (
    FaceLibrary,
    SyntheticPhoto,
    full_library,
    render_deal,
    render_held_hand,
    render_shaded_deal,
    render_show,
    render_spread_deal,
    render_tight_deal,
)

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
    false_sure: int = 0
    """Cards reported that the photo does not hold, read surely (`Detection.sure`)."""
    right_unsure: int = 0
    """Cards reported that the photo holds, read unsurely: the player asked to check a right card."""
    exact: int = 0
    millis: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    decks: dict[str, DeckCount] = field(default_factory=dict)
    """The generated photos' counts by the deck their faces are drawn from."""

    def add(
        self,
        label: str,
        expected: Iterable[str],
        got: Iterable[str],
        millis: float,
        stages: Mapping[str, str] | None = None,
        deck: str | None = None,
        sure: Iterable[str] = (),
    ) -> None:
        """Count one photo; `stages` names the detector stage that proposed each card found, to
        trace an extra one; `deck` names a generated photo's deck (`SyntheticPhoto.deck`); `sure`:
        the cards found that were read surely."""
        want, have = set(expected), list(got)
        hits = len(want & set(have))
        self.images += 1
        self.truth += len(want)
        self.found += len(have)
        self.right += hits
        self.false_sure += sum(card not in want for card in sure)
        self.right_unsure += hits - len(want & set(sure))
        self.millis.append(millis)
        if deck is not None:
            self.decks.setdefault(deck, DeckCount(deck)).add(len(want), len(have), hits)
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
            f"| {self.name} | {self.images} | {recall:.1%} | {precision:.1%} | {self.false_sure} | "
            f"{self.right_unsure} | {exact:.1%} | {median:.0f} | {p95:.0f} |"
        )


@dataclass
class DeckCount:
    """Generated photos of one deck, over every generated row: how many, their cards, how many
    of those were missed, and the false cards reported."""

    deck: str
    images: int = 0
    cards: int = 0
    missed: int = 0
    false: int = 0

    def add(self, cards: int, reported: int, right: int) -> None:
        """Count one photo of `cards` cards, `reported` of them reported, `right` of those right."""
        self.images += 1
        self.cards += cards
        self.missed += cards - right
        self.false += reported - right

    def row(self) -> str:
        """This deck's counts as a markdown table row."""
        return f"| {self.deck} | {self.images} | {self.cards} | {self.missed} | {self.false} |"


DECK_HEADER = (
    "| deck | generated photos | cards | missed | false |\n"
    "| --- | --- | --- | --- | --- |"
)


def decks_missed(tallies: Iterable[Tally]) -> list[DeckCount]:
    """The decks of the generated photos that missed a card or reported a false one, over every
    tally, the most cards missed first (then the most false, then by name)."""
    totals: dict[str, DeckCount] = {}
    for tally in tallies:
        for count in tally.decks.values():
            total = totals.setdefault(count.deck, DeckCount(count.deck))
            total.images += count.images
            total.cards += count.cards
            total.missed += count.missed
            total.false += count.false
    wrong = [count for count in totals.values() if count.missed or count.false]
    return sorted(wrong, key=lambda count: (-count.missed, -count.false, count.deck))


@dataclass
class StarterTally:
    """How often `Recognition.starter` named the starter, another card, or none."""

    name: str
    images: int = 0
    right: int = 0
    wrong: int = 0
    none: int = 0
    known: bool = True
    """Whether the photos have a starter to be right about (generated shows do, labelled ones not)."""

    def add(self, starter: str | None, suggested: str | None) -> None:
        """Count one photo: its true starter (None when it has none) and the card suggested."""
        self.images += 1
        if suggested is None:
            self.none += 1
        elif suggested == starter:
            self.right += 1
        else:
            self.wrong += 1

    def row(self) -> str:
        """This tally as a markdown table row."""
        def share(count: int) -> str:
            return f"{count / self.images:.1%}" if self.images else "-"

        if not self.known:
            return f"| {self.name} | {self.images} | - | - | {share(self.none)} | {share(self.wrong)} |"
        return (
            f"| {self.name} | {self.images} | {share(self.right)} | {share(self.wrong)} | "
            f"{share(self.none)} | {share(self.right + self.wrong)} |"
        )


STARTER_HEADER = (
    "| set | images | starter right | starter wrong | no starter | any suggested |\n"
    "| --- | --- | --- | --- | --- | --- |"
)


HEADER = (
    "| set | images | card recall | card precision | false cards read surely | right cards to check "
    "| exact photos | median ms | p95 ms |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


@dataclass(frozen=True)
class _Read:
    """A photo's reading as the evaluation counts it."""

    cards: list[str]
    millis: float
    stages: dict[str, str]
    """The detector stage that proposed each card."""
    sure: list[str]
    """The cards read surely (`Detection.sure`)."""
    starter: str | None
    """The card suggested as the starter."""


def _timed(data: bytes, expect: int | None = None) -> _Read:
    """The reading of a photo (told to `expect` cards, if given), timed."""
    started = time.perf_counter()
    result = recognise(data, expect=expect)
    millis = (time.perf_counter() - started) * 1000.0
    starter = None if result.starter is None else result.cards[result.starter].card
    return _Read(
        cards=[d.card for d in result.cards],
        millis=millis,
        stages={d.card: d.stage for d in result.cards},
        sure=[d.card for d in result.cards if d.sure],
        starter=starter,
    )


def split_prefixes(folder: Path) -> list[str]:
    """The file-name groups `--split` reports apart in a labelled folder: each name's leading
    letters (edje_tfod's IMG and cam, bidly's deal and single)."""
    labels = json.loads((folder / "labels.json").read_text())
    return sorted({re.sub(r"[^A-Za-z].*", "", name) for name in labels})


def evaluate_folder(folder: Path, only: str | None = None) -> Tally:
    """Recognise every labelled photo in `folder` (optionally only names starting with `only`)."""
    return evaluate_folder_starters(folder, only)[0]


def evaluate_folder_starters(folder: Path, only: str | None = None) -> tuple[Tally, StarterTally]:
    """`evaluate_folder`, and how often a card was suggested as the starter there (these photos
    are no shows: a suggestion is a card that lies apart, never a starter to be right about)."""
    labels = json.loads((folder / "labels.json").read_text())
    tally = Tally(folder.name + (f" ({only}*)" if only else ""))
    starters = StarterTally(tally.name, known=False)
    for name in sorted(labels):
        if only and not name.startswith(only):
            continue
        read = _timed((folder / name).read_bytes())
        tally.add(name, labels[name]["cards"], read.cards, read.millis, read.stages, sure=read.sure)
        starters.add(None, read.starter)
    return tally, starters


def evaluate_synthetic(
    count: int,
    library: FaceLibrary,
    size: tuple[int, int],
    name: str,
    seed: int = EVALUATION_SEED,
    harsh: bool = False,
    apart: bool = False,
    expect: int | None = None,
) -> Tally:
    """Recognise `count` freshly generated cribbage shows (`harsh` for the stress camera; told to
    `expect` that many cards, if given)."""
    return evaluate_synthetic_starters(count, library, size, name, seed, harsh, apart, expect)[0]


def evaluate_synthetic_starters(
    count: int,
    library: FaceLibrary,
    size: tuple[int, int],
    name: str,
    seed: int = EVALUATION_SEED,
    harsh: bool = False,
    apart: bool = False,
    expect: int | None = None,
) -> tuple[Tally, StarterTally]:
    """`evaluate_synthetic` (`apart`: shows whose starter lies clearly apart), and how often the
    starter was suggested rightly, wrongly (a hand card) or not at all."""
    photos = (render_show(seed + i, library, size=size, harsh=harsh, apart=apart) for i in range(count))
    return _tally_generated(name, seed, photos, expect)


def _tally_generated(
    name: str,
    seed: int,
    photos: Iterable[SyntheticPhoto],
    expect: int | None = None,
    told_count: bool = False,
) -> tuple[Tally, StarterTally]:
    """Recognise generated photos (drawn at seeds `seed`, `seed` + 1, ...; told to `expect` that
    many cards, if given, or with `told_count` each the number it holds): their cards and, for
    the ones that have a starter, how often it was suggested."""
    tally = Tally(name)
    starters = StarterTally(name)
    for i, photo in enumerate(photos):
        told = len(photo.cards) if told_count else expect
        read = _timed(photo.jpeg_bytes(), told)
        tally.add(f"seed {seed + i} ({photo.deck})", photo.cards, read.cards, read.millis, read.stages,
                  photo.deck, read.sure)
        if photo.starter_index is not None:
            starters.add(photo.cards[photo.starter_index], read.starter)
    return tally, starters


NO_SVG_DECKS = (
    "warning: no SVG deck is installed (Debian's gnome-cards-data, kdegames-card-data-kf5 and "
    "librsvg2-bin; npm's svg-cards, fetched on first use): the generated photos have procedural "
    "faces only, and their rows cannot be compared with a run that had the decks"
)
"""Said when the generated photos lack the SVG decks (`vision.synth.full_library`): their rows
then measure other faces."""


def evaluation_library() -> FaceLibrary:
    """The faces the generated photos are drawn from (`full_library` at `EVALUATION_SEED`),
    with `NO_SVG_DECKS` said on stderr when it has no SVG deck."""
    library = full_library(EVALUATION_SEED)
    if not library.svg:
        print(NO_SVG_DECKS, file=sys.stderr)
    return library


HELD_SEED = EVALUATION_SEED + 600_000
"""First seed of the held hands (`--held`); training uses none of the evaluation seeds."""


def evaluate_held(
    count: int, library: FaceLibrary, size: tuple[int, int], seed: int = HELD_SEED, told: bool = False
) -> Tally:
    """Recognise `count` generated hands held fanned in the fingers (`told`: each told how many
    cards it holds)."""
    photos = (render_held_hand(seed + i, library, size=size) for i in range(count))
    name = "synthetic held hands, fanned" + (", told their count" if told else "")
    return _tally_generated(name, seed, photos, told_count=told)[0]


DEAL_SEED = EVALUATION_SEED + 700_000
"""First seed of the generated deals `--deals` reads (development work reads others)."""

SPREAD_SEED = EVALUATION_SEED + 800_000
"""First seed of the generated deals laid straight that `--deals` reads."""

TIGHT_SEED = EVALUATION_SEED + 900_000
"""First seed of the generated deals laid tight that `--deals` reads."""

SHADED_SEED = EVALUATION_SEED + 950_000
"""First seed of the generated deals under a cast shadow that `--deals` reads."""

DEAL_ROWS: tuple[tuple[str, Callable[..., SyntheticPhoto], int], ...] = (
    ("synthetic deals, four hands fanned", render_deal, DEAL_SEED),
    ("synthetic deals, four hands laid straight", render_spread_deal, SPREAD_SEED),
    ("synthetic deals, four hands laid tight", render_tight_deal, TIGHT_SEED),
    ("synthetic deals, four hands fanned, under a cast shadow", render_shaded_deal, SHADED_SEED),
)
"""The rows `--deals N` adds, each its name, its deals and their first seed: four hands fanned
(`render_deal`); laid straight, in runs of cards slid over one another (`render_spread_deal`);
laid tight, fanned or straight, each card showing its deck's own index and a sliver of paper,
no more (`render_tight_deal`); and fanned with the shadow of the player's arm across them
(`render_shaded_deal`)."""


def evaluate_deals(
    count: int,
    library: FaceLibrary,
    size: tuple[int, int],
    name: str,
    render: Callable[..., SyntheticPhoto],
    seed: int,
) -> Tally:
    """Recognise `count` generated deals drawn by `render` from `seed` on (one row of
    `DEAL_ROWS`), untold, as the bridge deals among the labelled photos are read."""
    photos = (render(seed + i, library, size=size) for i in range(count))
    return _tally_generated(name, seed, photos)[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Evaluate folders and synthetic shows; print a markdown table."""
    parser = argparse.ArgumentParser(prog="python -m vision.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="folders with labels.json")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N", help="also N generated shows")
    parser.add_argument("--held", type=int, default=0, metavar="N", help="also N generated hands held fanned")
    parser.add_argument(
        "--deals",
        type=int,
        default=0,
        metavar="N",
        help="also N generated deals fanned, N laid straight, N laid tight and N fanned under a shadow",
    )
    parser.add_argument("--large", type=int, default=0, metavar="N", help="also N generated 12 MP shows")
    parser.add_argument("--split", action="store_true", help="report file-name groups (single_, deal) apart")
    parser.add_argument(
        "--expect",
        type=int,
        choices=range(1, 53),
        metavar="N",
        help="read the generated shows told they hold N cards (5: as the count page reads them)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="list every photo that was not exact (each extra card with the detector stage that proposed it, "
        "each generated photo with its deck), then the generated photos' decks that missed cards",
    )
    args = parser.parse_args(argv)
    default_model()  # load once, outside the timings
    tallies: list[Tally] = []
    starters: list[StarterTally] = []
    try:
        for folder in args.folders:
            if args.split:
                pairs = [evaluate_folder_starters(folder, prefix) for prefix in split_prefixes(folder)]
            else:
                pairs = [evaluate_folder_starters(folder)]
            tallies.extend(tally for tally, _ in pairs)
            starters.extend(starter for _, starter in pairs)
    except (OSError, ValueError, ImageError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.synthetic or args.large or args.held or args.deals:
        library = evaluation_library()
        print(f"Generated photos' faces: {library.summary()}")
        told = "" if args.expect is None else f", told {args.expect} cards"
        if args.synthetic:
            for name, harsh, apart in (
                ("synthetic shows", False, False),
                ("synthetic shows, harsh", True, False),
                ("synthetic shows, starter apart", False, True),
            ):
                tally, starter = evaluate_synthetic_starters(
                    args.synthetic, library, SHOW_SIZE, name + told, harsh=harsh, apart=apart,
                    expect=args.expect,
                )
                tallies.append(tally)
                starters.append(starter)
        if args.held:
            tallies.append(evaluate_held(args.held, library, SHOW_SIZE))
            if args.expect is not None:
                tallies.append(evaluate_held(args.held, library, SHOW_SIZE, told=True))
        if args.deals:
            tallies += [evaluate_deals(args.deals, library, SHOW_SIZE, *row) for row in DEAL_ROWS]
        if args.large:
            tallies.append(
                evaluate_synthetic(
                    args.large,
                    library,
                    LARGE_SIZE,
                    "synthetic shows, 12 MP" + told,
                    seed=EVALUATION_SEED + 500_000,
                    expect=args.expect,
                )
            )
    overall = Tally("overall")
    for tally in tallies:
        overall.images += tally.images
        overall.truth += tally.truth
        overall.found += tally.found
        overall.right += tally.right
        overall.false_sure += tally.false_sure
        overall.right_unsure += tally.right_unsure
        overall.exact += tally.exact
        overall.millis += tally.millis
    print(HEADER)
    for tally in [*tallies, overall] if len(tallies) > 1 else tallies:
        print(tally.row())
    if starters:
        print()
        print(STARTER_HEADER)
        for starter_tally in starters:
            print(starter_tally.row())
    if args.verbose:
        for tally in tallies:
            for miss in tally.misses:
                print(f"{tally.name}: {miss}")
        decks = decks_missed(tallies)
        if decks:
            print()
            print(DECK_HEADER)
            for deck in decks:
                print(deck.row())
    return 0


if __name__ == "__main__":
    sys.exit(main())
