"""A team's run flows whole from upload to every headline (issue 51), in a real browser.

On a fresh server whose store already holds other datasets (raw samples and paired results of other runs,
ratings and predictions), files written by the tools themselves are uploaded through the Data page's file chooser,
stored with the one button, and every page is opened from the sidebar with its defaults. Each page: no error box;
its first line (the data line) names the upload and, on Sampling and Cost & latency, the config; every config of the
upload is reachable there (each one opened through its picker's link value); the numbers equal the CLI's on the
same file (``vote --config C --json``: single-call accuracy; the mean recorded cost per call, by hand from the JSON).

Uploads: promptfoo ``tests/data/promptfoo/results.json`` (3 providers x 7 tests x 3 repeats, costs; written by
promptfoo itself); two inspect_ai logs with epochs and partial credit (C / P / I, written by inspect_ai,
:mod:`tests.inspect_logs`); lm-evaluation-harness samples without their results files (written by lm-eval 0.4.13).
Screenshots of every page after the promptfoo upload at 1400, 1024 and 390 px wide:
``tests/browser/artifacts/eval_promptfoo_<page>_<width>.png`` (Home, Data, Budget, Compare, Sampling,
Cost_and_latency, Planner).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

from nkcore import store
from tests.browser.conftest import (
    expect,
    expect_title,
    expect_url,
    goto,
    main,
    screenshot,
    wait_for_app_run,
)
from tests.browser.test_real_uploads import SLOW, _no_error, _payload
from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import FilePayload, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROMPTFOO = ROOT / "tests" / "data" / "promptfoo" / "results.json"
LM_EVAL = ROOT / "tests" / "data" / "lm_eval" / "output"
PAGES = [
    ("Compare", "Compare"),
    ("Sampling", "Sampling"),
    ("Cost_and_latency", "Cost & latency"),
    ("Planner", "Planner"),
]


def _cli(*argv: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-m", "nkcore", *argv, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    doc: dict[str, object] = json.loads(out.stdout)
    return doc


@pytest.fixture
def crowded(start_server: Callable[[], AbstractContextManager[str]], tmp_path: Path) -> Iterator[str]:
    """A fresh server whose store already holds other teams' datasets of every kind."""
    samples = pd.read_csv(ROOT / "sample_data" / "worked_example_samples.csv")
    store.put(samples, "samples", "someone_elses_samples.csv", root=tmp_path)
    other = pd.DataFrame({"case": ["1", "1", "2", "2"], "config": ["x", "y", "x", "y"], "correct": [1, 0, 1, 1]})
    store.put(other, "paired", "other_team_paired.csv", root=tmp_path)
    store.put(pd.read_csv(ROOT / "sample_data" / "ratings.csv"), "ratings", "other_ratings.csv", root=tmp_path)
    with start_server() as base:
        yield base


def _upload(page: Page, base: str, files: list[FilePayload], what: str) -> str:
    """Upload harness files through the Data page's chooser and store them; the evaluation's id from the link."""
    goto(page, f"{base}/Data", timeout=SLOW)
    area = main(page)
    harness = area.get_by_test_id("stFileUploader").filter(has_text="Harness files")
    harness.locator('input[type="file"]').first.set_input_files(files=files)
    expect(area.get_by_text(re.compile(rf"{what} files: \d+ configs?"))).to_be_visible(timeout=SLOW)
    wait_for_app_run(page, timeout=SLOW)
    button = area.get_by_role("button", name="Store this evaluation", exact=True)
    expect(button).to_be_enabled(timeout=SLOW)
    button.click()
    expect_url(page, r"eval=[0-9a-f]{64}")
    wait_for_app_run(page, timeout=SLOW)
    _no_error(page, f"{what}, after the upload")
    found = re.search(r"eval=([0-9a-f]{64})", page.url)
    assert found is not None
    return found.group(1)


def _data_line(page: Page) -> str:
    line = main(page).get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r"^Data:")).first
    expect(line).to_be_visible(timeout=SLOW)
    return line.inner_text().replace("\u2060", "")  # md() keeps "file:" from becoming a link


def _walk(page: Page, name: str, shots: tuple[int, ...] = ()) -> dict[str, str]:
    """Every page from the sidebar with its defaults: its title, no error box, its data line (returned)."""
    lines = {}
    for slug, title in PAGES:
        page.locator(".st-key-nkp_nav").get_by_text(title, exact=True).first.click()
        expect_title(page, title, timeout=SLOW)
        wait_for_app_run(page, timeout=SLOW)
        lines[slug] = _data_line(page)
        assert name in lines[slug], (slug, lines[slug])
        _no_error(page, f"{name}, {title}")
        for width in shots:
            page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
            wait_for_app_run(page, timeout=SLOW)
            screenshot(page, f"eval_promptfoo_{slug}_{width}")
        if shots:
            page.set_viewport_size({"width": 1400, "height": 900})
    return lines


def test_promptfoo_three_providers_every_page_every_config(crowded: str, new_page: Callable[..., Page]) -> None:
    base = crowded
    page = new_page((1400, 900))
    ds_id = _upload(page, base, [_payload(PROMPTFOO)], "promptfoo")
    results = json.loads(PROMPTFOO.read_text())["results"]["results"]
    lines = _walk(page, "(promptfoo)", shots=(1400, 1024, 390))
    for title, slug in (("Home", "Home"), ("Data", "Data"), ("Budget (N x K)", "Budget")):  # the other pages' shots
        page.locator(".st-key-nkp_nav").get_by_text(title, exact=True).first.click()
        wait_for_app_run(page, timeout=SLOW)
        _no_error(page, f"promptfoo, {title}")
        for width in (1400, 1024, 390):
            page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
            wait_for_app_run(page, timeout=SLOW)
            screenshot(page, f"eval_promptfoo_{slug}_{width}")
        page.set_viewport_size({"width": 1400, "height": 900})
    assert lines["Planner"] and "built-in example" not in " ".join(lines.values())
    assert "3 configs" in lines["Compare"]
    configs = re.findall(r"config: (.+?) \((\d) of 3\)", lines["Sampling"])
    assert configs and configs[0][1] == "1"
    for j in range(3):
        # the config names as the data line gives them, one by one through the picker's link value
        goto(page, f"{base}/Sampling?{urllib.parse.urlencode({'eval': ds_id})}", timeout=SLOW)
        picker = main(page).get_by_test_id("stSelectbox").filter(has_text="Config (3 in this evaluation)")
        picker.click()
        option = page.get_by_role("option").nth(j)
        config = option.inner_text().strip()
        option.click()
        wait_for_app_run(page, timeout=SLOW)
        data_line = main(page).get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r"^Data:")).first
        expect(data_line).to_contain_text(f"({j + 1} of 3)", timeout=SLOW)  # retried: the rerun may still be on
        assert f"config: {config} ({j + 1} of 3)" in _data_line(page)
        _no_error(page, f"promptfoo, Sampling, {config}")
        doc = _cli("vote", str(PROMPTFOO), "--config", config, "--n-boot", "200")
        expect(main(page)).to_contain_text(f"{float(doc['p_single']):.1%}", timeout=SLOW)  # type: ignore[arg-type]
        goto(page, f"{base}/Cost_and_latency?{urllib.parse.urlencode({'eval': ds_id, 'lat_config': config})}")
        assert f"config: {config} ({j + 1} of 3)" in _data_line(page)
        _no_error(page, f"promptfoo, Cost, {config}")
        mine = [float(r["cost"]) for r in results if r["promptIdx"] == j]
        expect(main(page)).to_contain_text(f"${sum(mine) / len(mine):.4g} per call", timeout=SLOW)


def test_inspect_partial_credit_logs_every_page(
    crowded: str, new_page: Callable[..., Page], tmp_path_factory: pytest.TempPathFactory
) -> None:
    pytest.importorskip("inspect_ai")
    from tests.test_harness_fixes_inspect import _contents, write_two_scorer_log

    root = tmp_path_factory.mktemp("partial")
    logs = [
        write_two_scorer_log(root / name, name, _contents(seed)) for name, seed in (("graded-a", 3), ("graded-b", 4))
    ]
    page = new_page((1400, 900))
    _upload(page, crowded, [_payload(p, f"{p.parent.name}.eval") for p in logs], "inspect_ai")
    lines = _walk(page, "(inspect_ai)")
    assert "2 configs" in lines["Compare"]
    expect(main(page)).to_contain_text("partial credit")  # Cost & latency (the last page but one) says why


def test_lm_eval_samples_without_results_files(crowded: str, new_page: Callable[..., Page]) -> None:
    files = [_payload(LM_EVAL / m / f) for m in ("nk-fake-small", "nk-fake-large") for f in sorted(
        p.name for p in (LM_EVAL / m).glob("samples_nk_arith_2026-*.jsonl"))]  # fmt: skip
    page = new_page((1400, 900))
    _upload(page, crowded, files, "lm-evaluation-harness")
    _walk(page, "(lm-evaluation-harness)")


def test_inspect_logs_with_epochs_every_page_every_config(
    crowded: str, new_page: Callable[..., Page], inspect_epoch_pair: tuple[Path, Path]
) -> None:
    """Two inspect_ai logs of 60 cases x 3 epochs (written by inspect_ai, tests.inspect_logs.epoch_pair, once per
    run): every page names the upload; Sampling and Cost & latency reach both configs, Sampling with the single-call
    accuracy the CLI's vote gives on that config's own log."""
    weak, strong = inspect_epoch_pair
    page = new_page((1400, 900))
    ds_id = _upload(page, crowded, [_payload(weak, "weak.eval"), _payload(strong, "strong.eval")], "inspect_ai")
    lines = _walk(page, "(inspect_ai)")
    assert "2 configs" in lines["Compare"]
    for j, log in enumerate((weak, strong)):
        doc = _cli("vote", str(log), "--n-boot", "200")
        config = f"mockllm/{'weak' if j == 0 else 'strong'}"
        for slug, key in (("Sampling", "smp_config"), ("Cost_and_latency", "lat_config")):
            goto(page, f"{crowded}/{slug}?{urllib.parse.urlencode({'eval': ds_id, key: config})}", timeout=SLOW)
            line = main(page).get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r"^Data:")).first
            expect(line).to_contain_text(f"config: {config} ({j + 1} of 2)", timeout=SLOW)
            _no_error(page, f"inspect, {slug}, {config}")
            if slug == "Sampling":  # its headline; Cost & latency's n=1 row is the same number (tests/app)
                expect(main(page)).to_contain_text(f"{float(doc['p_single']):.1%}", timeout=SLOW)  # type: ignore[arg-type]
