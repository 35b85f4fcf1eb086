"""A store that accepts connections and stops answering (issue 52), in a real browser: an app server on an
S3-compatible store (moto's server mode in a subprocess on a loopback port), the store frozen with SIGSTOP.

Before the fix every page hung on it (100 s and more). Now: Compare on the built-in example shows its verdict in
under 10 s; a link to a stored evaluation says in under 10 s that the store does not answer; once the store is thawed
(SIGCONT) the same link shows the evaluation again, and what was stored is intact.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from nkcore import store
from tests.browser.conftest import expect, goto, main
from tests.servers import app_server
from tests.test_store_deadline import S3_ENV, Moto

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ANSWER_S = 10.0  # the bound for a page on a frozen store


def test_a_frozen_store_costs_a_page_seconds_not_minutes(
    new_page: Callable[..., Page], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("moto.server")
    pytest.importorskip("s3fs")
    import boto3

    moto = Moto()
    try:
        for key, value in {**S3_ENV, "AWS_ENDPOINT_URL_S3": moto.endpoint}.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
        bucket = f"nkp-{uuid.uuid4().hex[:16]}"
        boto3.client("s3", endpoint_url=moto.endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
        url = f"s3://{bucket}/nkp"
        frame = pd.DataFrame({"case": [str(i // 2) for i in range(40)], "config": ["a", "b"] * 20})
        frame["correct"] = [int(bool(i % 2) or i % 3 == 0) for i in range(40)]
        meta = store.put(frame, "paired", "team run before the freeze", root=url)
        with app_server(url, log_dir=tmp_path) as app:
            base = app.base
            page = new_page((1400, 900), fresh=True)
            goto(page, f"{base}/Compare?eval={meta.id}", timeout=120_000)
            expect(main(page)).to_contain_text("team run before the freeze", timeout=60_000)

            moto.freeze()
            try:
                start = time.monotonic()
                builtin = new_page((1400, 900), fresh=True)
                builtin.goto(f"{base}/Compare")
                expect(main(builtin)).to_contain_text("beats", timeout=ANSWER_S * 1000)
                took = time.monotonic() - start
                print(f"frozen store: Compare on the built-in example answered in {took:.1f} s")
                assert took < ANSWER_S, took

                start = time.monotonic()
                linked = new_page((1400, 900), fresh=True)
                linked.goto(f"{base}/Compare?eval={meta.id}")
                expect(main(linked)).to_contain_text("does not answer", timeout=ANSWER_S * 1000)
                took = time.monotonic() - start
                print(f"frozen store: a link to a stored evaluation said so in {took:.1f} s")
                assert took < ANSWER_S, took
            finally:
                moto.thaw()

            time.sleep(4)  # the breaker asks the store again after 3 s
            again = new_page((1400, 900), fresh=True)
            goto(again, f"{base}/Compare?eval={meta.id}", timeout=60_000)
            expect(main(again)).to_contain_text("team run before the freeze", timeout=60_000)
        _, back = store.get(meta.id, root=url)
        assert back["case"].tolist() == frame["case"].tolist()  # intact after the thaw, row for row
        assert back["correct"].tolist() == frame["correct"].tolist()
    finally:
        moto.close()
