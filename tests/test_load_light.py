"""Concurrent viewers of one shared Budget link, measured with a light client: Streamlit's own websocket protocol
(``BackMsg`` / ``ForwardMsg`` protobufs), no browser per viewer (``benchmarks/load_viewers.py``).

10 viewers open the link at once against a fresh server on loopback, each bounded by a deadline: every one gets the
run's final script message with no exception and no error, the cell's numbers (items (N) = budget 1,000 / K = 1,
the oracle) and the same numbers as every other viewer, and the grid is computed once for all of them. The timings,
server CPU and peak memory are printed (``-s``), not asserted: speed lives in ``benchmarks/`` (the 50-viewer figures
are in ``benchmarks/results/load_viewers.txt``). The 20-Chromium test (``tests/browser/test_load.py``) stays the
browser-level proof.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import load_viewers
from ui.common.cache import LOG_ENV

pytestmark = pytest.mark.slow

VIEWERS = 10


def test_the_client_speaks_the_log_variable_of_the_cache() -> None:
    assert load_viewers.LOG_ENV == LOG_ENV


def test_ten_websocket_viewers_of_one_link_all_answer_and_the_grid_is_computed_once() -> None:
    # on a thread of its own: measure() calls asyncio.run, which fails where a loop already runs (the sync Playwright
    # of a browser test that ran earlier in the same pytest-xdist worker keeps one in the main thread)
    with ThreadPoolExecutor(max_workers=1) as pool:
        res = pool.submit(load_viewers.measure, VIEWERS, load_viewers.LINK, timeout=240).result()
    print("\n" + res.line(load_viewers.LINK))
    assert res.answered == VIEWERS, res.failures
    first = res.results[0].metrics
    assert first.get("items (N)") == "1,000" and first.get("p-value"), first
    assert res.same_numbers
    # every grid computed once for all the viewers: the link's, and the default view's that the server computes at
    # start-up (ui.serve's warm-up; a link equal to the default view has one key)
    assert 1 <= res.grid_keys <= 2 and res.grid_computations == res.grid_keys, (res.grid_keys, res.grid_computations)
    assert res.peak_mib > 0 and res.server_cpu_s > 0
