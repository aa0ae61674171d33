"""Hostile uploads, slow clients and huge bodies against the served app (``python app.py``, waitress).

    .venv/bin/python bench/bench_hostile.py [--slow-clients 200] [--repeat 9]

For each hostile upload of ``bench/hostile_files.py`` (made in code: 40 MP WebP, PNGs and HEIC,
the progressive-JPEG scan bomb, two tiny malformed files, two photos of random noise, and a
normal 12 MP photo):

- **served**: ``POST /api/recognise`` to the server; its status, the server process's peak
  memory growth (VmHWM) and CPU seconds for the request, the wall time, and its resident memory
  afterwards against its idle memory (VmRSS);
- **worker**: the same file through ``vision.io.decode_and_read`` with the app's reader in this
  process, which reports the photo worker's own peak resident memory above its start and its CPU
  seconds for the decode and the reading (from the worker's rusage), or that its limits stopped it.

Then the normal 12 MP photo's latency over ``--repeat`` uploads (median and slowest), and the
same through a tiny photo (the worker's start and round trip).

Then the slow-client figure: ``--slow-clients`` connections each holding a half-sent 10 MiB
upload, and the latency of a normal ``POST /api/score`` meanwhile; and a 300 MiB body to
``/api/score`` (declared length and chunked): the time to its 413 and the bytes sent by then.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import re
import select
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import hostile_files  # noqa: E402
from bench.bench_load import Server, free_port  # noqa: E402
from vision import io as vision_io  # noqa: E402
from web.api import PHOTO_READER  # noqa: E402

MIB = 2**20
BOUNDARY = "muggins-bench"
SCORE = json.dumps({"hand": "5H 5C 5S JD", "starter": "5D"}).encode()


def status_kib(pid: int, field: str) -> int:
    found = re.search(rf"^{field}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(found.group(1)) if found else 0


def post(port: int, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": content_type})
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def post_photo(port: int, blob: bytes) -> tuple[int, bytes]:
    head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    return post(port, "/api/recognise", head + blob + f"\r\n--{BOUNDARY}--\r\n".encode(),
                f"multipart/form-data; boundary={BOUNDARY}")


def uploads_table(server: Server, files: dict[str, bytes]) -> list[str]:
    assert server.process is not None
    pid = server.process.pid
    post(server.port, "/api/score", SCORE, "application/json")
    post_photo(server.port, files["12 MP JPEG photo (reference)"])  # warm: forkserver, model, arenas
    idle = status_kib(pid, "VmRSS")
    rows = ["| upload | bytes | status | server peak +MiB | server CPU s | wall s "
            "| server RSS after − idle MiB | worker peak MiB | worker CPU s | answer |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for name, blob in files.items():
        peak, cpu = status_kib(pid, "VmHWM"), server.cpu_seconds()
        started = time.perf_counter()
        status, answer = post_photo(server.port, blob)
        wall = time.perf_counter() - started
        grown = (status_kib(pid, "VmHWM") - peak) / 1024
        used = server.cpu_seconds() - cpu
        after = (status_kib(pid, "VmRSS") - idle) / 1024
        with contextlib.suppress(vision_io.ImageError):
            vision_io.decode_and_read(blob, PHOTO_READER)
        cost = vision_io.last_cost.value
        worker = (f"{cost.memory_bytes / MIB:.0f} | {cost.cpu_seconds:.2f}" if cost is not None
                  else "stopped by its limits | –")
        parsed = json.loads(answer)
        said = parsed.get("error") or f"{len(parsed.get('cards', []))} cards read"
        rows.append(f"| {name} | {len(blob):,} | {status} | {grown:.1f} | {used:.2f} | {wall:.2f} "
                    f"| {after:+.1f} | {worker} | {said[:90]} |")
    return rows


def latency_rows(server: Server, files: dict[str, bytes], repeat: int) -> list[str]:
    """The wall time of ``repeat`` uploads of a normal photo and of a tiny one, one at a time."""
    rows = []
    for name in ("12 MP JPEG photo (reference)", "JPEG with malformed EXIF"):
        walls = []
        for _ in range(repeat):
            started = time.perf_counter()
            status, _ = post_photo(server.port, files[name])
            walls.append((time.perf_counter() - started) * 1000)
            assert status == 200, (name, status)
        rows.append(f"| {name} ×{repeat} | median {statistics.median(walls):.0f} ms, slowest "
                    f"{max(walls):.0f} ms |")
    return rows


def slow_clients(server: Server, count: int) -> str:
    head = (f"POST /api/recognise HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {10 * MIB}\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n--{BOUNDARY}\r\n").encode()
    held = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(head)
            held.append(sock)
        time.sleep(0.5)
        started = time.perf_counter()
        status, _ = post(server.port, "/api/score", SCORE, "application/json")
        latency = time.perf_counter() - started
    finally:
        for sock in held:
            sock.close()
    return f"| {count} half-sent uploads held open | POST /api/score: {status} in {latency * 1000:.0f} ms |"


def huge_body(server: Server, chunked: bool) -> str:
    total = 300 * MIB
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}"
    head = (f"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{framing}"
            "\r\n\r\n").encode()
    block = b"0" * (64 * 1024)
    piece = f"{len(block):x}\r\n".encode() + block + b"\r\n" if chunked else block
    sent = 0
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 256 * 1024)
        sock.settimeout(60)
        sock.connect(("127.0.0.1", server.port))
        started = time.perf_counter()
        sock.sendall(head)
        sock.setblocking(False)
        while sent < total:
            readable, writable, _ = select.select([sock], [sock], [], 10)
            if readable:
                break
            if writable:
                try:
                    sent += sock.send(piece)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    break
        sock.setblocking(True)
        sock.settimeout(60)
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        resp.read()
        elapsed = time.perf_counter() - started
    kind = "chunked" if chunked else "declared length"
    return (f"| 300 MiB body to /api/score ({kind}) | {resp.status} after {elapsed * 1000:.0f} ms, "
            f"{sent / MIB:.1f} MiB sent (0.4 MiB of it fills the socket buffers unread) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow-clients", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=9, help="uploads of the photo whose latency is timed")
    args = parser.parse_args()
    files = {name: make() for name, make in hostile_files.HOSTILE.items()}
    with tempfile.TemporaryDirectory(prefix="muggins-hostile-") as folder_name:
        folder = Path(folder_name)
        server = Server("waitress", f"sqlite:///{folder / 'bench.sqlite'}", folder / "instance", free_port(),
                        1, folder / "server.log")
        server.start()
        try:
            print("\n".join(uploads_table(server, files)))
            print()
            print("| photo, uploaded one at a time | wall time |\n| --- | --- |")
            print("\n".join(latency_rows(server, files, args.repeat)))
            print()
            print("| hostile traffic | result |\n| --- | --- |")
            print(slow_clients(server, args.slow_clients))
            print(huge_body(server, chunked=False))
            print(huge_body(server, chunked=True))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
