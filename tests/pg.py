"""A throwaway PostgreSQL server for the tests: ``initdb`` in a temporary folder, start, stop, remove.

The server trusts local connections (no password) from the role ``app``, listens on 127.0.0.1 at
a free port and keeps its socket, data and log in one temporary folder that :meth:`stop` removes.
PostgreSQL refuses to run as root, so under root the folder belongs to the ``postgres`` user and
the binaries run through ``runuser``; otherwise they run as the current user.

The server runs with ``fsync=off``: the tests kill clients, never the server, so flushing its
own files to disk would only slow a shared machine down.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["PostgresServer", "PostgresUnavailable", "find_binaries", "start_postgres"]

ROLE: Final = "app"
"""The superuser role ``initdb`` creates; the tests connect as it."""
OS_USER_WHEN_ROOT: Final = "postgres"
"""The account that owns the server when the tests run as root."""
START_ATTEMPTS: Final = 3
"""Starts to try: a free port found by binding can be taken by someone else before the server binds it."""
START_WAIT_S: Final = 60
"""Seconds ``pg_ctl -w`` waits for the server to accept connections (about 1 s on a quiet machine)."""
COMMAND_TIMEOUT_S: Final = 120
"""Seconds any one ``initdb``/``pg_ctl`` call may take before the helper gives up."""
_SEARCH_DIRS: Final = (Path("/usr/lib/postgresql"),)
"""Where Debian installs each PostgreSQL version's binaries (``<version>/bin``) off the PATH."""


class PostgresUnavailable(RuntimeError):
    """This machine has no PostgreSQL binaries (or, under root, no account to run them as)."""


@dataclass(frozen=True, slots=True)
class PostgresServer:
    """A running throwaway server; :meth:`stop` shuts it down and deletes its files."""

    folder: Path
    port: int
    pg_ctl: Path
    run_as: str | None

    @property
    def url(self) -> str:
        """SQLAlchemy URL of the server's ``postgres`` database."""
        return f"postgresql+psycopg://{ROLE}@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        """The cluster's data directory."""
        return self.folder / "data"

    def stop(self) -> None:
        """Stop the server at once (no checkpoint: its data is thrown away) and remove its folder."""
        try:
            _run(self.run_as, [str(self.pg_ctl), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def find_binaries() -> tuple[Path, Path] | None:
    """Paths of ``initdb`` and ``pg_ctl`` (PATH first, then Debian's folders), or None."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(initdb), Path(pg_ctl)
    for base in _SEARCH_DIRS:
        versions = sorted(base.glob("*/bin"), key=lambda p: _version(p.parent.name), reverse=True)
        for folder in versions:
            if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
                return folder / "initdb", folder / "pg_ctl"
    return None


def start_postgres() -> PostgresServer:
    """Create a cluster in a new temporary folder and start a server on a free local port."""
    binaries = find_binaries()
    if binaries is None:
        raise PostgresUnavailable("initdb and pg_ctl are neither on PATH nor under /usr/lib/postgresql")
    initdb, pg_ctl = binaries
    run_as = None
    folder = Path(tempfile.mkdtemp(prefix="muggins-pg-"))
    try:
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam(OS_USER_WHEN_ROOT)
            except KeyError:
                raise PostgresUnavailable(
                    f"running as root, and there is no {OS_USER_WHEN_ROOT!r} account to run PostgreSQL as"
                ) from None
            run_as = OS_USER_WHEN_ROOT
            os.chown(folder, account.pw_uid, account.pw_gid)
        _run(run_as, [
            str(initdb), "-D", str(folder / "data"), "-A", "trust", "-U", ROLE,
            "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
        ])
        for attempt in range(1, START_ATTEMPTS + 1):
            server = PostgresServer(folder=folder, port=_free_port(), pg_ctl=pg_ctl, run_as=run_as)
            options = (
                f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
            )
            try:
                _run(run_as, [
                    str(pg_ctl), "-D", str(server.data), "-l", str(folder / "server.log"),
                    "-o", options, "-w", "-t", str(START_WAIT_S), "start",
                ])
            except RuntimeError as exc:
                if attempt == START_ATTEMPTS:
                    log = folder / "server.log"
                    raise RuntimeError(f"{exc}\nserver log:\n{_tail(log)}") from None
                continue
            return server
        raise AssertionError("unreachable: the last failed start re-raises")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _run(run_as: str | None, command: list[str]) -> None:
    if run_as is not None:
        command = ["runuser", "-u", run_as, "--", *command]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False, cwd="/"
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed with status {result.returncode}:\n{result.stdout}{result.stderr}"
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _tail(path: Path, chars: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError as exc:
        return f"(unreadable: {exc})"


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())
