"""gunicorn settings for Muggins: ``gunicorn wsgi:app`` from the repository root reads this file.

Several worker processes, each with a few threads, share one database (``DATABASE_URL``, use
PostgreSQL) and one instance folder (``MUGGINS_INSTANCE``). Any setting here can be overridden
on the command line (``-b 0.0.0.0:8000``, ``-w 4``) or in ``GUNICORN_CMD_ARGS``.
"""

from __future__ import annotations

import os

CPU_COUNT = os.cpu_count() or 1

bind = [os.environ.get("MUGGINS_BIND", "127.0.0.1:8000")]
"""Loopback by default: a hosted service puts a TLS-terminating proxy in front."""

workers = int(os.environ.get("WEB_CONCURRENCY", CPU_COUNT))
"""One process per core keeps every core busy with Python; waits on the database are covered by
threads, not by more processes (measure with bench/bench_load.py before changing it)."""

worker_class = "gthread"
"""Threads, not the sync worker: a thread waiting on the database frees the core, and gthread
keeps phones' connections alive between polls (the sync worker closes after every request)."""

threads = int(os.environ.get("MUGGINS_THREADS", 8))
"""Requests one worker serves at once. A phone keeps its connection to one worker, so a worker
needs enough threads that a few slow requests never hold up the rest of its phones; SQLAlchemy's
pool (5 connections, 10 more on demand) covers them."""

keepalive = 5
"""Seconds an idle connection stays open: longer than the 2 s poll of a watching phone."""

timeout = 30
"""Seconds before a silent worker is killed and replaced (no request here takes near that)."""

graceful_timeout = 10
"""Seconds a worker gets to finish its requests on reload or stop."""

worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
"""The workers' heartbeat files on tmpfs, so a slow disk never looks like a hung worker."""

control_socket_disable = True
"""No control socket (by default one per user in ~/.gunicorn): two servers on one machine would
share it, and nothing here needs it."""

errorlog = "-"
loglevel = os.environ.get("MUGGINS_LOG_LEVEL", "info")
