"""Every page renders at a laptop's window size (1400 x 900): its title shows, no exception element, and a full-page
screenshot (the whole scrolled main block, not only the window) lands in ``tests/browser/artifacts/``."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import ARTIFACTS, EXCEPTION, expect, expect_title, goto, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# URL path -> the page's title (its h1)
PAGES = {
    "": "NK Planner",
    "Data": "Data",
    "Budget": "Budget (N x K)",
    "Compare": "Compare",
    "Sampling": "Sampling",
    "Cost_and_latency": "Cost & latency",
    "Planner": "Planner",
}
# 1024 x 768 and 390 x 844 are screenshotted (and checked for cut labels) by test_viewports.py
VIEWPORTS = [(1400, 900)]
_MAIN_HEIGHT_JS = "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"


def _png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG file's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=[f"{w}x{h}" for w, h in VIEWPORTS])
@pytest.mark.parametrize("path", list(PAGES), ids=[p or "Home" for p in PAGES])
def test_every_page_renders_and_is_screenshotted(
    server: str, new_page: Callable[..., Page], path: str, viewport: tuple[int, int]
) -> None:
    page = new_page(viewport=viewport)
    goto(page, f"{server}/{path}", timeout=180_000)
    expect_title(page, PAGES[path])
    expect(page.locator(EXCEPTION)).to_have_count(0)
    content = int(page.evaluate(_MAIN_HEIGHT_JS))
    shot = screenshot(page, f"{path or 'Home'}_{viewport[0]}x{viewport[1]}")
    assert shot.parent == ARTIFACTS and shot.exists()
    width, height = _png_size(shot)
    assert width == viewport[0], (width, viewport)
    # the whole main block, grown past the window when the content is taller than it
    assert height >= min(max(content, viewport[1]), 20_000), (height, content, viewport)
    assert page.viewport_size == {"width": viewport[0], "height": viewport[1]}  # the window is restored
