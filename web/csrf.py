"""The app's one CSRF guard: every HTML form carries a token; the JSON API is exempt."""

from __future__ import annotations

from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]

csrf = CSRFProtect()
