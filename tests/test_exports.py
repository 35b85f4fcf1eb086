"""Exports carry their context (nkcore.io.export, and the pure parts of ui.common.exports): plain names, rounding with
the raw values kept, "never" for infinity, file names that survive hostile dataset names, the summary's datasets and
parameters, p-value bounds, and chart titles that still render."""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from html.parser import HTMLParser

import altair as alt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nkcore.io.export import (
    GRID_NAMES,
    NEVER,
    PLAIN_NAMES,
    DatasetRef,
    ExportContext,
    applicable_params,
    export_file_name,
    p_text,
    plain_name,
    readable_table,
    round_for_reading,
    slug,
    titled_spec,
)
from ui.common.exports import readable_csv, summary_html

DAY = dt.date(2026, 12, 1)
SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9._+-]*\.[a-z0-9]+")


# ------------------------------------------------------------------ rounding
@given(st.floats(min_value=1e-9, max_value=99.9, allow_nan=False) | st.floats(min_value=-99.9, max_value=-1e-9))
def test_rounding_below_100_is_three_significant_digits(x: float) -> None:
    assert round_for_reading(x) == pytest.approx(float(f"{x:.3g}"), rel=1e-12, abs=1e-15)


@given(st.floats(min_value=100, max_value=1e12))
def test_rounding_from_100_keeps_the_whole_part(x: float) -> None:
    assert round_for_reading(x) == round(x)
    assert round_for_reading(-x) == round(-x)


def test_rounding_leaves_zero_nan_and_infinity() -> None:
    assert round_for_reading(0.0) == 0.0 and math.isnan(round_for_reading(float("nan")))
    assert round_for_reading(float("inf")) == float("inf")
    assert (round_for_reading(0.0336), round_for_reading(7.000000000000001), round_for_reading(2480.4)) == (
        0.0336,
        7.0,
        2480.0,
    )


# ------------------------------------------------------------------ readable tables
def _grid() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "budget": [1000, 1000],
            "k": [5, 10],
            "n": [200, 100],
            "metric": ["acc", "tv"],
            "p": [0.012345, 0.5],
            "delta": [0.0712345, 0.0],
            "ci_width": [0.1, float("nan")],
            "rounds": [500, 500],
        }
    )


def test_grid_columns_get_their_plain_names() -> None:
    out = readable_table(_grid())
    assert list(out.columns[:8]) == [
        "budget (N x K ratings)",
        "ratings per item K",
        "items N",
        "metric",
        "p-value",
        "effect size (mean gap)",
        "95% interval width",
        "repeated evaluations per side",
    ]
    assert list(out.columns[8:]) == ["p-value (raw)", "effect size (mean gap) (raw)", "95% interval width (raw)"]


def test_n_is_items_only_in_an_n_by_k_grid() -> None:
    assert readable_table(pd.DataFrame({"n": [1, 3], "accuracy": [0.7, 0.8]})).columns[0] == "samples per request n"
    assert plain_name("n", ["budget", "k", "n"]) == GRID_NAMES["n"] == "items N"
    assert plain_name("k") == "k"  # outside a grid, k is nobody's word: kept
    assert plain_name("an uploaded column") == "an uploaded column"


def test_every_plain_name_is_words_not_a_code() -> None:
    for code, name in {**PLAIN_NAMES, **GRID_NAMES}.items():
        assert "_" not in name, (code, name)
        assert name != code or code in ("metric", "accuracy"), code


def test_floats_are_rounded_and_the_raw_values_kept() -> None:
    df = _grid()
    out = readable_table(df)
    assert out["p-value"].tolist() == [0.0123, 0.5]
    assert out["p-value (raw)"].tolist() == df["p"].tolist()
    assert out["effect size (mean gap)"].tolist() == [0.0712, 0.0]
    assert out["items N"].tolist() == [200, 100] and out["metric"].tolist() == ["acc", "tv"]  # ints, text unchanged
    text = readable_csv(df).decode("utf-8")
    first = next(csv_line for csv_line in text.splitlines()[1:])
    assert first == "1000,5,200,acc,0.0123,0.0712,0.1,500,0.012345,0.0712345,0.1"
    assert text.splitlines()[2].split(",")[6] == ""  # NaN: an empty cell


def test_infinity_is_never_in_both_columns_and_nowhere_inf() -> None:
    df = pd.DataFrame({"calls_per_extra_correct": [28.571428, math.inf, np.nan], "label": ["n=1", "n=3", "n=5"]})
    out = readable_table(df)
    assert out["calls per extra correct"].tolist()[:2] == [28.6, NEVER]
    assert out["calls per extra correct (raw)"].tolist()[:2] == [28.571428, NEVER]
    text = readable_csv(df).decode("utf-8")
    assert "inf" not in text.lower() and text.count("never") == 2
    back = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert back["calls per extra correct"].tolist() == ["28.6", "never", ""]


def test_infinity_in_a_text_column_is_never_too() -> None:
    out = readable_table(pd.DataFrame({"minimal budget": [1000, math.inf, "n/a"]}, dtype=object))
    assert out["minimal budget"].tolist() == [1000, NEVER, "n/a"]


def test_plain_names_that_collide_keep_their_codes() -> None:
    out = readable_table(pd.DataFrame({"low": [0.1], "ci_low": [0.2]}))
    assert list(out.columns[:2]) == ["interval from (low)", "interval from (ci_low)"]


def test_formula_text_is_still_defused_in_a_readable_csv() -> None:
    text = readable_csv(pd.DataFrame({"label": ["=cmd|' /C calc'!A0", "@SUM(A1)"], "p": [0.1, 0.2]})).decode()
    assert "'=cmd|" in text and "'@SUM(A1)" in text


# ------------------------------------------------------------------ file names
CTX = ExportContext("Compare", (DatasetRef("Sample: worked example (n = 1, 3, 5, 7)", "ab" * 32, "paired"),))


def test_file_name_says_page_dataset_and_date() -> None:
    name = export_file_name(CTX, "paired_tests", "csv", DAY)
    assert name == "nk-planner_compare_sample-worked-example-n-1-3-5-7_2026-12-01_paired-tests.csv"


def test_file_name_without_a_dataset_and_the_home_page() -> None:
    assert export_file_name(ExportContext("Planner"), "curve", "png", DAY) == "nk-planner_planner_2026-12-01_curve.png"
    home = ExportContext("NK Planner", tuple(DatasetRef(f"set {i}", str(i), "paired") for i in range(4)))
    assert (
        export_file_name(home, "in use", "csv", DAY) == "nk-planner_home_set-0+set-1+and-2-more_2026-12-01_in-use.csv"
    )


@pytest.mark.parametrize(
    "hostile",
    [
        "../../../etc/passwd",
        "..\\..\\Windows\\system32\\cmd.exe",
        "CON",
        "a\x00b\nc\rd\te",
        '"quotes" and <tags> | * ? :',
        "☃ émoji 🎉 ünïcode",
        "x" * 5000,
        ".hidden",
        "...",
        "-rf",
    ],
)
def test_hostile_dataset_names_cannot_leave_the_file_name(hostile: str) -> None:
    ctx = ExportContext(hostile, (DatasetRef(hostile, "1", "paired"), DatasetRef(hostile + "2", "2", "ratings")))
    name = export_file_name(ctx, hostile, hostile, DAY)
    assert SAFE_NAME.fullmatch(name), name
    assert ".." not in name and "/" not in name and "\\" not in name and len(name) <= 160
    assert name.startswith("nk-planner_") and "_2026-12-01_" in name


@given(st.text(max_size=300), st.text(max_size=300), st.text(max_size=300))
def test_any_names_give_a_safe_bounded_file_name(page: str, dataset: str, name: str) -> None:
    out = export_file_name(ExportContext(page, (DatasetRef(dataset, "1", "samples"),)), name, "csv", DAY)
    assert SAFE_NAME.fullmatch(out) and ".." not in out and len(out) <= 160, out
    assert out.endswith(".csv") and "2026-12-01" in out


@given(st.text(max_size=200), st.integers(min_value=1, max_value=80))
def test_slug_is_safe_and_bounded(text: str, limit: int) -> None:
    s = slug(text, limit)
    assert len(s) <= limit and re.fullmatch(r"([a-z0-9]([a-z0-9.-]*[a-z0-9])?)?", s), s
    assert ".." not in s and ".-" not in s and "-." not in s


# ------------------------------------------------------------------ the context
def test_a_dataset_chosen_twice_is_listed_once_and_models_named() -> None:
    ref = DatasetRef("preds", "1", "predictions", ("model-a", "model-b"))
    ctx = ExportContext("Budget (N x K)").with_dataset(DatasetRef("ratings", "2", "ratings")).with_dataset(ref)
    ctx = ctx.with_dataset(ref)
    assert [d.id for d in ctx.datasets] == ["2", "1"]
    assert ctx.title_lines() == ("Budget (N x K): ratings, preds", "models: model-a, model-b")
    assert ExportContext().title_lines() == () and ExportContext("Planner").title_lines() == ("Planner",)


# ------------------------------------------------------------------ summary parameters and p-values
def test_only_parameters_that_apply_are_listed() -> None:
    params: dict[str, object] = {
        "eps": 0.1,
        "rounds": 500,
        "prior": None,
        "K": "",
        "nan": float("nan"),
        "none": [],
        "fit": True,
    }
    assert applicable_params(params) == {"eps": "0.1", "rounds": "500", "fit": "yes"}
    assert applicable_params(params, applies=lambda k, _v: k != "eps") == {"rounds": "500", "fit": "yes"}
    assert applicable_params(params, applies=("rounds", "prior")) == {"rounds": "500"}
    assert applicable_params({"x": 0.1 + 0.2, "y": [1, 2.5], "z": math.inf}) == {"x": "0.3", "y": "1, 2.5", "z": NEVER}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("p = < 0.001", "p < 0.001"),
        ("exact p = < 0.001, Holm p = 0.04", "exact p < 0.001, Holm p = 0.04"),
        ("mid-p=>0.5", "mid-p > 0.5"),
        ("p = 0.034", "p = 0.034"),
        ("step = < 3", "step = < 3"),  # not a p-value
    ],
)
def test_a_p_value_bound_never_reads_p_equals_less_than(text: str, want: str) -> None:
    assert p_text(text) == want


class _Parsed(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _summary(**kw: object) -> tuple[str, _Parsed]:
    ctx = ExportContext(
        "Compare",
        (DatasetRef('team <b>"evals"</b>', "c0ffee" * 10 + "abcd", "paired", ("n=1", "n=3")),),
    )
    numbers = [("n=1 → n=3", "p = < 0.001", "n=3 beats n=1 (p = < 0.001)"), ("cases", "200", "")]
    params = {"alpha": 0.05, "eps": None, "prior": "", "interval": "Wilson"}
    page = summary_html("Compare", params, numbers, [], context=ctx, **kw)  # type: ignore[arg-type]
    parsed = _Parsed()
    parsed.feed(page)
    return page, parsed


def test_summary_names_the_datasets_with_ids_and_configs() -> None:
    page, parsed = _summary()
    text = " ".join(parsed.text)
    assert 'team <b>"evals"</b>' in text and '<b>"evals"</b>' not in page  # shown as typed, never markup
    assert "c0ffee" * 10 + "abcd" in text and "n=1, n=3" in text


def test_summary_lists_no_none_and_reads_p_less_than() -> None:
    page, parsed = _summary()
    text = " ".join(parsed.text)
    assert "None" not in text and "eps" not in text and "prior" not in text
    assert "alpha" in text and "Wilson" in text
    assert "p = <" not in text and "p < 0.001" in text and "p = &lt;" not in page


def test_summary_applies_drops_the_parameters_that_do_not_apply() -> None:
    _, parsed = _summary(applies=["interval"])
    text = " ".join(parsed.text)
    assert "Wilson" in text and "alpha" not in text


def test_summary_link_wraps_and_is_escaped() -> None:
    link = "https://nk.example/Compare?cmp_a=" + "n%3D1" * 80 + '&x="><script>alert(1)</script>'
    ctx = ExportContext("Compare")
    page = summary_html("Compare", {}, [], [], link=link, context=ctx)
    parsed = _Parsed()
    parsed.feed(page)
    anchors = [a for t, a in parsed.tags if t == "a"]
    assert [a["href"] for a in anchors] == [link]  # the attribute decodes to the link exactly: nothing escaped out
    assert "<script>" not in page and "script" not in {t for t, _ in parsed.tags}
    style = "".join(parsed.text[i] for i, _ in enumerate(parsed.text) if "overflow-wrap" in parsed.text[i])
    assert re.search(r"(^|[},])[^{}]*\ba\b[^{}]*\{[^}]*overflow-wrap:anywhere", style), style


# ------------------------------------------------------------------ chart titles
def _layered() -> alt.TopLevelMixin:
    data = pd.DataFrame({"x": [1, 2, 3], "y": [0.2, 0.5, 0.4]})
    line = alt.Chart(data, title="Accuracy against n").mark_line().encode(x="x:Q", y="y:Q")
    return alt.layer(line, line.mark_point())


def test_titled_spec_keeps_the_title_and_adds_context_and_explanation() -> None:
    spec = titled_spec(_layered().to_dict(), ["Sampling: team evals", "configs: a, b"], "Line: measured; dots: n.")
    assert spec["title"]["text"] == ["Accuracy against n"]
    assert spec["title"]["subtitle"] == ["Sampling: team evals", "configs: a, b", "Line: measured; dots: n."]
    assert not any("title" in layer for layer in spec["layer"])  # moved up, not drawn twice


def test_titled_spec_does_not_repeat_what_the_title_says_and_cuts_long_lines() -> None:
    title = {"text": "Compare: team evals", "subtitle": "old", "anchor": "start"}
    spec: dict[str, object] = {"mark": "point", "title": title}
    out = titled_spec(spec, ["Compare: team evals", "configs: " + "x" * 500])
    assert out["title"]["text"] == ["Compare: team evals"] and out["title"]["anchor"] == "start"
    assert out["title"]["subtitle"][1] == "old" and len(out["title"]["subtitle"][0]) == 110
    assert title["subtitle"] == "old"  # the input is not changed


def test_a_titled_chart_still_renders_with_its_context() -> None:
    from ui.common.exports import chart_png, chart_svg

    chart = _layered()
    svg = chart_svg(chart, context=["Sampling: team evals", "configs: a, b"], explains="Line: measured accuracy.")
    for words in ("Accuracy against n", "Sampling: team evals", "configs: a, b", "Line: measured accuracy."):
        assert words in svg, words
    png = chart_png(chart, scale=1.0, context=["Sampling: team evals"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    plain = chart_png(chart, scale=1.0)
    assert len(png) != len(plain)  # the title block changed the image
