"""pass@k, pass^k and majority@k over raw samples: three readings of k samples per case, with paired bands.

- pass@k: at least one of k samples right. Unbiased estimator from a case's n >= k samples, c of them right:
  1 - C(n-c, k) / C(n, k) (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", eq. 1).
- pass^k: all k samples right, C(c, k) / C(n, k) (the same counting argument; Yao et al. 2024, tau-bench, call
  it pass^k).
- majority@k: the plurality of k samples is right, the exact curve of :func:`nkcore.voting.exact.case_credit_exact`.

Each is the share of a case's k-subsets of samples with that property, averaged over the cases with at least k
samples: cases keep their own n (per-case n), so at k the mean runs over the cases with n >= k, exactly as the
vote curve does (:mod:`nkcore.voting.curve`).

Intervals (95%), for the population value (the mean over cases drawn like these of 1 - (1-p)^k, p^k, or the
majority-right chance), not only for these cases: every reading's per-case estimate is unbiased for its case's
value and lies in [0, 1], and cases are independent, so the default ``interval="score"`` is
:func:`nkcore.common.bounded_mean.bounded_mean_intervals`, a Clopper-Pearson interval on an effective number of
cases (Clopper-Pearson's exact interval when the per-case values are 0/1, e.g. pass@n and pass^n of n samples).
Measured coverage (issue 53; exact binomial sums for 0/1 values, no Monte Carlo error): at least 0.950 at every
truth from 0.0005 to 0.9995 (step 0.0005) for 20, 60, 100 and 200 cases, 0.995 at truth 0.999 with 100 cases
(n = k = 10; the former Wilson interval: 0.905, its dip next to the boundary, and 0.86 at worst); on graded
values by simulation (20,000 replications, Monte Carlo error at most 0.002), from 0.956 (200 cases, Beta(2, 2),
pass@5) to 1.000; the measurement: ``python -m tests.test_claims_passk``. It is never zero width; when every
case passes it is [(alpha/2)^(1/n), 1]. ``interval="bootstrap"`` keeps the former paired percentile bootstrap over
cases (the same
resampled cases for every k and all three readings, the vote curve's replicates for the same seed; Efron &
Tibshirani 1993, ch. 13), which covers far less than 95% near 1 (pass@5 on 60 cases: 0.61) and is [1, 1] when
every case passes. Coverage study: ``benchmarks/bench_passk_coverage.py``, results in
``benchmarks/results/bench_passk_coverage.txt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from nkcore.common import limits
from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.common.checks import check_confidence
from nkcore.common.formatting import percent, plural
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.voting.bootstrap import bootstrap_weights, check_boot
from nkcore.voting.exact import case_credit_exact
from nkcore.voting.rules import TieRule, check_tie
from nkcore.voting.samples import SampleSet, parse_samples

__all__ = [
    "INTERVALS",
    "IntervalMethod",
    "KValue",
    "PassKCurves",
    "PercentileBands",
    "case_bootstrap_bands",
    "case_pass_at_k",
    "case_pass_hat_k",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_curves",
    "passk_from_frame",
    "passk_sentence",
    "verdict_k",
]

IntervalMethod = Literal["score", "bootstrap"]
INTERVALS: tuple[IntervalMethod, ...] = ("score", "bootstrap")


def _check_interval(interval: str) -> IntervalMethod:
    for name in INTERVALS:
        if interval == name:
            return name
    raise DataError(f"unknown pass@k interval {interval!r}; use 'score' or 'bootstrap'")


def _check_nck(n: int, c: int, k: int) -> None:
    if not (n >= 1 and 0 <= c <= n and 1 <= k <= n):
        raise DataError(f"pass@k needs n >= 1 samples, 0 <= c <= n right and 1 <= k <= n; got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one case with ``n`` samples, ``c`` of them right: 1 - C(n-c, k) / C(n, k).

    Computed as 1 - prod_{i=n-c+1}^{n} (1 - k/i), every factor in [0, 1] (no huge binomials, no cancellation;
    a factor is 0 when n - c < k). Reference: Chen et al. 2021, "Evaluating Large Language Models Trained on
    Code", eq. 1 and its numpy code (Figure 3).

    >>> round(pass_at_k(10, 3, 1), 6), round(pass_at_k(10, 3, 2), 6), pass_at_k(10, 8, 3)
    (0.3, 0.533333, 1.0)
    """
    _check_nck(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k (all k right) of one case with ``n`` samples, ``c`` right: C(c, k) / C(n, k) = prod_{j<k} (c-j)/(n-j).

    The share of the case's k-subsets whose samples are all right (unbiased for p^k when the samples are
    independent draws with success probability p). Reference: Yao et al. 2024, "tau-bench", section 5 (pass^k).

    >>> round(pass_hat_k(10, 3, 2), 6), pass_hat_k(10, 3, 4), pass_hat_k(5, 5, 5)
    (0.066667, 0.0, 1.0)
    """
    _check_nck(n, c, k)
    j = np.arange(k)
    return float(np.prod(np.clip(c - j, 0, None) / (n - j)))


def _counts(samples: SampleSet) -> tuple[np.ndarray, np.ndarray]:
    """Per-case samples n and right samples c (int64)."""
    right = (samples.codes == samples.gold_code[:, None]) & (samples.codes >= 0)
    return samples.n_samples.astype(np.int64), right.sum(axis=1).astype(np.int64)


def _ratio_products(n: np.ndarray, top: np.ndarray, m: int) -> np.ndarray:
    """prod_{j<k} (top - j) / (n - j) for k = 1..m (cases x m), NaN where k > n; 0 once top - j reaches 0."""
    j = np.arange(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.clip(top[:, None] - j, 0, None) / (n[:, None] - j)
    factor[j[None, :] >= n[:, None]] = 1.0  # past a case's last sample: masked below
    out = np.cumprod(factor, axis=1)
    out[j[None, :] >= n[:, None]] = np.nan
    return out


def case_pass_at_k(samples: SampleSet) -> np.ndarray:
    """Per-case unbiased pass@k, cases x max_n (column k-1 is k), NaN where k exceeds the case's samples.

    1 - C(n-c, k)/C(n, k) = 1 - prod_{j<k} (n-c-j)/(n-j): the same product as :func:`pass_at_k` with its factors
    taken in k order, so one running product gives every k at once (factors in [0, 1]). Reference: Chen et al.
    2021, eq. 1.

    >>> s = parse_samples(pd.DataFrame({"case": [1] * 4, "sample": [1, 2, 3, 4], "answer": list("abbb"),
    ...                                 "gold": "a"}))
    >>> case_pass_at_k(s).round(4).tolist()
    [[0.25, 0.5, 0.75, 1.0]]
    """
    n, c = _counts(samples)
    return 1.0 - _ratio_products(n, n - c, samples.max_n)


def case_pass_hat_k(samples: SampleSet) -> np.ndarray:
    """Per-case pass^k = C(c, k)/C(n, k), cases x max_n (column k-1 is k), NaN where k exceeds the case's samples.

    >>> s = parse_samples(pd.DataFrame({"case": [1] * 4, "sample": [1, 2, 3, 4], "answer": list("aaab"),
    ...                                 "gold": "a"}))
    >>> case_pass_hat_k(s).round(4).tolist()
    [[0.75, 0.5, 0.25, 0.0]]
    """
    n, c = _counts(samples)
    return _ratio_products(n, c, samples.max_n)


@dataclass(frozen=True, slots=True)
class KValue:
    """One reading at k samples per case: the mean over the ``n_cases`` cases with at least k samples, and its
    95% interval (the score interval of :func:`nkcore.common.bounded_mean.bounded_mean_intervals`, or the paired
    percentile bootstrap; :attr:`PassKCurves.interval` says which)."""

    k: int
    n_cases: int
    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True, slots=True)
class PassKCurves:
    """pass@k, pass^k and (when computed) majority@k for k = 1..max_n, each a tuple of :class:`KValue`.

    ``min_n`` is the smallest number of samples any case has: up to k = min_n every case counts; above it, the
    cases with at least k samples (per-case n). ``majority_at_k`` is empty when it was not asked for.
    ``interval`` is "score" or "bootstrap"; ``n_boot`` and ``seed`` are used by the bootstrap only.
    """

    pass_at_k: tuple[KValue, ...]
    pass_hat_k: tuple[KValue, ...]
    majority_at_k: tuple[KValue, ...]
    n_cases: int
    min_n: int
    max_n: int
    tie: str
    n_boot: int
    seed: int
    interval: IntervalMethod = "score"

    def at(self, k: int) -> tuple[KValue, KValue]:
        """(pass@k, pass^k) at ``k`` (DataError when no case has k samples)."""
        if not 1 <= k <= self.max_n:
            raise DataError(f"k must be between 1 and {self.max_n} (the most samples any case has), got {k}")
        return self.pass_at_k[k - 1], self.pass_hat_k[k - 1]


@dataclass(frozen=True, slots=True)
class PercentileBands:
    """Column by column: the mean of the present values, the bootstrap percentile interval, how many values."""

    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray


def case_bootstrap_bands(
    values: np.ndarray, n_boot: int = 2000, seed: int | np.random.Generator = 0, confidence: float = 0.95
) -> PercentileBands:
    """Paired percentile bootstrap over cases for the mean of every column of ``values`` (cases x columns, NaN
    where a case is absent from a column): the former pass@k interval, kept for comparison.

    Each replicate draws the cases with replacement once (:func:`nkcore.voting.bootstrap.bootstrap_weights`, the
    same draws for every column) and takes, per column, sum_i w_i x_i / sum_i w_i over the present cases; the band
    is the (1 - confidence)/2 to (1 + confidence)/2 percentile of the replicates (Efron & Tibshirani 1993, ch. 13).
    It is [1, 1] when every value is 1.

    >>> b = case_bootstrap_bands(np.ones((5, 1)), n_boot=100)
    >>> b.mean.tolist(), b.low.tolist(), b.high.tolist()
    ([1.0], [1.0], [1.0])
    """
    check_boot(n_boot)
    check_confidence(confidence)
    x = np.asarray(values, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    present = ~np.isnan(x)
    maskf = present.astype(float)
    filled = np.where(present, x, 0.0)
    boots = []
    for w in bootstrap_weights(x.shape[0], n_boot, as_generator(seed)):
        with np.errstate(invalid="ignore", divide="ignore"):
            boots.append((w @ filled) / (w @ maskf))
    b = np.vstack(boots)
    tail = 50.0 * (1.0 - confidence)
    lo, hi = np.nanpercentile(b, [tail, 100.0 - tail], axis=0)
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=0) / n
    return PercentileBands(mean=mean, low=lo, high=hi, n=n.astype(np.int64))


def pass_k_curves(
    samples: SampleSet,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int | np.random.Generator = 0,
    majority: bool = True,
    interval: IntervalMethod = "score",
) -> PassKCurves:
    """pass@k, pass^k and majority@k averaged over cases, k = 1..max_n, with 95% intervals.

    value(k) = mean over cases i with n_i >= k of the case's estimate x_i (:func:`case_pass_at_k`,
    :func:`case_pass_hat_k`, :func:`nkcore.voting.exact.case_credit_exact` with ``tie``), each in [0, 1].
    ``interval="score"`` (default, for all three readings): per k, the Clopper-Pearson interval on an effective
    number of cases n / r of :func:`nkcore.common.bounded_mean.bounded_mean_intervals` (r the variance ratio of
    the x_i: 1 for 0/1 values, e.g. pass@k and pass^k at k = n, where it is Clopper-Pearson's interval on the cases
    that pass). It targets the population value E[1 - (1-p)^k], E[p^k] (p a case's chance of a right sample);
    measured coverage at least 0.950 for 0/1 values at every truth up to 0.9995 (exact; 0.995 at truth 0.999,
    100 cases, where Wilson's covered 0.905), 0.956-1.000 on the graded designs simulated (module doc). It is
    [(alpha/2)^(1/n), 1] when every case passes; it uses neither ``n_boot`` nor ``seed``.
    ``interval="bootstrap"``: the former paired percentile bootstrap over cases (:func:`case_bootstrap_bands`,
    ``n_boot`` replicates from ``seed``, the same resampled cases for every k and reading); with the same seed
    and replicates). It covers far less than 95% near 1 and is [1, 1] when every case passes
    (``benchmarks/bench_passk_coverage.py``). majority@k's default (score) band is the vote curve's band
    (:func:`nkcore.voting.curve.vote_curve`).
    On every k-subset "all right" implies "the plurality is right" implies "one right", so
    pass^k <= majority@k <= pass@k at every k (any tie rule); at k = 1 all three are the single-sample accuracy.
    References: Chen et al. 2021 (pass@k); Yao et al. 2024 (pass^k); Clopper & Pearson 1934 (exact interval); the
    chapter's ``paired_bootstrap`` (resample cases, not calls).

    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2,
    ...                   "answer": list("aab") + list("bbb"), "gold": "a"})
    >>> r = pass_k_curves(parse_samples(f), n_boot=100)
    >>> [round(v.value, 4) for v in r.pass_at_k], [round(v.value, 4) for v in r.pass_hat_k]
    ([0.3333, 0.5, 0.5], [0.3333, 0.1667, 0.0])
    >>> v = r.pass_at_k[2]  # one case of two passes at k = 3: Clopper-Pearson's 1 of 2
    >>> round(v.ci_low, 4), round(v.ci_high, 4)
    (0.0126, 0.9874)
    """
    check_tie(tie)
    check_boot(n_boot)
    method = _check_interval(interval)
    m = samples.max_n
    n_series = 3 if majority else 2
    boot_cells = 2 * n_boot if method == "bootstrap" else 0
    limits.check_memory(8 * m * n_series * (4 * samples.n_cases + boot_cells), "the pass@k curves and their intervals")
    series = [case_pass_at_k(samples), case_pass_hat_k(samples)]
    if majority:
        series.append(case_credit_exact(samples, tie))
    mask = samples.n_samples[:, None] > np.arange(m)[None, :]
    stacked = np.hstack([np.where(mask, s, np.nan) for s in series])  # cases x (series * m), NaN where k > n_i
    if method == "score":
        iv = bounded_mean_intervals(stacked)
        means, lo, hi, counts = iv.mean, iv.low, iv.high, iv.n
    else:
        bands = case_bootstrap_bands(stacked, n_boot, seed)
        means, lo, hi, counts = bands.mean, bands.low, bands.high, bands.n
    out: list[tuple[KValue, ...]] = []
    for s in range(n_series):
        out.append(
            tuple(
                KValue(
                    k=j + 1,
                    n_cases=int(counts[s * m + j]),
                    value=float(means[s * m + j]),
                    ci_low=float(lo[s * m + j]),
                    ci_high=float(hi[s * m + j]),
                )
                for j in range(m)
            )
        )
    return PassKCurves(
        pass_at_k=out[0],
        pass_hat_k=out[1],
        majority_at_k=out[2] if majority else (),
        n_cases=samples.n_cases,
        min_n=int(samples.n_samples.min()),
        max_n=m,
        tie=tie,
        n_boot=n_boot,
        seed=seed if isinstance(seed, int) else -1,
        interval=method,
    )


def passk_from_frame(
    frame: pd.DataFrame,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int = 0,
    majority: bool = True,
    interval: IntervalMethod = "score",
) -> PassKCurves:
    """:func:`pass_k_curves` on a samples table (a module-level entry point for ``ui.common.cache`` and the CLI)."""
    return pass_k_curves(parse_samples(frame), tie, n_boot, seed, majority, interval)


def verdict_k(curves: PassKCurves) -> int:
    """The k the one-line verdict reads: the most samples every case has (``min_n``), or ``max_n`` when some case
    has a single sample.

    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2], "sample": [1, 2, 3, 1, 2], "answer": list("aba") + list("ab"),
    ...                   "gold": "a"})
    >>> verdict_k(pass_k_curves(parse_samples(f), n_boot=100, majority=False))
    2
    """
    return curves.min_n if curves.min_n >= 2 else curves.max_n


def passk_sentence(curves: PassKCurves, flaky_share: float | None = None, k: int | None = None) -> str:
    """One sentence: pass@k against all-k-right (pass^k) at ``k`` (default :func:`verdict_k`), and the share of
    flaky cases (cases whose samples disagree) when given. The gap pass@k - pass^k is the share of a case's
    k-subsets that mix right and wrong samples, so it is zero exactly when no case is flaky.

    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2,
    ...                   "answer": list("aab") + list("aaa"), "gold": "a"})
    >>> passk_sentence(pass_k_curves(parse_samples(f), n_boot=100), 0.5)
    'pass@3 (at least one of 3 samples right) is 100% but all 3 right (pass^3) is only 50%: 50% of cases are flaky (their samples disagree).'
    """
    k = verdict_k(curves) if k is None else k
    a, h = curves.at(k)
    on = "" if a.n_cases == curves.n_cases else f" (on the {plural(a.n_cases, 'case')} with at least {k} samples)"
    if k == 1:
        return (
            f"With one sample per case, pass@1 and all-1-right are both the single-sample accuracy, {percent(a.value)}."
        )
    if percent(a.value, 0) == percent(h.value, 0) and (flaky_share is None or flaky_share == 0):
        return f"pass@{k} and all {k} right (pass^{k}) are both {percent(a.value, 0)}{on}: no case's samples disagree."
    flaky = "" if flaky_share is None else f": {percent(flaky_share, 0)} of cases are flaky (their samples disagree)"
    return (
        f"pass@{k} (at least one of {k} samples right) is {percent(a.value, 0)} but all {k} right (pass^{k}) is only "
        f"{percent(h.value, 0)}{on}{flaky}."
    )
