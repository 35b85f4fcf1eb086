"""Judges page on real judge data, in a real browser: each file is uploaded through the Data page's file chooser with
every default left alone, stored, and the Judges page opened from the sidebar; it leads with the corrected verdict,
shows no error box, and its JSON download equals ``python -m nkcore judge FILE ... --json`` on the same file.

Data (``../shared/datasets``): PandaLM's test set (pairwise verdicts, 10 model pairs, two judges), HANNA (Coherence,
11 systems on the same 96 prompts, two judges on a 1-5 scale) and LLMBar (8 subsets, four judge configs), each made a
judge table with the human score kept on a seeded random 25% by ``benchmarks/judge_shapes.py`` into a temporary
folder. Screenshots: ``tests/browser/artifacts/judges_<dataset>_<width>.png`` at 1400 x 900 and 1024 x 768, grown to
the content height.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

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
    from playwright.sync_api import Page

DATASETS = ROOT.parent / "shared" / "datasets"
NAMES = ("pandalm_testset", "hanna_story_eval", "llmbar_judge_configs")
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.shared]
needs_shared = pytest.mark.skipif(
    not all((DATASETS / n).is_dir() for n in NAMES), reason="../shared/datasets is absent"
)
ERROR_BOX = f'{MAIN} [data-testid="stAlertContentError"], {EXCEPTION}'
SLOW = 180_000
PRICES = ("--price-human", "1", "--price-judge", "0.01")  # the page's default prices


@pytest.fixture(scope="module")
def judge_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The three judge tables (``benchmarks.judge_shapes``) in a temporary folder: name -> JudgeFile."""
    from benchmarks import judge_shapes

    out = tmp_path_factory.mktemp("judge_files")
    built = [judge_shapes.pandalm(out), judge_shapes.hanna(out), judge_shapes.llmbar(out)]
    return {jf.name: jf for jf in built}


@pytest.fixture
def fresh(start_server: Callable[[], AbstractContextManager[str]]) -> Iterator[str]:
    """A fresh server on an empty store."""
    with start_server() as base:
        yield base


def _cli(path: Path, args: tuple[str, ...]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "nkcore", "judge", str(path), *args, *PRICES, "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=600,
    )
    doc: dict[str, Any] = json.loads(out.stdout)
    return doc


def _same(a: Any, b: Any, where: str = "") -> None:
    """Equal JSON values; numbers to 1e-9 (relative)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (where, set(a) ^ set(b))
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (where, a, b)
    else:
        assert a == b, (where, a, b)


def _no_error(page: Page, where: str) -> None:
    boxes = page.locator(ERROR_BOX)
    if boxes.count():
        texts = [boxes.nth(i).inner_text()[:300] for i in range(boxes.count())]
        raise AssertionError(f"{where}: error box {texts}")


@needs_shared
@pytest.mark.parametrize("name", NAMES)
def test_real_judge_file_uploaded_gives_the_clis_numbers(
    name: str, judge_files: dict[str, Any], fresh: str, new_page: Callable[..., Page]
) -> None:
    jf = judge_files[name]
    page = new_page(viewport=(1400, 900))
    goto(page, f"{fresh}/Data", timeout=SLOW)
    area = main(page)
    uploader = area.get_by_test_id("stFileUploader").filter(has_text="Data file")
    uploader.locator('input[type="file"]').first.set_input_files(
        files=[{"name": jf.path.name, "mimeType": "text/csv", "buffer": jf.path.read_bytes()}]
    )
    expect(area.get_by_text(re.compile(r"The file is a valid judge table"))).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    button = area.get_by_role("button", name="Store and use this dataset", exact=True)
    expect(button).to_be_enabled(timeout=SLOW)
    button.click()
    expect_url(page, r"eval=[0-9a-f]{64}", timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, f"{name}, Data")

    page.locator(".st-key-nkp_nav").get_by_text("Judges", exact=True).first.click()
    expect_title(page, "Judges", timeout=SLOW)
    verdict = main(page).locator(".st-key-jdg_verdict")
    expect(verdict.locator("h4")).to_have_text(re.compile(r"Corrected by \d+ human labels"), timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, f"{name}, Judges")
    expect(main(page).get_by_text(jf.path.name).first).to_be_visible()  # the data line names the upload

    with page.expect_download(timeout=SLOW) as info:
        main(page).get_by_role("button", name=re.compile(r"All numbers \(JSON\)")).click()
    shown = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    _same(_cli(jf.path, tuple(jf.args)), shown)

    screenshot(page, f"judges_{name}_1400")
    page.set_viewport_size({"width": 1024, "height": 768})
    wait_for_app_run(page, timeout=SLOW)
    expect(verdict.locator("h4")).to_be_visible()
    screenshot(page, f"judges_{name}_1024")
