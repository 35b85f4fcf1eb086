"""DataFrame-in entry points of the vote analysis, for the Sampling and Cost pages (through ``ui.common.cache``) and the CLI.

Each function takes a samples table plus plain hashable parameters, parses it with
:func:`nkcore.voting.samples.parse_samples` and calls the array engine. Results are frozen dataclasses (picklable,
so they can be cached).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from nkcore.voting.adaptive import AdaptiveResult, adaptive_topup
from nkcore.voting.curve import VoteCurve, vote_curve
from nkcore.voting.flaky import FlakyCases, flaky_cases
from nkcore.voting.models import (
    BetaBinomialFit,
    NEffRow,
    RhoEstimate,
    beta_binomial_curve,
    estimate_rho,
    fit_beta_binomial,
    n_eff_table,
)
from nkcore.voting.next_step import NextStepCheck, Reading, predict_next_step
from nkcore.voting.passk import PassKCurves, pass_k_curves
from nkcore.voting.rules import TieRule, Trigger
from nkcore.voting.samples import SampleSet, parse_samples
from nkcore.voting.unfixable import UnfixableErrors, unfixable_errors

__all__ = [
    "SamplingNumbers",
    "VoteAnalysis",
    "adaptive_from_frame",
    "analyze_samples",
    "next_step_from_frame",
    "sampling_numbers",
    "unfixable_from_frame",
]


@dataclass(frozen=True, slots=True)
class VoteAnalysis:
    """Everything the Sampling page and ``vote`` CLI show for one samples table."""

    n_cases: int
    max_n: int
    binary: bool
    curve: VoteCurve
    rho: RhoEstimate
    beta_binomial: BetaBinomialFit
    beta_binomial_curve: tuple[float, ...]
    n_eff: tuple[NEffRow, ...]
    unfixable: UnfixableErrors
    next_step: NextStepCheck | None


def analyze_samples(
    frame: pd.DataFrame,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int = 0,
    from_n: int | None = 3,
    fit_upto: int | None = None,
) -> VoteAnalysis:
    """Parse a samples table and compute the curve, rho, beta-binomial fit, N_eff table, unfixable errors (from
    ``from_n`` samples per request; None: 3, or fewer when the data has fewer) and
    the next-step check (fit on n <= ``fit_upto``, default the largest odd n <= max_n - 2, predict fit_upto + 2;
    none when that is below 3). The N_eff table uses the estimated rho, floored at 0.

    >>> f = pd.DataFrame({"case": [1] * 5 + [2] * 5 + [3] * 5, "sample": [1, 2, 3, 4, 5] * 3,
    ...                   "answer": list("ggaga") + list("ggggg") + list("aabaa"), "gold": "g"})
    >>> a = analyze_samples(f, n_boot=100)
    >>> a.n_cases, [round(p.accuracy, 3) for p in a.curve.points], a.unfixable.still_wrong, a.next_step.predict_n
    (3, [0.533, 0.533, 0.567, 0.567, 0.667], 1, 5)
    """
    return _analysis(parse_samples(frame), tie, n_boot, seed, from_n, fit_upto)


def _analysis(
    s: SampleSet, tie: TieRule, n_boot: int, seed: int, from_n: int | None, fit_upto: int | None
) -> VoteAnalysis:
    curve = vote_curve(s, tie=tie, n_boot=n_boot, seed=seed)
    rho = estimate_rho(s, n_boot=n_boot, seed=seed)
    bb = fit_beta_binomial(s)
    ns = tuple(range(1, s.max_n + 1))
    p = curve.point(1).accuracy
    r = rho.rho if math.isfinite(rho.rho) else 0.0
    table = n_eff_table(p, ns, max(r, 0.0))
    k = fit_upto if fit_upto is not None else s.max_n - 2 - (s.max_n - 2 + 1) % 2  # largest odd k <= max_n - 2
    nxt = predict_next_step(curve, s, k, 2, tie) if 3 <= k <= s.max_n - 2 else None
    return VoteAnalysis(
        n_cases=s.n_cases,
        max_n=s.max_n,
        binary=s.binary,
        curve=curve,
        rho=rho,
        beta_binomial=bb,
        beta_binomial_curve=beta_binomial_curve(bb, ns, tie),
        n_eff=table,
        unfixable=unfixable_errors(s, min(3, s.max_n) if from_n is None else from_n, tie),
        next_step=nxt,
    )


@dataclass(frozen=True, slots=True)
class SamplingNumbers:
    """The Sampling page's opening view: the vote analysis (with its default unfixable errors and model check),
    pass@k, pass^k and majority@k, and the flaky cases."""

    analysis: VoteAnalysis
    passk: PassKCurves
    flaky: FlakyCases


def sampling_numbers(frame: pd.DataFrame, tie: TieRule = "first", n_boot: int = 2000, seed: int = 0) -> SamplingNumbers:
    """:func:`analyze_samples` (default unfixable errors and model check), :func:`nkcore.voting.passk.pass_k_curves`
    and :func:`nkcore.voting.flaky.flaky_cases` of one samples table, parsed once (a table of 300 cases x 1,000
    free-form answers takes about a second to parse; each part alone would parse it again). Each part is the number
    its own entry point gives.

    >>> f = pd.DataFrame({"case": [1] * 5 + [2] * 5 + [3] * 5, "sample": [1, 2, 3, 4, 5] * 3,
    ...                   "answer": list("ggaga") + list("ggggg") + list("aabaa"), "gold": "g"})
    >>> v = sampling_numbers(f, n_boot=100)
    >>> v.analysis == analyze_samples(f, n_boot=100, from_n=None), v.flaky.flaky, v.passk.max_n
    (True, 1, 5)
    """
    s = parse_samples(frame)
    return SamplingNumbers(
        analysis=_analysis(s, tie, n_boot, seed, None, None),
        passk=pass_k_curves(s, tie, n_boot, seed),
        flaky=flaky_cases(s),
    )


def adaptive_from_frame(
    frame: pd.DataFrame, n0: int = 3, m: int = 2, trigger: Trigger = "no_plurality", tie: TieRule = "first"
) -> AdaptiveResult:
    """:func:`adaptive_topup` on a samples table (a module-level entry point for the cache)."""
    return adaptive_topup(parse_samples(frame), n0, m, trigger, tie)


def next_step_from_frame(
    frame: pd.DataFrame,
    fit_upto: int,
    step: int = 2,
    tie: TieRule = "first",
    n_boot: int = 2000,
    seed: int = 0,
    reading: Reading = "exact",
) -> NextStepCheck:
    """:func:`predict_next_step` on a samples table (a module-level entry point for the cache)."""
    s = parse_samples(frame)
    return predict_next_step(vote_curve(s, tie, n_boot, seed), s, fit_upto, step, tie, reading)


def unfixable_from_frame(frame: pd.DataFrame, from_n: int = 3, tie: TieRule = "first") -> UnfixableErrors:
    """:func:`unfixable_errors` on a samples table (a module-level entry point for the cache)."""
    return unfixable_errors(parse_samples(frame), from_n, tie)
