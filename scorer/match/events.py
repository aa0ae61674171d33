"""Events as frozen dataclasses, read once at the edge by ``parse_event``.

``parse_event`` checks what every event must be whatever the match: plain JSON, a known type,
its required keys present and no unknown key (a typo never passes silently). The values are
kept as given: whether a seat, a card or an event number is right depends on the match (how
many players, which event came before), so the engine reads them in context, in the order its
messages promise. A key left out is ``ABSENT``, not ``None``: ``"player": null`` is a bad seat,
a missing ``player`` is no seat at all.

>>> event = parse_event({"type": "show", "player": 1, "hand": "5H 5C 5S JD"})
>>> event
Show(player=1, hand='5H 5C 5S JD', points=ABSENT, claimed=ABSENT)
>>> event.to_json()
{'type': 'show', 'player': 1, 'hand': '5H 5C 5S JD'}
>>> parse_event({"type": "show", "hand": "5H 5C 5S JD"})
Traceback (most recent call last):
...
scorer.errors.MatchError: a show event needs player
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Final, cast

from scorer.cards import Card, parse_cards
from scorer.errors import MatchError
from scorer.i18n import _, ngettext
from scorer.rules import as_whole

__all__ = [
    "ABSENT", "Absent", "Event", "Cut", "Starter", "Peg", "Show", "Crib", "Muggins", "Correction", "Void",
    "NextGame", "SettingsChange", "EVENT_TYPES", "parse_event", "MAX_PLAY_POINTS", "MAX_REASON_LENGTH",
]

MAX_PLAY_POINTS = 60
"""Most points one player may peg in one hand's play when entered as numbers: four cards of at
most 15 each (a card pegs at most 14, the fourth of a rank making 31, or 13 with a go). More is
a typo."""
MAX_REASON_LENGTH = 200
"""Longest reason for a correction or undo, in characters."""


class Absent(Enum):
    """The value of an optional key the event leaves out."""

    ABSENT = "absent"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = Absent.ABSENT


@dataclass(frozen=True, slots=True)
class _Event:
    """What every event has: the plain-JSON dict it was read from, kept for the log as given."""

    TYPE: ClassVar[str]
    raw: Mapping[str, object] = field(repr=False, compare=False)

    @property
    def type(self) -> str:
        """The event's type, as in its JSON."""
        return self.TYPE

    def to_json(self) -> dict[str, object]:
        """The event as plain JSON, keys in the order given (what a store keeps)."""
        return dict(self.raw)


@dataclass(frozen=True, slots=True)
class Cut(_Event):
    """``{"cards": ["5H", "KD"]}``: one card per seat, null for a seat not cutting again."""

    TYPE: ClassVar[str] = "cut"
    cards: object


@dataclass(frozen=True, slots=True)
class Starter(_Event):
    """``{"card": "JD"}``, or ``{"card": null, "heels": true}`` when cards are not entered."""

    TYPE: ClassVar[str] = "starter"
    card: object
    heels: object = ABSENT


@dataclass(frozen=True, slots=True)
class Peg(_Event):
    """Points in the play: ``{"player": 1, "points": 2}`` or ``{"plays": "Ann:5H Bob:TS"}``."""

    TYPE: ClassVar[str] = "peg"
    player: object = ABSENT
    points: object = ABSENT
    plays: object = ABSENT
    claimed: object = ABSENT


@dataclass(frozen=True, slots=True)
class Show(_Event):
    """A hand counted: ``{"player": 1, "hand": "5H 5C 5S JD"}`` or ``{"player": 1, "points": 8}``."""

    TYPE: ClassVar[str] = "show"
    player: object
    hand: object = ABSENT
    points: object = ABSENT
    claimed: object = ABSENT


@dataclass(frozen=True, slots=True)
class Crib(_Event):
    """The crib counted: ``{"hand": "2C 3C KD QH"}`` or ``{"points": 4}``."""

    TYPE: ClassVar[str] = "crib"
    player: object = ABSENT
    hand: object = ABSENT
    points: object = ABSENT
    claimed: object = ABSENT


@dataclass(frozen=True, slots=True)
class Muggins(_Event):
    """``{"player": 0, "seq": 7, "points": 2}``, with ``"from"`` (here ``from_``) naming whose miss."""

    TYPE: ClassVar[str] = "muggins"
    player: object
    seq: object
    points: object
    from_: object = ABSENT


@dataclass(frozen=True, slots=True)
class Correction(_Event):
    """``{"player": 0, "points": -2, "reason": "pegged twice"}`` (or ``"side"``)."""

    TYPE: ClassVar[str] = "correction"
    points: object
    reason: object
    player: object = ABSENT
    side: object = ABSENT


@dataclass(frozen=True, slots=True)
class Void(_Event):
    """``{"seq": 7, "reason": "typo"}``: undo event 7."""

    TYPE: ClassVar[str] = "void"
    seq: object
    reason: object = ABSENT


@dataclass(frozen=True, slots=True)
class NextGame(_Event):
    """``{}``: start the next game once one is won."""

    TYPE: ClassVar[str] = "next_game"


@dataclass(frozen=True, slots=True)
class SettingsChange(_Event):
    """``{"players": ["Ann", "Bob"]}`` names the seats anew, ``{"scores_only": true}`` says the
    table enters scores without cards from now on: either or both, at any time."""

    TYPE: ClassVar[str] = "settings"
    players: object = ABSENT
    scores_only: object = ABSENT


Event = Cut | Starter | Peg | Show | Crib | Muggins | Correction | Void | NextGame | SettingsChange
"""Any event."""

_CLASSES: tuple[type[Event], ...] = (
    Cut, Starter, Peg, Show, Crib, Muggins, Correction, Void, NextGame, SettingsChange,
)

EVENT_TYPES = tuple(cls.TYPE for cls in _CLASSES)
"""Every event type, in the order they appear in a hand's life."""

_BY_TYPE: dict[str, type[Event]] = {cls.TYPE: cls for cls in _CLASSES}

# Required and optional keys of each event type, besides "type".
_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "cut": (frozenset({"cards"}), frozenset()),
    "starter": (frozenset({"card"}), frozenset({"heels"})),
    "peg": (frozenset(), frozenset({"player", "points", "plays", "claimed"})),
    "show": (frozenset({"player"}), frozenset({"hand", "points", "claimed"})),
    "crib": (frozenset(), frozenset({"player", "hand", "points", "claimed"})),
    "muggins": (frozenset({"player", "seq", "points"}), frozenset({"from"})),
    "correction": (frozenset({"points", "reason"}), frozenset({"player", "side"})),
    "void": (frozenset({"seq"}), frozenset({"reason"})),
    "next_game": (frozenset(), frozenset()),
    "settings": (frozenset(), frozenset({"players", "scores_only"})),
}

_FIELD_NAMES = {"from": "from_"}
"""JSON keys that are Python keywords, and their field names."""


def parse_event(event: object) -> Event:
    """The event read from a plain-JSON copy of ``event``; raise ``MatchError`` when malformed."""
    if not isinstance(event, Mapping):
        raise MatchError(_("an event must be an object with a type, not %(value)s", value=repr(event)))
    try:
        copy = json.loads(json.dumps(dict(event), allow_nan=False))
    except (TypeError, ValueError) as err:
        raise MatchError(_("an event must be plain JSON: %(error)s", error=str(err))) from None
    except RecursionError:
        raise MatchError(_("an event must be plain JSON: it is nested too deeply")) from None
    kind = copy.get("type")
    if kind not in EVENT_TYPES:
        raise MatchError(_("unknown event type %(type)s (one of %(types)s)", type=repr(kind),
                           types=", ".join(EVENT_TYPES)))
    required, optional = _KEYS[kind]
    keys = set(copy) - {"type"}
    missing = sorted(required - keys)
    if missing:
        raise MatchError(_("a %(type)s event needs %(keys)s", type=kind, keys=", ".join(missing)))
    unknown = sorted(keys - required - optional)
    if unknown:
        allowed = ", ".join(sorted(required | optional)) or _("nothing else")
        raise MatchError(_("a %(type)s event takes %(keys)s, not %(key)s", type=kind, keys=allowed,
                           key=repr(unknown[0])))
    raw: dict[str, object] = dict(copy)
    values: dict[str, object] = {
        _FIELD_NAMES.get(key, key): value for key, value in raw.items() if key != "type"
    }
    return _BY_TYPE[kind](raw, **values)


# -- values read in context ------------------------------------------------------------------


def given(value: object) -> bool:
    """Whether an optional key was given (even as null)."""
    return value is not ABSENT


def seq_ref(value: object, key: str, seq: int) -> int:
    """The earlier event named by ``value`` (the event's ``key``), for an event numbered ``seq``."""
    if seq == 1:
        raise MatchError(_("%(key)s: there is no earlier event to name", key=key))
    return as_whole(value, _("%(key)s (an earlier event's number)", key=key), 1, seq - 1)


def read_cards(value: object, count: int, what: str) -> list[Card]:
    """``count`` cards from text or a list of tokens; raise ``MatchError`` naming ``what``."""
    if not isinstance(value, str | list):
        raise MatchError(_("%(what)s must be cards like '5H 5C 5S JD', not %(value)s", what=what,
                           value=repr(value)))
    try:
        # parse_cards checks every token's type itself and names a bad one.
        return parse_cards(cast("str | list[str]", value), count, what)
    except ValueError as err:
        raise MatchError(_("%(what)s: %(error)s", what=what, error=str(err))) from None


def read_reason(value: object, required: bool) -> str:
    """A correction's or undo's reason, spaces tidied; ``""`` when optional and left out."""
    if (value is ABSENT or value is None) and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise MatchError(_("give a reason, like 'pegged twice'"))
    if len(value) > MAX_REASON_LENGTH:
        raise MatchError(ngettext("the reason is longer than %(num)s character",
                                  "the reason is longer than %(num)s characters", MAX_REASON_LENGTH))
    return " ".join(value.split())
