"""Offline use on a phone: what the first visit downloads, and how fast a cold start answers.

Run from the repository root with the project's venv, after ``make setup`` (which builds the
offline bundle) and with Chromium installed (``scripts/ensure-chromium``)::

    .venv/bin/python bench/bench_offline.py [--runs 3] [--later 20] [--throttle 4]

The app runs under waitress on a free loopback port, behind a WSGI wrapper that counts the bytes
of every response body it sends (after gzip: what crosses the network). Chromium (Debian's, as a
Pixel 7, through Playwright) makes the first visit in a fresh profile and waits until the service
worker has cached the version; the bytes sent, by kind, are the first table.

Then the server stops, and per run, a cold start with no server: the browser is closed and started
again on the same profile (a phone restarted), the page's CPU is throttled (CDP
``Emulation.setCPUThrottlingRate``, 4x by default: a mid-range phone), and the count page is opened.
Times are from the navigation's start: **takes taps** (DOMContentLoaded handled: the
deferred scripts ran and htmx has set up the picker's forms), **loaded** (the load event),
**engine ready** (Pyodide and the app booted in the worker), **first count** (a count posted at
once, as a tap would, answered by the engine: it waits for the boot), and the **median of the
later counts** (each a different hand, one after another). The table shows the median over
the runs and the worst run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402

HANDS = ["5H 5C 5S JD 5D", "2H 4H 6H 8H KC", "AS 2S 3S 4S 5S", "7C 8D 9H 9S TC", "JH QH KH AH 5D",
         "3C 3D 3H 4S 5S", "6C 7C 8C 9C TD", "TS JS QS KS 5C", "4D 4C 5H 6S 6D", "2C 3D 4H 9S KS"]

COLD_START = """async ([hands, later]) => {
  const start = performance.timeOrigin;
  const since = () => performance.now();
  const form = (cards) => "cards=" + encodeURIComponent(cards) + "&op=count";
  const post = (cards) => fetch("/count", { method: "POST", body: form(cards),
    headers: { "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true" } });
  const first = await post(hands[0]);
  const firstAt = since();
  const text = await first.text();
  const { engine } = await import("/static/js/offline/engine.mjs");
  const ready = await engine.start();
  const times = [];
  for (let i = 0; i < later; i++) {
    const t = since();
    const r = await post(hands[(i + 1) % hands.length]);
    await r.text();
    times.push(since() - t);
  }
  const nav = performance.getEntriesByType("navigation")[0];
  return { interactive: nav.domContentLoadedEventEnd, loaded: nav.loadEventEnd, firstCount: firstAt,
           firstStatus: first.status,
           total: /id="count-total"[^>]*>(\\d+)</.exec(text)?.[1] ?? null, bootMs: ready.bootMs, times,
           phases: ready.phases,
           origin: start };
}"""

ENGINE_READY_AT = """async () => {
  const { engine } = await import("/static/js/offline/engine.mjs");
  await engine.start();
  return performance.now();
}"""


class Counting:
    """WSGI wrapper: the bytes of each response body sent, by path."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.sent: Counter[str] = Counter()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        path = environ.get("PATH_INFO", "")
        for chunk in self.app(environ, start_response):
            self.sent[path] += len(chunk)
            yield chunk


def kind_of(path: str) -> str:
    if path.endswith(".wasm"):
        return "Pyodide WebAssembly"
    if path.endswith("python_stdlib.zip"):
        return "Python standard library"
    if "/offline/pyodide/" in path:
        return "Pyodide JavaScript and lock file"
    if path.startswith("/offline/app-"):
        return "the app's Python zip"
    if path.startswith(("/static/", "/vendor/", "/sw.js", "/offline/bundle.json")):
        return "app shell (CSS, JS, icons, manifest, sw.js)"
    return "pages"


def chromium() -> str:
    found = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(found).exists():
        sys.exit("Chromium is not installed: scripts/ensure-chromium")
    return found


def table(rows: list[tuple[str, ...]], head: tuple[str, ...]) -> None:
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(" --- " if i == 0 else " ---: " for i in range(len(head))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--later", type=int, default=20)
    parser.add_argument("--throttle", type=float, default=4.0)
    args = parser.parse_args()
    if not (ROOT / "build" / "offline" / "bundle.json").is_file():
        sys.exit("the offline bundle is not built: make setup")
    from playwright.sync_api import sync_playwright

    from web.serving import served

    folder = Path(tempfile.mkdtemp(prefix="bench-offline-"))
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'bench.db'}", "RATELIMIT_ENABLED": False},
                     instance_path=str(folder / "instance"))
    counting = Counting(app.wsgi_app)
    app.wsgi_app = counting  # type: ignore[method-assign]
    profile = folder / "profile"
    results: list[dict[str, Any]] = []
    try:
        with sync_playwright() as pw:
            phone = {k: v for k, v in pw.devices["Pixel 7"].items() if k != "default_browser_type"}
            with served(app, threads=8) as base:

                def launch() -> Any:
                    return pw.chromium.launch_persistent_context(
                        str(profile), executable_path=chromium(), headless=True, base_url=base,
                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                        service_workers="allow", **phone)

                context = launch()
                page = context.new_page()
                page.goto("/")
                for _ in range(1200):
                    ready = page.evaluate("""async () => {
                      if (!navigator.serviceWorker.controller) { return false; }
                      const s = await (await caches.open("muggins-state")).match("/offline/__state__");
                      return !!(s && (await s.json()).current);
                    }""")
                    if ready:
                        break
                    page.wait_for_timeout(250)
                else:
                    sys.exit("the service worker never got ready")
                context.close()
            # no server any more: the phone is on its own
            first_visit = Counter[str]()
            for path, n in counting.sent.items():
                first_visit[kind_of(path)] += n

            for _ in range(args.runs):
                context = launch()
                page = context.pages[0] if context.pages else context.new_page()
                cdp = context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.throttle})
                page.goto("/", wait_until="load")
                result = page.evaluate(COLD_START, [HANDS, args.later])
                if result["firstStatus"] != 200 or result["total"] != "29":
                    sys.exit(f"the offline count went wrong: {json.dumps(result)[:300]}")
                results.append(result)
                context.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    total = sum(first_visit.values())
    print(f"First visit, bytes sent by the server (compressed where the client takes gzip): "
          f"{total / 1e6:.2f} MB (limit 15 MB)\n")
    rows = [(k, f"{n / 1e6:.2f}") for k, n in first_visit.most_common()]
    table([*rows, ("**total**", f"**{total / 1e6:.2f}**")], ("kind", "MB"))

    def ms(values: list[float]) -> tuple[str, str]:
        return f"{statistics.median(values):.0f}", f"{max(values):.0f}"

    later = [statistics.median(r["times"]) for r in results]
    rows = [
        ("count page takes taps (DOMContentLoaded: htmx set up)", *ms([r["interactive"] for r in results]),
         "1,000"),
        ("count page loaded (load event: icons too)", *ms([r["loaded"] for r in results]), "-"),
        ("engine ready (Pyodide + app booted; in the worker)", *ms([r["bootMs"] for r in results]), "-"),
        ("first count answered (from navigation start)", *ms([r["firstCount"] for r in results]), "10,000"),
        (f"later counts, median of {args.later}", *ms(later), "100"),
    ]
    print(f"Offline cold start ({args.runs} runs; browser restarted with no server, page CPU throttled "
          f"{args.throttle:g}x), ms:\n")
    table(rows, ("step", "median", "worst run", "target"))
    names = list(results[0]["phases"])
    print("Where the engine's boot goes (ms since the worker started, median):\n")
    table([(name, f"{statistics.median(r['phases'][name] for r in results):.0f}") for name in names],
          ("boot step done", "ms"))


if __name__ == "__main__":
    main()
