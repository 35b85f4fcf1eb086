"""Chart specs for a room and a phone: the heatmap's p < 0.05 mark shows on any fill (and in the exported image),
axes never print float noise, long names are cut to their distinguishing part with the full name kept, titles wrap
instead of being cut, and the theme's fonts are readable on a projector.

Oracles: the WCAG contrast ratio of the mark against the darkest and lightest colours of the scale, the number of
cells with p < 0.05 counted in the data, the SVG that vl-convert renders (what a PNG export draws), and names
written out by hand.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import pytest

from nkcore.common.formatting import distinguishing_names
from ui import charts
from ui.charts import data as charts_data
from ui.charts import nk as charts_nk
from ui.charts import paired as charts_paired
from ui.charts import passk as charts_passk
from ui.charts import plane as charts_plane
from ui.charts import voting as charts_voting

vlc = pytest.importorskip("vl_convert")

# Vega's "blues" scheme, its two ends (vega-scale's scheme table): the lightest and the darkest fill of a cell
BLUES_LIGHT = "#cfe1f2"
BLUES_DARK = "#0a4a90"


@pytest.fixture(autouse=True)
def _theme() -> Iterator[None]:
    before = alt.theme.active
    charts.enable_theme()
    yield
    alt.theme.enable(before)


def _luminance(color: str) -> float:
    """WCAG 2 relative luminance of a #rrggbb colour (or 'white')."""
    hexa = "#ffffff" if color == "white" else color
    rgb = [int(hexa[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _cells(noise: float = 1e-16) -> pd.DataFrame:
    """A grid like the Budget page's: budgets 100 to 2,500, K up to 35 columns, p falling with items (N)."""
    ks = [*range(1, 11), *range(20, 101, 10), *range(120, 501, 40)]
    rows = []
    for b in (100, 250, 500, 1000, 2500):
        for k in ks:
            if k <= b:
                n = b // k
                p = min(1.0, 0.6 * np.exp(-n / 120))
                rows.append(
                    {"budget": b, "k": k, "n": n, "p": p, "delta": noise, "ci_width": -noise, "reproducibility": 1 - p}
                )
    return pd.DataFrame(rows)


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [spec, *spec.get("layer", [])]


def _title(spec: dict[str, Any]) -> Any:
    """The chart's title: the top-level one or, for a layered chart, its first layer's."""
    return spec.get("title") or next((la["title"] for la in spec.get("layer", []) if la.get("title")), None)


def _svg(chart: alt.TopLevelMixin, width: int | None = None) -> str:
    spec = chart.to_dict()
    if width is not None:
        spec["width"] = width
    return str(vlc.vegalite_to_svg(json.dumps(spec)))


def _axis_labels(svg: str, axis: str) -> list[str]:
    """The visible tick labels of the axis whose aria-label starts with ``axis`` ('X-axis' / 'Y-axis')."""
    start = svg.find(f'aria-label="{axis}')
    assert start >= 0, f"no {axis} in the SVG"
    group = svg[start : svg.find('role-axis-domain"', start)]
    labels = re.findall(r"<text([^>]*)>([^<]*)</text>", group)
    return [text for attrs, text in labels if 'opacity="0"' not in attrs]


# ---------------------------------------------------------------------------------------------------- the heatmap


def test_significance_mark_contrasts_with_the_darkest_and_the_lightest_cell() -> None:
    spec = charts_nk.heatmap(_cells(), "p", 1000, 2, (1000, 5), "Accuracy: how repeatable").to_dict()
    sig = [la for la in spec["layer"] if "datum.significant" in json.dumps(la.get("transform", []))]
    assert len(sig) == 1, "one layer marks the cells with p < 0.05"
    mark = sig[0]["mark"]
    fill, stroke = mark["fill"], mark["stroke"]
    for cell in (BLUES_LIGHT, BLUES_DARK):
        # one of the mark's two colours stands out from the cell at the WCAG ratio for graphics (3:1)
        assert max(_contrast(fill, cell), _contrast(stroke, cell)) >= 3.0, (fill, stroke, cell)
    # the old black outline: invisible on the darkest cells
    assert _contrast("#111111", BLUES_DARK) < 3.0


def test_every_significant_cell_carries_the_mark_in_the_exported_image() -> None:
    cells = _cells()
    svg = _svg(charts_nk.heatmap(cells, "p", 1000, 2, None, "Accuracy: how repeatable"), width=700)
    dots = re.findall(r'<path aria-label="[^"]*" [^>]*aria-roledescription="point"[^>]*fill="white"[^>]*>', svg)
    assert len(dots) == int((cells["p"] < 0.05).sum()) > 0


def test_heatmap_rows_have_a_readable_height_and_labels_stand_upright_and_thinned() -> None:
    spec = charts_nk.heatmap(_cells(), "reproducibility", 1000, None, None, "Accuracy: how repeatable").to_dict()
    assert spec["height"]["step"] >= 22
    assert spec["autosize"]["type"] == "fit-x"  # the width follows the container, the rows keep their height
    x = spec["layer"][0]["encoding"]["x"]["axis"]
    assert x["labelAngle"] == 0 and x["labelOverlap"] == "parity"
    legend = spec["layer"][0]["encoding"]["color"]["legend"]
    assert legend["orient"] == "top" and legend["format"] == ".0%"  # above the grid, never over an axis
    # at a phone's width the visible K labels do not overlap: at most one label per 14 px of a 300 px plot
    labels = _axis_labels(_svg(charts_nk.heatmap(_cells(), "p", 1000, None, None, "t"), width=358), "X-axis")
    assert 2 <= len(labels) <= 300 // 14, labels


def test_heatmap_tooltip_never_shows_float_noise() -> None:
    spec = charts_nk.heatmap(_cells(noise=3e-16), "p", 1000, None, None, "Accuracy: how repeatable").to_dict()
    data = next(iter(spec["datasets"].values()))
    assert {row["delta_text"] for row in data} == {"0"} and {row["ci_text"] for row in data} == {"0"}
    assert any(row["p_text"] == "< 0.001" for row in data)
    tips = {t["title"]: t for t in spec["layer"][0]["encoding"]["tooltip"]}
    assert tips["Delta (mean gap)"]["field"] == "delta_text" and tips["CI-width"]["field"] == "ci_text"
    # the names Budget's click test finds a cell by
    assert tips["budget (N x K)"]["format"] == "," and "ratings per item (K)" in tips


def test_heatmap_title_is_split_and_explains_its_marks() -> None:
    title = "Accuracy (plurality vote): how repeatable is 'A beats B' for each budget and ratings per item (K)"
    spec = charts_nk.heatmap(_cells(), "p", 1000, None, None, title).to_dict()
    spec["title"] = _title(spec)
    assert spec["title"]["text"] == ["Accuracy (plurality vote)"]
    sub = " ".join(spec["title"]["subtitle"])
    assert sub.startswith("how repeatable is 'A beats B'") and "White dot: p < 0.05" in sub
    assert all(len(line) <= charts.SUBTITLE_CHARS for line in spec["title"]["subtitle"])


# ---------------------------------------------------------------------------------------------------- the gaps


@pytest.mark.parametrize(
    ("alt_gaps", "null_gaps"),
    [
        (np.zeros(200), np.zeros(200)),  # two models that agree on every item
        (np.full(50, 1e-17), np.full(50, -2e-17)),  # the same, with float noise
        (np.array([np.nan, 0.0]), np.array([np.inf, 0.0])),
        (np.array([]), np.array([])),
    ],
    ids=["zeros", "noise", "non-finite", "empty"],
)
def test_gap_chart_of_ties_renders_on_a_readable_axis(alt_gaps: np.ndarray, null_gaps: np.ndarray) -> None:
    chart = charts_nk.gap_distributions(alt_gaps, null_gaps, "Accuracy", "Score gap: real data")
    x = chart.to_dict()["layer"][0]["encoding"]["x"]
    lo, hi = x["scale"]["domain"]
    assert hi - lo >= 0.02
    labels = _axis_labels(_svg(chart, width=500), "X-axis")
    assert labels and all(re.fullmatch(r"[−-]?\d+(\.\d{1,3})?", t) for t in labels), labels


def test_gap_chart_ticks_have_the_decimals_the_range_needs() -> None:
    rng = np.random.default_rng(3)
    chart = charts_nk.gap_distributions(rng.normal(0.03, 0.02, 400), rng.normal(0, 0.02, 400), "Accuracy", "t")
    labels = _axis_labels(_svg(chart, width=600), "X-axis")
    assert len(labels) >= 4 and all(re.fullmatch(r"[−-]?\d+(\.\d{1,2})?", t) for t in labels), labels
    assert chart.to_dict()["layer"][0]["encoding"]["x"]["axis"]["format"] == ".2~f"


@pytest.mark.parametrize(
    ("lo", "hi", "fmt"),
    [(-0.05, 0.12, ".2~f"), (0.0, 27.63, ".0~f"), (-0.01, 0.01, ".3~f"), (0.3, 0.30000000000000004, ".6~f")],
)
def test_tick_format(lo: float, hi: float, fmt: str) -> None:
    assert charts_nk.tick_format(lo, hi) == fmt


# ---------------------------------------------------------------------------------------------------- long names

SEEDS = ["bert-base-uncased_seed0", "bert-base-uncased_seed1", "bert-base-uncased_seed2"]
LLAMAS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-405B-Instruct"]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (SEEDS, ["seed0", "seed1", "seed2"]),
        (LLAMAS, ["8B", "70B", "405B"]),
        (["n=1", "n=3", "n=5", "n=7"], ["n=1", "n=3", "n=5", "n=7"]),  # short: unchanged
        (["only-one-very-long-config-name"], ["only-one-very-long-config-name"]),
        (["run_a_final_long_suffix", "run_b_final_long_suffix"], ["a", "b"]),
        (["team/model-v1.2-large", "team/model-v1.3-large"], ["v1.2", "v1.3"]),  # "." is not a separator
        (["x" * 20, "y" * 20], ["x" * 20, "y" * 20]),  # nothing shared
        (["prefix/a-long-name", "prefix/a-long-name-2"], ["name", "name-2"]),
    ],
)
def test_distinguishing_names(names: list[str], expected: list[str]) -> None:
    assert distinguishing_names(names) == expected


@pytest.mark.parametrize("names", [SEEDS, LLAMAS, ["a-b-c-d-e-f-g", "a-b-c-x-e-f-g", "a-b-c-d-e-f-g-h"]])
def test_distinguishing_names_cut_the_same_head_and_tail_from_every_name(names: list[str]) -> None:
    short = distinguishing_names(names)
    assert len(set(short)) == len(set(names))
    heads = {n[: n.find(s)] for n, s in zip(names, short, strict=True)}
    assert all(s in n for n, s in zip(names, short, strict=True))
    assert len(heads) == 1  # one shared head, cut at a separator
    head = heads.pop()
    assert head == "" or head[-1] in "-_/:|@, "


def test_accuracy_chart_labels_long_names_by_their_distinguishing_part_and_keeps_the_full_name() -> None:
    acc = pd.DataFrame(
        {"config": SEEDS, "accuracy": [0.7, 0.72, 0.75], "ci_low": [0.6, 0.62, 0.66], "ci_high": [0.8, 0.81, 0.83]}
    )
    chart = charts_paired.accuracy_chart(acc, "95%")
    spec = chart.to_dict()
    y = spec["layer"][0]["encoding"]["y"]
    assert y["axis"]["labelLimit"] >= 200 and "bert-base-uncased_…" in y["title"]
    tooltip = spec["layer"][1]["encoding"]["tooltip"]
    assert tooltip[0]["field"] == "config"  # the full name on hover
    labels = _axis_labels(_svg(chart, width=400), "Y-axis")
    assert labels == ["seed0", "seed1", "seed2"]  # whole, no "bert-base-uncas…"


def test_pair_labels_and_the_difference_chart() -> None:
    pairs = [f"{a} → {b}" for a, b in itertools.pairwise(LLAMAS)]
    assert charts_paired.pair_labels(pairs) == ["8B → 70B", "70B → 405B"]
    diffs = pd.DataFrame(
        [
            {"pair": p, "interval": kind, "diff": 0.02, "low": -0.01, "high": 0.05}
            for p in pairs
            for kind in charts_paired.INTERVAL_COLORS
        ]
    )
    chart = charts_paired.difference_chart(diffs)
    svg = _svg(chart, width=400)
    assert _axis_labels(svg, "Y-axis") == ["8B → 70B", "70B → 405B"]
    ticks = _axis_labels(svg, "X-axis")
    assert "0" in ticks and "+0" not in ticks and all(t == "0" or t[0] in "+−-" for t in ticks), ticks
    assert {t["field"] for t in chart.to_dict()["layer"][0]["encoding"]["tooltip"]} >= {"pair"}


def test_data_and_cost_charts_shorten_names() -> None:
    class Score:
        def __init__(self, config: str) -> None:
            self.config, self.accuracy, self.n_cases, self.n_correct = config, 0.5, 10, 5

    svg = _svg(charts_data.config_accuracy_bars([Score(n) for n in LLAMAS]), width=400)
    assert _axis_labels(svg, "Y-axis") == ["8B", "70B", "405B"]
    table = pd.DataFrame(
        {"label": SEEDS, "accuracy": [0.7, 0.72, 0.75], "cost_per_1k": [1.0, 2.0, 3.0], "p95": [1.0, 2.0, 9.0],
         "p50": [0.5, 1.0, 2.0], "p99": [2.0, 3.0, 12.0], "calls": [1.0, 2.0, 3.0]}
    )  # fmt: skip
    svg = _svg(charts_voting.cost_accuracy_chart(table, 8.0), width=500)
    assert all(f">{s}<" in svg for s in ("seed0", "seed1", "seed2")) and ">bert-base-uncased_seed0<" not in svg
    svg = _svg(charts_voting.latency_bars_chart(table, 8.0), width=500)
    assert _axis_labels(svg, "Y-axis") == ["seed0", "seed1", "seed2"]


# ---------------------------------------------------------------------------------------------------- every chart


def _every_chart() -> list[alt.TopLevelMixin]:
    cells = _cells()
    acc = pd.DataFrame({"config": ["n=1", "n=3"], "accuracy": [0.7, 0.8], "ci_low": [0.6, 0.7], "ci_high": [0.8, 0.9]})
    diffs = pd.DataFrame(
        [
            {"pair": "n=1 → n=3", "interval": k, "diff": 0.1, "low": 0.0, "high": 0.2}
            for k in charts_paired.INTERVAL_COLORS
        ]
    )
    curve = pd.DataFrame(
        [{"cases": c, "series": s, "diff": 1 / c**0.5} for c in (10, 100, 1000) for s in charts_paired.CURVE_COLORS]
    )
    measured = pd.DataFrame(
        {"n": [1, 3], "accuracy": [0.7, 0.78], "ci_low": [0.65, 0.74], "ci_high": [0.75, 0.82],
         "first_n_accuracy": [0.7, 0.77]}
    )  # fmt: skip
    models = pd.DataFrame({"n": [1, 3], "series": ["independent samples"] * 2, "accuracy": [0.7, 0.8]})
    table = pd.DataFrame(
        {"label": ["n=1", "n=3"], "accuracy": [0.7, 0.78], "cost_per_1k": [6.2, 18.6], "p95": [2.0, 6.1],
         "p50": [1.0, 2.0], "p99": [3.0, 9.0], "calls": [1.0, 3.0]}
    )  # fmt: skip

    class Label:
        label, count, share = "hateful", 3, 0.3

    return [
        charts_nk.heatmap(cells, "p", 1000, 1, None, "Accuracy: how repeatable is 'A beats B'"),
        charts_nk.gap_distributions(np.zeros(3), np.zeros(3), "Accuracy", "Score gap in simulated evaluations"),
        charts_paired.accuracy_chart(acc),
        charts_paired.difference_chart(diffs),
        charts_paired.resolution_chart(curve, 200, 0.05),
        charts_voting.vote_curve_chart(measured, models),
        charts_voting.cost_accuracy_chart(table, 6.5),
        charts_voting.latency_bars_chart(table, 6.5),
        charts_data.label_bars([Label()], "How often each label was given"),
        charts_data.k_histogram([(1, 10), (2, 30), (3, 5)], 2),
        charts_data.config_accuracy_bars([]),
        charts_data.latency_histogram(pd.Series([0.5, 1.0, 2.0])),
        charts_passk.passk_chart(
            pd.DataFrame(
                [
                    {"k": k, "series": s, "value": v, "ci_low": v - 0.05, "ci_high": v + 0.05, "n_cases": 40}
                    for k in (1, 2, 3)
                    for s, v in ((charts_passk.PASS_AT_K, 0.5 + 0.1 * k), (charts_passk.PASS_HAT_K, 0.5 - 0.1 * k))
                ]
            )
        ),
        charts_plane.nk_plane(
            cells,
            "p",
            [100, 1000],
            "Accuracy: items (N) x ratings per item (K)",
            chosen=(1000, 2),
            minimal=charts_plane.MinimalPoint(250, 125, 2),
        ),
    ]


def test_every_title_wraps_into_lines_that_fit_half_a_projector() -> None:
    for chart in _every_chart():
        title = _title(chart.to_dict())
        assert isinstance(title, dict) and title["text"], title
        assert all(len(line) <= charts.TITLE_CHARS for line in title["text"]), title
        assert all(len(line) <= charts.SUBTITLE_CHARS for line in title.get("subtitle", [])), title


def test_theme_fonts_are_readable_on_a_projector() -> None:
    spec = charts_paired.accuracy_chart(
        pd.DataFrame({"config": ["a"], "accuracy": [0.5], "ci_low": [0.4], "ci_high": [0.6]})
    ).to_dict()
    cfg = spec["config"]
    assert cfg["axis"]["labelFontSize"] >= 12 and cfg["legend"]["labelFontSize"] >= 12
    assert cfg["axis"]["titleFontSize"] >= 14 and cfg["legend"]["titleFontSize"] >= 14
    assert cfg["title"]["fontSize"] >= 14 and cfg["title"]["subtitleFontSize"] >= 12


def test_every_chart_renders() -> None:
    for chart in _every_chart():
        assert "<svg" in _svg(chart, width=358)


# ---------------------------------------------------------------------------------------------------- what draw sends


def _records(raw: bytes) -> list[dict[str, Any]]:
    import pyarrow as pa

    records: list[dict[str, Any]] = pa.ipc.open_stream(raw).read_pandas().to_dict(orient="records")
    return records


@pytest.mark.parametrize("index", range(len(_every_chart())))
def test_spec_is_altairs_validated_spec_with_the_data_as_named_arrow_datasets(index: int) -> None:
    """Oracle: Altair's own ``to_dict()`` (validated against the Vega-Lite schema, data inlined as JSON rows). The
    spec that ``charts.draw`` sends is the same once each Arrow dataset is read back and its name mapped to
    Altair's: no mark, encoding, title or theme setting lost by skipping validation, no row lost or changed."""
    chart = _every_chart()[index]
    ref = chart.to_dict()
    fast = charts.spec(chart)
    assert chart.to_dict() == ref, "the chart's frames are put back"
    assert all(isinstance(v, bytes) for v in fast["datasets"].values())  # Arrow, as st.altair_chart sends it
    rows = {name: _records(raw) for name, raw in fast["datasets"].items()}
    rename = {}
    for name, records in rows.items():
        same = [n for n, values in ref["datasets"].items() if values == records]
        assert same, f"dataset {name} matches none of Altair's"
        rename[name] = same[0]
    text = json.dumps({k: v for k, v in fast.items() if k != "datasets"}, sort_keys=True)
    for name, new in rename.items():
        text = text.replace(f'"{name}"', f'"{new}"')
    assert json.loads(text) == {k: v for k, v in ref.items() if k != "datasets"}
    assert set(rename.values()) == set(ref["datasets"])


def test_draw_sends_the_spec_with_the_theme_and_its_data() -> None:
    from streamlit.testing.v1 import AppTest

    def app() -> None:
        import pandas as pd

        from ui import charts

        df = pd.DataFrame(
            {"config": ["n=1", "n=3"], "accuracy": [0.7, 0.8], "ci_low": [0.6, 0.7], "ci_high": [0.8, 0.9]}
        )
        charts.draw(charts.interval_dots(df, "config", "accuracy", "ci_low", "ci_high", value_title="accuracy"))

    at = AppTest.from_function(app).run()
    assert not at.exception, [e.value for e in at.exception]
    (chart,) = at.get("vega_lite_chart")
    spec = json.loads(chart.proto.spec)
    assert spec["config"]["font"] == charts.FONT and spec["padding"] == charts.PADDING
    assert len(chart.proto.datasets) == 1
    assert [r["config"] for r in _records(chart.proto.datasets[0].data.data)] == ["n=1", "n=3"]


def test_draw_with_a_selection_returns_the_selection_state() -> None:
    from streamlit.testing.v1 import AppTest

    def app() -> None:
        import streamlit as st

        from tests.test_charts import _cells
        from ui import charts
        from ui.charts import nk as charts_nk

        chart = charts_nk.heatmap(_cells(), "p", 1000, 2, None, "Accuracy: how repeatable")
        state = charts.draw(chart, key="heat", on_select="rerun", selection_mode=charts_nk.CELL_SELECTION)
        st.write(sorted(state["selection"]))

    at = AppTest.from_function(app).run()
    assert not at.exception, [e.value for e in at.exception]
    (chart,) = at.get("vega_lite_chart")
    assert list(chart.proto.selection_mode) == [charts_nk.CELL_SELECTION]
    assert charts_nk.CELL_SELECTION in at.session_state["heat"]["selection"]


def test_vote_curve_legend_is_above_and_every_point_inside_the_axis() -> None:
    """Issue 51: the first-n diamonds below the axis minimum were clipped onto the axis, and the six-series legend
    sat under the chart, below the fold at 1024 px. The y domain now spans every plotted value (band, exact and
    first-n points, model lines) and the legend is above the plot."""
    measured = pd.DataFrame(
        {"n": [1, 3], "accuracy": [0.71, 0.80], "ci_low": [0.66, 0.75], "ci_high": [0.77, 0.85],
         "first_n_accuracy": [0.571, 0.90]}
    )  # fmt: skip
    models = pd.DataFrame({"n": [1, 3], "series": ["independent samples"] * 2, "accuracy": [0.71, 0.95]})
    spec = charts_voting.vote_curve_chart(measured, models).to_dict()
    low, high = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    values = [*measured[["accuracy", "ci_low", "ci_high", "first_n_accuracy"]].to_numpy().ravel(), *models["accuracy"]]
    assert low <= min(values) and high >= max(values) and 0.0 <= low and high <= 1.0
    legends = [layer["encoding"]["color"].get("legend") for layer in spec["layer"] if "color" in layer["encoding"]]
    assert legends and all(leg["orient"] == "top" for leg in legends if leg)
