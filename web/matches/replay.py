"""The cached replay and the append path.

Replays are cached per process (``web.cache``): a page reuses the match replayed at the seq its
link's lookup read, and an append extends it by the one new event. Events are checked against
the replayed match before the store's append, which inserts only if the match is still where
the check saw it, so two phones can never store events that do not fit together. Each tap's
idempotency key carries a digest of its event, so a double tap is stored once and two different
taps never share one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from flask_babel import gettext as _  # type: ignore[import-untyped]

from scorer.errors import MatchError
from scorer.i18n import digits
from scorer.match import Match
from store import AppendResult, MatchRecord, StoredEvent
from web.cache import Replayed, get_caches
from web.matches.access import Access
from web.storage import get_store

__all__ = ["load", "current", "store_event", "tap_key", "TAP_DIGEST_CHARS"]

TAP_DIGEST_CHARS = 16
"""Hex digits of an event's SHA-256 in its tap's idempotency key (64 bits: no two taps of one
page collide)."""


def load(record: MatchRecord, events: list[StoredEvent] | None = None) -> tuple[Match, int]:
    """The match replayed from its stored events, and the sequence number of the last one.

    ``events`` is the whole log as the store handed it over (else the store is asked for the
    events the cached replay lacks). A cached replay at the same seq is reused, an older one is
    extended by the newer events, and the result is cached for the next request.
    """
    caches = get_caches()
    cached = caches.matches.get(record.id)
    start: Replayed | None
    if events is None:
        start = cached
        newer = get_store().events(record.id, after=cached.seq if cached is not None else 0)
    else:
        last = events[-1].seq if events else 0
        if cached is not None and cached.seq == last:
            return cached.match, cached.seq
        # A cached replay past these events (a later append committed meanwhile) is no use here.
        start = cached if cached is not None and cached.seq < last else None
        newer = events if start is None else [e for e in events if e.seq > start.seq]
    replayed = _replay(record, newer) if start is None else _extend(start, newer)
    if replayed is None:  # a gap in the log after the cached seq: the store never writes one
        replayed = _replay(record, events if events is not None else get_store().events(record.id))
    caches.remember(record.id, replayed)
    return replayed.match, replayed.seq


def current(access: Access) -> tuple[Match, int]:
    """The match as it stood when its link was looked up (or later), and its last seq: the cached
    replay when it is at that seq, without asking the store again."""
    cached = get_caches().matches.get(access.record.id)
    if cached is not None and cached.seq == access.seq:
        return cached.match, cached.seq
    return load(access.record)


def _replay(record: MatchRecord, events: Sequence[StoredEvent]) -> Replayed:
    """The match replayed from the whole log."""
    return Replayed(events[-1].seq if events else 0, Match(record.settings, [e.event for e in events]))


def _extend(start: Replayed, events: Sequence[StoredEvent]) -> Replayed | None:
    """``start`` with ``events`` applied, or None unless their seqs follow on from its seq."""
    match, seq = start.match, start.seq
    for stored in events:
        if stored.seq != seq + 1:
            return None
        try:
            match = match.apply(stored.event)
        except MatchError as err:  # worded as a replay from the start words it
            raise MatchError(_("event #%(seq)s (%(type)s): %(error)s", seq=digits(stored.seq),
                               type=stored.event.get("type"), error=err)) from None
        seq = stored.seq
    return Replayed(seq, match)


class _Checked:
    """The store's ``validate`` callback for one event, for the rare append whose ``after`` is
    past every event this process has read: the match as the append's transaction sees it,
    with the event applied (``MatchError`` refuses it), kept for the answer."""

    def __init__(self, record: MatchRecord, event: Mapping[str, object]) -> None:
        self.record = record
        self.event = event
        self.after: Replayed | None = None

    def __call__(self, events: list[StoredEvent]) -> None:
        match, seq = load(self.record, events)
        self.after = Replayed(seq + 1, match.apply(self.event))


def store_event(access: Access, after: int, event: Mapping[str, object],
                idempotency_key: str | None) -> tuple[AppendResult, Match, int]:
    """Append ``event`` after seq ``after``, checked against the replayed match before the store's
    short write transaction; where it landed, and the match with it and its last seq.

    The check runs outside any write transaction, on this process's cached replay brought up to
    date from the events after its seq. It holds because the log only grows: the store then
    inserts only if ``after`` is still the last seq, so the event follows exactly the events it
    was checked against. When the cached replay is already past ``after`` the append can only be
    a retry or stale, and the store says which without the check; only an ``after`` past every
    event read here (another worker appended meanwhile) is checked inside the transaction.

    Raises what ``Store.append`` raises: ``StaleAppend`` (without the log: ``load`` the fresh
    match), ``KeyReused``, ``MatchError`` from the check, ``InvalidRecord``. The match answered
    is the one the check built, cached only once the append has committed; a retried event
    (``duplicate``) answers the match as it stands.
    """
    store, record = get_store(), access.record
    match, seq = current(access)
    if seq < after:  # appended since the link was looked up: read on from the cached replay
        match, seq = load(record)
    checked: _Checked | None = None
    applied: Replayed | None
    if seq == after:
        applied = Replayed(after + 1, match.apply(dict(event)))
        result = store.append(record.id, after, dict(event), idempotency_key=idempotency_key,
                              read_fresh=False)
    else:
        checked = _Checked(record, event) if seq < after else None
        result = store.append(record.id, after, dict(event), idempotency_key=idempotency_key,
                              validate=checked, read_fresh=False, behind=seq > after)
        applied = checked.after if checked is not None and checked.after is not None else None
    if not result.duplicate and applied is not None and applied.seq == result.seq:
        get_caches().remember(record.id, applied)
        return result, applied.match, applied.seq
    match, seq = load(record)
    return result, match, seq


def tap_key(form_key: str | None, event: Mapping[str, object]) -> str | None:
    """The idempotency key of one tap: the page's key for its form and a digest of the event.

    A page gives each form a key, but one form has many buttons (a number pad) and a page can
    be tapped again after Back: a key of its own per event keeps a second, different tap from
    passing for a retry of the first (the store refuses a used key with another event), while
    the same tap sent twice (a double tap, a resend) is still stored once.
    """
    if form_key is None:
        return None
    text = json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{form_key}.{hashlib.sha256(text.encode()).hexdigest()[:TAP_DIGEST_CHARS]}"
