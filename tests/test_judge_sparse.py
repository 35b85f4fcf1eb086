"""The sparse verdict corner (issue 53's coverage table): 0/1 human labels with few 1s, few 0s or few judge-human
disagreements, where PPI++'s normal and t intervals held 23-90% for 95% (docs/coverage.md). Coverage by simulation
with its Monte Carlo error, fails on the old interval; the widened interval against Agresti-Coull (statsmodels) at
lambda = 0 and never wider than the humans-only Clopper-Pearson interval (scipy's ``binomtest``); ppi-python's
interval kept outside the corner; the report, JSON and CLI say why in words."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ppi_py import ppi_mean_ci
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from nkcore.cli import main
from nkcore.judge import judge_doc, judge_report, judge_table
from nkcore.judge.ppi import (
    exact_binary_interval,
    human_only_verdict_interval,
    ppi_mean_interval,
    sparse_binary,
    uses_t,
)


def _draw(rng: np.random.Generator, n: int, rate: float, agree: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n labelled cases and 10 n judge-only: human ~ Bernoulli(rate), judge = human with probability ``agree``."""
    y = (rng.random(11 * n) < rate).astype(float)
    yh = np.where(rng.random(y.size) < agree, y, 1.0 - y)
    return y[:n], yh[:n], yh[n:]


@pytest.mark.parametrize(
    ("n", "rate", "agree"),
    [(30, 0.02, 0.85), (60, 0.98, 0.85), (60, 0.1, 0.95)],
)
def test_the_printed_interval_holds_in_the_sparse_corner(n: int, rate: float, agree: float) -> None:
    """400 runs per cell: the printed (auto) interval's coverage is at least 95% - 3 MC errors (about 0.917); the
    old interval (``sparse_adjust=False``, ppi_py's at >= 50 labels) held 0.43 at (30, 0.02) and 0.66 at (60, 0.98)
    in docs/coverage.md."""
    rng = np.random.default_rng(53 + n)
    reps = 400
    hits = old = 0
    for _ in range(reps):
        y, yh, yu = _draw(rng, n, rate, agree)
        r = ppi_mean_interval(y, yh, yu, small_sample=uses_t("auto", n))
        hits += r.ci_low <= rate <= r.ci_high
        o = ppi_mean_interval(y, yh, yu, small_sample=uses_t("auto", n), sparse_adjust=False)
        old += o.ci_low <= rate <= o.ci_high
    mc = math.sqrt(0.95 * 0.05 / reps)
    assert hits / reps >= 0.95 - 3 * mc, (hits / reps, old / reps)


def test_never_wider_than_the_humans_only_exact_interval() -> None:
    rng = np.random.default_rng(7)
    seen = 0
    for _ in range(200):
        n = int(rng.integers(5, 120))
        y, yh, yu = _draw(rng, n, float(rng.choice([0.01, 0.05, 0.95])), 0.85)
        if not sparse_binary(y, yh):
            continue
        seen += 1
        r = ppi_mean_interval(y, yh, yu)
        k = int(y.sum())
        cp = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert r.ci_high - r.ci_low <= cp.high - cp.low + 1e-12
        assert 0.0 <= r.ci_low <= r.ci_high <= 1.0
        h = exact_binary_interval(y)
        assert (h.ci_low, h.ci_high) == pytest.approx((cp.low, cp.high), abs=1e-12)
    assert seen > 100


def test_at_lambda_0_the_widened_interval_is_agresti_coull() -> None:
    """No judge-only case (lambda = 0): the pseudo-count interval is statsmodels' Agresti-Coull one, clipped to
    [0, 1], wherever it is narrower than Clopper-Pearson (else Clopper-Pearson)."""
    checked = 0
    for n, k in [(40, 3), (60, 5), (100, 2), (25, 24), (80, 78), (12, 1)]:
        y = np.array([1.0] * k + [0.0] * (n - k))
        r = ppi_mean_interval(y, y, np.array([]))
        lo, hi = proportion_confint(k, n, 0.05, method="agresti_coull")
        lo, hi = max(0.0, lo), min(1.0, hi)
        cp = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        if hi - lo < cp.high - cp.low:
            checked += 1
            assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
            assert r.method == "ppi++ (sparse verdicts, pseudo-count)"
        else:
            assert (r.ci_low, r.ci_high) == pytest.approx((cp.low, cp.high), abs=1e-12)
            assert r.method == "humans only (exact)" and r.fallback
    assert checked >= 3


def test_outside_the_corner_it_is_still_ppi_py() -> None:
    rng = np.random.default_rng(3)
    y, yh, yu = _draw(rng, 200, 0.4, 0.8)
    assert not sparse_binary(y, yh)
    r = ppi_mean_interval(y, yh, yu)
    lo, hi = ppi_mean_ci(y, yh, yu, alpha=0.05, lam=0.0 if r.fallback else None)
    assert (r.ci_low, r.ci_high) == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-9)


def test_the_corner_rule() -> None:
    ones = np.array([1.0] * 9 + [0.0] * 51)
    assert sparse_binary(ones, ones) and not sparse_binary(np.array([1.0, 0.0] * 30), np.array([0.0, 1.0] * 30))
    assert sparse_binary(np.array([0.0, 0.5] + [0.0] * 20), np.zeros(22))  # pairwise with ties
    assert not sparse_binary(np.array([1.0, 2.0] * 20), np.array([1.0, 2.0] * 20))  # not verdicts
    few_disagree = np.array([1.0, 0.0] * 30)
    judge = few_disagree.copy()
    judge[:3] = 1 - judge[:3]
    assert sparse_binary(few_disagree, judge)  # 3 disagreements of 60
    h = human_only_verdict_interval(np.array([0.0, 0.5] + [0.0] * 18))
    assert h.method == "humans only (pseudo-count)" and h.ci_low == 0.0


def test_report_json_and_cli_say_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(11)
    n = 400
    h = (rng.random(n) < 0.03).astype(float)
    h[:2], h[2:60] = 1.0, 0.0  # exactly 2 of the 60 labelled cases are 1
    j = np.where(rng.random(n) < 0.9, h, 1 - h)
    frame = pd.DataFrame({"judge": j, "human": np.where(np.arange(n) < 60, h, np.nan)})
    doc = judge_doc(judge_report(judge_table(frame, ["judge"], "human")))
    c = doc["configs"][0]
    assert c["sparse_note"] == "only 2 of 60 human labels are 1" and not c["less_reliable"]
    assert c["human_only_ci_high"] - c["human_only_ci_low"] >= c["ci_high"] - c["ci_low"] - 1e-12
    w_h, w_p = c["human_only_ci_high"] - c["human_only_ci_low"], c["ci_high"] - c["ci_low"]
    assert c["effective_human_labels"] == pytest.approx(60 * (w_h / w_p) ** 2) and c["effective_human_labels"] >= 60
    cp = stats.binomtest(2, 60).proportion_ci(0.95, method="exact")
    assert (c["human_only_ci_low"], c["human_only_ci_high"]) == pytest.approx((cp.low, cp.high), abs=1e-12)
    assert any("only 2 of 60 human labels are 1" in note for note in doc["notes"])
    path = tmp_path / "sparse.csv"
    frame.to_csv(path, index=False)
    assert main(["judge", str(path), "--judge-column", "judge", "--human-column", "human"]) == 0
    assert "widened: only 2 of 60 human labels are 1" in capsys.readouterr().out
    assert main(["judge", str(path), "--judge-column", "judge", "--human-column", "human", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["configs"][0]["sparse_note"] == c["sparse_note"]
