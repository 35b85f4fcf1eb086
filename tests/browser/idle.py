"""One home for starting a test app server and waiting until it answers, shared by the browser tests
(``tests/browser/conftest.py``) and the UI benchmark (``benchmarks/bench_ui.py``).

No pytest and no Playwright here: the benchmark imports this module outside pytest.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["ROOT", "free_port", "streamlit_server", "wait_healthy"]


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


@contextlib.contextmanager
def streamlit_server(script: Path, data_dir: Path, timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """``streamlit run script`` on a free loopback port, headless, with ``NKP_DATA_DIR=data_dir``, started as ``make
    run`` does (``python -m ui.serve``: the heavy imports preloaded); yield its base URL (``http://127.0.0.1:PORT``)
    and process id once it answers; stop it afterwards.

    The server runs the code it started with (no file watcher, no rerun on save): an edit of the working tree
    meanwhile reruns nothing. Its output goes to ``data_dir/streamlit-PORT.log``."""
    port = free_port()
    env = dict(os.environ, NKP_DATA_DIR=str(data_dir), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    log_path = data_dir / f"streamlit-{port}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "ui.serve", str(script),
                "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                "--server.fileWatcherType", "none", "--server.runOnSave", "false",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(proc, base, log_path, timeout)
            yield base, proc.pid
        finally:
            stop(proc)
