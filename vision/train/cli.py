"""`python -m vision.train`: generate the samples, train the networks, calibrate, write the
model, and print a report. Seeded end to end.

`--cache DIR` keeps the generated samples (most of a run's time) for the next run, and
`--conv-from MODEL` takes the convolutional network of an existing model file byte for byte
instead of training it again, so that a change to the perceptrons or to the calibration
retrains only what it must; `--networks-from MODEL` takes the perceptrons (with their heads'
calibration) the same way, so that one model's perceptrons can be joined to another's
convolutional network. `--screen-only` trains the screen (`vision.train.screen`) alone, for
the model file at `--out`, and writes it back with everything else kept. `--tight SHARE` lays
the neighbour of that share of the single-card scenes tight beside the index
(`samples.scene_samples`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from vision.classify import MODEL_PATH, IndexModel, stored_conv
from vision.decks import SVG_DECKS, missing_svg_decks
from vision.train.calibration import CALIBRATION_PHOTOS, fit_detection_weights
from vision.train.models import (
    CONV_EPOCHS,
    DEFAULT_NETWORKS,
    MLP_EPOCHS,
    NETWORK_SEED_STEP,
    calibrate_heads,
    report,
    torch_module,
    train_conv,
    train_network,
)
from vision.train.samples import (
    DEFAULT_HELD,
    DEFAULT_MINED,
    DEFAULT_SCENES,
    TIGHT_NEIGHBOURS,
    TRAIN_SEED,
    SampleSet,
    cached,
)
from vision.train.screen import (
    SCREEN_HELD_OUT,
    SCREEN_PHOTOS,
    cached_screen_samples,
    screen_report,
    train_screen,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Generate data, train, calibrate and write the model; prints a report."""
    parser = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=DEFAULT_SCENES, help="single-card training scenes")
    parser.add_argument(
        "--mined", type=int, default=DEFAULT_MINED, help="table photos read through the recogniser"
    )
    parser.add_argument(
        "--held", type=int, default=DEFAULT_HELD, help="hands held fanned in the fingers, read so too"
    )
    parser.add_argument(
        "--photos", type=int, default=CALIBRATION_PHOTOS, help="photos for confidence calibration"
    )
    parser.add_argument("--epochs", type=int, default=MLP_EPOCHS, help="epochs of each perceptron")
    parser.add_argument(
        "--networks", type=int, default=DEFAULT_NETWORKS, help="perceptrons in the ensemble (same data)"
    )
    parser.add_argument(
        "--conv-epochs",
        type=int,
        default=CONV_EPOCHS,
        help="epochs of the convolutional network (0: a model without one)",
    )
    parser.add_argument(
        "--conv-from",
        type=Path,
        metavar="MODEL",
        help="take the convolutional network of this model file instead of training one",
    )
    parser.add_argument(
        "--networks-from",
        type=Path,
        metavar="MODEL",
        help="take the perceptrons of this model file instead of training them",
    )
    parser.add_argument(
        "--tight",
        type=float,
        default=TIGHT_NEIGHBOURS,
        metavar="SHARE",
        help="share of single-card scenes whose neighbour is laid tight beside the index",
    )
    parser.add_argument(
        "--screen-photos", type=int, default=SCREEN_PHOTOS, help="generated photos read to train the screen"
    )
    parser.add_argument(
        "--screen-only",
        action="store_true",
        help="train only the screen, for the model at --out, and write it back",
    )
    parser.add_argument(
        "--cache", type=Path, metavar="DIR", help="keep generated samples here and reuse them"
    )
    parser.add_argument("--seed", type=int, default=TRAIN_SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    missing = missing_svg_decks()
    if missing:
        # Procedural faces alone teach a model that reads real spades as clubs (measured: every
        # spade of the shared single-card photos), so a model is never built without the decks.
        parser.error(
            f"{len(missing)} of {len(SVG_DECKS)} SVG card decks are missing ({', '.join(missing[:4])}...): "
            "install Debian's gnome-cards-data, kdegames-card-data-kf5 and librsvg2-bin, and npm"
        )
    torch_module()  # fail now, not after the data is generated
    if args.screen_only:
        model = IndexModel.load(args.out)
        model = with_screen(model, args.seed, args.screen_photos, args.workers, args.cache)
        model.save(args.out)
        print(f"wrote {args.out} in {time.perf_counter() - started:.0f} s")
        return 0
    kept_conv = None
    if args.conv_from is not None:
        kept_conv = stored_conv(args.conv_from)
        if kept_conv is None:
            parser.error(f"{args.conv_from} holds no convolutional network")
    if not 0.0 <= args.tight <= 1.0:
        parser.error(f"--tight is a share of the scenes, from 0 to 1, not {args.tight}")
    kept_networks = IndexModel.load(args.networks_from).networks if args.networks_from is not None else None
    print(
        f"generating {args.scenes} card scenes, {args.mined} table photos and {args.held} held hands "
        f"(seed {args.seed})",
        flush=True,
    )
    held = args.held > 0
    train = SampleSet.concat(
        [
            cached(args.cache, args.seed, args.scenes, args.workers, tight=args.tight),
            cached(args.cache, args.seed, args.mined, args.workers, kind="mined"),
        ]
        + ([cached(args.cache, args.seed, args.held, args.workers, kind="held")] if held else [])
    )
    held_out = max(args.held // 10, 20)
    validation = SampleSet.concat(
        [
            cached(args.cache, args.seed + 1, max(args.scenes // 10, 100), args.workers, tight=args.tight),
            cached(args.cache, args.seed + 1, max(args.mined // 10, 50), args.workers, kind="mined"),
        ]
        + ([cached(args.cache, args.seed + 1, held_out, args.workers, kind="held")] if held else [])
    )
    print(
        f"  {len(train.ranks)} training patches, {len(validation.ranks)} held out "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    networks = list(kept_networks) if kept_networks is not None else []
    for member in range(args.networks if kept_networks is None else 0):
        print(f"perceptron {member + 1} of {args.networks}", flush=True)
        network = train_network(train, args.seed + member * NETWORK_SEED_STEP, args.epochs)
        networks.append(calibrate_heads(network, validation))
    conv = kept_conv
    if conv is None and args.conv_epochs:
        print("convolutional network", flush=True)
        conv = train_conv(train, validation, args.seed, args.conv_epochs)
    model = IndexModel(networks=tuple(networks), conv=conv)
    print(report(model, validation))
    model = with_screen(model, args.seed, args.screen_photos, args.workers, args.cache)
    weights = fit_detection_weights(model, args.seed + 2, args.photos, args.workers)
    model = replace(model, detection_weights=weights)
    model.save(args.out)
    print(
        f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s"
    )
    return 0


def with_screen(model: IndexModel, seed: int, photos: int, workers: int, cache: Path | None) -> IndexModel:
    """`model` with a screen trained on `photos` generated photos it reads (`vision.train.screen`),
    and what the screen turns away of photos it was not trained on."""
    started = time.perf_counter()
    print(f"screen: reading {photos} generated photos", flush=True)
    samples = cached_screen_samples(cache, model, seed + 3, photos, workers)
    print(
        f"  {len(samples.maps)} patches, {int(samples.passing.sum())} to let through "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    screen = train_screen(samples, seed)
    print(f"  threshold {screen.threshold:.3f}", flush=True)
    held_out = cached_screen_samples(cache, model, seed + 4, SCREEN_HELD_OUT, workers)
    print(screen_report(screen, held_out), flush=True)
    return replace(model, screen=screen)


if __name__ == "__main__":
    sys.exit(main())
