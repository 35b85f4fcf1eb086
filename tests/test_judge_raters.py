"""Several judges as raters: agreement, error correlation and effective judges against numpy computed directly;
Dawid-Skene over the judges against crowd-kit's own fit on the same long table; the bias test against scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.judge import JudgeTable, bias_tests, judge_panel, judge_table


def _table(seed: int = 0, n: int = 400) -> tuple[pd.DataFrame, JudgeTable]:
    rng = np.random.default_rng(seed)
    h = (rng.random(n) < 0.55).astype(float)
    shared = rng.random(n) < 0.15  # a case every judge gets wrong: correlated errors
    judges = {}
    for k, acc in enumerate((0.9, 0.8, 0.7)):
        right = (rng.random(n) < acc) & ~shared
        judges[f"j{k}"] = np.where(right, h, 1 - h)
    human = np.where(rng.random(n) < 0.3, h, np.nan)
    frame = pd.DataFrame({"case": np.arange(n), **judges, "human": human})
    return frame, judge_table(frame, list(judges), "human", case_column="case")


def test_panel_numbers_match_numpy() -> None:
    frame, table = _table()
    panel = judge_panel(table)
    lab = frame["human"].notna().to_numpy()
    h = frame["human"].to_numpy()[lab]
    errs = {j: frame[j].to_numpy()[lab] - h for j in ("j0", "j1", "j2")}
    for s in panel.judges:
        x = frame[s.judge].to_numpy()[lab]
        assert s.correlation == pytest.approx(np.corrcoef(x, h)[0, 1])
        assert s.agreement == pytest.approx(np.mean(x == h))
        assert s.bias == pytest.approx(np.mean(x - h))
    r = np.mean([np.corrcoef(errs[a], errs[b])[0, 1] for a, b in (("j0", "j1"), ("j0", "j2"), ("j1", "j2"))])
    assert panel.mean_error_correlation == pytest.approx(r)
    assert panel.effective_judges == pytest.approx(3 / (1 + 2 * max(0.0, r)))
    assert panel.best_judge == "j0"  # the most accurate judge is worth the most labels


def test_dawid_skene_is_crowdkits() -> None:
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    frame, table = _table(1)
    ds = judge_panel(table).dawid_skene
    assert ds is not None
    long = pd.DataFrame(
        {
            "task": np.tile(frame["case"].to_numpy(), 3),
            "worker": np.repeat(["j0", "j1", "j2"], len(frame)),
            "label": np.concatenate([frame[j].to_numpy() for j in ("j0", "j1", "j2")]).astype(int),
        }
    )
    got = crowdkit.DawidSkene(n_iter=100).fit_predict(long)
    lab = frame["human"].notna().to_numpy()
    expected = float(np.mean(got.reindex(frame["case"]).to_numpy()[lab] == frame["human"].to_numpy()[lab]))
    assert ds.accuracy == pytest.approx(expected)
    assert ds.best_judge == "j0"


def test_bias_test_is_scipys_paired_t() -> None:
    rng = np.random.default_rng(5)
    n = 300
    h = rng.normal(3, 1, (2, n))
    j = h + np.array([[0.4], [0.0]]) + rng.normal(0, 0.5, (2, n))
    lab = rng.random(n) < 0.3
    frame = pd.DataFrame(
        {
            "case": np.tile(np.arange(n), 2),
            "config": np.repeat(["A", "B"], n),
            "judge": j.ravel(),
            "human": np.where(np.tile(lab, 2), h.ravel(), np.nan),
        }
    )
    t = bias_tests(judge_table(frame, ["judge"], "human", "config", "case"))
    e = (j[0] - h[0])[lab] - (j[1] - h[1])[lab]
    (only,) = t.tests
    assert only.p_value == pytest.approx(stats.ttest_1samp(e, 0.0).pvalue)
    assert only.difference == pytest.approx(e.mean())
    assert t.differs
