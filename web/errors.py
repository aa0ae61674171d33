"""Friendly error pages, and one-line JSON errors under /api: never a stack trace or debug page."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from flask.globals import request_ctx
from flask_wtf.csrf import CSRFError  # type: ignore[import-untyped]
from markupsafe import escape
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.wrappers import Response

__all__ = ["init_app", "json_error", "render_error", "wants_json"]

_MESSAGES = {
    400: "That request could not be understood.",
    403: "This link can only watch the match: ask the scorer for the scoring link.",
    404: "There is nothing at this address. Check the link, or start again from the home page.",
    405: "That page cannot be used that way.",
    413: "That upload is too large.",
    500: "Something went wrong on the server. Your last change may not have been saved: "
         "reload the page to see what was stored.",
}

_TITLES = {400: "Bad request", 403: "Read-only link", 404: "Not found", 405: "Not allowed",
           413: "Too large", 500: "Server error"}


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
    return render_error(status, _TITLES.get(status, "Error"), message)


def _http_error(err: HTTPException) -> Response | tuple[str, int]:
    status = err.code or 500
    # Our own aborts carry a specific description; werkzeug's stock texts are replaced by ours.
    own = bool(err.description) and err.description != type(err).description
    message = str(err.description) if own else _MESSAGES.get(status, err.name)
    if wants_json():
        return json_error(status, message.splitlines()[0])
    return _page(status, message)


def _csrf_error(err: CSRFError) -> tuple[str, int]:
    return _page(400, "This form has expired (the page was open too long, or the server restarted). "
                      "Go back, reload the page and try again.")


def _server_error(err: InternalServerError) -> Response | tuple[str, int]:
    if wants_json():
        return json_error(500, "internal error: the server could not finish this request")
    return _page(500, _MESSAGES[500])


def init_app(app: Flask) -> None:
    """Register the handlers; Flask logs the traceback of a 500, the player sees a plain page."""
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(InternalServerError, _server_error)
    app.register_error_handler(HTTPException, _http_error)
