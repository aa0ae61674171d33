"""The groups' JSON endpoints, on the API blueprint (``/api/groups``): create a group, read its
records, export it and import an export; and the group part of ``POST /api/matches``.

Answers follow the API's rules (``web.api``): 400 with ``{"error": "<one line>"}`` for bad input,
403 for a write through a viewer link, 404 for an unknown group, 409 for an import whose ids are
already stored (nothing imported), except a match's export stored exactly as it is: a retried
upload, answered 200 as the first was.
"""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, jsonify, make_response, request, url_for
from werkzeug.wrappers import Response

from scorer.i18n import _, digits
from scorer.match import Match
from store import AlreadyStored, GroupNotFound, GroupRecord, MatchExport, MatchNotFound, MatchRecord
from web.api import ApiError, body, bp, field
from web.errors import json_error
from web.groups.core import (
    clean_group_name,
    clean_roster,
    group_rules_json,
    group_view,
    match_settings_for_group,
    records_json,
)
from web.groups.exchange import ImportRefused, export_document, export_text, read_export, same_match
from web.matches import public_url
from web.storage import get_store

__all__ = ["create_group_match", "group_links", "match_links"]


def group_links(group: GroupRecord, can_write: bool = True) -> dict[str, str]:
    """The group's share links (the scorer's only for a scorer)."""
    links = {
        "viewer": public_url(url_for("groups.page", group_token=group.viewer_id)),
        "api": public_url(url_for("api.get_group", group_token=group.id if can_write else group.viewer_id)),
    }
    if can_write:
        links["scorer"] = public_url(url_for("groups.page", group_token=group.id))
    return links


@bp.errorhandler(GroupNotFound)
def _no_group(err: GroupNotFound) -> Response:
    return json_error(404, _("there is no group at this link"))


@bp.errorhandler(AlreadyStored)
def _already(err: AlreadyStored) -> Response:
    return json_error(409, str(err))


@bp.post("/groups")
def create_group() -> Response:
    """``{"name": "The Thursday club", "players": ["Ann", "Bob"], "rules": {...}}`` → 201 with ids
    and links."""
    data = body()
    unknown = sorted(set(data) - {"name", "players", "rules"})
    if unknown:
        raise ApiError(_("unknown field %(field)s: a group has name, players and rules",
                         field=repr(unknown[0])))
    name = clean_group_name(field(data, "name", str, '"name": "The Thursday club"'))
    roster = clean_roster(
        field(data, "players", list, '"players": ["Ann", "Bob"]', default=[], required=False)
    )
    rules = group_rules_json(
        field(data, "rules", dict, '"rules": {"target": 121}', default={}, required=False)
    )
    group = get_store().create_group(name, roster, rules)
    resp = jsonify(
        {
            "id": group.id,
            "viewer_id": group.viewer_id,
            "name": group.name,
            "players": group.roster,
            "rules": group.rules,
            "links": group_links(group),
        }
    )
    resp.status_code = 201
    resp.headers["Location"] = url_for("api.get_group", group_token=group.id)
    return resp


@bp.get("/groups/<group_token>")
def get_group(group_token: str) -> Response:
    """The group's roster, rules and records: standings, head-to-head, big hands and matches."""
    view = group_view(get_store(), group_token)
    links = {
        r.viewer_id: {
            "viewer": public_url(url_for("matches.screen", token=r.viewer_id)),
            **({"scorer": public_url(url_for("matches.screen", token=r.id))} if view.can_write else {}),
        }
        for r, _, _ in view.matches
    }
    resp = jsonify(records_json(view, links))
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.get("/groups/<group_token>/export")
def export_group(group_token: str) -> Response:
    """The whole group as one JSON document: import it anywhere with ``POST /api/groups/import``.
    Only through the scorer link (403 otherwise): the export holds every scorer link."""
    if not get_store().group_by_link(group_token).scorer:
        return json_error(403, _("this link can only watch the group: exporting it needs its scorer link"))
    group, matches = get_store().export_group(group_token)
    resp = make_response(export_text(export_document(group, matches)))
    resp.mimetype = "application/json"
    resp.headers["Content-Disposition"] = f'attachment; filename="muggins-group-{group.viewer_id[:8]}.json"'
    return resp


@bp.get("/matches/<token>/export")
def export_match(token: str) -> Response:
    """One match with its whole log, as an export document; only through the scorer link (403
    otherwise: the export holds it)."""
    try:
        item = get_store().export_match(token)
    except MatchNotFound:
        abort(404, _("there is no match at this link"))
    if item.record.id != token:
        return json_error(403, _("this link can only watch the match: exporting it needs the scorer link"))
    resp = make_response(export_text(export_document(None, [item])))
    resp.mimetype = "application/json"
    resp.headers["Content-Disposition"] = (
        f'attachment; filename="muggins-match-{item.record.viewer_id[:8]}.json"'
    )
    return resp


@bp.post("/groups/import")
def import_export() -> Response:
    """An export (of a group or a match) stored as it was: 201 with its ids, or a one-line refusal.

    A match's export whose match is already stored exactly as in the export (a phone retrying an
    upload whose answer it lost) is 200 with the same answer and stores nothing; a different
    export under ids already stored is 409, nothing stored. The answer to a match's export holds
    the match's links, so a phone that uploaded it can send the table there.
    """
    if current_app.config.get("MUGGINS_OFFLINE"):
        # On a phone the engine answers this path only when the server could not be reached:
        # importing into the phone's own store would make the upload look done.
        return json_error(503, _("uploading needs the connection to the table's server: nothing was "
                                 "uploaded; connect and try again"))
    try:
        group, matches = read_export(request.get_data())
    except ImportRefused as e:
        return json_error(400, str(e))
    answer: dict[str, Any] = {
        "kind": "group" if group is not None else "match",
        "matches": [m.record.id for m in matches],
    }
    if group is not None:
        answer |= {"id": group.id, "viewer_id": group.viewer_id, "links": group_links(group)}
    else:
        answer["links"] = match_links(matches[0].record)
    status = 201
    try:
        get_store().import_records(group, matches)
    except AlreadyStored as taken:
        if group is not None:
            raise
        status = _stored_already(matches[0], taken)
    resp = jsonify(answer)
    resp.status_code = status
    return resp


def _stored_already(upload: MatchExport, taken: AlreadyStored) -> int:
    """200 when ``upload`` is the match stored under its id, exactly; else the 409 (``taken``,
    or one saying how the stored match differs and where it is)."""
    try:
        stored = get_store().export_match(upload.record.id)
    except MatchNotFound:  # the id taken was another match's viewer id
        raise taken from None
    if stored.record.id != upload.record.id:
        raise taken
    if same_match(stored, upload):
        return 200
    raise AlreadyStored(_(
        "this match is already here with another history (%(here)s events here, %(upload)s in the upload): "
        "nothing was imported; carry on scoring it at its link here, %(link)s",
        here=digits(len(stored.events)), upload=digits(len(upload.events)),
        link=public_url(url_for("matches.screen", token=stored.record.id)),
    ))


def match_links(record: MatchRecord) -> dict[str, str]:
    """A match's links: the scorer's, the viewer's and its API address."""
    return {
        "scorer": public_url(url_for("matches.screen", token=record.id)),
        "viewer": public_url(url_for("matches.screen", token=record.viewer_id)),
        "api": public_url(url_for("api.get_match", token=record.id)),
    }


def create_group_match(token: str, data: dict[str, Any]) -> Response:
    """``POST /api/matches`` with ``"group"``: the group's rules unless given; roster names or
    new ones, which join the roster. Only the group's scorer link may start one (403)."""
    store = get_store()
    linked = store.group_by_link(token)
    if not linked.scorer:
        return json_error(403, _("this is the group's watching link: starting a match needs its scorer link"))
    given = {k: v for k, v in data.items() if k not in ("group", "players")}
    players = field(data, "players", list, '"players": ["Ann", "Bob"]')
    settings = match_settings_for_group(linked.record, players, given)
    record = store.create_group_match(linked.record.id, settings)
    resp = jsonify(
        {
            "id": record.id,
            "viewer_id": record.viewer_id,
            "group": linked.record.id,
            "links": match_links(record),
            "match": {"seq": 0, **Match(settings).to_json()},
        }
    )
    resp.status_code = 201
    resp.headers["Location"] = url_for("api.get_match", token=record.id)
    return resp
