"""Groups: the regulars at a table, their house rules, and their records over the years.

``core`` (rules, roster, records through the per-match summaries), ``exchange`` (JSON export and
import, CSV records), ``views`` (the pages under ``/groups`` and ``/g/<token>``) and ``api`` (the
JSON endpoints under ``/api/groups``, on the API blueprint).
"""

from web.groups import api  # noqa: F401  (registers the JSON routes on web.api.bp)
from web.groups.views import bp

__all__ = ["bp"]
