"""An evaluation-harness log in a real browser and in the CLI: the same verdict.

Two inspect_ai logs are made in the test with inspect_ai's own ``mockllm/model`` provider (each mock output has a
``usage``, so inspect_ai fetches no tokenizer), one per model; both are uploaded together on the Data page's harness
uploader and stored as one evaluation, Compare opens on it, and its verdict is read off the page. Then
``python -m nkcore compare LOG_A LOG_B --json`` (a subprocess, as a user runs it) must give the same verdict and the
same exact McNemar p. Oracles: the stored dataset's id is the fingerprint of the evaluation (every column) that
``nkcore.harness.read_harness`` reads from the two logs; the verdict is ``nkcore.paired.verdict_sentence`` of it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from nkcore import paired
from nkcore.harness import read_harness
from nkcore.harness.files import read_paths
from nkcore.io import fingerprint
from nkcore.kinds import apply_mapping
from tests.browser.conftest import expect, expect_title, expect_url, goto, main, screenshot, wait_for_app_run
from tests.conftest import ROOT
from tests.test_harness import run_inspect

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.browser]

N_CASES = 40
# The mock outputs in case order (targets alternate "0", "1"): the strong model answers 38 cases right, the weak
# one 20, so the paired test has a clear answer to read on both sides.
STRONG = "".join(str((i + (i in (3, 17))) % 2) for i in range(N_CASES))
WEAK = "".join(str(i % 2) if i % 4 < 2 else str((i + 1) % 2) for i in range(N_CASES))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    pytest.importorskip("inspect_ai")
    root = tmp_path_factory.mktemp("inspect_logs")
    strong = run_inspect(root / "strong", "strong", STRONG, epochs=1, n_cases=N_CASES)
    weak = run_inspect(root / "weak", "weak", WEAK, epochs=1, n_cases=N_CASES)
    return strong, weak


def test_an_inspect_log_gives_the_same_verdict_on_compare_and_in_the_cli(
    server: str, new_page: Callable[..., Page], logs: tuple[Path, Path]
) -> None:
    strong, weak = logs
    res = read_harness(read_paths([strong, weak]))
    assert res.paired is not None and res.configs == ("mockllm/strong", "mockllm/weak")
    table = apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns})  # stored whole
    acc = table.groupby("config")["correct"].sum()
    assert (acc["mockllm/strong"], acc["mockllm/weak"]) == (N_CASES - 2, N_CASES // 2)  # the mock outputs as meant
    a, b = res.configs
    verdict = paired.verdict_sentence(paired.compare_frame_pair(table, a=a, b=b))

    page = new_page((1400, 900))
    goto(page, f"{server}/Data")
    area = main(page)
    files = [{"name": p.name, "mimeType": "application/zip", "buffer": p.read_bytes()} for p in (strong, weak)]
    area.locator('input[type="file"]').nth(1).set_input_files(files=files)
    expect(area.get_by_text("inspect_ai files: 2 configs (mockllm/strong, mockllm/weak)")).to_be_visible(timeout=90_000)
    wait_for_app_run(page, timeout=90_000)
    screenshot(page, "harness_upload")
    area.get_by_role("button", name="Store this evaluation").click()
    expect_url(page, f"eval={fingerprint(table)}")
    wait_for_app_run(page)

    query = urllib.parse.urlencode(
        {"eval": fingerprint(table), "cmp_mode": "one pair of my choice", "cmp_a": a, "cmp_b": b}
    )
    for size in ((1400, 900), (1024, 768)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        goto(page, f"{server}/Compare?{query}")
        expect_title(page, "Compare")
        expect(main(page)).to_contain_text(verdict)
        expect(main(page)).not_to_contain_text("not on this server")
        screenshot(page, f"harness_compare_{size[0]}x{size[1]}")

    cli = subprocess.run(
        [sys.executable, "-m", "nkcore", "compare", str(strong), str(weak), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    doc = json.loads(cli.stdout)
    assert (doc["a"]["config"], doc["b"]["config"], doc["n_cases"]) == (a, b, N_CASES)
    assert doc["verdict"] == verdict
    assert doc["p_exact"] == pytest.approx(paired.compare_frame_pair(table, a=a, b=b).p_exact, rel=1e-12)
    assert doc["p_exact"] < 0.05 and verdict.startswith("mockllm/strong beats mockllm/weak")
