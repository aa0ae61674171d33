"""The app for production WSGI servers: ``gunicorn wsgi:app`` (settings in ``gunicorn.conf.py``).

Everything comes from the environment, so the same code serves one table from a laptop and many
tables from a hosted service:

``DATABASE_URL``
    Where matches are kept. Default: the SQLite file ``muggins.sqlite`` in the instance folder.
    For several worker processes on many tables use PostgreSQL,
    ``postgresql+psycopg://USER:PASSWORD@HOST/DATABASE``; every worker shares it.
``MUGGINS_INSTANCE``
    The instance folder: the secret key (made on first start), an optional ``config.py`` and
    the default SQLite file. Default: ``instance/`` beside ``app.py``. Every worker (and every
    machine behind one address) must share it, or one worker's forms fail on another.
``PUBLIC_URL``
    The address phones reach, for share links and QR codes (``https://muggins.example.org/``).
    An ``https`` address also marks the session cookie ``Secure``.
``MUGGINS_PROXIES``
    How many reverse proxies stand in front and set ``X-Forwarded-For``/``-Proto``/``-Host``
    (default 0: those headers are ignored, as a client could forge them).
``MUGGINS_TRUSTED_HOSTS``
    Host names the app answers to besides loopback and the host of ``PUBLIC_URL``,
    comma-separated (``muggins.example.org,www.muggins.example.org``); any other Host is a 400.
``RATELIMIT_STORAGE_URI``
    Where the rate limits count (default ``memory://``, each worker on its own: a client gets
    the limit once per worker). ``redis://HOST:6379`` makes every worker share one count.
"""

from __future__ import annotations

import os

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from app import create_app, trust_hosts

__all__ = ["app", "app_from_environment"]


def app_from_environment() -> Flask:
    """The app configured from the environment variables above."""
    environ = os.environ
    instance = environ.get("MUGGINS_INSTANCE", "").strip()
    application = create_app(instance_path=os.path.abspath(instance) if instance else None)
    public_url = environ.get("PUBLIC_URL", "").strip()
    if public_url:
        application.config["PUBLIC_URL"] = public_url
        application.config["SESSION_COOKIE_SECURE"] = public_url.startswith("https://")
    proxies = environ.get("MUGGINS_PROXIES", "").strip() or "0"
    if not (proxies.isascii() and proxies.isdigit()):
        raise ValueError(f"MUGGINS_PROXIES must be a whole number of proxies, not {proxies!r}")
    trust_hosts(application, [])
    hops = int(proxies)
    if hops:
        application.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            application.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    return application


app = app_from_environment()
"""What ``gunicorn wsgi:app`` serves."""
