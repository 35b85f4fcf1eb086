"""Browser-test harness: a real ``streamlit run`` on a free loopback port, driven by Playwright in Debian's
headless Chromium (``/usr/bin/chromium``; never ``playwright install``).

Under ``CI=true`` a missing browser FAILS the run; elsewhere browser tests skip with a reason.

Fixtures:
- ``server``: one app server for the session (base URL, e.g. ``http://127.0.0.1:PORT``).
- ``start_server``: a context manager that starts a FRESH server (for tests whose first request matters).
- ``browser``: the Chromium browser; ``new_page()`` gives a page in a fresh context (no shared cookies/storage).
Helpers: ``goto(page, url)`` loads a URL and waits until the app has finished running.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _require_browser() -> None:
    missing = []
    if not CHROMIUM.exists():
        missing.append(str(CHROMIUM))
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the playwright package")
    if missing:
        msg = f"browser tests need {' and '.join(missing)} (make test installs them)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(msg + "; under CI=true they are mandatory")
        pytest.skip(msg)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def run_server(data_dir: Path, timeout: float = 60.0) -> Iterator[str]:
    """Start ``streamlit run app.py`` on a free loopback port; yield its base URL; stop it afterwards."""
    port = free_port()
    env = dict(os.environ, NKP_DATA_DIR=str(data_dir), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    log = open(data_dir / f"streamlit-{port}.log", "wb")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
            "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
        ],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early: {(data_dir / f'streamlit-{port}.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("streamlit did not become healthy")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def _browser_required() -> None:
    _require_browser()


@pytest.fixture(scope="session")
def server(_browser_required: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One app server for the whole test session."""
    with run_server(tmp_path_factory.mktemp("server_data")) as base:
        yield base


@pytest.fixture
def start_server(_browser_required: None, tmp_path: Path) -> Callable[[], contextlib.AbstractContextManager[str]]:
    """``with start_server() as base:`` a fresh server whose first request is yours."""
    return lambda: run_server(tmp_path)


@pytest.fixture(scope="session")
def browser(_browser_required: None):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):
    """``new_page()`` -> a Playwright page in a fresh browser context (as a teammate opening a link would)."""
    contexts = []

    def _new():
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(ctx)
        return ctx.new_page()

    yield _new
    for ctx in contexts:
        ctx.close()


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until the Streamlit script has finished running (no 'running' status, main block present)."""
    # Streamlit marks the app root with its script state, as its own e2e helper (wait_for_app_run) reads it.
    # A rerun triggered by an interaction may start a moment after it; the short pause lets it begin first.
    page.wait_for_timeout(100)
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]',
        timeout=timeout,
    )
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)


def goto(page, url: str, timeout: float = 60_000) -> None:
    """Open ``url`` and wait until the app has rendered and finished running."""
    page.goto(url, timeout=timeout)
    page.wait_for_selector("h1", timeout=timeout)
    wait_idle(page, timeout)
    # element renderers (metrics, charts, tables) are code-split chunks fetched after the script has run
    page.wait_for_load_state("networkidle", timeout=timeout)
