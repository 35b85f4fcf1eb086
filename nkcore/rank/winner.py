"""The winner's curse: the best observed mean is biased upward (the config picked is the one whose noise was
kindest); its selection-corrected estimate and an interval that holds for the config picked.

The naive winner's score is W = max_j mean_j, for the config j^ = argmax_j mean_j. The corrected score is j^'s
empirical-Bayes posterior mean (:mod:`nkcore.rank.shrinkage`: every mean shrunk towards their average by the share
of their spread that is noise; Efron & Morris 1975; a Bayes estimate is not biased by selection, Dawid 1994, Efron
2011, "Tweedie's formula and selection bias", JASA 106(496):1602). Over the simulated designs of
``benchmarks/bench_rank.py`` (M = 3, 10, 20 configs, close and spread, with and without repeats) it removes most of
the naive bias where the bootstrap bias correction (Efron & Tibshirani 1993, ch. 10: 2 W - mean_b(max_j m*_bj),
kept here as ``bootstrap_corrected``) removed about half; docs/rank.md gives the figures and the designs where it
over-corrects (few configs, well spread).

The interval is the projection interval (Andrews, Kitagawa & McCloskey 2024, "Inference on Winners", QJE
139(1):305, sec. 3): simultaneous intervals for all M true means at once, mean_j +- c se_j with c the
``confidence`` quantile of the case bootstrap's max_j |m*_j - mean_j| / se_j, read at the winner. Because it covers
every config's true mean at once it covers the winner's, whichever config is picked (conservative; its coverage is
measured in the benchmark). se_j = sqrt(Sigma_jj), Sigma the covariance of the means; a config with se_j = 0 has a
point interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nkcore.common.checks import check_confidence
from nkcore.rank.shrinkage import shrink_means

__all__ = ["WINNER_METHOD", "WinnerEstimate", "projection_critical", "winner_estimate"]

WINNER_METHOD = (
    "empirical-Bayes shrinkage of every config's mean towards their average (normal prior, moment estimate of the "
    "spread; Efron & Morris 1975): the winner's posterior mean; interval: simultaneous for all configs' means "
    "(max-statistic case bootstrap), read at the winner (projection interval, Andrews, Kitagawa & McCloskey 2024)"
)

_ZERO_SE = 1e-12


@dataclass(frozen=True, slots=True)
class WinnerEstimate:
    """The best observed config's score: ``naive`` (its observed mean), ``corrected`` (its empirical-Bayes
    posterior mean), ``bias`` = naive - corrected (the estimated selection bias), the projection interval
    ``ci_low``..``ci_high`` at ``confidence`` cut to [0, 1], ``bootstrap_corrected`` the older bootstrap bias
    correction 2 naive - mean_b(max_j m*_bj) (for comparison) and ``shrinkage`` the share of the spread kept."""

    config: str
    naive: float
    corrected: float
    bias: float
    ci_low: float
    ci_high: float
    confidence: float
    bootstrap_corrected: float
    shrinkage: float


def projection_critical(means: np.ndarray, boot: np.ndarray, se: np.ndarray, confidence: float) -> float:
    """c: the ``confidence`` quantile (inverted CDF) of max_j |m*_bj - mean_j| / se_j over the resamples b (configs
    with se_j = 0 left out; 0 when none is left).

    >>> c = projection_critical(np.array([0.5, 0.5]), np.array([[0.6, 0.5], [0.5, 0.3], [0.4, 0.5]]),
    ...                         np.array([0.1, 0.1]), 0.5)
    >>> round(c, 6)
    1.0
    """
    check_confidence(confidence)
    use = np.asarray(se) > _ZERO_SE
    if not use.any():
        return 0.0
    dev = np.abs(np.asarray(boot, dtype=float)[:, use] - np.asarray(means, dtype=float)[use]) / np.asarray(se)[use]
    return float(np.quantile(dev.max(axis=1), confidence, method="inverted_cdf"))


def winner_estimate(
    means: np.ndarray,
    boot: np.ndarray,
    names: tuple[str, ...] | list[str],
    confidence: float = 0.95,
    cov: np.ndarray | None = None,
) -> WinnerEstimate:
    """The winner's naive and selection-corrected score from the observed ``means`` (M), the case bootstrap's means
    ``boot`` (B x M) and the covariance of the means ``cov`` (M x M; default: the bootstrap's covariance).

    corrected = the empirical-Bayes posterior mean of the winner (:func:`nkcore.rank.shrinkage.shrink_means`);
    interval: mean_j^ +- c se_j^ with c = :func:`projection_critical`.

    >>> boot = np.array([[0.70, 0.72], [0.74, 0.69], [0.71, 0.71], [0.73, 0.70]])
    >>> w = winner_estimate(np.array([0.72, 0.70]), boot, ["A", "B"], cov=np.eye(2) * 0.0004)
    >>> w.config, round(w.corrected, 4), round(w.bootstrap_corrected, 4)
    ('A', 0.71, 0.715)
    """
    check_confidence(confidence)
    means = np.asarray(means, dtype=float)
    boot = np.asarray(boot, dtype=float)
    sigma = np.cov(boot, rowvar=False) if cov is None else np.asarray(cov, dtype=float)
    sigma = np.atleast_2d(sigma)
    j = int(np.argmax(means))
    naive = float(means[j])
    shrunk = shrink_means(means, sigma)
    corrected = float(np.clip(shrunk.means[j], 0.0, 1.0))
    boot_bias = max(0.0, float(boot.max(axis=1).mean() - naive))  # Jensen: only Monte Carlo dips below 0
    se = np.sqrt(np.clip(np.diag(sigma), 0.0, None))
    c = projection_critical(means, boot, se, confidence)
    half = c * se[j] if se[j] > _ZERO_SE else 0.0
    return WinnerEstimate(
        config=str(names[j]),
        naive=naive,
        corrected=corrected,
        bias=naive - corrected,
        ci_low=float(np.clip(naive - half, 0.0, 1.0)),
        ci_high=float(np.clip(naive + half, 0.0, 1.0)),
        confidence=float(confidence),
        bootstrap_corrected=float(np.clip(naive - boot_bias, 0.0, 1.0)),
        shrinkage=shrunk.factor,
    )
