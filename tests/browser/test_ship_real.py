"""Which config ships, in a real browser on real data (issue 54): Compare on LLMBar (65 judge configs, 419 items, two
orders as repeats) and on HANNA (11 story sources, 96 prompts, 3 human ratings as repeats) opens on the decision,
read within the first window at 1024 x 768 (the verdict, the chart's title and its first rows); the cost frontier
on Cost & latency for a run with a cost per call (promptfoo's own output, 3 providers). Full-height screenshots at
1400 x 900 and 1024 x 768 land in ``tests/browser/artifacts/ship_<data>_<page>_<width>.png``.

Data: ``../shared/datasets`` (converted as ``tests/app/test_ship.py`` does) and ``tests/data/promptfoo/results.json``,
stored in the fresh server's data folder before it starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from nkcore import store
from nkcore.harness import read_harness
from nkcore.kinds import apply_mapping
from tests.app.test_ship import hanna_frame, llmbar_frame, needs_shared
from tests.browser.conftest import EXCEPTION, expect, expect_title, goto, main, screenshot
from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROMPTFOO = ROOT / "tests" / "data" / "promptfoo" / "results.json"
VIEWPORTS = [(1400, 900), (1024, 768)]
SLOW = 180_000


def _promptfoo() -> object:
    res = read_harness([(PROMPTFOO.name, PROMPTFOO.read_bytes())])
    return apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns})


def _in_first_window(page: Page, text: re.Pattern[str]) -> None:
    """``text`` is shown and lies inside the window before any scrolling."""
    found = main(page).get_by_text(text).first
    expect(found).to_be_visible(timeout=SLOW)
    box = found.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["y"] >= 0 and box["y"] + min(box["height"], 40) <= size["height"], (box, size)


@pytest.mark.shared
@needs_shared
def test_compare_and_cost_open_on_the_decision_on_real_data(
    start_server: Callable[[], AbstractContextManager[str]], tmp_path: Path, new_page: Callable[..., Page]
) -> None:
    ids = {
        "llmbar": store.put(llmbar_frame(), "paired", "LLMBar judge configs (two orders as repeats)", root=tmp_path).id,
        "hanna": store.put(hanna_frame(), "paired", "HANNA Coherence (3 raters as repeats)", root=tmp_path).id,
        "promptfoo": store.put(_promptfoo(), "paired", "promptfoo run (3 providers, cost per call)", root=tmp_path).id,  # type: ignore[arg-type]
    }
    with start_server() as base:
        for width, height in VIEWPORTS:
            page = new_page(viewport=(width, height))
            for name in ("llmbar", "hanna", "promptfoo"):
                goto(page, f"{base}/Compare?eval={ids[name]}", timeout=SLOW)
                expect_title(page, "Compare", timeout=SLOW)
                expect(page.locator(EXCEPTION)).to_have_count(0)
                _in_first_window(page, re.compile(r"^Which config ships\? "))
                _in_first_window(page, re.compile(r"could each be the best|is the best \(|Ship "))
                screenshot(page, f"ship_{name}_Compare_{width}")
            goto(page, f"{base}/Cost_and_latency?eval={ids['promptfoo']}", timeout=SLOW)
            expect_title(page, "Cost & latency", timeout=SLOW)
            frontier = main(page).get_by_text(re.compile(r"cost frontier|resolvably higher than the cheapest"))
            expect(frontier.first).to_be_visible(timeout=SLOW)
            expect(page.locator(EXCEPTION)).to_have_count(0)
            frontier.first.scroll_into_view_if_needed()
            screenshot(page, f"ship_promptfoo_Cost_frontier_{width}")
