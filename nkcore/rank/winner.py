"""The winner's curse: the best observed mean is biased upward (the config picked is the one whose noise was
kindest), and its bootstrap bias correction.

The naive winner's score is W = max_j mean_j. Its bias is estimated by the case bootstrap as
b = mean_b(max_j m*_bj) - W (at least 0: by Jensen E*[max_j m*_j] >= max_j E*[m*_j] = W, so a negative
estimate is Monte Carlo error and is set to 0), and the corrected estimate is W - b = 2 W - mean_b(W*) (Efron & Tibshirani 1993,
"An Introduction to the Bootstrap", ch. 10, the bootstrap estimate of bias, here of the maximum of the means; the
winner's curse as posed by Andrews, Kitagawa & McCloskey 2024, "Inference on Winners", QJE 139(1):305). The interval is the percentile interval of the bias-corrected statistic W*_b - 2 b (the bootstrap
law of W shifted to be centred on the corrected estimate). The bootstrap of a maximum is not exact when configs are
tied (the correction then removes part of the bias, not all of it: benchmarks/bench_rank.py measures the share).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.common.checks import check_confidence

__all__ = ["WinnerEstimate", "winner_estimate"]


@dataclass(frozen=True, slots=True)
class WinnerEstimate:
    """The best observed config's score: ``naive`` (its observed mean), ``corrected`` (after removing the bootstrap
    estimate of the selection ``bias``) and the percentile interval ``ci_low``..``ci_high`` of the corrected
    statistic at ``confidence``, cut to [0, 1]."""

    config: str
    naive: float
    corrected: float
    bias: float
    ci_low: float
    ci_high: float
    confidence: float


def winner_estimate(
    means: np.ndarray, boot: np.ndarray, names: tuple[str, ...] | list[str], confidence: float = 0.95
) -> WinnerEstimate:
    """The winner's naive and bias-corrected score from the observed ``means`` (M) and bootstrap means (B x M).

    corrected = 2 max_j mean_j - mean_b(max_j m*_bj); interval: percentiles of max_j m*_bj - 2 bias.

    >>> boot = np.array([[0.70, 0.72], [0.74, 0.69], [0.71, 0.71], [0.73, 0.70]])
    >>> w = winner_estimate(np.array([0.72, 0.70]), boot, ["A", "B"])
    >>> w.config, round(w.bias, 4), round(w.corrected, 4)
    ('A', 0.005, 0.715)
    """
    check_confidence(confidence)
    means = np.asarray(means, dtype=float)
    boot = np.asarray(boot, dtype=float)
    j = int(np.argmax(means))
    naive = float(means[j])
    best = boot.max(axis=1)
    bias = max(0.0, float(best.mean() - naive))  # E*[max_j m*_j] >= max_j E*[m*_j] = W: only Monte Carlo dips below
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(best - 2.0 * bias, [tail, 1.0 - tail], method="inverted_cdf")
    return WinnerEstimate(
        config=str(names[j]),
        naive=naive,
        corrected=float(np.clip(naive - bias, 0.0, 1.0)),
        bias=bias,
        ci_low=float(np.clip(lo, 0.0, 1.0)),
        ci_high=float(np.clip(hi, 0.0, 1.0)),
        confidence=float(confidence),
    )
