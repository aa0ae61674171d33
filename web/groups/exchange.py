"""Exports and imports: a match or a whole group as one JSON document, and the records as CSV.

The document holds everything stored (ids, settings, every event with its seq, time and
idempotency key, undos included), so importing it into any Muggins, on SQLite or PostgreSQL,
gives the same state, and exporting that again gives the same bytes. Its ``format`` says which
version of this layout it is: a reader refuses a newer one rather than guess. Its ``sha256`` is
the digest of the document without that field, so a file cut short or edited by hand is refused
instead of half-read. An import is checked whole (every match replayed) before the store is
touched, then stored in one transaction that refuses any id already present: a refused import
changes nothing.

>>> text = export_text({"format": FORMAT, "kind": "match", "matches": []})
>>> read_export(text)
Traceback (most recent call last):
...
web.groups.exchange.ImportRefused: a match's export holds exactly one match: nothing was imported
>>> read_export(text.replace('"matches"', '"matchez"'))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
web.groups.exchange.ImportRefused: the export was changed or cut short (...): nothing was imported
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from datetime import UTC, datetime
from typing import Any, Final

from scorer.errors import MatchError
from scorer.i18n import _, digits
from scorer.match import Match, Settings
from scorer.records import GroupRecords
from store import MAX_ID_CHARS, MAX_ROSTER, GroupRecord, MatchExport, MatchRecord, StoredEvent
from web.groups.core import GroupError, clean_group_name, clean_roster, group_rules_json

__all__ = [
    "FORMAT", "ImportRefused", "export_document", "export_text", "read_export", "records_csv", "same_match",
]

FORMAT: Final = 1
"""The layout of an export this version writes, and the newest it reads."""
_ID: Final = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_ID_CHARS}}}")


class ImportRefused(ValueError):
    """An export that cannot be imported; the message says why, in one line."""


def _time(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def _match(item: MatchExport) -> dict[str, object]:
    r = item.record
    return {
        "id": r.id,
        "viewer_id": r.viewer_id,
        "created_at": _time(r.created_at),
        "settings": r.settings,
        "events": [
            {
                "seq": e.seq,
                "created_at": _time(e.created_at),
                "idempotency_key": e.idempotency_key,
                "event": e.event,
            }
            for e in item.events
        ],
    }


def export_document(group: GroupRecord | None, matches: list[MatchExport]) -> dict[str, object]:
    """The export of a group and its matches (``group`` None: one match alone)."""
    doc: dict[str, object] = {"format": FORMAT, "kind": "group" if group is not None else "match"}
    if group is not None:
        doc["group"] = {
            "id": group.id,
            "viewer_id": group.viewer_id,
            "name": group.name,
            "roster": group.roster,
            "rules": group.rules,
            "created_at": _time(group.created_at),
        }
    doc["matches"] = [_match(m) for m in matches]
    return doc


def _canonical(doc: dict[str, object]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def export_text(doc: dict[str, object]) -> str:
    """The document as the file's text, its ``sha256`` last."""
    digest = hashlib.sha256(_canonical(doc).encode("utf-8")).hexdigest()
    return _canonical({**doc, "sha256": digest}) + "\n"


def same_match(a: MatchExport, b: MatchExport) -> bool:
    """Whether two matches export to the same bytes: ids, creation time, settings and every event
    with its seq, time and idempotency key. Compared as the export's text, not as Python values,
    so ``true`` and ``1`` (equal in Python) or ``1`` and ``1.0`` differ here as they do in JSON;
    times compare as instants (an export writes them in UTC)."""
    return export_text(export_document(None, [a])) == export_text(export_document(None, [b]))


def _refuse(message: str) -> ImportRefused:
    return ImportRefused(_("%(reason)s: nothing was imported", reason=message))


def _when(raw: object, what: str) -> datetime:
    if not isinstance(raw, str):
        raise _refuse(_("%(what)s has no time", what=what))
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        raise _refuse(_("%(what)s has a bad time %(time)s", what=what, time=repr(raw[:40]))) from None
    if value.tzinfo is None:
        raise _refuse(_("%(what)s's time %(time)s has no time zone", what=what, time=repr(raw[:40])))
    return value.astimezone(UTC)


def _id(raw: object, what: str) -> str:
    if not isinstance(raw, str) or not _ID.fullmatch(raw):
        raise _refuse(_("%(what)s has a bad id", what=what))
    return raw


def _read_match(raw: object, n: int) -> MatchExport:
    # TRANSLATORS: the subject of the import refusals below ("match 3 has a bad id").
    what = _("match %(number)s", number=digits(n))
    if not isinstance(raw, dict) or set(raw) != {"id", "viewer_id", "created_at", "settings", "events"}:
        raise _refuse(_("%(what)s is not a match (id, viewer_id, created_at, settings, events)", what=what))
    settings, events = raw["settings"], raw["events"]
    if not isinstance(settings, dict) or not isinstance(events, list):
        raise _refuse(_("%(what)s has bad settings or events", what=what))
    stored: list[StoredEvent] = []
    for seq, item in enumerate(events, 1):
        event = _("match %(number)s, event %(event)s", number=digits(n), event=digits(seq))
        if not isinstance(item, dict) or set(item) != {"seq", "created_at", "idempotency_key", "event"}:
            raise _refuse(_("%(what)s is not an event (seq, created_at, idempotency_key, event)", what=event))
        key = item["idempotency_key"]
        if (
            item["seq"] != seq
            or not isinstance(item["event"], dict)
            or not (key is None or isinstance(key, str))
        ):
            raise _refuse(_("%(what)s is out of order or malformed", what=event))
        stored.append(StoredEvent(seq, item["event"], _when(item["created_at"], event), key))
    try:
        Settings.from_json(settings)
        Match(settings, [e.event for e in stored])
    except MatchError as e:
        reason = " ".join(str(e).split())
        raise _refuse(_("%(what)s does not replay (%(reason)s)", what=what, reason=reason)) from None
    record = MatchRecord(
        _id(raw["id"], what), _id(raw["viewer_id"], what), settings, _when(raw["created_at"], what)
    )
    return MatchExport(record, stored)


def read_export(text: str | bytes) -> tuple[GroupRecord | None, list[MatchExport]]:
    """The group (None for a match's export) and matches in an export, checked whole:
    ``ImportRefused`` with a one-line reason for anything malformed, newer or changed."""
    try:
        doc: Any = json.loads(text)
    except (ValueError, RecursionError):
        raise _refuse(_("the export is not JSON (cut short?)")) from None
    if not isinstance(doc, dict):
        raise _refuse(_("the export is not a Muggins export (a JSON object with a format)"))
    version = doc.get("format")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _refuse(_("the export has no format version: it is not a Muggins export"))
    if version > FORMAT:
        raise _refuse(_("the export is format %(version)s, from a newer Muggins (this one reads format "
                        "%(format)s)", version=digits(version), format=digits(FORMAT)))
    digest = doc.pop("sha256", None)
    expected = hashlib.sha256(_canonical(doc).encode("utf-8")).hexdigest()
    if digest != expected:
        raise _refuse(_("the export was changed or cut short (its sha256 does not match)"))
    kind = doc.get("kind")
    matches_raw = doc.get("matches")
    if kind not in ("group", "match") or not isinstance(matches_raw, list):
        raise _refuse(_("the export holds neither a group nor a match"))
    matches = [_read_match(m, n) for n, m in enumerate(matches_raw, 1)]
    ids = [t for m in matches for t in (m.record.id, m.record.viewer_id)]
    if len(set(ids)) != len(ids):
        raise _refuse(_("the export names one match id twice"))
    group = None
    if kind == "group":
        raw = doc.get("group")
        keys = {"id", "viewer_id", "name", "roster", "rules", "created_at"}
        if not isinstance(raw, dict) or set(raw) != keys:
            raise _refuse(_("the export's group is malformed"))
        try:
            name, roster, rules = (
                clean_group_name(raw["name"]),
                clean_roster(raw["roster"]),
                group_rules_json(raw["rules"]),
            )
        except GroupError as e:
            raise _refuse(_("the export's group is malformed (%(reason)s)", reason=str(e))) from None
        if (name, roster, rules) != (raw["name"], raw["roster"], raw["rules"]) or len(roster) > MAX_ROSTER:
            raise _refuse(_("the export's group is malformed (its name, roster or rules are not as Muggins "
                            "writes them)"))
        # TRANSLATORS: the subject of an import refusal ("the group has a bad id").
        the_group = _("the group")
        group = GroupRecord(
            _id(raw["id"], the_group),
            _id(raw["viewer_id"], the_group),
            name,
            roster,
            rules,
            _when(raw["created_at"], the_group),
        )
        if group.id == group.viewer_id:
            raise _refuse(_("the export's group has one id for both links"))
    elif len(matches) != 1:
        raise _refuse(_("a match's export holds exactly one match"))
    return group, matches


CSV_COLUMNS: Final = (
    "name",
    "games_played",
    "games_won",
    "matches_won",
    "game_points",
    "skunks_given",
    "skunks_received",
    "average_hand",
    "average_crib",
    "average_pegging",
    "highest_hand",
)


def records_csv(records: GroupRecords) -> str:
    """The standings as CSV, one player a row, in standing order (averages to 2 places)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for player in records.players:
        row = player.to_json()
        writer.writerow([_cell(row[c]) for c in CSV_COLUMNS])
    return out.getvalue()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    text = str(value)
    # A spreadsheet runs a cell starting with = + - @ as a formula: a name never should.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
