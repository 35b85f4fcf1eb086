"""Several judges as raters: agreement with the humans and with each other, error correlation, the effective number
of independent judges, Dawid-Skene over the judges, and whether a second judge is worth buying.

- agreement: Pearson correlation with the human score on the labelled cases, the judge's bias mean(judge - human),
  its mean absolute error and, when both scales are discrete (at most :data:`DISCRETE_UP_TO` values), the share of
  exact agreements;
- error correlation: the correlation of the judges' errors (judge - human) on the cases labelled for every judge;
  the effective number of independent judges is K / (1 + (K - 1) r), r the mean error correlation of the K judges
  clipped to [0, 1] (the design effect of correlated raters: Kish 1965, "Survey Sampling", sec. 5.4; the N_eff of
  this project's glossary);
- a second judge: PPI++ effective human labels (summed over configs) of each judge and of the judges' mean score
  (each judge standardised on all its scores, which uses no human label);
- Dawid-Skene (1979) over the judges' discrete verdicts through the project's rater-quality code
  (:func:`nkcore.ratings.quality.quality_frame`, crowd-kit), its labels compared with the humans'.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.judge.data import JudgeTable
from nkcore.judge.ppi import effective_human_labels, ppi_mean_interval

__all__ = [
    "DISCRETE_UP_TO",
    "DawidSkeneJudges",
    "JudgePair",
    "JudgePanel",
    "JudgeSummary",
    "dawid_skene_judges",
    "judge_panel",
]

DISCRETE_UP_TO = 10
"""A column with at most this many distinct values is a discrete scale (exact agreement, Dawid-Skene)."""
LEVELS_SHARE = 0.97
"""Share of the scores the levels of a discrete scale must hold."""
ON_SCALE = 0.9
"""Dawid-Skene's labels are compared with the humans' only when at least this share of the human scores is one of
the judges' labels (otherwise the accuracies are NaN)."""


@dataclass(frozen=True, slots=True)
class JudgeSummary:
    """One judge against the humans on ``n_human`` labelled rows: ``correlation`` (Pearson), ``bias`` (mean judge -
    human), ``mae``, ``agreement`` (exact; NaN when a scale is not discrete), and ``effective_human_labels`` (PPI++
    n_eff summed over configs, beside ``n_human``)."""

    judge: str
    n_human: int
    correlation: float
    bias: float
    mae: float
    agreement: float
    effective_human_labels: float


@dataclass(frozen=True, slots=True)
class JudgePair:
    """Two judges: ``correlation`` of their scores (all rows), ``agreement`` (exact, NaN unless discrete),
    ``error_correlation`` of (judge - human) on the labelled rows."""

    judge_a: str
    judge_b: str
    correlation: float
    agreement: float
    error_correlation: float


@dataclass(frozen=True, slots=True)
class DawidSkeneJudges:
    """Dawid-Skene over the judges: each judge's estimated ``quality`` (chance its verdict is right), and on the
    ``n_human`` labelled rows the accuracy against the humans of the Dawid-Skene label, of the judges' plurality and of
    the best single judge (``best_judge``)."""

    quality: tuple[tuple[str, float], ...]
    n_human: int
    accuracy: float
    plurality_accuracy: float
    best_judge: str
    best_judge_accuracy: float


@dataclass(frozen=True, slots=True)
class JudgePanel:
    """Several judges: ``judges`` (one summary each), ``pairs``, ``mean_error_correlation``, ``effective_judges``
    (K / (1 + (K - 1) r)), ``combined_effective_human_labels`` (the judges' standardised mean as one judge),
    ``best_judge``, ``dawid_skene`` (None when the scales are not discrete, the human scores are not on the judges'
    verdicts, or crowd-kit is missing) and ``notes``."""

    judges: tuple[JudgeSummary, ...]
    pairs: tuple[JudgePair, ...]
    mean_error_correlation: float
    effective_judges: float
    combined_effective_human_labels: float
    best_judge: str
    dawid_skene: DawidSkeneJudges | None
    notes: tuple[str, ...] = ()


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    if a.size < 2 or np.std(a) == 0 or np.std(b) == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def _levels(x: np.ndarray) -> np.ndarray | None:
    """The scale's levels: the at most :data:`DISCRETE_UP_TO` most common values when they hold at least
    :data:`LEVELS_SHARE` of the scores (a few filled-in means do not make a verdict continuous), else None."""
    vals, counts = np.unique(x[~np.isnan(x)], return_counts=True)
    if vals.size == 0:
        return None
    top = np.argsort(-counts, kind="stable")[:DISCRETE_UP_TO]
    return np.sort(vals[top]) if counts[top].sum() >= LEVELS_SHARE * counts.sum() else None


def _discrete(x: np.ndarray) -> bool:
    return _levels(x) is not None


def _verdicts(x: np.ndarray, pairwise: bool) -> bool:
    """Whether scores are verdicts: a discrete scale with at least :data:`LEVELS_SHARE` of the scores whole numbers
    (0 / 0.5 / 1 for pairwise; a few filled-in means may be off them); scores such as 2.67 are means of several
    raters, not verdicts."""
    if x.size == 0 or _levels(x) is None:
        return False
    whole = np.isin(x, (0.0, 0.5, 1.0)) if pairwise else x == np.round(x)
    return float(np.mean(whole)) >= LEVELS_SHARE


def _on_judges_levels(h: np.ndarray, scores: dict[str, np.ndarray], pairwise: bool) -> bool:
    """Whether the human scores are verdicts and at least :data:`ON_SCALE` of them are one of the judges' levels."""
    if h.size == 0 or not _verdicts(h, pairwise):
        return False
    levels = np.unique(np.concatenate([lv for s in scores.values() if (lv := _levels(s)) is not None]))
    return float(np.mean(np.isclose(h[:, None], levels[None, :]).any(axis=1))) >= ON_SCALE


def _effective(table: JudgeTable, scores: np.ndarray) -> float:
    total = 0.0
    h_all = table.frame["human"].to_numpy(dtype=float)
    for c in table.configs:
        m = table.rows_of[c] if c in table.rows_of else np.flatnonzero(table.frame["config"].to_numpy() == c)
        h, s = h_all[m], scores[m]
        lab = ~np.isnan(h)
        total += effective_human_labels(h[lab], ppi_mean_interval(h[lab], s[lab], s[~lab]))
    return total


def judge_panel(table: JudgeTable, dawid_skene: bool = True) -> JudgePanel:
    """Every judge against the humans and against each other (module docstring); needs at least 2 judges.

    Effective independent judges: K / (1 + (K - 1) max(0, r)), r the mean pairwise error correlation.
    """
    if len(table.judges) < 2:
        raise DataError("comparing judges needs at least 2 judge columns")
    f = table.frame
    h = f["human"].to_numpy(dtype=float)
    lab = ~np.isnan(h)
    scores = {j: f[j].to_numpy(dtype=float) for j in table.judges}
    h_discrete = _discrete(h)
    summaries = []
    for j, s in scores.items():
        e = s[lab] - h[lab]
        agree = float(np.mean(np.isclose(s[lab], h[lab]))) if h_discrete and _discrete(s) else math.nan
        summaries.append(
            JudgeSummary(
                j,
                int(lab.sum()),
                _corr(s[lab], h[lab]),
                float(e.mean()),
                float(np.abs(e).mean()),
                agree,
                _effective(table, s),
            )
        )
    pairs = []
    for a, b in itertools.combinations(table.judges, 2):
        sa, sb = scores[a], scores[b]
        agree = float(np.mean(np.isclose(sa, sb))) if _discrete(sa) and _discrete(sb) else math.nan
        pairs.append(JudgePair(a, b, _corr(sa, sb), agree, _corr(sa[lab] - h[lab], sb[lab] - h[lab])))
    errs = [p.error_correlation for p in pairs if not math.isnan(p.error_correlation)]
    r = float(np.mean(errs)) if errs else math.nan
    k = len(table.judges)
    eff = k / (1.0 + (k - 1) * min(1.0, max(0.0, r))) if not math.isnan(r) else math.nan
    z = [(s - s.mean()) / s.std() if s.std() > 0 else np.zeros_like(s) for s in scores.values()]
    combined = _effective(table, np.mean(z, axis=0))
    best = max(summaries, key=lambda x: x.effective_human_labels)
    notes: list[str] = []
    ds = None
    if dawid_skene:
        pw = table.scale == "pairwise"
        if not all(_discrete(s) for s in scores.values()):
            notes.append(
                f"Dawid-Skene over the judges needs discrete verdicts (at most {DISCRETE_UP_TO} distinct scores)"
            )
        elif not _on_judges_levels(h[lab], scores, pw):
            notes.append(
                "Dawid-Skene over the judges is skipped: the human score is not a verdict on the judges' scale "
                "(a mean of several raters, say), so the judges' consensus cannot be checked against it"
            )
        else:
            try:
                ds = dawid_skene_judges(table)
            except DataError as exc:
                notes.append(f"Dawid-Skene over the judges was not fitted: {exc}")
    return JudgePanel(tuple(summaries), tuple(pairs), r, eff, combined, best.judge, ds, tuple(notes))


def _label_text(x: np.ndarray) -> list[str]:
    return [f"{v:g}" for v in x.tolist()]


def dawid_skene_judges(table: JudgeTable) -> DawidSkeneJudges:
    """Dawid & Skene (1979) fitted to the judges' verdicts (each row an item, each judge a rater) with the project's
    crowd-kit wrapper (:func:`nkcore.ratings.quality.quality_frame`); its labels, the plurality's and the best
    judge's compared with the human labels: accuracy = (1/n) sum 1[label_i == human_i] on the n labelled rows."""
    from nkcore.ratings.quality import quality_frame

    f = table.frame
    items = (f["case"].astype(str) + "\x1f" + f["config"].astype(str)).to_numpy()
    parts = []
    for j in table.judges:  # a judge's scores off its levels (filled-in means) are left out: missing ratings
        x = f[j].to_numpy(dtype=float)
        lv = _levels(x)
        keep = np.ones(x.size, dtype=bool) if lv is None else np.isclose(x[:, None], lv[None, :]).any(axis=1)
        parts.append(pd.DataFrame({"item": items[keep], "rater": j, "label": _label_text(x[keep])}))
    long = pd.concat(parts, ignore_index=True)
    agg = quality_frame(long, "dawid-skene")
    by_item = dict(zip(items, f["human"].to_numpy(dtype=float), strict=True))
    lab = [(i, it) for i, it in enumerate(agg.items) if not math.isnan(by_item.get(it, math.nan))]
    names = np.array([float(x) for x in agg.label_names])

    def acc(codes: np.ndarray) -> float:
        return float(np.mean([codes[i] >= 0 and math.isclose(names[codes[i]], by_item[it]) for i, it in lab]))

    h = f["human"].to_numpy(dtype=float)
    m = ~np.isnan(h)
    quality = tuple((rq.rater, rq.quality) for rq in agg.raters)
    on_scale = float(np.mean(np.isclose(h[m][:, None], names[None, :]).any(axis=1)))
    if on_scale < ON_SCALE:  # human scores off the judges' labels (a mean of raters): accuracy means nothing
        return DawidSkeneJudges(quality, len(lab), math.nan, math.nan, "", math.nan)
    single = {j: float(np.mean(np.isclose(f[j].to_numpy(dtype=float)[m], h[m]))) for j in table.judges}
    best = max(single, key=lambda j: single[j])
    return DawidSkeneJudges(quality, len(lab), acc(agg.labels), acc(agg.plurality), best, single[best])
