"""The match store (store.py) on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import base64
import doctest
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

import store as store_module
from scorer.errors import MatchError
from store import (
    ID_BYTES,
    MAX_DOCUMENT_CHARS,
    AppendResult,
    InvalidRecord,
    KeyReused,
    MatchNotFound,
    StaleAppend,
    Store,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    events_table,
)

WRITER_SCRIPT = Path(__file__).with_name("store_writer.py")
CONCURRENT_EVENTS_PER_WRITER = 500
"""Events each of the two concurrent writers appends (the issue's acceptance figure)."""
ACKS_BEFORE_KILL = 25
"""Acknowledged appends the killed writer must have printed before the test kills it."""
SUBPROCESS_WAIT_S = 60
"""Seconds to wait for the writer subprocess at each step before the test fails (not a speed bound)."""
RACE_BARRIER_S = 10
"""Seconds a racing writer waits for the other at the barrier before the test fails."""
URLSAFE_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def sqlite_url(path: Path, *, read_only: bool = False) -> str:
    """SQLAlchemy URL of an SQLite file, optionally opened read-only through SQLite's URI form."""
    if read_only:
        return f"sqlite:///file:{path}?mode=ro&uri=true"
    return sa.URL.create("sqlite", database=str(path)).render_as_string()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: an SQLite file in tmp_path, or a fresh schema on the test PostgreSQL."""
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "matches.db")
    url: str = request.getfixturevalue("pg_fresh_url")
    return url


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A store with its schema, on each backend in turn."""
    with Store(db_url) as opened:
        opened.create_schema()
        yield opened


def payloads(events: list[StoredEvent]) -> list[dict[str, Any]]:
    """The event dicts alone, in order."""
    return [e.event for e in events]


# --- matches ----------------------------------------------------------------------------------


def test_create_get_and_by_viewer(store: Store) -> None:
    before = datetime.now(UTC)
    settings = {"players": ["Ann", "Bob"], "game_to": 121, "skunk": True}
    created = store.create_match(settings)
    assert created.settings == settings
    assert created.created_at.tzinfo is not None
    assert before - timedelta(seconds=1) <= created.created_at <= datetime.now(UTC) + timedelta(seconds=1)
    assert store.get_match(created.id) == created
    assert store.by_viewer(created.viewer_id) == created
    assert store.last_seq(created.id) == 0
    assert store.events(created.id) == []


def test_the_two_links_are_not_interchangeable(store: Store) -> None:
    match = store.create_match({})
    with pytest.raises(MatchNotFound):
        store.get_match(match.viewer_id)  # a viewer link must never open the scorer's side
    with pytest.raises(MatchNotFound):
        store.by_viewer(match.id)
    with pytest.raises(MatchNotFound):
        store.append(match.viewer_id, 0, {"type": "deal"})


@pytest.mark.parametrize(
    "bad_id",
    ["", "nope", "x" * 65, "has space", "semi;colon", "nul\x00byte", "Zoë", None, 7],
)
def test_unknown_or_malformed_ids_are_not_found(store: Store, bad_id: Any) -> None:
    with pytest.raises(MatchNotFound, match="no match with id"):
        store.get_match(bad_id)
    with pytest.raises(MatchNotFound, match="no match with viewer_id"):
        store.by_viewer(bad_id)
    with pytest.raises(MatchNotFound):
        store.events(bad_id)
    with pytest.raises(MatchNotFound):
        store.last_seq(bad_id)


def test_ids_are_exact_case_sensitive_matches(store: Store) -> None:
    match = store.create_match({})
    assert match.id.swapcase() != match.id  # 32 random characters: some are letters
    with pytest.raises(MatchNotFound):
        store.get_match(match.id.swapcase())
    with pytest.raises(MatchNotFound):
        store.get_match(match.id[:-1])


def test_ids_are_unguessable(store: Store) -> None:
    """Every id carries ID_BYTES (>= 16, i.e. 128 bits) of fresh randomness; none repeats."""
    assert ID_BYTES * 8 >= 128
    ids: list[str] = []
    for _ in range(50):
        match = store.create_match({})
        ids += [match.id, match.viewer_id]
    assert len(set(ids)) == len(ids)
    for one in ids:
        assert set(one) <= URLSAFE_ALPHABET
        assert len(base64.urlsafe_b64decode(one + "=" * (-len(one) % 4))) == ID_BYTES
    # 100 ids x 32 characters drawn uniformly from 64 symbols: each symbol is expected 50 times
    # (missing one by chance: 64 * (63/64)**3200, about 1e-20), so a biased or low-entropy
    # generator shows up here.
    assert set("".join(ids)) == URLSAFE_ALPHABET


# --- appending --------------------------------------------------------------------------------


def test_append_numbers_events_in_order(store: Store) -> None:
    match = store.create_match({})
    deal = {"type": "deal", "dealer": "Ann"}
    discard = {"type": "discard", "player": "Bob", "cards": ["5H", "JD"]}
    starter = {"type": "starter", "card": "5S"}
    assert store.append(match.id, 0, deal) == AppendResult(seq=1, duplicate=False)
    assert store.append(match.id, 1, discard) == AppendResult(seq=2, duplicate=False)
    assert store.append(match.id, 2, starter) == AppendResult(seq=3, duplicate=False)
    stored = store.events(match.id)
    assert [e.seq for e in stored] == [1, 2, 3]
    assert payloads(stored) == [deal, discard, starter]
    assert [e.idempotency_key for e in stored] == [None, None, None]
    assert all(e.created_at.tzinfo is not None for e in stored)
    assert stored[0].created_at <= stored[1].created_at <= stored[2].created_at
    assert payloads(store.events(match.id, after=1)) == [discard, starter]
    assert store.events(match.id, after=3) == []
    assert store.last_seq(match.id) == 3


def test_matches_keep_separate_sequences(store: Store) -> None:
    first, second = store.create_match({"n": 1}), store.create_match({"n": 2})
    store.append(first.id, 0, {"to": "first"})
    store.append(first.id, 1, {"to": "first"})
    assert store.append(second.id, 0, {"to": "second"}) == AppendResult(seq=1, duplicate=False)
    assert payloads(store.events(second.id)) == [{"to": "second"}]
    assert store.last_seq(first.id) == 2


@pytest.mark.parametrize("after_seq", [0, 1, 3])
def test_a_stale_append_is_refused_with_the_fresh_events(store: Store, after_seq: int) -> None:
    match = store.create_match({})
    store.append(match.id, 0, {"type": "deal", "dealer": "Ann"})
    store.append(match.id, 1, {"type": "deal", "dealer": "Bob"})
    expected = f"append after seq {after_seq} is stale: the match is at seq 2"
    with pytest.raises(StaleAppend, match=expected) as info:
        store.append(match.id, after_seq, {"type": "deal", "dealer": "Cat"})
    assert info.value.last_seq == 2
    assert info.value.after_seq == after_seq
    assert payloads(info.value.fresh) == [
        {"type": "deal", "dealer": "Ann"}, {"type": "deal", "dealer": "Bob"}
    ]
    assert [e.seq for e in info.value.fresh] == [1, 2]
    assert store.last_seq(match.id) == 2


def test_the_same_idempotency_key_stores_one_event(store: Store) -> None:
    match = store.create_match({})
    peg = {"type": "peg", "player": "Ann", "card": "5H"}
    assert store.append(match.id, 0, peg, idempotency_key="a1b2-retry") == AppendResult(1, duplicate=False)
    # The client's retry still names the seq it saw before its first try: not stale, a duplicate.
    assert store.append(match.id, 0, peg, idempotency_key="a1b2-retry") == AppendResult(1, duplicate=True)
    assert store.append(match.id, 1, peg, idempotency_key="a1b2-retry") == AppendResult(1, duplicate=True)
    assert [(e.seq, e.idempotency_key) for e in store.events(match.id)] == [(1, "a1b2-retry")]
    go = {"type": "go"}
    assert store.append(match.id, 1, go, idempotency_key="c3d4") == AppendResult(2, duplicate=False)
    other = store.create_match({})
    assert store.append(other.id, 0, peg, idempotency_key="a1b2-retry") == AppendResult(1, duplicate=False)
    assert store.last_seq(match.id) == 2


def test_a_used_key_names_one_event(store: Store) -> None:
    match = store.create_match({})
    peg = {"type": "peg", "player": 0, "points": 2}
    assert store.append(match.id, 0, peg, idempotency_key="tap-1") == AppendResult(1, duplicate=False)
    # The same JSON object written in another key order is the same event: a retry.
    same = {"points": 2, "player": 0, "type": "peg"}
    assert store.append(match.id, 1, same, idempotency_key="tap-1") == AppendResult(1, duplicate=True)
    # Another event under the used key is refused, whatever seq it names, and nothing is stored;
    # true is not 1 (as Python's True == 1 would have it).
    for after, other in ((1, {"type": "peg", "player": 0, "points": 3}),
                         (0, {"type": "peg", "player": 0, "points": 3}),
                         (1, {"type": "peg", "player": 0, "points": 2, "go": True}),
                         (1, {"type": "peg", "player": False, "points": 2})):
        with pytest.raises(KeyReused, match="already names event #1") as info:
            store.append(match.id, after, other, idempotency_key="tap-1")
        assert info.value.seq == 1 and "nothing was stored" in str(info.value)
    assert payloads(store.events(match.id)) == [peg]


def test_a_stale_append_can_skip_reading_the_log(store: Store) -> None:
    match = store.create_match({})
    store.append(match.id, 0, {"n": 1})
    with pytest.raises(StaleAppend) as info:
        store.append(match.id, 0, {"n": 2}, read_fresh=False)
    assert info.value.last_seq == 1 and info.value.fresh is None


def test_a_refusing_validator_stores_nothing(store: Store) -> None:
    match = store.create_match({})
    store.append(match.id, 0, {"type": "deal", "dealer": "Ann"})
    seen: list[list[StoredEvent]] = []

    def refuse(current: list[StoredEvent]) -> None:
        seen.append(current)
        raise MatchError("it is Bob's turn to play, not Ann's")

    with pytest.raises(MatchError, match="Bob's turn"):
        store.append(match.id, 1, {"type": "peg", "player": "Ann"}, idempotency_key="k1", validate=refuse)
    assert [payloads(events) for events in seen] == [[{"type": "deal", "dealer": "Ann"}]]
    assert store.last_seq(match.id) == 1
    # The refused key was not kept either: the corrected event may reuse it.
    accepted = store.append(match.id, 1, {"type": "peg", "player": "Bob"}, idempotency_key="k1",
                            validate=lambda current: None)
    assert accepted == AppendResult(seq=2, duplicate=False)


def test_nested_unicode_events_round_trip(store: Store) -> None:
    settings = {"players": ["Zoë", "Søren", "李雷", "Ōtsuka 🃏"], "rules": {"muggins": True, "game_to": 121}}
    event = {
        "type": "show",
        "player": "Zoë",
        "cards": ["5H", "5C", "5S", "JD"],
        "items": [{"kind": "fifteen", "cards": ["5H", "JD"], "points": 2}, {"kind": "nobs", "points": 1}],
        "note": "quote \" backslash \\ newline \n tab \t nul \u0000 end",
        "ratio": 0.1,
        "big": 2**62,
        "none": None,
        "empty": {"list": [], "dict": {}},
    }
    match = store.create_match(settings)
    store.append(match.id, 0, event)
    assert store.get_match(match.id).settings == settings
    [stored] = store.events(match.id)
    assert stored.event == event
    assert list(stored.event) == list(event)  # key order kept: the log reads as written


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (["not", "a", "dict"], "must be a JSON object"),
        ({"cards": ("5H", "5C")}, "would not read back as given"),
        ({1: "int key"}, "would not read back as given"),
        ({"points": float("nan")}, "is not JSON"),
        ({"cards": {"5H"}}, "is not JSON"),
        ({"name": "lone \ud800 surrogate"}, "is not JSON"),
        ({"blob": "x" * MAX_DOCUMENT_CHARS}, "the most is 65536"),
    ],
)
def test_events_that_cannot_be_kept_are_refused(store: Store, event: Any, message: str) -> None:
    match = store.create_match({})
    with pytest.raises(InvalidRecord, match=message):
        store.append(match.id, 0, event)
    with pytest.raises(InvalidRecord, match=message.replace("event", "match settings")):
        store.create_match(event)
    assert store.last_seq(match.id) == 0


@pytest.mark.parametrize(
    ("after_seq", "key", "message"),
    [
        (-1, None, "after_seq must be a whole number"),
        (True, None, "after_seq must be a whole number"),
        ("0", None, "after_seq must be a whole number"),
        (0, "", "idempotency key must be"),
        (0, "has space", "idempotency key must be"),
        (0, "k" * 129, "idempotency key must be"),
        (0, 42, "idempotency key must be"),
    ],
)
def test_bad_append_arguments_are_refused(store: Store, after_seq: Any, key: Any, message: str) -> None:
    match = store.create_match({})
    with pytest.raises(InvalidRecord, match=message):
        store.append(match.id, after_seq, {"type": "go"}, idempotency_key=key)
    assert store.last_seq(match.id) == 0


def test_errors_share_one_base() -> None:
    for error in (MatchNotFound, StaleAppend, StoreUnavailable, InvalidRecord):
        assert issubclass(error, StoreError)
    assert issubclass(InvalidRecord, ValueError)
    assert issubclass(MatchNotFound, LookupError)


def test_schema_itself_enforces_one_event_per_seq_and_key(store: Store, db_url: str) -> None:
    """The sequence check rests on these constraints, whatever code writes to the tables."""
    match = store.create_match({})
    engine = sa.create_engine(db_url)
    row = {"match_id": match.id, "event": "{}", "created_at": datetime.now(UTC)}
    try:
        with engine.begin() as conn:  # NULL keys never collide
            conn.execute(events_table.insert(), [{**row, "seq": 1, "idempotency_key": None},
                                                 {**row, "seq": 2, "idempotency_key": None}])
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(events_table.insert().values(**row, seq=2, idempotency_key="fresh"))
        with engine.begin() as conn:
            conn.execute(events_table.insert().values(**row, seq=3, idempotency_key="once"))
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(events_table.insert().values(**row, seq=4, idempotency_key="once"))
    finally:
        engine.dispose()
    assert store.last_seq(match.id) == 3


def test_create_schema_is_idempotent(store: Store) -> None:
    match = store.create_match({"kept": True})
    store.create_schema()
    store.create_schema()
    assert store.get_match(match.id).settings == {"kept": True}
    assert store.healthy()


# --- concurrency and durability ---------------------------------------------------------------


def test_two_concurrent_writers_lose_nothing_and_double_nothing(db_url: str) -> None:
    with Store(db_url) as setup:
        setup.create_schema()
        match_id = setup.create_match({}).id
    stale_refusals = Counter[str]()

    def write(name: str) -> None:
        # Each writer is its own Store (its own connections), like two server processes.
        with Store(db_url) as mine:
            for n in range(CONCURRENT_EVENTS_PER_WRITER):
                while True:
                    try:
                        mine.append(match_id, mine.last_seq(match_id), {"writer": name, "n": n})
                        break
                    except StaleAppend:
                        stale_refusals[name] += 1

    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(write, "north"), pool.submit(write, "south")]:
            done.result()

    with Store(db_url) as check:
        stored = check.events(match_id)
    total = 2 * CONCURRENT_EVENTS_PER_WRITER
    assert [e.seq for e in stored] == list(range(1, total + 1))
    written = Counter((e.event["writer"], e.event["n"]) for e in stored)
    expected = {(name, n) for name in ("north", "south") for n in range(CONCURRENT_EVENTS_PER_WRITER)}
    assert set(written) == expected
    assert max(written.values()) == 1
    for name in ("north", "south"):  # each writer's own events keep the order it wrote them
        mine = [e.event["n"] for e in stored if e.event["writer"] == name]
        assert mine == list(range(CONCURRENT_EVENTS_PER_WRITER))


def test_acknowledged_events_survive_sigkill(db_url: str) -> None:
    with Store(db_url) as setup:
        setup.create_schema()
        match_id = setup.create_match({}).id
    writer = subprocess.Popen(
        [sys.executable, str(WRITER_SCRIPT), db_url, match_id, "1000000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert writer.stdout is not None and writer.stderr is not None
    acknowledged: list[int] = []
    try:
        for line in writer.stdout:
            acknowledged.append(int(line))
            if len(acknowledged) >= ACKS_BEFORE_KILL:
                break
        writer.send_signal(signal.SIGKILL)
        writer.wait(SUBPROCESS_WAIT_S)
        # Read the rest through the same file objects: the loop above may have buffered lines
        # past the one it stopped at, which communicate() (raw reads of the pipe) would drop.
        rest = writer.stdout.read()
        errors = writer.stderr.read()
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(SUBPROCESS_WAIT_S)
        writer.stdout.close()
        writer.stderr.close()
    assert writer.returncode == -signal.SIGKILL, f"writer ended by itself: {errors}"
    acknowledged += [int(line) for line in rest.split()]  # printed before the kill, read after
    assert len(acknowledged) >= ACKS_BEFORE_KILL
    assert acknowledged == list(range(1, len(acknowledged) + 1))

    with Store(db_url) as after:
        stored = after.events(match_id)
    seqs = [e.seq for e in stored]
    assert seqs == list(range(1, len(seqs) + 1))
    # Every acknowledged event is there; at most the one in flight at the kill got in unannounced.
    assert len(acknowledged) <= len(seqs) <= len(acknowledged) + 1
    assert all(e.event == {"writer": "store_writer", "n": e.seq} for e in stored)


@pytest.mark.postgres
@pytest.mark.parametrize("kind", ["distinct-events", "one-event-retried", "key-reused"])
def test_postgres_unique_constraint_decides_a_race(pg_fresh_url: str, kind: str) -> None:
    """Both writers read last seq 0 before either inserts; the constraint lets exactly one in."""
    with Store(pg_fresh_url) as setup:
        setup.create_schema()
        match_id = setup.create_match({}).id
    both_have_read = threading.Barrier(2, timeout=RACE_BARRIER_S)

    def wait_for_the_other(current: list[StoredEvent]) -> None:
        assert current == []
        both_have_read.wait()

    def write(name: str) -> AppendResult | StoreError:
        key = f"key-{name}" if kind == "distinct-events" else "retry-7"
        event = {"by": "both"} if kind == "one-event-retried" else {"by": name}
        with Store(pg_fresh_url) as mine:
            try:
                return mine.append(match_id, 0, event, idempotency_key=key, validate=wait_for_the_other)
            except (StaleAppend, KeyReused) as refused:
                return refused

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(write, ["east", "west"]))

    with Store(pg_fresh_url) as check:
        stored = check.events(match_id)
    assert [e.seq for e in stored] == [1]
    if kind == "one-event-retried":  # a key names one event: the retry is told where it landed
        assert sorted(results, key=repr) == [AppendResult(seq=1, duplicate=False),
                                             AppendResult(seq=1, duplicate=True)]
        return
    winner = stored[0].event["by"]
    loser = results[["east", "west"].index(winner) ^ 1]
    assert results[["east", "west"].index(winner)] == AppendResult(seq=1, duplicate=False)
    if kind == "key-reused":  # the same key with another event is refused, not taken for a retry
        assert isinstance(loser, KeyReused) and loser.seq == 1
    else:
        assert isinstance(loser, StaleAppend)
        assert loser.last_seq == 1
        assert payloads(loser.fresh) == [{"by": winner}]


# --- an unavailable database ------------------------------------------------------------------


@pytest.fixture
def sqlite_match(tmp_path: Path) -> tuple[Path, str]:
    """An SQLite file holding one match with one event, and that match's id."""
    path = tmp_path / "matches.db"
    with Store.from_path(path) as setup:
        setup.create_schema()
        match_id = setup.create_match({}).id
        setup.append(match_id, 0, {"type": "deal"})
    return path, match_id


def test_a_read_only_database_reads_but_refuses_writes_clearly(sqlite_match: tuple[Path, str]) -> None:
    path, match_id = sqlite_match
    with Store(sqlite_url(path, read_only=True)) as read_only:
        assert payloads(read_only.events(match_id)) == [{"type": "deal"}]
        refusal = "is unavailable: attempt to write a readonly database"
        with pytest.raises(StoreUnavailable, match=refusal) as info:
            read_only.append(match_id, 1, {"type": "go"})
        assert str(path) in str(info.value)
        with pytest.raises(StoreUnavailable, match="readonly"):
            read_only.create_match({})
        assert not read_only.healthy()
    with Store.from_path(path) as writable:
        assert writable.healthy()
        assert writable.last_seq(match_id) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions; see the mode=ro test")
def test_a_write_protected_file_is_unavailable(sqlite_match: tuple[Path, str]) -> None:
    path, match_id = sqlite_match
    folder_mode = path.parent.stat().st_mode
    protected = [path.parent, *path.parent.glob("matches.db*")]
    for item in protected[1:]:
        item.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    path.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        with Store.from_path(path) as locked_out:
            with pytest.raises(StoreUnavailable, match="is unavailable"):
                locked_out.append(match_id, 1, {"type": "go"})
            assert not locked_out.healthy()
    finally:
        path.parent.chmod(folder_mode)
        for item in protected[1:]:
            item.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_a_database_locked_too_long_is_unavailable(sqlite_match: tuple[Path, str]) -> None:
    path, match_id = sqlite_match
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with Store.from_path(path, lock_timeout_s=0.2) as blocked:
            with pytest.raises(StoreUnavailable, match=r"database is locked \(waited 0.2 s for the lock\)"):
                blocked.append(match_id, 1, {"type": "go"})
            assert not blocked.healthy()
            assert blocked.last_seq(match_id) == 1  # WAL readers are not blocked by the writer
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Store.from_path(path) as free:
        assert free.append(match_id, 1, {"type": "go"}) == AppendResult(seq=2, duplicate=False)


def test_a_writer_waits_for_a_lock_released_in_time(sqlite_match: tuple[Path, str]) -> None:
    path, match_id = sqlite_match
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        with Store.from_path(path, lock_timeout_s=30) as patient:
            assert patient.append(match_id, 1, {"type": "go"}) == AppendResult(seq=2, duplicate=False)
    finally:
        release.join()
        holder.close()


def test_a_missing_folder_is_unavailable(tmp_path: Path) -> None:
    with Store.from_path(tmp_path / "no-such-folder" / "matches.db") as nowhere:
        with pytest.raises(StoreUnavailable, match="unable to open database file"):
            nowhere.create_schema()
        assert not nowhere.healthy()


def test_tables_not_created_yet_is_unavailable(db_url: str) -> None:
    with Store(db_url) as bare:
        assert not bare.healthy()
        with pytest.raises(StoreUnavailable, match="matches"):
            bare.create_match({})


def test_an_unreachable_server_is_unavailable() -> None:
    # Port 1 on the loopback: nothing listens there, so the connection is refused at once.
    with Store("postgresql+psycopg://app@127.0.0.1:1/postgres") as unreachable:
        with pytest.raises(StoreUnavailable, match="is unavailable"):
            unreachable.get_match("x" * 32)
        assert not unreachable.healthy()


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "mysql://db/matches"])
def test_urls_the_store_cannot_serve_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"in-memory SQLite|unsupported database"):
        Store(url)


def test_module_example_runs() -> None:
    result = doctest.testmod(store_module)
    assert result.attempted > 0
    assert result.failed == 0


def test_sqlite_connections_use_wal_and_full_sync(tmp_path: Path) -> None:
    """The durability the module promises: WAL, a sync at every commit, enforced foreign keys."""
    with Store.from_path(tmp_path / "matches.db", lock_timeout_s=2.5) as opened:
        opened.create_schema()
        with opened._engine.connect() as conn:
            pragmas = {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                       for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")}
    assert pragmas == {"journal_mode": "wal", "synchronous": 2, "foreign_keys": 1, "busy_timeout": 2500}


def test_create_schema_from_several_workers_at_once(db_url: str) -> None:
    """Several server processes may start together; each creates the schema, none fails."""
    start_together = threading.Barrier(4, timeout=RACE_BARRIER_S)

    def start_worker(_: int) -> bool:
        with Store(db_url) as worker:
            start_together.wait()
            worker.create_schema()
            return worker.healthy()

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(start_worker, range(4))) == [True] * 4


# --- pruning matches never played -------------------------------------------------------------


class Clock:
    """A UTC clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_matches_never_played_go_after_a_day(db_url: str) -> None:
    clock = Clock()
    with Store(db_url, clock=clock) as store:
        store.create_schema()
        unplayed = store.create_match({"n": 1})  # this first create prunes (nothing yet)
        played = store.create_match({"n": 2})
        store.append(played.id, 0, {"type": "starter", "card": None})
        undone = store.create_match({"n": 3})  # an event later undone still counts as played
        store.append(undone.id, 0, {"type": "starter", "card": None})
        store.append(undone.id, 1, {"type": "void", "seq": 1})
        clock.now += timedelta(hours=23)
        recent = store.create_match({"n": 4})
        assert store.prune_unplayed() == 0  # nothing is a day old yet
        clock.now += timedelta(hours=1, seconds=1)
        assert store.prune_unplayed() == 1
        with pytest.raises(MatchNotFound):
            store.get_match(unplayed.id)
        with pytest.raises(MatchNotFound):
            store.by_link(unplayed.viewer_id)
        for kept in (played, undone, recent):
            assert store.get_match(kept.id) == kept
        assert store.prune_unplayed() == 0
        clock.now += timedelta(days=1)
        assert store.prune_unplayed() == 1  # recent, now a day old too
        assert [e.seq for e in store.events(undone.id)] == [1, 2]


def test_creating_a_match_prunes_at_most_once_an_hour(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    with Store(db_url, clock=clock) as store:
        store.create_schema()
        old = store.create_match({})  # the first create in this process prunes (nothing yet)
        clock.now += timedelta(days=2)
        store.create_match({})  # within the hour (of the process's own clock): no prune
        assert store.get_match(old.id) == old
        monkeypatch.setattr(store_module.time, "monotonic", lambda: 1e12)  # an hour on, and more
        store.create_match({})
        with pytest.raises(MatchNotFound):
            store.get_match(old.id)


def test_python_m_store_prune(tmp_path: Path) -> None:
    db = tmp_path / "matches.db"
    clock = Clock()
    clock.now = datetime.now(UTC) - timedelta(days=3)
    with Store.from_path(db) as store:
        store.create_schema()
    with Store(sqlite_url(db), clock=clock) as store:
        store._next_prune = float("inf")  # keep the creates from pruning
        gone, kept = store.create_match({}), store.create_match({})
        store.append(kept.id, 0, {"type": "starter", "card": None})
    run = subprocess.run([sys.executable, "-m", "store", "prune", "--url", sqlite_url(db)],
                         capture_output=True, text=True, cwd=Path(__file__).parent.parent, check=False)
    assert run.returncode == 0 and run.stdout == "removed 1 match never played\n", run.stderr
    with Store.from_path(db) as store:
        assert store.get_match(kept.id) == kept
        with pytest.raises(MatchNotFound):
            store.get_match(gone.id)
    run = subprocess.run([sys.executable, "-m", "store", "prune", "--older-than-hours", "-1", "--url",
                          sqlite_url(db)], capture_output=True, text=True,
                         cwd=Path(__file__).parent.parent, check=False)
    assert run.returncode == 2 and "--older-than-hours must be 0 or more" in run.stderr


def test_the_served_app_prunes_at_start(tmp_path: Path) -> None:
    from bench.bench_load import Server, free_port

    db = tmp_path / "matches.sqlite"
    clock = Clock()
    clock.now = datetime.now(UTC) - timedelta(days=1, minutes=1)
    with Store(sqlite_url(db), clock=clock) as store:
        store.create_schema()
        gone, kept = store.create_match({}), store.create_match({})
        store.append(kept.id, 0, {"type": "starter", "card": None})
    server = Server("waitress", sqlite_url(db), tmp_path / "instance", free_port(), 1, tmp_path / "log")
    server.start()
    server.stop()
    with Store.from_path(db) as store:
        assert store.get_match(kept.id) == kept
        with pytest.raises(MatchNotFound):
            store.get_match(gone.id)


def test_an_append_known_behind_is_settled_without_the_write_lock(sqlite_match: tuple[Path, str]) -> None:
    path, match_id = sqlite_match
    with Store.from_path(path, lock_timeout_s=0.2) as store:
        store.append(match_id, 1, {"type": "go"}, idempotency_key="k-2")
        lock = sqlite3.connect(path, isolation_level=None, timeout=0)
        lock.execute("BEGIN IMMEDIATE")  # another writer holds the write lock throughout
        try:
            with pytest.raises(StaleAppend, match="the match is at seq 2"):
                store.append(match_id, 0, {"type": "deal"}, behind=True, read_fresh=False)
            assert store.append(match_id, 1, {"type": "go"}, idempotency_key="k-2",
                                behind=True) == AppendResult(2, duplicate=True)
            with pytest.raises(KeyReused):
                store.append(match_id, 1, {"type": "stop"}, idempotency_key="k-2", behind=True)
            with pytest.raises(StoreUnavailable):  # a caller wrong about being behind must write
                store.append(match_id, 2, {"type": "deal"}, behind=True)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert store.append(match_id, 2, {"type": "deal"}, behind=True) == AppendResult(3, duplicate=False)
