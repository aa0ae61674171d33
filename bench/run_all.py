"""Run every benchmark in bench/ in turn; each prints its own markdown table.

    .venv/bin/python bench/run_all.py [NAME ...]     # e.g. show stats discard load
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    """Run the named benches (all when none are named); return the worst exit status."""
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = {f"bench_{name}.py" for name in argv}
        unknown = wanted - {s.name for s in scripts}
        if unknown:
            print(f"unknown bench: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        scripts = [s for s in scripts if s.name in wanted]
    worst = 0
    for script in scripts:
        print(f"\n## {script.name}\n", flush=True)
        worst = max(worst, subprocess.call([sys.executable, str(script)], cwd=HERE.parent))
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
