"""Prediction-powered inference for a mean: judge scores on every case, human labels on a random subset (PPI++).

With n human-labelled cases (human score Y_i, judge score Yhat_i) and N judge-only cases (Yhat~_j), PPI++ estimates
the mean human score as

    theta(lambda) = lambda * mean(Yhat~) + mean(Y - lambda * Yhat),
    se(lambda)^2  = Var_0(lambda * Yhat~) / N + Var_0(Y - lambda * Yhat) / n          (Var_0: divisor n, not n - 1)

and reports theta +- z_{1 - significance/2} se. lambda = 0 is the humans-only mean; lambda = 1 is plain PPI
(Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference", Science 2023). Power tuning
(Angelopoulos, Duchi & Zrnic, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453, 2023, eq. 6 for
the mean) picks

    lambda_hat = Cov_0(Y, Yhat) / ((1 + n / N) * Var_1(Yhat, Yhat~)),   clipped to [0, 1],

(Var_1: the sample variance, divisor n + N - 1, of the judge scores of all cases), as ``ppi_py`` 0.2.3 does
(``ppi_mean_ci`` with ``lam=None``): the estimate and interval here equal that package's to rounding. One addition:
when the tuned lambda's standard error exceeds the humans-only one (lambda = 0) on the same labels, which can
happen by noise in small samples, lambda = 0 is used, so the interval is never wider than the humans-only normal
interval (``MeanInterval.fallback`` says so). The interval is valid whatever the judge's quality or scale, as long
as the labelled cases are a random subset of the cases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from nkcore.common.checks import check_confidence, check_significance
from nkcore.errors import DataError

__all__ = [
    "INTERVALS",
    "SPARSE_BELOW",
    "T_BELOW",
    "MeanInterval",
    "effective_human_labels",
    "exact_binary_interval",
    "human_only_interval",
    "human_only_verdict_interval",
    "judge_only_interval",
    "normal_p_value",
    "ppi_lambda",
    "ppi_mean_interval",
    "sparse_binary",
    "uses_t",
]

INTERVALS = ("auto", "normal", "t")
"""The interval choices: "normal" is PPI++'s (``ppi_py.ppi_mean_ci``), "t" the small-sample one
(:func:`ppi_mean_interval` with ``small_sample=True``), "auto" t below :data:`T_BELOW` human labels, else normal."""
T_BELOW = 50
"""Below this many human labels "auto" uses the t interval: at 30 labels the normal one held 89.9-93.7% in
benchmarks/bench_judge.py (95% nominal), the t one 91.1-95.1%; from 150 labels on both hold 93.5-95.9%."""
VERDICTS = (0.0, 0.5, 1.0)
"""Human labels on these values are verdicts (0/1; 0.5 a tie of a pairwise verdict): :func:`sparse_binary`."""
SPARSE_BELOW = 10
""":func:`sparse_binary`: 0/1 (or 0 / 0.5 / 1) human labels with fewer than this many 1s, 0s, or judge-human disagreements (a 0/1
judge) are the sparse corner, where the normal and t intervals ran at 23-90% coverage (docs/coverage.md)."""


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """A mean with its two-sided interval at ``confidence``.

    ``estimate``, ``ci_low``, ``ci_high``, ``se`` (its standard error); ``n_labelled`` human-labelled cases used and
    ``n_unlabelled`` judge-only cases; ``lam`` the weight of the judge (PPI++'s lambda: 1 plain PPI, 0 humans only;
    NaN for an interval that is not PPI); ``fallback`` True when the tuned lambda was replaced by 0 because it gave a
    wider interval; ``method`` one of "ppi++", "humans only (t)", "judge only (t)".
    """

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    n_labelled: int
    n_unlabelled: int
    lam: float
    confidence: float
    method: str
    fallback: bool = False

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return 0.5 * (self.ci_high - self.ci_low)


def _vector(x: object, what: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float).ravel()
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{what} must be finite numbers (a missing or infinite value was found)")
    return arr


def _check_labelled(y: np.ndarray, yhat: np.ndarray) -> None:
    if y.size != yhat.size:
        raise DataError(
            f"human labels ({y.size}) and judge scores on the labelled cases ({yhat.size}) differ in number"
        )
    if y.size < 2:
        raise DataError(
            f"PPI needs at least 2 human-labelled cases; got {y.size}: label a random sample of the cases by hand"
        )


def ppi_lambda(y_labelled: object, yhat_labelled: object, yhat_unlabelled: object) -> float:
    """PPI++'s power-tuning weight of the judge for a mean.

    Formula: lambda_hat = Cov_0(Y, Yhat) / ((1 + n/N) Var_1(Yhat over all n + N cases)), clipped to [0, 1]
    (Angelopoulos, Duchi & Zrnic 2023, "PPI++", sec. 2 and eq. 6; ``ppi_py._calc_lam_glm`` with the mean's
    gradients). 0 when there is no judge-only case or the judge's scores do not vary.

    >>> round(ppi_lambda([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 0, 1, 0, 1]), 4)
    0.2812
    """
    y, yh, yu = (
        _vector(y_labelled, "human labels"),
        _vector(yhat_labelled, "judge scores"),
        _vector(yhat_unlabelled, "judge scores"),
    )
    _check_labelled(y, yh)
    n, big_n = y.size, yu.size
    if big_n == 0:
        return 0.0
    cov0 = float(np.mean((y - y.mean()) * (yh - yh.mean())))
    var1 = float(np.var(np.concatenate([yh, yu]), ddof=1))
    if var1 <= 0.0:
        return 0.0
    return float(np.clip(cov0 / ((1.0 + n / big_n) * var1), 0.0, 1.0))


def _z(significance: float) -> float:
    return float(stats.norm.ppf(1.0 - check_significance(significance) / 2.0))


def _ppi_at(y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lam: float, ddof: int = 0) -> tuple[float, float]:
    """(estimate, se) of PPI at weight ``lam`` (variances with divisor size - ddof)."""
    est = (lam * float(yu.mean()) if yu.size else 0.0) + float(np.mean(y - lam * yh))
    imputed = float(np.std(lam * yu, ddof=ddof)) / math.sqrt(yu.size) if yu.size > ddof else 0.0
    rect = float(np.std(y - lam * yh, ddof=ddof)) / math.sqrt(y.size)
    return est, math.sqrt(imputed**2 + rect**2)


def ppi_mean_interval(
    y_labelled: object,
    yhat_labelled: object,
    yhat_unlabelled: object,
    significance: float = 0.05,
    lam: float | None = None,
    small_sample: bool = False,
    sparse_adjust: bool = True,
) -> MeanInterval:
    """The judge-corrected (PPI++) mean of the human scores and its 1 - significance interval.

    Formula: theta = lambda mean(Yhat~) + mean(Y - lambda Yhat), se^2 = Var_0(lambda Yhat~)/N + Var_0(Y -
    lambda Yhat)/n, interval theta +- z se (module docstring); ``lam=None`` tunes lambda (:func:`ppi_lambda`,
    replaced by 0 when that is narrower). Equals ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=significance)``
    and ``ppi_mean_pointestimate`` (Angelopoulos, Duchi & Zrnic 2023, "PPI++").

    ``small_sample=True`` (not PPI++'s, an adjustment of this project; docs/judge.md): the variances with divisor
    size - 1 and the quantile t_{n-1, 1 - significance/2}, as a humans-only t interval would; with 30 human labels
    it brings the simulated coverage from 89.9-93.7% to 91.1-95.1% (benchmarks/bench_judge.py). Same estimate.
    :func:`uses_t` gives the product's automatic choice.

    ``sparse_adjust`` (default; only with ``lam=None``): in the sparse 0/1 corner (:func:`sparse_binary`) the
    interval is the pseudo-count one of :func:`_sparse_interval` (Agresti-Coull applied to PPI), or the humans-only
    Clopper-Pearson interval when that is no wider; ``False`` gives the plain interval everywhere (ppi_py's).

    >>> r = ppi_mean_interval([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 0, 1, 0, 1], sparse_adjust=False)
    >>> round(r.estimate, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.4297, -0.0169, 0.8763)
    >>> r = ppi_mean_interval([1, 0, 1, 0], [1, 0, 1, 1], [1, 0, 0, 1, 0, 1])  # two 1s of 4: the sparse corner
    >>> r.method, round(r.ci_low, 4), round(r.ci_high, 4)
    ('ppi++ (sparse verdicts, pseudo-count)', 0.15, 0.85)
    """
    y, yh, yu = (
        _vector(y_labelled, "human labels"),
        _vector(yhat_labelled, "judge scores"),
        _vector(yhat_unlabelled, "judge scores"),
    )
    _check_labelled(y, yh)
    z = _z(significance)
    ddof = 0
    if small_sample:
        z, ddof = float(stats.t.ppf(1.0 - significance / 2.0, y.size - 1)), 1
    fallback = False
    if lam is None and sparse_adjust and sparse_binary(y, yh):
        return _sparse_interval(y, yh, yu, significance, z, ddof)
    if lam is None:
        lam_used = ppi_lambda(y, yh, yu)
        est, se = _ppi_at(y, yh, yu, lam_used, ddof)
        est0, se0 = _ppi_at(y, yh, yu, 0.0, ddof)
        if se > se0:
            lam_used, est, se, fallback = 0.0, est0, se0, True
    else:
        if not (math.isfinite(lam) and 0.0 <= lam <= 1.0):
            raise DataError(f"the judge's weight lambda must be between 0 and 1; got {lam}")
        lam_used = float(lam)
        est, se = _ppi_at(y, yh, yu, lam_used, ddof)
    method = "ppi++ (t, small-sample)" if small_sample else "ppi++"
    return MeanInterval(
        est, est - z * se, est + z * se, se, int(y.size), int(yu.size), lam_used, 1.0 - significance, method, fallback
    )


def sparse_binary(y_labelled: object, yhat_labelled: object) -> bool:
    """Whether the human labels are verdicts (0/1, or 0 / 0.5 / 1 for pairwise with ties) and few of them are not 0
    (or not 1), or a judge on the same scale disagrees with them on few cases: fewer than :data:`SPARSE_BELOW`. There the sample variance of the labels (or of the judge-human
    residuals) is near 0 and the normal or t interval runs short, Wald's trouble near 0 and 1 (Brown, Cai &
    DasGupta 2001, "Interval estimation for a binomial proportion").

    >>> sparse_binary([0, 0, 1] * 5, [0, 0, 1] * 5), sparse_binary([0, 1] * 30, [1, 0] * 30)
    (True, False)
    """
    y, yh = _vector(y_labelled, "human labels"), _vector(yhat_labelled, "judge scores")
    if y.size == 0 or not np.all(np.isin(y, VERDICTS)):
        return False
    if min(int(np.sum(y != 0.0)), int(np.sum(y != 1.0))) < SPARSE_BELOW:
        return True
    same_scale = yh.size == y.size and bool(np.all(np.isin(yh, VERDICTS)))
    return same_scale and int(np.sum(yh != y)) < SPARSE_BELOW


def exact_binary_interval(y_labelled: object, confidence: float = 0.95) -> MeanInterval:
    """The humans-only mean of 0/1 labels with its Clopper-Pearson (exact) interval: with k ones in n,
    [Beta_{alpha/2}(k, n - k + 1), Beta_{1 - alpha/2}(k + 1, n - k)] (0 and 1 at k = 0 and k = n; Clopper & Pearson
    1934). Its coverage is at least ``confidence`` at every rate.

    >>> r = exact_binary_interval([0] * 15)
    >>> round(r.ci_low, 4), round(r.ci_high, 4)
    (0.0, 0.218)
    """
    y = _vector(y_labelled, "human labels")
    if y.size < 1 or not np.all((y == 0.0) | (y == 1.0)):
        raise DataError("an exact interval needs human labels that are all 0 or 1")
    c = check_confidence(confidence)
    n, k, a = int(y.size), int(y.sum()), 1.0 - c
    lo = float(stats.beta.ppf(a / 2.0, k, n - k + 1)) if k > 0 else 0.0
    hi = float(stats.beta.ppf(1.0 - a / 2.0, k + 1, n - k)) if k < n else 1.0
    p = k / n
    return MeanInterval(p, lo, hi, math.sqrt(p * (1.0 - p) / n), n, 0, 0.0, c, "humans only (exact)")


SPARSE_METHOD = "ppi++ (sparse verdicts, pseudo-count)"


def human_only_verdict_interval(
    y_labelled: object, confidence: float = 0.95, small_sample: bool = False
) -> MeanInterval:
    """The humans-only interval in the sparse corner (:func:`sparse_binary`): Clopper-Pearson for 0/1 labels
    (:func:`exact_binary_interval`), the pseudo-count (Agresti-Coull) interval for 0 / 0.5 / 1 labels, i.e.
    :func:`ppi_mean_interval` with no judge-only case (lambda = 0; ``small_sample`` as there): what PPI in the corner
    is never wider than.

    >>> r = human_only_verdict_interval([0.0, 0.5] + [0.0] * 18)
    >>> round(r.ci_low, 4), round(r.ci_high, 4)
    (0.0, 0.2156)
    """
    y = _vector(y_labelled, "human labels")
    if y.size and np.all((y == 0.0) | (y == 1.0)):
        return exact_binary_interval(y, confidence)
    c = check_confidence(confidence)
    q, ddof = _z(1.0 - c), 0
    if small_sample:  # the quantile and divisor the PPI interval beside it uses (ppi_mean_interval)
        q, ddof = float(stats.t.ppf(0.5 + c / 2.0, y.size - 1)), 1
    r = _sparse_interval(y, y, np.array([]), 1.0 - c, q, ddof)
    return MeanInterval(
        float(y.mean()), r.ci_low, r.ci_high, r.se, r.n_labelled, 0, 0.0, c, "humans only (pseudo-count)"
    )


def _sparse_interval(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, significance: float, q: float, ddof: int
) -> MeanInterval:
    """PPI in the sparse 0/1 corner: z^2/4 pseudo-cases in each cell of (human label 0 or 1) x (the judge's lowest
    or highest score), the four cells of a 0/1 judge, join the labelled ones (Agresti & Coull 1998's "add z^2/2
    successes and failures", applied to the labelled pairs PPI's rectifier Y - lambda Yhat uses, so the rare
    judge-human disagreements get pseudo-counts too; at lambda = 0 it is the Agresti-Coull interval); lambda is
    PPI++'s tuned one or 0, whichever gives the narrower interval (so never wider than the humans-only pseudo-count
    interval, lambda = 0); the interval is clipped to [0, 1]; the estimate is PPI++'s at that lambda (the
    pseudo-cases move the interval's centre only; the interval is stretched to hold it when it does not). When the
    Clopper-Pearson
    interval on the human labels alone is no wider, it is used instead (``fallback``), so PPI is never wider than
    the humans-only exact interval."""
    z = _z(significance)
    judged = np.concatenate([yh, yu])
    lo_j, hi_j = float(judged.min()), float(judged.max())
    ya = np.concatenate([y, [1.0, 1.0, 0.0, 0.0]])
    yha = np.concatenate([yh, [lo_j, hi_j, lo_j, hi_j]])
    w = np.concatenate([np.ones(y.size), np.full(4, z * z / 4.0)])
    total = float(w.sum())
    best: tuple[float, float, float, float, float] | None = None  # lambda, estimate, se, low, high
    for lam in sorted({ppi_lambda(y, yh, yu), 0.0}):
        r = ya - lam * yha
        rm = float(np.sum(w * r) / total)
        rect = math.sqrt(float(np.sum(w * (r - rm) ** 2)) / (total - ddof) / total)
        imputed = float(np.std(lam * yu, ddof=ddof)) / math.sqrt(yu.size) if yu.size > ddof else 0.0
        centre, se = (lam * float(yu.mean()) if yu.size else 0.0) + rm, math.sqrt(rect**2 + imputed**2)
        lo, hi = max(0.0, centre - q * se), min(1.0, centre + q * se)
        est = _ppi_at(y, yh, yu, lam, ddof)[0]  # the point estimate stays PPI++'s (ppi_py's); the interval moves
        lo, hi = min(lo, max(est, 0.0)), max(hi, min(est, 1.0))  # and holds it (rarely needed)
        if best is None or hi - lo < best[4] - best[3]:
            best = (lam, est, se, lo, hi)
    assert best is not None
    lam, est, se, lo, hi = best
    if not np.all((y == 0.0) | (y == 1.0)):  # ties: no exact interval to fall back to
        return MeanInterval(
            est, lo, hi, se, int(y.size), int(yu.size), lam, 1.0 - significance, SPARSE_METHOD, lam == 0
        )
    exact = exact_binary_interval(y, 1.0 - significance)
    if exact.ci_high - exact.ci_low <= hi - lo:
        return MeanInterval(
            exact.estimate, exact.ci_low, exact.ci_high, exact.se, int(y.size), int(yu.size), 0.0,
            exact.confidence, "humans only (exact)", True,
        )  # fmt: skip
    return MeanInterval(est, lo, hi, se, int(y.size), int(yu.size), lam, 1.0 - significance, SPARSE_METHOD, lam == 0)


def uses_t(interval: str, n_labelled: int) -> bool:
    """Whether ``interval`` ("auto", "normal" or "t", :data:`INTERVALS`) means the small-sample t interval for
    ``n_labelled`` human labels: "auto" is t when n_labelled < :data:`T_BELOW` (docs/judge.md's coverage table).

    >>> uses_t("auto", 30), uses_t("auto", 50), uses_t("normal", 30), uses_t("t", 500)
    (True, False, False, True)
    """
    if interval not in INTERVALS:
        raise DataError(f"the interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    return interval == "t" or (interval == "auto" and n_labelled < T_BELOW)


def human_only_interval(y_labelled: object, confidence: float = 0.95) -> MeanInterval:
    """The humans-only mean and its Student t interval (the judge ignored).

    Formula: mean(Y) +- t_{n-1, (1+confidence)/2} s / sqrt(n), s the sample standard deviation (divisor n - 1)
    (Student 1908; any statistics text, e.g. Wasserman, "All of Statistics", sec. 10.2).

    >>> r = human_only_interval([1, 2, 3, 4])
    >>> round(r.ci_low, 4), round(r.ci_high, 4)
    (0.4457, 4.5543)
    """
    y = _vector(y_labelled, "human labels")
    if y.size < 2:
        raise DataError(f"an interval needs at least 2 human labels; got {y.size}")
    return _t_interval(y, confidence, "humans only (t)", n_labelled=int(y.size))


def judge_only_interval(yhat_all: object, confidence: float = 0.95) -> MeanInterval:
    """The judge's own mean over all cases and its Student t interval: what a judge-only report would say.

    Formula: mean(Yhat) +- t_{N-1} s / sqrt(N). It measures the judge, not the humans: its interval says nothing
    about the judge's bias (the reason for PPI; Angelopoulos et al. 2023, "Prediction-powered inference", sec. 1).

    >>> round(judge_only_interval([2, 4, 4, 6]).estimate, 2)
    4.0
    """
    yh = _vector(yhat_all, "judge scores")
    if yh.size < 2:
        raise DataError(f"an interval needs at least 2 judge scores; got {yh.size}")
    return _t_interval(yh, confidence, "judge only (t)", n_labelled=0, n_unlabelled=int(yh.size))


def _t_interval(x: np.ndarray, confidence: float, method: str, n_labelled: int, n_unlabelled: int = 0) -> MeanInterval:
    c = check_confidence(confidence)
    se = float(np.std(x, ddof=1)) / math.sqrt(x.size)
    t = float(stats.t.ppf(0.5 + c / 2.0, x.size - 1))
    m = float(x.mean())
    return MeanInterval(m, m - t * se, m + t * se, se, n_labelled, n_unlabelled, math.nan, c, method)


def effective_human_labels(y_labelled: object, ppi: MeanInterval) -> float:
    """How many human labels, used alone, would give the PPI interval's precision.

    Formula: n_eff = n Var_human_only / Var_ppi = n (Var_0(Y) / n) / se_ppi^2 = Var_0(Y) / se_ppi^2, the humans-only
    variance with the same estimate PPI uses (divisor n; n - 1 with ``small_sample``), so lambda = 0 gives exactly n (Angelopoulos, Duchi & Zrnic
    2023, "PPI++", sec. 6, "effective sample size"; Boyeau et al. 2024, "AutoEval done right"). Infinite when
    se_ppi is 0; NaN when the human labels do not vary.

    >>> y = [1.0, 0.0, 1.0, 0.0]
    >>> effective_human_labels(y, ppi_mean_interval(y, [1, 0, 1, 1], [1, 0, 0, 1, 0, 1], lam=0.0))
    4.0
    """
    y = _vector(y_labelled, "human labels")
    var0 = float(np.var(y, ddof=1 if "small-sample" in ppi.method else 0))  # the variance estimate PPI used
    if var0 == 0.0:
        return math.nan
    if ppi.se == 0.0:
        return math.inf
    return var0 / ppi.se**2


def normal_p_value(estimate: float, se: float, null: float = 0.0) -> float:
    """Two-sided p-value of estimate = null under a normal law: 2 (1 - Phi(|estimate - null| / se)).

    >>> round(normal_p_value(1.96, 1.0), 3)
    0.05
    """
    if se <= 0.0 or not math.isfinite(se):
        return 0.0 if estimate != null else 1.0
    return float(2.0 * stats.norm.sf(abs(estimate - null) / se))
