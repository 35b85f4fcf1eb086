"""Browser test of the Budget (N x K) page: a click on a heatmap cell updates the detail view and the link."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import goto, wait_idle

pytestmark = pytest.mark.browser


def _cell_heading(page) -> str:
    return page.locator("h3").filter(has_text="Cell: budget").first.inner_text()


def test_click_on_heatmap_cell_updates_the_detail_view(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Budget?bud_maxb=2500&bud_cell=1000x1", timeout=180_000)
    assert page.locator("h1").first.inner_text().strip() == "Budget (N x K)"
    before = _cell_heading(page)
    assert "budget 1,000" in before  # default: the best K at budget 1,000
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    # Vega draws one rect per cell with an accessible label holding its tooltip: click budget 2,500 with K = 20
    cell = chart.locator(
        'g.mark-rect path[aria-label*="budget (N x K): 2,500;"][aria-label*="ratings per item (K): 20;"]'
    ).first
    cell.scroll_into_view_if_needed()
    cell.click()
    page.wait_for_url(re.compile(r"bud_cell=2500x20"), timeout=30_000)
    wait_idle(page, 180_000)
    page.get_by_text(re.compile(r"Cell: budget 2,500 = items \(N\) 125 x ratings per item \(K\) 20")).first.wait_for(
        timeout=60_000
    )
    assert _cell_heading(page) != before
    # the link named another cell: the page follows the click without claiming the link was unusable
    assert page.get_by_text("could not be used").count() == 0
    # the link with the clicked cell reproduces the detail view in a fresh browser context
    other = new_page()
    goto(other, page.url, timeout=180_000)
    assert "budget 2,500 = items (N) 125 x ratings per item (K) 20" in _cell_heading(other)
