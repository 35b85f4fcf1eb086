"""AppTests of the rater sections (``ui.raters_section``, ``ui.crossed_section``) in tiny scripts, outside any page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import clear_streamlit_caches, error_texts, plain
from tests.conftest import ROOT

RATERS_SCRIPT = """
from ui import datasets
from ui.raters_section import raters_section

raters_section(datasets.load_dataset("ratings", None))
"""

CROSSED_SCRIPT = """
from ui import datasets
from ui.crossed_section import crossed_section

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
from ui.datasets import Dataset
from ui.crossed_section import crossed_section
from ui.raters_section import raters_section

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
    assert "No single rater stands out" in sentence


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
