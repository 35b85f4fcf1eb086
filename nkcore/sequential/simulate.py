"""Validation by simulation: the false-positive rate under "no difference" when looking after every case, naive
peeking's, and the power and stopping time against the fixed-n test.

Data: 0/1 cases (each discordant with probability ``discordance``, a discordant case B's with probability
theta = 1/2 + diff / (2 discordance)); cases with ``repeats`` repeats (case difficulty p_i ~ Beta(2, 2), A's repeats
Binomial(R, p_i) / R, B's Binomial(R, p_i + 2 diff (1 - p_i)) / R, so B's mean minus A's is diff). Naive peeking: the
fixed-n test applied at every ``every``-th case and stopping at the first p < alpha: the exact McNemar test (0/1),
the normal form of the sign-flip test z = sum d / sqrt(sum d^2) (repeats). Every function takes ``seed``; the
decision rules are those of :mod:`nkcore.sequential.path` (vectorised over runs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom, norm

from nkcore.common import limits
from nkcore.common.checks import check_significance
from nkcore.common.seeding import as_generator
from nkcore.errors import DataError
from nkcore.sequential.bounded import eb_path
from nkcore.sequential.mixture import PRIOR, e_value_region

__all__ = ["SequentialPlan", "SimulationResult", "decision_times", "mcnemar_critical", "sequential_plan", "simulate"]

_CHUNK = 500
_PLAN_WORK = 4_000_000  # cases simulated for one Planner answer (about 1 s)


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Runs of ``looks`` cases each: the share the anytime-valid test ever decided (``rejected``, with its Monte
    Carlo standard error), naive peeking's share (``naive``), the fixed-n test's power at ``looks`` cases
    (``fixed_n``), and the stopping times of the decided runs (median, quartiles, mean counting undecided runs as
    ``looks``)."""

    kind: str
    diff: float
    runs: int
    looks: int
    significance: float
    rejected: float
    rejected_se: float
    naive: float
    naive_every: int
    fixed_n: float
    stop_median: float | None
    stop_q1: float | None
    stop_q3: float | None
    stop_mean_capped: float


def mcnemar_critical(m_max: int, significance: float) -> np.ndarray:
    """crit[m] = the largest c with the exact two-sided McNemar p of min(k, m - k) = c at most alpha (-1: none),
    m = 0..m_max; p(c) = min(1, 2 P(Bin(m, 1/2) <= c)).

    >>> mcnemar_critical(12, 0.05)[12]  # the chapter: 10 of 12 one way (2 the other) reaches p < 0.05
    np.int64(2)
    """
    m = np.arange(m_max + 1)
    c = binom.ppf(significance / 2.0, m, 0.5)  # the smallest c with P(X <= c) >= alpha / 2
    c = np.where(np.isnan(c), 0, c).astype(np.int64)
    c = np.where(2.0 * binom.cdf(c, m, 0.5) <= significance, c, c - 1)
    return np.where(c <= m / 2.0, c, -1)


def _binary_runs(
    rng: np.random.Generator, runs: int, looks: int, diff: float, discordance: float
) -> tuple[np.ndarray, np.ndarray]:
    theta = 0.5 + diff / (2.0 * discordance)
    disc = rng.random((runs, looks)) < discordance
    bwin = disc & (rng.random((runs, looks)) < theta)
    return np.cumsum(bwin, axis=1, dtype=np.int32), np.cumsum(disc, axis=1, dtype=np.int32)


def _score_diffs(rng: np.random.Generator, runs: int, looks: int, diff: float, repeats: int) -> np.ndarray:
    p = rng.beta(2.0, 2.0, size=(runs, looks))
    pa = rng.binomial(repeats, p) / repeats
    pb = rng.binomial(repeats, np.clip(p + 2.0 * diff * (1.0 - p), 0.0, 1.0)) / repeats
    return np.asarray(pb - pa, dtype=float)


def decision_times(
    kind: str,
    runs: int,
    looks: int,
    diff: float = 0.0,
    significance: float = 0.05,
    discordance: float = 0.2,
    repeats: int = 3,
    every: int = 1,
    seed: int | np.random.Generator = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: the anytime-valid test's decision time (cases; 0 = never within ``looks``), naive peeking's first
    rejection (0 = never), and whether the fixed-n test rejects at ``looks`` cases (bool)."""
    significance = check_significance(significance)
    if kind not in ("binary", "scores"):
        raise DataError(f"kind must be 'binary' or 'scores'; got {kind!r}")
    if not 0.0 < discordance <= 1.0 or abs(diff) > discordance:
        raise DataError(f"need 0 < discordance <= 1 and |diff| <= discordance; got {discordance}, {diff}")
    limits.check("cases", runs * looks, "the simulation")
    rng = as_generator(seed)
    seq, naive, fixed = np.zeros(runs, np.int64), np.zeros(runs, np.int64), np.zeros(runs, bool)
    peek = np.zeros(looks, bool)
    peek[every - 1 :: every] = True
    peek[-1] = True
    crit = mcnemar_critical(looks, significance) if kind == "binary" else None
    region = e_value_region(looks, significance, PRIOR) if kind == "binary" else None
    z = norm.isf(significance / 2.0)
    for start in range(0, runs, _CHUNK):
        r = min(_CHUNK, runs - start)
        limits.check_memory(8 * 8 * r * looks, "the simulation's arrays")
        if kind == "binary":
            k, m = _binary_runs(rng, r, looks, diff, discordance)
            assert crit is not None and region is not None
            hit = (k <= region[0][m]) | (k >= region[1][m])  # log_e_value(k, m) >= log(1 / alpha), by m's region
            naive_hit = np.minimum(k, m - k) <= crit[m]
            fixed[start : start + r] = naive_hit[:, -1]
        else:
            d = _score_diffs(rng, r, looks, diff, repeats)
            eb = eb_path((d + 1.0) / 2.0, significance)
            hit = np.maximum(eb.log_m_plus, eb.log_m_minus) >= math.log(2.0 / significance)
            s, q = np.cumsum(d, axis=1), np.cumsum(d * d, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                naive_hit = np.abs(s) >= z * np.sqrt(q)
            naive_hit &= q > 0
            fixed[start : start + r] = naive_hit[:, -1]
        naive_hit = naive_hit & peek[None, :]
        seq[start : start + r] = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)
        naive[start : start + r] = np.where(naive_hit.any(axis=1), naive_hit.argmax(axis=1) + 1, 0)
    return seq, naive, fixed


def simulate(
    kind: str,
    runs: int,
    looks: int,
    diff: float = 0.0,
    significance: float = 0.05,
    discordance: float = 0.2,
    repeats: int = 3,
    every: int = 1,
    seed: int | np.random.Generator = 0,
) -> SimulationResult:
    """Share ever decided, naive peeking's share, fixed-n power and stopping times over ``runs`` runs.

    >>> r = simulate("binary", 400, 500, seed=1)
    >>> r.rejected <= 0.05 + 3 * r.rejected_se, r.naive > 2 * 0.05
    (True, True)
    """
    seq, naive, fixed = decision_times(kind, runs, looks, diff, significance, discordance, repeats, every, seed)
    decided = seq > 0
    rate = float(decided.mean())
    stops = seq[decided]
    q = np.quantile(stops, [0.25, 0.5, 0.75]) if stops.size else None
    return SimulationResult(
        kind=kind,
        diff=diff,
        runs=runs,
        looks=looks,
        significance=significance,
        rejected=rate,
        rejected_se=math.sqrt(max(rate * (1 - rate), 1e-12) / runs),
        naive=float((naive > 0).mean()),
        naive_every=every,
        fixed_n=float(fixed.mean()),
        stop_median=float(q[1]) if q is not None else None,
        stop_q1=float(q[0]) if q is not None else None,
        stop_q3=float(q[2]) if q is not None else None,
        stop_mean_capped=float(np.where(decided, seq, looks).mean()),
    )


@dataclass(frozen=True, slots=True)
class SequentialPlan:
    """The Planner's numbers: cases to a decision for a true ``diff`` (median, quartiles, share decided within
    ``max_cases``), the fixed-n plan's cases, and the false-positive rate of peeking at the fixed-n test every
    ``every`` cases up to the fixed-n plan's cases (and of the anytime-valid test over the same looks)."""

    diff: float
    discordance: float
    significance: float
    fixed_cases: int
    max_cases: int
    runs: int
    stop_median: float | None
    stop_q1: float | None
    stop_q3: float | None
    decided_share: float
    decided_by_fixed: float
    every: int
    naive_false_positive: float
    sequential_false_positive: float


def sequential_plan(
    diff: float,
    discordance: float,
    significance: float,
    fixed_cases: int,
    runs: int = 1_000,
    every: int = 10,
    seed: int | np.random.Generator = 0,
) -> SequentialPlan:
    """Simulated cases to a decision for a true difference ``diff`` at ``discordance`` (up to 4 x the fixed-n plan's
    ``fixed_cases``), and what peeking every ``every`` cases at the fixed-n McNemar test does under no difference.

    >>> p = sequential_plan(0.04, 0.2, 0.05, 800, runs=300)
    >>> p.naive_false_positive > 0.1 > p.sequential_false_positive
    True
    """
    significance = check_significance(significance)
    if not (isinstance(fixed_cases, int) and fixed_cases >= 2):
        raise DataError(f"the fixed-n plan's cases must be a whole number of at least 2; got {fixed_cases!r}")
    rng = as_generator(seed)
    max_cases = 4 * fixed_cases
    runs = max(100, min(runs, _PLAN_WORK // max_cases))  # large plans: fewer runs (reported in ``runs``)
    seq, _, _ = decision_times("binary", runs, max_cases, diff, significance, discordance, seed=rng)
    null_seq, null_naive, _ = decision_times(
        "binary", runs, fixed_cases, 0.0, significance, discordance, every=every, seed=rng
    )
    decided = seq > 0
    q = np.quantile(seq[decided], [0.25, 0.5, 0.75]) if decided.any() else None
    return SequentialPlan(
        diff=diff,
        discordance=discordance,
        significance=significance,
        fixed_cases=fixed_cases,
        max_cases=max_cases,
        runs=runs,
        stop_median=float(q[1]) if q is not None else None,
        stop_q1=float(q[0]) if q is not None else None,
        stop_q3=float(q[2]) if q is not None else None,
        decided_share=float(decided.mean()),
        decided_by_fixed=float(((seq > 0) & (seq <= fixed_cases)).mean()),
        every=every,
        naive_false_positive=float((null_naive > 0).mean()),
        sequential_false_positive=float((null_seq > 0).mean()),
    )
