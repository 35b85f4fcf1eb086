"""Real data in a real browser: ChaosNLI's label counts and model predictions uploaded on the Data page, paired results
derived in one click, and Compare's verdict on two model runs read off the page.

Oracle: the same derivation through the CLI's reader (``nkcore.datafiles.derive_files``) gives the dataset id the
page must put in the link, and ``nkcore.paired`` gives the verdict sentence the page must show.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from nkcore import paired
from nkcore.datafiles import derive_files
from tests.browser.conftest import expect, expect_title, expect_url, goto, main, screenshot, wait_for_app_run
from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHAOSNLI = ROOT.parent / "shared" / "datasets" / "chaosnli"
PREDICTIONS = CHAOSNLI / "predictions_snli_mnli_baan2022.csv.gz"
COUNTS = CHAOSNLI / "label_counts.csv.gz"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.shared,
    pytest.mark.skipif(not CHAOSNLI.is_dir(), reason="../shared/datasets/chaosnli is absent"),
]


def _upload(page: Page, path: str) -> None:
    with open(path, "rb") as fh:
        data = fh.read()
    name = path.rsplit("/", 1)[-1]
    main(page).locator('input[type="file"]').first.set_input_files(
        files=[{"name": name, "mimeType": "application/gzip", "buffer": data}]
    )


def test_chaosnli_counts_and_predictions_to_a_compare_verdict(server: str, new_page: Callable[..., Page]) -> None:
    # the oracle: predictions against the plurality of mnli_m's 100 labels per item (the stored ratings that share
    # the most items with the predictions, which the page picks by default)
    derived = derive_files("paired", PREDICTIONS, COUNTS, subset="mnli_m")
    a, b = derived.configs[0], derived.configs[1]
    comparison = paired.compare_frame_pair(derived.frame, a=a, b=b)
    verdict_head = paired.verdict_sentence(comparison).split(":")[0]

    page = new_page()
    goto(page, f"{server}/Data")
    area = main(page)
    _upload(page, str(COUNTS))
    expect(area.get_by_text("This file holds several datasets or splits.")).to_be_visible()
    area.get_by_text("each as its own dataset (3)").click()
    area.get_by_role("button", name="Store 3 datasets, one per subset").click()
    expect_url(page, r"ratings=[0-9a-f]{64}")
    wait_for_app_run(page)
    expect(area.get_by_text("label_counts.csv.gz [mnli_m]").first).to_be_visible()

    _upload(page, str(PREDICTIONS))
    expect(area.get_by_text("all rows as one dataset")).to_be_visible()
    area.get_by_text("all rows as one dataset").click()
    expect(area.get_by_text("The file is a valid predictions dataset.")).to_be_visible(timeout=90_000)
    wait_for_app_run(page, timeout=90_000)
    screenshot(page, "real_data_predictions")
    area.get_by_role("button", name="Derive and store paired results").click(timeout=90_000)
    expect_url(page, f"eval={derived.id}")
    wait_for_app_run(page)
    expect(area.get_by_text("Stored", exact=False).first).to_be_visible()

    query = urllib.parse.urlencode({"paired": derived.id, "cmp_mode": "one pair of my choice", "cmp_a": a, "cmp_b": b})
    goto(page, f"{server}/Compare?{query}")
    expect_title(page, "Compare")
    expect(main(page).get_by_text(verdict_head, exact=False).first).to_be_visible()
    expect(main(page)).not_to_contain_text("not on this server")
