"""Compare and Planner in a real browser: the verdict sentences and the charts render; a link reproduces a view."""

from __future__ import annotations

import pytest

from tests.browser.conftest import goto

pytestmark = pytest.mark.browser

N1_N3 = "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"


def _charts_drawn(page, expected: int) -> None:
    from playwright.sync_api import expect

    charts = page.locator('[data-testid="stVegaLiteChart"]')
    expect(charts).to_have_count(expected, timeout=30_000)
    for i in range(expected):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        drawn = chart.locator("canvas, svg").first
        drawn.wait_for(timeout=30_000)
        box = drawn.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100, box


def test_compare_shows_the_verdicts_and_draws_its_charts(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Compare")
    assert page.locator("h1").first.inner_text().strip() == "Compare"
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_text(N1_N3).first.is_visible()
    assert main.get_by_text(
        "cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77)"
    ).first.is_visible()
    assert main.get_by_text("so treat the win as tentative").first.is_visible()
    assert main.get_by_text("1 time in 6").first.is_visible()
    _charts_drawn(page, 2)


def test_compare_link_to_one_pair(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Compare?cmp_mode=one+pair+of+my+choice&cmp_a=n%3D3&cmp_b=n%3D5")
    assert "cmp_mode=" in page.url  # the link's values were used, not dropped
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_text("cannot tell n=5 from n=3", exact=False).first.is_visible()
    assert main.get_by_text(N1_N3).count() == 0
    _charts_drawn(page, 2)


def test_planner_states_its_numbers_and_draws_the_curve(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Planner")
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_text("a net of 8 cases = 4.0 points", exact=False).first.is_visible()
    assert main.get_by_text("a perfect system scores 97.0%", exact=False).first.is_visible()
    metrics = main.locator('[data-testid="stMetric"]')
    texts = [metrics.nth(i).inner_text() for i in range(metrics.count())]
    assert any("cases to resolve it (exact)" in t and "2,600" in t for t in texts), texts
    assert any("square-root law (the chapter)" in t and "3,200" in t for t in texts), texts
    _charts_drawn(page, 1)
