"""``python -m scorer``: outputs worked by hand from docs/RULES.md, JSON shapes from docs/DESIGN.md, exit 2.

Three tests start a real ``python -m scorer`` (each costs an interpreter start); the rest call
``scorer.cli.main(argv)`` in-process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from scorer.cli import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, EXIT_OK, main
from scorer.show import score_show

ROOT = Path(__file__).resolve().parent.parent


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", check=False
    )


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def one_line(text: str) -> str:
    """The text, checked to be exactly one line ending in a newline."""
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    return text.rstrip("\n")


# ---- as a real process -------------------------------------------------------------------


def test_module_scores_the_29_hand_without_loading_numpy() -> None:
    proc = run_module("-X", "importtime", "-m", "scorer", "show", "5H", "5C", "5S", "JD", "5D", "--json")
    assert proc.returncode == EXIT_OK
    assert json.loads(proc.stdout)["total"] == 29
    # -X importtime lists every module imported on stderr: numpy must not be among them.
    assert not re.search(r"\|\s+numpy$", proc.stderr, re.MULTILINE)


def test_module_reports_a_bad_card_on_one_line() -> None:
    proc = run_module("-m", "scorer", "show", "5H", "5C", "5S", "JD", "1D")
    assert proc.returncode == EXIT_BAD_INPUT
    assert proc.stdout == ""
    assert one_line(proc.stderr).startswith("bad card '1D' at position 5")


def test_module_reports_an_unknown_subcommand_on_one_line() -> None:
    proc = run_module("-m", "scorer", "count", "5H")
    assert proc.returncode == EXIT_BAD_INPUT
    assert "invalid choice: 'count'" in one_line(proc.stderr)


@pytest.mark.parametrize("args", [
    ("stats", "--json"), ("stats",), ("show", "5H", "5C", "5S", "JD", "5D", "--json"),
])
def test_module_stops_quietly_when_the_reader_closes_the_pipe(args: tuple[str, ...]) -> None:
    # The reader (like `| head -c 10`) is gone before the command writes: the write meets a
    # closed pipe every time, not only when the output outgrows the pipe's buffer.
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorer", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert err == b""  # no traceback, no "Exception ignored" at exit
    assert proc.returncode == EXIT_BROKEN_PIPE



# ---- show ----------------------------------------------------------------------------------


def test_show_prints_items_total_and_the_spoken_count(capsys: pytest.CaptureFixture[str]) -> None:
    # 3 3 4 5 with a king: fifteens 5+K and 3+3+4+5, a double run of three (6) and a pair: 12.
    status, out, err = run_main(capsys, "show", "3H", "3C", "4S", "5D", "KC")
    assert (status, err) == (EXIT_OK, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[:-2]] == ["fifteen"] * 2 + ["pair"] + ["run"] * 2
    assert lines[0].split()[-1] == "2"
    assert lines[-2] == "total 12"
    # The spoken line's wording belongs to the engine; the CLI prints it as is.
    assert lines[-1] == score_show("3H 3C 4S 5D", "KC").spoken()


def test_show_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    # 2 3 9 Q K: the only fifteens are 2+3+Q and 2+3+K; no pair, run, flush or nobs.
    status, out, _ = run_main(capsys, "show", "KH", "QD", "2S", "3C", "9H", "--json")
    assert status == EXIT_OK
    data = json.loads(out)
    # The API's answer (issue 26): the items, and the texts a player reads with their language.
    assert set(data) == {"total", "items", "spoken", "rulings", "lang"}
    assert (data["spoken"], data["rulings"], data["lang"]) == ("fifteen two and fifteen four", [], "en")
    assert data["total"] == 4
    assert all(set(item) == {"kind", "cards", "points"} for item in data["items"])
    got = sorted((i["kind"], sorted(i["cards"]), i["points"]) for i in data["items"])
    assert got == [("fifteen", ["2S", "3C", "KH"], 2), ("fifteen", ["2S", "3C", "QD"], 2)]


def test_show_crib_needs_a_five_card_flush(capsys: pytest.CaptureFixture[str]) -> None:
    # Even values never make fifteen; four hearts with a spade starter: flush 4 in hand, 0 in crib.
    _, out, _ = run_main(capsys, "show", "2H", "4H", "6H", "8H", "KS", "--json")
    assert json.loads(out)["total"] == 4
    _, out, _ = run_main(capsys, "show", "2H", "4H", "6H", "8H", "KS", "--crib")
    assert out.splitlines()[-2:] == ["total 0", "nineteen: no score"]


# ---- peg -----------------------------------------------------------------------------------


def test_peg_prints_each_play_with_count_and_awards(capsys: pytest.CaptureFixture[str]) -> None:
    # docs/RULES.md's example 4 6 5 3 4: the 5 makes 15 and runs 4-5-6, the 3 runs four, the second 4
    # runs four (6 5 3 4), and is the last card at 22.
    status, out, _ = run_main(capsys, "peg", "A:4S", "B:6H", "A:5D", "B:3C", "A:4D")
    assert status == EXIT_OK
    lines = out.splitlines()
    assert lines[0].split() == ["1", "A", "4S", "4"]
    assert lines[2].split() == ["3", "A", "5D", "15", "fifteen", "2,", "run", "3"]
    assert lines[3].split() == ["4", "B", "3C", "18", "run", "4"]
    assert lines[4].split() == ["5", "A", "4D", "22", "run", "4,", "last", "card", "1"]
    assert lines[5] == "points: A 10, B 4"


def test_peg_marks_the_go_and_the_new_count(capsys: pytest.CaptureFixture[str]) -> None:
    # T K 9 is 29 and B's 8 would pass 31: A pegs the go. Then 8 5 5 5: pair, pair royal, last.
    _, out, _ = run_main(capsys, "peg", "A:TS", "B:KH", "A:9D", "B:8C", "B:5H", "A:5C", "A:5D")
    lines = out.splitlines()
    assert lines[2].split() == ["3", "A", "9D", "29", "go", "1"]
    assert lines[3] == "-- new count"
    assert lines[4].split() == ["4", "B", "8C", "8"]
    assert lines[7].split() == ["7", "A", "5D", "23", "pair", "royal", "6,", "last", "card", "1"]
    assert lines[8] == "points: A 10, B 0"


def test_peg_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    # T 5 makes fifteen for B, A pairs the 5, B's third 5 is a pair royal and the last card.
    status, out, _ = run_main(capsys, "peg", "A:TS", "B:5D", "A:5H", "B:5C", "--json")
    assert status == EXIT_OK
    data = json.loads(out)
    assert set(data) == {"points", "events"}
    assert data["points"] == {"A": 2, "B": 9}
    assert [(e["index"], e["player"], e["kind"], e["points"]) for e in data["events"]] == [
        (1, "B", "fifteen", 2), (2, "A", "pair", 2), (3, "B", "pair", 6), (3, "B", "last", 1),
    ]


def test_peg_checks_legality_with_hands(capsys: pytest.CaptureFixture[str]) -> None:
    plays = ["peg", "A:TS", "B:KH", "A:9D", "B:8C"]
    assert run_main(capsys, *plays, "--hand", "A:TS,9D", "--hand", "B:KH,8C")[0] == EXIT_OK
    status, out, err = run_main(capsys, *plays, "--hand", "A:TS,9D", "--hand", "B:KH,2C,8C")
    assert (status, out) == (EXIT_BAD_INPUT, "")
    assert "B said go while able to play 2C" in one_line(err)


# ---- stats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("crib", "zero", "mean"), [(False, 1_009_008, 4.7692), (True, 1_022_208, 4.7348)])
def test_stats_json_matches_rules_md(
    capsys: pytest.CaptureFixture[str], crib: bool, zero: int, mean: float
) -> None:
    status, out, _ = run_main(capsys, "stats", "--json", *(["--crib"] if crib else []))
    assert status == EXIT_OK
    data = json.loads(out)
    assert set(data) == {"counts", "mean"}
    assert data["counts"]["0"] == zero
    assert data["counts"]["29"] == 4
    assert "19" not in data["counts"]
    assert sum(data["counts"].values()) == 12_994_800
    assert data["mean"] == mean


def test_stats_table(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(capsys, "stats")
    lines = out.splitlines()
    assert lines[0].split() == ["score", "deals", "share"]
    assert lines[1].split() == ["0", "1,009,008", "7.76471%"]  # 1,009,008 / 12,994,800
    assert lines[-2].split() == ["29", "4", "0.00003%"]
    assert lines[-1] == "12,994,800 hand deals, mean 4.7692"


# ---- discard -------------------------------------------------------------------------------


def test_discard_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "discard", "5H", "5C", "5S", "JD", "2C", "9D", "--dealer", "--json")
    assert status == EXIT_OK
    data = json.loads(out)
    assert set(data) == {"options"}
    assert len(data["options"]) == 15  # C(6, 2) throws
    for o in data["options"]:
        assert set(o) == {"throw", "keep", "hand", "crib", "net"}
        assert set(o["hand"]) == {"mean", "min", "max"} and set(o["crib"]) == {"mean"}
        assert o["net"] == pytest.approx(o["hand"]["mean"] + o["crib"]["mean"], abs=1e-12)
    best = data["options"][0]
    # Keeping 5-5-5-J: 765 points over the 46 starters (worked in test_discard).
    assert (best["throw"], best["keep"]) == (["2C", "9D"], ["5H", "5C", "5S", "JD"])
    assert best["hand"] == {"mean": float(Fraction(765, 46)), "min": 14, "max": 29}


def test_discard_table_for_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "discard", "5H", "5C", "5S", "JD", "2C", "--players", "3")
    assert status == EXIT_OK
    lines = out.splitlines()
    assert lines[0].split() == ["rank", "throw", "keep", "hand", "mean", "(min-max)", "crib", "-", "net"]
    assert lines[1].split()[:6] == ["1", "2C", "5H", "5C", "5S", "JD"]
    assert lines[1].split()[7] == "(14-29)"
    assert len(lines) == 1 + 5 + 1
    # Throwing 5S or 5H is the same by symmetry of hearts and spades: one shared rank.
    ranks = {line.split()[1]: line.split()[0] for line in lines[1:-1]}
    assert ranks["5S"] == ranks["5H"]
    assert lines[-1] == "3 players, the dealer's crib: net = hand - crib"


# ---- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "message"), [
    (["show", "5H", "5C", "5S", "JD", "ZD"], "bad card 'ZD' at position 5"),
    (["show", "5H", "5C", "5S", "JD", "5H"], "duplicate card '5H' at positions 1 and 5"),
    (["show", "5H", "5C", "5S", "JD"], "expected 5 cards (four in hand, then the starter), got 4"),
    (["peg", "A:5H", "B:5H"], "card '5H' is played twice, at positions 1 and 2"),
    (["peg", "A5H"], "bad play 'A5H' at position 1"),
    (["peg", "A:TS", "B:KH", "--hand", "A:TS", "--hand", "B:QH"], "B does not hold KH"),
    (["peg", "A:TS", "--hand", "TS"], "bad hand 'TS': write it as PLAYER:CARDS"),
    (["discard", "5H", "5C", "5S", "JD", "2C"], "expected 6 cards for a 2-player deal, got 5"),
    (["discard", "5H", "5C", "5S", "JD", "2C", "9D", "--players", "4"], "expected 5 cards for a 4-player"),
    (["discard", "5H", "5C", "5S", "JD", "2C", "--players", "5"], "invalid choice: 5"),
    (["deal"], "invalid choice: 'deal'"),
    ([], "the following arguments are required: COMMAND"),
    (["show"], "the following arguments are required: CARD"),
    (["stats", "--hand"], "unrecognized arguments: --hand"),
])
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run_main(capsys, *argv)
    assert (status, out) == (EXIT_BAD_INPUT, "")
    assert message in one_line(err)


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_main(capsys, "discard", "--help")
    assert status == EXIT_OK
    assert "--players {2,3,4}" in out
