"""Deep links: a teammate's FIRST request to a freshly started server may be ``/<page>?...``.

This is exactly what ``pages/`` + ``st.navigation`` breaks (the first visitor gets the auto-discovered pages and
``app.py`` never runs); NK Planner keeps classic ``pages/`` scripts, each setting itself up, so it must work.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import goto, wait_idle

pytestmark = pytest.mark.browser


def test_deep_link_is_the_first_request_after_start(start_server, new_page) -> None:
    with start_server() as base:
        page = new_page()
        goto(page, f"{base}/Planner")
        assert page.locator("h1").first.inner_text().strip() == "Planner"
        assert "NK Planner" not in page.locator("h1").first.inner_text()
        # the sidebar lists every page, so the visitor can move on from the deep link
        nav = page.locator(".st-key-nkp_nav")
        for name in ("Home", "Data", "Budget (N x K)", "Compare", "Sampling", "Cost & latency", "Planner"):
            assert nav.get_by_text(name, exact=True).count() >= 1, name
        # a second deep link to another page, still no home-page detour
        goto(page, f"{base}/Compare")
        assert page.locator("h1").first.inner_text().strip() == "Compare"


def test_home_then_a_bound_widget_changes_the_url(server, new_page) -> None:
    page = new_page()
    goto(page, server)
    assert page.locator("h1").first.inner_text().strip() == "NK Planner"
    goto(page, f"{server}/Planner")
    before = page.url
    slider = page.get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"\?.*="), timeout=15_000)
    wait_idle(page)
    assert page.url != before
    # the link reproduces the view in a fresh browser context
    other = new_page()
    goto(other, page.url)
    assert other.get_by_role("slider").first.get_attribute("aria-valuenow") == slider.get_attribute("aria-valuenow")


def test_copy_link_button_copies_the_current_view(server, browser) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = ctx.new_page()
    try:
        goto(page, f"{server}/Planner")
        slider = page.get_by_role("slider").first
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(r"\?.*="), timeout=15_000)
        wait_idle(page)
        frame = page.frame_locator('[data-testid="stSidebar"] iframe').first
        frame.get_by_role("button", name="Copy link to this view").click()
        frame.get_by_text("copied").wait_for(timeout=10_000)
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == page.url
    finally:
        ctx.close()
