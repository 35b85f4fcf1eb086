"""Comparisons of configs on the same cases: one pair, configs in a meaningful order (Holm, 1/k!), frame entry points.

A pair A -> B is summed up by its 2x2 counts, the difference in accuracy, McNemar's p-values and the exact paired
bootstrap interval; configs in an order (1, 3, 5, 7 samples per request (n)) by their adjacent pairs, Holm's
adjustment over them and the chance 1/k! that k measurements with no real difference come out rising. Source: the
chapter "The accuracy curve flattens sooner than the sample count suggests" (``shared/seeds/002``), sections "Two
intervals, and only one of them is the right instrument" and "Why the monotonicity was never evidence".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common.checks import check_significance
from nkcore.errors import DataError
from nkcore.paired.accuracy import ConfigAccuracy, accuracy_of
from nkcore.paired.bootstrap import exact_paired_bootstrap, interval_reliable
from nkcore.paired.mcnemar import mcnemar
from nkcore.paired.table import PairedTable, parse_paired

__all__ = [
    "OrderedComparison",
    "PairedComparison",
    "analyse_paired",
    "compare_frame_pair",
    "compare_ordered",
    "compare_pair",
    "holm",
    "ordering_chance",
]


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """Config A -> config B on the same ``n_cases`` cases.

    ``a_only``: cases only A gets right; ``b_only``: cases only B gets right (the discordant cases);
    ``diff`` = accuracy(B) - accuracy(A) = (b_only - a_only) / n_cases. ``diff_ci_*`` is the exact paired
    bootstrap interval at ``confidence``; ``unpaired_ci_*`` is the (wrong-instrument) interval that treats the two
    accuracies as independent samples, shown to make the chapter's point; ``a`` and ``b`` carry the marginal
    interval of each config.
    """

    config_a: str
    config_b: str
    n_cases: int
    a: ConfigAccuracy
    b: ConfigAccuracy
    a_only: int
    b_only: int
    both_correct: int
    both_wrong: int
    diff: float
    p_exact: float
    p_midp: float
    p_chi2_cc: float
    diff_ci_low: float
    diff_ci_high: float
    unpaired_ci_low: float
    unpaired_ci_high: float
    confidence: float

    @property
    def discordant(self) -> int:
        """Cases the two configs disagree on."""
        return self.a_only + self.b_only

    @property
    def interval_reliable(self) -> bool:
        """Whether the paired bootstrap interval holds its level here (:func:`nkcore.paired.bootstrap.interval_reliable`:
        25 or more discordant cases and 10 or more concordant ones)."""
        return interval_reliable(self.discordant, self.n_cases - self.discordant)


@dataclass(frozen=True, slots=True)
class OrderedComparison:
    """Configs in a meaningful order (e.g. 1, 3, 5, 7 samples per request (n)): adjacent paired comparisons.

    ``p_holm[i]`` is the Holm-adjusted exact p of ``comparisons[i]`` (family: the adjacent comparisons).
    ``chance_non_decreasing`` = 1/k! for the k configs; ``tied_run`` is the longest run of consecutive configs
    whose adjacent comparisons all have p_exact >= alpha (the ones the data cannot tell apart) and
    ``tied_run_chance`` = 1/len(tied_run)!.
    """

    configs: tuple[str, ...]
    n_cases: int
    dropped_cases: int
    cases_per_config: tuple[int, ...]
    accuracies: tuple[ConfigAccuracy, ...]
    comparisons: tuple[PairedComparison, ...]
    p_holm: tuple[float, ...]
    chance_non_decreasing: float
    tied_run: tuple[str, ...]
    tied_run_chance: float
    mean_discordance: float
    significance: float
    confidence: float


def compare_pair(
    table: PairedTable, a: str, b: str, confidence: float = 0.95, ci_method: str = "wilson"
) -> PairedComparison:
    """Config ``a`` -> config ``b`` on the paired cases: counts, diff, McNemar p-values, intervals.

    diff = acc(b) - acc(a) = (b_only - a_only)/n; p-values from :func:`nkcore.paired.mcnemar`; the paired interval
    from :func:`nkcore.paired.exact_paired_bootstrap`; the unpaired interval diff +- z sqrt(pa(1-pa)/n + pb(1-pb)/n)
    (Wald, two independent proportions, as the chapter computes it) is what the marginal intervals implicitly use,
    cut to [-1, 1] (a difference of two accuracies cannot leave it; Wald's can on few cases). Source: the chapter,
    "Two intervals".

    >>> from nkcore.paired import paired_table_from_counts
    >>> c = compare_pair(paired_table_from_counts("n=1", "n=3", 130, 12, 26, 32), "n=1", "n=3")
    >>> round(c.diff, 3), round(c.p_exact, 3), round(c.diff_ci_low, 3), round(c.diff_ci_high, 3)
    (0.07, 0.034, 0.01, 0.13)
    """
    ia, ib = table.index_of(a), table.index_of(b)
    if ia == ib:
        raise DataError(f"compare two different configs; both are {a!r}")
    ca, cb = table.correct[:, ia], table.correct[:, ib]
    n = table.n_cases
    a_only = int(np.count_nonzero(ca & ~cb))
    b_only = int(np.count_nonzero(cb & ~ca))
    both = int(np.count_nonzero(ca & cb))
    neither = n - a_only - b_only - both
    acc_a = accuracy_of(table.configs[ia], int(ca.sum()), n, confidence, ci_method)
    acc_b = accuracy_of(table.configs[ib], int(cb.sum()), n, confidence, ci_method)
    test = mcnemar(a_only, b_only)
    boot = exact_paired_bootstrap(a_only, b_only, n, confidence)
    diff = (b_only - a_only) / n
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))
    pa, pb = acc_a.accuracy, acc_b.accuracy
    half = z * math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
    return PairedComparison(
        config_a=table.configs[ia],
        config_b=table.configs[ib],
        n_cases=n,
        a=acc_a,
        b=acc_b,
        a_only=a_only,
        b_only=b_only,
        both_correct=both,
        both_wrong=neither,
        diff=diff,
        p_exact=test.p_exact,
        p_midp=test.p_midp,
        p_chi2_cc=test.p_chi2_cc,
        diff_ci_low=boot.low,
        diff_ci_high=boot.high,
        unpaired_ci_low=max(-1.0, diff - half),
        unpaired_ci_high=min(1.0, diff + half),
        confidence=confidence,
    )


def holm(pvalues: Sequence[float]) -> tuple[float, ...]:
    """Holm's step-down adjusted p-values (Holm 1979, Scand J Statist 6:65), in the input order.

    Sorted ascending p_(1) <= ... <= p_(m): adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)).

    >>> [round(p, 3) for p in holm([0.0336, 0.774, 1.0])]
    [0.101, 1.0, 1.0]
    """
    p = np.asarray(list(pvalues), dtype=float)
    if p.size == 0:
        return ()
    if np.any(np.isnan(p)) or np.any((p < 0) | (p > 1)):
        raise DataError(f"p-values must lie in [0, 1]; got {p.tolist()}")
    order = np.argsort(p, kind="stable")
    m = p.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adj_sorted = np.maximum.accumulate(scaled)
    out = np.empty(m)
    out[order] = adj_sorted
    return tuple(float(x) for x in out)


def ordering_chance(k: int) -> float:
    """Chance that k exchangeable measurements (no real difference) come out in non-decreasing order: 1/k!.

    All k! orderings are equally likely and one ascends (ties have probability zero for continuous values).
    Source: the chapter's section "Why the monotonicity was never evidence" (one in six for three).

    >>> ordering_chance(3)
    0.16666666666666666
    """
    if int(k) != k or k < 1:
        raise DataError(f"the number of measurements must be a positive whole number; got {k}")
    return 1.0 / math.factorial(int(k))


def compare_ordered(
    table: PairedTable,
    configs: Sequence[str] | None = None,
    significance: float = 0.05,
    confidence: float = 0.95,
    ci_method: str = "wilson",
) -> OrderedComparison:
    """Adjacent paired comparisons of configs in the given order, Holm-adjusted, with the 1/k! ordering chance.

    For configs c1 < c2 < ... < ck: :func:`compare_pair` (c_i -> c_{i+1}), Holm's adjustment over the k - 1
    exact p-values, 1/k! (:func:`ordering_chance`), and the longest run of consecutive configs whose adjacent
    (unadjusted) exact p-values are all >= alpha -- the run the data cannot tell apart -- with 1/len(run)!.
    Using unadjusted p makes the run no longer than a Holm-based run would be. Source: the chapter, "Why the
    monotonicity was never evidence" (1, 3, 5, 7 samples: the last three tie; one in six).

    >>> from nkcore.paired import paired_table_from_counts
    >>> o = compare_ordered(paired_table_from_counts("n=3", "n=5", 151, 5, 7, 37))
    >>> o.tied_run, o.tied_run_chance
    (('n=3', 'n=5'), 0.5)
    """
    check_significance(significance)
    order = tuple(table.configs) if configs is None else tuple(str(c) for c in configs)
    idx = [table.index_of(c) for c in order]
    if len(order) < 2:
        raise DataError(f"an ordered comparison needs at least two configs; got {len(order)}")
    comps = tuple(compare_pair(table, order[i], order[i + 1], confidence, ci_method) for i in range(len(order) - 1))
    p_holm = holm([c.p_exact for c in comps])
    best_start, best_len, start = 0, 1, 0
    for i, c in enumerate(comps):
        if c.p_exact < significance:
            start = i + 1
        elif i + 2 - start > best_len:
            best_start, best_len = start, i + 2 - start
    run = order[best_start : best_start + best_len] if best_len >= 2 else ()
    accs = tuple(
        accuracy_of(c, int(table.correct[:, j].sum()), table.n_cases, confidence, ci_method)
        for c, j in zip(order, idx, strict=True)
    )
    per_config = tuple(table.cases_per_config[j] for j in idx)
    return OrderedComparison(
        configs=order,
        n_cases=table.n_cases,
        dropped_cases=table.dropped_cases,
        cases_per_config=per_config,
        accuracies=accs,
        comparisons=comps,
        p_holm=p_holm,
        chance_non_decreasing=ordering_chance(len(order)),
        tied_run=run,
        tied_run_chance=ordering_chance(len(run)) if run else 1.0,
        mean_discordance=float(np.mean([c.discordant / c.n_cases for c in comps])),
        significance=significance,
        confidence=confidence,
    )


def analyse_paired(
    frame: pd.DataFrame,
    configs: tuple[str, ...] | None = None,
    significance: float = 0.05,
    confidence: float = 0.95,
    ci_method: str = "wilson",
) -> OrderedComparison:
    """Parse a paired-results frame and compare its configs in order (:func:`parse_paired` + :func:`compare_ordered`).

    ``configs`` chooses and orders the configs (default: all, in the table's order); only cases present for
    all chosen configs are used. This is the function the Compare page calls through the cache.

    >>> df = pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, 1], "B": [1, 1, 1]})
    >>> [(c.a_only, c.b_only) for c in analyse_paired(df).comparisons]
    [(0, 1)]
    """
    table = parse_paired(frame, configs)
    return compare_ordered(table, table.configs, significance, confidence, ci_method)


def compare_frame_pair(
    frame: pd.DataFrame, a: str, b: str, confidence: float = 0.95, ci_method: str = "wilson"
) -> PairedComparison:
    """Parse a paired-results frame, keep configs ``a`` and ``b`` (pairing only their cases) and compare a -> b.

    >>> df = pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, None], "B": [0, 1, 1]})
    >>> c = compare_frame_pair(df, "B", "A")
    >>> c.n_cases, c.a_only, c.b_only
    (2, 1, 1)
    """
    table = parse_paired(frame, (a, b))
    return compare_pair(table, table.configs[0], table.configs[1], confidence, ci_method)
