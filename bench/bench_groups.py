"""A group page with 1,000 recorded games: how long the page and the records API take.

    .venv/bin/python bench/bench_groups.py [--backend sqlite|postgres|both] [--games 1000]
        [--requests 40] [--seed 7]

For each backend it writes a group straight into a fresh database: four players, matches of
two or three of them, best of 7 at 61 points, each game played hand by hand with numbers (a
starter, the play's points, each hand and the crib, random but legal totals: the engine checks
every event) until ``--games`` games are finished, undos among them. Then it starts the real
server (SQLite: ``python app.py``, waitress; PostgreSQL: gunicorn with 2 workers on the tests'
throwaway server with ``fsync`` on) and measures over HTTP on the loopback:

- **first page**: the group page when no match summary is stored yet (every match replayed
  once, its summary stored);
- **page** and **records API**: ``--requests`` GETs each of ``/g/<token>`` (standings,
  head-to-head, averages, big hands, three SVG charts, the match list) and
  ``/api/groups/<token>``: median and p95;
- **page after an entry**: an event appended to the newest match before each GET, so one
  summary is out of date and made again: median and p95 of the GET.

The target is a median page under 100 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

from bench.bench_load import HOST, Server, database, free_port, percentile  # noqa: E402
from scorer.match import Match, Phase, new_match_settings  # noqa: E402
from store import Store, events_table  # noqa: E402
from web.groups.core import group_rules_json  # noqa: E402

ROSTER = ["Ann", "Bob", "Cat", "Dan"]
HAND_TOTALS = [0, 2, 2, 4, 4, 4, 6, 6, 7, 8, 8, 10, 12, 12, 16, 20, 24, 29]
"""Show totals drawn for the number entries (all possible ones)."""
TARGET_MEDIAN_MS = 100.0


def play_game(match: Match, rnd: random.Random, events: list[dict[str, object]]) -> Match:
    """One game by numbers, hand by hand, with an undo now and then; returns the match after it."""
    while match.state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
        state = match.state
        if state.phase is Phase.STARTER:
            step: dict[str, object] = {"type": "starter", "card": None}
        elif (
            state.phase in (Phase.PLAY, Phase.SHOW)
            and state.to_count is not None
            and state.phase is Phase.SHOW
        ):
            step = {"type": "show", "player": state.to_count, "points": rnd.choice(HAND_TOTALS)}
        elif state.phase is Phase.PLAY:
            if any(e.type == "peg" for e in match.history[-2:]) or rnd.random() < 0.3:
                step = {"type": "show", "player": state.counting_order[0], "points": rnd.choice(HAND_TOTALS)}
            else:
                step = {
                    "type": "peg",
                    "player": rnd.choice(state.counting_order),
                    "points": rnd.randint(1, 8),
                }
        else:  # the crib
            step = {"type": "crib", "points": rnd.choice(HAND_TOTALS[:12])}
        match = match.apply(step)
        events.append(step)
        if rnd.random() < 0.03 and match.state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
            undo = {"type": "void", "seq": len(events), "reason": "bench"}
            match = match.apply(undo)
            events.append(undo)
    return match


def build(url: str, games: int, seed: int) -> tuple[str, str, int]:
    """A group holding ``games`` finished games; its scorer id, its newest match and that match's seq."""
    rnd = random.Random(seed)
    with Store(url) as store:
        store.create_schema()
        group = store.create_group("Bench club", ROSTER, group_rules_json({"target": 61}))
        done, newest, last = 0, "", 0
        start = datetime.now(UTC) - timedelta(days=3 * 365)
        rows = []
        while done < games:
            players = rnd.sample(ROSTER, rnd.choice([2, 2, 3]))
            settings = new_match_settings(
                players, target=61, first_dealer=0, length={"kind": "best_of", "games": 7}
            )
            record = store.create_group_match(group.id, settings)
            match, events = Match(settings), []
            while match.state.phase is not Phase.MATCH_OVER and done < games:
                match = play_game(match, rnd, events)
                done += 1
                if match.state.phase is Phase.GAME_OVER and done < games:
                    match = match.apply({"type": "next_game"})
                    events.append({"type": "next_game"})
            when = start + timedelta(days=3 * 365 * done / games)
            rows += [
                {
                    "match_id": record.id,
                    "seq": n,
                    "event": json.dumps(e),
                    "idempotency_key": None,
                    "created_at": when,
                }
                for n, e in enumerate(events, 1)
            ]
            newest, last = record.id, len(events)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(events_table.insert(), rows)
    finally:
        engine.dispose()
    return group.id, newest, last


def get(conn: http.client.HTTPConnection, path: str) -> tuple[float, int, int]:
    t = time.perf_counter()
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    return (time.perf_counter() - t) * 1000, resp.status, len(body)


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, object]) -> int:
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    return resp.status


def measure(backend: str, games: int, requests: int, seed: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder, database(backend, Path(folder)) as url:
        t = time.perf_counter()
        group, newest, seq = build(url, games, seed)
        built_s = time.perf_counter() - t
        kind, workers = ("waitress", 1) if backend == "sqlite" else ("gunicorn", 2)
        server = Server(
            kind, url, Path(folder) / "instance", free_port(), workers, Path(folder) / "server.log"
        )
        server.start()
        try:
            conn = http.client.HTTPConnection(HOST, server.port, timeout=120)
            first_ms, status, size = get(conn, f"/g/{group}")
            assert status == 200, status
            first = "first page (no summary stored)"
            rows = [f"| {backend} | {first} | 1 | {first_ms:.0f} | – | {size / 1024:.0f} kB |"]
            for what, path in (("page", f"/g/{group}"), ("records API", f"/api/groups/{group}")):
                for _ in range(3 * workers):  # every worker's first (process caches, templates)
                    get(conn, path)
                times, size = [], 0
                for _ in range(requests):
                    ms, status, size = get(conn, path)
                    assert status == 200, status
                    times.append(ms)
                times.sort()
                rows.append(
                    f"| {backend} | {what} | {requests} | {statistics.median(times):.1f} "
                    f"| {percentile(times, 95):.1f} | {size / 1024:.0f} kB |"
                )
            times = []
            state = json.loads(_body(conn, f"/api/matches/{newest}"))
            after = state["seq"]
            for k in range(requests):
                event = {
                    "type": "correction",
                    "player": 0,
                    "points": 1 if k % 2 == 0 else -1,
                    "reason": "bench",
                }
                if post(conn, f"/api/matches/{newest}/events", {"after": after, "event": event}) == 201:
                    after += 1
                ms, status, size = get(conn, f"/g/{group}")
                times.append(ms)
            times.sort()
            rows.append(
                f"| {backend} | page after an entry | {requests} | {statistics.median(times):.1f} "
                f"| {percentile(times, 95):.1f} | {size / 1024:.0f} kB |"
            )
            print(
                f"{backend}: built {games} games in {built_s:.0f} s ({seq} events in the newest match)",
                file=sys.stderr,
            )
            return rows
        finally:
            server.stop()


def _body(conn: http.client.HTTPConnection, path: str) -> bytes:
    conn.request("GET", path)
    return conn.getresponse().read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    print(f"A group with {args.games:,} games; median page target {TARGET_MEDIAN_MS:.0f} ms.\n")
    print("| backend | what | requests | median ms | p95 ms | answer |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for backend in backends:
        for row in measure(backend, args.games, args.requests, args.seed):
            print(row, flush=True)


if __name__ == "__main__":
    main()
