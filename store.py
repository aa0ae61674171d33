"""Matches and their events in SQL: an append-only log per match, guarded by a sequence check.

A match is a row in ``matches`` (its settings, a secret scorer id, a separate viewer id) and an
append-only list of rows in ``events``, numbered ``seq`` = 1, 2, 3 … per match. The store keeps
settings and events as opaque JSON objects; what they mean is ``scorer.match``'s business.

Concurrency. Every append names the ``seq`` it follows. Inside one short transaction the store
reads the match's last ``seq`` (one index lookup), refuses a stale one with
:class:`StaleAppend`, and inserts ``seq = after_seq + 1``: it never reads the log, so an append
costs the same however long the match is. Checking that the event fits the match is the
caller's, before the transaction, on its own replay of the events up to ``after_seq`` (see
``web.matches.store_event``); that check holds because the log only grows, so the events the
insert follows are exactly those it was checked against. (A ``validate`` callback can still be
given to see the whole log inside the transaction, for callers without a replay.) The primary
key ``(match_id, seq)`` is what makes this safe: of two writers that both read the same last
``seq``, the database lets exactly one insert; the other gets an integrity error, which becomes
:class:`StaleAppend`. On SQLite appends also take the write lock up front (``BEGIN
IMMEDIATE``), so writers queue instead of failing; a lock still busy after ``lock_timeout_s``
(or a database file that cannot be written) is :class:`StoreUnavailable`, which the web layer
turns into a 503.

Retries. An append may carry an ``idempotency_key``, and a key names one event: a second append
with a key already stored for the match with the same event (the same JSON object) inserts
nothing and answers the first one's ``seq`` with ``duplicate=True``, so a client that retries
after a timeout never doubles an event; the key with any other event is :class:`KeyReused`, and
nothing is stored, so a second tap is never mistaken for a retry of the first. (A connection
lost during COMMIT leaves the caller unsure whether the event was stored; the key makes
retrying safe either way.)

Ids. Scorer and viewer ids are independent random tokens, so one link never reveals the other.
A lookup lets the database's index find the row, then confirms the exact id in constant time.
:meth:`Store.by_link` takes either id and answers which it was and the match's last ``seq`` in
one query: all a poll needs to say "nothing new", and all a page needs to find its cached replay.

Durability. An append returns only after its transaction committed. SQLite runs in WAL mode with
``synchronous=FULL``: each commit syncs the write-ahead log to disk, so an acknowledged event
survives both a killed process and a power cut. (``NORMAL`` would also survive a killed process,
since a committed WAL frame is in the OS's file cache, but could lose the last commits on power
loss; appends come at the pace of card players, so the extra sync costs nothing that matters.)
PostgreSQL commits are durable by the server's own settings.

>>> import pathlib, shutil, tempfile
>>> folder = tempfile.mkdtemp()
>>> store = Store.from_path(pathlib.Path(folder, "matches.db"))
>>> store.create_schema()
>>> match = store.create_match({"players": ["Ann", "Bob"]})
>>> store.append(match.id, 0, {"type": "deal", "dealer": "Ann"})
AppendResult(seq=1, duplicate=False)
>>> store.append(match.id, 0, {"type": "deal", "dealer": "Bob"})
Traceback (most recent call last):
store.StaleAppend: append after seq 0 is stale: the match is at seq 1
>>> [e.event["dealer"] for e in store.events(match.id)]
['Ann']
>>> store.close(); shutil.rmtree(folder)
"""

from __future__ import annotations

import hmac
import json
import random
import re
import secrets
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

__all__ = [
    "Store", "MatchRecord", "LinkedMatch", "StoredEvent", "AppendResult", "JSONObject", "matches_table",
    "events_table", "StoreError", "MatchNotFound", "StaleAppend", "KeyReused", "StoreUnavailable",
    "InvalidRecord",
    "ID_BYTES", "MAX_ID_CHARS", "MAX_DOCUMENT_CHARS", "MAX_IDEMPOTENCY_KEY_CHARS",
    "DEFAULT_LOCK_TIMEOUT_S", "PG_POOL_RECYCLE_S", "MIGRATIONS", "BASELINE_REVISION", "HEAD_REVISION",
    "schema_metadata",
    "schema_revision", "UNPLAYED_MATCH_TTL", "PRUNE_EVERY_S", "main",
    "GroupRecord", "LinkedGroup", "GroupNotFound", "AlreadyStored", "GroupMatch", "MatchExport",
    "groups_table", "group_matches_table", "match_summaries_table", "MAX_ROSTER",
    "Upload", "KeptMatch", "uploads_table", "MAX_LINK_CHARS",
]

JSONObject = dict[str, Any]
_T = TypeVar("_T")

ID_BYTES: Final = 24
"""Random bytes in a match or viewer id: 192 bits (32 URL-safe characters), far past the 128
bits that make a link unguessable."""
MAX_ID_CHARS: Final = 64
"""Longest id the store will look up (column width); anything longer cannot be one of ours."""
MAX_DOCUMENT_CHARS: Final = 65_536
"""Largest settings or single event, in characters of JSON: real events are a few hundred, so
this only stops one request from bloating a match's history."""
MAX_IDEMPOTENCY_KEY_CHARS: Final = 128
"""Longest idempotency key: clients send a UUID (36 characters); the cap bounds the index."""
DEFAULT_LOCK_TIMEOUT_S: Final = 5.0
"""Seconds an SQLite writer waits for the write lock before the store reports itself
unavailable. An append holds the lock for milliseconds, so a wait this long means something
else holds the database."""
UNPLAYED_MATCH_TTL: Final = timedelta(days=1)
"""A match that got no event within this long after it was made is deleted: a link opened by
mistake or a test, never played. Nobody can have scored in it, so nothing of value goes."""
PRUNE_EVERY_S: Final = 3600.0
"""Creating a match prunes unplayed ones at most this often (seconds) in each process."""
_BACKOFF_FIRST_S: Final = 0.002
"""First pause before retrying a busy SQLite database (seconds); doubled after each try."""
_BACKOFF_MAX_S: Final = 0.05
"""Longest pause between retries (seconds), so a waiting writer notices a free lock quickly."""
_SQLITE_BUSY: Final = 5
_SQLITE_LOCKED: Final = 6
"""Primary SQLite result codes meaning "another connection holds a lock": worth a retry."""
PG_POOL_RECYCLE_S: Final = 300
"""Age (seconds) at which a pooled PostgreSQL connection is replaced when next checked out, below
the idle timeouts of common load balancers and NAT tables (350 s and up), so a connection they
dropped in silence is rarely found dead. One that is (a restarted server) costs one retry."""
_PG_SCHEMA_LOCK: Final = 0x6D756767
"""Advisory lock key ("mugg") serialising concurrent ``create_schema`` calls on PostgreSQL."""
_WRITE_OPTION: Final = "muggins_write"
"""Execution option marking a connection whose transaction will write (``BEGIN IMMEDIATE``)."""

MIGRATIONS: Final = Path(__file__).resolve().parent / "migrations"
"""The Alembic migrations ``create_schema`` applies."""
BASELINE_REVISION: Final = "0001_baseline"
"""The revision equal to the schema b66276b made without migrations."""
HEAD_REVISION: Final = "0004_uploads"
"""The newest migration (a test checks it is Alembic's head): a database already there starts
without loading Alembic at all, which would add a quarter of a second to every worker's start."""

_ID_SHAPE: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_ID_CHARS}}}")
_KEY_SHAPE: Final = re.compile(rf"[\x21-\x7e]{{1,{MAX_IDEMPOTENCY_KEY_CHARS}}}")

_metadata = sa.MetaData()

matches_table = sa.Table(
    "matches",
    _metadata,
    sa.Column("id", sa.String(MAX_ID_CHARS), primary_key=True),
    sa.Column("viewer_id", sa.String(MAX_ID_CHARS), nullable=False, unique=True),
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_matches_created_at", "created_at"),  # pruning reads only the old matches
)

events_table = sa.Table(
    "events",
    _metadata,
    sa.Column("match_id", sa.String(MAX_ID_CHARS), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("event", sa.Text, nullable=False),
    # NULL keys never collide with each other (SQL NULLs are distinct on both backends).
    sa.Column("idempotency_key", sa.String(MAX_IDEMPOTENCY_KEY_CHARS), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("match_id", "idempotency_key", name="uq_events_idempotency_key"),
    sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
)


MAX_ROSTER: Final = 64
"""Most players a group's roster keeps: a club, not a city."""

groups_table = sa.Table(
    "groups",
    _metadata,
    sa.Column("id", sa.String(MAX_ID_CHARS), primary_key=True),
    sa.Column("viewer_id", sa.String(MAX_ID_CHARS), nullable=False, unique=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("roster", sa.Text, nullable=False),  # JSON list of names, in the order they joined
    sa.Column("rules", sa.Text, nullable=False),  # JSON object: the house rules new matches start with
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

group_matches_table = sa.Table(
    "group_matches",
    _metadata,
    # A match belongs to one group at most; a pruned (never played) match leaves its group with it.
    sa.Column("match_id", sa.String(MAX_ID_CHARS), sa.ForeignKey("matches.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("group_id", sa.String(MAX_ID_CHARS), sa.ForeignKey("groups.id"), nullable=False),
    sa.Index("ix_group_matches_group_id", "group_id"),
)

match_summaries_table = sa.Table(
    "match_summaries",
    _metadata,
    # What a match adds to its group's records (scorer.records), as of event ``seq``: a cache,
    # rebuilt from the events whenever the match has moved on or the summary's version changed.
    sa.Column("match_id", sa.String(MAX_ID_CHARS), sa.ForeignKey("matches.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
)

MAX_LINK_CHARS: Final = 2048
"""Longest share link an upload may record: a server's address and a match id are far shorter."""

uploads_table = sa.Table(
    "uploads",
    _metadata,
    # Where a match kept on a phone (the offline app's own store) was uploaded: the server's links
    # and the seq the uploaded copy ended at. Never exported: it says where this copy went, not
    # what the match is, so an export (and a retried upload) stays the same bytes.
    sa.Column("match_id", sa.String(MAX_ID_CHARS), sa.ForeignKey("matches.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("scorer_url", sa.Text, nullable=False),
    sa.Column("viewer_url", sa.Text, nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
)


class StoreError(Exception):
    """Base of every error the store raises.

    Only :class:`InvalidRecord` is also a ``ValueError`` (bad input): a missing match, a stale
    append and an outage each call for their own HTTP status (404, 409, 503), which a blanket
    ``except ValueError`` in the web layer must not swallow as a 400.
    """


class MatchNotFound(StoreError, LookupError):
    """No match has the given id (or viewer id)."""


class StaleAppend(StoreError):
    """An append named a ``seq`` that is no longer the match's last: someone else wrote first.

    ``last_seq`` is the match's last ``seq`` when the append was refused. ``fresh`` is the match's
    whole event list, read after the refused append's transaction ended (so it may hold even
    later events), or ``None`` when the caller asked not to have it read (``read_fresh=False``:
    a caller that keeps its own replay refuses a stale append without reading the log).
    """

    def __init__(self, last_seq: int, after_seq: int, fresh: list[StoredEvent] | None = None) -> None:
        super().__init__(f"append after seq {after_seq} is stale: the match is at seq {last_seq}")
        self.last_seq = last_seq
        self.after_seq = after_seq
        self.fresh = fresh


class KeyReused(StoreError):
    """An append's idempotency key is already stored for the match with a different event.

    A key names one event: the same event again is a retry (``duplicate``), another event under
    it is refused and nothing is stored. ``seq`` is where the key's own event is.
    """

    def __init__(self, key: str, seq: int) -> None:
        super().__init__(f"idempotency key {_clip(key)} already names event #{seq}, a different event; "
                         "nothing was stored: send a new key with each new event")
        self.key = key
        self.seq = seq


class StoreUnavailable(StoreError):
    """The database cannot be reached, is locked for too long, or cannot be written."""


class InvalidRecord(StoreError, ValueError):
    """Settings, an event or an idempotency key the store cannot keep as given."""


class GroupNotFound(StoreError, LookupError):
    """No group has the given id (or viewer id)."""


class AlreadyStored(StoreError, ValueError):
    """An import names a group or match id this database already holds: nothing was stored."""


@dataclass(frozen=True, slots=True)
class GroupRecord:
    """A group as stored: scorer id, viewer id, name, roster, house rules, creation time."""

    id: str
    viewer_id: str
    name: str
    roster: list[str]
    rules: JSONObject
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LinkedGroup:
    """A group found by one of its links, and whether that link was its scorer id."""

    record: GroupRecord
    scorer: bool


@dataclass(frozen=True, slots=True)
class GroupMatch:
    """One match of a group with its last ``seq`` and its stored summary (text, the seq and
    version it was made at; None when none is stored)."""

    record: MatchRecord
    last_seq: int
    summary: str | None
    summary_seq: int | None
    summary_version: int | None


@dataclass(frozen=True, slots=True)
class MatchExport:
    """A match and its whole log, as an export holds it."""

    record: MatchRecord
    events: list[StoredEvent]


@dataclass(frozen=True, slots=True)
class Upload:
    """Where a match was uploaded: the server's scoring and watching links, the last ``seq`` of
    the copy uploaded, and when."""

    scorer_url: str
    viewer_url: str
    seq: int
    uploaded_at: datetime


@dataclass(frozen=True, slots=True)
class KeptMatch:
    """A match in this store's list: its record, its last ``seq``, and its upload (None if none)."""

    record: MatchRecord
    last_seq: int
    upload: Upload | None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match as stored: scorer id, viewer id, settings and creation time (UTC)."""

    id: str
    viewer_id: str
    settings: JSONObject
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LinkedMatch:
    """A match found by one of its links: its record, whether the link was the scorer id (not
    the viewer id), and the ``seq`` of its last event (0 when it has none)."""

    record: MatchRecord
    scorer: bool
    last_seq: int


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event of a match's log, with its place in the sequence."""

    seq: int
    event: JSONObject
    created_at: datetime
    idempotency_key: str | None


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Where an append landed; ``duplicate`` when its idempotency key was already stored."""

    seq: int
    duplicate: bool


class Store:
    """Matches and their event logs in an SQLite file or a PostgreSQL database."""

    def __init__(
        self, url: str, *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
        clock: Callable[[], datetime] | None = None, **engine_kwargs: Any
    ) -> None:
        """Connect lazily to ``url`` (``sqlite:///path`` or ``postgresql+psycopg://…``).

        ``clock`` gives the current UTC time for creation times and pruning (tests pass their own).
        """
        parsed = sa.make_url(url)
        self._backend = parsed.get_backend_name()
        if self._backend not in ("sqlite", "postgresql"):
            raise ValueError(f"unsupported database {parsed.drivername!r} in {_safe_url(parsed)}")
        if self._backend == "sqlite" and _sqlite_in_memory(parsed):
            # Each pooled connection would see its own empty database.
            raise ValueError(f"in-memory SQLite cannot hold matches across connections: {url!r}")
        if not lock_timeout_s > 0:
            raise ValueError(f"lock_timeout_s must be positive, not {lock_timeout_s!r}")
        self._lock_timeout_s = lock_timeout_s
        self._clock = clock or _now
        self._next_prune = 0.0  # time.monotonic() after which create_match prunes again
        self._where = _safe_url(parsed)
        self._random = random.Random()
        # SQLite lets one writer in at a time, and a writer that finds the lock taken sleeps in
        # SQLite's busy handler (steps up to 100 ms) whoever frees it. The threads of one process
        # queue here instead, so each write starts the moment the one before commits; other
        # processes on the same file still meet the busy handler.
        self._write_lock: threading.Lock | None = threading.Lock() if self._backend == "sqlite" else None
        if self._backend == "postgresql":
            # No ping before every checkout (a round trip per transaction): old connections are
            # recycled, and one the server dropped anyway is retried once by _run.
            engine_kwargs.setdefault("pool_recycle", PG_POOL_RECYCLE_S)
        self._engine: Engine = sa.create_engine(parsed, **engine_kwargs)
        if self._backend == "sqlite":
            sa.event.listen(self._engine, "connect", self._sqlite_connect)
            sa.event.listen(self._engine, "begin", _sqlite_begin)

    @classmethod
    def from_path(cls, path: str | Path, *, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> Self:
        """A store in the SQLite file at ``path`` (created by :meth:`create_schema`)."""
        url = sa.URL.create("sqlite", database=str(path))
        return cls(url.render_as_string(), lock_timeout_s=lock_timeout_s)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def create_schema(self) -> None:
        """Bring the schema up to date by applying the Alembic migrations (``migrations/``) in
        one transaction; safe to call from several processes at once.

        An empty database gets every migration. A database made before migrations existed
        (the tables of b66276b, no ``alembic_version``) is first stamped at the baseline, which
        is exactly that schema, then upgraded.
        """

        def work(conn: Connection) -> None:
            if self._backend == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
            _migrate(conn)

        self._run(work, write=True)

    def create_match(self, settings: JSONObject) -> MatchRecord:
        """Store a new match with fresh unguessable scorer and viewer ids."""
        text = _dump(settings, "match settings")
        record = MatchRecord(
            id=secrets.token_urlsafe(ID_BYTES),
            viewer_id=secrets.token_urlsafe(ID_BYTES),
            settings=json.loads(text),
            created_at=self._clock(),
        )
        # Creating is when unplayed matches pile up, so it prunes them too, at most once per
        # PRUNE_EVERY_S in each process: one indexed delete of the old rows, in the same commit.
        prune = time.monotonic() >= self._next_prune

        def work(conn: Connection) -> None:
            if prune:
                _prune(conn, record.created_at - UNPLAYED_MATCH_TTL)
            conn.execute(
                matches_table.insert().values(
                    id=record.id, viewer_id=record.viewer_id, settings=text, created_at=record.created_at
                )
            )

        self._run(work, write=True)
        if prune:
            self._next_prune = time.monotonic() + PRUNE_EVERY_S
        return record

    def prune_unplayed(self, older_than: timedelta = UNPLAYED_MATCH_TTL) -> int:
        """Delete the matches created more than ``older_than`` ago that never got an event; how
        many. A match with any event, even one undone, is kept for ever."""

        def work(conn: Connection) -> int:
            return _prune(conn, self._clock() - older_than)

        return self._run(work, write=True)

    def get_match(self, match_id: str) -> MatchRecord:
        """The match whose scorer id is ``match_id``; :class:`MatchNotFound` if none."""
        return self._run(lambda conn: _find_match(conn, matches_table.c.id, match_id), write=False)

    def by_viewer(self, viewer_id: str) -> MatchRecord:
        """The match whose viewer id is ``viewer_id``; :class:`MatchNotFound` if none."""
        return self._run(lambda conn: _find_match(conn, matches_table.c.viewer_id, viewer_id), write=False)

    def by_link(self, token: str) -> LinkedMatch:
        """The match whose scorer id or viewer id is ``token``, with its last ``seq``, read in one
        query; :class:`MatchNotFound` if neither."""
        return self._run(lambda conn: _find_link(conn, token), write=False)

    def events(self, match_id: str, after: int = 0) -> list[StoredEvent]:
        """The match's events with ``seq > after``, in order."""
        _check_seq(after, "after")

        def work(conn: Connection) -> list[StoredEvent]:
            _require_match(conn, match_id)
            return _events(conn, match_id, after)

        return self._run(work, write=False)

    def last_seq(self, match_id: str) -> int:
        """The ``seq`` of the match's last event, 0 when it has none."""

        def work(conn: Connection) -> int:
            _require_match(conn, match_id)
            return _last_seq(conn, match_id)

        return self._run(work, write=False)

    def append(
        self,
        match_id: str,
        after_seq: int,
        event: JSONObject,
        idempotency_key: str | None = None,
        validate: Callable[[list[StoredEvent]], None] | None = None,
        *,
        read_fresh: bool = True,
        behind: bool = False,
    ) -> AppendResult:
        """Store ``event`` as ``after_seq + 1``, if ``after_seq`` is still the match's last ``seq``.

        A key already stored with this very event answers where it landed (``duplicate``).
        Raises :class:`KeyReused` when the key is stored with another event, :class:`StaleAppend`
        when ``after_seq`` is not the last ``seq``, :class:`MatchNotFound` for an unknown match,
        and whatever ``validate`` raises when it refuses the event given the current events;
        nothing is stored in any of these cases. Without ``validate`` the transaction never
        reads the log, so its cost does not grow with the match.

        ``behind``: the caller has seen the match past ``after_seq``, so the append can only be a
        retry or stale. It is settled in a read transaction, without SQLite's write lock, so a
        phone hammering a busy match with stale appends does not queue the other tables'
        writers behind it (it falls back to a write should the caller be wrong).
        """
        _check_seq(after_seq, "after_seq")
        text = _dump(event, "event")
        if idempotency_key is not None and not (
            isinstance(idempotency_key, str) and _KEY_SHAPE.fullmatch(idempotency_key)
        ):
            raise InvalidRecord(
                f"idempotency key must be 1 to {MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters "
                f"without spaces, not {_clip(idempotency_key)}"
            )

        def settle(conn: Connection) -> AppendResult | None:
            last = _require_match_last_seq(conn, match_id)
            duplicate = _seq_for_key(conn, match_id, idempotency_key, text)
            if duplicate is not None:
                return AppendResult(seq=duplicate, duplicate=True)
            if last != after_seq:
                raise StaleAppend(last, after_seq)
            return None

        def work(conn: Connection) -> AppendResult:
            # The write transaction reads two index entries and inserts one row, however long the
            # log: the caller checks the event against its own replay before (see web.matches).
            last = _require_match_last_seq(conn, match_id)
            duplicate = _seq_for_key(conn, match_id, idempotency_key, text)
            if duplicate is not None:
                return AppendResult(seq=duplicate, duplicate=True)
            if last != after_seq:
                raise StaleAppend(last, after_seq)
            if validate is not None:  # the caller asked to see the log inside the transaction
                validate(_events(conn, match_id, 0))
            conn.execute(
                events_table.insert().values(
                    match_id=match_id, seq=after_seq + 1, event=text,
                    idempotency_key=idempotency_key, created_at=self._clock(),
                )
            )
            return AppendResult(seq=after_seq + 1, duplicate=False)

        # Another writer committed between our read and our insert: the same seq (we are stale)
        # or the same idempotency key (a concurrent retry of this very event, or a reused key).

        def after_conflict(conn: Connection) -> AppendResult:
            duplicate = _seq_for_key(conn, match_id, idempotency_key, text)
            if duplicate is not None:
                return AppendResult(seq=duplicate, duplicate=True)
            last = _last_seq(conn, match_id)
            if last != after_seq:
                raise StaleAppend(last, after_seq)
            raise StoreError(f"the database refused event {after_seq + 1} of a match: {_reason(conflict)}")

        try:
            settled = self._run(settle, write=False) if behind else None
            if settled is not None:
                return settled
            try:
                return self._run(work, write=True, conflicts_expected=True)
            except IntegrityError as exc:
                conflict = exc
            return self._run(after_conflict, write=False)
        except StaleAppend as stale:
            if read_fresh:  # outside the write transaction: other writers do not wait for it
                stale.fresh = self.events(match_id)
            raise

    def healthy(self) -> bool:
        """Whether the tables exist and a write transaction on them would be accepted."""
        try:
            # Deleting nothing still needs write access: a read-only file or server says so.
            self._run(lambda conn: conn.execute(sa.delete(matches_table).where(sa.false())), write=True)
        except StoreError:
            return False
        return True

    # ------------------------------------------------------------------------------ groups

    def create_group(self, name: str, roster: list[str], rules: JSONObject) -> GroupRecord:
        """Store a new group with fresh unguessable scorer and viewer ids (the caller has
        validated the name, roster and rules)."""
        record = GroupRecord(
            id=secrets.token_urlsafe(ID_BYTES), viewer_id=secrets.token_urlsafe(ID_BYTES), name=name,
            roster=list(roster), rules=json.loads(_dump(rules, "group rules")), created_at=self._clock(),
        )
        self._run(lambda conn: _insert_group(conn, record), write=True)
        return record

    def group_by_link(self, token: str) -> LinkedGroup:
        """The group whose scorer id or viewer id is ``token``; :class:`GroupNotFound` if neither."""
        return self._run(lambda conn: _find_group(conn, token), write=False)

    def add_to_roster(self, group_id: str, names: list[str]) -> GroupRecord:
        """Add ``names`` not yet on the group's roster (compared ignoring case) to its end."""
        return self._change_roster(group_id, lambda roster: _joined(roster, names))

    def remove_from_roster(self, group_id: str, name: str) -> GroupRecord:
        """Take ``name`` (ignoring case) off the roster: no longer offered for new matches; the
        matches they played, and so their records, stay."""
        gone = name.casefold() if isinstance(name, str) else None
        return self._change_roster(group_id, lambda roster: [n for n in roster if n.casefold() != gone])

    def _change_roster(self, group_id: str, change: Callable[[list[str]], list[str]]) -> GroupRecord:
        def work(conn: Connection) -> GroupRecord:
            found = _find_group(conn, group_id, lock=True)
            if not found.scorer:
                raise GroupNotFound(f"no group with id {_clip(group_id)}")
            roster = change(found.record.roster)
            conn.execute(sa.update(groups_table).where(groups_table.c.id == group_id)
                         .values(roster=json.dumps(roster, ensure_ascii=False)))
            return GroupRecord(**{**_fields(found.record), "roster": roster})

        return self._run(work, write=True)

    def create_group_match(self, group_id: str, settings: JSONObject) -> MatchRecord:
        """Store a new match in the group, its players joining the roster, in one transaction."""
        text = _dump(settings, "match settings")
        record = MatchRecord(id=secrets.token_urlsafe(ID_BYTES), viewer_id=secrets.token_urlsafe(ID_BYTES),
                             settings=json.loads(text), created_at=self._clock())
        names = [str(n) for n in record.settings.get("players", [])]

        def work(conn: Connection) -> MatchRecord:
            found = _find_group(conn, group_id, lock=True)
            if not found.scorer:
                raise GroupNotFound(f"no group with id {_clip(group_id)}")
            roster = _joined(found.record.roster, names)
            conn.execute(matches_table.insert().values(
                id=record.id, viewer_id=record.viewer_id, settings=text, created_at=record.created_at))
            conn.execute(group_matches_table.insert().values(match_id=record.id, group_id=group_id))
            if roster != found.record.roster:
                conn.execute(sa.update(groups_table).where(groups_table.c.id == group_id)
                             .values(roster=json.dumps(roster, ensure_ascii=False)))
            return record

        return self._run(work, write=True)

    def group_matches(self, group_id: str) -> list[GroupMatch]:
        """The group's matches, oldest first, each with its last ``seq`` and stored summary, in
        one query (the page then replays only the matches whose summary is behind)."""

        def work(conn: Connection) -> list[GroupMatch]:
            m, e, gm, su = matches_table.c, events_table.c, group_matches_table.c, match_summaries_table.c
            # One backward scan of the events' primary key per match (as _find_link does), so the
            # cost follows the number of matches, never the number of events stored.
            last = (sa.select(sa.func.coalesce(sa.func.max(e.seq), 0)).where(e.match_id == m.id)
                    .scalar_subquery())
            joined = (group_matches_table.join(matches_table, m.id == gm.match_id)
                      .outerjoin(match_summaries_table, su.match_id == gm.match_id))
            rows = conn.execute(
                sa.select(matches_table, last.label("last_seq"), su.summary, su.seq.label("summary_seq"),
                          su.version.label("summary_version"))
                .select_from(joined).where(gm.group_id == group_id).order_by(m.created_at, m.id)
            ).all()
            return [GroupMatch(_match_record(row), int(row.last_seq), row.summary, row.summary_seq,
                               row.summary_version) for row in rows]

        return self._run(work, write=False)

    def save_summaries(self, summaries: list[tuple[str, int, int, str]]) -> None:
        """Keep ``(match id, seq, version, summary JSON)`` for each match, replacing older ones."""
        if not summaries:
            return

        def work(conn: Connection) -> None:
            ids = [match_id for match_id, *_ in summaries]
            conn.execute(sa.delete(match_summaries_table).where(match_summaries_table.c.match_id.in_(ids)))
            conn.execute(match_summaries_table.insert(), [
                {"match_id": i, "seq": seq, "version": version, "summary": text}
                for i, seq, version, text in summaries
            ])

        self._run(work, write=True)

    def export_group(self, group_id: str) -> tuple[GroupRecord, list[MatchExport]]:
        """The group (by scorer or viewer id) and every match of it with its whole log, read in
        one transaction, so the copy is of one moment even while phones append."""

        def work(conn: Connection) -> tuple[GroupRecord, list[MatchExport]]:
            self._snapshot(conn)
            group = _find_group(conn, group_id).record
            gm = group_matches_table.c
            rows = conn.execute(
                sa.select(matches_table).join(group_matches_table, gm.match_id == matches_table.c.id)
                .where(gm.group_id == group.id).order_by(matches_table.c.created_at, matches_table.c.id)
            ).all()
            return group, [MatchExport(_match_record(r), _events(conn, r.id, 0)) for r in rows]

        return self._run(work, write=False)

    def export_match(self, token: str) -> MatchExport:
        """A match (by scorer or viewer id) with its whole log, read in one transaction."""

        def work(conn: Connection) -> MatchExport:
            self._snapshot(conn)
            record = _find_link(conn, token).record
            return MatchExport(record, _events(conn, record.id, 0))

        return self._run(work, write=False)

    def import_records(self, group: GroupRecord | None, matches: list[MatchExport]) -> None:
        """Store an exported group (or none) and matches exactly as they were, ids and times
        included, in one transaction: :class:`AlreadyStored` (and nothing stored) when any of
        their ids is already here."""
        group_rows = []
        if group is not None:
            group_rows.append({"id": group.id, "viewer_id": group.viewer_id, "name": group.name,
                               "roster": json.dumps(group.roster, ensure_ascii=False),
                               "rules": _dump(group.rules, "group rules"), "created_at": group.created_at})
        match_rows, event_rows = [], []
        for item in matches:
            r = item.record
            match_rows.append({"id": r.id, "viewer_id": r.viewer_id,
                               "settings": _dump(r.settings, "match settings"), "created_at": r.created_at})
            for e in item.events:
                event_rows.append({"match_id": r.id, "seq": e.seq, "event": _dump(e.event, "event"),
                                   "idempotency_key": e.idempotency_key, "created_at": e.created_at})

        def already(conn: Connection) -> AlreadyStored | None:
            g, m = groups_table.c, matches_table.c
            if group is not None:
                tokens = [group.id, group.viewer_id]
                taken = conn.execute(
                    sa.select(g.id).where(sa.or_(g.id.in_(tokens), g.viewer_id.in_(tokens)))
                ).first()
                if taken is not None:
                    return AlreadyStored(
                        f"group {group.name!r} is already here (the same id): nothing was imported")
            ids = [r["id"] for r in match_rows] + [r["viewer_id"] for r in match_rows]
            for chunk in range(0, len(ids), 500):
                part = ids[chunk:chunk + 500]
                taken = conn.execute(
                    sa.select(m.id).where(sa.or_(m.id.in_(part), m.viewer_id.in_(part)))
                ).first()
                if taken is not None:
                    return AlreadyStored(
                        f"match {taken.id[:8]}… is already here (the same id): nothing was imported")
            return None

        def work(conn: Connection) -> None:
            taken = already(conn)
            if taken is not None:
                raise taken
            if group_rows:
                conn.execute(groups_table.insert(), group_rows)
            if match_rows:
                conn.execute(matches_table.insert(), match_rows)
            if event_rows:
                conn.execute(events_table.insert(), event_rows)
            if group is not None and match_rows:
                conn.execute(group_matches_table.insert(),
                             [{"match_id": r["id"], "group_id": group.id} for r in match_rows])

        try:
            self._run(work, write=True, conflicts_expected=True)
        except IntegrityError as exc:
            # Another import of the same ids committed between this one's check and its inserts
            # (PostgreSQL checks under READ COMMITTED; SQLite's writes take turns): the same
            # answer as if it had come first.
            taken = self._run(already, write=False)
            if taken is None:
                raise StoreError(f"the match store {self._where} refused a write: {_reason(exc)}") from exc
            raise taken from None

    # ------------------------------------------------------------------------------ uploads

    def record_upload(self, match_id: str, scorer_url: str, viewer_url: str, seq: int) -> Upload:
        """Note that the match (by scorer id) was uploaded as far as event ``seq``, with the
        server's links; replaces an earlier note. :class:`InvalidRecord` for a ``seq`` past the
        match's last or a link too long to be one, :class:`MatchNotFound` for no such match."""
        _check_seq(seq, "seq")
        for link in (scorer_url, viewer_url):
            if not isinstance(link, str) or not 0 < len(link) <= MAX_LINK_CHARS:
                raise InvalidRecord(
                    f"an upload's link is 1 to {MAX_LINK_CHARS} characters, not {_clip(link)}")
        upload = Upload(scorer_url, viewer_url, seq, self._clock())

        def work(conn: Connection) -> Upload:
            last = _require_match_last_seq(conn, match_id)
            if seq > last:
                raise InvalidRecord(f"the match has {last} events, so no upload went as far as event {seq}")
            u = uploads_table.c
            conn.execute(sa.delete(uploads_table).where(u.match_id == match_id))
            conn.execute(uploads_table.insert().values(
                match_id=match_id, scorer_url=scorer_url, viewer_url=viewer_url, seq=seq,
                uploaded_at=upload.uploaded_at))
            return upload

        return self._run(work, write=True)

    def upload_of(self, match_id: str) -> Upload | None:
        """Where the match (by scorer id) was uploaded; None if it never was (or no such match)."""
        if not (isinstance(match_id, str) and _ID_SHAPE.fullmatch(match_id)):
            return None

        def work(conn: Connection) -> Upload | None:
            row = conn.execute(sa.select(uploads_table).where(uploads_table.c.match_id == match_id)).first()
            return None if row is None else _upload(row)

        return self._run(work, write=False)

    def recent_matches(self, limit: int) -> list[KeptMatch]:
        """The ``limit`` newest matches in this store, newest first, each with its last ``seq`` and
        upload, in one query: a phone's list of the matches it keeps."""
        _check_seq(limit, "limit")

        def work(conn: Connection) -> list[KeptMatch]:
            m, e, u = matches_table.c, events_table.c, uploads_table.c
            last = (sa.select(sa.func.coalesce(sa.func.max(e.seq), 0)).where(e.match_id == m.id)
                    .scalar_subquery())
            rows = conn.execute(
                sa.select(matches_table, last.label("last_seq"), u.scorer_url, u.viewer_url,
                          u.seq.label("upload_seq"), u.uploaded_at)
                .select_from(matches_table.outerjoin(uploads_table, u.match_id == m.id))
                .order_by(m.created_at.desc(), m.id).limit(limit)
            ).all()
            return [KeptMatch(_match_record(r), int(r.last_seq),
                              None if r.scorer_url is None else _upload(r, "upload_seq")) for r in rows]

        return self._run(work, write=False)

    def backup(self, path: str | Path) -> None:
        """Write a consistent copy of the SQLite database to ``path`` with SQLite's online backup
        API, while other connections go on reading and writing (PostgreSQL: use pg_dump)."""
        if self._backend != "sqlite":
            raise StoreError("backup copies an SQLite file; back up PostgreSQL with pg_dump")
        target = Path(path)
        if target.exists():
            raise StoreError(f"{target} already exists: give a new file name")
        raw = self._engine.raw_connection()
        try:
            source = raw.driver_connection
            assert isinstance(source, sqlite3.Connection)
            copy = sqlite3.connect(target)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            raw.close()

    def _snapshot(self, conn: Connection) -> None:
        # Several reads that must see one moment: SQLite's read transaction already does;
        # PostgreSQL's default (read committed) lets each statement see newer commits.
        if self._backend == "postgresql":
            conn.execute(sa.text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))

    def close(self) -> None:
        """Close every pooled connection; the store reconnects if used again."""
        self._engine.dispose()

    def _run(self, work: Callable[[Connection], _T], *, write: bool, conflicts_expected: bool = False) -> _T:
        """Run ``work`` in one transaction, retrying while SQLite is busy, mapping outages.

        A pooled connection found dead (the server restarted or dropped it) is retried once on a
        fresh one, but only when it died before COMMIT was sent: until then the server rolls the
        transaction back, so running ``work`` again cannot store anything twice. Any database
        failure but a constraint violation becomes :class:`StoreUnavailable`; a violation is
        passed on as it is when the caller expects one, else it is a StoreError.
        """
        deadline = time.monotonic() + self._lock_timeout_s
        if write and self._write_lock is not None:
            if not self._write_lock.acquire(timeout=self._lock_timeout_s):
                raise StoreUnavailable(
                    f"the match store {self._where} is unavailable: busy "
                    f"(waited {self._lock_timeout_s:g} s for the lock)"
                )
            try:
                return self._attempt(work, write=write, conflicts_expected=conflicts_expected,
                                     deadline=deadline)
            finally:
                self._write_lock.release()
        return self._attempt(work, write=write, conflicts_expected=conflicts_expected, deadline=deadline)

    def _attempt(
        self, work: Callable[[Connection], _T], *, write: bool, conflicts_expected: bool, deadline: float
    ) -> _T:
        pause = _BACKOFF_FIRST_S
        reconnected = False
        while True:
            committing = False
            try:
                with self._engine.connect() as conn:
                    if write:
                        conn.execution_options(**{_WRITE_OPTION: True})
                    with conn.begin():
                        result = work(conn)
                        committing = True
                    return result
            except IntegrityError as exc:
                if conflicts_expected:
                    raise
                raise StoreError(f"the match store {self._where} refused a write: {_reason(exc)}") from exc
            except sa.exc.TimeoutError as exc:  # the pool had no free connection in time
                first_line = str(exc).splitlines()[0]
                raise StoreUnavailable(f"the match store {self._where} is unavailable: {first_line}") from exc
            except DBAPIError as exc:
                if exc.connection_invalidated and not committing and not reconnected:
                    # SQLAlchemy has invalidated the pool's older connections too.
                    reconnected = True
                    continue
                remaining = deadline - time.monotonic()
                if _busy(exc) and remaining > 0:
                    # Jitter keeps two waiting writers from retrying in lockstep.
                    time.sleep(min(pause * (0.5 + self._random.random()), remaining))
                    pause = min(pause * 2, _BACKOFF_MAX_S)
                    continue
                waited = f" (waited {self._lock_timeout_s:g} s for the lock)" if _busy(exc) else ""
                raise StoreUnavailable(
                    f"the match store {self._where} is unavailable: {_reason(exc)}{waited}"
                ) from exc

    def _sqlite_connect(self, dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself, so a writer can ask for IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {round(self._lock_timeout_s * 1000)}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()


def schema_metadata() -> sa.MetaData:
    """The tables as the latest migration leaves them (what Alembic's autogenerate compares)."""
    return _metadata


def _alembic_config(conn: Connection) -> Any:
    """Alembic's configuration for running ``migrations/`` on ``conn`` (imported only when needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    return config


def _migrate(conn: Connection) -> None:
    """Stamp a pre-migration database at the baseline, then upgrade to the newest revision."""
    tables = set(sa.inspect(conn).get_table_names())
    if "alembic_version" in tables:
        versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
        if versions == [HEAD_REVISION]:
            return
    from alembic import command

    config = _alembic_config(conn)
    if "alembic_version" not in tables and {"matches", "events"} <= tables:
        command.stamp(config, BASELINE_REVISION)
    command.upgrade(config, "head")


def schema_revision(store: Store) -> str | None:
    """The Alembic revision the store's database is at (None before any)."""

    def work(conn: Connection) -> str | None:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        versions = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
        return versions[0] if len(versions) == 1 else None

    return store._run(work, write=False)


def _sqlite_begin(conn: Connection) -> None:
    # IMMEDIATE takes the write lock at BEGIN, where the busy timeout applies; a deferred
    # transaction that reads and then writes could instead fail at once with SQLITE_BUSY when
    # another writer committed in between.
    mode = "IMMEDIATE" if conn.get_execution_options().get(_WRITE_OPTION) else "DEFERRED"
    conn.exec_driver_sql(f"BEGIN {mode}")


def _find_match(conn: Connection, column: sa.Column[str], wanted: str) -> MatchRecord:
    if not (isinstance(wanted, str) and _ID_SHAPE.fullmatch(wanted)):
        raise MatchNotFound(f"no match with {column.name} {_clip(wanted)}")
    row = conn.execute(sa.select(matches_table).where(column == wanted)).first()
    # The index finds the row; the constant-time check makes sure it is the exact id (a
    # case-insensitive collation must never let a near-miss in) without leaking how near.
    if row is None or not hmac.compare_digest(row._mapping[column.name], wanted):
        raise MatchNotFound(f"no match with {column.name} {_clip(wanted)}")
    return MatchRecord(
        id=row.id, viewer_id=row.viewer_id, settings=json.loads(row.settings), created_at=_utc(row.created_at)
    )


def _find_link(conn: Connection, token: str) -> LinkedMatch:
    if not (isinstance(token, str) and _ID_SHAPE.fullmatch(token)):
        raise MatchNotFound(f"no match with id or viewer id {_clip(token)}")
    m, e = matches_table.c, events_table.c
    last = sa.select(sa.func.coalesce(sa.func.max(e.seq), 0)).where(e.match_id == m.id).scalar_subquery()
    # Both columns are indexed (primary key, unique): each side of the OR is an index lookup.
    rows = conn.execute(
        sa.select(matches_table, last.label("last_seq")).where(sa.or_(m.id == token, m.viewer_id == token))
    ).all()
    # As in _find_match: the index finds the rows, the constant-time check confirms the exact id.
    for scorer, column in ((True, "id"), (False, "viewer_id")):
        for row in rows:
            if hmac.compare_digest(row._mapping[column], token):
                record = MatchRecord(id=row.id, viewer_id=row.viewer_id, settings=json.loads(row.settings),
                                     created_at=_utc(row.created_at))
                return LinkedMatch(record, scorer, int(row.last_seq))
    raise MatchNotFound(f"no match with id or viewer id {_clip(token)}")


def _match_record(row: Any) -> MatchRecord:
    return MatchRecord(id=row.id, viewer_id=row.viewer_id, settings=json.loads(row.settings),
                       created_at=_utc(row.created_at))


def _upload(row: Any, seq: str = "seq") -> Upload:
    return Upload(row.scorer_url, row.viewer_url, int(row._mapping[seq]), _utc(row.uploaded_at))


def _insert_group(conn: Connection, record: GroupRecord) -> None:
    conn.execute(groups_table.insert().values(
        id=record.id, viewer_id=record.viewer_id, name=record.name,
        roster=json.dumps(record.roster, ensure_ascii=False), rules=_dump(record.rules, "group rules"),
        created_at=record.created_at,
    ))


def _fields(record: GroupRecord) -> dict[str, Any]:
    return {"id": record.id, "viewer_id": record.viewer_id, "name": record.name, "roster": record.roster,
            "rules": record.rules, "created_at": record.created_at}


def _joined(roster: list[str], names: list[str]) -> list[str]:
    """``roster`` with the ``names`` it lacks (ignoring case) added at the end."""
    out = list(roster)
    known = {n.casefold() for n in out}
    for name in names:
        if name.casefold() not in known:
            out.append(name)
            known.add(name.casefold())
    if len(out) > MAX_ROSTER:
        raise InvalidRecord(f"a group's roster holds at most {MAX_ROSTER} players")
    return out


def _find_group(conn: Connection, token: str, *, lock: bool = False) -> LinkedGroup:
    """The group by either id; ``lock`` holds its row until the transaction ends (PostgreSQL: two
    new matches adding names to one roster never lose each other's; SQLite's write lock already
    serialises writers)."""
    if not (isinstance(token, str) and _ID_SHAPE.fullmatch(token)):
        raise GroupNotFound(f"no group with id or viewer id {_clip(token)}")
    g = groups_table.c
    query = sa.select(groups_table).where(sa.or_(g.id == token, g.viewer_id == token))
    rows = conn.execute(query.with_for_update() if lock else query).all()
    # As for matches: the index finds the rows, the constant-time check confirms the exact id.
    for scorer, column in ((True, "id"), (False, "viewer_id")):
        for row in rows:
            if hmac.compare_digest(row._mapping[column], token):
                record = GroupRecord(id=row.id, viewer_id=row.viewer_id, name=row.name,
                                     roster=json.loads(row.roster), rules=json.loads(row.rules),
                                     created_at=_utc(row.created_at))
                return LinkedGroup(record, scorer)
    raise GroupNotFound(f"no group with id or viewer id {_clip(token)}")


def _require_match(conn: Connection, match_id: str) -> None:
    if not (isinstance(match_id, str) and _ID_SHAPE.fullmatch(match_id)):
        raise MatchNotFound(f"no match with id {_clip(match_id)}")
    found = conn.execute(sa.select(matches_table.c.id).where(matches_table.c.id == match_id)).scalar()
    if found is None or not hmac.compare_digest(found, match_id):
        raise MatchNotFound(f"no match with id {_clip(match_id)}")


def _events(conn: Connection, match_id: str, after: int) -> list[StoredEvent]:
    c = events_table.c
    rows = conn.execute(
        sa.select(c.seq, c.event, c.created_at, c.idempotency_key)
        .where(c.match_id == match_id, c.seq > after)
        .order_by(c.seq)
    )
    return [
        StoredEvent(seq=row.seq, event=json.loads(row.event), created_at=_utc(row.created_at),
                    idempotency_key=row.idempotency_key)
        for row in rows
    ]


def _last_seq(conn: Connection, match_id: str) -> int:
    c = events_table.c
    last = conn.execute(
        sa.select(sa.func.coalesce(sa.func.max(c.seq), 0)).where(c.match_id == match_id)
    ).scalar_one()
    return int(last)


def _prune(conn: Connection, cutoff: datetime) -> int:
    m, e = matches_table.c, events_table.c
    played = sa.select(e.match_id).where(e.match_id == m.id).exists()
    result = conn.execute(sa.delete(matches_table).where(m.created_at < cutoff, ~played))
    return int(result.rowcount)


def _require_match_last_seq(conn: Connection, match_id: str) -> int:
    """The match's last ``seq`` (0 without events), found in one query; MatchNotFound if none."""
    if not (isinstance(match_id, str) and _ID_SHAPE.fullmatch(match_id)):
        raise MatchNotFound(f"no match with id {_clip(match_id)}")
    m, e = matches_table.c, events_table.c
    last = sa.select(sa.func.coalesce(sa.func.max(e.seq), 0)).where(e.match_id == m.id).scalar_subquery()
    row = conn.execute(sa.select(m.id, last.label("last_seq")).where(m.id == match_id)).first()
    if row is None or not hmac.compare_digest(row.id, match_id):
        raise MatchNotFound(f"no match with id {_clip(match_id)}")
    return int(row.last_seq)


def _seq_for_key(conn: Connection, match_id: str, key: str | None, text: str) -> int | None:
    """Where the event stored under ``key`` is when it is this event (``text``); KeyReused when
    the key holds another event; None for no key or an unused one."""
    if key is None:
        return None
    c = events_table.c
    row = conn.execute(
        sa.select(c.seq, c.event).where(c.match_id == match_id, c.idempotency_key == key)
    ).first()
    if row is None:
        return None
    if _canonical(row.event) != _canonical(text):
        raise KeyReused(key, int(row.seq))
    return int(row.seq)


def _canonical(text: str) -> str:
    """JSON text in one spelling (keys sorted), so an event compares equal however it was written;
    ``true`` and ``1`` stay different, unlike Python's ``True == 1``."""
    return json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _dump(value: object, what: str) -> str:
    """``value`` as compact JSON text, refusing anything that would not read back equal."""
    if not isinstance(value, dict):
        raise InvalidRecord(f"{what} must be a JSON object (a dict), not {type(value).__name__}")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        text.encode("utf-8")
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError (lone surrogate) is a ValueError
        raise InvalidRecord(f"{what} is not JSON: {exc}") from None
    if len(text) > MAX_DOCUMENT_CHARS:
        raise InvalidRecord(f"{what} is {len(text)} characters of JSON; the most is {MAX_DOCUMENT_CHARS}")
    if json.loads(text) != value:
        raise InvalidRecord(
            f"{what} would not read back as given (tuples or non-string keys?): {_clip(text)}"
        )
    return text


def _check_seq(value: object, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRecord(f"{name} must be a whole number of events, 0 or more, not {value!r}")


def _busy(exc: DBAPIError) -> bool:
    # Errors sqlite3 raises itself (not from the library) carry no code.
    code = getattr(exc.orig, "sqlite_errorcode", None) if isinstance(exc.orig, sqlite3.Error) else None
    return isinstance(code, int) and (code & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)


def _reason(exc: DBAPIError) -> str:
    """The driver's own message, first line only (SQLAlchemy appends the SQL and a link)."""
    lines = str(exc.orig).strip().splitlines()
    return lines[0] if lines else type(exc.orig).__name__


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    # SQLite keeps the UTC wall time without its zone; PostgreSQL answers in the session's zone.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _clip(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _safe_url(url: sa.URL) -> str:
    return url.render_as_string(hide_password=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m store prune [--url URL] [--older-than-hours H]``: delete the matches never
    played (no event) that are older than H hours (24), in the database at ``URL`` (else
    ``DATABASE_URL``, else ``muggins.sqlite`` in ``MUGGINS_INSTANCE`` or ``instance/``, as the
    app finds it); prints how many.

    ``python -m store backup FILE [--url URL]``: write a consistent copy of the SQLite database to
    the new file ``FILE`` with SQLite's online backup API, safe while the app runs and writes
    (for PostgreSQL use ``pg_dump``)."""
    import argparse
    import os

    parser = argparse.ArgumentParser(prog="python -m store", description="Match store maintenance.")
    commands = parser.add_subparsers(dest="command", required=True)
    instance = os.environ.get("MUGGINS_INSTANCE") or Path(__file__).resolve().parent / "instance"
    default_url = os.environ.get("DATABASE_URL") or f"sqlite:///{Path(instance) / 'muggins.sqlite'}"
    prune = commands.add_parser("prune", help="delete matches never played, older than a day")
    prune.add_argument("--url", default=default_url)
    prune.add_argument("--older-than-hours", type=float, default=UNPLAYED_MATCH_TTL.total_seconds() / 3600)
    backup = commands.add_parser("backup", help="copy the SQLite database to a new file, while it runs")
    backup.add_argument("file", type=Path)
    backup.add_argument("--url", default=default_url)
    args = parser.parse_args(argv)
    if args.command == "backup":
        try:
            with Store(args.url) as store:
                store.backup(args.file)
        except (StoreError, ValueError, sqlite3.Error) as err:
            print(f"python -m store: {err}", file=sys.stderr)
            return 2
        print(f"copied the database to {args.file}")
        return 0
    if not args.older_than_hours >= 0:
        parser.error(f"--older-than-hours must be 0 or more, not {args.older_than_hours}")
    try:
        with Store(args.url) as store:
            store.create_schema()
            removed = store.prune_unplayed(timedelta(hours=args.older_than_hours))
    except (StoreError, ValueError) as err:
        print(f"python -m store: {err}", file=sys.stderr)
        return 2
    print(f"removed {removed} match{'' if removed == 1 else 'es'} never played")
    return 0


def _sqlite_in_memory(url: sa.URL) -> bool:
    database = url.database or ""
    return database in ("", ":memory:") or url.query.get("mode") == "memory"


if __name__ == "__main__":
    sys.exit(main())
