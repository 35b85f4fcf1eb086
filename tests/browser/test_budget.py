"""Browser test of the Budget (N x K) page: a click on a heatmap cell updates the detail view and the link."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import expect, expect_title, expect_url, goto, wait_for_app_run
from ui.budget.views import PLANE_TAB

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
    other = new_page(fresh=True)
    goto(other, page.url, timeout=180_000)
    expect(_cell_heading(other)).to_contain_text(CLICKED_CELL)


SMALL_LINK = "/Budget?bud_maxb=500&bud_ks=1,2,5,10,20&bud_metric=tv"


@pytest.mark.parametrize("size", [(1400, 900), (1024, 768)], ids=["desktop", "projector"])
def test_the_answer_is_on_the_first_screen_and_the_plane_draws_the_budgets(
    server: str, new_page: Callable[..., Page], size: tuple[int, int]
) -> None:
    """In a room the answer must be readable without scrolling: the verdict sits inside the first screen at 1400 x
    900 and at 1024 x 768 (a projector). The N x K tab draws the cells and one line per budget. Screenshots of both
    tabs are written to tests/browser/artifacts/ for a human to look at."""
    from tests.browser.conftest import screenshot

    page = new_page(viewport=size)
    goto(page, f"{server}{SMALL_LINK}", timeout=180_000)
    expect_title(page, "Budget (N x K)")
    verdict = page.locator("h4").filter(has_text=re.compile(r"TV \(total variation\)")).first
    expect(verdict).to_be_visible()
    box = verdict.bounding_box()
    assert box is not None and box["y"] + box["height"] <= size[1], box
    screenshot(page, f"budget_grid_{size[0]}x{size[1]}")
    page.get_by_role("tab", name=PLANE_TAB).click()
    plane = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text="items (N), log scale").first
    expect(plane).to_be_visible()
    # one dashed line per budget of the grid (100, 250, 500), and one mark per cell: 3 budgets x 5 K = 15
    expect(plane.locator("g.mark-line path[stroke-dasharray]")).to_have_count(3)
    expect(plane.locator('g.mark-symbol path[aria-label*="budget (N x K):"]')).to_have_count(15)
    screenshot(page, f"budget_plane_{size[0]}x{size[1]}")


def test_folded_tables_compute_when_opened_and_verify_redraws_its_part(
    server: str, new_page: Callable[..., Page]
) -> None:
    """'Minimal budget for every metric' computes every metric only when opened, and its being open goes into the
    link; 'Verify this cell with simulation' (a fragment) shows the engine beside the simulation."""
    page = new_page()
    goto(page, f"{server}{SMALL_LINK}", timeout=180_000)
    expect_title(page, "Budget (N x K)")
    wait_for_app_run(page, 180_000)
    page.get_by_text("Minimal budget for every metric").first.click()
    expect_url(page, r"bud_all=true")
    wait_for_app_run(page, 180_000)
    # the one-line headline names the paper's metrics, which the shown metric (TV) alone cannot give
    line = page.get_by_text("In one line:").first
    expect(line).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stExpander"]').filter(has_text="In one line:")).to_contain_text("Accuracy")
    expect(page.get_by_text("The smallest budget on the grid (up to 500)").first).to_be_visible()
    wait_for_app_run(page, 180_000)
    page.get_by_text("Verify this cell with simulation").first.click()
    expect(page.get_by_text(re.compile(r"The simulation (agrees with|and) the engine")).first).to_be_visible(
        timeout=180_000
    )
    expect_url(page, r"bud_verify=true")
