"""The Data page on ratings with rater ids and a 1-5 scale, in a real browser at 1400 x 900 and 1024 x 768: the
ordered-scale part and the per-rater section render without an exception, the bins control is not offered on a
narrow scale, and full-page screenshots land in ``tests/browser/artifacts/`` for a reader to look at.

Oracle: the per-rater headline is :func:`nkcore.summary.raters.raters_frame`'s sentence on the same table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest

from nkcore.summary.raters import raters_frame
from tests.browser.conftest import EXCEPTION, MAIN, expect, expect_url, goto, main, screenshot, wait_for_app_run

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def _likert(n_items: int = 200, raters: int = 25, seed: int = 3) -> pd.DataFrame:
    """Items with a true mean on 1-5, five raters each; rater 'r0' always answers 5."""
    rng = np.random.default_rng(seed)
    mu = rng.uniform(1.2, 4.8, n_items)
    rows = []
    for i in range(n_items):
        for r in rng.choice(raters, 5, replace=False):
            label = 5 if r == 0 else int(np.clip(np.rint(mu[i] + rng.normal(0, 0.7)), 1, 5))
            rows.append({"item_id": f"post{i}", "annotator_id": f"r{r}", "label": label})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("viewport", [(1400, 900), (1024, 768)], ids=["1400x900", "1024x768"])
def test_data_page_with_rater_ids_and_a_likert_scale(
    server: str, new_page: Callable[..., Page], viewport: tuple[int, int]
) -> None:
    frame = _likert(seed=viewport[0])  # a new file per viewport: the session-wide server keeps what was stored
    sentence = raters_frame(frame.rename(columns={"item_id": "item", "annotator_id": "rater"})).sentence
    page = new_page(viewport=viewport)
    goto(page, f"{server}/Data")
    area = main(page)
    area.locator('input[type="file"]').first.set_input_files(
        files=[{"name": "likert.csv", "mimeType": "text/csv", "buffer": frame.to_csv(index=False).encode()}]
    )
    area.get_by_role("button", name="Store and use this dataset").click()
    expect_url(page, r"ratings=[0-9a-f]{64}")
    wait_for_app_run(page)
    expect(area.get_by_text("Who rated: ratings per rater and agreement")).to_be_visible()
    expect(
        area.get_by_text("Labels 1-5 are numbers, so they are read as an ordered scale", exact=False)
    ).to_be_visible()
    expect(area.get_by_text(sentence, exact=False)).to_be_visible()
    expect(area.get_by_text("Least in line with the others: rater 'r0'", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stVegaLiteChart")).to_have_count(3)  # labels, K, item means
    expect(area.get_by_text("Bins for the wide scale")).to_have_count(0)
    expect(page.locator(f"{MAIN} {EXCEPTION}")).to_have_count(0)
    area.get_by_text("Who rated: ratings per rater and agreement").scroll_into_view_if_needed()
    screenshot(page, f"data_raters_{viewport[0]}x{viewport[1]}")
