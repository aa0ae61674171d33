"""Live camera frames a server reads per second: one frame at a time against two at a time.

    .venv/bin/python bench/bench_frames.py [--frames 16] [--rounds 2]

Serves the app with waitress on a loopback port and posts a camera frame to
``/api/recognise/frame`` as static/js/camera.js does: a 1280 x 960 JPEG (quality 0.8) of the show
the e2e camera test films (``vision.synth.render_show(202)``, its five cards apart), with the
count page's ``expect=5``, each answer awaited before that "phone" sends its next frame. Once with
one frame in flight (the page before it sent the next frame while the last was read), once with
two (``IN_FLIGHT`` in camera.js), and once with two without ``expect`` (the page before it sent
none), in turn ``--rounds`` times, two frames sent first to start the photo workers' forkserver. The phone is
this process's threads, which wait on the network and cost next to nothing: the server has the
machine's cores to itself, as a laptop at the table does while the phone films.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BOUNDARY = "muggins-bench-frame"


def main() -> int:
    """Post the frames and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=16, help="frames per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="measurements of each way")
    args = parser.parse_args()

    import cv2

    from app import create_app
    from vision.synth import render_show
    from web.serving import served

    folder = Path(tempfile.mkdtemp(prefix="bench-frames-"))
    app = create_app({"DATABASE_URL": f"sqlite:///{folder / 'bench.db'}", "RATELIMIT_ENABLED": False},
                     instance_path=str(folder / "instance"))
    picture = cv2.resize(render_show(202, harsh=False).image, (1280, 960), interpolation=cv2.INTER_AREA)
    frame = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    image = (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="frame.jpg"\r\n'
             f"Content-Type: image/jpeg\r\n\r\n").encode() + frame + b"\r\n"
    told = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="expect"\r\n\r\n5\r\n'.encode()
    end = f"--{BOUNDARY}--\r\n".encode()
    bodies = {True: image + told + end, False: image + end}
    ways = [(1, True), (2, True), (2, False)]
    rates: dict[tuple[int, bool], list[float]] = {way: [] for way in ways}
    try:
        with served(app, threads=4) as base:
            def post(expect: bool = True) -> None:
                request = urllib.request.Request(
                    f"{base}/api/recognise/frame", data=bodies[expect],
                    headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
                with urllib.request.urlopen(request) as response:
                    if response.status != 200:
                        raise RuntimeError(f"the frame was answered {response.status}")

            def send(frames: int, expect: bool) -> None:
                for _ in range(frames):
                    post(expect)

            post()
            post()
            for _ in range(args.rounds):
                for flying, expect in ways:
                    started = time.monotonic()
                    each = args.frames // flying
                    phones = [threading.Thread(target=send, args=(each, expect)) for _ in range(flying)]
                    for phone in phones:
                        phone.start()
                    for phone in phones:
                        phone.join()
                    rates[flying, expect].append(each * flying / (time.monotonic() - started))
    finally:
        app.extensions["muggins.store"].close()
    print(f"A 1280 x 960 camera frame ({len(frame) / 1e3:.0f} kB), {args.frames} frames a measurement, "
          f"{args.rounds} measurements each way\n")
    print("| frames in flight | expect | frames read a second (median) | each measurement |")
    print("| --- | --- | ---: | --- |")
    for (flying, expect), measured in rates.items():
        print(f"| {flying} | {'5' if expect else 'none'} | {statistics.median(measured):.2f} | "
              f"{', '.join(f'{r:.2f}' for r in measured)} |")
    one, two, blind = (statistics.median(rates[way]) for way in ways)
    print(f"\nTwo in flight read {two / one:.2f} times as many frames a second as one; told to expect the "
          f"show's five cards, {two / blind:.2f} times as many as without.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
