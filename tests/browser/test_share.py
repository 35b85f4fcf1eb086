"""Shared links (issue 6), in a real browser: upload a file on the Data page, change a slider, take the URL, open it
in a fresh browser context and see the same numbers; a hostile dataset id in a link gets a clear message."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import goto, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # each test starts a browser page: 4-15 s

# 12 items: 4 with 5 ratings per item (K), 4 with 3, 4 with 2 -> "at least 3" keeps 8 items.
ROWS = [(f"t{i}", f"w{r}", ["pos", "neg", "neutral"][(i + r) % 3]) for i in range(12) for r in range((5, 3, 2)[i % 3])]
CSV = ("item_id,annotator_id,label\n" + "".join(f"{i},{r},{lab}\n" for i, r, lab in ROWS)).encode()


_METRICS_JS = """() => Object.fromEntries(
    [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMetric"]')].map(m => [
        m.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
        m.querySelector('[data-testid="stMetricValue"]').innerText.trim(),
    ]))"""


def _numbers(page) -> dict[str, str]:
    """Every metric of the main area, label -> value, read in one step (a rerun cannot swap elements midway)."""
    return page.evaluate(_METRICS_JS)


def _wait_for_numbers(page, expected: dict[str, str], timeout: float = 30_000) -> dict[str, str]:
    """Wait until the page shows ``expected`` (a subset of its metrics), then return all of them."""
    try:
        page.wait_for_function(
            f"(want) => {{ const got = ({_METRICS_JS})(); "
            "return Object.entries(want).every(([k, v]) => got[k] === v); }",
            arg=expected,
            timeout=timeout,
        )
    except Exception as exc:  # playwright's TimeoutError: say what the page shows instead
        raise AssertionError(f"expected {expected}, the page shows {_numbers(page)}") from exc
    return _numbers(page)


def test_upload_tune_share_and_reopen_in_a_fresh_browser(start_server, new_page) -> None:
    with start_server() as base:
        page = new_page()
        goto(page, f"{base}/Data")
        page.locator('[data-testid="stMain"] input[type="file"]').set_input_files(
            files=[{"name": "team_ratings.csv", "mimeType": "text/csv", "buffer": CSV}]
        )
        page.get_by_role("button", name="Store and use this dataset").click(timeout=30_000)
        page.wait_for_url(re.compile(r"ratings=[0-9a-f]{64}"), timeout=30_000)
        wait_idle(page)
        _wait_for_numbers(page, {"items (N)": "12", "ratings per item (K), min / median / max": "2 / 3 / 5"})

        slider = page.locator('[data-testid="stMain"]').get_by_role("slider").first
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(r"dat_min_k=3"), timeout=15_000)
        wait_idle(page)
        shared = _wait_for_numbers(page, {"items (N)": "8", "items left out": "4"})
        url = page.url
        assert re.search(r"ratings=[0-9a-f]{64}", url) and "dat_min_k=3" in url

        teammate = new_page()  # a fresh context: no cookies, no session, only the link
        goto(teammate, url)
        assert _wait_for_numbers(teammate, shared) == shared  # every number, not only the two above
        main = teammate.locator('[data-testid="stMain"]').inner_text()
        assert "could not be used" not in main and "not on this server" not in main  # nothing in the link dropped
        assert re.search(r"ratings=[0-9a-f]{64}", teammate.url).group(0) in url and "dat_min_k=3" in teammate.url
        thumb = teammate.locator('[data-testid="stMain"] [data-testid="stSliderThumbValue"]').first
        assert thumb.inner_text().strip() == "3"  # the slider itself is restored, not only the numbers
        assert "team_ratings.csv" in teammate.locator('[data-testid="stMain"]').inner_text()


@pytest.mark.parametrize(
    "bad",
    ["..%2F..%2Fetc%2Fpasswd", "f" * 5000, "0" * 63 + "%0A", "%00" * 64],
    ids=["traversal", "very-long", "newline", "nul-bytes"],
)
def test_a_hostile_dataset_id_in_a_link_gets_a_clear_message(server, new_page, bad: str) -> None:
    page = new_page()
    goto(page, f"{server}/Data?ratings={bad}")
    _wait_for_numbers(page, {"items (N)": "500"})  # the nearest valid view: the built-in sample
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "not a valid id" in main
    assert "Traceback" not in main and "Error:" not in main


def test_a_link_to_a_dataset_not_on_this_server_says_so(server, new_page) -> None:
    page = new_page()
    goto(page, f"{server}/Data?ratings={'ab' * 32}&dat_min_k=2")
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "not on this server" in main and "Traceback" not in main
