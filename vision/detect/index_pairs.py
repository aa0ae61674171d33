"""Stage 5, index pairs: index corners placed directly from the print, for cards whose outline
is lost: rank-above-suit pairs of ink glyphs, and single ink blobs shaped like a whole index
(a small or blurred index runs its rank and suit together), each turned to the card edges
around it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from threading import Event

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.detect.glyphs import GLYPHS, Glyphs, glyph_sets, rows_at_once
from vision.detect.prepare import Prepared
from vision.detect.proposal import Proposal, Share, Stage, lone_proposals, stop_if


@dataclass(frozen=True)
class IndexPairThresholds:
    """What an index looks like: where its suit lies from its rank, their sizes, and where it
    lies on its card."""

    rank_to_suit: tuple[float, float] = (0.6, 2.1)
    """Distance from rank centre to suit centre, in rank-glyph sizes, over every deck rendered. The
    low end is a wide serif "A" with its suit tucked just under it (0.65)."""
    suit_to_rank_size: tuple[float, float] = (0.4, 1.25)
    """Size of the suit glyph relative to the rank glyph in an index."""
    rank_share_of_width: tuple[float, float] = (0.15, 0.2)
    """Rank glyph height in card widths, over the decks rendered (0.135-0.225); each value gives
    one card-size hypothesis."""
    rank_centre: tuple[float, float] = (0.1, 0.14)
    """Where the rank glyph's centre sits, in card widths from the card's corner (median deck)."""
    typical_suit_ratio: float = 0.75
    """Suit size over rank size of a typical index (see `typical_spacing`)."""
    typical_spacing: float = 1.15
    """Suit size over rank size, and rank-to-suit distance over rank size, of a typical index."""
    edge_window: float = 2.5
    """Half-width, in rank sizes, of the window whose edges give a glyph pair's orientation: it
    reaches the card's top and side edges beside the index."""
    min_coherence: float = 0.15
    """Folded edge directions must agree at least this much (0 = none, 1 = all parallel or
    square) to be trusted over the rank-to-suit direction."""
    same_direction: float = math.radians(8)
    """Directions closer than this give the same frame, near enough for the classifier."""
    max_suit_offset: float = math.radians(35)
    """Largest angle between the rank-to-suit direction and the card's down direction: decks set
    the suit under the rank, at most slightly to one side."""
    max_glyph_pairs: int = 250
    """Upper bound on glyph pairs read per photo (each at every `rank_share_of_width`)."""
    crowd_radius: float = 3.0
    """Reach, in a glyph's own sizes, of the neighbourhood counted for `crowd` (see
    `pair_homographies`)."""
    crowd: int = 6
    """A glyph with at least this many others of its size (within a quarter) within
    `crowd_radius` is in a crowd: one mark of a pattern (a checked cloth's squares, a tiled
    table's speckles), or an index among a spread deal's many. Only the pairs out of crowds
    are read past the budgets (`max_uncrowded_pairs`); ordering every crowded pair last lost
    the indices of the shared bridge deals (card recall 75.9 % to 71.0 %)."""
    max_uncrowded_pairs: int = 100
    """Upper bound on the pairs read past both budgets, neither glyph in a crowd."""
    joined_elongation: tuple[float, float] = (1.6, 5.0)
    """Length over breadth of one ink component that may be a whole index, its rank and suit run
    together (small or blurred print, or a deck that sets them close): about 2-4 over the decks
    rendered, and 4.5 for a narrow "J" touching its suit, while pips and most court-card print are
    squatter."""
    joined_widths: tuple[float, float, float] = (2.5, 3.1, 3.9)
    """Card widths, in lengths of a joined index, to try: the index runs 0.25-0.4 card widths over
    the decks rendered."""
    joined_length_in_ranks: float = 2.1
    """Length of a joined index in rank-glyph heights (rank, gap, suit of a typical index)."""
    max_joined: int = 60
    """Upper bound on joined-index components read per photo, the most index-like first."""
    squat_elongation: float = 1.3
    """Least length over breadth of a squatter component read as a whole index, on a budget of
    its own (`max_squat_joined`): a deck that sets a big rank on a big suit sign (aisleriot's
    tango, some procedural styles) makes one blob only 1.4-1.5 times as long as it is broad."""
    max_squat_joined: int = 6
    """Upper bound on the squatter components (`squat_elongation` up to `joined_elongation`)
    read as whole indices per photo, the most elongated first, beside `max_joined`: counted
    with those, they took places in that budget (the generated deals lost cards). Each card
    they gained in 300 development held hands came from its photo's first or second."""
    max_short_line_pairs: int = 20
    """Upper bound on the glyph pairs read per photo that have a glyph only shorter lines'
    cut sets free (`vision.detect.glyphs.glyph_sets`), beside `max_glyph_pairs`."""
    max_short_line_joined: int = 10
    """Upper bound on those glyphs read as joined indices, beside `max_joined`."""
    max_broad_line_pairs: int = 300
    """Upper bound on the glyph pairs read per photo that have a glyph only the broad lines'
    cut sets free (`vision.detect.glyphs.glyph_sets`), beside the budgets above."""
    max_broad_line_joined: int = 10
    """Upper bound on those glyphs read as joined indices."""
    pair_lead: int = 1
    """Which of a glyph pair's frames (`pair_frame_groups`: its first direction's, at each
    `rank_share_of_width`) is read first; the pair's other frames are read only when that one
    shows a trace of an index (`Proposal.after`)."""
    joined_lead: int = 2
    """Which of a joined index's frames, one way along it (`joined_frame_groups`: its first
    direction's, at each `joined_widths`), is read first, as `pair_lead` says."""


PAIRS = IndexPairThresholds()


@dataclass(frozen=True)
class EdgeOrientation:
    """Summed-area tables of edge strength and of its direction folded to a quarter turn.

    Card edges are the longest straight lines near an index, and a card's two edges at a
    corner are a quarter turn apart; folding angles four times over (the angle of a vector
    (cos 4a, sin 4a)) makes both vote for one direction, while curved print cancels out.
    """

    cos4: NDArray[np.float64]
    sin4: NDArray[np.float64]
    strength: NDArray[np.float64]

    def dominant(self, centre: NDArray[np.float64], half: float) -> tuple[float, float]:
        """(angle mod 90 degrees in radians, coherence 0..1) of the edges in a square window."""
        h, w = self.strength.shape[0] - 1, self.strength.shape[1] - 1
        x0, y0 = max(int(centre[0] - half), 0), max(int(centre[1] - half), 0)
        x1, y1 = min(int(centre[0] + half) + 1, w), min(int(centre[1] + half) + 1, h)
        if x1 <= x0 or y1 <= y0:
            return 0.0, 0.0

        def total(table: NDArray[np.float64]) -> float:
            # Plain floats (`item`), the same sums: numpy's scalars cost more than the arithmetic.
            item = table.item
            return float(item(y1, x1) - item(y0, x1) - item(y1, x0) + item(y0, x0))

        c, s, m = total(self.cos4), total(self.sin4), total(self.strength)
        if m <= 0:
            return 0.0, 0.0
        return math.atan2(s, c) / 4.0, math.hypot(c, s) / m


EDGE_BANDS = 4
"""Bands of rows the edges' directions are worked out in (`edge_orientation`), each a part a
helping thread may take: worked out whole, they were one part of 10-20 ms that the other
thread, done with its own work, waited out (a development show's reading on two threads waited
15-40 ms for it)."""


def edge_orientation(gray: NDArray[np.uint8], share: Share | None = None) -> EdgeOrientation:
    """Summed-area tables of folded edge direction for `gray` (see `EdgeOrientation`). Its
    bands (`EDGE_BANDS`) and then its three tables are forked on `share`, for a thread that
    helps; the tables are the same, to the bit, whoever works them out."""
    share = share or Share()
    h, w = gray.shape
    # Squaring favours strong, straight card edges over faint texture.
    weight, cos4, sin4 = (np.empty((h, w), np.float32) for _ in range(3))
    rows = [int(y) for y in np.linspace(0, h, EDGE_BANDS + 1)]
    bands = [share.fork(_fold_band, gray, y0, y1, weight, cos4, sin4) for y0, y1 in itertools.pairwise(rows)]
    for band in bands:
        share.join(band)
    tables = [share.fork(_summed_area, folded) for folded in (cos4, sin4, weight)]
    found = [share.join(table) for table in tables]
    return EdgeOrientation(cos4=found[0], sin4=found[1], strength=found[2])


def _fold_band(
    gray: NDArray[np.uint8],
    y0: int,
    y1: int,
    weight: NDArray[np.float32],
    cos4: NDArray[np.float32],
    sin4: NDArray[np.float32],
) -> None:
    """Rows `y0` to `y1` of the squared gradient magnitude `weight`, and of it times the cosine
    and the sine of four times the gradient's angle, from `gray`: the blur and the gradient
    reach two rows past the band, so the band is worked out from two more rows either side
    (where the photo has them) and its rows are what the whole photo's would be."""
    h = gray.shape[0]
    top, bottom = max(y0 - 2, 0), min(y1 + 2, h)
    blurred = cv2.GaussianBlur(gray[top:bottom], (3, 3), 0).astype(np.float32)
    gradients = cv2.Sobel(blurred, cv2.CV_32F, 1, 0), cv2.Sobel(blurred, cv2.CV_32F, 0, 1)
    magnitude, angle = cv2.cartToPolar(*gradients)
    rows = np.s_[y0 - top : y1 - top]
    band = np.s_[y0:y1]
    np.multiply(magnitude[rows], magnitude[rows], out=weight[band])
    angle = np.multiply(angle[rows], 4, out=angle[rows])
    np.cos(angle, out=cos4[band])
    cos4[band] *= weight[band]
    np.sin(angle, out=sin4[band])
    sin4[band] *= weight[band]


def _summed_area(values: NDArray[np.float32]) -> NDArray[np.float64]:
    """The summed-area table of `values`, in float64."""
    return np.asarray(cv2.integral(values, sdepth=cv2.CV_64F), np.float64)


def glyph_homographies(glyphs: Glyphs, edges: EdgeOrientation) -> list[NDArray[np.float64]]:
    """Card frames for index-like glyph pairs and for single components shaped like an index."""
    return pair_homographies(glyphs, edges) + joined_index_homographies(glyphs, edges)


def pair_homographies(
    glyphs: Glyphs, edges: EdgeOrientation, new_from: int | None = None, at_most: int | None = None
) -> list[NDArray[np.float64]]:
    """Card frames for the most index-like rank-above-suit pairs of glyphs: those of
    `pair_frame_groups`, one group after another."""
    return [frame for group in pair_frame_groups(glyphs, edges, new_from, at_most) for frame in group]


def pair_frame_groups(
    glyphs: Glyphs, edges: EdgeOrientation, new_from: int | None = None, at_most: int | None = None
) -> list[list[NDArray[np.float64]]]:
    """Card frames for the most index-like rank-above-suit pairs of glyphs, a group for each
    pair (its directions, each at every `PAIRS.rank_share_of_width`).

    The pair says roughly which way is down (rank to suit; decks set the suit a little to one
    side, and "10" is two glyphs side by side). The straight edges around the rank usually
    say it exactly: of the four directions a quarter turn apart that they give, the one
    nearest the rank-to-suit direction is down. In a fan the edges of several cards mix, so
    the rank-to-suit direction is proposed as well when the two differ. The rank's size gives the card's
    size and the frame's corner is placed where the median deck puts it. Pairs are ranked by
    how typical their size ratio and spacing are (pips pair up too, but are equal in size and
    further apart) and at most `at_most` (`PAIRS.max_glyph_pairs`) are kept, and past those as
    many again of the pairs whose two glyphs lie on card stock (paper at least
    `GLYPHS.freed_paper_brightness` of the photo's brightest grey): on a checked or speckled
    table the table's own marks pair up by the thousand, more typically than a fan's indices
    do, and took the whole budget. Without `at_most`, past both budgets, up to
    `PAIRS.max_uncrowded_pairs` more whose glyphs are in no crowd of their like (`PAIRS.crowd`).
    `new_from`: only the pairs with a glyph numbered that or above (those `glyph_sets` found
    again).
    """
    centres, sizes = glyphs.centres.astype(np.float32), glyphs.sizes.astype(np.float32)
    n = len(sizes)
    if n < 2:
        return []
    # Every glyph is compared with every other, a block of rows at a time (`glyphs.PAIRWISE_AT_ONCE`):
    # the same pairs, in the same order, as the whole matrices would give.
    rows = rows_at_once(n)
    firsts, seconds = [], []
    # Only the budget the caller does not set has the uncrowded pairs past it.
    uncrowded = at_most is None
    crowds = np.zeros(n, np.int64)
    for start in range(0, n, rows):
        block = slice(start, start + rows)
        dx = centres[None, :, 0] - centres[block, None, 0]
        dy = centres[None, :, 1] - centres[block, None, 1]
        distance = np.hypot(dx, dy)
        # Two digits side by side ("10") also make a rank: add each close, same-height pair.
        own = sizes[block, None]
        similar = np.abs(sizes[None, :] - own) < 0.25 * own
        if uncrowded:
            # Itself too, hence the one taken off.
            crowds[block] = np.count_nonzero(similar & (distance < PAIRS.crowd_radius * own), axis=1) - 1
        beside = similar & (distance < 1.1 * own) & (distance > 0.3 * own)
        row, column = np.nonzero(beside)
        upper = column > row + start
        firsts.append(row[upper] + start)
        seconds.append(column[upper])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    rank_centres = np.concatenate([centres, (centres[first] + centres[second]) / 2])
    rank_sizes = np.concatenate([sizes, np.maximum(sizes[first], sizes[second])])
    found: list[tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float32], NDArray[np.float32],
                      NDArray[np.float32]]] = []
    for start in range(0, len(rank_sizes), rows):
        block = slice(start, start + rows)
        dx = centres[None, :, 0] - rank_centres[block, None, 0]
        dy = centres[None, :, 1] - rank_centres[block, None, 1]
        spacing = np.hypot(dx, dy) / rank_sizes[block, None]
        ratio = sizes[None, :] / rank_sizes[block, None]
        ok = (
            (spacing >= PAIRS.rank_to_suit[0])
            & (spacing <= PAIRS.rank_to_suit[1])
            & (ratio >= PAIRS.suit_to_rank_size[0])
            & (ratio <= PAIRS.suit_to_rank_size[1])
        )
        row, column = np.nonzero(ok)
        oddness = np.abs(np.log(ratio[row, column] / PAIRS.typical_suit_ratio)) + np.abs(
            np.log(spacing[row, column] / PAIRS.typical_spacing)
        )
        found.append((row + start, column, dx[row, column], dy[row, column], oddness))
    ranks, suits = np.concatenate([f[0] for f in found]), np.concatenate([f[1] for f in found])
    down_x, down_y = np.concatenate([f[2] for f in found]), np.concatenate([f[3] for f in found])
    oddness = np.concatenate([f[4] for f in found])
    # A rank is one glyph (numbered as the glyphs) or two side by side (after those).
    rank_glyphs = np.concatenate([np.arange(n), first]), np.concatenate([np.arange(n), second])
    if new_from is not None:
        new = (rank_glyphs[0][ranks] >= new_from) | (rank_glyphs[1][ranks] >= new_from) | (suits >= new_from)
        ranks, suits, down_x, down_y, oddness = ranks[new], suits[new], down_x[new], down_y[new], oddness[new]
    if ranks.size == 0:
        return []
    budget = PAIRS.max_glyph_pairs if at_most is None else at_most
    order = np.argsort(oddness, kind="stable")
    if len(order) > budget:
        # Past the budget, as many again of the pairs whose glyphs both lie on card stock.
        rank_papers = np.concatenate([glyphs.papers, np.minimum(glyphs.papers[first], glyphs.papers[second])])
        on_stock = np.minimum(rank_papers[ranks], glyphs.papers[suits]) >= GLYPHS.freed_paper_brightness
        past = order[budget:]
        order = np.concatenate([order[:budget], past[on_stock[past]][:budget]])
        if uncrowded:
            # Past both, a few of the pairs with neither glyph in a crowd of its like
            # (`PAIRS.crowd`): on a checked cloth as white as card stock the cloth's marks take
            # both budgets, and a card's index on it was read by nothing.
            ranks_crowd = np.maximum(crowds[rank_glyphs[0]][ranks], crowds[rank_glyphs[1]][ranks])
            alone = (ranks_crowd < PAIRS.crowd) & (crowds[suits] < PAIRS.crowd)
            left = np.ones(len(ranks), bool)
            left[order] = False
            rest = past[left[past]]
            order = np.concatenate([order, rest[alone[rest]][: PAIRS.max_uncrowded_pairs]])
    groups = []
    for k in order:
        r = ranks[k]
        towards = math.atan2(float(down_y[k]), float(down_x[k]))
        centre = rank_centres[r].astype(np.float64)
        groups.append(_index_frames(centre, float(rank_sizes[r]), towards, edges))
    return groups


def joined_index_homographies(
    glyphs: Glyphs, edges: EdgeOrientation, at_most: int | None = None, squat: int = PAIRS.max_squat_joined
) -> list[NDArray[np.float64]]:
    """Card frames for single ink components shaped like a whole index (rank and suit joined):
    those of `joined_frame_groups`, one group after another."""
    return [frame for group in joined_frame_groups(glyphs, edges, at_most, squat) for frame in group]


def joined_frame_groups(
    glyphs: Glyphs, edges: EdgeOrientation, at_most: int | None = None, squat: int = PAIRS.max_squat_joined
) -> list[list[NDArray[np.float64]]]:
    """Card frames for single ink components shaped like a whole index (rank and suit joined),
    a group for each way the component may run (its directions, each at every
    `PAIRS.joined_widths`).

    Either end of the long axis may be the rank, so both ways are proposed; the most typically
    shaped `PAIRS.max_joined` components (`at_most`) are kept, and beside them up to `squat`
    squatter ones (see `PAIRS.squat_elongation`).
    """
    elongation = glyphs.lengths / np.maximum(glyphs.breadths, 1e-6)
    rank_sizes = glyphs.lengths / PAIRS.joined_length_in_ranks
    sized = rank_sizes >= GLYPHS.min_px
    ok = (elongation >= PAIRS.joined_elongation[0]) & (elongation <= PAIRS.joined_elongation[1]) & sized
    chosen = np.nonzero(ok)[0]
    typical = math.sqrt(PAIRS.joined_elongation[0] * PAIRS.joined_elongation[1])
    chosen = chosen[np.argsort(np.abs(np.log(elongation[chosen] / typical)), kind="stable")][
        : PAIRS.max_joined if at_most is None else at_most
    ]
    if squat:
        squatter = np.nonzero(
            (elongation >= PAIRS.squat_elongation) & (elongation < PAIRS.joined_elongation[0]) & sized
        )[0]
        squatter = squatter[np.argsort(-elongation[squatter], kind="stable")][:squat]
        chosen = np.concatenate([chosen, squatter])
    groups = []
    for k in chosen:
        rank = float(rank_sizes[k])
        widths = [float(glyphs.lengths[k]) * factor for factor in PAIRS.joined_widths]
        for sign in (1.0, -1.0):
            down = sign * glyphs.axes[k]
            centre = glyphs.centres[k] - down * (glyphs.lengths[k] - rank) / 2
            towards = math.atan2(float(down[1]), float(down[0]))
            groups.append(_index_frames(centre, rank, towards, edges, widths))
    return groups


def frame_directions(towards: float, angle: float, coherence: float) -> list[float]:
    """The card's down directions (radians) to frame a rank at, near `towards` (rank to suit):
    snapped to the edges around it, whose dominant direction is `angle` (mod 90 degrees) at
    `coherence` (`EdgeOrientation.dominant`), when they are clear; both when they disagree a
    little; `towards` alone otherwise."""
    if coherence < PAIRS.min_coherence:
        return [towards]
    # Of angle + k * 90 degrees, the one nearest the rank-to-suit direction.
    snapped = angle + round((towards - angle) / (math.pi / 2)) * math.pi / 2
    if abs(towards - snapped) <= PAIRS.same_direction:
        return [snapped]
    if abs(towards - snapped) <= PAIRS.max_suit_offset:
        return [snapped, towards]
    return [towards]


def _index_frames(
    centre: NDArray[np.float64],
    rank_size: float,
    towards: float,
    edges: EdgeOrientation,
    widths: list[float] | None = None,
) -> list[NDArray[np.float64]]:
    """Card frames for a rank glyph at `centre`, the card's down direction near `towards`
    (radians), snapped to the card edges around it when they are clear; the card widths to try
    are `widths`, or those the rank's size gives (`PAIRS.rank_share_of_width`)."""
    directions = frame_directions(towards, *edges.dominant(centre, PAIRS.edge_window * rank_size))
    # `corner_homography(origin, across * width, down * width)` for each direction and width,
    # worked on plain floats in numpy's order of operations and made one array: a photo places
    # about 360 ranks, 1,100 frames, and the 2-vectors' arrays took two thirds of the time.
    cx, cy = centre.tolist()
    centre_x, centre_y = PAIRS.rank_centre
    frames = []
    for direction in directions:
        down_x, down_y = math.cos(direction), math.sin(direction)
        across_x, across_y = down_y, -down_x  # right-handed: across x down > 0 on screen
        for width in widths or [rank_size / share for share in PAIRS.rank_share_of_width]:
            along, below = centre_x * width, centre_y * width
            origin_x = cx - along * across_x - below * down_x
            origin_y = cy - along * across_y - below * down_y
            x_axis, y_axis = (across_x * width, across_y * width), (down_x * width, down_y * width)
            frames.append((x_axis[0], y_axis[0], origin_x, x_axis[1], y_axis[1], origin_y, 0.0, 0.0, 1.0))
    return list(np.array(frames, np.float64).reshape(-1, 3, 3))


def glyph_proposals(
    prepared: Prepared,
    paper: NDArray[np.uint8],
    stop: Event | None = None,
    broad: bool = True,
    share: Share | None = None,
) -> list[Proposal]:
    """Index corners placed from rank-above-suit glyph pairs and from joined indices on `paper`
    (see `paper_regions`), for cards whose outline is lost. `stop`: when set, the search raises
    `Stopped` at its next step (see `stop_if`). `broad`: whether to look for the glyphs that
    only the broad lines' cut sets free too (`glyph_sets`). `share`: where the parts another
    thread may take are forked (the edges' directions, and the glyphs' later looks: see
    `glyph_sets`)."""
    share = share or Share()
    oriented = share.fork(edge_orientation, prepared.gray, share)
    glyphs, more, broad_set = glyph_sets(prepared, paper, stop, broad, share)
    edges = share.join(oriented)
    stop_if(stop)
    # Each set's pairs and joined indices, each found apart (a thread that helps may take them).
    # The glyphs found again, with shorter lines cut and then with broader ones, have their
    # own pairs and their own budgets: counted with the others they would push the likeliest
    # of those out.
    groups = [
        (share.fork(pair_frame_groups, glyphs, edges), Stage.GLYPH_PAIR, PAIRS.pair_lead),
        (share.fork(joined_frame_groups, glyphs, edges), Stage.JOINED_INDEX, PAIRS.joined_lead),
    ]
    every = glyphs
    for again, pairs_at_most, joined_at_most in (
        (more, PAIRS.max_short_line_pairs, PAIRS.max_short_line_joined),
        (broad_set, PAIRS.max_broad_line_pairs, PAIRS.max_broad_line_joined),
    ):
        if not len(again.sizes):
            continue
        before, every = len(every.sizes), every.plus(again)
        pairs = share.fork(pair_frame_groups, every, edges, before, pairs_at_most)
        joined = share.fork(joined_frame_groups, again, edges, joined_at_most, 0)
        groups.append((pairs, Stage.GLYPH_PAIR, PAIRS.pair_lead))
        groups.append((joined, Stage.JOINED_INDEX, PAIRS.joined_lead))
    return [proposal for part, stage, lead in groups for proposal in _led(share.join(part), stage, lead)]


def _led(groups: list[list[NDArray[np.float64]]], stage: Stage, lead: int) -> list[Proposal]:
    """Lone proposals of `stage` for every frame of `groups`, in order, each but a group's
    `lead`-th frame to be read after it (`Proposal.after`)."""
    frames: list[NDArray[np.float64]] = []
    afters: list[NDArray[np.float64] | None] = []
    for group in groups:
        first = group[lead]
        frames += group
        afters += [first] * lead + [None] + [first] * (len(group) - lead - 1)
    return lone_proposals(frames, stage, afters)
