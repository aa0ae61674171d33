"""The photo and throw-advisor pages of the phone's offline app: they need the server.

Reading a photo needs OpenCV and the recogniser's model, and ranking throws needs numpy's tables;
the browser's Python (Pyodide from npm) has neither. The offline app (``MUGGINS_OFFLINE``) registers
these blueprints instead of ``web.photo`` and ``web.discard``: the same names and endpoints, so
every template's links still work, each answering a page that says what needs the server and
what the phone can still do. Nothing here imports numpy, OpenCV or Pillow.
"""

from __future__ import annotations

from flask import Blueprint
from werkzeug.wrappers import Response

from scorer.i18n import N_, _
from web.http import is_htmx, render

__all__ = ["discard_bp", "photo_bp"]

photo_bp = Blueprint("photo", __name__)
discard_bp = Blueprint("discard", __name__)

_PHOTO = N_("Reading the cards from a photo needs the Muggins server; this phone is working on its own. "
            "Tap or type the cards instead.")
_DISCARD = N_("The throw advisor needs the Muggins server; this phone is working on its own. Open "
              "Muggins on the table’s address to rank the throws.")


def _needs_server(message: str) -> Response:
    """The page saying so (503); an htmx request gets the panel in place of the page's main part
    (a 5xx would not be swapped in at all, leaving the tap unanswered)."""
    if is_htmx():
        resp = render("offline/needs_server.html", "offline/_needs_server.html", 200, message=message)
        resp.headers["HX-Retarget"] = "#main"
        resp.headers["HX-Reswap"] = "innerHTML"
        return resp
    return render("offline/needs_server.html", "offline/_needs_server.html", 503, message=message)


@photo_bp.post("/photo", endpoint="upload")
@photo_bp.post("/photo/cards", endpoint="cards")
def photo() -> Response:
    """A photo sent to the phone's own app: it says the server reads photos."""
    return _needs_server(_(_PHOTO))


@discard_bp.get("/discard", endpoint="page")
@discard_bp.post("/discard", endpoint="submit")
def discard() -> Response:
    """The throw advisor on the phone's own app: it says the server ranks throws."""
    return _needs_server(_(_DISCARD))
