"""Every chart on every page has a title and named axes, so a PNG/SVG pasted into a review doc explains itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.conftest import RunPage
from ui.common.page import PAGES


def _titles(spec: dict[str, Any]) -> Iterator[tuple[str, object]]:
    """(channel, axis title) of every x/y encoding in the spec and its layers."""
    for layer in [spec, *spec.get("layer", [])]:
        for channel in ("x", "y"):
            enc = layer.get("encoding", {}).get(channel)
            if isinstance(enc, dict) and "field" in enc:
                yield channel, enc.get("title", "<missing>")


@pytest.mark.parametrize("path", [p for p, _, _ in PAGES])
def test_every_chart_has_a_title_and_axis_titles(run_page: RunPage, path: str) -> None:
    at = run_page(path, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    charts = at.get("vega_lite_chart")
    if path.endswith("1_Data.py") or path.endswith("_Compare.py") or path.endswith("_Budget.py"):
        assert charts, "the default view of this page shows charts"
    for chart in charts:
        spec = json.loads(chart.proto.spec)
        title = spec.get("title") or next((la["title"] for la in spec.get("layer", []) if la.get("title")), None)
        assert title, f"a chart on {path} has no title"
        for channel, axis_title in _titles(spec):
            assert axis_title, f"chart {title!r} on {path}: the {channel} axis has no title"


def test_compare_interval_columns_are_numbers_not_defused_text(run_page: RunPage) -> None:
    at = run_page("pages/3_Compare.py")
    tests = next(df.value for df in at.dataframe if "exact p" in df.value.columns)
    # text like "+1.0 to +13.0" would be shown as "'+1.0 to +13.0" (csv_safe); numbers are shown as they are
    assert tests["95% interval from"].round(1).tolist() == [1.0, -2.5, -2.5]
    assert tests["to"].round(1).tolist() == [13.0, 4.5, 2.5]
