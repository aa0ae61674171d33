"""Show scoring: Muggins' itemized ``score_show`` against the PyPI packages that score a show.

Run from the repository root with the project's venv::

    .venv/bin/python bench/bench_show.py [--deals 2000] [--passes 5] [--seed 20240601]

The first run creates ``.bench-venv`` (gitignored) and installs the peers pinned in
``bench/requirements-peers.txt``, each with its imported dependencies in its own folder under
``.bench-venv/peers`` (two peers ship a top-level package named ``cribbage``). Every scorer gets
the same random deals from one seed. Each peer runs in a subprocess of the bench venv (this same
file with ``--peer NAME``, which imports nothing from the project), so the project's venv never
sees a peer.

Per scorer it prints, as a markdown table: the median microseconds of one call scoring a hand
(the deals converted to the scorer's own card objects beforehand, the call returning its total;
Muggins' call builds the itemized ``Score``), that time over Muggins', and on how many deals the
total differs from ``score_show``'s as a hand and as a crib: the random deals, and the 41,791
pattern deals of ``tests/test_tables.py`` (each multiset of five ranks with each of its ranks as
the starter, and each suit pattern with each choice of jacks), which hold every rule's corner
cases. ``score_show`` is the reference because ``tests/test_tables.py`` ties it to docs/RULES.md's
distribution of all 12,994,800 deals. Then the first wrong deal of each peer, with Muggins'
count spoken.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_VENV = ROOT / ".bench-venv"
BENCH_PYTHON = BENCH_VENV / "bin" / "python"
PEERS_DIR = BENCH_VENV / "peers"
REQUIREMENTS = ROOT / "bench" / "requirements-peers.txt"

DEFAULT_DEALS = 2_000
"""Deals per run: every 4-card flush and double run shows up (about 1 in 100 and 1 in 25 deals)."""
DEFAULT_PASSES = 5
"""Timed passes over the deals; each call is one sample, the median is over all samples."""
DEFAULT_SEED = 20_240_601
SPEED_TARGET = 3.0
"""How many times faster than the fastest correct peer Muggins' itemized count should be."""
TIMER_SAMPLES = 10_000
"""Back-to-back clock reads whose median is the timer's own cost, taken off every median."""
PEER_TIMEOUT_S = 600
EXAMPLES_PER_PEER = 3
"""Wrong random deals printed per peer and mode, each with a different shortfall."""

SUITS = "SHDC"
"""Muggins' suit order; a card travels to a peer as (rank 1..13, suit letter)."""

CardTuple = tuple[int, str]
Deal = tuple[CardTuple, CardTuple, CardTuple, CardTuple, CardTuple]
"""Four hand cards, then the starter."""


@dataclass(frozen=True)
class Peer:
    """A PyPI show scorer: what to install and how the bench calls it."""

    key: str
    """Its folder under .bench-venv/peers and its --peer name."""
    dist: str
    """The PyPI distribution whose version the table shows."""
    packages: tuple[str, ...]
    """Lines of requirements-peers.txt installed (with --no-deps) into its folder."""
    calls: str
    """The call timed, for the README."""
    pip_flags: tuple[str, ...] = ()


PEERS: tuple[Peer, ...] = (
    Peer(
        "cribbage-scorer",
        "cribbage-scorer",
        ("cribbage-scorer", "more-itertools"),
        "cribbage_scorer.show_calc_score(starter, hand, crib)",
    ),
    Peer("pycribbage", "pycribbage", ("pycribbage",), "pycribbage.scorer.ScoreTheShow(hand, is_crib).score"),
    Peer(
        "magmacrunch-cribbage",
        "magmacrunch-cribbage",
        ("magmacrunch-cribbage",),
        "cribbage.cards.score_hand(hand, starter, is_crib).total",
    ),
    Peer("cribbage", "cribbage", ("cribbage", "numpy"), "cribbage.score.score_hand(hand, turn_card)"),
    Peer(
        "cribbagesim",
        "CribbageSim",
        ("CribbageSim", "HandsDecksCards", "UserResponseCollector"),
        "CribbageDeal().determine_score_showing_hand / _crib(hand, starter)",
        ("--ignore-requires-python",),
    ),
)


# ---------------------------------------------------------------------------------------------
# Timing (shared by both sides, so both are measured the same way)


def median_us(call: Callable[..., object], args_list: Sequence[tuple[object, ...]], passes: int) -> float:
    """Median microseconds of one ``call(*args)``, the clock's own cost taken off.

    The garbage collector is off while timing, as ``timeit`` does, so one scorer's garbage is
    not charged to another's call.
    """
    clock = time.perf_counter_ns
    samples: list[int] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(passes):
            for args in args_list:
                start = clock()
                call(*args)
                samples.append(clock() - start)
        reads = []
        for _ in range(TIMER_SAMPLES):
            start = clock()
            reads.append(clock() - start)
    finally:
        if enabled:
            gc.enable()
    return (statistics.median(samples) - statistics.median(reads)) / 1000


# ---------------------------------------------------------------------------------------------
# Peer side: runs in the bench venv, imports only the standard library and the peer


@dataclass(frozen=True)
class Adapter:
    """How to hand a deal to one peer and read its total."""

    call: Callable[..., object]
    hand_args: Callable[[Deal], tuple[object, ...]]
    crib_args: Callable[[Deal], tuple[object, ...]] | None
    """None when the peer has no crib rules."""
    total: Callable[[object], int]


def _adapt_cribbage_scorer() -> Adapter:
    from cribbage_scorer import cribbage_scorer as cs  # type: ignore[import-not-found]

    # Its cards are (rank 1..13, suit letter S H D C), the same as the bench's.
    def args(deal: Deal, crib: bool) -> tuple[object, ...]:
        return (deal[4], list(deal[:4]), crib)

    return Adapter(
        cs.show_calc_score, lambda d: args(d, False), lambda d: args(d, True), lambda r: int(r[0])  # type: ignore[index]
    )


def _adapt_pycribbage() -> Adapter:
    from pycribbage.deck_tools import Card as PCard  # type: ignore[import-not-found]
    from pycribbage.deck_tools import Hand as PHand
    from pycribbage.scorer import ScoreTheShow  # type: ignore[import-not-found]

    suit_index = {"C": 0, "D": 1, "H": 2, "S": 3}  # its suit_names order

    def args(deal: Deal, crib: bool) -> tuple[object, ...]:
        hand = PHand()
        hand.cards = [PCard(suit_index[s], r) for r, s in deal]  # the starter last, as it wants
        return (hand, crib)

    return Adapter(ScoreTheShow, lambda d: args(d, False), lambda d: args(d, True), lambda r: int(r.score))  # type: ignore[attr-defined]


def _adapt_magmacrunch() -> Adapter:
    from cribbage.cards import Card as MCard  # type: ignore[import-not-found]
    from cribbage.cards import score_hand

    suit_name = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    rank_name = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

    def args(deal: Deal, crib: bool) -> tuple[object, ...]:
        cards = [MCard(suit_name[s], rank_name[r - 1]) for r, s in deal]
        return (cards[:4], cards[4], crib)

    return Adapter(score_hand, lambda d: args(d, False), lambda d: args(d, True), lambda r: int(r.total))  # type: ignore[attr-defined]


def _adapt_cribbage() -> Adapter:
    from cribbage.card import Card as CCard  # type: ignore[import-not-found]
    from cribbage.score import score_hand  # type: ignore[import-not-found]

    suit_index = {"D": 0, "C": 1, "H": 2, "S": 3}  # its suit order: index // 13

    def args(deal: Deal) -> tuple[object, ...]:
        cards = [CCard(suit_index[s] * 13 + r - 1) for r, s in deal]
        return (cards[:4], cards[4])

    return Adapter(score_hand, args, None, lambda r: int(r))  # type: ignore[call-overload]


def _adapt_cribbagesim() -> Adapter:
    from CribbageSim.CribbageDeal import CribbageDeal  # type: ignore[import-not-found]
    from HandsDecksCards.card import Card as SCard  # type: ignore[import-not-found]
    from HandsDecksCards.hand import Hand as SHand  # type: ignore[import-not-found]

    deal_obj = CribbageDeal()
    pips = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

    def args(deal: Deal, crib: bool) -> tuple[object, ...]:
        cards = [SCard(s, pips[r - 1]) for r, s in deal]
        hand = SHand()
        hand.add_cards(cards[:4])
        return (hand, cards[4], crib)

    # Its methods take a list to fill with the reasons; a fresh one per call, as its game does.
    def score(hand: object, starter: object, crib: bool) -> object:
        if crib:
            return deal_obj.determine_score_showing_crib(hand, starter, [])
        return deal_obj.determine_score_showing_hand(hand, starter, [])

    return Adapter(score, lambda d: args(d, False), lambda d: args(d, True), lambda r: int(r))  # type: ignore[call-overload]


ADAPTERS: dict[str, Callable[[], Adapter]] = {
    "cribbage-scorer": _adapt_cribbage_scorer,
    "pycribbage": _adapt_pycribbage,
    "magmacrunch-cribbage": _adapt_magmacrunch,
    "cribbage": _adapt_cribbage,
    "cribbagesim": _adapt_cribbagesim,
}


def _totals(adapter: Adapter, args_list: list[tuple[object, ...]]) -> list[int | str]:
    """Each deal's total, or the exception's text where the peer raised."""
    out: list[int | str] = []
    for args in args_list:
        try:
            out.append(adapter.total(adapter.call(*args)))
        except Exception as exc:  # a peer's crash is a wrong answer, reported as such
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def _read_deals(raw: list[list[list[object]]]) -> list[Deal]:
    return [tuple((int(r), str(s)) for r, s in d) for d in raw]  # type: ignore[misc, call-overload]


def run_peer(key: str) -> None:
    """Peer side: read the deals on stdin, print version, timing and totals as JSON."""
    peer = next(p for p in PEERS if p.key == key)
    payload = json.load(sys.stdin)
    adapter = ADAPTERS[key]()
    result: dict[str, object] = {"version": importlib.metadata.version(peer.dist)}
    for name in ("random", "patterns"):
        deals = _read_deals(payload[name])
        hand_args = [adapter.hand_args(d) for d in deals]
        hand = _totals(adapter, hand_args)
        result[f"{name}_hand"] = hand
        result[f"{name}_crib"] = (
            None if adapter.crib_args is None else _totals(adapter, [adapter.crib_args(d) for d in deals])
        )
        if name == "random":
            ok_args = [a for a, t in zip(hand_args, hand, strict=True) if isinstance(t, int)]
            result["median_us"] = median_us(adapter.call, ok_args, payload["passes"])
    json.dump(result, sys.stdout)


# ---------------------------------------------------------------------------------------------
# Bench side: runs in the project's venv


def read_pins() -> dict[str, str]:
    """requirements-peers.txt as {lower-case name: 'name==version'}."""
    pins = {}
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            pins[line.split("==", 1)[0].lower()] = line
    return pins


def ensure_bench_venv() -> None:
    """Create .bench-venv and install each peer's pins into its folder, where missing or changed."""
    if not BENCH_PYTHON.exists():
        print(f"creating {BENCH_VENV.name} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
    pins = read_pins()
    for peer in PEERS:
        wanted = [pins[name.lower()] for name in peer.packages]
        target = PEERS_DIR / peer.key
        stamp = target / ".pins"
        if stamp.exists() and stamp.read_text().split() == wanted:
            continue
        print(f"installing {' '.join(wanted)} into {target.relative_to(ROOT)} ...", file=sys.stderr)
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run(
            [str(BENCH_PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-deps", "--target", str(target), *peer.pip_flags, *wanted],
            check=True,
        )
        stamp.write_text("\n".join(wanted) + "\n")


def random_deals(count: int, seed: int) -> list[Deal]:
    """``count`` deals of five distinct cards, the same for every scorer."""
    rng = random.Random(seed)
    deck: list[CardTuple] = [(rank, suit) for rank in range(1, 14) for suit in SUITS]
    return [tuple(rng.sample(deck, 5)) for _ in range(count)]  # type: ignore[misc]


def pattern_deals() -> list[Deal]:
    """The 41,791 deals that cover every rank pattern and every suit pattern (tests/test_tables.py)."""
    deals: list[Deal] = []
    for ranks in combinations_with_replacement(range(1, 14), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        # The k-th card of a rank takes the k-th suit, so the five cards are distinct.
        five = [(r, SUITS[ranks[:i].count(r)]) for i, r in enumerate(ranks)]
        for starter_rank in sorted(set(ranks)):
            cut = max(i for i, r in enumerate(ranks) if r == starter_rank)
            deals.append((*five[:cut], *five[cut + 1 :], five[cut]))  # type: ignore[arg-type]
    jack, plain_hand, plain_starter = 11, (1, 2, 3, 4), 9
    for suits in product(SUITS, repeat=4):
        for starter_suit in SUITS:
            for jacks in product((False, True), repeat=4):
                for starter_jack in (False, True):
                    hand = [(jack if j else r, s) for j, r, s in zip(jacks, plain_hand, suits, strict=True)]
                    starter = (jack if starter_jack else plain_starter, starter_suit)
                    if len({*hand, starter}) == 5:
                        deals.append((*hand, starter))  # type: ignore[arg-type]
    return deals


def run_peer_subprocess(peer: Peer, deals: dict[str, list[Deal]], passes: int) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(PEERS_DIR / peer.key), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [str(BENCH_PYTHON), str(Path(__file__).resolve()), "--peer", peer.key],
        input=json.dumps({**deals, "passes": passes}),
        capture_output=True, text=True, env=env, cwd=BENCH_VENV, timeout=PEER_TIMEOUT_S, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"peer {peer.key} failed (exit {done.returncode}):\n{done.stderr}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def notation(cards: Sequence[CardTuple]) -> str:
    return " ".join(("T" if r == 10 else "A23456789TJQK"[r - 1]) + s for r, s in cards)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS)
    parser.add_argument("--passes", type=int, default=DEFAULT_PASSES)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer:
        run_peer(args.peer)
        return

    sys.path.insert(0, str(ROOT))
    from scorer.cards import DECK, Card
    from scorer.show import score_show

    ensure_bench_venv()
    deals = {"random": random_deals(args.deals, args.seed), "patterns": pattern_deals()}

    def ours(deal: Deal) -> tuple[list[Card], Card]:
        cards = [DECK[(r - 1) * 4 + SUITS.index(s)] for r, s in deal]
        return cards[:4], cards[4]

    our_args = {name: [ours(d) for d in group] for name, group in deals.items()}
    ref = {
        (name, crib): [score_show(h, s, crib=crib).total for h, s in our_args[name]]
        for name in deals
        for crib in (False, True)
    }
    our_us = median_us(score_show, our_args["random"], args.passes)
    sizes = {name: f"{len(group):,}" for name, group in deals.items()}

    rows = [
        f"| scorer | version | µs per hand (median) | × Muggins' time | wrong of {sizes['random']} random "
        f"deals, hand / crib | wrong of {sizes['patterns']} pattern deals, hand / crib |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
        f"| **Muggins** `score_show` (itemized) | this repo | {our_us:.2f} | 1.0 | 0 / 0 | 0 / 0 |",
    ]
    examples: list[str] = []
    fastest_correct: tuple[float, str] | None = None
    for peer in PEERS:
        result = run_peer_subprocess(peer, deals, args.passes)
        peer_us = float(result["median_us"])  # type: ignore[arg-type]
        cells: dict[str, list[str]] = {name: [] for name in deals}
        any_wrong = False
        for name in deals:
            for crib in (False, True):
                totals = result[f"{name}_{'crib' if crib else 'hand'}"]
                if not isinstance(totals, list):
                    cells[name].append("no crib rules")
                    continue
                wrong = [i for i, t in enumerate(totals) if t != ref[name, crib][i]]
                any_wrong = any_wrong or bool(wrong)
                cells[name].append(str(len(wrong)))
                if name != "random":
                    continue
                # One example per distinct shortfall, so each broken rule shows once.
                shown: set[object] = set()
                for i in wrong:
                    gap = ref[name, crib][i] - totals[i] if isinstance(totals[i], int) else totals[i]
                    if gap in shown or len(shown) == EXAMPLES_PER_PEER:
                        continue
                    shown.add(gap)
                    h, s = our_args[name][i]
                    examples.append(
                        f"- {peer.dist} {result['version']}, {'crib' if crib else 'hand'} "
                        f"`{notation(deals[name][i][:4])}` starter `{notation(deals[name][i][4:])}`: "
                        f"peer {totals[i]}, Muggins {ref[name, crib][i]} "
                        f"({score_show(h, s, crib=crib).spoken()})"
                    )
        rows.append(
            f"| {peer.dist} | {result['version']} | {peer_us:.2f} | {peer_us / our_us:.1f} "
            f"| {' / '.join(cells['random'])} | {' / '.join(cells['patterns'])} |"
        )
        if not any_wrong and (fastest_correct is None or peer_us < fastest_correct[0]):
            fastest_correct = (peer_us, f"{peer.dist} {result['version']}")

    print(f"Show scoring, {sizes['random']} random deals (seed {args.seed}), {args.passes} timed passes, "
          f"Python {sys.version.split()[0]}\n")
    print("\n".join(rows))
    if fastest_correct is not None:
        speedup = fastest_correct[0] / our_us
        verdict = "meets" if speedup >= SPEED_TARGET else "MISSES"
        print(f"\nFastest correct peer: {fastest_correct[1]}, {fastest_correct[0]:.2f} µs; Muggins is "
              f"{speedup:.1f}× faster ({verdict} the {SPEED_TARGET:.0f}× target).")
    else:
        print("\nNo peer scored every deal correctly.")
    if examples:
        print("\nWrong random deals, one per shortfall:\n")
        print("\n".join(examples))


if __name__ == "__main__":
    main()
