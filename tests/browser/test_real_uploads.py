"""Real data is the happy path: on a fresh server, each real dataset is uploaded on the Data page with every default
left alone, then every page is opened from the sidebar; each shows a verdict and no error box.

Uploads (``../shared/datasets``; inspect_ai logs written by inspect_ai itself, :mod:`tests.inspect_logs`):

- ChaosNLI: the model predictions (the file's first subset, mnli_m), then the label counts, which open on the
  subset the stored predictions cover (mnli_m, not the first value alphanli); paired results derived from the stored
  predictions against the counts' plurality (the ratings the page picks by default).
- inspect_ai: two logs of 60 cases x 3 epochs uploaded together -> one evaluation (every epoch, answer, latency).
- Jobs (Q1, point of view): the annotations, then the predictions, derived into paired results from the upload
  itself: the predictions are stored too, linked (``derived_from``), and chosen.

Oracle for "a verdict": the sentence each page leads with, matched by its words (Budget's answer heading, Compare's
"beats" / "cannot tell", Sampling's "Voting over n samples per request", Cost & latency's "ship", the Planner's
"cases needed"); for the Data page, the numbers of the chosen upload. Screenshots of every page at 1400 px land in
``tests/browser/artifacts/real_<upload>_<page>.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from nkcore import store
from tests.browser.conftest import (
    EXCEPTION,
    MAIN,
    expect,
    expect_title,
    expect_url,
    goto,
    main,
    screenshot,
    wait_for_app_run,
)
from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import FilePayload, Locator, Page

DATASETS = ROOT.parent / "shared" / "datasets"
CHAOSNLI = DATASETS / "chaosnli"
JOBS = DATASETS / "jobs"

pytestmark = [pytest.mark.browser, pytest.mark.slow]
needs_shared = pytest.mark.skipif(not (CHAOSNLI.is_dir() and JOBS.is_dir()), reason="../shared/datasets is absent")

ERROR_BOX = f'{MAIN} [data-testid="stAlertContentError"], {EXCEPTION}'
SLOW = 180_000  # a page's first run on real data (the exact engine on 1,569 items x 100 labels) on a busy machine

# sidebar link text, the page's title, and how its verdict reads (None: the page has none of its own)
PAGES: list[tuple[str, str, str, re.Pattern[str] | None]] = [
    ("Home", "Home", "NK Planner", None),
    ("Data", "Data", "Data", None),  # the chosen dataset's numbers, checked in _verdict
    ("Budget", "Budget (N x K)", "Budget (N x K)", None),  # the answer heading, checked in _verdict
    ("Compare", "Compare", "Compare", re.compile(r"\b(beats|cannot tell|can't tell)\b")),
    ("Sampling", "Sampling", "Sampling", re.compile(r"Voting over \d+ samples per request")),
    ("Cost_and_latency", "Cost & latency", "Cost & latency", re.compile(r"\bship\b")),
    ("Planner", "Planner", "Planner", re.compile(r"cases needed|you need [\d,]+ cases")),
]


def _payload(path: Path, name: str | None = None) -> FilePayload:
    return {"name": name or path.name, "mimeType": "application/octet-stream", "buffer": path.read_bytes()}


def _set_file(uploader: Locator, path: Path) -> None:
    uploader.locator('input[type="file"]').first.set_input_files(files=[_payload(path)])


def _data_upload(page: Page) -> Locator:
    return main(page).get_by_test_id("stFileUploader").filter(has_text="Data file")


def _click(page: Page, name: str, timeout: float = 90_000) -> None:
    button = main(page).get_by_role("button", name=name, exact=True)
    expect(button).to_be_enabled(timeout=timeout)
    button.click()


def _no_error(page: Page, where: str) -> None:
    boxes = page.locator(ERROR_BOX)
    if boxes.count():
        texts = [boxes.nth(i).inner_text()[:300] for i in range(boxes.count())]
        raise AssertionError(f"{where}: error box {texts}")


def _verdict(page: Page, slug: str, pattern: re.Pattern[str] | None) -> str:
    """The page's verdict as shown (asserted visible); '' for Home."""
    area = main(page)
    if slug == "Data":
        expect(area.get_by_test_id("stMetric").first).to_be_visible(timeout=SLOW)
        return area.get_by_test_id("stMetric").first.inner_text().replace("\n", " ")
    if slug == "Budget":
        heading = area.locator("h4").first
        expect(heading).to_have_text(re.compile(r"\w"), timeout=SLOW)
        return heading.inner_text()
    if pattern is None:
        return ""
    found = area.get_by_text(pattern).first
    expect(found).to_be_visible(timeout=SLOW)
    return found.inner_text()[:200]


ONE_SAMPLE = re.compile(r"has one sample per case, so there is nothing to vote over")


def _walk(page: Page, upload: str, shots: list[str], one_sample: bool = False) -> dict[str, str]:
    """Open every page from the sidebar, as a user would (the session keeps the uploads chosen); each has its title,
    no error box and its verdict. Returns page -> verdict text; screenshots the pages named in ``shots``.
    ``one_sample``: the evaluation has one result per case and config (paired results derived from predictions), so
    Sampling and Cost & latency say why they have nothing to vote over, instead of showing the built-in example."""
    verdicts = {}
    for slug, link, title, pattern in PAGES:
        if one_sample and slug in ("Sampling", "Cost_and_latency"):
            pattern = ONE_SAMPLE
        page.locator(".st-key-nkp_nav").get_by_text(link, exact=True).first.click()  # the app's own navigation
        expect_title(page, title, timeout=SLOW)
        wait_for_app_run(page, timeout=SLOW)
        verdicts[slug] = _verdict(page, slug, pattern)
        wait_for_app_run(page, timeout=SLOW)
        _no_error(page, f"{upload}, {title}")
        if slug in shots:
            screenshot(page, f"real_{upload}_{slug}")
    return verdicts


def _stored(data_dir: Path) -> dict[str, list[store.StoredDataset]]:
    by_kind: dict[str, list[store.StoredDataset]] = {}
    for meta in store.list_datasets(root=data_dir):
        by_kind.setdefault(meta.kind, []).append(meta)
    return by_kind


@pytest.fixture
def fresh(start_server: Callable[[], AbstractContextManager[str]], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A fresh server on an empty store: (base URL, its data folder)."""
    with start_server() as base:
        yield base, tmp_path


@pytest.mark.shared
@needs_shared
def test_chaosnli_predictions_then_counts_every_page_has_a_verdict(
    fresh: tuple[str, Path], new_page: Callable[..., Page]
) -> None:
    base, data_dir = fresh
    page = new_page()
    goto(page, f"{base}/Data", timeout=SLOW)
    area = main(page)
    _set_file(_data_upload(page), CHAOSNLI / "predictions_snli_mnli_baan2022.csv.gz")
    expect(area.get_by_text("This file holds several datasets or splits.")).to_be_visible(timeout=SLOW)
    expect(area.get_by_text("The file is a valid predictions dataset.")).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    _click(page, "Store and use this dataset")
    expect_url(page, r"predictions=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)

    _set_file(_data_upload(page), CHAOSNLI / "label_counts.csv.gz")
    # the subset the stored predictions cover, and why; not the first value (alphanli, which no model predicts)
    expect(area.get_by_text(re.compile(r"Chosen because it shares the most items \(1,569\)"))).to_be_visible(
        timeout=SLOW
    )
    expect(area.get_by_text("The file is a valid ratings dataset.")).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    _click(page, "Store and use this dataset")
    expect_url(page, r"ratings=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)
    _click(page, "Derive and store paired results")
    expect_url(page, r"eval=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, "ChaosNLI, after the uploads")

    stored = _stored(data_dir)
    assert [m.name for m in stored["ratings"]] == ["label_counts.csv.gz [mnli_m]"]
    assert [m.name for m in stored["predictions"]] == ["predictions_snli_mnli_baan2022.csv.gz [mnli_m]"]
    (paired,) = stored["paired"]
    assert set(paired.derived_from) == {stored["predictions"][0].id, stored["ratings"][0].id}

    verdicts = _walk(page, "chaosnli", ["Data", "Budget", "Compare", "Planner"], one_sample=True)
    assert all(verdicts[p] for p in ("Data", "Budget", "Compare", "Planner")), verdicts


@pytest.fixture(scope="module")
def inspect_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two real inspect_ai logs of the same model name (60 cases x 3 epochs), as tests/app/test_compare_cases.py
    writes them, under the names a team gives them: digits_weak.eval and digits_strong.eval."""
    pytest.importorskip("inspect_ai")
    from tests.inspect_logs import epoch_contents, write_log

    root = tmp_path_factory.mktemp("inspect")
    hard = np.arange(60) % 4 == 0
    out = []
    for name, chance, seed in (("weak", np.where(hard, 0.15, 0.7), 2), ("strong", np.where(hard, 0.4, 0.92), 1)):
        log = write_log(root / name, "model", epoch_contents(chance.tolist(), 3, seed), 3, 60)
        out.append(log.rename(root / f"digits_{name}.eval"))
    return out[0], out[1]


def test_inspect_ai_log_pair_every_page_has_a_verdict(
    fresh: tuple[str, Path], new_page: Callable[..., Page], inspect_logs: tuple[Path, Path]
) -> None:
    base, data_dir = fresh
    page = new_page()
    goto(page, f"{base}/Data", timeout=SLOW)
    area = main(page)
    harness = area.get_by_test_id("stFileUploader").filter(has_text="Harness files")
    harness.locator('input[type="file"]').first.set_input_files(files=[_payload(p) for p in inspect_logs])
    expect(area.get_by_text(re.compile(r"inspect_ai files: 2 configs"))).to_be_visible(timeout=SLOW)
    _click(page, "Store this evaluation")
    expect_url(page, r"eval=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, "inspect_ai, after the upload")
    assert [m.kind for m in store.list_datasets(root=data_dir)] == ["paired"]  # one evaluation, stored whole

    verdicts = _walk(page, "inspect", ["Compare", "Sampling", "Cost_and_latency", "Planner"])
    assert all(verdicts[p] for p in ("Compare", "Sampling", "Cost_and_latency", "Planner")), verdicts


@pytest.mark.shared
@needs_shared
def test_jobs_annotations_then_predictions_derived_on_upload_every_page_has_a_verdict(
    fresh: tuple[str, Path], new_page: Callable[..., Page]
) -> None:
    base, data_dir = fresh
    page = new_page()
    goto(page, f"{base}/Data", timeout=SLOW)
    area = main(page)
    _set_file(_data_upload(page), JOBS / "annotations_q1_point_of_view.csv.gz")
    expect(area.get_by_text("The file is a valid ratings dataset.")).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    _click(page, "Store and use this dataset")
    expect_url(page, r"ratings=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)

    _set_file(_data_upload(page), JOBS / "predictions_generated_here_q1_point_of_view.csv.gz")
    expect(area.get_by_text("The file is a valid predictions dataset.")).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    # derived straight from the upload: the predictions are stored as well, linked and chosen
    _click(page, "Derive and store paired results")
    expect_url(page, r"eval=[0-9a-f]{64}")
    expect_url(page, r"predictions=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, "Jobs, after the uploads")
    expect(area.get_by_text("The predictions it was derived from are stored too", exact=False)).to_be_visible()
    expect(area).not_to_contain_text("No predictions are stored yet")

    stored = _stored(data_dir)
    (ratings,), (predictions,), (paired,) = stored["ratings"], stored["predictions"], stored["paired"]
    assert set(paired.derived_from) == {predictions.id, ratings.id}
    assert predictions.name == "predictions_generated_here_q1_point_of_view.csv.gz"

    verdicts = _walk(page, "jobs", ["Data", "Budget", "Compare", "Planner"], one_sample=True)
    assert all(verdicts[p] for p in ("Data", "Budget", "Compare", "Planner")), verdicts
