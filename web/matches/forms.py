"""Reading the match forms: one small builder per form turns it into one event (or a draft of
picked cards), and the new-match form becomes engine settings.

Picking show or crib cards is a draft (nothing stored) held in the address (``?cards=5H-5C``);
scoring it is one event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from flask_babel import gettext as _  # type: ignore[import-untyped]

from scorer.cards import Card
from scorer.errors import CardError, MatchError
from scorer.i18n import N_, digits
from scorer.match import MAX_PLAY_POINTS, MAX_REASON_LENGTH, Match, new_match_settings
from scorer.rules import HAND_SIZE, MAX_SHOW_POINTS, TARGETS, ThreePlayerSkunk, presets_for
from web.forms import parse_claim, picker_action, sentence, whole_number

__all__ = ["FormError", "Draft", "build_event", "match_settings_from_form"]


class FormError(ValueError):
    """A form that cannot become an event; ``form`` names the form the message belongs beside."""

    def __init__(self, form: str, message: str) -> None:
        super().__init__(message)
        self.form = form


@dataclass(frozen=True, slots=True)
class Draft:
    """Show or crib cards being picked: nothing is stored until they are scored."""

    cards: str
    claimed: str = ""


Built: TypeAlias = dict[str, object] | Draft
"""What a form asks for: an event to store, or show or crib cards still being picked."""


def build_event(form: Mapping[str, str], match: Match) -> Built:
    """The event one form asks for, or a draft of picked cards; ``FormError`` when unusable."""
    builder = _BUILDERS.get(form.get("form", ""))
    if builder is None:
        raise FormError("general", _("That form is not one this page knows. Reload the page."))
    return builder(form, match)


def _cut(form: Mapping[str, str], match: Match) -> Built:
    """The cut cards tapped so far, in the order of the players cutting: a draft until each has
    one, then the cut (``cards`` holds the earlier taps, as a hand's picked cards do)."""
    cutting = match.state.cutting
    picked = picker_action(form, len(cutting), _("Every player has cut: take one back first."))
    if picked.error:
        raise FormError("cut", picked.error)
    if len(picked.cards) < len(cutting) or form.get("op") in ("back", "clear"):
        return Draft(picked.text)
    by_seat = dict(zip(cutting, map(str, picked.cards), strict=True))
    return {"type": "cut", "cards": [by_seat.get(seat) for seat in range(len(match.settings.players))]}


def _starter(form: Mapping[str, str], match: Match) -> Built:
    op = form.get("op", "")
    if op == "skip":
        return {"type": "starter", "card": None}
    if op == "heels":
        return {"type": "starter", "card": None, "heels": True}
    if not form.get("tap"):
        raise FormError("starter", _("Tap the starter card."))
    return {"type": "starter", "card": _card(form["tap"], "starter")}


def _play(form: Mapping[str, str], match: Match) -> Built:
    seat = _seat(form, "who", match, "play")
    if not form.get("tap"):
        raise FormError("play", _("Tap the card that was played."))
    return {"type": "peg", "plays": [[seat, _card(form["tap"], "play")]]}


def _peg(form: Mapping[str, str], match: Match) -> Built:
    seat = _seat(form, "player", match, "peg")
    text = form.get("points_typed", "") if form.get("op", "") == "typed" else form.get("points", "")
    return {"type": "peg", "player": seat, "points": _whole(text, "peg", 1, MAX_PLAY_POINTS)}


def _show(form: Mapping[str, str], match: Match) -> Built:
    return _count_event(form, match, "show")


def _crib(form: Mapping[str, str], match: Match) -> Built:
    return _count_event(form, match, "crib")


def _settings(form: Mapping[str, str], match: Match) -> Built:
    """Scores only on or off (``op``), or new names for the seats (``name0``, ``name1`` ...)."""
    op = form.get("op", "")
    if op in ("scores_only", "cards"):
        return {"type": "settings", "scores_only": op == "scores_only"}
    names = [" ".join(form.get(f"name{seat}", "").split()) for seat in range(len(match.settings.players))]
    for seat, name in enumerate(names):
        if not name:
            raise FormError("settings", _("Enter a name for player %(num)s.", num=digits(seat + 1)))
    return {"type": "settings", "players": names}


def _next_game(form: Mapping[str, str], match: Match) -> Built:
    return {"type": "next_game"}


def _void(form: Mapping[str, str], match: Match) -> Built:
    seq = _whole(form.get("seq", ""), "void", 1, max(1, len(match.events)), "entry number")
    reason = " ".join(form.get("reason", "").split())[:MAX_REASON_LENGTH]
    return {"type": "void", "seq": seq, **({"reason": reason} if reason else {})}


def _muggins(form: Mapping[str, str], match: Match) -> Built:
    event: dict[str, object] = {
        "type": "muggins", "player": _seat(form, "player", match, "muggins"),
        "seq": _whole(form.get("seq", ""), "muggins", 1, max(1, len(match.events)), "entry number"),
        "points": _whole(form.get("points", ""), "muggins", 1, MAX_PLAY_POINTS),
    }
    victim = whole_number(form.get("from", ""))
    if victim is not None:
        event["from"] = victim
    return event


def _correction(form: Mapping[str, str], match: Match) -> Built:
    reason = " ".join(form.get("reason", "").split())
    if not reason:
        raise FormError("correction", _("Give a reason, like “pegged twice”."))
    target = match.settings.target
    return {"type": "correction", "player": _seat(form, "player", match, "correction"),
            "points": _whole(form.get("points", ""), "correction", -target, target),
            "reason": reason[:MAX_REASON_LENGTH]}


_BUILDERS: dict[str, Callable[[Mapping[str, str], Match], Built]] = {
    "cut": _cut, "starter": _starter, "play": _play, "peg": _peg, "show": _show, "crib": _crib,
    "next_game": _next_game, "void": _void, "muggins": _muggins, "correction": _correction,
    "settings": _settings,
}
"""Each match form by its name (the form's hidden ``form`` field)."""


def _count_event(form: Mapping[str, str], match: Match, which: str) -> Built:
    """A hand or crib: picked cards stay a draft until scored; a number pad scores at once."""
    op = form.get("op", "")
    state = match.state
    seat = state.dealer if which == "crib" else state.to_count
    if seat is None:
        raise FormError(which, _("No hand is waiting to be counted."))
    extra: dict[str, object] = {} if which == "crib" else {"player": seat}
    if form.get("points", "") != "" and op != "score":
        points = _whole(form["points"], which, 0, MAX_SHOW_POINTS)
        return {"type": which, **extra, "points": points}
    picked = picker_action(form, HAND_SIZE, _("Four cards are in: take one back first."))
    if op != "score":
        if picked.error:
            raise FormError(which, picked.error)
        return Draft(picked.text, form.get("claimed", ""))
    if picked.error:
        raise FormError(which, picked.error)
    if len(picked.cards) != HAND_SIZE:
        message = (N_("Pick the %(size)s cards of the crib (%(num)s so far).") if which == "crib"
                   else N_("Pick the %(size)s cards of the hand (%(num)s so far)."))
        raise FormError(which, _(message, size=digits(HAND_SIZE), num=digits(len(picked.cards))))
    claimed, claim_error = parse_claim(form.get("claimed", ""))
    if claim_error:
        raise FormError(which, claim_error)
    event: dict[str, object] = {"type": which, **extra, "hand": picked.text}
    if claimed is not None:
        event["claimed"] = claimed
    return event


def _seat(form: Mapping[str, str], name: str, match: Match, which: str) -> int:
    text = form.get(name, "")
    seat = whole_number(text)
    if seat is None or seat >= len(match.settings.players):
        raise FormError(which, _("Choose a player."))
    return seat


def _card(token: str, which: str) -> str:
    try:
        return str(Card.parse(token))
    except CardError as e:
        raise FormError(which, sentence(str(e))) from None


_WHOLE_MESSAGES = {
    "points": (N_("Enter the points as a whole number, like %(example)s."),
               N_("The points must be from %(low)s to %(high)s.")),
    "entry number": (N_("Enter the entry number as a whole number, like %(example)s."),
                     N_("The entry number must be from %(low)s to %(high)s.")),
}
"""What ``_whole`` says of each thing it reads: one whole sentence per thing, for word order."""


def _whole(text: str, which: str, low: int, high: int, what: str = "points") -> int:
    """A signed whole number from ``low`` to ``high``; ``FormError`` beside form ``which`` if not."""
    not_whole, out_of_range = _WHOLE_MESSAGES[what]
    text = text.strip()
    signless = text[1:] if text[:1] in "+-" else text
    magnitude = whole_number(signless)
    if magnitude is None:
        raise FormError(which, _(not_whole, example=2))  # typed in ASCII digits
    value = -magnitude if text.startswith("-") else magnitude
    if not low <= value <= high:
        raise FormError(which, _(out_of_range, low=digits(low), high=digits(high)))
    return value


def match_settings_from_form(form: Mapping[str, str]) -> tuple[dict[str, object] | None, dict[str, str]]:
    """The new-match form as engine settings, or messages keyed by field."""
    errors: dict[str, str] = {}
    names = [" ".join(form.get(f"name{i}", "").split()) for i in range(1, 5)]
    filled = [n for n in names if n]
    if any(names[2:]) and not all(names[:2]):
        errors["names"] = _("Fill the names in order: players 1 and 2 first.")
    elif len(filled) < 2:
        errors["names"] = _("Enter at least two names.")
    target_text = form.get("target", "121")
    target = whole_number(target_text) or 0
    if target not in TARGETS:
        errors["target"] = _("Choose a game of 121 or 61 points.")
    # Each target lists its own presets (preset_121, preset_61): a choice left checked under the
    # other target is never sent. A plain "preset" (the one-tap start, the API's habit) also reads.
    preset_name = form.get(f"preset_{target}") or form.get("preset", "home")
    if target in TARGETS and preset_name not in presets_for(target):
        # The presets are named as the form and the API send them (values, not words).
        errors["preset"] = _("Choose one of the skunk rules for %(target)s: %(presets)s.",
                             target=digits(target), presets=", ".join(presets_for(target)))
    judging = form.get("three_player_skunk", ThreePlayerSkunk.RUNNER_UP.value)
    if judging not in [j.value for j in ThreePlayerSkunk]:
        errors["three_player_skunk"] = _(
            "Choose whether a skunk is judged on the runner-up or on each loser.")
    kind = form.get("length_kind", "best_of")
    count_text = form.get("length_count", "1").strip()
    count = whole_number(count_text) or 0
    if kind not in ("best_of", "points"):
        errors["length"] = _("Choose best of N games, or first to N game points.")
    elif count < 1:
        errors["length"] = _("The match length is a whole number, 1 or more.")
    elif kind == "best_of" and count % 2 == 0:
        errors["length"] = _("Best of %(num)s could end level: choose an odd number of games.",
                             num=digits(count))
    dealer_text = form.get("first_dealer", "cut")
    first_dealer: int | None = None
    if dealer_text != "cut":
        first_dealer = whole_number(dealer_text)
        if first_dealer is None or first_dealer >= max(len(filled), 2):
            errors["first_dealer"] = _("Choose who deals first among the players named, or cut for it.")
    if errors:
        return None, errors
    length = {"kind": kind, "games" if kind == "best_of" else "points": count}
    try:
        settings = new_match_settings(
            filled, target=target, preset=preset_name, length=length, muggins=form.get("muggins") == "on",
            first_dealer=first_dealer, scores_only=form.get("entry") == "scores",
            # Only three players have a runner-up: with two or four the choice has no meaning.
            three_player_skunk=judging if len(filled) == 3 else None,
        )
    except MatchError as e:
        return None, {"names" if _names_refused(filled) else "length": sentence(str(e))}
    return settings, {}


def _names_refused(names: list[str]) -> bool:
    """Whether the engine refuses these names on their own (a message's field is told by which
    setting fails, never by reading its words: they are in the player's language)."""
    try:
        new_match_settings(names)
    except MatchError:
        return True
    return False
