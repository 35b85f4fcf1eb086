"""Models of why the vote curve flattens: independent samples, correlated samples (N_eff), per-case difficulty.

Independent samples give the binomial majority curve; samples of the same case that share errors (intraclass
correlation rho) act like N_eff = n / (1 + (n - 1) rho) independent ones; a beta-binomial model gives every case
its own accuracy. All three count a vote as correct against ONE wrong answer. Reference: the chapter "The accuracy
curve flattens sooner than the sample count suggests" (p = 0.71: 79.6%, 85.0%, 88.6% at n = 3, 5, 7; rho = 0.17:
N_eff 3.0 at n = 5 and 3.5 at n = 7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from nkcore.common import limits
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.voting.bootstrap import bootstrap_weights, check_boot
from nkcore.voting.rules import TieRule, check_tie
from nkcore.voting.samples import SampleSet

__all__ = [
    "BetaBinomialFit",
    "NEffRow",
    "RhoEstimate",
    "beta_binomial_curve",
    "correlated_accuracy",
    "correlated_curve",
    "estimate_rho",
    "fit_beta_binomial",
    "independent_accuracy",
    "n_eff",
    "n_eff_table",
]


def independent_accuracy(p: float, n: float) -> float:
    """Majority-vote accuracy of n independent binary samples each correct with probability p.

    P(majority correct) = I_p((n + 1) / 2, (n + 1) / 2), the regularized incomplete beta function; for odd n
    it equals P(Binomial(n, p) > n / 2) and it interpolates continuously in n (for N_eff).
    Reference: the chapter, "What the shape of the curve was always going to be".

    >>> [round(independent_accuracy(0.71, n), 4) for n in (3, 5, 7)]
    [0.7965, 0.8499, 0.8866]
    """
    if not 0.0 <= p <= 1.0:
        raise DataError(f"single-call accuracy p must be in [0, 1], got {p}")
    if n <= 0:
        raise DataError(f"samples per request n must be positive, got {n}")
    a = (n + 1.0) / 2.0
    return float(special.betainc(a, a, p))


def n_eff(n: float, rho: float) -> float:
    """Effective samples N_eff = n / (1 + (n - 1) rho) of n samples with pairwise correlation rho.

    Reference: the chapter (rho = 0.17: 2.98 at n=5, 3.47 at n=7, 4.44 at n=15).

    >>> round(n_eff(5, 0.17), 2), round(n_eff(7, 0.17), 2)
    (2.98, 3.47)
    """
    if not -1.0 < rho <= 1.0:
        raise DataError(f"rho must be in (-1, 1], got {rho}")
    if n <= 0:
        raise DataError(f"samples per request n must be positive, got {n}")
    den = 1.0 + (n - 1.0) * rho
    if den <= 0:
        raise DataError(f"rho={rho} is below -1/(n-1) for n={n}: no such correlation exists")
    return float(n / den)


def correlated_accuracy(p: float, n: float, rho: float) -> float:
    """Majority accuracy with correlated samples: the independent curve read at N_eff.

    P = I_p((N_eff + 1) / 2, (N_eff + 1) / 2), N_eff = n / (1 + (n - 1) rho).

    >>> round(correlated_accuracy(0.71, 7, 0.0), 4), round(correlated_accuracy(0.71, 7, 1.0), 4)
    (0.8866, 0.71)
    """
    return independent_accuracy(p, n_eff(n, rho))


def correlated_curve(p: float, ns: tuple[int, ...], rho: float) -> tuple[float, ...]:
    """:func:`correlated_accuracy` at every n in ``ns`` (a cache-friendly helper for the page's rho slider).

    >>> [round(x, 4) for x in correlated_curve(0.71, (1, 3), 0.0)]
    [0.71, 0.7965]
    """
    return tuple(correlated_accuracy(p, n, rho) for n in ns)


@dataclass(frozen=True, slots=True)
class NEffRow:
    """Effective samples at one n: N_eff, and the independent and correlated majority accuracy."""

    n: int
    n_eff: float
    independent: float
    correlated: float


def n_eff_table(p: float, ns: tuple[int, ...], rho: float) -> tuple[NEffRow, ...]:
    """The N_eff table: for each n, N_eff = n / (1 + (n - 1) rho) and the independent / correlated predictions at p.

    >>> [round(r.n_eff, 2) for r in n_eff_table(0.71, (5, 7), 0.17)]
    [2.98, 3.47]
    """
    return tuple(
        NEffRow(
            n=int(n),
            n_eff=n_eff(n, rho),
            independent=independent_accuracy(p, n),
            correlated=correlated_accuracy(p, n, rho),
        )
        for n in ns
    )


@dataclass(frozen=True, slots=True)
class RhoEstimate:
    """Intraclass correlation rho of per-sample correctness within cases (one-way ANOVA estimator).

    ``ci_low``/``ci_high``: 95% percentile bootstrap over cases (``method`` says so); ``p_single`` is the
    pooled per-sample accuracy; ``n0`` the ANOVA's average group size for unbalanced cases.
    """

    rho: float
    ci_low: float
    ci_high: float
    p_single: float
    n_cases: int
    n_samples: int
    n0: float
    method: str


def _icc_from_sums(k: np.ndarray, m: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ANOVA ICC(1) for weighted cases: k correct of m per case, weights w (reps x cases). Returns (rho, n0)."""
    big_n = w @ m
    g = w.sum(axis=1)
    sk = w @ k
    ssb = w @ (k**2 / m) - sk**2 / big_n
    ssw = w @ (k - k**2 / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        msb = ssb / (g - 1)
        msw = ssw / (big_n - g)
        n0 = (big_n - (w @ m**2) / big_n) / (g - 1)
        rho = (msb - msw) / (msb + (n0 - 1) * msw)
    return rho, n0


def estimate_rho(
    samples: SampleSet, n_boot: int = 2000, seed: int | np.random.Generator = 0, max_n: int | None = None
) -> RhoEstimate:
    """rho as the intraclass correlation of per-sample correctness within cases (ANOVA, unbalanced groups).

    With k_i correct of m_i samples in case i (N = sum m_i, G cases): MSB = SSB / (G - 1),
    MSW = SSW / (N - G), n0 = (N - sum m_i^2 / N) / (G - 1), rho = (MSB - MSW) / (MSB + (n0 - 1) MSW).
    Interval: 95% percentile bootstrap over cases (seeded); binary data breaks the F-interval's normality.
    Cases with one sample carry no within-case information and are left out. ``max_n`` uses only each case's
    first max_n samples (the "fit on n <= k" reading). Reference: Searle (1971), one-way random effects;
    the chapter's rho (0.17).

    Example: every case all right or all wrong is perfect correlation:
    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> f = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "sample": [1, 2] * 3, "correct": [1, 1, 0, 0, 1, 1]})
    >>> estimate_rho(parse_samples(f), n_boot=100).rho
    1.0
    """
    check_boot(n_boot)
    corr = samples.correct_matrix()
    if max_n is not None:
        corr = corr[:, :max_n]
    m = (~np.isnan(corr)).sum(axis=1).astype(float)
    k = np.nansum(corr, axis=1)
    keep = m >= 2
    k, m = k[keep], m[keep]
    if len(k) < 2:
        raise DataError(
            f"rho (the correlation between samples of the same case) needs at least 2 cases with 2 or more samples "
            f"each; this data has {len(k)}"
        )
    rho, n0 = _icc_from_sums(k, m, np.ones((1, len(k))))
    rng = as_generator(seed)
    boots = [_icc_from_sums(k, m, w)[0] for w in bootstrap_weights(len(k), n_boot, rng)]
    b = np.concatenate(boots)
    b = b[np.isfinite(b)]
    lo, hi = (float(v) for v in np.percentile(b, [2.5, 97.5])) if len(b) else (math.nan, math.nan)
    return RhoEstimate(
        rho=float(rho[0]),
        ci_low=lo,
        ci_high=hi,
        p_single=float(k.sum() / m.sum()),
        n_cases=len(k),
        n_samples=int(m.sum()),
        n0=float(n0[0]),
        method="ANOVA ICC(1); 95% percentile bootstrap over cases",
    )


@dataclass(frozen=True, slots=True)
class BetaBinomialFit:
    """Per-case difficulty p_i ~ Beta(alpha, beta), fitted by maximum likelihood to k_i correct of m_i samples.

    ``mean`` = alpha / (alpha + beta); ``rho`` = 1 / (alpha + beta + 1), the implied within-case correlation.
    """

    alpha: float
    beta: float
    mean: float
    rho: float
    log_likelihood: float
    n_cases: int


def fit_beta_binomial(samples: SampleSet, max_n: int | None = None) -> BetaBinomialFit:
    """Maximum-likelihood Beta(alpha, beta) over per-case accuracy from k_i correct of m_i samples.

    Maximises sum_i log BetaBinomial(k_i; m_i, alpha, beta) over (log alpha, log beta), started at the method
    of moments; ``max_n`` uses each case's first max_n samples only.
    """
    corr = samples.correct_matrix()
    if max_n is not None:
        corr = corr[:, :max_n]
    m = (~np.isnan(corr)).sum(axis=1)
    k = np.nansum(corr, axis=1).astype(int)
    keep = m >= 1
    k, m = k[keep], m[keep]

    def nll(theta: np.ndarray) -> float:
        a, b = np.exp(theta)
        return -float(stats.betabinom.logpmf(k, m, a, b).sum())

    p = float(np.clip(k.sum() / m.sum(), 0.01, 0.99))
    try:
        rho0 = float(estimate_rho(samples, n_boot=100, seed=0, max_n=max_n).rho)
    except DataError:
        rho0 = 0.2
    rho0 = float(np.clip(rho0 if np.isfinite(rho0) else 0.2, 0.02, 0.9))
    s = 1.0 / rho0 - 1.0
    best = None
    for start in ((p * s, (1 - p) * s), (p, 1 - p), (10 * p, 10 * (1 - p))):
        res = optimize.minimize(nll, np.log(start), method="L-BFGS-B", bounds=[(-12, 12), (-12, 12)])
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    a, b = (float(v) for v in np.exp(best.x))
    return BetaBinomialFit(
        alpha=a, beta=b, mean=a / (a + b), rho=1.0 / (a + b + 1.0), log_likelihood=-float(best.fun), n_cases=len(k)
    )


def beta_binomial_curve(fit: BetaBinomialFit, ns: tuple[int, ...], tie: TieRule = "first") -> tuple[float, ...]:
    """Majority accuracy at each n under the beta-binomial difficulty model (correct vs one wrong answer).

    P(n) = sum_{k > n/2} BetaBinomial(k; n, alpha, beta) + c * BetaBinomial(n/2; n, alpha, beta), with tie credit
    c = 1/2 for split/first and 0 for wrong at even n. Scattered wrong answers make plurality beat this.
    """
    check_tie(tie)
    out = []
    if not ns:
        return ()
    top = max(ns)
    limits.check_memory(8 * len(ns) * (top + 1), "the difficulty model's curve")
    # every n's probabilities in one call (n x k, k up to the largest n), each row then read as before
    table = stats.betabinom.pmf(np.arange(top + 1)[None, :], np.asarray(ns)[:, None], fit.alpha, fit.beta)
    for row, n in zip(table, ns, strict=True):
        ks = np.arange(n + 1)
        pmf = row[: n + 1]
        win = pmf[2 * ks > n].sum()
        tie_mass = pmf[2 * ks == n].sum()
        out.append(float(win + (0.0 if tie == "wrong" else 0.5) * tie_mass))
    return tuple(out)
