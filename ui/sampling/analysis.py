"""Sampling's numbers: the vote analysis of the chosen samples under the tie rule (cached), and the frames and
model curves every section of the page draws from."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from nkcore import voting
from ui.common import cache, datasets

__all__ = ["VoteView", "analyse"]


@dataclass(frozen=True, slots=True)
class VoteView:
    """The analysis ``a`` of ``ds`` under ``tie``, its pass@k curves and flaky cases; single-call accuracy ``p`` at the curve's ``ns``; the estimated
    rho (0 when undefined: all right or all wrong); the ``measured`` curve and the model curves (``base_series``)."""

    ds: datasets.Dataset
    tie: str
    a: voting.VoteAnalysis
    passk: voting.PassKCurves
    flaky: voting.FlakyCases
    p: float
    ns: tuple[int, ...]
    rho_known: bool
    est_rho: float
    measured: pd.DataFrame
    base_series: dict[str, list[float]]


def analyse(ds: datasets.Dataset, tie: str) -> VoteView:
    """The vote analysis (exact vote curve with its 95% bands, rho, models), pass@k and the flaky cases
    (one cached computation: the samples are parsed once), and the frames the sections draw."""
    numbers = cache.compute(voting.sampling_numbers, ds, tie=tie, n_boot=2000, seed=0)
    a = numbers.analysis
    curve = a.curve
    p = curve.point(1).accuracy
    ns = tuple(pt.n for pt in curve.points)
    rho_known = math.isfinite(a.rho.rho)
    est_rho = max(a.rho.rho, 0.0) if rho_known else 0.0  # undefined rho (all right or all wrong): treat as independent
    measured = pd.DataFrame(
        {
            "n": ns,
            "accuracy": [pt.accuracy for pt in curve.points],
            "ci_low": [pt.ci_low for pt in curve.points],
            "ci_high": [pt.ci_high for pt in curve.points],
            "first_n_accuracy": [pt.first_n_accuracy for pt in curve.points],
            "cases": [pt.n_cases for pt in curve.points],
        }
    )
    base_series = {
        "independent samples": [voting.independent_accuracy(p, n) for n in ns],
        "correlated, estimated rho": list(voting.correlated_curve(p, ns, est_rho)),
        "beta-binomial difficulty model": list(a.beta_binomial_curve),
    }

    return VoteView(ds, tie, a, numbers.passk, numbers.flaky, p, ns, rho_known, est_rho, measured, base_series)
