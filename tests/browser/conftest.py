"""Browser-test harness: a real ``streamlit run`` on a free loopback port, driven by Playwright in Debian's
headless Chromium (``/usr/bin/chromium``; never ``playwright install``).

Under ``CI=true`` a missing browser FAILS the run; elsewhere browser tests skip with a reason.

Assertions on what a page shows go through Playwright's retrying ``expect(...)`` (re-exported here), as Streamlit's
own e2e tests do: a rerun may swap elements between two reads, so a value is never read once and compared; the
expectation is retried until it holds or its timeout (``EXPECT_TIMEOUT_MS`` by default) runs out.

Fixtures:
- ``server``: one app server for the session (base URL, e.g. ``http://127.0.0.1:PORT``).
- ``start_server``: a context manager that starts a FRESH server (for tests whose first request matters).
- ``new_page()`` gives a tab of the test's own (a new Streamlit session) in this process's own Chromium, whose
  profile is on disk (a tab an earlier test is done with, or a new one); ``new_page(fresh=True)`` a page in a fresh
  context (no shared cookies, storage or cache) of a second Chromium, the ``browser`` fixture
  (``fresh_context(browser)`` makes such a context); ``new_page(viewport=(1024, 768))`` a page of another size.
  Every page runs ``STILL_JS`` first: no CSS animations or transitions.
Helpers: ``goto(page, url)`` loads a URL and waits until the app has finished running; ``wait_for_app_run(page)``
waits for the end of a rerun; ``main(page)`` is the main block; ``screenshot(page, name)`` saves a full-page
screenshot under ``tests/browser/artifacts/``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.servers import app_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright

try:
    from playwright.sync_api import expect
except ImportError:  # the fixtures skip (or fail under CI=true) and say why
    expect = None  # type: ignore[assignment]

# Default patience of every expect(...): generous, the machine running the tests may be busy (2 cores, 8 jobs).
EXPECT_TIMEOUT_MS = 30_000
if expect is not None:
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)

ARTIFACTS = Path(__file__).parent / "artifacts"
# Streamlit marks its root with the connection and script state, as its own e2e helper (wait_for_app_run) reads.
APP_READY = '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]'
MAIN = '[data-testid="stMain"]'
EXCEPTION = '[data-testid="stException"]'

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


@contextlib.contextmanager
def run_server(data_dir: Path, timeout: float = 60.0) -> Iterator[str]:
    """Start the app (``python -m ui.serve app.py``) on a free loopback port with ``NKP_DATA_DIR=data_dir``; yield its
    base URL; stop it afterwards (:func:`tests.servers.app_server`, the one launcher of a test server)."""
    with app_server(data_dir, timeout=timeout) as app:
        yield app.base


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


VIEWPORT = (1400, 1000)
"""A page's window size (width, height) unless a test asks for another."""


# Every page the tests open runs this first: a style sheet that stops CSS animations and transitions (Streamlit's
# running indicator, its loading skeletons, expanders opening). Nothing a test asserts depends on them, but a page
# that waits on a busy server redraws them all the while: twenty pages opening one link together spent about a
# quarter of their CPU on it (docs/benchmarks.md, "The test suite's time"; the measurement in its history).
STILL_JS = """document.addEventListener("DOMContentLoaded", () => {
    const style = document.createElement("style");
    style.textContent = "*, *::before, *::after { animation: none !important; transition: none !important; }";
    (document.head || document.documentElement)?.appendChild(style);  // a document without a head: its root
});"""


@pytest.fixture(scope="session")
def _playwright(_browser_required: None) -> Iterator[Playwright]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(_playwright: Playwright) -> Iterator[Browser]:
    """The Chromium that fresh browser contexts open in (launched on first use)."""
    b = _playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()


def fresh_context(browser: Browser, viewport: tuple[int, int] = VIEWPORT) -> BrowserContext:
    """A new browser context in ``browser``: no cookies, storage or cache shared with another; its pages run
    ``STILL_JS`` first."""
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    ctx.add_init_script(STILL_JS)
    return ctx


@pytest.fixture(scope="session")
def _tabs(_playwright: Playwright, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """The browser context this test process opens its tabs in: a Chromium of its own whose profile is on disk
    (one per process, closed at the end). Chromium keeps the compiled form of Streamlit's scripts (V8's code cache)
    only in a profile on disk, so a tab loads a page for about a fifth less CPU than in a context kept in memory."""
    ctx = _playwright.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium_profile")),
        executable_path=str(CHROMIUM),
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]},
    )
    ctx.add_init_script(STILL_JS)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def _idle_tabs() -> list[Page]:
    """Tabs of ``_tabs`` that earlier tests are done with, on ``about:blank``, for ``new_page()`` to hand out again."""
    return []


@pytest.fixture
def new_page(
    request: pytest.FixtureRequest, _tabs: BrowserContext, _idle_tabs: list[Page]
) -> Iterator[Callable[..., Page]]:
    """``new_page()`` -> a tab of this test's own: a new Streamlit session (the server keeps one per page load, and
    nothing of the app's state lives in cookies or storage), in this test process's browser context, whose cache is
    warm as a returning user's is. ``new_page(fresh=True)`` -> a page in a fresh browser context (no cookies, no
    storage, no cache: a teammate opening a link for the first time). ``new_page(viewport=(width, height))`` for
    another window size (default 1400 x 1000). Every page and context made here is closed after the test, but a tab
    of ``_tabs``: that one goes to ``about:blank`` (its Streamlit session ends, as on closing it) and waits there
    for the next test's ``new_page()``.

    Why: a page load in a fresh context costs about 1.4 s more of the machine's CPU than in a tab (the browser
    fetches and compiles Streamlit's scripts again), and one in a new tab about 0.9 s more than in a tab that has
    shown the app before (a new renderer process, whose V8 has compiled nothing yet); so a test asks for a fresh
    context only where its point is another browser (docs/benchmarks.md)."""
    contexts: list[BrowserContext] = []
    tabs: list[Page] = []

    def _new(viewport: tuple[int, int] = VIEWPORT, fresh: bool = False) -> Page:
        if fresh:
            ctx = fresh_context(request.getfixturevalue("browser"), viewport)
            contexts.append(ctx)
            return ctx.new_page()
        page = _idle_tabs.pop() if _idle_tabs else _tabs.new_page()
        tabs.append(page)
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        return page

    yield _new
    for ctx in contexts:
        ctx.close()
    for page in tabs:
        if page.is_closed():
            continue
        try:
            page.goto("about:blank", timeout=10_000)
        except Exception:  # a tab that does not leave its page is not handed out again
            page.close()
        else:
            _idle_tabs.append(page)


METRIC = '[data-testid="stMetric"]'
METRIC_LABEL = '[data-testid="stMetricLabel"]'
METRIC_VALUE = '[data-testid="stMetricValue"]'
# every metric of the main area as [label, value], read in one step (a rerun cannot swap elements midway)
METRICS_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')].map(m => [
    m.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
    m.querySelector('[data-testid="stMetricValue"]').innerText.trim(),
])"""


def metric_value(page: Any, label: str) -> Any:
    """The value of the main area's metric labelled exactly ``label`` (a Playwright locator, sync or async API)."""
    exact = page.locator(METRIC_LABEL).filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    return page.locator(f"{MAIN} {METRIC}").filter(has=exact).locator(METRIC_VALUE)


def wait_for_app_run(page: Page, timeout: float = 60_000) -> None:
    """Wait until the Streamlit script has finished running: connected, script state ``notRunning``, no running
    status widget, no loading skeleton left (the conditions Streamlit's own e2e ``wait_for_app_run`` reads).

    Call it after a sign that the rerun has begun (the URL changed, an expected text appeared); right after a click
    it may see the finished previous run, so the assertion that follows must be a retrying ``expect(...)``."""
    page.locator(APP_READY).wait_for(state="attached", timeout=timeout)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=timeout)
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=timeout)


def goto(page: Page, url: str, timeout: float = 60_000) -> None:
    """Open ``url`` and wait until the app has rendered its title and finished running."""
    page.goto(url, timeout=timeout)
    expect(page.locator("h1").first).to_be_visible(timeout=timeout)
    wait_for_app_run(page, timeout)
    # element renderers (metrics, charts, tables) are code-split chunks fetched after the script has run: wait for
    # the network to settle, but only as a courtesy (a page can keep a request open for long, which made this wait
    # time out in CI); every assertion that follows is a retrying expect(...)
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_load_state("networkidle", timeout=min(timeout, 15_000))


def main(page: Page) -> Locator:
    """The main block of the page (the sidebar excluded)."""
    return page.locator(MAIN)


def expect_title(page: Page, title: str, timeout: float = EXPECT_TIMEOUT_MS) -> None:
    """The page's first heading is exactly ``title`` (retried until it is, or ``timeout`` ms)."""
    expect(page.locator("h1").first).to_have_text(re.compile(rf"^\s*{re.escape(title)}\s*$"), timeout=timeout)


def expect_url(page: Page, pattern: str, timeout: float = EXPECT_TIMEOUT_MS) -> None:
    """The page's URL matches the regular expression ``pattern`` somewhere (retried)."""
    expect(page).to_have_url(re.compile(pattern), timeout=timeout)


_CONTENT_HEIGHT_JS = """() => Math.max(
    document.documentElement.scrollHeight,
    ...['[data-testid="stMain"]', '[data-testid="stAppViewContainer"]', '[data-testid="stMainBlockContainer"]']
        .map(s => document.querySelector(s)).filter(Boolean).map(e => e.scrollHeight))"""
_TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(null))))"


def screenshot(page: Page, name: str, max_height: int = 20_000) -> Path:
    """Save a full-page screenshot of ``page`` as ``tests/browser/artifacts/<name>.png``; return its path.

    Streamlit scrolls inside its main block, so a plain full-page screenshot stops at the window: the viewport is
    first grown to the content height (the largest ``scrollHeight`` of the document, ``stMain`` and
    ``stAppViewContainer``, at most ``max_height``) until the height no longer changes, then restored."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or {"width": VIEWPORT[0], "height": VIEWPORT[1]}
    height = size["height"]
    for _ in range(5):  # charts re-lay out at the new size: measure again until the height holds
        wanted = min(max(int(page.evaluate(_CONTENT_HEIGHT_JS)), size["height"]), max_height)
        if wanted == height:
            break
        height = wanted
        page.set_viewport_size({"width": size["width"], "height": height})
        page.evaluate(_TWO_FRAMES_JS)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)
    return path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A browser test that fails is run once more before it counts as failed: on a loaded 2-core machine a real
    Streamlit server and Chromium occasionally miss a timing (seen: a reopened link showing the defaults once in
    three runs). The unit, AppTest and fuzz tests get no second chance."""
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=2))
