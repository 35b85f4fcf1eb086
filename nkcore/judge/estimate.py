"""Each config's judge-corrected mean, the paired differences between configs, and the judge's bias per config.

Per config (:func:`config_estimate`): PPI++ on the human scale (:func:`nkcore.judge.ppi.ppi_mean_interval`), the
humans-only and judge-only numbers beside it, the effective number of human labels, and the judge's bias against the
humans on the labelled cases, mean(judge - human) with its t interval. Between two configs (:func:`pair_difference`):
with a case column, PPI on the per-case difference (human_a - human_b on the cases both have human labels for,
judge_a - judge_b on the others); without one, the two configs' PPI estimates as independent samples
(se = sqrt(se_a^2 + se_b^2)). Whether the bias differs between configs (:func:`bias_tests`): per pair of configs,
the difference of biases, paired t on the cases labelled for both (Welch's t without a case column), Holm over the
pairs; that is the case where judge-only rankings can flip.

Which interval (``interval``, :data:`nkcore.judge.ppi.INTERVALS`): "auto" (the default) uses the small-sample t
interval for a config or pair with fewer than :data:`nkcore.judge.ppi.T_BELOW` human labels and PPI++'s normal
interval (equal to ``ppi_py.ppi_mean_ci``) otherwise; "normal" and "t" force one. Human verdicts (0/1, or 0 / 0.5 / 1)
with few 1s, few 0s or few judge-human disagreements get the pseudo-count or exact interval of
:func:`nkcore.judge.ppi.sparse_binary` whichever choice, and :func:`sparse_note` says so in words.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from nkcore.common.checks import check_significance
from nkcore.judge.data import JudgeTable
from nkcore.judge.ppi import (
    SPARSE_BELOW,
    MeanInterval,
    effective_human_labels,
    human_only_interval,
    human_only_verdict_interval,
    judge_only_interval,
    normal_p_value,
    ppi_mean_interval,
    sparse_binary,
    uses_t,
)
from nkcore.paired.compare import holm

__all__ = [
    "ALL_PAIRS_UP_TO",
    "BiasComparison",
    "BiasTests",
    "ConfigEstimate",
    "PairDifference",
    "bias_tests",
    "config_estimate",
    "config_estimates",
    "pair_difference",
    "pair_differences",
    "sparse_note",
]

ALL_PAIRS_UP_TO = 8
"""Up to this many configs every pair's difference is computed; above, the best (by PPI estimate) against each."""


@dataclass(frozen=True, slots=True)
class ConfigEstimate:
    """One config: ``n_cases`` judged, ``n_human`` with a human label; ``ppi`` the judge-corrected mean,
    ``human_only`` (t interval on the labels alone; in the sparse verdict corner of
    :func:`nkcore.judge.ppi.sparse_binary`, where the PPI interval is adjusted too,
    :func:`nkcore.judge.ppi.human_only_verdict_interval`), ``judge_only`` (the judge's mean over all cases, t interval);
    ``effective_human_labels`` the humans-only labels PPI's precision is worth (in the sparse verdict corner
    n (w_humans / w_ppi)^2, the two corner intervals' widths); ``bias`` mean(judge - human) on the
    labelled cases with its t interval (``method`` "bias (t)"); ``interval`` "normal" or "t" (which one ``ppi``
    is); ``sparse_note`` the words of :func:`sparse_note` ("" outside the sparse verdict corner);
    ``less_reliable`` is kept for the JSON contract and is False: the one case the benchmark measured below 93%
    (0/1 verdicts, 30 labels, a judge agreeing on ~95%) holds since the sparse adjustment (docs/coverage.md)."""

    config: str
    n_cases: int
    n_human: int
    ppi: MeanInterval
    human_only: MeanInterval
    judge_only: MeanInterval
    effective_human_labels: float
    bias: MeanInterval
    interval: str = "normal"
    less_reliable: bool = False
    sparse_note: str = ""


@dataclass(frozen=True, slots=True)
class PairDifference:
    """config_a minus config_b on the human scale. ``paired``: taken case by case (a case column) or as independent
    samples; ``n_cases`` cases both configs have, ``n_human`` with a human label for both; ``ppi`` the corrected
    difference, ``p_value`` its two-sided normal p; ``human_only`` and ``judge_only`` the same difference from the
    labels alone and from the judge alone (None when unpaired); ``effective_human_labels`` (NaN when unpaired);
    ``judge_only_p_value`` the judge-only difference's paired t p-value (NaN when unpaired); ``interval`` "normal"
    or "t" (the quantile used)."""

    config_a: str
    config_b: str
    paired: bool
    n_cases: int
    n_human: int
    ppi: MeanInterval
    p_value: float
    human_only: MeanInterval | None
    judge_only: MeanInterval | None
    effective_human_labels: float
    judge_only_p_value: float
    interval: str = "normal"


@dataclass(frozen=True, slots=True)
class BiasComparison:
    """bias(config_a) - bias(config_b) (judge minus human) on ``n`` labelled cases (or pairs of cases),
    with its t interval, p-value and Holm-adjusted ``p_holm``; ``test`` "paired t" or "Welch t"."""

    config_a: str
    config_b: str
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float
    n: int
    test: str


@dataclass(frozen=True, slots=True)
class BiasTests:
    """Every pair's bias comparison (in config order), ``differs`` True when some Holm p < significance,
    ``significance``."""

    tests: tuple[BiasComparison, ...]
    differs: bool
    significance: float

    def most_different(self) -> BiasComparison | None:
        """The pair with the smallest adjusted p (None with one config)."""
        return min(self.tests, key=lambda t: (t.p_holm, t.p_value)) if self.tests else None


def _judge(table: JudgeTable, judge: str | None) -> str:
    if judge is None:
        return table.judges[0]
    if judge not in table.judges:
        from nkcore.errors import DataError

        raise DataError(f"no judge {judge!r}; the judges are {', '.join(table.judges)}")
    return judge


def _bias_interval(err: np.ndarray, confidence: float) -> MeanInterval:
    r = human_only_interval(err, confidence)
    return MeanInterval(r.estimate, r.ci_low, r.ci_high, r.se, r.n_labelled, 0, math.nan, confidence, "bias (t)")


def sparse_note(human: np.ndarray, judge: np.ndarray) -> str:
    """Why the interval is the sparse-verdict one (:func:`nkcore.judge.ppi.sparse_binary`), in words, or "": few
    human labels are 1 (or 0, or away from 0 or 1 with ties), or the judge disagrees with few of them. There a normal
    or t interval would be too short (Wald's trouble near 0 and 1: Brown, Cai & DasGupta 2001).

    >>> sparse_note(np.array([1.0, 1.0] + [0.0] * 58), np.zeros(60))
    'only 2 of 60 human labels are 1'
    >>> sparse_note(np.array([1.0, 0.0] * 20), np.array([1.0, 0.0] * 20))
    'the judge disagrees with the human on only 0 of 40 labelled cases'
    """
    if not sparse_binary(human, judge):
        return ""
    n = human.size
    binary = bool(np.all((human == 0.0) | (human == 1.0)))
    not0, not1 = int(np.sum(human != 0.0)), int(np.sum(human != 1.0))

    def count(k: int) -> str:
        return f"{'only ' if k <= n / 4 else ''}{k} of {n}"

    if min(not0, not1) < SPARSE_BELOW:
        if not0 <= not1:
            return f"{count(not0)} human labels are {'1' if binary else 'above 0'}"
        return f"{count(not1)} human labels are {'0' if binary else 'below 1'}"
    return f"the judge disagrees with the human on {count(int(np.sum(judge != human)))} labelled cases"


def config_estimate(
    table: JudgeTable, config: str, judge: str | None = None, significance: float = 0.05, interval: str = "auto"
) -> ConfigEstimate:
    """One config's PPI++ mean beside the humans-only and judge-only means, n_eff and the judge's bias (module
    docstring; Angelopoulos, Duchi & Zrnic 2023, "PPI++"); ``interval`` "auto", "normal" or "t" (module docstring)."""
    j = _judge(table, judge)
    conf = 1.0 - check_significance(significance)
    rows = table.config_frame(config)
    h = rows["human"].to_numpy(dtype=float)
    s = rows[j].to_numpy(dtype=float)
    lab = ~np.isnan(h)
    t = uses_t(interval, int(lab.sum()))
    ppi = ppi_mean_interval(h[lab], s[lab], s[~lab], significance, small_sample=t)
    n_eff = effective_human_labels(h[lab], ppi)
    if sparse_binary(h[lab], s[lab]):
        humans = human_only_verdict_interval(h[lab], conf, t)
        width = ppi.ci_high - ppi.ci_low  # n_eff by the widths of the two corner intervals: n (w_humans / w_ppi)^2
        n_eff = int(lab.sum()) * ((humans.ci_high - humans.ci_low) / width) ** 2 if width > 0 else math.inf
    else:
        humans = human_only_interval(h[lab], conf)
    return ConfigEstimate(
        config,
        len(rows),
        int(lab.sum()),
        ppi,
        humans,
        judge_only_interval(s, conf),
        n_eff,
        _bias_interval(s[lab] - h[lab], conf),
        "t" if t else "normal",
        False,
        sparse_note(h[lab], s[lab]),
    )


def config_estimates(
    table: JudgeTable, judge: str | None = None, significance: float = 0.05, interval: str = "auto"
) -> tuple[ConfigEstimate, ...]:
    """:func:`config_estimate` of every config, in the table's order."""
    return tuple(config_estimate(table, c, judge, significance, interval) for c in table.configs)


def _aligned(table: JudgeTable, j: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(human_a, human_b, judge_a, judge_b) on the cases both configs have, in a's order (cases are unique per
    config: :func:`nkcore.judge.data.judge_table` checks it)."""
    fa, fb = table.config_frame(a), table.config_frame(b)
    idx = pd.Index(fb["case"]).get_indexer(fa["case"])
    keep = idx >= 0
    pos = idx[keep]

    def col(f: pd.DataFrame, c: str, rows: np.ndarray) -> np.ndarray:
        return f[c].to_numpy(dtype=float)[rows]

    return col(fa, "human", keep), col(fb, "human", pos), col(fa, j, keep), col(fb, j, pos)


def pair_difference(
    table: JudgeTable,
    config_a: str,
    config_b: str,
    judge: str | None = None,
    significance: float = 0.05,
    estimates: dict[str, ConfigEstimate] | None = None,
    interval: str = "auto",
) -> PairDifference | None:
    """config_a - config_b on the human scale (module docstring). Paired: PPI++ on the per-case differences
    d = human_a - human_b (labelled: both have a human label) with dhat = judge_a - judge_b; None when fewer than 2
    cases have both labels; ``interval`` as :func:`config_estimate`, on the pair's labels. Unpaired: est_a - est_b
    +- q sqrt(se_a^2 + se_b^2), q the normal quantile, or t_{min(n_a, n_b) - 1} when either config's interval is t
    (a conservative Welch-type choice)."""
    j = _judge(table, judge)
    conf = 1.0 - check_significance(significance)
    if not table.paired:
        est = estimates or {c: config_estimate(table, c, j, significance, interval) for c in (config_a, config_b)}
        ea, eb = est[config_a].ppi, est[config_b].ppi
        d, se = ea.estimate - eb.estimate, math.hypot(ea.se, eb.se)
        z = float(stats.norm.ppf(0.5 + conf / 2.0))
        t = est[config_a].interval == "t" or est[config_b].interval == "t"
        if t:
            z = float(stats.t.ppf(0.5 + conf / 2.0, min(ea.n_labelled, eb.n_labelled) - 1))
        iv = MeanInterval(
            d,
            d - z * se,
            d + z * se,
            se,
            ea.n_labelled + eb.n_labelled,
            ea.n_unlabelled + eb.n_unlabelled,
            math.nan,
            conf,
            "ppi++ (independent samples)",
        )
        return PairDifference(
            config_a,
            config_b,
            False,
            0,
            0,
            iv,
            normal_p_value(d, se),
            None,
            None,
            math.nan,
            math.nan,
            "t" if t else "normal",
        )
    ha, hb, sa, sb = _aligned(table, j, config_a, config_b)
    dh, ds = ha - hb, sa - sb
    lab = ~np.isnan(dh)
    if lab.sum() < 2:
        return None
    t = uses_t(interval, int(lab.sum()))
    ppi = ppi_mean_interval(dh[lab], ds[lab], ds[~lab], significance, small_sample=t)
    judge_only = judge_only_interval(ds, conf) if ds.size >= 2 else None
    jp = float(stats.ttest_1samp(ds, 0.0).pvalue) if ds.size >= 2 and np.std(ds) > 0 else math.nan
    return PairDifference(
        config_a,
        config_b,
        True,
        int(ds.size),
        int(lab.sum()),
        ppi,
        normal_p_value(ppi.estimate, ppi.se),
        human_only_interval(dh[lab], conf),
        judge_only,
        effective_human_labels(dh[lab], ppi),
        jp,
        "t" if t else "normal",
    )


def pair_differences(
    table: JudgeTable,
    estimates: tuple[ConfigEstimate, ...],
    judge: str | None = None,
    significance: float = 0.05,
    interval: str = "auto",
) -> tuple[PairDifference, ...]:
    """The differences reported: every pair (higher PPI estimate first) up to :data:`ALL_PAIRS_UP_TO` configs,
    else the best config against each other one. Pairs with fewer than 2 cases labelled for both are left out."""
    ordered = sorted(estimates, key=lambda e: -e.ppi.estimate)
    by_name = {e.config: e for e in estimates}
    if len(ordered) <= ALL_PAIRS_UP_TO:
        pairs = list(itertools.combinations([e.config for e in ordered], 2))
    else:
        pairs = [(ordered[0].config, e.config) for e in ordered[1:]]
    out = (pair_difference(table, a, b, judge, significance, by_name, interval) for a, b in pairs)
    return tuple(p for p in out if p is not None)


def _bias_pair(table: JudgeTable, j: str, a: str, b: str, conf: float) -> tuple[float, float, float, float, int, str]:
    if table.paired:
        ha, hb, sa, sb = _aligned(table, j, a, b)
        e = (sa - ha) - (sb - hb)
        e = e[~np.isnan(e)]
        if e.size >= 2:
            if np.std(e) == 0:
                d = float(e.mean())
                return d, d, d, (1.0 if d == 0 else 0.0), int(e.size), "paired t"
            r = human_only_interval(e, conf)
            p = float(stats.ttest_1samp(e, 0.0).pvalue)
            return r.estimate, r.ci_low, r.ci_high, p, int(e.size), "paired t"
    fa, fb = table.config_frame(a), table.config_frame(b)
    ea = (fa[j] - fa["human"]).dropna().to_numpy(dtype=float)
    eb = (fb[j] - fb["human"]).dropna().to_numpy(dtype=float)
    d = float(ea.mean() - eb.mean())
    va, vb = np.var(ea, ddof=1) / ea.size, np.var(eb, ddof=1) / eb.size
    se = math.sqrt(va + vb)
    if se == 0:
        return d, d, d, (1.0 if d == 0 else 0.0), int(ea.size + eb.size), "Welch t"
    df = (va + vb) ** 2 / (va**2 / (ea.size - 1) + vb**2 / (eb.size - 1))
    t = float(stats.t.ppf(0.5 + conf / 2.0, df))
    p = float(2.0 * stats.t.sf(abs(d) / se, df))
    return d, d - t * se, d + t * se, p, int(ea.size + eb.size), "Welch t"


def bias_tests(
    table: JudgeTable, judge: str | None = None, significance: float = 0.05, reference: str | None = None
) -> BiasTests:
    """Does the judge's bias (judge - human) differ between configs? Every pair of configs up to
    :data:`ALL_PAIRS_UP_TO` configs (module docstring), else ``reference`` (default: the first config) against each
    other one; Holm (1979) over the pairs; ``differs`` when some adjusted p < significance."""
    j = _judge(table, judge)
    conf = 1.0 - check_significance(significance)
    if len(table.configs) <= ALL_PAIRS_UP_TO and reference is None:
        pairs = list(itertools.combinations(table.configs, 2))
    else:
        ref = reference if reference is not None else table.configs[0]
        pairs = [(ref, c) for c in table.configs if c != ref]
    rows = [(a, b, *_bias_pair(table, j, a, b, conf)) for a, b in pairs]
    adj = holm([r[5] for r in rows])
    tests = tuple(
        BiasComparison(a, b, d, lo, hi, p, pa, n, test)
        for (a, b, d, lo, hi, p, n, test), pa in zip(rows, adj, strict=True)
    )
    return BiasTests(tests, any(t.p_holm < significance for t in tests), significance)
