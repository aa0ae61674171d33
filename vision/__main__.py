"""Command line: `python -m vision PHOTO [--json] [--expect N]`.

Prints each card found with its confidence (or the same as JSON with --json) and any
warnings. ``--expect N``: the photo should hold N cards (a show: 5), see `recognise`. Bad input
prints a one-line message on stderr and exits with status 2. When the reader of the output goes
away (``| head``), it stops quietly with status 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from vision.io import ImageError
from vision.recognise import recognise


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m vision", description="Read the cards in a photo.")
    parser.add_argument("photo", help="JPEG, PNG, WebP or HEIC file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--expect", type=_card_count, metavar="N",
                        help="how many cards the photo should hold (a show: 5): read faster when the "
                             "outlines find them all")
    args = parser.parse_args(argv)
    try:
        result = recognise(args.photo, expect=args.expect)
    except ImageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(result.to_json())
        return 0
    for detection in result.cards:
        print(f"{detection.card}  {detection.confidence:.0%}")
    for warning in result.warnings:
        print(f"warning: {warning}")
    return 0


def _card_count(text: str) -> int:
    """An --expect value: a whole number of cards from 1 to 52."""
    if not text.isdigit() or not 1 <= int(text) <= 52:
        raise argparse.ArgumentTypeError(f"a number of cards from 1 to 52, not {text!r}")
    return int(text)


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader closed the pipe; devnull takes the interpreter's last flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 128 + signal.SIGPIPE
    sys.exit(status)
