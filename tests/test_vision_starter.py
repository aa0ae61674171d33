"""`vision.starter.lying_apart` and `Recognition.starter`: the card lying apart is the starter.

Layouts are drawn by hand in millimetres (a poker card is 63 × 88), so the gaps are known: a
hand in a row 10 mm apart has links of 10/63 = 0.16 card widths; a starter 150 mm above it,
2.4 card widths.
"""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from vision import Recognition, recognise
from vision.starter import APART_GAP, TOGETHER_GAP, _spanning_tree, card_gap, lying_apart
from vision.synth import render_show

W, H = 63.0, 88.0


def card(x: float, y: float, turn: float = 0.0) -> list[tuple[float, float]]:
    """A card's corners, its top-left corner at (x, y) before turning it about its middle."""
    corners = np.array([[x, y], [x + W, y], [x + W, y + H], [x, y + H]])
    middle = corners.mean(axis=0)
    t = math.radians(turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return [(float(px), float(py)) for px, py in (corners - middle) @ rot.T + middle]


ROW = [card(i * (W + 10), 0) for i in range(4)]


def test_gaps_between_outlines() -> None:
    a, b = np.array(card(0, 0)), np.array(card(W + 10, 0))
    assert card_gap(a, b) == pytest.approx(10)
    assert card_gap(a, np.array(card(30, 40))) == 0  # overlapping
    assert card_gap(a, np.array(card(0, 0, turn=90))) == 0  # crossed, no corner inside the other
    corner_to_corner = np.array(card(W + 10, H + 20))
    assert card_gap(a, corner_to_corner) == pytest.approx(math.hypot(10, 20))


def _edge_points(quad: list[tuple[float, float]], per_side: int = 200) -> np.ndarray:
    """Points along the four sides of `quad`, `per_side` to a side."""
    corners = np.array(quad)
    steps = np.linspace(0.0, 1.0, per_side, endpoint=False)[:, None]
    ends = np.roll(corners, -1, axis=0)
    return np.concatenate([a + steps * (b - a) for a, b in zip(corners, ends, strict=True)])


def test_every_gap_of_a_scattered_layout_is_the_nearest_its_edges_come() -> None:
    # Independent truth: the gap between two outlines apart is the least distance between
    # points along their sides (to the points' spacing, under half a millimetre here); between
    # two that overlap or touch, 0, as OpenCV's convex intersection finds. The starter measures
    # every pair of a layout at once, as a bridge deal's fifty cards need.
    spread = np.random.default_rng(7).uniform((0, 0, 0), (500, 500, 360), (16, 3))
    layout = [card(float(x), float(y), float(t)) for x, y, t in spread]
    apart = 0
    for i, a in enumerate(layout):
        for b in layout[i + 1 :]:
            gap = card_gap(np.array(a), np.array(b))
            overlap, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
            if overlap > 0:
                assert gap == 0
                continue
            apart += 1
            nearest = np.min(np.linalg.norm(_edge_points(a)[:, None] - _edge_points(b)[None], axis=2))
            assert gap == pytest.approx(nearest, abs=0.5)
    assert apart > 80  # of 120 pairs


def _root(parents: list[int], k: int) -> int:
    """The group card `k` is in, as a union-find's `parents` say."""
    while parents[k] != k:
        k = parents[k]
    return k


def test_the_spanning_tree_is_a_least_one_even_with_ties() -> None:
    # Independent truth: Kruskal's algorithm on the same gaps gives a tree of the least total,
    # and every least tree has it. Whole-number gaps tie often, as a fanned deal's zeros do.
    rng = np.random.default_rng(11)
    for count in (3, 8, 20):
        upper = np.triu(rng.integers(0, 4, (count, count)).astype(float), 1)
        gaps = upper + upper.T
        links = _spanning_tree(gaps)
        tree = list(range(count))
        for gap, a, b in links:  # each link a gap of the layout, joining two groups
            assert gap == gaps[a, b] and _root(tree, a) != _root(tree, b)
            tree[_root(tree, a)] = _root(tree, b)
        assert len(links) == count - 1
        least, groups = 0.0, list(range(count))
        pairs = [(gaps[i, j], i, j) for i in range(count) for j in range(i + 1, count)]
        for gap, a, b in sorted(pairs):
            if _root(groups, a) != _root(groups, b):
                groups[_root(groups, a)] = _root(groups, b)
                least += gap
        assert sum(gap for gap, _, _ in links) == least


def test_the_card_above_the_row_lies_apart() -> None:
    assert lying_apart([*ROW, card(100, -H - 150)]) == 4
    assert lying_apart([card(100, -H - 150), *ROW]) == 0  # wherever it is in the list
    assert lying_apart([*ROW, card(4 * (W + 10) + 80, 0, turn=70)]) == 4  # beside the end, turned


def test_a_block_and_a_card_on_its_own() -> None:
    block = [card(0, 0), card(W + 8, 0), card(0, H + 8), card(W + 8, H + 8)]
    assert lying_apart([*block, card(2 * W + 8 + 2 * W, 40, turn=15)]) == 4


def test_a_tilted_camera_judges_each_gap_by_the_cards_beside_it() -> None:
    # Far cards look smaller: every card and gap is seen through one perspective.
    layout = [*ROW, card(100, -H - 150)]
    seen = cv2.getPerspectiveTransform(np.float32([[0, -300], [300, -300], [300, 100], [0, 100]]),
                                       np.float32([[60, 0], [240, 0], [300, 200], [0, 200]]))
    tilted = [cv2.perspectiveTransform(np.float32([quad]), seen)[0].tolist() for quad in layout]
    assert lying_apart(tilted) == 4


def test_a_hand_card_outlined_small_from_its_index_alone_stays_in_the_hand() -> None:
    # The third card's outline estimated at 0.6 of its size about its top-left index corner: its
    # gap to the fourth card is 10 + 25 mm, 0.70 of the two outlines' mean width (50 mm).
    small = [(x * 0.6 + 2 * (W + 10) * 0.4, y * 0.6) for x, y in card(2 * (W + 10), 0)]
    layout = [ROW[0], ROW[1], small, ROW[3], card(100, -H - 150)]
    assert lying_apart(layout) == 4


@pytest.mark.parametrize("layout", [
    [card(i * (W + 10), 0) for i in range(5)],  # an even row: none apart
    [card(0, 0)] * 5,  # a pile
    [card(0, 0), card(300, 0)],  # two cards: too few to say
    [card(0, 0), card(W + 10, 0), card(400, 0), card(400 + W + 10, 0), card(200, -H - 200)],  # two pairs
    [*ROW, card(4 * (W + 10) + W * (APART_GAP - 0.1) - 10, 0)],  # beside the end, but not far enough
    [card(0, 0), card(W + 10, 0), card(2 * (W + 10) + W * (TOGETHER_GAP + 0.1), 0),
     card(3 * (W + 10) + W * (TOGETHER_GAP + 0.1), 0), card(100, -H - 200)],  # the hand itself spread out
])
def test_no_card_lies_clearly_apart(layout: list[list[tuple[float, float]]]) -> None:
    assert lying_apart(layout) is None


@pytest.mark.parametrize("seed", [8_300_001, 8_300_002, 8_300_003])
def test_generated_shows_with_the_starter_apart(seed: int) -> None:
    photo = render_show(seed, harsh=False, size=(800, 600), apart=True)
    assert lying_apart(photo.quads) == photo.starter_index == 4


def test_recognition_carries_the_starter() -> None:
    photo = render_show(8_300_001, harsh=False, apart=True)
    result = recognise(photo.jpeg_bytes())
    assert sorted(d.card for d in result.cards) == sorted(photo.cards)
    assert result.starter is not None and result.cards[result.starter].card == photo.cards[4]
    assert json.loads(result.to_json())["starter"] == result.starter
    assert Recognition().to_dict()["starter"] is None
