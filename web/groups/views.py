"""The group pages: make a group, its page of records and charts, start a match from its roster.

A group is reached, like a match, by two unguessable links under ``/g/<group_token>``: the scorer's
(may start matches and add players) and the viewer's (reads only). Every form works as a plain
POST and redirect, without JavaScript.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from functools import lru_cache

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from scorer.cards import Card, parse_cards
from scorer.errors import MatchError
from scorer.i18n import N_, _, digits, ngettext
from scorer.match import Match
from scorer.records import GroupRecords, race
from scorer.rules import PRESETS, TARGETS, preset
from store import GroupNotFound, GroupRecord, InvalidRecord, MatchRecord
from web.charts import bar_chart, decimal, line_chart, local_digits
from web.groups.core import (
    GroupError,
    GroupView,
    clean_group_name,
    clean_roster,
    group_view,
    match_settings_for_group,
)
from web.groups.exchange import records_csv
from web.matches import load, match_settings_from_form, public_url
from web.storage import get_store

__all__ = ["bp"]

bp = Blueprint("groups", __name__)

RECENT_LIMIT = 8
"""Groups this phone remembers (session cookie) for the group list."""
QR_SCALE = 4
MAX_SEATS = 4
"""Most players at one match (two partnerships)."""
MATCHES_SHOWN = 20
"""Matches the page lists, newest first, until asked for all (``?matches=all``): the list is most
of a long-lived group's page, so a page stays small and fast however many years it holds."""
SHOW_TOTALS = range(30)
"""The totals a hand can count, 0 to 29 (19, 25, 26 and 27 never happen)."""
PRESET_NAMES = {"home": N_("Home"), "acc": N_("ACC tournament"), "lurch": N_("Lurch (British)")}
"""The skunk presets' names on the group form."""
PRESET_SKUNKS = {
    "home": N_("home skunks"),
    "acc": N_("acc skunks"),
    "lurch": N_("lurch skunks"),
    "custom": N_("custom skunks"),
}
"""A group's skunk rules in its rules line."""


def preset_skunks(name: str) -> str:
    """The group's skunk rules as the rules line says them."""
    return _(PRESET_SKUNKS[name]) if name in PRESET_SKUNKS else _("%(preset)s skunks", preset=name)


def versus(players: list[str]) -> str:
    """The players of a match, one against the next: "Ann v Bob v Cat"."""
    text = players[0] if players else ""
    for name in players[1:]:
        text = _("%(earlier)s v %(next)s", earlier=text, next=name)
    return text


def _template_helpers() -> dict[str, object]:
    """The functions the group pages write numbers and phrases with."""
    return {"decimal": decimal, "local_digits": local_digits, "preset_skunks": preset_skunks,
            "versus": versus}


def _remember(group: GroupRecord, can_write: bool) -> None:
    token = group.id if can_write else group.viewer_id
    recent: list[str] = session.get("groups", [])
    if recent[:1] != [token]:
        session["groups"] = [token, *(t for t in recent if t != token)][:RECENT_LIMIT]


def _view(token: str) -> GroupView:
    try:
        return group_view(get_store(), token)
    except GroupNotFound:
        abort(404, _("There is no group at this link. Check the link, or ask the group's scorer for it "
                     "again."))


def _writer(token: str) -> GroupRecord:
    try:
        linked = get_store().group_by_link(token)
    except GroupNotFound:
        abort(404, _("There is no group at this link."))
    if not linked.scorer:
        abort(403, _("This link can only watch the group: ask its scorer for the scoring link."))
    return linked.record


# ------------------------------------------------------------------------------ group list


def _recent() -> list[tuple[str, str, bool]]:
    out = []
    for token in session.get("groups", []):
        try:
            linked = get_store().group_by_link(token)
        except GroupNotFound:
            continue
        out.append((token, linked.record.name, linked.scorer))
    return out


def _index(form: Mapping[str, str], errors: dict[str, str], status: int = 200) -> Response:
    page = render_template(
        "groups/index.html",
        form=form,
        errors=errors,
        recent=_recent(),
        presets=PRESETS,
        targets=TARGETS,
        preset_names={name: _(PRESET_NAMES[name]) for name in PRESETS},
        # The preset's description without its name (the scorer's words, "home: plain win 1, ...").
        preset_lines={name: preset(name).describe().partition(": ")[2] or preset(name).describe()
                      for name in PRESETS},
        **_template_helpers(),
    )
    return make_response(page, status)


@bp.get("/groups")
def index() -> Response:
    """Make a group, or go back to one this phone opened."""
    return _index({}, {})


def rules_from_form(form: Mapping[str, str]) -> tuple[dict[str, object] | None, dict[str, str]]:
    """The house rules on the group form, read by the new-match form's own reader."""
    settings, errors = match_settings_from_form(
        {**form, "name1": "A", "name2": "B", "name3": "", "name4": "", "first_dealer": "cut"}
    )
    judging = form.get("three_player_skunk", "runner-up")
    if judging not in ("runner-up", "each-loser"):
        errors["three_player_skunk"] = _("Choose how a three-player skunk is judged.")
    if settings is None or errors:
        return None, errors
    return {k: settings[k] for k in ("target", "preset", "custom", "length", "muggins")} | {
        "three_player_skunk": judging,
        "scores_only": form.get("entry") == "scores",
    }, {}


@bp.post("/groups")
def create() -> Response:
    """Make a group from the form and open its page."""
    form = request.form
    errors: dict[str, str] = {}
    name = roster = None
    try:
        name = clean_group_name(form.get("name", ""))
    except GroupError as e:
        errors["name"] = _sentence(str(e))
    try:
        roster = clean_roster([n for n in form.get("players", "").splitlines() if n.strip()], at_least=2)
    except GroupError as e:
        errors["players"] = _sentence(str(e))
    rules, rule_errors = rules_from_form(form)
    errors |= rule_errors
    if errors or name is None or roster is None or rules is None:
        return _index(form, errors, 422)
    group = get_store().create_group(name, roster, rules)
    _remember(group, True)
    return redirect(url_for("groups.page", group_token=group.id), 303)


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


# ------------------------------------------------------------------------------ group page


@lru_cache(maxsize=1)
def _chance() -> tuple[float, ...]:
    """The share of the 12,994,800 deals that count each total as a hand (scorer.tables)."""
    from scorer.tables import distribution  # numpy: the phone's offline app has none

    d = distribution(crib=False)
    return tuple(d.counts.get(t, 0) / d.deals for t in SHOW_TOTALS)


def chance_chart(records: GroupRecords, name: str) -> str:
    """A player's hand totals as shares of their hands, beside the exact shares over every deal."""
    from scorer.tables import distribution  # numpy: the phone's offline app has none

    player = records.player(name)
    totals = player.tally.show_totals if player is not None else {}
    hands = sum(totals.values())
    mine = [totals.get(t, 0) / hands if hands else 0.0 for t in SHOW_TOTALS]
    mean = sum(t * n for t, n in totals.items()) / hands if hands else 0.0
    desc = ngettext(
        "%(name)s counted %(num)s hand, averaging %(mean)s; over every deal a hand averages %(chance)s.",
        "%(name)s counted %(num)s hands, averaging %(mean)s; over every deal a hand averages %(chance)s.",
        hands, name=name, mean=decimal(mean, 2), chance=decimal(distribution().mean, 2),
    )
    return bar_chart(
        _("%(name)s's hands against chance", name=name),
        desc,
        [digits(t) for t in SHOW_TOTALS],
        [
            (ngettext("%(name)s (%(num)s hand)", "%(name)s (%(num)s hands)", hands, name=name), mine),
            (_("every deal"), list(_chance())),
        ],
        y_format="{:.0%}",
    )


def wins_chart(records: GroupRecords) -> str:
    """Games won so far by each player, game by game through the group's history."""
    names = [p.name for p in records.players]
    wins = dict.fromkeys(names, 0)
    series: dict[str, list[tuple[float, float]]] = {n: [(0, 0)] for n in names}
    for i, game in enumerate(records.games, 1):
        for n in names:
            before = wins[n]
            wins[n] += int(n in game.winners)
            if wins[n] != before:  # a step: level until this game, up at it
                series[n] += [(i - 1, before), (i, wins[n])]
    for n in names:
        series[n].append((len(records.games), wins[n]))
    first = records.games[0].when if records.games else None
    last = records.games[-1].when if records.games else None
    played = len(records.games)
    won = ", ".join(_("%(name)s won %(games)s", name=n, games=digits(wins[n])) for n in names)
    if first and last:
        desc = ngettext("%(num)s game from %(first)s to %(last)s: %(won)s.",
                        "%(num)s games from %(first)s to %(last)s: %(won)s.",
                        played, first=local_digits(first[:10]), last=local_digits(last[:10]), won=won)
    else:
        desc = ngettext("%(num)s game: %(won)s.", "%(num)s games: %(won)s.", played, won=won)
    return line_chart(
        _("Games won over time"),
        desc,
        [(n, series[n]) for n in names],
        x_max=played,
        y_max=max(wins.values(), default=0) or 1,
        x_end=ngettext("%(num)s game", "%(num)s games", played),
        whole=True,
    )


def race_chart(match: Match, game: int) -> str:
    """Every side's score after each scoring entry of one game, with the skunk lines."""
    points = race(match, game)
    sides = [match.side_name(i) for i in range(len(match.settings.sides))]
    series = [(name, [(float(k), float(p[i])) for k, p in enumerate(points)]) for i, name in enumerate(sides)]
    target = match.settings.target
    rules = [
        (float(line.at_most), f"{line.kind.label} ({digits(line.at_most)})")
        for line in match.settings.rules.lines
    ]
    final = ", ".join(f"{name} {digits(score)}" for name, score in zip(sides, points[-1], strict=True))
    entries = len(points) - 1
    desc = ngettext("Game %(game)s, %(num)s scoring entry, ending %(scores)s.",
                    "Game %(game)s, %(num)s scoring entries, ending %(scores)s.",
                    entries, game=digits(game), scores=final)
    return line_chart(
        _("Game %(game)s's race", game=digits(game)),
        desc,
        series,
        x_max=max(1, entries),
        y_max=target,
        rules=rules,
        x_end=ngettext("%(num)s entry", "%(num)s entries", max(1, entries)),
    )


def _race_of(view: GroupView, pick: str | None) -> tuple[MatchRecord, Match, int] | None:
    """The match and game whose race the page draws: ``?race=<viewer id>-<game>``, else the
    newest game entered."""
    candidates = [(r, s) for r, seq, s in view.matches if seq]
    if not candidates:
        return None
    record = candidates[-1][0]
    game = None
    if pick and "." in pick:
        wanted, _, number = pick.rpartition(".")
        for r, _s in candidates:
            if r.viewer_id == wanted and number.isdigit():
                record, game = r, int(number)
    match, _ = load(record)
    last = match.state.game
    game = game if game is not None and 1 <= game <= last else last
    return record, match, game


@bp.get("/g/<group_token>")
def page(group_token: str) -> Response:
    """The group's page: standings, head-to-head, averages, big hands, charts and matches."""
    view = _view(group_token)
    _remember(view.group, view.can_write)
    return _page(view, group_token, {})


def _page(view: GroupView, token: str, errors: dict[str, str], status: int = 200) -> Response:
    records = view.records
    names = [p.name for p in records.players]
    chosen = request.args.get("player", "")
    if chosen not in names:
        chosen = names[0] if names else ""
    picked = _race_of(view, request.args.get("race"))
    body = render_template(
        "groups/page.html",
        v=view,
        g=view.group,
        records=records,
        chosen=chosen,
        # The exact chances come from numpy's tables, which the phone's offline app lacks.
        chance_svg=(chance_chart(records, chosen) if chosen and not current_app.config["MUGGINS_OFFLINE"]
                    else None),
        wins_svg=wins_chart(records) if records.games else None,
        race_svg=race_chart(picked[1], picked[2]) if picked else None,
        race_pick=(picked[0].viewer_id, picked[2]) if picked else None,
        matches=[(record, summary) for record, _seq, summary in reversed(view.matches)][
            : None if request.args.get("matches") == "all" else MATCHES_SHOWN
        ],
        match_count=len(view.matches),
        viewer_url=public_url(url_for("groups.page", group_token=view.group.viewer_id)),
        scorer_url=public_url(url_for("groups.page", group_token=view.group.id)) if view.can_write else None,
        token=token,
        errors=errors,
        max_seats=MAX_SEATS,
        big_hands=[
            (b, parse_cards(b.hand) if b.hand else [], Card.parse(b.starter) if b.starter else None)
            for b in records.big_hands
        ],
        **_template_helpers(),
    )
    return make_response(body, status)


@bp.post("/g/<group_token>/matches")
def new_match(group_token: str) -> Response:
    """Start a match with the ticked roster players (and a new name, who joins the roster)."""
    group = _writer(group_token)
    form = request.form
    picked = [n for n in group.roster if n in form.getlist("player")]
    extra = " ".join(form.get("new_name", "").split())
    players = [*picked, *([extra] if extra else [])]
    message = None
    if len(players) < 2 or len(players) > MAX_SEATS:
        message = _("Choose two, three or four players (%(chosen)s chosen).", chosen=digits(len(players)))
    else:
        try:
            dealer = form.get("first_dealer", "cut")
            given: dict[str, object] = {}
            if dealer.isdigit() and int(dealer) < len(players):
                given["first_dealer"] = int(dealer)
            settings = match_settings_for_group(group, players, given)
        except (GroupError, MatchError) as e:
            message = _sentence(str(e))
    if message is None:
        try:
            record = get_store().create_group_match(group.id, settings)
        except InvalidRecord as e:  # the roster is full
            message = _sentence(str(e))
    if message is not None:
        return _page(_view(group_token), group_token, {"new_match": message}, 422)
    recent: list[str] = session.get("matches", [])
    session["matches"] = [record.id, *(t for t in recent if t != record.id)][:8]
    return redirect(url_for("matches.screen", token=record.id), 303)


@bp.post("/g/<group_token>/players")
def add_player(group_token: str) -> Response:
    """Add a name to the roster (or, with ``op=remove``, take one off it)."""
    group = _writer(group_token)
    try:
        if request.form.get("op") == "remove":
            get_store().remove_from_roster(group.id, request.form.get("name", ""))
        else:
            names = clean_roster([request.form.get("name", "")], at_least=1)
            get_store().add_to_roster(group.id, names)
    except (GroupError, InvalidRecord) as e:
        abort(422, _sentence(str(e)))
    return redirect(url_for("groups.page", group_token=group_token) + "#roster", 303)


@bp.get("/g/<group_token>/records.csv")
def records_file(group_token: str) -> Response:
    """The standings as a CSV file for a spreadsheet."""
    view = _view(group_token)
    resp = make_response(records_csv(view.records))
    resp.mimetype = "text/csv"
    resp.headers["Content-Disposition"] = (
        f'attachment; filename="muggins-records-{view.group.viewer_id[:8]}.csv"'
    )
    return resp


@bp.get("/g/<group_token>/qr.svg")
def qr(group_token: str) -> Response:
    """A QR code of the group's viewer link, or (``?for=scorer``, scorer link only) its scorer link."""
    try:
        linked = get_store().group_by_link(group_token)
    except GroupNotFound:
        abort(404)
    which = request.args.get("for", "viewer")
    if which == "scorer" and not linked.scorer:
        abort(403)
    target = linked.record.id if which == "scorer" else linked.record.viewer_id
    code = segno.make(public_url(url_for("groups.page", group_token=target)), error="m")
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        xmldecl=False,
        svgns=True,
        omitsize=True,
        scale=QR_SCALE,
        dark="#000",
        light="#fff",
        border=2,
    )
    resp = make_response(out.getvalue())
    resp.mimetype = "image/svg+xml"
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp
