"""Write ``b66276b.sqlite`` and ``b66276b.json``: matches stored by the code of commit b66276b.

Run once, from a checkout of b66276b (the store and engine as they were before Alembic):
``.venv/bin/python tests/data/db/make_b66276b.py``. The SQLite file is the database that
version left behind; the JSON beside it records, for every match, its record, its events as the
store handed them back and the replayed ``Match.to_json()``, all read at that commit.
``tests/test_migrations.py`` opens a copy with today's store and checks every match is intact.
The file is committed, not made by the tests: the point is a database the old code wrote.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from scorer.match import Match, new_match_settings  # noqa: E402
from store import Store  # noqa: E402

DB = HERE / "b66276b.sqlite"
EXPECTED = HERE / "b66276b.json"
THREE_PLAYER_GAME = [  # tests/data/games/three_players_61.txt: a cut, then a whole game won by Cat
    {"type": "cut", "cards": ["7H", "3D", "3S"]},
    {"type": "cut", "cards": [None, "KC", "2D"]},
    {"type": "starter", "card": "5C"},
    {"type": "peg", "plays": "Ann:9D Bob:6C Cat:5H Ann:7S Bob:4D Cat:5S "
                             "Ann:3H Bob:8H Cat:TD Ann:2H Bob:QS Cat:KS"},
    {"type": "show", "player": 0, "hand": "2H 3H 7S 9D"},
    {"type": "show", "player": 1, "hand": "4D 6C 8H QS"},
    {"type": "show", "player": 2, "hand": "5H 5S TD KS"},
    {"type": "crib", "hand": "AS JC 9C 2C"},
    {"type": "starter", "card": "6H"},
    {"type": "peg", "plays": "Bob:2S Cat:4C Ann:3D Bob:9S Cat:6S Bob:7D "
                             "Cat:4S Ann:TC Bob:8D Cat:5D Ann:QC Ann:KD"},
    {"type": "show", "player": 1, "hand": "7D 8D 9S 2S"},
    {"type": "show", "player": 2, "hand": "4C 4S 5D 6S"},
    {"type": "show", "player": 0, "hand": "TC QC KD 3D"},
    {"type": "crib", "hand": "AC JH 8C 7C"},
    {"type": "starter", "card": "KH"},
    {"type": "peg", "plays": "Cat:QD Ann:8S Bob:4H Cat:5C Ann:AH Bob:3C "
                             "Cat:JD Ann:7H Bob:2D Cat:5H Ann:6S Bob:9H"},
    {"type": "show", "player": 2, "hand": "5C 5H QD JD"},
]


def play(store: Store, settings: dict[str, Any], events: list[dict[str, Any]], keyed: bool) -> str:
    """A match with ``events`` appended one by one, each checked by the engine as the app does."""
    record = store.create_match(settings)
    match = Match(settings)
    for n, event in enumerate(events, 1):
        match = match.apply(event)  # refuse anything the engine would not store
        key = f"{record.id[:8]}-{n}" if keyed and n % 3 != 0 else None  # some events keyless
        store.append(record.id, n - 1, event, idempotency_key=key)
        if key is not None:  # a retry of the same event with the same key stores nothing
            assert store.append(record.id, n - 1, event, idempotency_key=key).duplicate
    return record.id


def main() -> None:
    DB.unlink(missing_ok=True)
    with Store.from_path(DB) as store:
        store.create_schema()
        two = new_match_settings(["Ann", "Bob"], first_dealer=0, length={"kind": "best_of", "games": 3})
        ids = [
            # 2 players with cards, a mistaken show undone and entered again.
            play(store, two, [
                {"type": "starter", "card": "JD"},
                {"type": "peg", "plays": "Bob:5H Ann:TS Bob:5C Ann:5S"},
                {"type": "show", "player": 1, "hand": "5H 5C 4D 6D", "claimed": 16},
                {"type": "void", "seq": 3, "reason": "wrong hand"},
                {"type": "show", "player": 1, "hand": "5H 5C 4D 7D"},
            ], keyed=True),
            # 2 players, scores only, muggins on, a correction and an undo of it.
            play(store, new_match_settings(["Zoë", "Ola"], target=61, preset="acc", muggins=True,
                                           first_dealer=1, length={"kind": "points", "points": 5}), [
                {"type": "starter", "card": None, "heels": True},
                {"type": "peg", "player": 0, "points": 2},
                {"type": "peg", "player": 1, "points": 3},
                {"type": "show", "player": 0, "points": 8},
                {"type": "show", "player": 1, "points": 12},
                {"type": "crib", "points": 4},
                {"type": "correction", "player": 0, "points": -1, "reason": "pegged twice"},
                {"type": "void", "seq": 7, "reason": "no, it was right"},
                {"type": "starter", "card": None},
            ], keyed=True),
            # 3 players to 61: a cut, a finished game (Cat wins), the next game started.
            play(store, new_match_settings(["Ann", "Bob", "Cat"], target=61, first_dealer=None,
                                           length={"kind": "best_of", "games": 3}),
                 [*THREE_PLAYER_GAME, {"type": "next_game"}], keyed=True),
            # 4 players in partnerships, no keys at all.
            play(store, new_match_settings(["Ann", "Bob", "Cat", "Dan"], first_dealer=2), [
                {"type": "starter", "card": "2H"},
                {"type": "peg", "player": 3, "points": 2},
            ], keyed=False),
            # Created, never played.
            store.create_match(two).id,
        ]
        expected = []
        for match_id in ids:
            record = store.get_match(match_id)
            events = store.events(match_id)
            expected.append({
                "id": record.id, "viewer_id": record.viewer_id, "settings": record.settings,
                "created_at": record.created_at.isoformat(),
                "events": [{"seq": e.seq, "event": e.event, "created_at": e.created_at.isoformat(),
                            "idempotency_key": e.idempotency_key} for e in events],
                "match": Match(record.settings, [e.event for e in events]).to_json(),
            })
    EXPECTED.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for suffix in ("-wal", "-shm"):
        Path(str(DB) + suffix).unlink(missing_ok=True)


if __name__ == "__main__":
    main()
