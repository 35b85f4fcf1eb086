"""Browser test of the Sampling page: moving the rho slider changes the prediction and the URL."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import expect, expect_title, expect_url, goto, wait_for_app_run

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser


def _what_if(page: Page) -> Locator:
    return page.get_by_text(re.compile(r"If rho were")).first


def test_rho_slider_changes_prediction_and_url(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, f"{server}/Sampling")
    expect_title(page, "Sampling")
    expect(_what_if(page)).to_contain_text("If rho were 0.17")
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="What if rho").get_by_role("slider")
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect_url(page, r"smp_rho=0\.22", timeout=15_000)
    wait_for_app_run(page)
    # the rerun has drawn the new prediction, and the old one is gone
    expect(_what_if(page)).to_contain_text("If rho were 0.22")
    expect(page.get_by_text("If rho were 0.17")).to_have_count(0)
    # the link reproduces the what-if in a fresh browser context
    other = new_page()
    goto(other, page.url)
    expect(_what_if(other)).to_contain_text("If rho were 0.22")
