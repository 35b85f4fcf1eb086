"""Compare and Planner in a real browser: the verdict sentences and the charts render; a link reproduces a view."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import EXPECT_TIMEOUT_MS, expect, expect_title, expect_url, goto, main

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

N1_N3 = "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"
CHARTS = '[data-testid="stVegaLiteChart"]'
# the drawing (canvas or svg) of chart i, at least 200 x 100 pixels
_CHART_DRAWN_JS = """([selector, i]) => {
    const drawn = document.querySelectorAll(selector)[i]?.querySelector('canvas, svg');
    if (!drawn) return false;
    const r = drawn.getBoundingClientRect();
    return r.width > 200 && r.height > 100;
}"""


def _charts_drawn(page: Page, expected: int) -> None:
    charts = page.locator(CHARTS)
    expect(charts).to_have_count(expected)
    for i in range(expected):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        drawn = chart.locator("canvas, svg").first
        expect(drawn).to_be_visible()
        try:
            page.wait_for_function(_CHART_DRAWN_JS, arg=[CHARTS, i], timeout=EXPECT_TIMEOUT_MS)
        except Exception as exc:  # playwright's TimeoutError: say what the page shows instead
            raise AssertionError(f"chart {i} is not drawn at 200 x 100 or more: {drawn.bounding_box()}") from exc


def test_compare_shows_the_verdicts_and_draws_its_charts(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Compare")
    expect_title(page, "Compare")
    area = main(page)
    expect(area.get_by_text(N1_N3).first).to_be_visible()
    expect(
        area.get_by_text("cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77)").first
    ).to_be_visible()
    expect(area.get_by_text("so treat the win as tentative").first).to_be_visible()
    expect(area.get_by_text("1 time in 6").first).to_be_visible()
    _charts_drawn(page, 2)


def test_compare_link_to_one_pair(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Compare?cmp_mode=one+pair+of+my+choice&cmp_a=n%3D3&cmp_b=n%3D5")
    expect_url(page, r"cmp_mode=")  # the link's values were used, not dropped
    area = main(page)
    expect(area.get_by_text("cannot tell n=5 from n=3", exact=False).first).to_be_visible()
    expect(area.get_by_text(N1_N3)).to_have_count(0)
    _charts_drawn(page, 2)


def test_planner_states_its_numbers_and_draws_the_curve(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Planner")
    area = main(page)
    expect(area.get_by_text("a net of 8 cases = 4.0 points", exact=False).first).to_be_visible()
    expect(area.get_by_text("a perfect system scores 97.0%", exact=False).first).to_be_visible()
    metrics = area.locator('[data-testid="stMetric"]')
    needed = metrics.filter(has_text="cases you need to detect it 80% of the time").filter(has_text="4,876")
    expect(needed.first).to_be_visible()  # exact power of McNemar's exact test, as `nkcore paired` prints it
    # the other counts are in "How this is computed": open it and read them
    how = area.locator('[data-testid="stExpander"]').filter(has_text="How this is computed").first
    how.locator("summary").click()
    expect(how).to_contain_text("resolvable at all (exact critical count): 2,600 cases.")
    expect(how).to_contain_text("square-root law (the chapter): 3,200 cases.")
    _charts_drawn(page, 1)
