"""Compare and Planner in a real browser: the verdict and its chart lead and render; a link reproduces a view, also
for a control inside a fragment (its rerun still writes the link); the tests table fits beside the sidebar on a
projector (1024 x 768)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import (
    EXPECT_TIMEOUT_MS,
    expect,
    expect_title,
    expect_url,
    goto,
    main,
    metric_value,
    wait_for_app_run,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

N1_N3 = "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"
HEADLINE = "On these 200 paired cases, n=3 beats n=1 by +7.0 points, but only tentatively"
CHARTS = '[data-testid="stVegaLiteChart"]'
# the drawing (canvas or svg) of chart i, at least 200 x 100 pixels
_CHART_DRAWN_JS = """([selector, i]) => {
    const drawn = document.querySelectorAll(selector)[i]?.querySelector('canvas, svg');
    if (!drawn) return false;
    const r = drawn.getBoundingClientRect();
    return r.width > 200 && r.height > 100;
}"""
# The first data grid of the main area: [content width, visible width] of its scroller (glide-data-grid's
# ".dvn-scroller"); content wider than the view means columns hidden behind a horizontal scroll.
_GRID_WIDTHS_JS = """() => {
    const s = document.querySelector('[data-testid="stMain"] [data-testid="stDataFrame"] .dvn-scroller');
    return s ? [s.scrollWidth, s.clientWidth] : null;
}"""


def _open_accuracy_chart(page: Page) -> None:
    """Open the expander that draws each config's accuracy chart (drawn only while open) and wait for the run."""
    header = main(page).locator('[data-testid="stExpander"] summary').filter(has_text="Chart: accuracy of each config")
    header.scroll_into_view_if_needed()
    header.click()
    wait_for_app_run(page)


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
    expect(area.get_by_text(HEADLINE).first).to_be_visible()
    expect(area.get_by_text(N1_N3).first).to_be_visible()
    expect(
        area.get_by_text("cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77)").first
    ).to_be_visible()
    expect(area.get_by_text("so treat the win as tentative").first).to_be_visible()
    expect(area.get_by_text("1 time in 6").first).to_be_visible()
    # the leaderboard (four configs: "Which config ships?") and the paired differences; each config's accuracy is
    # drawn when its expander opens
    _charts_drawn(page, 2)
    _open_accuracy_chart(page)
    _charts_drawn(page, 3)


def test_compare_link_to_one_pair(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Compare?cmp_mode=one+pair+of+my+choice&cmp_a=n%3D3&cmp_b=n%3D5")
    expect_url(page, r"cmp_mode=")  # the link's values were used, not dropped
    area = main(page)
    expect(area.get_by_text("cannot tell n=5 from n=3", exact=False).first).to_be_visible()
    expect(area.get_by_text(N1_N3)).to_have_count(0)
    _charts_drawn(page, 2)  # the leaderboard, then the pair's differences
    _open_accuracy_chart(page)
    _charts_drawn(page, 3)


def test_compare_on_a_projector_leads_with_the_verdict_and_fits_its_table(
    server: str, new_page: Callable[..., Page]
) -> None:
    """At 1024 x 768 the decision (four configs: "Which config ships?") and the top of its leaderboard are on the
    first screen, and its table shows every column without a horizontal scroll."""
    page = new_page(viewport=(1024, 768))
    goto(page, f"{server}/Compare")
    verdict = main(page).get_by_text(re.compile(r"^Which config ships\? ")).first
    expect(verdict).to_be_visible()
    box = verdict.bounding_box()
    assert box is not None and box["y"] + box["height"] < 768, box
    chart = page.locator(CHARTS).first.bounding_box()
    assert chart is not None and chart["y"] < 768, chart
    grid = main(page).locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    expect(grid).to_be_visible()
    page.wait_for_function(_GRID_WIDTHS_JS)
    content, visible = page.evaluate(_GRID_WIDTHS_JS)
    assert content <= visible, f"the tests table needs {content} px and has {visible} px"


def test_compare_interval_choice_in_its_fragment_keeps_the_link(server: str, new_page: Callable[..., Page]) -> None:
    """The interval radio reruns only the accuracy section (a fragment); it still writes the link, and the link
    reopens the view in a fresh browser."""
    page = new_page()
    goto(page, f"{server}/Compare")
    area = main(page)
    expect(area.get_by_text("n=1: 142 of 200 correct = 71.0% (95% Wilson interval", exact=False).first).to_be_visible()
    radio = area.locator('[data-testid="stRadio"]').filter(has_text="Interval for each config's accuracy")
    radio.locator('[data-testid="stRadioOption"]').filter(has_text="Clopper-Pearson (exact)").click()
    expect_url(page, r"cmp_ci=Clopper-Pearson")
    wait_for_app_run(page)
    expect(
        area.get_by_text("n=1: 142 of 200 correct = 71.0% (95% Clopper-Pearson interval", exact=False).first
    ).to_be_visible()
    expect(area.get_by_text(HEADLINE).first).to_be_visible()  # the rest of the page stays
    url = page.url

    teammate = new_page(fresh=True)
    goto(teammate, url)
    other = main(teammate)
    expect(other.get_by_text("(95% Clopper-Pearson interval", exact=False).first).to_be_visible()
    expect(other).not_to_contain_text("could not be used")
    chosen = other.locator('[data-testid="stRadio"]').filter(has_text="Interval for each config's accuracy")
    expect(chosen.locator('input[type="radio"]:checked')).to_have_count(1)
    expect(chosen.locator('[data-testid="stRadioOption"][data-selected="true"]')).to_contain_text("Clopper-Pearson")


def test_planner_states_its_numbers_and_draws_the_curve(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Planner")
    area = main(page)
    expect(area.get_by_text("you need 4,876 cases at 6% discordance", exact=False).first).to_be_visible()
    expect(metric_value(page, "cases needed")).to_have_text("4,876")  # exact power, as `nkcore paired` prints it
    expect(area.get_by_text("a perfect system scores 97.0%", exact=False).first).to_be_visible()
    # the other counts and the method are in "How this is computed": open it and read them
    how = area.locator('[data-testid="stExpander"]').filter(has_text="How this is computed").first
    how.locator("summary").click()
    expect(how).to_contain_text("resolvable at all (exact critical count): 2,600 cases.")
    expect(how).to_contain_text("square-root law (the chapter): 3,200 cases.")
    expect(how).to_contain_text("a net of 8 cases = 4.0 points")
    _charts_drawn(page, 2)  # the resolution curve, and "More cases or more repeats?" (its splits)


def test_planner_label_error_slider_keeps_the_link_and_moves_the_headline(
    server: str, new_page: Callable[..., Page]
) -> None:
    page = new_page()
    goto(page, f"{server}/Planner")
    expect(metric_value(page, "best measurable accuracy")).to_have_text("97.0%")
    slider = main(page).locator('[data-testid="stSlider"]').filter(has_text="label error rate").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect_url(page, r"pln_err=3\.5")
    wait_for_app_run(page)
    expect(metric_value(page, "best measurable accuracy")).to_have_text("96.5%")
    expect(metric_value(page, "cases needed")).to_have_text("4,876")  # the cases do not depend on the floor
    url = page.url

    teammate = new_page(fresh=True)
    goto(teammate, url)
    expect(metric_value(teammate, "best measurable accuracy")).to_have_text("96.5%")
    thumb = main(teammate).locator('[data-testid="stSlider"]').filter(has_text="label error rate")
    expect(thumb.locator('[data-testid="stSliderThumbValue"]')).to_have_text(re.compile(r"^\s*3\.5%\s*$"))
