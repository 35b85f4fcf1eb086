"""The measured vote curve: exact accuracy at every samples per request n, with its 95% interval, and the paired
bootstrap interval of each two-sample step.

The accuracy band is :func:`nkcore.common.bounded_mean.bounded_mean_intervals` (Clopper-Pearson on an effective
number of cases), the interval pass@k uses: the paired percentile bootstrap it replaces covered 0.12-0.68 at
majority@5 near accuracy 0 or 1 (15-120 cases); this one covers 0.938-1.000 in every cell (``docs/coverage.md``,
rows "majority@k vote-curve band"). The steps' paired bootstrap covers 0.42-0.64 at majority@3 -> @5 near 0 or 1
with 15-30 cases (rows "step majority@3 -> @5"). Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``): 142, 156, 158, 158 of 200 cases at n = 1, 3, 5, 7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from nkcore.common import limits
from nkcore.common.bounded_mean import bounded_mean_intervals
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.paired.bootstrap import interval_reliable
from nkcore.voting.bootstrap import bootstrap_weights, check_boot
from nkcore.voting.exact import case_credit_exact, case_credit_first_n
from nkcore.voting.rules import TieRule, check_tie
from nkcore.voting.samples import SampleSet

__all__ = ["CurvePoint", "VoteCurve", "column_percentiles", "vote_curve"]


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One samples-per-request value n on the measured curve.

    ``accuracy`` is the exact expected plurality accuracy over all n-subsets (mean over the ``n_cases`` cases
    with at least n samples); ``ci_low``/``ci_high`` its 95% interval (Clopper-Pearson on the effective number of
    cases, :func:`nkcore.common.bounded_mean.bounded_mean_intervals`); ``first_n_accuracy`` the
    vote over each case's first n samples (``first_n_correct`` cases); ``diff`` the step of two samples from
    ``diff_from_n`` = n - 2 to n (the odd-n ladder 1, 3, 5, ...), on the cases with at least n samples, with
    its 95% paired-bootstrap interval ``diff_ci_low``/``diff_ci_high`` (NaN, and diff_from_n 0, for n <= 2);
    ``diff_cases_changed`` the cases whose credit moves in that step (-1 for n <= 2): below
    :data:`nkcore.paired.bootstrap.FEW_CHANGED` the percentile interval covers less often than it says
    (docs/coverage.md), see :attr:`step_reliable`.
    """

    n: int
    n_cases: int
    accuracy: float
    ci_low: float
    ci_high: float
    first_n_accuracy: float
    first_n_correct: float
    diff_from_n: int
    diff: float
    diff_ci_low: float
    diff_ci_high: float
    diff_cases_changed: int = -1

    @property
    def step_reliable(self) -> bool:
        """Whether the step's paired interval can be read at its level (enough cases move:
        :func:`nkcore.paired.bootstrap.interval_reliable`); True where there is no step."""
        return self.diff_cases_changed < 0 or interval_reliable(self.diff_cases_changed)


@dataclass(frozen=True, slots=True)
class VoteCurve:
    """The measured curve: one :class:`CurvePoint` per n, the tie rule, the steps' bootstrap settings."""

    points: tuple[CurvePoint, ...]
    tie: str
    n_boot: int
    seed: int

    def point(self, n: int) -> CurvePoint:
        """The point at samples per request ``n`` (DataError when the data has no such n)."""
        for p in self.points:
            if p.n == n:
                return p
        raise DataError(f"the curve has no point at samples per request n={n} (max {self.points[-1].n})")


_BLOCK = 128  # columns per np.percentile call


def column_percentiles(b: np.ndarray, q: tuple[float, float] = (2.5, 97.5)) -> tuple[np.ndarray, np.ndarray]:
    """The ``q`` percentiles (linear interpolation) of every column of ``b`` (replicates x columns), NaNs left out:
    ``np.nanpercentile`` column by column, with the columns that hold no NaN done in one call (the same numbers;
    a thousand columns of samples per request cost one call, not a thousand).

    >>> [v.tolist() for v in column_percentiles(np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 3.0]]), (50.0, 50.0))]
    [[1.0, 2.0], [1.0, 2.0]]
    """
    lo, hi = np.full(b.shape[1], np.nan), np.full(b.shape[1], np.nan)
    whole = ~np.isnan(b).any(axis=0)
    cols = np.flatnonzero(whole)
    for start in range(0, len(cols), _BLOCK):  # a block of columns at a time: small copies for the partition
        block = cols[start : start + _BLOCK]
        lo[block], hi[block] = np.percentile(b[:, block], list(q), axis=0)
    for j in np.flatnonzero(~whole):
        if not np.isnan(b[:, j]).all():
            lo[j], hi[j] = np.nanpercentile(b[:, j], list(q))
    return lo, hi


def vote_curve(
    samples: SampleSet, tie: TieRule = "first", n_boot: int = 2000, seed: int | np.random.Generator = 0
) -> VoteCurve:
    """Exact plurality-vote accuracy at every samples per request n, with 95% intervals.

    accuracy(n) = mean over cases with >= n samples of x_i(n) = E[credit of an n-subset of case i]
    (:func:`nkcore.voting.exact.exact_case_curve`), each x_i(n) in [0, 1]. Its interval is Clopper-Pearson's on the
    effective number of cases n / r (r the variance ratio of the x_i(n); r = 1 for 0/1 values, where it is
    Clopper-Pearson's interval on the cases the vote gets right), :func:`nkcore.common.bounded_mean.bounded_mean_intervals`,
    the same band as majority@k in :func:`nkcore.voting.passk.pass_k_curves`; it uses neither ``n_boot`` nor
    ``seed``. The step n - 2 -> n, mean of x_i(n) - x_i(n - 2) on the cases with n samples, has a paired
    percentile bootstrap interval: cases resampled with replacement, the same resampled cases at both n
    (``n_boot`` replicates from ``seed``). References: Clopper & Pearson 1934, Biometrika 26:404; Korn & Graubard
    1998, Survey Methodology 24:193 (effective sample size); the chapter's ``paired_bootstrap`` (resample cases,
    not calls).

    >>> from nkcore.voting.samples import parse_samples
    >>> import pandas as pd
    >>> f = pd.DataFrame({"case": [1, 1, 1, 2, 2, 2], "sample": [1, 2, 3] * 2,
    ...                   "answer": list("aab") + list("bba"), "gold": "a"})
    >>> [round(p.accuracy, 4) for p in vote_curve(parse_samples(f), n_boot=100).points]
    [0.5, 0.5, 0.5]
    """
    check_tie(tie)
    check_boot(n_boot)
    m = samples.max_n
    limits.check_memory(8 * m * (12 * samples.n_cases + 2 * n_boot), "the vote curve and its bootstrap")
    exact = case_credit_exact(samples, tie)
    first = case_credit_first_n(samples, tie)
    mask = ~np.isnan(exact)
    e0 = np.where(mask, exact, 0.0)
    maskf = mask.astype(float)
    # paired steps n - 2 -> n on the cases that have n samples (so they have n - 2 as well)
    step = np.zeros_like(e0)
    step[:, 2:] = np.where(mask[:, 2:], e0[:, 2:] - e0[:, :-2], 0.0)
    db = np.empty((n_boot, m))  # filled in place: no list of chunks, no stacked copy
    done = 0
    for w in bootstrap_weights(samples.n_cases, n_boot, as_generator(seed)):  # the same resampled cases for every n
        rows = slice(done, done + len(w))
        with np.errstate(invalid="ignore", divide="ignore"):
            np.divide(w @ step, w @ maskf, out=db[rows])
        done += len(w)
    band = bounded_mean_intervals(exact)  # NaN where a case has fewer than n samples
    lows, highs = band.low, band.high
    dlows, dhighs = column_percentiles(db)
    points = []
    acc = np.nanmean(exact, axis=0)
    for j in range(m):
        n = j + 1
        lo, hi = lows[j], highs[j]
        if j < 2:
            d, dlo, dhi, moved = math.nan, math.nan, math.nan, -1
        else:
            d = float(step[mask[:, j], j].mean())
            dlo, dhi = float(dlows[j]), float(dhighs[j])
            moved = int(np.count_nonzero(step[mask[:, j], j]))
        fcol = first[:, j]
        points.append(
            CurvePoint(
                n=n,
                n_cases=int(mask[:, j].sum()),
                accuracy=float(acc[j]),
                ci_low=float(lo),
                ci_high=float(hi),
                first_n_accuracy=float(np.nanmean(fcol)),
                first_n_correct=float(np.nansum(fcol)),
                diff_from_n=n - 2 if n > 2 else 0,
                diff=d,
                diff_ci_low=dlo,
                diff_ci_high=dhi,
                diff_cases_changed=moved,
            )
        )
    return VoteCurve(points=tuple(points), tie=tie, n_boot=n_boot, seed=seed if isinstance(seed, int) else -1)
