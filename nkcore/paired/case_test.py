"""The case-level paired comparison: per case the difference of two configs' mean scores; test and interval on it.

For cases i = 1..n with config A's mean score a_i over its R_A,i repeats and B's b_i over R_B,i, the per-case
difference is d_i = b_i - a_i in [-1, 1] and the estimate is diff = mean(d_i). The test is the sign-flip
(paired randomisation) test of mean(d) = 0: under "the configs are exchangeable within each case" every d_i is as
likely to be -d_i, and p = P(|sum s_i d_i| >= |sum d_i|) over random signs s_i (Fisher 1935; Good 2005,
"Permutation, Parametric and Bootstrap Tests", ch. 3). The interval is the case-resampling (cluster) bootstrap
percentile interval of mean(d) (Efron & Tibshirani 1993, ch. 13; Miller 2024, "Adding Error Bars to Evals",
sec. 2.2, clustered errors). Where the d_i lie on a lattice both are exact (:mod:`nkcore.paired.lattice`); else the
p is a Monte Carlo sign-flip p with its standard error and the interval is that of the d_i rounded to a fine
lattice, with the rounding's bound. With one 0/1 result per case both are McNemar's exact test and the exact
paired bootstrap (:func:`nkcore.paired.compare_pair`), bit for bit.

What the repeats bought: the variance of d_i splits into a between-case part (the true per-case difference
varies) and a within-case part (repeats of one case differ), estimated by one-way analysis of variance with the
unbiased within-case variances; the intra-case correlation of one repeat's difference, the design effect
1 + (R - 1) ICC and the effective number of cases n (sigma_b^2 + sigma_w^2) / (sigma_b^2 + sigma_w^2 / R): how
many single-repeat cases the evaluation is worth (Kish 1965, "Survey Sampling", sec. 5.4; Miller 2024, sec. 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from nkcore.common.checks import check_confidence
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.paired.bootstrap import interval_reliable
from nkcore.paired.cases import CaseTable
from nkcore.paired.lattice import (
    MAX_LATTICE,
    bootstrap_sum_pmf,
    lattice_step,
    percentile_interval,
    sign_flip_p,
)

__all__ = [
    "CASE_TEST",
    "CaseComparison",
    "CaseMean",
    "VarianceComponents",
    "case_bootstrap",
    "case_mean",
    "compare_cases",
    "sign_flip_test",
    "variance_components",
]

#: The name of the case-level test, as the verdicts and the JSON say it.
CASE_TEST = "sign-flip test on the case means"
_MC_FLIPS = 20_000
_MC_CASES = 5_000  # beyond, the sign-flip law's normal form (Monte Carlo work would grow as 20,000 x cases)
_ROUNDING = 1000  # the fine lattice (1/1000) the bootstrap rounds to when the values lie on no lattice


@dataclass(frozen=True, slots=True)
class VarianceComponents:
    """How the variance of the per-case difference d_i = b_i - a_i splits, and what the repeats bought.

    ``between_var``: variance of the true per-case difference (sigma_b^2); ``within_var``: variance of ONE
    repeat's difference within a case (sigma_w^2 = pooled s_A^2 + s_B^2), NaN when no case has two repeats of a
    config; ``mean_repeats``: the R with sigma_w^2 / R = the mean within part of Var(d_i); ``icc``: sigma_b^2 /
    (sigma_b^2 + sigma_w^2), the correlation of two repeats' differences on one case; ``design_effect`` =
    1 + (R - 1) ICC; ``effective_cases`` = n R / design_effect, the single-repeat cases the evaluation is worth.
    """

    n_cases: int
    mean_repeats: float
    between_var: float
    within_var: float
    icc: float
    design_effect: float
    effective_cases: float


@dataclass(frozen=True, slots=True)
class CaseMean:
    """One config's mean score over the paired cases (each case's mean over its repeats, cases weighted equally),
    with the case-bootstrap percentile interval at ``confidence``; ``scores`` counts the repeats read."""

    config: str
    mean: float
    ci_low: float
    ci_high: float
    n_cases: int
    scores: int
    repeats_min: int
    repeats_max: int
    confidence: float


@dataclass(frozen=True, slots=True)
class CaseComparison:
    """Config A -> config B at case level: ``diff`` = mean over cases of (B's case mean - A's case mean).

    ``p_value`` is the two-sided sign-flip p (``p_method`` "exact", "monte-carlo" with standard error, or "normal"
    with its Berry-Esseen bound, in ``p_error``); ``diff_ci_*`` the case-bootstrap percentile interval at ``confidence``
    (``ci_method`` "exact", or "rounded" within ``ci_error`` of the exact one); ``b_better`` / ``a_better`` /
    ``ties``: cases whose mean is higher for B / for A / equal; ``lattice``: the L of the 1/L steps the d_i lie on
    (None: none found);
    ``unpaired_ci_*``: the interval the two configs' case means would give as independent samples, diff +- z
    sqrt(s_A^2 / n + s_B^2 / n) (the wrong instrument, shown to make the chapter's point), cut to [-1, 1].
    """

    config_a: str
    config_b: str
    n_cases: int
    dropped_cases: int
    a: CaseMean
    b: CaseMean
    diff: float
    p_value: float
    p_method: str
    p_error: float
    diff_ci_low: float
    diff_ci_high: float
    ci_method: str
    ci_error: float
    confidence: float
    b_better: int
    a_better: int
    ties: int
    lattice: int | None
    components: VarianceComponents
    test: str = CASE_TEST
    unpaired_ci_low: float = math.nan
    unpaired_ci_high: float = math.nan

    @property
    def interval_reliable(self) -> bool:
        """Whether the case-bootstrap interval holds its level here: 25 or more cases whose difference is not zero
        (:func:`nkcore.paired.bootstrap.interval_reliable`)."""
        return interval_reliable(self.b_better + self.a_better)


def sign_flip_test(d: np.ndarray, seed: int | np.random.Generator = 0) -> tuple[float, str, float]:
    """(p, method, standard error) of the two-sided sign-flip test of mean(d) = 0 for per-case differences d.

    Exact (:func:`nkcore.paired.lattice.sign_flip_p`) when the d_i lie on a lattice of 1/L steps with L <= 2,520
    and a support of at most 2^21 points; else, up to ``_MC_CASES`` = 5,000 cases, ``_MC_FLIPS`` = 20,000 random
    sign patterns (seeded), p = (1 + #{|S*| >= |S|}) / (1 + 20,000) (a valid p; Phipson & Smyth 2010) with standard
    error sqrt(p (1 - p) / 20,000); beyond, the normal form of the same law (its work would grow as 20,000 n):
    S = sum s_i d_i has mean 0 and variance sum d_i^2, p = 2 (1 - Phi(|S| / sqrt(sum d_i^2))), and the error
    returned bounds |p - exact p| by Berry-Esseen, 2 x 0.56 sum |d_i|^3 / (sum d_i^2)^(3/2) (Shevtsova 2011's
    constant for independent non-identical terms), method "normal".

    >>> p, method, se = sign_flip_test(np.array([1.0] * 6)); round(p, 12), method, se   # 2 of 64 patterns: 1/32
    (0.03125, 'exact', 0.0)
    """
    x = np.asarray(d, dtype=float)
    if x.size == 0:
        raise DataError("the sign-flip test needs at least one case")
    step = lattice_step(x)
    if step is not None:
        p = sign_flip_p(np.round(x * step).astype(np.int64))
        if p is not None:
            return p, "exact", 0.0
    s = abs(float(x.sum()))
    if x.size > _MC_CASES:
        sq = float(np.sum(x * x))
        if sq <= 0.0:
            return 1.0, "normal", 0.0
        p = float(min(1.0, 2.0 * stats.norm.sf(s / math.sqrt(sq))))
        return p, "normal", float(min(1.0, 2.0 * 0.56 * float(np.sum(np.abs(x) ** 3)) / sq**1.5))
    rng = as_generator(seed)
    hits = 0
    chunk = max(1, 4_000_000 // x.size)
    for start in range(0, _MC_FLIPS, chunk):
        k = min(chunk, _MC_FLIPS - start)
        signs = rng.integers(0, 2, size=(k, x.size), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ x) >= s - 1e-12 * max(1.0, s)))
    p = (1 + hits) / (1 + _MC_FLIPS)
    return p, "monte-carlo", math.sqrt(p * (1 - p) / _MC_FLIPS)


def case_bootstrap(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, str, float]:
    """(low, high, method, error bound) of the case-resampling percentile interval of the mean of per-case values.

    Exact on the values' lattice (:func:`nkcore.paired.lattice.bootstrap_sum_pmf`); when they lie on none (or its
    law is too wide), the values are rounded to the nearest 1/L (L = 1,000, halved until the law fits): each
    resampled mean moves by at most 1/(2L), which bounds the endpoints' error (returned). One 0/1 value per case
    gives :func:`nkcore.paired.exact_paired_bootstrap`'s interval.

    >>> case_bootstrap(np.array([0.0, 0.5, 1.0, 1.0]), 0.5)
    (0.5, 0.75, 'exact', 0.0)
    """
    check_confidence(confidence)
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise DataError("the bootstrap needs at least one case")
    step = lattice_step(x)
    if step is not None:
        law = bootstrap_sum_pmf(np.round(x * step).astype(np.int64))
        if law is not None:
            low, high = percentile_interval(law[0], law[1], step * x.size, confidence)
            return low, high, "exact", 0.0
    L = _ROUNDING
    while L >= 1:
        law = bootstrap_sum_pmf(np.round(x * L).astype(np.int64))
        if law is not None:
            low, high = percentile_interval(law[0], law[1], L * x.size, confidence)
            return low, high, "rounded", 0.5 / L
        L //= 2
    raise DataError("too many cases for the case bootstrap: split the evaluation")  # pragma: no cover


def case_mean(table: CaseTable, config: str, confidence: float = 0.95) -> CaseMean:
    """One config's mean over cases of its case means, with the case-bootstrap interval (:func:`case_bootstrap`).

    >>> from nkcore.paired.cases import parse_cases
    >>> import pandas as pd
    >>> t = parse_cases(pd.DataFrame({"case": [1, 1, 2, 2], "repeat": [1, 2, 1, 2], "A": [1, 0, 1, 1], "B": [0, 0, 1, 0]}))
    >>> m = case_mean(t, "A"); m.mean, m.scores, m.repeats_max
    (0.75, 4, 2)
    """
    j = table.index_of(config)
    values = table.means[:, j]
    low, high, _, _ = case_bootstrap(values, confidence)
    reps = table.repeats[:, j]
    return CaseMean(
        table.configs[j],
        float(values.mean()),
        low,
        high,
        table.n_cases,
        int(reps.sum()),
        int(reps.min()),
        int(reps.max()),
        confidence,
    )


def _pooled_within(table: CaseTable, j: int) -> float:
    """Pooled unbiased within-case variance of one repeat of config j, sum (R-1) s^2 / sum (R-1); NaN if no
    case has two repeats."""
    r = table.repeats[:, j].astype(float)
    keep = r >= 2
    if not keep.any():
        return math.nan
    ss = table.sq_sums[keep, j] - table.sums[keep, j] ** 2 / r[keep]  # (R - 1) s^2 per case
    return float(max(ss.sum(), 0.0) / (r[keep] - 1.0).sum())


def variance_components(table: CaseTable, a: str, b: str) -> VarianceComponents:
    """The between- and within-case variance of the per-case difference d_i = b_i - a_i, and what repeats bought.

    Var(d_i) (sample variance, ddof 1) = sigma_b^2 + mean_i(s_A^2 / R_A,i + s_B^2 / R_B,i), with s^2 each config's
    pooled unbiased within-case variance of one repeat (one-way ANOVA); sigma_b^2 is what is left (0 at least);
    sigma_w^2 = s_A^2 + s_B^2 is one repeat's within variance of the difference; R = sigma_w^2 / mean within
    part; ICC = sigma_b^2 / (sigma_b^2 + sigma_w^2); design effect 1 + (R - 1) ICC; effective cases n R / design
    effect. Reference: Kish 1965, sec. 5.4; Miller 2024, "Adding Error Bars to Evals", sec. 3.

    >>> from nkcore.paired.cases import parse_cases
    >>> import pandas as pd
    >>> rows = [(c, r, x, y) for c, (xs, ys) in enumerate([([1, 1], [1, 1]), ([0, 0], [1, 1]), ([1, 0], [0, 1])])
    ...         for r, (x, y) in enumerate(zip(xs, ys))]
    >>> t = parse_cases(pd.DataFrame(rows, columns=["case", "repeat", "A", "B"]))
    >>> v = variance_components(t, "A", "B"); round(v.within_var, 4), round(v.between_var, 4), v.mean_repeats
    (0.3333, 0.1667, 2.0)
    """
    ia, ib = table.index_of(a), table.index_of(b)
    if ia == ib:
        raise DataError(f"compare two different configs; both are {a!r}")
    n = table.n_cases
    d = table.means[:, ib] - table.means[:, ia]
    total = float(d.var(ddof=1)) if n >= 2 else 0.0
    wa, wb = _pooled_within(table, ia), _pooled_within(table, ib)
    if math.isnan(wa) and math.isnan(wb):
        return VarianceComponents(n, 1.0, total, math.nan, math.nan, 1.0, float(n))
    wa, wb = (0.0 if math.isnan(w) else w for w in (wa, wb))
    part = float(np.mean(wa / table.repeats[:, ia] + wb / table.repeats[:, ib]))
    within = wa + wb
    between = max(total - part, 0.0)
    reps = within / part if part > 0 else float(np.mean(table.repeats[:, [ia, ib]]))
    icc = between / (between + within) if between + within > 0 else 0.0
    deff = 1.0 + (reps - 1.0) * icc
    return VarianceComponents(n, reps, between, within, icc, deff, n * reps / deff)


def compare_cases(
    table: CaseTable, a: str, b: str, confidence: float = 0.95, seed: int | np.random.Generator = 0
) -> CaseComparison:
    """Config ``a`` -> config ``b`` at case level: diff = mean_i(b_i - a_i), the sign-flip p, the case-bootstrap
    interval, who wins how many cases, and the variance components (see the module docstring).

    >>> from nkcore.paired.cases import parse_cases
    >>> import pandas as pd
    >>> df = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "repeat": [1, 2] * 3, "A": [0, 0, 1, 0, 0, 0], "B": [1, 1, 1, 1, 1, 0]})
    >>> c = compare_cases(parse_cases(df), "A", "B")
    >>> round(c.diff, 4), c.p_value, c.p_method, (c.b_better, c.a_better, c.ties)
    (0.6667, 0.25, 'exact', (3, 0, 0))
    """
    check_confidence(confidence)
    ia, ib = table.index_of(a), table.index_of(b)
    if ia == ib:
        raise DataError(f"compare two different configs; both are {a!r}")
    d = table.means[:, ib] - table.means[:, ia]
    p, p_method, p_error = sign_flip_test(d, seed)
    low, high, ci_method, ci_error = case_bootstrap(d, confidence)
    n = table.n_cases
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))
    spread = math.sqrt((table.means[:, ia].var(ddof=1) + table.means[:, ib].var(ddof=1)) / n) if n > 1 else math.inf
    mean = float(d.mean())
    return CaseComparison(
        config_a=table.configs[ia],
        config_b=table.configs[ib],
        n_cases=table.n_cases,
        dropped_cases=table.dropped_cases,
        a=case_mean(table, table.configs[ia], confidence),
        b=case_mean(table, table.configs[ib], confidence),
        diff=float(d.mean()),
        p_value=p,
        p_method=p_method,
        p_error=p_error,
        diff_ci_low=low,
        diff_ci_high=high,
        ci_method=ci_method,
        ci_error=ci_error,
        confidence=confidence,
        b_better=int(np.count_nonzero(d > 1e-12)),
        a_better=int(np.count_nonzero(d < -1e-12)),
        ties=int(np.count_nonzero(np.abs(d) <= 1e-12)),
        lattice=lattice_step(d, MAX_LATTICE),
        components=variance_components(table, table.configs[ia], table.configs[ib]),
        unpaired_ci_low=max(-1.0, mean - z * spread),
        unpaired_ci_high=min(1.0, mean + z * spread),
    )
