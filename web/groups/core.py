"""A group's rules, roster and records: validating what a client sends, and reading the records
through the per-match summaries the store keeps.

The records of a group are the sum of what each of its matches adds (``scorer.records``). Each
match's summary is stored beside it with the ``seq`` it was made at, so a group page asks the
store for every match's last ``seq`` and its summary in one query, and replays only the matches
that moved on since (usually one, or none): a page costs the same whether the group has played
ten games or a thousand.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from flask import current_app

from scorer.errors import MatchError
from scorer.i18n import _, digits, ngettext, using
from scorer.match import MAX_NAME_LENGTH, Match, Settings, check_new_names, new_settings_json
from scorer.records import SUMMARY_VERSION, GroupRecords, MatchSummary, group_records, summarise
from scorer.rules import ThreePlayerSkunk
from store import MAX_ROSTER, GroupMatch, GroupRecord, MatchRecord, Store, StoreError

__all__ = [
    "MAX_GROUP_NAME",
    "DEFAULT_RULES",
    "GroupError",
    "clean_group_name",
    "clean_roster",
    "group_rules_json",
    "match_settings_for_group",
    "GroupView",
    "group_view",
]

MAX_GROUP_NAME: Final = 60
"""Longest group name in characters: a page title on a phone."""
RULE_KEYS: Final = ("target", "preset", "custom", "length", "muggins", "three_player_skunk", "scores_only")
"""The house rules a group keeps: a match's settings but its players and first dealer, plus
whether the table enters scores only or cards (kept for the screen that will use it)."""
DEFAULT_RULES: Final[dict[str, object]] = {
    "target": 121,
    "preset": "home",
    "custom": None,
    "length": {"kind": "best_of", "games": 1},
    "muggins": False,
    "three_player_skunk": "runner-up",
    "scores_only": False,
}


class GroupError(ValueError):
    """A group name, roster, rule or player list that cannot be used; the message says why."""


def clean_group_name(raw: object) -> str:
    """The group's name with spaces tidied, or ``GroupError``."""
    if not isinstance(raw, str) or not raw.strip():
        raise GroupError(_("the group needs a name, like “The Thursday club”"))
    name = " ".join(raw.split())
    if len(name) > MAX_GROUP_NAME:
        raise GroupError(ngettext("the group's name is longer than %(num)s character",
                                  "the group's name is longer than %(num)s characters", MAX_GROUP_NAME))
    # The engine's refusal names "player 1": asked in English, it says which of its two refusals
    # it is, and the group's own sentence says it of the group, in the player's language.
    with using("en"):
        try:
            check_new_names([name])
            refusal = None
        except MatchError as e:
            refusal = str(e)
    if refusal is not None:
        control = re.search(r"\((U\+[0-9A-F]{4,6})\)", refusal)
        if control:
            raise GroupError(_("the group's name holds a text-direction control (%(code)s): remove it",
                               code=control.group(1)))
        raise GroupError(_("the group needs a name that shows on screen: %(name)s has no visible letter",
                           name=ascii(name)))
    return name


def clean_roster(raw: object, *, at_least: int = 0) -> list[str]:
    """Player names tidied, each once (ignoring case), each one a match could take."""
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise GroupError(_('players must be a list of names, like ["Ann", "Bob"]'))
    out: list[str] = []
    for i, name in enumerate(raw, 1):
        clean = " ".join(name.split())
        if not clean:
            raise GroupError(_("player %(number)s needs a name", number=digits(i)))
        if len(clean) > MAX_NAME_LENGTH:
            raise GroupError(ngettext("player %(number)s's name is longer than %(num)s character: %(name)s",
                                      "player %(number)s's name is longer than %(num)s characters: %(name)s",
                                      MAX_NAME_LENGTH, number=digits(i), name=repr(clean)))
        if clean.casefold() in (p.casefold() for p in out):
            raise GroupError(_("two players are called %(name)s: give each a different name",
                               name=repr(clean)))
        out.append(clean)
    try:
        check_new_names(out)
    except MatchError as e:
        raise GroupError(str(e)) from None
    if len(out) < at_least:
        raise GroupError(ngettext("a group needs at least %(num)s player",
                                  "a group needs at least %(num)s players", at_least))
    if len(out) > MAX_ROSTER:
        raise GroupError(ngettext("a group's roster holds at most %(num)s player",
                                  "a group's roster holds at most %(num)s players", MAX_ROSTER))
    return out


def group_rules_json(raw: object) -> dict[str, object]:
    """The house rules, validated and normalised (``DEFAULT_RULES`` for whatever is left out)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise GroupError(_('rules must be an object, like {"target": 121, "preset": "home"}'))
    unknown = sorted(set(raw) - set(RULE_KEYS))
    if unknown:
        raise GroupError(_("unknown rule %(rule)s: the rules are %(rules)s", rule=repr(unknown[0]),
                           rules=", ".join(RULE_KEYS)))
    rules = {**DEFAULT_RULES, **raw}
    judging = rules["three_player_skunk"]
    if judging not in [c.value for c in ThreePlayerSkunk]:
        raise GroupError(_("three_player_skunk must be runner-up or each-loser, not %(value)s",
                           value=repr(judging)))
    if not isinstance(rules["scores_only"], bool):
        raise GroupError(_("scores_only must be true or false, not %(value)s",
                           value=repr(rules["scores_only"])))
    try:
        probe = Settings.from_json(
            {k: rules[k] for k in ("target", "preset", "custom", "length", "muggins")}
            | {"players": ["A", "B"]}
        ).to_json()
    except MatchError as e:
        raise GroupError(str(e)) from None
    return {
        **{k: probe[k] for k in ("target", "preset", "custom", "length", "muggins")},
        "three_player_skunk": judging,
        "scores_only": rules["scores_only"],
    }


def match_settings_for_group(
    group: GroupRecord, players: Sequence[object], given: Mapping[str, object] | None = None
) -> dict[str, object]:
    """A new match's settings: the group's rules, then anything ``given`` (the API's body), with
    roster names spelt as the roster spells them and new names as given (they join the roster)."""
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
        raise GroupError(_('players must be a list of names, like ["Ann", "Bob"]'))
    by_fold = {n.casefold(): n for n in group.roster}
    names = [by_fold.get(" ".join(p.split()).casefold(), p) for p in players]
    data: dict[str, object] = {**group.rules, **(given or {}), "players": names}
    # The group's choice is for three players; another table leaves it out unless asked outright.
    if len(names) != 3 and (
        data.get("three_player_skunk") == "runner-up" or "three_player_skunk" not in (given or {})
    ):
        data.pop("three_player_skunk", None)
    try:
        return new_settings_json(data)
    except MatchError as e:
        raise GroupError(str(e)) from None


@dataclass(frozen=True, slots=True)
class GroupView:
    """What a group page shows: the group, its matches (oldest first) with their summaries, and
    the records they add up to."""

    group: GroupRecord
    can_write: bool
    matches: list[tuple[MatchRecord, int, MatchSummary]]
    records: GroupRecords


def summaries_for(store: Store, rows: list[GroupMatch]) -> list[MatchSummary]:
    """Each match's summary: the stored one when it is at the match's last seq and of this
    version, else made from the events and stored for the next page."""
    out: list[MatchSummary] = []
    fresh: list[tuple[str, int, int, str]] = []
    for row in rows:
        summary = None
        if (
            row.summary is not None
            and row.summary_seq == row.last_seq
            and row.summary_version == SUMMARY_VERSION
        ):
            summary = MatchSummary.from_json(json.loads(row.summary))
        if summary is None:
            events = store.events(row.record.id)
            match = Match(row.record.settings, [e.event for e in events])
            summary = summarise(match, [e.created_at for e in events])
            fresh.append(
                (
                    row.record.id,
                    events[-1].seq if events else 0,
                    SUMMARY_VERSION,
                    json.dumps(summary.to_json(), ensure_ascii=False, separators=(",", ":")),
                )
            )
        out.append(summary)
    try:
        store.save_summaries(fresh)
    except StoreError as err:
        # Only a cache: another request storing the same summaries first (a key clash), or a
        # locked database, costs the next page a replay, never this page its answer.
        current_app.logger.warning("match summaries not stored: %s", err)
    return out


_RECORDS_CACHE_SIZE: Final = 32
"""Groups whose added-up records each process keeps: a group's records are a pure function of its
roster and its matches' (id, last seq), so an entry can never be stale, only unused."""
_records_cache: OrderedDict[tuple[object, ...], tuple[list[MatchSummary], GroupRecords]] = OrderedDict()
_records_lock = threading.Lock()


def group_view(store: Store, token: str) -> GroupView:
    """The group behind a scorer or viewer link with its records (``GroupNotFound`` if none).

    Two queries (the link, then every match's last seq with its stored summary); the summaries
    are parsed and added up once per (roster, matches and their seqs) in each process."""
    linked = store.group_by_link(token)
    rows = store.group_matches(linked.record.id)
    key = (linked.record.id, tuple(linked.record.roster), tuple((r.record.id, r.last_seq) for r in rows))
    with _records_lock:
        cached = _records_cache.get(key)
        if cached is not None:
            _records_cache.move_to_end(key)
    if cached is None:
        summaries = summaries_for(store, rows)
        cached = (summaries, group_records(linked.record.roster, summaries))
        with _records_lock:
            _records_cache[key] = cached
            while len(_records_cache) > _RECORDS_CACHE_SIZE:
                _records_cache.popitem(last=False)
    summaries, records = cached
    matches = [(row.record, row.last_seq, s) for row, s in zip(rows, summaries, strict=True)]
    return GroupView(linked.record, linked.scorer, matches, records)


def records_json(view: GroupView, links: Mapping[str, Any]) -> dict[str, object]:
    """The API's JSON of a group and its records."""
    return {
        "name": view.group.name,
        "roster": view.group.roster,
        "rules": view.group.rules,
        "can_write": view.can_write,
        "players": [p.to_json() for p in view.records.players],
        "head_to_head": [h.to_json() for h in view.records.head_to_head],
        "big_hands": [b.to_json() for b in view.records.big_hands],
        "matches": [
            {
                "id": record.id if view.can_write else None,
                "viewer_id": record.viewer_id,
                "players": record.settings.get("players"),
                "created_at": record.created_at.isoformat(),
                "seq": seq,
                "games": [g.to_json() for g in summary.games],
                "winners": list(summary.winners),
                "links": links.get(record.viewer_id, {}),
            }
            for record, seq, summary in reversed(view.matches)
        ],
    }
