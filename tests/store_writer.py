"""Append events to one match until killed, printing each acknowledged ``seq`` (test helper).

Usage: ``python tests/store_writer.py URL MATCH_ID COUNT``. Event ``n`` (1, 2, …) is
``{"writer": "store_writer", "n": n}``, appended after ``seq`` n - 1. A line ``seq`` on stdout,
flushed at once, means :meth:`store.Store.append` returned for it, i.e. the store acknowledged
it; ``tests/test_store.py`` kills this process with SIGKILL and checks every such line.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Run the writer; returns the exit status."""
    url, match_id, count = argv[1], argv[2], int(argv[3])
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from store import Store

    with Store(url) as store:
        for n in range(1, count + 1):
            result = store.append(match_id, n - 1, {"writer": "store_writer", "n": n})
            print(result.seq, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
