"""Small web pieces on their own: the board's geometry, award names, the icon drawings."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.match import Match, new_match_settings
from scorer.pegging import score_pegging
from scorer.show import score_show
from web import icons
from web.board import GROUP, layout
from web.present import award_label, entry_words, item_label


def test_a_121_board_has_two_rows_of_sixty_holes_per_side() -> None:
    board = layout(121, [0, 0], [0, 0])
    # Each hole is one arc pair in the path: 120 track holes + start + game hole, per side.
    assert board.holes.count("M") == 2 * (120 + 2)
    assert len(board.rows) == 2


def test_pegs_run_out_along_the_top_row_and_back_along_the_bottom() -> None:
    board = layout(121, [60, 61], [1, 120])
    by_side = {(p.side, p.front): p for p in board.pegs}
    out_end, back_start = by_side[(0, True)], by_side[(1, True)]
    first, last = by_side[(0, False)], by_side[(1, False)]
    side0_out = board.rows[0][1]
    side1_back = board.rows[1][2]
    assert (out_end.y, first.y) == (side0_out, side0_out)
    assert out_end.x > first.x  # 60 is at the far end of the out row, 1 at its start
    assert (back_start.y, last.y) == (side1_back, side1_back)
    assert back_start.x == pytest.approx(out_end.x)  # 61 sits right under 60: the track turns
    assert last.x == pytest.approx(first.x)  # 120 sits under 1


def test_holes_come_in_groups_of_five() -> None:
    board = layout(61, [5, 6], [0, 0])
    five, six = (p.x for p in board.pegs if p.front)
    one = layout(61, [1, 0], [0, 0]).pegs[0].x
    two = layout(61, [2, 0], [0, 0]).pegs[0].x
    assert GROUP == 5
    assert six - five > two - one  # a wider gap between the groups


def test_game_hole_and_start_hole() -> None:
    board = layout(61, [61, 0], [57, 0])
    front = next(p for p in board.pegs if p.side == 0 and p.front)
    start = next(p for p in board.pegs if p.side == 1)
    assert front.x < start.x  # the game hole is left of the start hole
    assert [p.front for p in board.pegs].count(False) == 1  # no back peg drawn where it equals the front


def test_skunk_lines_are_marked_inside_a_row() -> None:
    assert len(layout(121, [0, 0], [0, 0], lines=[90, 60]).ticks) == 2  # 90 only, once per side
    assert len(layout(121, [0, 0, 0], [0, 0, 0], lines=[90]).ticks) == 3


def test_show_items_and_awards_in_players_words() -> None:
    labels = [item_label(i) for i in score_show("3H 4C 5S 6D", "7H").items]
    assert labels[-1] == "run of five"
    flush = [item_label(i) for i in score_show("2H 4H 6H 8H", "KH").items]
    assert flush == ["flush of five"]
    pegged = score_pegging("A:3H B:3C A:3S B:3D")  # counts 3 6 9 12: no fifteen
    assert [award_label(e) for e in pegged.events] == ["pair", "pair royal", "double pair royal", "last card"]


def test_icons_are_drawn_at_every_size(tmp_path: Path) -> None:
    assert icons.main(tmp_path) == 0
    svg = (tmp_path / "icon.svg").read_text(encoding="utf-8")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "style=" not in svg
    for name, size in icons.PNG_SIZES.items():
        assert icons.png(size).size == (size, size)
        assert (tmp_path / name).stat().st_size > 0
    maskable = icons.png(64, maskable=True)
    assert maskable.getpixel((0, 0))[3] == 255  # full bleed: no transparent corners
    assert icons.png(64).getpixel((0, 0))[3] == 0  # the plain icon has rounded corners


def test_history_lines_are_words_not_codes() -> None:
    events: list[dict[str, object]] = [
        {"type": "starter", "card": "JD"},  # his heels: 2 for Ann, the dealer
        {"type": "peg", "plays": [[1, "5H"]]},
        {"type": "peg", "plays": [[0, "TS"]]},  # fifteen: 2
        {"type": "peg", "plays": [[1, "5C"]]},
        {"type": "peg", "plays": [[0, "5S"]]},  # a pair of fives: 2
        {"type": "peg", "plays": [[1, "4D"]]},  # 29: Ann cannot go on, so Bob has the go
        {"type": "peg", "plays": [[0, "KS"]]},  # Ann's K leads the new count: Bob's go, 1
        {"type": "peg", "plays": "B:6D Ann:QS"},  # 16, 26: Ann's last card, 1
        {"type": "show", "player": 1, "hand": "5H 5C 4D 6D"},
    ]
    match = Match(new_match_settings(["Ann", "Bob"], first_dealer=0), events)
    words = [entry_words(e, match.settings.players) for e in match.history]
    assert words == [
        "hand 1 starter J♦: his heels, 2 for Ann",
        "Bob played 5♥",
        "Ann played 10♠ for 2 (fifteen)",
        "Bob played 5♣",
        "Ann played 5♠ for 2 (pair)",
        "Bob played 4♦",
        "Ann played K♠; Bob 1 (go)",
        "Bob played 6♦, Ann Q♠; Ann 1 (last card)",
        "Bob's hand 5♥ 5♣ 4♦ 6♦ with J♦: 16 (fifteen two, fifteen four, fifteen six, fifteen eight and a "
        "double run of three is sixteen)",
    ]
