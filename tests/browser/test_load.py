"""Load and fault tests in a real browser, loopback only, bounded: 20 browser contexts open the same shared Budget
link at once (all answer with the same numbers; the grid is computed once), and ``kill -9`` of the server in the
middle of storing an uploaded file (earlier datasets intact after a restart, nothing half-written listed).

Run with ``-s`` to see the timings of the 20 openings.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import re
import signal
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from nkcore import store
from nkcore.io import fingerprint
from tests.browser.conftest import (
    APP_READY,
    CHROMIUM,
    CHROMIUM_ARGS,
    EXCEPTION,
    MAIN,
    METRIC,
    METRIC_LABEL,
    METRIC_VALUE,
    METRICS_JS,
    STILL_JS,
    VIEWPORT,
    expect,
    goto,
    metric_value,
    wait_for_app_run,
)
from ui.common.cache import LOG_ENV

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # a fresh server each, 20 contexts: a minute or two

VIEWERS = 20
# Preset prior, budgets 100 to 1,000, the paper's K list, 200 rounds: about 3 s of grid on one idle core.
LINK = "/Budget?bud_maxb=1000&bud_seed=7&bud_cell=1000x1"
TIMEOUT_MS = 240_000
READY = APP_READY
ERROR_ALERT = '[data-testid="stAlertContentError"]'

GRID_FUNCS = ("nkcore.nk.grid:simulate_grid", "nkcore.nk.exact.engine:exact_grid")


async def _open(page: Any, url: str, reference: list[list[list[str]]]) -> tuple[float, dict[str, str]]:
    """One viewer: its page (in a fresh context) opens ``url`` and expects the cell's numbers with no error on the
    page, and every number the same as the first viewer to get there; returns (seconds until the numbers show on a
    page whose script has finished, every number of the page)."""
    from playwright.async_api import expect

    t0 = time.monotonic()
    await page.goto(url, timeout=TIMEOUT_MS)
    await expect(page.locator("h1").first).to_be_visible(timeout=TIMEOUT_MS)
    # the cell's five numbers (the last one: items (N), oracle: budget 1,000 / K = 1) once the script has finished
    await expect(metric_value(page, "items (N)")).to_have_text("1,000", timeout=TIMEOUT_MS)
    await page.locator(READY).wait_for(state="attached", timeout=TIMEOUT_MS)
    await page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=TIMEOUT_MS)
    seconds = time.monotonic() - t0
    await expect(metric_value(page, "p-value")).to_have_text(re.compile(r"\S"), timeout=TIMEOUT_MS)
    await expect(page.locator(f"{EXCEPTION}, {ERROR_ALERT}")).to_have_count(0, timeout=TIMEOUT_MS)
    if not reference:  # the first viewer here: its numbers, read in one step, are what every other one must show
        reference.append(await page.evaluate(METRICS_JS))
    metrics = page.locator(f"{MAIN} {METRIC}")
    await expect(metrics.locator(METRIC_LABEL)).to_have_text([k for k, _ in reference[0]], timeout=TIMEOUT_MS)
    await expect(metrics.locator(METRIC_VALUE)).to_have_text([v for _, v in reference[0]], timeout=TIMEOUT_MS)
    return seconds, dict(await page.evaluate(METRICS_JS))


async def _many(url: str, n: int) -> list[tuple[float, dict[str, str]]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            contexts = await asyncio.gather(
                *(browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]}) for _ in range(n))
            )
            await asyncio.gather(*(ctx.add_init_script(STILL_JS) for ctx in contexts))
            pages = await asyncio.gather(*(ctx.new_page() for ctx in contexts))
            # every context and page exists: now all of them open the link at once
            reference: list[list[list[str]]] = []
            return list(await asyncio.gather(*(_open(page, url, reference) for page in pages)))
        finally:
            await browser.close()


def _in_own_thread(url: str, n: int) -> list[tuple[float, dict[str, str]]]:
    """Run the asyncio viewers in a thread of their own (no event loop of the sync Playwright in the way)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(asyncio.run(_many(url, n)))
        except BaseException as exc:  # re-raised in the test's thread
            out.append(exc)

    t = threading.Thread(target=run, name="load-viewers")
    t.start()
    t.join(TIMEOUT_MS / 1000 + 60)
    assert out, "the viewers did not finish in time"
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def test_twenty_viewers_of_one_link_all_answer_and_the_grid_is_computed_once(
    start_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "computations.jsonl"
    monkeypatch.setenv(LOG_ENV, str(log))
    with start_server() as base:
        results = _in_own_thread(base + LINK, VIEWERS)
    times = sorted(r[0] for r in results)
    numbers = [r[1] for r in results]
    lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    per_key = collections.Counter(line["key"] for line in lines)
    grid_keys = {line["key"] for line in lines if line["func"] in GRID_FUNCS}
    grid_seconds = sum(line["seconds"] for line in lines if line["func"] in GRID_FUNCS)
    print(
        f"\n{VIEWERS} concurrent openings of {LINK}: {len(results)} answered; "
        f"median {statistics.median(times):.1f} s, max {times[-1]:.1f} s; "
        f"grid computations run: {sum(per_key[k] for k in grid_keys)} over {len(grid_keys)} keys "
        f"({grid_seconds:.1f} s of computing); all computations: {sum(per_key.values())} over {len(per_key)} keys"
    )
    # each viewer expected items (N) 1,000, a p-value, no error and the first viewer's numbers on its page; the
    # numbers read afterwards (the pages are closed now) say the same
    assert len(results) == VIEWERS
    assert numbers[0].get("p-value") and numbers[0].get("items (N)") == "1,000"  # oracle: budget 1,000 / K = 1
    assert all(n == numbers[0] for n in numbers)
    assert grid_keys, "the server logged no grid computation"
    assert all(per_key[k] == 1 for k in per_key), {k: c for k, c in per_key.items() if c > 1}


# ---------------------------------------------------------------- kill -9 in the middle of an upload

ROWS = 300_000
BIG_CSV = (
    "item_id,annotator_id,label\n"
    + "".join(f"i{i // 6},w{i % 6},{('pos', 'neg', 'neutral')[(i * 7) % 3]}\n" for i in range(ROWS))
).encode()


def _server_pid(port: str) -> int:
    """The pid of the streamlit server this test started on ``port`` (found by its command line, ``streamlit run``
    or ``python -m ui.serve``; the lowest such pid: a child the server forked for a grid has the same command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        joined = b" ".join(argv)
        if (b"streamlit" in joined or b"ui.serve" in joined) and b"--server.port" in argv:
            if argv[argv.index(b"--server.port") + 1] == port.encode():
                found.append(int(entry.name))
    if not found:
        raise AssertionError(f"no streamlit server on port {port}")
    return min(found)


def _wait_until_dead(pid: int, timeout: float = 30.0) -> None:
    """Wait until process ``pid`` has exited (gone, or a zombie its parent has not reaped yet)."""
    deadline = time.monotonic() + timeout
    stat = Path(f"/proc/{pid}/stat")
    while time.monotonic() < deadline:
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except OSError:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} still runs {timeout} s after SIGKILL")


def test_kill_9_in_the_middle_of_storing_an_upload_then_restart(
    start_server: Any, new_page: Any, tmp_path: Path
) -> None:
    """Earlier datasets are put in place first; the browser uploads a 300,000-row file and presses Store; the
    server is killed (SIGKILL) as soon as a temporary file of the write appears. After a restart on the same data
    folder the earlier datasets are listed, intact, and their links work; the interrupted one is not listed."""
    earlier = {
        m.id: m
        for m in (
            store.put(
                pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]}),
                "ratings",
                "earlier_ratings.csv",
                root=tmp_path,
            ),
            store.put(
                pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["p", "q", "p", "q"], "correct": [1, 0, 1, 1]}),
                "paired",
                "earlier_paired.csv",
                root=tmp_path,
            ),
        )
    }
    killed_mid_write = False
    with start_server() as base:
        page = new_page()
        goto(page, f"{base}/Data", timeout=TIMEOUT_MS)
        page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
            files=[{"name": "big_ratings.csv", "mimeType": "text/csv", "buffer": BIG_CSV}]
        )
        button = page.get_by_role("button", name="Store and use this dataset")
        button.wait_for(timeout=TIMEOUT_MS)
        pid = _server_pid(base.rsplit(":", 1)[1])
        button.click(timeout=30_000)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
                killed_mid_write = True
                break
            if len(list(tmp_path.glob("*.json"))) > len(earlier):
                break  # stored completely before a temporary file was seen: kill anyway
            time.sleep(0.002)
        os.kill(pid, signal.SIGKILL)
        _wait_until_dead(pid)
    print(f"\nkill -9 of the server {'in the middle of the write' if killed_mid_write else 'after the write'}")
    assert killed_mid_write, "the kill did not land in the middle of the write"
    listed = {m.id: m for m in store.list_datasets(root=tmp_path)}
    assert listed == earlier  # the interrupted dataset is not listed, half-written or otherwise
    with start_server() as base:  # the restart
        page = new_page()
        goto(page, f"{base}/Data", timeout=TIMEOUT_MS)
        expect(page.locator(EXCEPTION)).to_have_count(0)
        ratings_id = next(i for i, m in earlier.items() if m.kind == "ratings")
        other = new_page()
        goto(other, f"{base}/Data?ratings={ratings_id}", timeout=TIMEOUT_MS)
        wait_for_app_run(other)
        expect(other.locator(EXCEPTION)).to_have_count(0)
        expect(other.get_by_text("earlier_ratings.csv").first).to_be_attached()
    for ds_id in earlier:
        assert fingerprint(store.get(ds_id, root=tmp_path)[1]) == ds_id
    assert {m.id for m in store.list_datasets(root=tmp_path)} == set(earlier)
