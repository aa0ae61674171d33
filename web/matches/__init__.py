"""Matches: create one, keep its score on every phone, undo, history and statistics.

A match is reached by two unguessable links under ``/m/<token>``: the scorer's (the match id)
and the viewer's (the viewer id). Pages read with either; every write route answers 403 to a
viewer link. Each form carries the sequence number of the last event it saw (``after``) and an
idempotency key, so a stale form from another phone is refused with the fresh board (409) and a
double tap never stores an event twice; each tap's key also carries a digest of its event, so
two different taps never share one. Events are checked against the replayed match before the
store's append, which inserts only if the match is still where the check saw it, so two phones
can never store events that do not fit together.

Replays and polled boards are cached per process (``web.cache``): a link's lookup reads the
match's last seq in the same query, so a page reuses the match replayed at that seq, an append
extends it by the one new event, and the phones polling a match share one rendering per seq.

Picking show or crib cards is a draft (nothing stored) held in the address (``?cards=5H-5C``);
scoring it is one event.

The package, by seam: ``access`` (links), ``replay`` (the cached replay and the append path),
``screen`` (the score screen the templates read), ``forms`` (forms into events and settings)
and ``views`` (the blueprint's routes). The names here are the ones other modules import.
"""

from scorer.rules import HAND_SIZE
from web.matches.access import Access, lookup, public_url, require_writer, resolve
from web.matches.forms import Draft, FormError, build_event, match_settings_from_form
from web.matches.replay import current, load, store_event, tap_key
from web.matches.screen import PEG_PAD, SHOW_PAD, Screen, match_title
from web.matches.views import bp

__all__ = [
    "bp", "Access", "Draft", "FormError", "Screen", "build_event", "current", "load", "lookup",
    "match_settings_from_form", "match_title", "public_url", "resolve", "require_writer", "store_event",
    "tap_key",
    "PEG_PAD", "SHOW_PAD", "HAND_CARDS",
]

HAND_CARDS = HAND_SIZE
"""``scorer.rules.HAND_SIZE`` under the name ``web.photo`` imports from here."""
