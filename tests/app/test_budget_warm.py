"""The Budget page's default view, computed ahead (``ui.serve`` at start-up): the page then computes nothing."""

from __future__ import annotations

from tests.app.conftest import RunPage


def test_warmed_default_view_is_read_from_the_cache(run_page: RunPage) -> None:
    from ui.budget import warm
    from ui.common import cache

    warm.warm_default()  # outside any page run, as the launcher's thread does
    before = sum(cache.COMPUTED.values())
    at = run_page("pages/2_Budget.py", timeout=240)
    assert not at.exception, [e.value for e in at.exception]
    assert any("Cell: budget 1,000" in h.value for h in at.subheader)
    # the grid and the headline came from the cache: no computation ran for the page's own view (the background
    # prefetch of other metrics starts only after the run, once the pages are idle)
    assert sum(cache.COMPUTED.values()) == before


def test_warm_is_idempotent(run_page: RunPage) -> None:
    from ui.budget import warm
    from ui.common import cache

    warm.warm_default()
    before = sum(cache.COMPUTED.values())
    warm.warm_default()
    assert sum(cache.COMPUTED.values()) == before
