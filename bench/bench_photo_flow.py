"""A 12 MP photo to a counted hand, in a phone's browser over a 20 Mbit/s uplink.

    .venv/bin/python bench/bench_photo_flow.py [--runs 5] [--seed 8300001]

Serves the app with waitress on a loopback port and drives Debian's Chromium with Playwright as a
Pixel 7, the network throttled by the DevTools protocol (``Network.emulateNetworkConditions``:
20 Mbit/s up and down, 10 ms latency). The photo is ``vision.synth.render_show(seed, size=(4032,
3024), apart=True)`` as a JPEG of a few MB: a show whose starter lies apart, so the flow is the
two taps a player makes (choose the photo, then "Count"). Timed from the file's choice to the
total on screen, twice: as photo.js sends it (shrunk in the browser to 1600 px, JPEG 0.92), and
with ``createImageBitmap`` taken away so the original goes up, as it does from a browser that
cannot decode the photo. Prints the bytes sent, the time to the request's start (the shrink),
and the median, fastest and slowest time to the total; then the times the page notes itself,
from the choice to the confirm screen (of which the shrink, to the form's submission, and the
server's own time over the request, from the whole body received to the whole answer made) and
from "Count" to the total.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

UPLINK_BYTES_S = 20_000_000 / 8
"""20 Mbit/s, each way: a phone on the table's Wi-Fi."""
LATENCY_MS = 10
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 60_000
"""Longest wait for the total, per run."""
IN_PAGE = """
const flow = () => JSON.parse(sessionStorage.getItem("flow") || "{}");
const note = (name) => {
  const noted = flow();
  if (!noted[name]) {
    noted[name] = performance.timeOrigin + performance.now();
    sessionStorage.setItem("flow", JSON.stringify(noted));
  }
};
document.addEventListener("change", (event) => {
  if (event.target && event.target.id === "photo-file") { note("chosen"); }
}, true);
document.addEventListener("submit", (event) => {
  if (event.target && event.target.id === "photo-form") { note("sent"); }
}, true);
document.addEventListener("pointerdown", (event) => {
  // The first button pressed on the confirm screen: the bench presses "Count" and nothing else.
  if (document.getElementById("photo-chips") && event.target instanceof Element
      && event.target.closest("button")) {
    note("tapped");
  }
}, true);
new MutationObserver(() => {
  if (document.getElementById("photo-chips")) { note("confirm"); }
  if (document.getElementById("count-total")) { note("total"); }
}).observe(document, {subtree: true, childList: true});
"""
"""Times the page itself notes (the browser's clock, kept in sessionStorage across the "Count"
page load): the photo chosen (the input's first "change"), the photo form submitted (once
photo.js has shrunk the photo), the confirm screen in the page, the "Count" button pressed, the
total in the page."""


def run_once(browser: Browser, phone: dict[str, Any], base: str, photo: Path,
             shrink: bool, received: list[int]) -> tuple[float, float, int, float, float, float]:
    """One flow: seconds to the request's start, seconds to the total, bytes sent (the body
    length the server was given, appended to `received`), and the seconds the page itself
    waited, as it noted them: from the choice to the confirm screen, from "Count" to the total,
    and from the choice to the form's submission (the shrink)."""
    from playwright.sync_api import expect

    context = browser.new_context(**phone)
    try:
        if not shrink:
            context.add_init_script("delete window.createImageBitmap;")
        context.add_init_script(IN_PAGE)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": LATENCY_MS,
                                                      "uploadThroughput": UPLINK_BYTES_S,
                                                      "downloadThroughput": UPLINK_BYTES_S})
        page.goto(base + "/")
        sent: list[float] = []
        page.on("request", lambda r: sent.append(time.perf_counter()) if r.method == "POST" else None)
        started = time.perf_counter()
        page.set_input_files("#photo-file", str(photo))
        expect(page.locator("#photo-chips")).to_be_visible(timeout=WAIT_MS)
        page.get_by_role("button", name="Count", exact=True).tap()
        expect(page.locator("#count-total")).to_be_visible(timeout=WAIT_MS)
        total = time.perf_counter() - started
        flow = page.evaluate("JSON.parse(sessionStorage.getItem('flow'))")
        read, counted = (flow["confirm"] - flow["chosen"]) / 1000, (flow["total"] - flow["tapped"]) / 1000
        return sent[0] - started, total, received[-1], read, counted, (flow["sent"] - flow["chosen"]) / 1000
    finally:
        context.close()


def main() -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=8_300_001)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from app import create_app
    from vision.synth import render_show
    from web.serving import served

    folder = Path(tempfile.mkdtemp(prefix="bench-photo-"))
    photo = folder / "large.jpg"
    photo.write_bytes(render_show(args.seed, size=(4032, 3024), harsh=False, apart=True).jpeg_bytes())
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'bench.db'}"},
                     instance_path=str(folder / "instance"))
    received: list[int] = []
    handled: list[float] = []

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        """The app, noting the length of each photo the browser sends (Chromium's DevTools do
        not always report a multipart request's Content-Length) and the seconds the server
        took over it, from the whole body received to the whole answer made."""
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("PATH_INFO") != "/photo":
            return app(environ, start_response)
        received.append(int(environ.get("CONTENT_LENGTH") or 0))
        started = time.perf_counter()
        answer = app(environ, start_response)
        try:
            body = b"".join(answer)
        finally:
            getattr(answer, "close", lambda: None)()
        handled.append(time.perf_counter() - started)
        return [body]

    rows = []
    try:
        with served(counting) as base, sync_playwright() as playwright:
            phone = {k: v for k, v in playwright.devices["Pixel 7"].items() if k != "default_browser_type"}
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            run_once(browser, phone, base, photo, True, received)  # warm: the photo worker's model, the page
            for shrink in (True, False):
                runs = [run_once(browser, phone, base, photo, shrink, received) for _ in range(args.runs)]
                rows.append((shrink, runs, handled[-args.runs:]))
            browser.close()
    finally:
        app.extensions["muggins.store"].close()
    print(f"12 MP photo: {photo.stat().st_size / 1e6:.2f} MB (seed {args.seed}); "
          f"20 Mbit/s each way, {LATENCY_MS} ms latency; {args.runs} runs each\n")
    print("| sent | bytes sent | to request ms (median) | choice to total s, median | fastest | slowest "
          "| in the page: choice to confirm s | of which the shrink s | of which the server s "
          "| \"Count\" to total s | the two, s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for shrink, runs, server in rows:
        totals = [r[1] for r in runs]
        print(f"| {'shrunk in the browser' if shrink else 'original'} | {runs[0][2] / 1e3:,.0f} kB | "
              f"{statistics.median(r[0] for r in runs) * 1000:.0f} | {statistics.median(totals):.2f} | "
              f"{min(totals):.2f} | {max(totals):.2f} | {statistics.median(r[3] for r in runs):.2f} | "
              f"{statistics.median(r[5] for r in runs):.2f} | {statistics.median(server):.2f} | "
              f"{statistics.median(r[4] for r in runs):.2f} | "
              f"{statistics.median(r[3] + r[4] for r in runs):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
