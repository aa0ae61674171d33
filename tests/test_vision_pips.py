"""`vision.pips`: a number card's pips tell its suit's colour where its index cannot.

Each card is drawn by the project's own procedural decks (`vision.decks`), laid turned and
tilted on a table, and its middle's ink is measured where the card lies.
"""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from vision.decks import procedural_face, random_style
from vision.pips import PIP_RED, pip_redness, pips_disagree

QUAD = np.array([[300.0, 120.0], [430.0, 170.0], [370.0, 340.0], [235.0, 290.0]])
"""Where the card lies: about 140 px wide, turned 20 degrees and a little foreshortened."""


def laid(code: str, seed: int, light: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> np.ndarray:
    """Card `code` of procedural style `seed` laid at `QUAD` on a green cloth, the whole photo
    lit by a lamp of the colour `light` (blue, green, red gains)."""
    rng = random.Random(seed)
    face = procedural_face(code, random_style(rng, allow_truetype=False), rng)[..., :3]  # BGRA
    h, w = face.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    to_table = cv2.getPerspectiveTransform(corners, QUAD.astype(np.float32))
    table = np.full((480, 640, 3), (60, 140, 50), np.uint8)
    photo = cv2.warpPerspective(face, to_table, (640, 480), dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    return np.clip(photo * np.array(light), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("code", ["7H", "9D", "TS", "6C"])
def test_the_pips_ink_is_red_for_hearts_and_diamonds_and_black_for_the_others(code: str, seed: int) -> None:
    redness = pip_redness(laid(code, seed), QUAD)
    assert redness is not None
    assert (redness >= PIP_RED) == (code[1] in "HD")


@pytest.mark.parametrize("light", [(0.55, 1.0, 1.0), (0.8, 1.0, 0.75), (0.45, 0.7, 1.0)])
def test_a_coloured_lamp_does_not_turn_the_pips(light: tuple[float, float, float]) -> None:
    # A warm lamp (little blue), a green-yellow one (less red than green) and a red one, on a
    # card out of focus: black ink blurred into the paper takes the paper's tint, and the
    # redness is measured beyond it.
    red, black = (cv2.GaussianBlur(laid(code, 7, light), (0, 0), 3.0) for code in ("8D", "8C"))
    red_ink, black_ink = pip_redness(red, QUAD), pip_redness(black, QUAD)
    assert red_ink is not None and black_ink is not None
    assert red_ink >= PIP_RED
    assert abs(black_ink) < 0.05  # as grey as the paper


def test_a_card_read_as_the_other_colour_disagrees_with_its_pips() -> None:
    spades = laid("TS", 11)
    assert pips_disagree(spades, QUAD, "TD")
    assert pips_disagree(spades, QUAD, "TH")
    assert not pips_disagree(spades, QUAD, "TS")
    assert not pips_disagree(spades, QUAD, "TC")  # a club is black too: the colour cannot tell
    hearts = laid("5H", 11)
    assert pips_disagree(hearts, QUAD, "5S") and not pips_disagree(hearts, QUAD, "5D")


def test_courts_aces_and_blank_paper_are_not_asked() -> None:
    # A court's picture mixes colours, and a deck may print its ace's pip in any colour.
    assert not pips_disagree(laid("KS", 3), QUAD, "KH")
    assert not pips_disagree(laid("AS", 3), QUAD, "AH")
    # Where the card's middle shows no ink (here bare paper), nothing is told.
    blank = np.full((480, 640, 3), 235, np.uint8)
    assert pip_redness(blank, QUAD) is None
    assert not pips_disagree(blank, QUAD, "7H")


def test_a_card_read_surely_from_its_outline_against_its_pips_is_one_to_check() -> None:
    from vision.classify import CardReading
    from vision.detect import Stage
    from vision.recognise import PIPS_DISAGREE_CONFIDENCE, UNSURE_BELOW, Candidate, _pips_checked

    photo = laid("TS", 11)

    def read(card: str, whole: bool = True, stage: Stage = Stage.OUTLINE, sure: float = 0.997) -> float:
        reading = CardReading(card, sure, 0.99)
        candidate = Candidate(reading, QUAD.astype(np.float64), whole=whole, confidence=sure, stage=stage)
        return _pips_checked(photo, candidate, [candidate, elsewhere]).confidence

    # A card lying apart from it, read surely.
    elsewhere = Candidate(CardReading("KH", 1.0, 1.0), QUAD + 300.0, whole=True, confidence=1.0)

    assert read("TD") == PIPS_DISAGREE_CONFIDENCE < UNSURE_BELOW
    assert read("TS") == read("TC") == 0.997
    # A lone corner's card is placed from its index alone, and may lie under other cards.
    assert read("TD", whole=False, stage=Stage.BLOB_CORNER) == 0.997
    # A card read unsurely is asked about already.
    assert read("TD", sure=0.8) == 0.8
    # The ink on a card that another card lies on may be that card's.
    over = Candidate(CardReading("KH", 1.0, 1.0), QUAD + 40.0, whole=True, confidence=1.0)
    reading = CardReading("TD", 0.997, 0.99)
    spades = Candidate(reading, QUAD.astype(np.float64), whole=True, confidence=0.997, stage=Stage.OUTLINE)
    assert _pips_checked(photo, spades, [spades, over]).confidence == 0.997
