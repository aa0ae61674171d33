"""The hand-worked known answers of tests/data/ as JSON API requests, for the engine's other homes.

Every show in ``hands.txt`` becomes a ``POST /api/score`` body with its hand-worked total, and every
finished play in ``pegging.txt`` a ``POST /api/peg`` body with its hand-worked points (a play still
in progress has no API form: the API always scores a finished play). The offline tests send them to
the phone's own app, in CPython (tests/test_offline.py) and in the browser's worker
(tests/e2e/test_offline_engine.py), and check each answer against these totals.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
IN_PROGRESS = "..."


@dataclass(frozen=True)
class Known:
    """One request and the answer worked by hand: ``total`` for a show, ``points`` for a play."""

    where: str
    body: dict[str, Any]
    total: int | None = None
    points: dict[str, int] | None = None


def shows() -> list[Known]:
    """Every line of hands.txt: hand, starter, hand or crib, total."""
    out = []
    for number, raw in enumerate((DATA / "hands.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        hand, starter, kind, total, _notes = (f.strip() for f in line.split("|", 4))
        out.append(Known(f"hands.txt:{number}", {"hand": hand, "starter": starter, "crib": kind == "crib"},
                         total=int(total)))
    return out


def hands_named(field: str, plays: str) -> dict[str, str] | None:
    """pegging.txt's hands field as a dict (``-``: none; ``seat``: each player's cards as played)."""
    if field == "-":
        return None
    if field == "seat":
        held: dict[str, list[str]] = {}
        for play in plays.split():
            player, _, card = play.partition(":")
            held.setdefault(player, []).append(card)
        return {p: " ".join(cs) for p, cs in held.items()}
    out: dict[str, str] = {}
    for part in field.split(";"):
        player, _, cards = part.partition("=")
        out[player.strip()] = cards.strip()
    return out


def plays() -> list[Known]:
    """Every finished play of pegging.txt, with the hands it names (checked for legality)."""
    out = []
    for number, raw in enumerate((DATA / "pegging.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        plays_f, hands_f, points_f, _events, _notes = (f.strip() for f in line.split("|", 4))
        if plays_f.endswith(IN_PROGRESS):
            continue
        body: dict[str, Any] = {"plays": plays_f}
        hands = hands_named(hands_f, plays_f)
        if hands is not None:
            body["hands"] = hands
        points = {k: int(v) for k, v in (p.split("=") for p in points_f.split())}
        out.append(Known(f"pegging.txt:{number}", body, points=points))
    return out
