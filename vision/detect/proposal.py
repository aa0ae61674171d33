"""What every detector stage hands the classifier: a `Proposal`, a card frame to read, with
the stage that made it, so that a false card can be traced to what proposed it."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from enum import StrEnum
from threading import Condition, Event
from typing import Generic, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from vision.geometry import CARD_ASPECT, Quad


class Stage(StrEnum):
    """Which detector proposed a card frame."""

    OUTLINE = "outline"
    """Either index corner of a whole-card outline (`outlines`); the two are fused."""
    OUTLINE_CORNER = "outline corner"
    """A corner of a whole-card outline read alone as a square frame sized by its top edge
    (`outlines`): right even when the outline is of the visible part of a card only."""
    BLOB_CORNER = "blob corner"
    """A convex, roughly square corner of a light blob that is not one card (`corners`)."""
    EDGE_CORNER = "edge corner"
    """Where two straight edges on paper meet at a near-right angle (`corners`)."""
    SQUARED_CORNER = "squared corner"
    """A skewed blob or edge corner squared up on one side (`corners`)."""
    GLYPH_PAIR = "glyph pair"
    """A rank-above-suit pair of ink glyphs (`index_pairs`)."""
    JOINED_INDEX = "joined index"
    """One ink blob shaped like a whole index, rank and suit run together (`index_pairs`)."""

    FAN_STEP = "fan step"
    """A frame stepped on from two cards read in one fan, or framed at an edge beside a card read
    (`vision.recognise.fan_neighbours`)."""


@dataclass(frozen=True)
class Proposal:
    """A place where an index may be: a card frame whose top-left corner is to be read."""

    homography: NDArray[np.float64]
    """Card coordinates to working-image pixels (see `geometry`)."""
    outline: int | None
    """Which whole-card outline this corner belongs to (its two corners are fused), or None
    for a lone corner of a blob."""
    quad: Quad
    """The card's four corners implied by the proposal, starting at the corner read."""
    stage: Stage
    """The detector that proposed it."""
    after: NDArray[np.float64] | None = None
    """A frame to read first (the same print framed otherwise): this one is read only if that
    one shows a trace of an index (see `vision.recognise.FOLLOW_FROM`), or None."""


_CARD = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, CARD_ASPECT], [0.0, CARD_ASPECT]])
"""A card's corners (TL, TR, BR, BL) in the units of a corner frame: card widths."""


def card_corners_from_frame(homography: NDArray[np.float64]) -> Quad:
    """Image corners of the whole card implied by a corner frame (TL, TR, BR, BL)."""
    return cast(Quad, card_corners_from_frames(homography[None])[0])


def card_corners_from_frames(homographies: NDArray[np.float64]) -> NDArray[np.float64]:
    """`card_corners_from_frame` of each of (n, 3, 3) `homographies`, (n, 4, 2): worked out as
    `cv2.perspectiveTransform` works out each point, in the same order of operations, to the
    last bit (a point whose depth is within FLT_EPSILON of 0 goes to the origin), for every
    frame at once. A photo's lone proposals are a thousand frames, and OpenCV's call took 3.8
    us a frame, numpy's arrays 0.2."""
    x, y = _CARD[:, 0], _CARD[:, 1]
    m = homographies.reshape(-1, 9)[:, :, None]
    depth = x * m[:, 6] + y * m[:, 7] + m[:, 8]
    defined = np.abs(depth) > np.finfo(np.float32).eps
    scale = np.divide(1.0, depth, out=np.zeros_like(depth), where=defined)
    along = (x * m[:, 0] + y * m[:, 1] + m[:, 2]) * scale
    down = (x * m[:, 3] + y * m[:, 4] + m[:, 5]) * scale
    corners = np.stack([along, down], axis=2)
    corners[~defined] = 0.0  # +0, as OpenCV writes it, not the -0 of a negative times 0
    return corners


def lone_proposals(
    homographies: list[NDArray[np.float64]],
    stage: Stage,
    after: NDArray[np.float64] | list[NDArray[np.float64] | None] | None = None,
) -> list[Proposal]:
    """Lone card frames (no whole outline) made by `stage`, each with the card it implies, each
    read `after` that frame if one is given (`Proposal.after`): one frame for all, or a list of
    one (or None) for each. The cards are worked out for all the frames at once
    (`card_corners_from_frames`), so a stage makes its proposals in one call."""
    if not homographies:
        return []
    afters = after if isinstance(after, list) else [after] * len(homographies)
    cards = card_corners_from_frames(np.array(homographies, np.float64))
    return [Proposal(h, None, card, stage, a) for h, card, a in zip(homographies, cards, afters, strict=True)]


class Stopped(Exception):
    """A stage run beside the reading (`vision.recognise`) was asked to stop: the reading has
    what it needs without it."""


def stop_if(stop: Event | None) -> None:
    """Raise `Stopped` when `stop` is set: a stage looks between its steps (each a few tens of
    milliseconds at most), so a reading that no longer needs it waits no longer than one."""
    if stop is not None and stop.is_set():
        raise Stopped


_T = TypeVar("_T")


class Part(Generic[_T]):
    """A part of a stage forked on a `Share`: run once, by whichever thread takes it first."""

    def __init__(self, function: Callable[..., _T], args: tuple[object, ...]) -> None:
        self._function, self._args = function, args
        self.outcome: Future[_T] = Future()

    def run(self) -> None:
        """Run it, keeping its value or what it raised for `Share.join`."""
        try:
            value = self._function(*self._args)
        except BaseException as error:  # handed to the thread that joins it, and raised there
            self.outcome.set_exception(error)
        else:
            self.outcome.set_result(value)


class Share:
    """The parts of a stage that a second thread may take (`help`) while the thread running the
    stage works through them (`join`). A stage forks the parts that need only what it has
    found so far and joins them before it goes on; `join` runs the first part still open on the
    calling thread, `help` the last, so each thread takes a different end and each part runs
    once. Every part works on its own arguments only, so the stage finds the same whoever ran
    its parts. With nobody helping, `join` runs each part in turn, as the stage would without
    forking."""

    def __init__(self) -> None:
        self._open: list[Part[object]] = []
        self._changed = Condition()
        self._closed = False

    def fork(self, function: Callable[..., _T], *args: object) -> Part[_T]:
        """`function(*args)`, to be run by `join` or a thread that helps."""
        part: Part[_T] = Part(function, args)
        with self._changed:
            self._open.append(cast("Part[object]", part))
            self._changed.notify_all()
        return part

    def join(self, part: Part[_T]) -> _T:
        """`part`'s value (or what it raised): run here if nobody took it, the open parts forked
        before it run first, while it runs on a helping thread."""
        while not part.outcome.done():
            with self._changed:
                taken: Part[object] | None = cast("Part[object]", part)
                if taken in self._open:
                    self._open.remove(taken)
                else:
                    taken = self._open.pop(0) if self._open else None
            if taken is None:
                break  # taken by the helping thread: wait for it below
            taken.run()
        return part.outcome.result()

    def close(self) -> None:
        """Nothing more will be forked: `help` returns once no part is left open."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def help(self) -> None:
        """Run the open parts from the last, and those forked meanwhile, until the stage is
        `close`d with none left open."""
        while True:
            with self._changed:
                while not self._open and not self._closed:
                    self._changed.wait()
                if not self._open:
                    return
                part = self._open.pop()
            part.run()
