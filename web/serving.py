"""A WSGI app served by waitress in a thread on a free loopback port, for the browser tests and
the benches that drive a browser (``app.py`` serves the app itself)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from waitress import wasyncore  # type: ignore[import-untyped]
from waitress.server import create_server  # type: ignore[import-untyped]

STOP_SECONDS = 5
"""How long the server's threads get to finish when it stops."""


@contextmanager
def served(app: Any, threads: int = 4) -> Iterator[str]:
    """Serve the WSGI ``app`` while the block runs; yields its base URL.

    The server stops in its own loop's thread: its sockets closed from this thread can be closed
    while that thread waits on them in ``select``, which fails with EBADF (seen on CI, as an
    unhandled exception in the "waitress" thread at a test's teardown). A pulled trigger runs
    the closing between two of the loop's waits, and the loop ends with nothing left to watch;
    the request threads stop first, as each wakes the loop through that trigger when it is done.
    """
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, name="waitress", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.task_dispatcher.shutdown(timeout=STOP_SECONDS)  # its threads wake the loop when done
        try:
            server.trigger.pull_trigger(lambda: _close_all(server))
        except OSError:
            # The trigger is closed: the loop closed its map and ended already (EBADF, seen
            # once on CI at a loaded test's teardown). Close whatever it left, here.
            _close_all(server)
        thread.join(timeout=STOP_SECONDS)


def _close_all(server: Any) -> None:
    """`wasyncore.close_all` of the server's sockets, each connection first closed as waitress
    closes one whose client went (`handle_close`), so that what it has still to send is closed
    with it. `close_all` drops that open, and a file being sent (the offline bundle a page
    fetches as a browser test ends) was a ResourceWarning wherever it was collected: an error in
    a later test's teardown, seen on CI."""
    for channel in list(server.active_channels.values()):  # each leaves the dict as it closes
        channel.handle_close()
    wasyncore.close_all(server._map)
