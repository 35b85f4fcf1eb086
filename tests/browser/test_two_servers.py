"""A team deployment in a real browser: two app servers on one S3-compatible store (moto's server mode on a
loopback port, through a relay that the test can cut). An upload through the first server; the shared link opened
on the second shows the same view word for word; the store cut off: every page that reads datasets says so, the
link keeps its dataset, and once the store answers again the link shows it as before."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from nkcore import store
from nkcore.io import fingerprint
from tests.browser.conftest import METRIC, METRIC_LABEL, METRIC_VALUE, METRICS_JS, expect, expect_url, goto, main
from tests.browser.test_share import CSV, DATASET_ID
from tests.conftest import StoreLink, new_bucket
from tests.servers import app_server

if TYPE_CHECKING:
    from playwright.sync_api import FilePayload, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOWN = "The dataset store does not answer"
# the pages that read a dataset of the link (Budget and Planner read one only in their from-data modes)
PAGES = ("", "Data", "Compare", "Sampling", "Cost_and_latency")


def test_two_servers_one_store_a_link_works_whichever_server_answers(
    _browser_required: None,
    s3_endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    new_page: Callable[..., Page],
) -> None:
    link = StoreLink(int(s3_endpoint.rsplit(":", 1)[1]))
    url = new_bucket(s3_endpoint, monkeypatch)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", link.url)  # both servers (and this process) reach the store via the relay
    # both servers as ``make run`` starts the app, on the same store URL, their logs in tmp_path
    with app_server(url, log_dir=tmp_path) as one, app_server(url, log_dir=tmp_path) as two:
        first, second = one.base, two.base
        page = new_page()
        goto(page, f"{first}/Data")
        upload: FilePayload = {"name": "team_ratings.csv", "mimeType": "text/csv", "buffer": CSV}
        main(page).locator('input[type="file"]').first.set_input_files(files=[upload])
        page.get_by_role("button", name="Store and use this dataset").click(timeout=30_000)
        expect_url(page, DATASET_ID)
        expect(page.locator(f"{MAIN_METRIC}")).not_to_have_count(0)
        slider = main(page).get_by_role("slider").first
        slider.focus()
        page.keyboard.press("ArrowRight")
        expect_url(page, r"dat_min_k=2", timeout=15_000)
        goto(page, page.url)  # the tuned view, settled
        shared: list[list[str]] = page.evaluate(METRICS_JS)
        assert shared, "no numbers on the first server's page"
        found = re.search(DATASET_ID, page.url)
        assert found is not None
        ds_id = found.group(0).split("=")[1]
        # the upload is in the store, complete: listed from here (a third process) and readable
        [meta] = store.list_datasets(root=url)
        assert meta.id == ds_id and fingerprint(store.get(ds_id, root=url)[1]) == ds_id

        on_second = page.url.replace(first, second)
        teammate = new_page(fresh=True)
        goto(teammate, on_second)
        area = main(teammate)
        expect(area.locator(f"{METRIC} {METRIC_LABEL}")).to_have_text([label for label, _ in shared])
        expect(area.locator(f"{METRIC} {METRIC_VALUE}")).to_have_text([value for _, value in shared])
        expect(area).not_to_contain_text("not on this server")
        expect(area).to_contain_text("team_ratings.csv")
        expect_url(teammate, re.escape(found.group(0)))

        # the store stops answering: every page that reads datasets says so, on either server; the link is kept
        link.cut()
        try:
            other = new_page()  # each link opened in it is a new Streamlit session, as in a new tab
            for base in (second, first):
                for name in PAGES:
                    goto(other, f"{base}/{name}?ratings={ds_id}")
                    expect(main(other), f"{base}/{name}").to_contain_text(DOWN)
                    expect(main(other)).not_to_contain_text("Traceback")
                    expect_url(other, f"ratings={ds_id}")
        finally:
            link.restore()
        # back: the link shows the dataset on the second server as before, nothing lost
        again = new_page(fresh=True)
        goto(again, on_second)
        expect(main(again).locator(f"{METRIC} {METRIC_VALUE}")).to_have_text(
            [value for _, value in shared], timeout=60_000
        )
        expect(main(again)).not_to_contain_text(DOWN)
    link.cut()


MAIN_METRIC = f'[data-testid="stMain"] {METRIC}'
