"""Bounded in-process caches for the hot match paths: replayed matches and polled board fragments.

Phones poll a match every few seconds and a scorer appends an event every few seconds, and each
of those used to replay the whole match from its stored events and render the board again. The
two caches here let the work be done once per new event instead.

The replay cache is also what keeps an append's cost flat however long the match: an append is
checked against the cached replay, brought up to date from the events after its seq, before the
store's short write transaction, which then only confirms the seq and inserts
(``web.matches.store_event``). A process that has never seen the match replays it once.

Why they cannot go stale. A match's events are an append-only log: the event at ``(match id,
seq)`` is written once, by a committed transaction, and never changed or deleted (an undo is a
new ``void`` event with a seq of its own). So a match's state after event ``seq`` is a pure
function of (match id, seq), and so is the board fragment a given link shows for it. Every
entry is keyed by (or records) the seq it was computed at, and every reader asks the store for
the match's current seq before it looks here: a new event is a new seq, never an old entry
changed. Only states built from committed events go in, never one computed inside an append
whose transaction might still fail. Each process keeps its own caches; gunicorn workers agree
with each other because all of them go by the seq the database reports. The one thing this
rules out is rewriting stored events under a running server (restoring an older backup in
place): restart the server after that, as after any change to the database behind its back.

Bounds and threads. Each cache is least-recently-used with a fixed number of entries, so memory
stays bounded however many matches a server has seen; an evicted match is replayed from the
store again. One lock per cache guards its dictionary. The values are immutable (``Match.apply``
returns a new match and never changes the old one; fragments are strings), so threads share
them without copying.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from flask import Flask, current_app

from scorer.match import Match

__all__ = [
    "LRU", "Replayed", "FragmentKey", "Caches", "init_caches", "get_caches",
    "MATCH_CACHE_SIZE", "FRAGMENT_CACHE_SIZE",
]

MATCH_CACHE_SIZE: Final = 128
"""Matches kept replayed per process: more than the 100 tables the load bench drives at once. A
121-point game replays to about 40 KiB and a 300-event match to about 200 KiB, so even a cache
full of long matches stays in the tens of megabytes."""
FRAGMENT_CACHE_SIZE: Final = 256
"""Rendered live boards kept per process: the current one of each cached match's scorer link
and viewer link. A fragment is a few kilobytes; entries for older seqs simply age out."""

_KEY = "muggins.caches"

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A thread-safe mapping of at most ``capacity`` entries that drops the least recently used.

    >>> recent: LRU[str, int] = LRU(2)
    >>> recent.put("a", 1); recent.put("b", 2); recent.get("a")
    1
    >>> recent.put("c", 3)  # "b" is now the least recently used
    >>> recent.get("b") is None, recent.get("a"), recent.get("c"), len(recent)
    (True, 1, 3, 2)
    """

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"an LRU cache holds 1 entry or more, not {capacity!r}")
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, key: K) -> V | None:
        """The value under ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V, keep: Callable[[V], bool] | None = None) -> None:
        """Store ``value`` under ``key`` as the most recently used entry, unless ``keep(current)``
        says the value already there should stay."""
        with self._lock:
            current = self._entries.get(key)
            if current is None or keep is None or not keep(current):
                self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()


@dataclass(frozen=True, slots=True)
class Replayed:
    """A match replayed up to and including its event ``seq`` (0: no events yet)."""

    seq: int
    match: Match


FragmentKey = tuple[str, int, str]
"""A live board fragment's key: the link's token (scorer or viewer id, which also fixes whether
the board offers the scorer's note), the seq it shows, and the app's URL prefix (its links)."""


@dataclass(frozen=True, slots=True)
class Caches:
    """One app's caches: each match's latest replay by match id, and rendered live boards."""

    matches: LRU[str, Replayed]
    fragments: LRU[FragmentKey, str]

    def remember(self, match_id: str, replayed: Replayed) -> None:
        """Keep ``replayed`` as the match's latest state, unless a later one is already kept
        (two threads may finish in either order; the cache never steps back)."""
        self.matches.put(match_id, replayed, keep=lambda current: current.seq >= replayed.seq)


def init_caches(app: Flask) -> None:
    """Give ``app`` empty caches, sized by ``MATCH_CACHE_SIZE`` and ``FRAGMENT_CACHE_SIZE`` in its
    config when set (else the defaults here)."""
    app.extensions[_KEY] = Caches(
        matches=LRU(app.config.get("MATCH_CACHE_SIZE", MATCH_CACHE_SIZE)),
        fragments=LRU(app.config.get("FRAGMENT_CACHE_SIZE", FRAGMENT_CACHE_SIZE)),
    )


def get_caches() -> Caches:
    """The current app's caches."""
    caches: Caches = current_app.extensions[_KEY]
    return caches
