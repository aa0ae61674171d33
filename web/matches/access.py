"""Link access: a match is reached by two unguessable links under ``/m/<token>``, the scorer's
(the match id, may write) and the viewer's (the viewer id, reads only).

A link's lookup reads the match's last seq in the same query, so a page can reuse the match
replayed at that seq (``web.matches.replay.current``) without asking the store again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from flask import abort, current_app, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]

from store import MatchNotFound, MatchRecord
from web.storage import get_store

__all__ = ["Access", "lookup", "resolve", "require_writer", "public_url", "server_path"]


@dataclass(frozen=True, slots=True)
class Access:
    """A match reached by a link: its record, whether the link may write, and the seq of the
    match's last event when the link was looked up."""

    record: MatchRecord
    can_write: bool
    token: str
    seq: int


def lookup(token: str) -> Access | None:
    """The match behind a scorer link (may write) or a viewer link (reads only); None when neither."""
    try:
        found = get_store().by_link(token)
    except MatchNotFound:
        return None
    return Access(found.record, found.scorer, token, found.last_seq)


def resolve(token: str) -> Access:
    """The match behind a scorer or viewer link; 404 when neither."""
    access = lookup(token)
    if access is None:
        abort(404, _("There is no match at this link. Check the link, or ask the scorer for it again."))
    return access


def require_writer(token: str) -> Access:
    """The match behind a scorer link; 403 for a viewer link."""
    access = resolve(token)
    if not access.can_write:
        abort(403, _("This link can only watch the match: ask the scorer for the scoring link."))
    return access


def public_url(path: str) -> str:
    """An absolute link for other phones: ``PUBLIC_URL``, else this request's host (a loopback
    host is swapped for the LAN address ``python app.py`` found, so a QR code works)."""
    base = current_app.config.get("PUBLIC_URL")
    if not base:
        base = request.host_url
        lan = current_app.config.get("LAN_URL")
        if lan and (request.host.startswith(("localhost", "127.", "[::1]"))):
            base = lan
    return urljoin(base, path)


def server_path(endpoint: str, **values: Any) -> str:
    """The server's own path for ``endpoint``, without the prefix the phone's app runs under
    (``/phone``, which leads to the phone's engine): where a phone's page reaches the server."""
    path = url_for(endpoint, **values)
    root = request.script_root
    return path[len(root):] if root and path.startswith(root + "/") else path
