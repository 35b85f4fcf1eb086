"""Deep links: a teammate's FIRST request to a freshly started server may be ``/<page>?...``.

This is exactly what ``pages/`` + ``st.navigation`` breaks (the first visitor gets the auto-discovered pages and
``app.py`` never runs); NK Planner keeps classic ``pages/`` scripts, each setting itself up, so it must work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import expect, expect_title, expect_url, fresh_context, goto, wait_for_app_run

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

PAGES = ("Home", "Data", "Budget (N x K)", "Compare", "Sampling", "Cost & latency", "Planner")


def test_deep_link_is_the_first_request_after_start(
    start_server: Callable[[], contextlib.AbstractContextManager[str]], new_page: Callable[..., Page]
) -> None:
    with start_server() as base:
        page = new_page()
        goto(page, f"{base}/Planner")
        expect_title(page, "Planner")
        expect(page.locator("h1").first).not_to_contain_text("NK Planner")
        # the sidebar lists every page, so the visitor can move on from the deep link
        nav = page.locator(".st-key-nkp_nav")
        for name in PAGES:
            expect(nav.get_by_text(name, exact=True).first, name).to_be_attached()
        # a second deep link to another page, still no home-page detour
        goto(page, f"{base}/Compare")
        expect_title(page, "Compare")


def _move_first_slider(page: Page, presses: int) -> None:
    """Move the page's first slider ``presses`` steps right and wait for the rerun that puts it in the URL."""
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(presses):
        page.keyboard.press("ArrowRight")
    expect_url(page, r"\?.*=", timeout=15_000)
    wait_for_app_run(page)


def test_home_then_a_bound_widget_changes_the_url(server: str, new_page: Callable[..., Page]) -> None:
    page = new_page()
    goto(page, server)
    expect_title(page, "NK Planner")
    goto(page, f"{server}/Planner")
    before = page.url
    slider = page.get_by_role("slider").first  # an <input type="range">: its value and the text it shows
    initial = slider.input_value()
    _move_first_slider(page, 2)
    expect(page).not_to_have_url(before)
    expect(slider).not_to_have_value(initial)
    value, shown = slider.input_value(), slider.get_attribute("aria-valuetext")
    assert shown, "the slider states no aria-valuetext"
    # the link reproduces the view in a fresh browser context
    other = new_page(fresh=True)
    goto(other, page.url)
    expect(other.get_by_role("slider").first).to_have_value(value)
    expect(other.get_by_role("slider").first).to_have_attribute("aria-valuetext", shown)


def test_copy_link_button_copies_the_current_view(server: str, browser: Browser) -> None:
    ctx = fresh_context(browser)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = ctx.new_page()
    try:
        goto(page, f"{server}/Planner")
        _move_first_slider(page, 1)
        frame = page.frame_locator('[data-testid="stSidebar"] iframe').first
        frame.get_by_role("button", name="Copy link to this view").click()
        expect(frame.get_by_text("copied")).to_be_visible(timeout=10_000)
        copied = page.evaluate("() => navigator.clipboard.readText()")  # the clipboard is not on the page
        assert copied == page.url
    finally:
        ctx.close()
