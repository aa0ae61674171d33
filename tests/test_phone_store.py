"""The store's part of matches kept on a phone: the list of matches it keeps, newest first, and
the note of where each was uploaded (issue 25), on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from store import InvalidRecord, MatchNotFound, Store
from web.groups.exchange import export_document, export_text

SCORER = "http://192.168.1.20:8000/m/abc"
VIEWER = "http://192.168.1.20:8000/m/def"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    url = f"sqlite:///{tmp_path / 'phone.db'}"
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_fresh_url")
    now = [datetime(2026, 12, 1, 19, 0, tzinfo=UTC)]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)  # each match made a minute after the one before
        return now[0]

    with Store(url, clock=clock) as s:
        s.create_schema()
        yield s


def test_the_list_is_newest_first_with_last_seq_and_upload(store: Store) -> None:
    first = store.create_match({"players": ["Ann", "Bob"]})
    second = store.create_match({"players": ["Cat", "Dan"]})
    store.append(first.id, 0, {"type": "peg", "player": 0, "points": 2})
    store.append(first.id, 1, {"type": "peg", "player": 1, "points": 1})
    store.record_upload(first.id, SCORER, VIEWER, 2)
    kept = store.recent_matches(10)
    assert [k.record.id for k in kept] == [second.id, first.id]
    assert [k.last_seq for k in kept] == [0, 2]
    assert kept[0].upload is None
    upload = kept[1].upload
    assert upload is not None and (upload.scorer_url, upload.viewer_url, upload.seq) == (SCORER, VIEWER, 2)
    assert store.upload_of(first.id) == upload
    assert [k.record.id for k in store.recent_matches(1)] == [second.id]


def test_recording_again_replaces_the_note(store: Store) -> None:
    match = store.create_match({"players": ["Ann", "Bob"]})
    store.append(match.id, 0, {"type": "peg", "player": 0, "points": 2})
    store.record_upload(match.id, SCORER, VIEWER, 0)
    store.record_upload(match.id, SCORER + "x", VIEWER, 1)
    upload = store.upload_of(match.id)
    assert upload is not None and (upload.scorer_url, upload.seq) == (SCORER + "x", 1)
    assert len(store.recent_matches(10)) == 1


def test_an_upload_note_is_not_part_of_the_export(store: Store) -> None:
    # The note says where this copy went, not what the match is: a retried upload must send the
    # same bytes as the first.
    match = store.create_match({"players": ["Ann", "Bob"]})
    store.append(match.id, 0, {"type": "peg", "player": 0, "points": 2})
    before = export_text(export_document(None, [store.export_match(match.id)]))
    store.record_upload(match.id, SCORER, VIEWER, 1)
    assert export_text(export_document(None, [store.export_match(match.id)])) == before


def test_bad_notes_are_refused_and_store_nothing(store: Store) -> None:
    match = store.create_match({"players": ["Ann", "Bob"]})
    store.append(match.id, 0, {"type": "peg", "player": 0, "points": 2})
    with pytest.raises(InvalidRecord, match="no upload went as far as event 2"):
        store.record_upload(match.id, SCORER, VIEWER, 2)
    with pytest.raises(InvalidRecord, match="1 to 2048 characters"):
        store.record_upload(match.id, "h" * 2049, VIEWER, 1)
    with pytest.raises(InvalidRecord, match="whole number"):
        store.record_upload(match.id, SCORER, VIEWER, -1)
    with pytest.raises(MatchNotFound):
        store.record_upload(match.viewer_id, SCORER, VIEWER, 1)  # the viewer id is not the match's id
    assert store.upload_of(match.id) is None
    assert store.upload_of("not an id!") is None


def test_a_pruned_match_takes_its_note_with_it(store: Store) -> None:
    match = store.create_match({"players": ["Ann", "Bob"]})
    store.record_upload(match.id, SCORER, VIEWER, 0)
    assert store.prune_unplayed(timedelta(0)) == 1
    assert store.upload_of(match.id) is None and store.recent_matches(10) == []
