"""Friendly error pages, and one-line JSON errors under /api: never a stack trace or debug page."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask.globals import request_ctx
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_wtf.csrf import CSRFError  # type: ignore[import-untyped]
from markupsafe import escape
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.wrappers import Response

from scorer.i18n import N_

__all__ = ["init_app", "json_error", "render_error", "wants_json"]

# Marked here, translated when shown: the request's language is known only then.
_MESSAGES = {
    400: N_("That request could not be understood."),
    403: N_("This link can only watch the match: ask the scorer for the scoring link."),
    404: N_("There is nothing at this address. Check the link, or start again from the home page."),
    405: N_("That page cannot be used that way."),
    413: N_("That upload is too large."),
    500: N_("Something went wrong on the server. Your last change may not have been saved: "
            "reload the page to see what was stored."),
}

_TITLES = {400: N_("Bad request"), 403: N_("Read-only link"), 404: N_("Not found"), 405: N_("Not allowed"),
           413: N_("Too large"), 500: N_("Server error")}

_ERROR = N_("Error")
"""The title of an error page for any other status."""

_STATUS_NAMES = {
    401: N_("Unauthorized"),
    409: N_("Conflict"),
    410: N_("Gone"),
    415: N_("Unsupported Media Type"),
    422: N_("Unprocessable Entity"),
    429: N_("Too Many Requests"),
    503: N_("Service Unavailable"),
}
"""werkzeug's names of the other statuses a player may meet (its words, ours to translate)."""


def wants_json() -> bool:
    """True for the JSON API, whose errors are ``{"error": "..."}``."""
    return request.path.startswith("/api/")


def json_error(status: int, message: str) -> Response:
    """``{"error": message}`` with ``status``."""
    resp = jsonify(error=message)
    resp.status_code = status
    return resp


def render_error(status: int, title: str, message: str) -> tuple[str, int]:
    """The friendly error page."""
    if request_ctx.url_adapter is None:
        # The Host header could not even be routed (".", an over-long label): no link on the
        # page can be built, so the refusal is a bare page of its own.
        head, text = escape(title), escape(message)
        return f"<!doctype html><title>{head}</title><h1>{head}</h1><p>{text}</p>", status
    return render_template("errors/error.html", status=status, title=title, message=message), status


def _page(status: int, message: str) -> tuple[str, int]:
    return render_error(status, _(_TITLES.get(status, _ERROR)), message)


def _http_error(err: HTTPException) -> Response | tuple[str, int]:
    status = err.code or 500
    # Our own aborts carry a specific description; werkzeug's stock texts are replaced by ours.
    own = bool(err.description) and err.description != type(err).description
    if own:
        message = str(err.description)
    elif status in _MESSAGES:
        message = _(_MESSAGES[status])
    else:
        message = _(_STATUS_NAMES[status]) if status in _STATUS_NAMES else err.name
    if wants_json():
        return json_error(status, message.splitlines()[0])
    return _page(status, message)


def _csrf_error(err: CSRFError) -> tuple[str, int]:
    return _page(400, _("This form has expired (the page was open too long, or the server restarted). "
                        "Go back, reload the page and try again."))


def _server_error(err: InternalServerError) -> Response | tuple[str, int]:
    if wants_json():
        return json_error(500, _("internal error: the server could not finish this request"))
    return _page(500, _(_MESSAGES[500]))


def init_app(app: Flask) -> None:
    """Register the handlers; Flask logs the traceback of a 500, the player sees a plain page."""
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(InternalServerError, _server_error)
    app.register_error_handler(HTTPException, _http_error)
