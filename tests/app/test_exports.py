"""Downloads carry their context: file names say page, dataset and date; CSVs read plainly; PNGs and the summary
name the datasets and their configs (ui.common.exports, recorded by ui.common.page.setup_page and
ui.common.datasets.choose_dataset).

Download buttons hand Streamlit a callable (the file is made on click); the tests record each registered callable
with its file name, and call the ones they read, as a click would.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from nkcore import store
from tests.app.conftest import RunPage

COMPARE = "pages/3_Compare.py"
PAIRED_NAME = "sample-worked-example-n-1-3-5-7"  # the slug of "Sample: worked example (n = 1, 3, 5, 7)"


@dataclass(frozen=True)
class Download:
    file_name: str
    mime: str
    make: Callable[[], Any]

    def bytes(self) -> bytes:
        data = self.make()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Download]]:
    """Every deferred download registered while a page runs, in order (file name, mime type, the callable)."""
    seen: list[Download] = []
    real = MediaFileManager.add_deferred

    def record(self: MediaFileManager, data_callable: Any, mimetype: Any, coordinates: str, file_name: Any = None,
               **kw: Any) -> str:  # fmt: skip
        seen.append(Download(str(file_name), str(mimetype), data_callable))
        return real(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    yield seen


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def _named(found: list[Download], suffix: str) -> Download:
    matches = [d for d in found if d.file_name.endswith(suffix)]
    assert matches, [d.file_name for d in found]
    return matches[-1]  # the last run's button


def test_compare_downloads_are_named_by_page_dataset_and_date(run_page: RunPage, downloads: list[Download]) -> None:
    at = run_page(COMPARE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    names = {d.file_name for d in downloads}
    stem = f"nk-planner_compare_{PAIRED_NAME}_{_today()}_"
    for suffix in ("paired-tests.csv", "paired-differences.png", "paired-differences.svg", "summary.html"):
        assert stem + suffix in names, sorted(names)
    assert all(re.fullmatch(r"[a-z0-9._+-]+", n) for n in names), sorted(names)


def test_compare_csv_reads_plainly_and_keeps_the_raw_numbers(run_page: RunPage, downloads: list[Download]) -> None:
    at = run_page(COMPARE, timeout=120)
    assert not at.exception
    shown = next(df.value for df in at.dataframe if "exact p" in df.value.columns)
    csv = pd.read_csv(io.BytesIO(_named(downloads, "paired-tests.csv").bytes()))
    assert "exact p (raw)" in csv.columns and "difference (points) (raw)" in csv.columns
    # the table shows each p as the sentences write it; the CSV keeps the number. Oracle: scipy's exact binomial
    # test on each adjacent pair's discordant cases of the sample file (McNemar's exact test)
    from scipy import stats

    from nkcore.common.formatting import p_value_text
    from tests.conftest import ROOT

    assert shown["exact p"].tolist() == [p_value_text(x) for x in csv["exact p (raw)"]]
    wide = pd.read_csv(ROOT / "sample_data" / "worked_example_paired.csv").pivot(
        index="case", columns="config", values="correct"
    )
    want = []
    for a, b in (("n=1", "n=3"), ("n=3", "n=5"), ("n=5", "n=7")):
        a_only, b_only = int(((wide[a] == 1) & (wide[b] == 0)).sum()), int(((wide[a] == 0) & (wide[b] == 1)).sum())
        want.append(stats.binomtest(b_only, a_only + b_only, 0.5).pvalue)
    assert csv["exact p (raw)"].tolist() == pytest.approx(want, rel=1e-9)
    # three significant digits for reading: the rounded column is within half a unit of its third digit
    for rounded, raw in zip(csv["exact p"], csv["exact p (raw)"], strict=True):
        assert rounded == pytest.approx(raw, rel=5e-3) and len(repr(rounded).lstrip("0.")) <= 4


def test_chart_png_names_page_dataset_and_configs(run_page: RunPage, downloads: list[Download]) -> None:
    import json

    from ui.common import exports

    at = run_page(COMPARE, timeout=120)
    assert not at.exception
    png = _named(downloads, "paired-differences.png").bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000  # vl-convert rendered the titled spec
    svg = _named(downloads, "paired-differences.svg").bytes().decode("utf-8")
    # the SVG's text: the chart's title, then the page, the dataset and its configs
    text = svg.replace("&amp;", "&")
    assert "Compare: Sample: worked example (n = 1, 3, 5, 7)" in text and "configs: n=1, n=3, n=5, n=7" in text
    chart = json.loads(at.get("vega_lite_chart")[-1].proto.spec)
    assert chart.get("title") or chart.get("layer"), "the page's chart keeps its own title"
    assert exports.current_context().page == ""  # outside a run there is no context: nothing leaks between tests


def test_summary_names_the_dataset_with_its_id_and_configs(run_page: RunPage, downloads: list[Download]) -> None:
    at = run_page(COMPARE, timeout=120)
    assert not at.exception
    page = _named(downloads, "summary.html").bytes().decode("utf-8")
    ds_id = next(iter(at.query_params.get("paired", []) or [None]), None)
    from ui.common.datasets import load_dataset

    sample = load_dataset("paired", ds_id)
    assert sample.name in page and sample.id in page
    assert "n=1, n=3, n=5, n=7" in page
    assert "p = &lt;" not in page and "p = <" not in page
    assert "overflow-wrap:anywhere" in page


def test_a_hostile_dataset_name_cannot_reach_the_path(run_page: RunPage, downloads: list[Download]) -> None:
    frame = pd.DataFrame({"case": [str(i) for i in range(30)], "old": [i % 3 == 0 for i in range(30)],
                          "new": [i % 2 == 0 for i in range(30)]}).astype({"old": int, "new": int})  # fmt: skip
    hostile = '../../..\\evil "name"\x07<script>|*?:' + "x" * 300 + ".csv"
    meta = store.put(frame, "paired", hostile)
    at = run_page(COMPARE, query={"paired": meta.id}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    names = {d.file_name for d in downloads}
    for name in names:
        assert re.fullmatch(r"nk-planner_compare_evil-name-script-x+_\d{4}-\d\d-\d\d_[a-z0-9.-]+\.[a-z]+", name), name
        assert len(name) <= 160
    page = _named(downloads, "summary.html").bytes().decode("utf-8")
    assert meta.id in page and "&lt;script&gt;" in page and "<script>" not in page


def test_a_dataset_download_is_the_dataset_as_it_is(run_page: RunPage, downloads: list[Download]) -> None:
    at = run_page("pages/1_Data.py", query={"dat_view": "samples"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    csvs = [d for d in downloads if d.file_name.endswith(".csv")]
    assert csvs, [d.file_name for d in downloads]
    data = pd.read_csv(io.BytesIO(csvs[-1].bytes()))
    assert csvs[-1].file_name.startswith(f"nk-planner_data_sample-worked-example-200-cases_{_today()}_")
    assert list(data.columns) == ["case", "sample", "answer", "gold", "latency_s"]  # no renaming, no raw columns
