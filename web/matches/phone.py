"""Matches kept on a phone (the offline app, ``MUGGINS_OFFLINE``): the list of the matches its
own store holds, and the note of where one was uploaded.

On a phone the app runs alone, in the browser, on its own SQLite file (docs/DESIGN.md, "Matches
on a phone"): every match in that store was made on this phone, so the list is the store's,
newest first, not the session's. Sharing needs the table's server: the page uploads the match's
export there (``static/js/offline/upload.mjs``) and then posts the server's links here, where they
are checked against the match before they are kept, so the screen never offers a link to anything
but this match on a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from flask import current_app, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

from store import MAX_LINK_CHARS, Upload
from web.matches.access import Access
from web.matches.forms import FormError
from web.matches.replay import current
from web.matches.screen import match_title
from web.storage import get_store

__all__ = ["PHONE_LIST_LIMIT", "KeptRow", "is_phone", "kept_matches", "server_link"]

PHONE_LIST_LIMIT = 20
"""Matches the phone's list shows before "show all": each is replayed to show its score."""


def is_phone() -> bool:
    """Whether this app is the offline one, on a phone."""
    return bool(current_app.config.get("MUGGINS_OFFLINE"))


@dataclass(frozen=True, slots=True)
class KeptRow:
    """One match in the phone's list: its scorer link, title, each side's name and score, what
    comes next, and its upload (None while it is only on this phone)."""

    token: str
    title: str
    scores: list[tuple[str, int]]
    prompt: str
    upload: Upload | None


def kept_matches(limit: int | None) -> tuple[list[KeptRow], bool]:
    """The newest ``limit`` matches in this phone's store (every one for None), newest first, and
    whether there are more."""
    store = get_store()
    if limit is None:
        kept, more = store.recent_matches(2**31 - 1), False
    else:
        kept = store.recent_matches(limit + 1)
        kept, more = kept[:limit], len(kept) > limit
    rows = []
    for k in kept:
        match, _seq = current(Access(k.record, True, k.record.id, k.last_seq))
        sides = [match.side_name(i) for i in range(len(match.settings.sides))]
        scores = list(zip(sides, match.state.scores, strict=True))
        rows.append(KeptRow(k.record.id, match_title(match), scores, match.state.prompt, k.upload))
    return rows, more


def server_link(raw: str | None, token: str) -> str:
    """``raw`` when it is the server's absolute http(s) link to ``/m/<token>``; :class:`FormError`
    (form ``upload``) saying what is wrong otherwise."""
    link = (raw or "").strip()
    try:
        parts = urlsplit(link)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        parts, port_ok = None, False
    if (
        parts is None
        or not port_ok
        or len(link) > MAX_LINK_CHARS
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.query
        or parts.fragment
        or not parts.path.endswith(f"/m/{token}")
    ):
        raise FormError("upload", _("The server's answer held no link to this match: nothing was saved. "
                                    "Upload it again."))
    root = request.script_root
    if root and parts.path.startswith(root + "/") and parts.netloc == request.host:
        raise FormError("upload", _("That is this phone's own link, not the server's: nothing was saved. "
                                    "Upload it again."))
    return link
