"""The players' language on every page and answer: Flask-Babel, the switcher and the engine's words.

Which language a request gets, first match wins:

1. ``"lang"`` in a JSON body (the API: ``{"hand": ..., "lang": "hi"}``), set by the view once it
   has read the body safely (`use_language`);
2. the ``lang`` cookie, set by the switcher at the foot of every page (plain links, no JavaScript);
3. the browser's ``Accept-Language``;
4. English.

Share links and QR codes carry no language, so whoever opens one reads their own. The engine
(``scorer.i18n``) is told the same language before each request, so its spoken counts, rulings
and refusals follow the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import Blueprint, Flask, g, redirect, request
from flask_babel import Babel, get_locale, refresh  # type: ignore[import-untyped]
from jinja2 import pass_context
from jinja2.runtime import Context
from werkzeug.wrappers import Response

from scorer import i18n

__all__ = ["COOKIE", "bp", "init_app", "language", "per_request", "select_language", "use_language"]

COOKIE = "lang"
"""The switcher's cookie: the language a phone chose, kept a year."""

COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60

PAGE_PARAMETERS = frozenset({"cards", "claimed", "dealer", "done", "guess", "hand", "kind", "players",
                             "plays", "rank", "starter", "who", "crib", "for", "race", "player"})
"""Query parameters that hold a page's state (a hand typed in, a play, a deal): the switcher keeps
them, so changing language on a counted hand shows the same hand. Nothing else is echoed back."""

bp = Blueprint("lang", __name__)


def select_language() -> str:
    """The language of this request (see the module's order). A JSON body's ``"lang"`` is set by
    the view that parsed the body (`use_language`): the body is never read here, before the
    size and depth checks have passed."""
    chosen = g.get("muggins_language")
    if isinstance(chosen, str):
        return chosen
    cookie = request.cookies.get(COOKIE, "")
    if cookie in i18n.LANGUAGES:
        return cookie
    return str(request.accept_languages.best_match(i18n.LANGUAGES) or i18n.DEFAULT_LANGUAGE)


def use_language(tag: object) -> str:
    """Answer the rest of this request in ``tag`` (a JSON body's ``"lang"``) when it names a
    language we speak; anything else leaves the language as it was. Returns the language used."""
    if isinstance(tag, str) and tag.strip().lower() in i18n.LANGUAGES:
        g.muggins_language = tag.strip().lower()
        refresh()
        i18n.activate(g.muggins_language)
    return language()


def per_request(func: Callable[..., str]) -> Callable[..., str]:
    """``func`` as a template filter whose answer depends on the request's language.

    Jinja folds a filter applied to a literal (``{{ 121|num }}``) into the compiled template,
    which is then kept for every later request, in whatever language compiled it first; a filter
    that takes the render context is never folded."""

    @pass_context
    def filtered(_context: Context, *args: Any, **kwargs: Any) -> str:
        return func(*args, **kwargs)

    filtered.__name__ = func.__name__
    filtered.__doc__ = func.__doc__
    return filtered


def language() -> str:
    """The language this request is answered in (``en``, ``hi``, ``mr`` or ``tg``)."""
    return str(get_locale() or i18n.DEFAULT_LANGUAGE)


def _local_path(target: str | None) -> str:
    """``target`` when it is a path on this site, else the home page (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


@bp.get("/lang/<code>")
def choose(code: str) -> Response:
    """Remember ``code`` for this phone and go back to the page the switcher was on."""
    resp = redirect(_local_path(request.args.get("next")), code=303)
    if code in i18n.LANGUAGES:
        resp.set_cookie(COOKIE, code, max_age=COOKIE_MAX_AGE_S, samesite="Lax", httponly=True)
    return resp


def init_app(app: Flask) -> None:
    """Flask-Babel over the project's catalogues, the engine told each request's language, the
    ``num`` filter and the switcher's links in every template."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(i18n.TRANSLATIONS_DIR))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", i18n.DEFAULT_LANGUAGE)
    Babel(app, locale_selector=select_language)

    @app.before_request
    def _speak() -> None:
        i18n.activate(language())

    @app.teardown_request
    def _quiet(_exc: BaseException | None) -> None:
        i18n.activate(i18n.DEFAULT_LANGUAGE)  # nothing after the request speaks its language

    @app.after_request
    def _vary(resp: Response) -> Response:
        resp.vary.add("Accept-Language")
        resp.vary.add("Cookie")
        resp.headers.setdefault("Content-Language", language())
        return resp

    app.jinja_env.filters["num"] = per_request(lambda n: i18n.digits(int(n)))
    app.jinja_env.globals["number_words"] = i18n.number_words

    @app.context_processor
    def _languages() -> dict[str, object]:
        return {
            "lang": language(),
            "language_links": [(code, i18n.LANGUAGE_NAMES[code],
                                f"{request.script_root}/lang/{code}?{urlencode({'next': _this_page()})}")
                               for code in i18n.LANGUAGES],
        }


def _this_page() -> str:
    """Where the switcher returns: this page, or for a form's answer the page the form was on; its
    whole path in the browser (the phone's app runs under ``/phone``: `web.offline`)."""
    if request.method == "GET":
        kept = [(k, v) for k, v in request.args.items(multi=True) if k in PAGE_PARAMETERS]
        return request.script_root + request.path + (f"?{urlencode(kept)}" if kept else "")
    referrer = urlsplit(request.referrer or "")
    if referrer.netloc == request.host and referrer.path.startswith("/"):
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    return "/"
