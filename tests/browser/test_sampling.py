"""Browser tests of the Sampling page: the controls inside fragments (the what-if correlation, the n to count
unfixable errors from) change their section and the URL, and the link reproduces the view in a fresh context."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import expect, expect_title, expect_url, goto, main, screenshot, wait_for_app_run

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser


def _what_if(page: Page) -> Locator:
    return page.get_by_text(re.compile(r"If rho were")).first


def _errors(page: Page) -> Locator:
    # the section's own sentence (the summary repeats the one from n = 3 in a list item that starts otherwise)
    return main(page).get_by_text(re.compile(r"^Of the [\d,]+ cases? the vote gets wrong at samples per request")).first


def test_rho_slider_changes_prediction_and_url(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Sampling")
    expect_title(page, "Sampling")
    expect(_what_if(page)).to_contain_text("If rho were 0.17")
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="What if the correlation").get_by_role("slider")
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect_url(page, r"smp_rho=0\.22", timeout=15_000)
    wait_for_app_run(page)
    # the fragment's rerun has drawn the new prediction, and the old one is gone
    expect(_what_if(page)).to_contain_text("If rho were 0.22")
    expect(page.get_by_text("If rho were 0.17")).to_have_count(0)
    # the link reproduces the what-if in a fresh browser context
    other = new_page(fresh=True)
    goto(other, page.url)
    expect(_what_if(other)).to_contain_text("If rho were 0.22")


def test_errors_section_control_round_trips_through_the_link(server: str, new_page: Callable[..., Page]) -> None:
    """The unfixable-errors section is a fragment: its number input updates its sentence and the URL, the verdict
    above it keeps the page's own reading (from n = 3), and the link opens the same section elsewhere."""
    page = new_page()
    goto(page, f"{server}/Sampling")
    verdict = main(page).get_by_text(re.compile(r"^Voting over 7 samples per request lifts accuracy")).first
    expect(verdict).to_contain_text("38 of the 44 cases wrong at n = 3")
    expect(_errors(page)).to_contain_text("Of the 44 cases the vote gets wrong at samples per request n = 3")
    box = page.locator('[data-testid="stNumberInput"]').filter(has_text="Start from the cases")
    box.get_by_test_id("stNumberInputStepUp").click()
    expect_url(page, r"smp_from=4", timeout=15_000)
    wait_for_app_run(page)
    expect(_errors(page)).to_contain_text("at samples per request n = 4")
    expect(verdict).to_contain_text("38 of the 44 cases wrong at n = 3")
    other = new_page(viewport=(1024, 768), fresh=True)
    goto(other, page.url)
    expect(_errors(other)).to_contain_text("at samples per request n = 4")
    expect(other.locator('[data-testid="stNumberInput"]').filter(has_text="Start from").locator("input")).to_have_value(
        "4"
    )


@pytest.mark.parametrize("size", [(1400, 900), (1024, 768)])
def test_the_verdict_and_its_chart_open_the_page(
    server: str, new_page: Callable[..., Page], size: tuple[int, int]
) -> None:
    """In the first screen, under the title: the verdict, then the vote curve (screenshots for a human to read)."""
    page = new_page(viewport=size)
    goto(page, f"{server}/Sampling")
    verdict = main(page).get_by_text(re.compile(r"^Voting over 7 samples per request")).first
    chart = main(page).locator('[data-testid="stVegaLiteChart"]').first
    expect(verdict).to_be_in_viewport()
    expect(chart).to_be_visible()
    v, c = verdict.bounding_box(), chart.bounding_box()
    assert v is not None and c is not None and v["y"] < c["y"] < size[1]  # the chart starts in the first screen
    screenshot(page, f"sampling_{size[0]}x{size[1]}")
