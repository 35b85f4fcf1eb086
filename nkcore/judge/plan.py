"""How many human labels to buy beside a judge, and the cheapest split of a budget between labels and judge calls.

With the judge's correlation rho with the humans (measured on a pilot) and the human scores' spread sigma, PPI++
with its best weight has variance (Angelopoulos, Duchi & Zrnic 2023, "PPI++", sec. 2; Broska, Howes & van Loon
2024, "The mixed subjects design", eq. for the effective sample size)

    Var(n, N) = sigma^2 / n * (1 - rho^2 * N / (n + N))

for n labelled cases and N judge-only ones: the judge removes at most the share rho^2 of the variance, so it saves
at most the share rho^2 of the human labels (rho = 0.5: a quarter; Guo, Li & Chen 2026 state the same R^2 law).
:func:`labels_for_half_width` and :func:`labels_for_power` solve Var = (target se)^2 for n in closed form;
:func:`cheapest_split` is ``ppi_py.ppi_power`` (``effective_n`` given, no cost of unlabelled data): the (n, N)
reaching a humans-only precision of ``effective_n`` labels at the least cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from nkcore.common.checks import check_confidence, check_power, check_significance
from nkcore.errors import DataError

__all__ = [
    "LabelPlan",
    "PilotFit",
    "SplitPlan",
    "cheapest_split",
    "labels_for_half_width",
    "labels_for_power",
    "labels_for_se",
    "pilot_fit",
]


@dataclass(frozen=True, slots=True)
class PilotFit:
    """What a pilot says: ``rho`` (Pearson correlation of judge and human on the labelled cases, 0 when either does
    not vary), ``sigma_human`` (sample standard deviation of the human scores), ``n_labelled``."""

    rho: float
    sigma_human: float
    n_labelled: int


@dataclass(frozen=True, slots=True)
class LabelPlan:
    """Human labels for a target standard error ``target_se`` (a half-width / z, or a difference / (z_a + z_b)).

    ``human_only_labels``: the count with no judge (sigma^2 / se^2); ``ppi_labels``: with the judge on ``n_cases``
    cases (None: as many as wanted), None when even labelling every case cannot reach it; ``saving`` the share of
    human labels the judge saves (1 - ppi / human_only); ``max_saving`` rho^2, the most any number of judge calls
    can save."""

    target_se: float
    sigma_human: float
    rho: float
    n_cases: int | None
    human_only_labels: int
    ppi_labels: int | None
    saving: float
    max_saving: float


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """The cheapest (human labels, judge calls) with the precision of ``effective_n`` humans-only labels.

    ``n_human`` labelled cases (each also judged), ``n_judge_only`` judge-only cases, ``judge_calls`` = n_human +
    n_judge_only; ``cost``; ``human_only_cost`` = effective_n * price_human; ``saving`` = 1 - cost /
    human_only_cost (0 when the judge does not pay: then n_human = effective_n and no judge call); ``uses_judge``."""

    effective_n: int
    rho: float
    price_human: float
    price_judge: float
    n_human: int
    n_judge_only: int
    judge_calls: int
    cost: float
    human_only_cost: float
    saving: float
    uses_judge: bool


def pilot_fit(y_labelled: object, yhat_labelled: object) -> PilotFit:
    """rho and sigma of a pilot's labelled cases (Pearson correlation; sample standard deviation).

    >>> p = pilot_fit([1, 2, 3, 4], [1, 3, 2, 4])
    >>> round(p.rho, 2), round(p.sigma_human, 4)
    (0.8, 1.291)
    """
    y, yh = np.asarray(y_labelled, dtype=float).ravel(), np.asarray(yhat_labelled, dtype=float).ravel()
    if y.size != yh.size or y.size < 2:
        raise DataError("a pilot needs at least 2 cases with both a human label and a judge score")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(yh))):
        raise DataError("the pilot's scores must be finite numbers")
    sy, sh = float(np.std(y)), float(np.std(yh))
    rho = 0.0 if sy == 0 or sh == 0 else float(np.corrcoef(y, yh)[0, 1])
    return PilotFit(rho, float(np.std(y, ddof=1)), int(y.size))


def _check(sigma_human: float, rho: float, n_cases: int | None) -> None:
    if not (math.isfinite(sigma_human) and sigma_human > 0):
        raise DataError(f"the human scores' standard deviation must be positive; got {sigma_human}")
    if not (math.isfinite(rho) and -1.0 < rho < 1.0):
        raise DataError(f"the judge-human correlation must be strictly between -1 and 1; got {rho}")
    if n_cases is not None and n_cases < 2:
        raise DataError(f"the number of judged cases must be at least 2; got {n_cases}")


def labels_for_se(target_se: float, sigma_human: float, rho: float, n_cases: int | None = None) -> LabelPlan:
    """Human labels for a target standard error of the mean.

    Formula: Var(n) = sigma^2/n (1 - rho^2 (T - n)/T) with T = n_cases (n labelled of T judged) gives
    n = sigma^2 (1 - rho^2) / (se^2 - sigma^2 rho^2 / T), rounded up (T = infinity: n = (1 - rho^2) sigma^2 / se^2);
    humans only: n0 = sigma^2 / se^2 (module docstring).

    >>> p = labels_for_se(0.1, 1.0, 0.6)
    >>> p.human_only_labels, p.ppi_labels, round(p.saving, 2)
    (100, 64, 0.36)
    """
    _check(sigma_human, rho, n_cases)
    if not (math.isfinite(target_se) and target_se > 0):
        raise DataError(f"the target precision must be positive; got {target_se}")
    r2 = rho * rho
    n0 = math.ceil(sigma_human**2 / target_se**2 - 1e-9)
    denom = target_se**2 - (sigma_human**2 * r2 / n_cases if n_cases else 0.0)
    n: int | None
    if denom <= 0:
        n = None
    else:
        n = max(2, math.ceil(sigma_human**2 * (1.0 - r2) / denom - 1e-9))
        if n_cases is not None and n > n_cases:
            n = None
    saving = 1.0 - n / n0 if n is not None and n0 > 0 else 0.0
    return LabelPlan(target_se, sigma_human, rho, n_cases, max(n0, 2), n, max(0.0, saving), r2)


def labels_for_half_width(
    half_width: float, sigma_human: float, rho: float, confidence: float = 0.95, n_cases: int | None = None
) -> LabelPlan:
    """Human labels for an interval of half-width ``half_width`` at ``confidence`` (normal interval):
    :func:`labels_for_se` with se = half_width / z_{(1 + confidence)/2}.

    >>> labels_for_half_width(0.196, 1.0, 0.0).human_only_labels
    100
    """
    z = float(stats.norm.ppf(0.5 + check_confidence(confidence) / 2.0))
    return labels_for_se(half_width / z, sigma_human, rho, n_cases)


def labels_for_power(
    difference: float,
    sigma_human: float,
    rho: float,
    significance: float = 0.05,
    power: float = 0.8,
    n_cases: int | None = None,
) -> LabelPlan:
    """Human labels for a two-sided level-``significance`` test of a mean (or paired difference) to detect
    ``difference`` with ``power``: :func:`labels_for_se` with se = |difference| / (z_{1 - significance/2} +
    z_power) (the normal power formula, e.g. Chow, Shao & Wang, "Sample Size Calculations", sec. 3.1).

    >>> labels_for_power(0.28, 1.0, 0.0).human_only_labels
    101
    """
    if not (math.isfinite(difference) and difference != 0):
        raise DataError(f"the difference to detect must be a non-zero number; got {difference}")
    za = float(stats.norm.ppf(1.0 - check_significance(significance) / 2.0))
    zb = float(stats.norm.ppf(check_power(power)))
    return labels_for_se(abs(difference) / (za + zb), sigma_human, rho, n_cases)


def cheapest_split(effective_n: float, rho: float, price_human: float, price_judge: float) -> SplitPlan:
    """The cheapest PPI design as precise as ``effective_n`` humans-only labels (``ppi_py.ppi_power`` with
    ``effective_n``, ``cost_X = 0``: Broska, Howes & van Loon 2024; ppi-python 0.2.3).

    Formula: gamma = price_judge / price_human; n = n0 (1 - rho^2 + sqrt(gamma rho^2 (1 - rho^2))),
    N = n (n0 - n) / (n - (1 - rho^2) n0), each rounded; PPI pays when price_human (1 - rho^2 + gamma rho^2 +
    2 sqrt(gamma rho^2 (1 - rho^2))) < price_human, else humans only (n = n0, no judge call).

    >>> s = cheapest_split(100, 0.8, 1.0, 0.01)
    >>> s.n_human, s.n_judge_only, round(s.saving, 2)
    (41, 503, 0.54)
    """
    if not (math.isfinite(effective_n) and effective_n >= 1):
        raise DataError(f"the target effective number of human labels must be at least 1; got {effective_n}")
    if not (math.isfinite(price_human) and price_human > 0 and math.isfinite(price_judge) and price_judge >= 0):
        raise DataError(
            f"prices must be finite, a human label's positive; got human {price_human}, judge {price_judge}"
        )
    _check(1.0, rho, None)
    r2 = rho * rho
    gamma = price_judge / price_human
    ppi_cost = price_human * (1 - r2 + gamma * r2 + 2 * math.sqrt(gamma * r2 * (1 - r2)))
    human_cost = float(effective_n * price_human)
    n_f = effective_n * (1 - r2 + math.sqrt(gamma * r2 * (1 - r2)))
    big_n_f = n_f * (effective_n - n_f) / (n_f - (1 - r2) * effective_n) if rho != 0 else 0.0
    n, big_n = round(n_f), round(big_n_f)
    if price_human < ppi_cost or big_n < 0 or rho == 0:
        n0 = round(effective_n)
        return SplitPlan(n0, rho, price_human, price_judge, n0, 0, 0, n0 * price_human, human_cost, 0.0, False)
    cost = n * price_human + (n + big_n) * price_judge
    return SplitPlan(
        round(effective_n),
        rho,
        price_human,
        price_judge,
        n,
        big_n,
        n + big_n,
        cost,
        human_cost,
        1.0 - cost / human_cost,
        True,
    )
