"""Browser test of the Budget (N x K) page: a click on a heatmap cell updates the detail view and the link."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import expect, expect_title, expect_url, goto, wait_for_app_run

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

DEFAULT_CELL = re.compile(r"Cell: budget 1,000\b")  # default: the best K at budget 1,000
# budget 2,500 = items (N) 125 x ratings per item (K) 20, in either wording of the heading
CLICKED_CELL = re.compile(
    r"Cell: budget 2,500\b.*(?:items \(N\) 125|\b125 items \(N\)).*(?:ratings per item \(K\) 20|\b20 ratings per item \(K\))"
)


def _cell_heading(page: Page) -> Locator:
    return page.locator("h3").filter(has_text="Cell: budget").first


def test_click_on_heatmap_cell_updates_the_detail_view(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Budget?bud_maxb=2500&bud_cell=1000x1", timeout=180_000)
    expect_title(page, "Budget (N x K)")
    expect(_cell_heading(page)).to_contain_text(DEFAULT_CELL)
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    # Vega draws one rect per cell with an accessible label holding its tooltip: click budget 2,500 with K = 20
    cell = chart.locator(
        'g.mark-rect path[aria-label*="budget (N x K): 2,500;"][aria-label*="ratings per item (K): 20;"]'
    ).first
    cell.scroll_into_view_if_needed()
    cell.click()
    expect_url(page, r"bud_cell=2500x20")
    wait_for_app_run(page, 180_000)
    # the detail view follows the click: the heading names the clicked cell, no longer the default one
    expect(_cell_heading(page)).to_contain_text(CLICKED_CELL, timeout=60_000)
    expect(_cell_heading(page)).not_to_contain_text(DEFAULT_CELL)
    # the link named another cell: the page follows the click without claiming the link was unusable
    expect(page.get_by_text("could not be used")).to_have_count(0)
    # the link with the clicked cell reproduces the detail view in a fresh browser context
    other = new_page()
    goto(other, page.url, timeout=180_000)
    expect(_cell_heading(other)).to_contain_text(CLICKED_CELL)
