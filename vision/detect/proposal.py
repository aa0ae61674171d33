"""What every detector stage hands the classifier: a `Proposal`, a card frame to read, with
the stage that made it, so that a false card can be traced to what proposed it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from threading import Event
from typing import cast

import cv2
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


def card_corners_from_frame(homography: NDArray[np.float64]) -> Quad:
    """Image corners of the whole card implied by a corner frame (TL, TR, BR, BL)."""
    card = np.array([[[0.0, 0.0], [1.0, 0.0], [1.0, CARD_ASPECT], [0.0, CARD_ASPECT]]])
    return cast(Quad, cv2.perspectiveTransform(card, homography)[0])


def lone_proposals(
    homographies: list[NDArray[np.float64]], stage: Stage, after: NDArray[np.float64] | None = None
) -> list[Proposal]:
    """Lone card frames (no whole outline) made by `stage`, each with the card it implies, each
    read `after` that frame if one is given (`Proposal.after`)."""
    return [Proposal(h, None, card_corners_from_frame(h), stage, after) for h in homographies]


class Stopped(Exception):
    """A stage run beside the reading (`vision.recognise`) was asked to stop: the reading has
    what it needs without it."""


def stop_if(stop: Event | None) -> None:
    """Raise `Stopped` when `stop` is set: a stage looks between its steps (each a few tens of
    milliseconds at most), so a reading that no longer needs it waits no longer than one."""
    if stop is not None and stop.is_set():
        raise Stopped
