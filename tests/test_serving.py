"""The browser tests' server (`web.serving.served`): stopping it leaves nothing open."""

from __future__ import annotations

import socket
from io import BufferedReader
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask, send_file

from web.serving import served


def test_a_file_still_being_sent_is_closed_when_the_server_stops(tmp_path: Path) -> None:
    # A page fetching the offline bundle as a browser test ends: the server stops with most of
    # the file not yet sent, the client still connected and reading nothing. Left open, the
    # file is a ResourceWarning whenever it is collected, in whichever later test that happens
    # (seen on CI), an error there (`filterwarnings = error`) that no test can catch.
    big = tmp_path / "bundle.zip"
    big.write_bytes(bytes(32 << 20))
    app = Flask(__name__)
    opened: list[BufferedReader] = []

    @app.get("/bundle.zip")
    def bundle() -> object:
        opened.append(big.open("rb"))
        return send_file(opened[-1], mimetype="application/zip")

    with served(app) as base:
        client = socket.create_connection(_address(base))
        client.sendall(b"GET /bundle.zip HTTP/1.1\r\nHost: test\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        assert not opened[0].closed  # being sent
    try:
        assert opened[0].closed  # the client still there: the server closed it
    finally:
        client.close()


def _address(base: str) -> tuple[str, int]:
    parts = urlsplit(base)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port
