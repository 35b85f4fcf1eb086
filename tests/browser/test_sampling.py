"""Browser test of the Sampling page: moving the rho slider changes the prediction and the URL."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import goto, wait_idle

pytestmark = pytest.mark.browser


def _what_if(page) -> str:
    return page.get_by_text(re.compile(r"If rho were")).first.inner_text()


def test_rho_slider_changes_prediction_and_url(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Sampling")
    assert page.locator("h1").first.inner_text().strip() == "Sampling"
    before = _what_if(page)
    assert "If rho were 0.17" in before
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="What if rho").get_by_role("slider")
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"smp_rho=0\.22"), timeout=15_000)
    wait_idle(page)
    page.get_by_text(re.compile(r"If rho were 0\.22")).first.wait_for(timeout=30_000)  # the rerun has drawn
    after = _what_if(page)
    assert after != before and "If rho were 0.22" in after
    # the link reproduces the what-if in a fresh browser context
    other = new_page()
    goto(other, page.url)
    other.get_by_text(re.compile(r"If rho were")).first.wait_for(timeout=30_000)
    assert "If rho were 0.22" in _what_if(other)
