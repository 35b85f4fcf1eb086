"""The "predict the next step" check: fit rho on the curve up to n = k, predict n = k + 2, compare with the data.

A model that explains the curve so far should predict its next point; a miss says which way the samples'
correlation was misjudged. Reference: the chapter "The accuracy curve flattens sooner than the sample count
suggests", "That gives you a prediction to check rather than a shrug".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize

from nkcore.errors import DataError
from nkcore.voting.curve import VoteCurve
from nkcore.voting.models import beta_binomial_curve, correlated_accuracy, fit_beta_binomial
from nkcore.voting.rules import TieRule
from nkcore.voting.samples import SampleSet

__all__ = ["READINGS", "NextStepCheck", "Reading", "fit_rho_to_curve", "predict_next_step"]

Reading = Literal["exact", "first_n"]
READINGS: tuple[str, ...] = ("exact", "first_n")


@dataclass(frozen=True, slots=True)
class NextStepCheck:
    """The "predict the next step" check: rho fitted on n <= ``fit_upto``, prediction at ``predict_n``.

    ``direction`` is "above" (measured climbed faster than predicted), "below" (flattened earlier) or "on"
    (equal to 3 decimals); ``within_noise`` says whether the prediction falls inside the measured point's
    95% interval; ``beta_binomial`` is the beta-binomial model's prediction from the same samples.
    """

    fit_upto: int
    predict_n: int
    p_single: float
    rho_fitted: float
    predicted: float
    beta_binomial: float
    measured: float
    ci_low: float
    ci_high: float
    missed_by: float
    direction: str
    within_noise: bool


def fit_rho_to_curve(p: float, ns: np.ndarray, acc: np.ndarray) -> float:
    """The rho in [0, 1] whose correlated curve is closest to measured accuracies ``acc`` at ``ns`` (least squares).

    rho = argmin sum_n (I_p at N_eff(n, rho) - acc(n))^2, bounded scalar search; 0 when there is nothing to fit
    (no points, or p at 0 or 1).

    >>> from nkcore.voting.models import correlated_accuracy
    >>> ns = np.array([3, 5, 7])
    >>> round(fit_rho_to_curve(0.71, ns, np.array([correlated_accuracy(0.71, n, 0.17) for n in ns])), 4)
    0.17
    """
    if len(ns) == 0 or not 0 < p < 1:
        return 0.0

    def loss(r: float) -> float:
        return float(sum((correlated_accuracy(p, n, r) - a) ** 2 for n, a in zip(ns, acc, strict=True)))

    res = optimize.minimize_scalar(loss, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def predict_next_step(
    curve: VoteCurve,
    samples: SampleSet,
    fit_upto: int,
    step: int = 2,
    tie: TieRule = "first",
    reading: Reading = "exact",
) -> NextStepCheck:
    """Fit rho on the measured curve at n <= ``fit_upto``, predict n = fit_upto + step, compare with the data.

    p = measured accuracy at n = 1; rho minimises sum over odd 3 <= n <= k of (I_p at N_eff(n, rho) -
    measured(n))^2 on [0, 1] (odd n only: at even n a vote can tie, which the continuous formula does not
    describe); prediction = I_p at N_eff(k + step, rho). ``reading`` "exact" uses the curve over all n-subsets,
    "first_n" the first-n-samples reading. Also the beta-binomial model fitted on each case's first k samples.
    Reference: the chapter, "That gives you a prediction to check rather than a shrug".
    """
    target = fit_upto + step
    if fit_upto < 3:
        raise DataError(f"fit on n <= k needs k >= 3 (an odd n above 1 to fit rho on), got {fit_upto}")
    if target > curve.points[-1].n:
        raise DataError(f"cannot check n={target}: the data has at most {curve.points[-1].n} samples per request")
    if reading not in READINGS:
        raise DataError(f"reading must be 'exact' or 'first_n', got {reading!r}")

    def acc_at(n: int) -> float:
        pt = curve.point(n)
        return pt.accuracy if reading == "exact" else pt.first_n_accuracy

    p = acc_at(1)
    ns = np.arange(3, fit_upto + 1, 2)
    acc = np.array([acc_at(int(n)) for n in ns])
    rho = fit_rho_to_curve(p, ns, acc)
    pred = correlated_accuracy(p, target, rho) if 0 < p < 1 else p
    bb = beta_binomial_curve(fit_beta_binomial(samples, max_n=fit_upto), (target,), tie)[0]
    pt = curve.point(target)
    measured = acc_at(target)
    diff = measured - pred
    direction = "on" if abs(diff) < 5e-4 else ("above" if diff > 0 else "below")
    return NextStepCheck(
        fit_upto=fit_upto,
        predict_n=target,
        p_single=p,
        rho_fitted=rho,
        predicted=pred,
        beta_binomial=bb,
        measured=measured,
        ci_low=pt.ci_low,
        ci_high=pt.ci_high,
        missed_by=diff,
        direction=direction,
        within_noise=bool(pt.ci_low <= pred <= pt.ci_high),
    )
