"""AppTests of the rater sections (``ui.data.raters``, ``ui.budget.crossed``) in tiny scripts, outside any page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore.summary.raters import raters_frame
from tests.app.conftest import RunPage, clear_streamlit_caches, error_texts, plain, rendered_markdown
from tests.conftest import ROOT

RATERS_SCRIPT = """
from ui.common import datasets
from ui.data.raters import raters_section

raters_section(datasets.load_dataset("ratings", None))
"""

CROSSED_SCRIPT = """
from ui.common import datasets
from ui.budget.crossed import crossed_section

crossed_section(
    datasets.load_dataset("ratings", None),
    datasets.load_dataset("predictions", None),
    ("model-a", "model-b"),
    budgets=(500,),
    ks=(1, 5),
)
"""

FILE_SCRIPT = """
import pandas as pd
from nkcore import io
from ui.common.datasets import Dataset
from ui.budget.crossed import crossed_section
from ui.data.raters import raters_section

def ds(path, kind):
    frame = pd.read_csv(path)
    fp = io.fingerprint(frame)
    return Dataset(id=fp, name=kind, kind=kind, fingerprint=fp, frame=frame, builtin=False)

r, p = ds({ratings!r}, "ratings"), ds({predictions!r}, "predictions")
raters_section(r)
crossed_section(r, p, ("good", "poor"), budgets=(300,), ks=(1, 3))
"""


def _run(script: str) -> AppTest:
    clear_streamlit_caches()
    return AppTest.from_string(script, default_timeout=180).run()


def test_raters_section_on_the_sample() -> None:
    at = _run(RATERS_SCRIPT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    assert at.subheader[0].value == "Who rated: ratings per rater and agreement"
    frame = pd.read_csv(ROOT / "sample_data" / "ratings.csv")
    per = frame.groupby("rater").size()
    sentence = plain(at.markdown[0].value)
    assert sentence.startswith(
        f"{per.size} raters gave {len(frame):,} ratings ({per.min()} to {per.max()} each, median {per.median():g})"
    )
    top, everyone = at.dataframe[0].value, at.dataframe[1].value
    assert len(top) == 10 and len(everyone) == per.size
    assert list(top.columns) == [
        "rater",
        "ratings",
        "agrees with the others",
        "alpha without this rater",
        "change in alpha",
    ]
    changes = top["change in alpha"].abs().tolist()
    assert changes == sorted(changes, reverse=True)
    assert dict(zip(everyone["rater"], everyone["ratings"], strict=True)) == per.to_dict()
    # every rater of the sample moves alpha by less than 0.01 when left out: the sentence says nobody stands out
    assert top["change in alpha"].abs().max() < 0.01
    assert "No single rater moves agreement much" in sentence


def test_crossed_section_runs_only_when_switched_on() -> None:
    at = _run(CROSSED_SCRIPT)
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value == "Who rated: does counting the raters change the answer?"
    assert len(at.dataframe) == 0  # nothing computed until asked; labels are not ordered numbers
    at.toggle(key="bud_raters").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    table = at.dataframe[0].value
    assert table["ratings per item (K)"].tolist() == [1, 5] and table["items (N)"].tolist() == [500, 100]
    np.testing.assert_allclose(table["width ratio"], table["CI-width, raters too"] / table["CI-width, items only"])
    assert plain(at.markdown[0].value).startswith("**Counting who gave the ratings")


def test_a_link_with_the_switch_on_computes_at_once() -> None:
    clear_streamlit_caches()
    at = AppTest.from_string(CROSSED_SCRIPT, default_timeout=180)
    at.query_params["bud_raters"] = "true"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.toggle(key="bud_raters").value is True
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 2


def _likert_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    n, raters = 300, 30
    mu = rng.uniform(1.5, 4.5, n)
    rows = []
    for i in range(n):
        for r in rng.choice(raters, 5, replace=False):
            rows.append({"item": i, "rater": f"r{r}", "label": int(np.clip(np.rint(mu[i] + rng.normal(0, 1)), 1, 5))})
    ratings = pd.DataFrame(rows)
    preds = pd.DataFrame(
        [{"item": i, "model": "good", "pred_label": int(np.clip(np.rint(mu[i]), 1, 5))} for i in range(n)]
        + [{"item": i, "model": "poor", "pred_label": 3} for i in range(n)]
    )
    rp, pp = tmp_path / "ratings.csv", tmp_path / "predictions.csv"
    ratings.to_csv(rp, index=False)
    preds.to_csv(pp, index=False)
    return rp, pp


@pytest.mark.slow
def test_ordinal_part_on_likert_ratings(tmp_path: Path) -> None:
    rp, pp = _likert_files(tmp_path)
    at = _run(FILE_SCRIPT.format(ratings=str(rp), predictions=str(pp)))
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    texts = [plain(m.value) for m in at.markdown]
    assert "**Ordered labels**" in texts
    verdict = texts[texts.index("**Ordered labels**") + 1]
    assert verdict.startswith("With 1,000 items (N), 1 rating per item (K) is already enough")
    scores = at.dataframe[-1].value
    assert scores["model"].tolist() == ["good", "poor"]
    assert scores["MAE of the item mean"].iloc[0] < scores["MAE of the item mean"].iloc[1]


# --- the Data page: per-rater section, ordered labels, bins, link ----------------------------------------------------

DATA_PAGE = "pages/1_Data.py"


def _upload_and_store(run_page: RunPage, name: str, frame: pd.DataFrame, query: dict | None = None) -> AppTest:
    at = run_page(DATA_PAGE, query=query)
    at.file_uploader(key="dat_upload").set_value((name, frame.to_csv(index=False).encode(), "text/csv"))
    at = at.run()
    assert not at.exception and not error_texts(at), error_texts(at)
    at = at.button(key="dat_save").click().run()
    assert not at.exception and not error_texts(at), error_texts(at)
    return at


def _ratings_id(at: AppTest) -> str:
    value = at.query_params["ratings"]
    return value[0] if isinstance(value, list) else value


def _table_with(at: AppTest, column: str) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe if column in d.value.columns]


def _crowd(seed: int = 1, n_items: int = 120, bad: str = "r0") -> pd.DataFrame:
    """12 raters, 5 per item; the raters agree on the item's label except ``bad``, who always says 'c'."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = "ab"[i % 2]
        for r in rng.choice(12, 5, replace=False):
            rater = f"r{r}"
            label = "c" if rater == bad else (truth if rng.random() < 0.85 else "ab"[1 - i % 2])
            rows.append({"item_id": f"t{i}", "annotator_id": rater, "label": label})
    return pd.DataFrame(rows)


def test_data_page_shows_the_per_rater_section_with_nkcore_numbers(run_page: RunPage) -> None:
    crowd = _crowd()
    at = _upload_and_store(run_page, "crowd.csv", crowd)
    assert "Who rated: ratings per rater and agreement" in [s.value for s in at.subheader]
    canonical = crowd.rename(columns={"item_id": "item", "annotator_id": "rater"})
    expected = raters_frame(canonical)
    everyone = _table_with(at, "agrees with the others")[-1]
    assert len(everyone) == 12
    per = canonical.groupby("rater").size()  # counted here, independently of nkcore
    assert dict(zip(everyone["rater"], everyone["ratings"], strict=True)) == per.to_dict()
    by_rater = {r.rater: r for r in expected.raters}
    for _, row in everyone.iterrows():
        want = by_rater[row["rater"]]
        assert row["agrees with the others"] == pytest.approx(100 * want.agreement)
        assert row["alpha without this rater"] == pytest.approx(want.alpha_without)
    # the planted rater who always says 'c' agrees with nobody, and moves alpha the most when left out
    assert by_rater["r0"].agreement == 0.0
    top = _table_with(at, "change in alpha")[0]
    assert top["rater"].iloc[0] == "r0" and top["change in alpha"].iloc[0] > 0
    captions = [plain(c.value) for c in at.caption]
    assert any(
        c.startswith(f"Least in line with the others: rater 'r0' ({per['r0']} ratings) agrees with the rest on 0.0%")
        for c in captions
    ), captions
    assert plain(expected.sentence) in [plain(m.value) for m in at.markdown]
    # categorical labels: no ordered-scale part
    assert "Ordered labels" not in [s.value for s in at.subheader]


def test_label_counts_say_in_one_line_why_there_is_no_per_rater_view(run_page: RunPage) -> None:
    counts = pd.DataFrame({"item": [f"i{i}" for i in range(20)], "count_x": [3, 1] * 10, "count_y": [1, 3] * 10})
    at = _upload_and_store(run_page, "counts.csv", counts)
    assert "Who rated: ratings per rater and agreement" in [s.value for s in at.subheader]
    infos = [plain(i.value) for i in at.info]
    assert any("label counts without rater ids" in i for i in infos), infos
    assert not _table_with(at, "agrees with the others")


def _likert(scale: tuple[int, ...], n_items: int = 60, k: int = 4, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        {"item_id": f"q{i}", "annotator_id": f"a{(i + j) % 9}", "label": int(rng.choice(scale))}
        for i in range(n_items)
        for j in range(k + (i % 3 == 0))
    ]
    return pd.DataFrame(rows)


def test_a_1_to_5_scale_is_read_as_ordered_with_its_item_means(run_page: RunPage) -> None:
    frame = _likert((1, 2, 3, 4, 5))
    at = _upload_and_store(run_page, "likert.csv", frame)
    texts = [plain(m.value) for m in at.markdown]
    assert "Ordered labels" in [s.value for s in at.subheader]
    assert any(t.startswith("Labels 1-5 are numbers, so they are read as an ordered scale: a 4 is") for t in texts)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "MAE of the item mean" in captions and "Wasserstein-1" in captions and "Spearman" in captions
    means = frame.groupby("item_id")["label"].mean()  # the oracle: pandas, on the file as uploaded
    q = means.quantile([0.1, 0.5, 0.9])
    assert (
        f"{len(means)} items (N): the median item's mean rating is {q[0.5]:.2f}; 80% of items lie between "
        f"{q[0.1]:.2f} and {q[0.9]:.2f}."
    ) in captions
    assert any("Mean rating of each item" in c.proto.spec for c in at.get("vega_lite_chart"))
    # items kept by ratings per item (K): the item means follow the slider
    at = at.slider(key="dat_min_k").set_value(5).run()
    kept = frame.groupby("item_id")["label"].agg(["mean", "size"]).query("size >= 5")["mean"]
    assert f"{len(kept)} items (N): the median item's mean rating is {kept.median():.2f}" in " ".join(
        plain(c.value) for c in at.caption
    )
    # numbers that are codes for categories: the reader turns the scale off, and the link keeps it
    at = at.toggle(key="dat_ordered").set_value(False).run()
    assert not at.exception
    assert any("codes for categories" in plain(c.value) for c in at.caption)
    assert not any("Mean rating of each item" in c.proto.spec for c in at.get("vega_lite_chart"))
    # the link carries both controls: a fresh session with ?dat_min_k=5&dat_ordered=false shows the same view
    fresh = run_page(DATA_PAGE, query={"ratings": _ratings_id(at), "dat_min_k": "5", "dat_ordered": "false"})
    assert not fresh.exception and not error_texts(fresh)
    assert fresh.slider(key="dat_min_k").value == 5 and fresh.toggle(key="dat_ordered").value is False
    assert {plain(m.label): plain(m.value) for m in fresh.metric}["items (N)"] == str(len(kept))
    assert any("codes for categories" in plain(c.value) for c in fresh.caption)


def test_a_wide_scale_is_binned_with_the_bins_stated_and_the_link_keeps_them(run_page: RunPage) -> None:
    frame = _likert(tuple(range(-50, 51, 5)))  # 21 values: more than 11, so binned
    at = _upload_and_store(run_page, "slider.csv", frame)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "Labels -50 to 50 are numbers, so they are read as an ordered scale: 21 different values" in text
    assert "5 equal bins, each named by its midpoint: -40 = [-50, -30); -20 = [-30, -10); 0 = [-10, 10); " in text
    assert "40 = [30, 50]" in text
    metrics = {plain(m.label): plain(m.value) for m in at.metric}
    assert metrics["labels"] == "5"  # the summary counts the bins, not the 21 values
    at = at.slider(key="dat_bins").set_value(4).run()
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "4 equal bins, each named by its midpoint: -37.5 = [-50, -25); -12.5 = [-25, 0); " in text
    assert {plain(m.label): plain(m.value) for m in at.metric}["labels"] == "4"
    # the link: a fresh session opened with ?ratings=<id>&dat_bins=4 shows the same view
    ds_id = _ratings_id(at)
    fresh = run_page(DATA_PAGE, query={"ratings": ds_id, "dat_view": "ratings", "dat_bins": "4"})
    assert not fresh.exception and not error_texts(fresh)
    assert fresh.slider(key="dat_bins").value == 4
    assert "4 equal bins" in " ".join(plain(m.value) for m in fresh.markdown)
    # bins checked independently: the chart's share of ratings in each bin, counted here from the file
    bars = [c for c in fresh.get("vega_lite_chart") if "How often each label was given" in c.proto.spec]
    shown = _chart_data(bars[0]).set_index("label")["share"]
    edges = [-50, -25, 0, 25, 50.5]
    counted = pd.cut(frame["label"], edges, right=False, labels=["-37.5", "-12.5", "12.5", "37.5"])
    expected_shares = counted.value_counts(normalize=True)
    for name, share in expected_shares.items():
        assert shown[name] == pytest.approx(share)


def _chart_data(chart: object) -> pd.DataFrame:
    """The first data set of a drawn Altair chart (Streamlit sends it as Arrow beside the spec)."""
    import pyarrow as pa

    proto = chart.proto  # type: ignore[attr-defined]
    return pa.ipc.open_stream(proto.datasets[0].data.data).read_all().to_pandas()


def test_a_scale_with_more_values_than_the_label_limit_is_binned_on_upload(run_page: RunPage) -> None:
    rng = np.random.default_rng(5)
    frame = _likert((1, 2, 3), n_items=80)
    frame["label"] = np.round(rng.uniform(-50, 50, len(frame)), 1)
    frame.loc[0, "label"], frame.loc[1, "label"] = -50.0, 50.0  # the scale's ends: whole-number bin edges
    assert frame["label"].nunique() > 100  # over the server's default label limit (NKP_MAX_LABELS)
    at = run_page(DATA_PAGE)
    at.file_uploader(key="dat_upload").set_value(("slider.csv", frame.to_csv(index=False).encode(), "text/csv"))
    at = at.run()
    assert not at.exception and not error_texts(at), error_texts(at)
    said = " ".join(plain(c.value) for c in at.caption)
    assert f"numbers with {frame['label'].nunique():,} different values, more than the 100 labels" in said
    assert "5 equal bins, each named by its midpoint: -40 = [-50, -30); -20 = [-30, -10); 0 = [-10, 10)" in said
    at = at.button(key="dat_save").click().run()
    assert not at.exception and not error_texts(at), error_texts(at)
    assert {plain(m.label): plain(m.value) for m in at.metric}["labels"] == "5"
    bars = [c for c in at.get("vega_lite_chart") if "How often each label was given" in c.proto.spec]
    shown = _chart_data(bars[-1]).set_index("label")["share"]
    counted = pd.cut(
        frame["label"], [-50, -30, -10, 10, 30, 50.01], right=False, labels=["-40", "-20", "0", "20", "40"]
    )
    for name, share in counted.value_counts(normalize=True).items():
        assert shown[name] == pytest.approx(share)


def test_rater_ids_from_the_file_are_shown_literally(run_page: RunPage) -> None:
    crowd = _crowd(bad="r0")
    crowd["annotator_id"] = crowd["annotator_id"].replace({"r0": "[x](http://e.org)", "r1": "**b**"})
    at = _upload_and_store(run_page, "crowd.csv", crowd)
    texts = rendered_markdown(at)
    assert not any("](http" in t or "**b**" in t for t in texts)
    captions = [plain(c.value) for c in at.caption]
    assert any(c.startswith("Least in line with the others: rater '[x](http://e.org)'") for c in captions), captions


def test_label_counts_on_a_1_to_5_scale_get_the_ordered_part_without_raters(run_page: RunPage) -> None:
    rng = np.random.default_rng(0)
    c = rng.integers(0, 5, size=(40, 5))
    c[:, 0] += 1  # every item has a rating
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(40)], **{f"count_{v}": c[:, v - 1] for v in range(1, 6)}})
    at = _upload_and_store(run_page, "counts.csv", frame)
    assert any(plain(m.value).startswith("Labels 1-5 are numbers, so they are read") for m in at.markdown)
    means = (c @ np.arange(1, 6)) / c.sum(axis=1)  # the oracle: numpy on the counts
    q = np.quantile(means, [0.1, 0.5, 0.9])
    assert (
        f"40 items (N): the median item's mean rating is {q[1]:.2f}; 80% of items lie between {q[0]:.2f} and "
        f"{q[2]:.2f}."
    ) in [plain(x.value) for x in at.caption]
    assert any("label counts without rater ids" in plain(i.value) for i in at.info)
