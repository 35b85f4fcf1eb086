"""The one launcher of a test app server: ``python -m ui.serve SCRIPT`` (as ``make run`` starts the app: the heavy
imports preloaded) on a free loopback port, headless, waited for until it answers, stopped at the end.

Used by the browser tests (``tests/browser/conftest.py``: the ``server`` and ``start_server`` fixtures), the team
deployment test (``tests/browser/test_two_servers.py``: two servers on one S3-compatible store), the server fault
tests (``tests/test_faults_server.py``: XSRF off, a kill -9 mid-upload) and, through ``tests/browser/idle.py``, the
UI and load benchmarks (``benchmarks/bench_ui.py``, ``benchmarks/load_viewers.py``).

No pytest and no Playwright here: the benchmarks import this module outside pytest.

The options:

- ``data``: the dataset store, ``NKP_DATA_DIR`` (a folder, or a store URL such as ``s3://bucket/prefix``);
- ``log_dir``: where the server's output goes (``streamlit-PORT.log``); by default ``data`` when it is a folder;
- ``env``: more environment variables for the server (store settings, limits such as ``NKP_MAX_*``, a cache log),
  on top of this process's environment;
- ``xsrf``: ``False`` turns Streamlit's XSRF protection off (a client that sends no cookie, e.g. a raw upload);
- ``memory_mb``: a cap on the server's address space (``RLIMIT_AS``, inherited by the processes it forks);
- ``port``: a fixed port instead of a free one;
- ``timeout``: how long to wait for ``/_stcore/health`` to answer 200.

The server runs the code it started with (no file watcher, no rerun on save): an edit of the working tree meanwhile
reruns nothing. It is stopped with SIGKILL (:func:`stop`).
"""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["ROOT", "Server", "app_server", "free_port", "stop", "wait_healthy"]


def free_port() -> int:
    """A loopback port free right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_healthy(proc: subprocess.Popen[bytes], base: str, log_path: Path, timeout: float) -> None:
    """Poll ``base``/_stcore/health every 0.05 s until it answers 200; RuntimeError (with the server's log) if the
    process exits first, TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early: {log_path.read_text()}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
            if resp.status == 200:
                return
        if time.monotonic() > deadline:
            raise TimeoutError("streamlit did not become healthy")
        time.sleep(0.05)  # a refused connection costs microseconds; the test waits on this


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server the tests started, with SIGKILL, and reap it. A graceful stop (SIGTERM: Streamlit's shutdown,
    then Python's teardown of the server's large heap) took 0.6-0.8 s of wall and 0.4-0.5 s of CPU per server, and
    tests start about twenty. Nothing is lost: every dataset is in place once its put returns (the store writes a
    temporary file and renames it, which the kill -9 tests check), and the log is written line by line."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


@dataclass(frozen=True)
class Server:
    """A running test server: its base URL (``http://127.0.0.1:PORT``), port, process and log file."""

    base: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.proc.pid


def _memory_cap(megabytes: int) -> Callable[[], None]:
    limit = megabytes << 20

    def cap() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return cap


def command(script: Path, port: int, *, xsrf: bool = True) -> list[str]:
    """The server's command line: ``python -m ui.serve script`` on ``127.0.0.1:port``, headless, no file watcher,
    no rerun on save; ``xsrf=False`` adds ``--server.enableXsrfProtection false``."""
    argv = [
        sys.executable, "-m", "ui.serve", str(script),
        "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
        "--server.fileWatcherType", "none", "--server.runOnSave", "false",
    ]  # fmt: skip
    if not xsrf:
        argv += ["--server.enableXsrfProtection", "false"]
    return argv


@contextlib.contextmanager
def app_server(
    data: Path | str,
    *,
    script: Path = ROOT / "app.py",
    log_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    xsrf: bool = True,
    memory_mb: int | None = None,
    port: int | None = None,
    timeout: float = 60.0,
) -> Iterator[Server]:
    """Start ``python -m ui.serve script`` with ``NKP_DATA_DIR=data`` (the options: the module's docstring), yield
    it once ``/_stcore/health`` answers, stop it (SIGKILL) afterwards, also when the start fails."""
    if log_dir is None:
        if not isinstance(data, Path):
            raise ValueError("app_server: a store URL needs a log_dir for the server's log")
        log_dir = data
    port = free_port() if port is None else port
    full_env = dict(os.environ, NKP_DATA_DIR=str(data), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    full_env.update(env or {})
    log_path = log_dir / f"streamlit-{port}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            command(script, port, xsrf=xsrf),
            cwd=ROOT,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=None if memory_mb is None else _memory_cap(memory_mb),
        )
        server = Server(f"http://127.0.0.1:{port}", port, proc, log_path)
        try:
            wait_healthy(proc, server.base, log_path, timeout)
            yield server
        finally:
            stop(proc)
