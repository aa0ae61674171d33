"""Append cost by log length, and another table's appends while a long match is hammered.

    .venv/bin/python bench/bench_append.py [--backend sqlite|postgres|both] [--appends 40]
        [--hammer-seconds 10] [--root DIR]

For each backend it writes matches of 10, 1,000 and 5,000 events straight into a fresh database
(valid scripts, as bench/bench_load.py's tables enter them), starts the real server (SQLite:
``python app.py``, waitress with threads; PostgreSQL: gunicorn with 2 workers, the throwaway
server of the tests with ``fsync`` on) and measures over HTTP on the loopback:

- **append cost**: ``--appends`` appends to each match, taking the matches in turn, each the
  next event of its script after the seq the last answer gave, after a few unmeasured ones that
  bring each worker's replay up to date: median and p95 wall time, and the answer's size;
- **another table**: 6 clients hammer the 5,000-event match (each appends the next event after
  the seq it last saw; most are stale, 409, as at a table where six phones score at once) while
  one client appends to a 10-event match every 50 ms: that client's median and p95, and what
  the hammering clients got.

``--root DIR`` serves the app of another checkout (``git archive b66276b | tar -x -C DIR``) on
the same databases, for a before-and-after table.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

from bench.bench_load import HOST, Server, database, free_port, match_settings, percentile, table_script  # noqa: E402
from store import Store, events_table  # noqa: E402

LENGTHS = (10, 1000, 5000)
"""Log lengths measured (events already stored)."""
WARMUP_APPENDS = 4
"""Unmeasured appends per match first: each worker replays the match once, then keeps it."""
HAMMER_CLIENTS = 6
OTHER_PERIOD_S = 0.05
"""The other table appends every 50 ms while the long match is hammered."""
TARGET_OTHER_P95_MS = 50.0
"""The issue's target for the other table's append p95."""


def prefill(url: str, count: int, script: list[dict[str, object]]) -> str:
    """A new match holding the first ``count`` events of ``script``, written in one transaction."""
    with Store(url) as store:
        store.create_schema()
        match_id = store.create_match(match_settings()).id
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            if count:
                conn.execute(events_table.insert(), [
                    {"match_id": match_id, "seq": n, "event": json.dumps(e), "idempotency_key": None,
                     "created_at": datetime.now(UTC)} for n, e in enumerate(script[:count], 1)])
    finally:
        engine.dispose()
    return match_id


class OtherRoot(Server):
    """The server of another checkout (``--root``), on the same database."""

    root: Path = ROOT

    def command(self) -> list[str]:
        if self.kind == "waitress":
            return [sys.executable, str(self.root / "app.py")]
        return [sys.executable, "-m", "gunicorn", "--chdir", str(self.root), "wsgi:app", "-c",
                str(self.root / "gunicorn.conf.py"), "-b", f"{HOST}:{self.port}", "-w", str(self.workers)]


@dataclass
class Client:
    """One phone appending to one match with a keep-alive connection."""

    port: int
    match_id: str
    script: list[dict[str, object]]
    seq: int
    conn: http.client.HTTPConnection = field(init=False)

    def __post_init__(self) -> None:
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)

    def append(self) -> tuple[int, float, int]:
        """Append the script's next event; the status, the wall time (ms) and the answer's bytes."""
        body = json.dumps({"after": self.seq, "event": self.script[self.seq]}).encode()
        start = time.perf_counter()
        self.conn.request("POST", f"/api/matches/{self.match_id}/events", body=body,
                          headers={"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        data = resp.read()
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status in (200, 201, 409):
            self.seq = int(json.loads(data)["seq"])
        return resp.status, elapsed, len(data)


@dataclass
class Row:
    """One line of the cost table."""

    backend: str
    events: int
    median_ms: float
    p95_ms: float
    size: int


@dataclass
class Hammered:
    """The other table's appends while the long match was hammered."""

    backend: str
    median_ms: float
    p95_ms: float
    other: Counter[int]
    hammer: Counter[int]
    seconds: float


def measure(backend: str, url: str, folder: Path, appends: int, hammer_s: float, root: Path
            ) -> tuple[list[Row], Hammered]:
    """Both measurements on one backend."""
    script = table_script(max(LENGTHS) + appends + WARMUP_APPENDS + 4000, random.Random(11))
    ids = {n: prefill(url, n, script) for n in LENGTHS}
    other_id = prefill(url, 10, script)
    kind = "waitress" if backend == "sqlite" else "gunicorn"
    server = OtherRoot(kind, url, folder / f"instance-{backend}", free_port(), 2, folder / f"{backend}.log")
    server.root = root
    server.start()
    try:
        clients = {n: Client(server.port, ids[n], script, n) for n in LENGTHS}
        for client in clients.values():
            for _ in range(WARMUP_APPENDS):
                client.append()
        times: dict[int, list[float]] = {n: [] for n in LENGTHS}
        sizes: dict[int, list[int]] = {n: [] for n in LENGTHS}
        for _ in range(appends):  # round robin, so the machine's moods fall on every length alike
            for n, client in clients.items():
                status, ms, size = client.append()
                if status != 201:
                    raise RuntimeError(f"an append to the {n}-event match answered {status}")
                times[n].append(ms)
                sizes[n].append(size)
        rows = []
        for n in LENGTHS:
            ordered = sorted(times[n])
            rows.append(Row(backend, n, statistics.median(ordered), percentile(ordered, 95), max(sizes[n])))
        hammer: Counter[int] = Counter()
        lock = threading.Lock()
        stop = threading.Event()
        long_seq = LENGTHS[-1] + WARMUP_APPENDS + appends

        def hammering() -> None:
            client = Client(server.port, ids[LENGTHS[-1]], script, long_seq)
            while not stop.is_set():
                status, _, _ = client.append()
                with lock:
                    hammer[status] += 1

        threads = [threading.Thread(target=hammering) for _ in range(HAMMER_CLIENTS)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # let the hammering settle in
        other = Client(server.port, other_id, script, 10)
        statuses: Counter[int] = Counter()
        waits: list[float] = []
        start = time.monotonic()
        while time.monotonic() - start < hammer_s:
            status, ms, _ = other.append()
            statuses[status] += 1
            waits.append(ms)
            time.sleep(OTHER_PERIOD_S)
        stop.set()
        for t in threads:
            t.join()
        waits.sort()
        return rows, Hammered(backend, statistics.median(waits), percentile(waits, 95), statuses, hammer,
                              hammer_s + 1.0)
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--appends", type=int, default=40)
    parser.add_argument("--hammer-seconds", type=float, default=10.0)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    rows: list[Row] = []
    hammered: list[Hammered] = []
    with tempfile.TemporaryDirectory(prefix="muggins-append-") as tmp:
        for backend in backends:
            with database(backend, Path(tmp)) as url:
                more, done = measure(backend, url, Path(tmp), args.appends, args.hammer_seconds, args.root)
            rows += more
            hammered.append(done)
    print("| backend | events in the match | append median ms | append p95 ms | answer bytes |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r.backend} | {r.events:,} | {r.median_ms:.1f} | {r.p95_ms:.1f} | {r.size:,} |")
    print()
    print(f"| backend | another table's append median ms | p95 ms | its answers | {HAMMER_CLIENTS} clients "
          f"on the {LENGTHS[-1]:,}-event match: answers per second |")
    print("| --- | ---: | ---: | --- | --- |")
    ok = True
    for h in hammered:
        per_s = ", ".join(f"{status}: {count / h.seconds:.0f}/s"
                          for status, count in sorted(h.hammer.items()))
        answers = ", ".join(f"{status} ×{count}" for status, count in sorted(h.other.items()))
        print(f"| {h.backend} | {h.median_ms:.1f} | {h.p95_ms:.1f} | {answers} | {per_s} |")
        ok = ok and h.p95_ms < TARGET_OTHER_P95_MS and set(h.other) == {201}
    by_backend: dict[str, list[Row]] = {}
    for r in rows:
        by_backend.setdefault(r.backend, []).append(r)
    print()
    for backend, rs in by_backend.items():
        ratio = rs[-1].median_ms / rs[0].median_ms
        print(f"{backend}: the {LENGTHS[-1]:,}-event append costs {ratio:.2f}× the {LENGTHS[0]}-event one "
              f"(target: within 2×); another table's p95 target {TARGET_OTHER_P95_MS:g} ms")
        ok = ok and ratio <= 2.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
