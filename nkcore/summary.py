"""Dataset summaries a user expects to see after an upload, each number with a plain-language sentence.

- ratings: items (N), ratings, ratings per item (K) min / median / max, raters, label distribution,
  agreement (Krippendorff's alpha, nominal, from the ``krippendorff`` package), share of items with a tied plurality;
- predictions: items, models, predictions per model, labels predicted, whether probabilities are given
  (and, against a ratings table, how many rated items each model covers);
- paired results: cases, configs, accuracy per config, cases every config has;
- samples: cases, samples per request (n) per case, share of correct samples, distinct answers per case, latency.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import krippendorff
import numpy as np
import pandas as pd

from nkcore.errors import DataError
from nkcore.kinds import KINDS, format_rows, natural_order, show_value, to_text
from nkcore.ratings import Ratings, need_columns, predictions_from_frame, ratings_from_frame, text_column

__all__ = [
    "ConfigAccuracy",
    "LabelShare",
    "PairedSummary",
    "PredictionsSummary",
    "RatingsSummary",
    "SamplesSummary",
    "SummaryNumber",
    "agreement_sentence",
    "krippendorff_alpha",
    "summarize",
    "summarize_paired",
    "summarize_predictions",
    "summarize_ratings",
    "summarize_ratings_frame",
    "summarize_samples",
    "tied_plurality",
    "validate_and_summarize",
]


@dataclass(frozen=True, slots=True)
class SummaryNumber:
    """One number of a summary: ``label`` (glossary words, e.g. "items (N)"), ``value`` (NaN when undefined),
    ``display`` (formatted for people) and ``sentence`` (what it means, in plain words)."""

    label: str
    value: float
    display: str
    sentence: str


@dataclass(frozen=True, slots=True)
class LabelShare:
    """How often one label occurs: ``count`` and ``share`` of the total."""

    label: str
    count: int
    share: float


@dataclass(frozen=True, slots=True)
class RatingsSummary:
    """Summary of a ratings table (see :func:`summarize_ratings`)."""

    kind: str
    n_items: int
    n_ratings: int
    n_raters: int
    k_min: int
    k_median: float
    k_max: int
    labels: tuple[LabelShare, ...]
    alpha: float
    n_tied: int
    tied_share: float
    numbers: tuple[SummaryNumber, ...]
    k_hist: tuple[tuple[int, int], ...] = ()  # (ratings per item K, number of items with that K)
    min_k: int = 1  # items with fewer ratings were left out (see ``summarize(..., min_k=)``)
    n_items_dropped: int = 0


@dataclass(frozen=True, slots=True)
class PredictionsSummary:
    """Summary of model predictions; the ``*_rated`` fields are filled only when checked against ratings."""

    kind: str
    n_rows: int
    n_items: int
    models: tuple[str, ...]
    per_model_min: int
    per_model_max: int
    has_hard: bool
    has_probs: bool
    labels: tuple[LabelShare, ...]
    n_items_rated: int | None
    covered_share: float | None
    numbers: tuple[SummaryNumber, ...]


@dataclass(frozen=True, slots=True)
class ConfigAccuracy:
    """One config of a paired table: cases it was run on, cases it got right, and their ratio."""

    config: str
    n_cases: int
    n_correct: int
    accuracy: float


@dataclass(frozen=True, slots=True)
class PairedSummary:
    """Summary of paired results (long or wide layout)."""

    kind: str
    layout: str
    n_cases: int
    n_complete: int
    configs: tuple[ConfigAccuracy, ...]
    numbers: tuple[SummaryNumber, ...]


@dataclass(frozen=True, slots=True)
class SamplesSummary:
    """Summary of raw samples (one row per model sample of a case)."""

    kind: str
    n_cases: int
    n_samples: int
    n_min: int
    n_median: float
    n_max: int
    correct_share: float
    answers_median: float
    latency_p50: float
    latency_p95: float
    numbers: tuple[SummaryNumber, ...]


def _fmt_int(n: float) -> str:
    return f"{int(n):,}"


def _fmt_num(x: float) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def _short(name: object, limit: int = 40) -> str:
    """A user's name (config, model) cut for a sentence or a label: ``'a-very-long…'``."""
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:.1f}%"


def krippendorff_alpha(counts: np.ndarray) -> float:
    """Krippendorff's alpha for nominal labels from per-item label counts, via the ``krippendorff`` package.

    alpha = 1 - D_o / D_e, with the coincidence matrix o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1) over items u
    with m_u >= 2 ratings; D_o = sum_{c != k} o_ck / n, D_e = sum_{c != k} n_c n_k / (n (n - 1)).
    Returns NaN when it is undefined (no item with two ratings, or a single label among the pairable ratings).

    Reference: K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C (nominal data);
    its 4-observer x 12-unit example gives 0.743.

    >>> round(krippendorff_alpha(np.array([[3, 0], [0, 3], [2, 1]])), 4)  # by hand: 1 - (2/9) / (5/9)
    0.6
    """
    counts = np.asarray(counts, dtype=np.int64)
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))


def agreement_sentence(alpha: float) -> str:
    """Plain words for Krippendorff's alpha, using Krippendorff's own thresholds (0.667 and 0.8).

    >>> agreement_sentence(0.85).startswith("Raters agree well")
    True
    """
    if not math.isfinite(alpha):
        return "Agreement cannot be computed: no item has two ratings with different possible labels."
    scale = "(1 = perfect agreement, 0 = no better than chance)"
    if alpha >= 0.8:
        return f"Raters agree well: alpha {alpha:.3f} is at least 0.8, Krippendorff's bar for reliable data {scale}."
    if alpha >= 0.667:
        return (
            f"Raters agree moderately: alpha {alpha:.3f} is between 0.667 and 0.8, enough only for tentative "
            f"conclusions by Krippendorff's standard {scale}."
        )
    if alpha > 0:
        return (
            f"Raters often disagree: alpha {alpha:.3f} is below 0.667 {scale}. The labels are subjective or noisy, "
            "so each item needs several ratings per item (K) to pin down its label distribution."
        )
    return f"Raters agree no more than chance would: alpha {alpha:.3f} {scale}."


def tied_plurality(counts: np.ndarray) -> np.ndarray:
    """Boolean per item: the largest label count is shared by two or more labels (no single plurality label).

    >>> tied_plurality(np.array([[2, 2, 0], [3, 1, 0]])).tolist()
    [True, False]
    """
    counts = np.asarray(counts)
    top = counts.max(axis=1, keepdims=True)
    return (counts == top).sum(axis=1) >= 2


def _shares(names: tuple[str, ...] | list[str], counts: np.ndarray) -> tuple[LabelShare, ...]:
    total = max(int(np.sum(counts)), 1)
    return tuple(LabelShare(str(n), int(c), float(c) / total) for n, c in zip(names, counts, strict=True))


def summarize_ratings(ratings: Ratings) -> RatingsSummary:
    """Items (N), ratings, ratings per item (K) min / median / max, raters, labels, agreement, tied pluralities.

    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xxxy")}))
    >>> s = summarize_ratings(r)
    >>> s.n_items, s.k_median, s.n_tied
    (2, 2.0, 1)
    """
    counts = ratings.counts
    k = counts.sum(axis=1)
    per_label = counts.sum(axis=0)
    labels = _shares(ratings.labels, per_label)
    alpha = krippendorff_alpha(counts)
    tied = tied_plurality(counts)
    n_tied = int(tied.sum())
    n = len(ratings.items)
    tied_share = n_tied / n
    top = max(labels, key=lambda s: s.count)
    k_min, k_med, k_max = int(k.min()), float(np.median(k)), int(k.max())
    k_sentence = (
        f"Every item has {k_min:,} ratings: ratings per item (K) = {k_min:,}."
        if k_min == k_max
        else f"Items have between {k_min:,} and {k_max:,} ratings each (ratings per item, K); the median item has "
        f"{_fmt_num(k_med)}."
    )
    numbers = (
        SummaryNumber("items (N)", n, _fmt_int(n), f"{n:,} distinct items (N) were rated."),
        SummaryNumber(
            "ratings",
            ratings.n_ratings,
            _fmt_int(ratings.n_ratings),
            f"{ratings.n_ratings:,} ratings in total, one row of the file each.",
        ),
        SummaryNumber(
            "ratings per item (K), min / median / max",
            k_med,
            f"{k_min:,} / {_fmt_num(k_med)} / {k_max:,}",
            k_sentence,
        ),
        SummaryNumber(
            "raters", ratings.n_raters, _fmt_int(ratings.n_raters), f"{ratings.n_raters:,} different raters gave them."
        ),
        SummaryNumber(
            "labels",
            len(labels),
            _fmt_int(len(labels)),
            f"{len(labels)} label classes; the most common is {show_value(top.label)} ({_pct(top.share)} of all ratings).",
        ),
        SummaryNumber("agreement (Krippendorff's alpha)", alpha, _fmt_alpha(alpha), agreement_sentence(alpha)),
        SummaryNumber(
            "items with a tied plurality",
            tied_share,
            _pct(tied_share),
            f"{n_tied:,} of {n:,} items ({_pct(tied_share)}) have a tie for the most common label, so their "
            "majority label is not defined.",
        ),
    )
    k_values, k_counts = np.unique(k, return_counts=True)
    return RatingsSummary(
        "ratings",
        n,
        ratings.n_ratings,
        ratings.n_raters,
        k_min,
        k_med,
        k_max,
        labels,
        alpha,
        n_tied,
        tied_share,
        numbers,
        tuple((int(a), int(b)) for a, b in zip(k_values, k_counts, strict=True)),
    )


def summarize_ratings_frame(frame: pd.DataFrame, min_k: int = 1) -> RatingsSummary:
    """:func:`summarize_ratings` of a ratings table, keeping only items with at least ``min_k`` ratings per item (K).

    The whole table is validated first; the summary then describes the kept items (raters and labels recounted).
    DataError when fewer than 2 items are kept.

    >>> df = pd.DataFrame({"item": [1, 1, 2, 3, 3], "rater": list("ababa"), "label": list("xyxyy")})
    >>> s = summarize_ratings_frame(df, min_k=2)
    >>> s.n_items, s.n_items_dropped, s.numbers[-1].label
    (2, 1, 'items left out')
    """
    full = ratings_from_frame(frame)
    min_k = int(min_k)
    if min_k <= 1:
        return summarize_ratings(full)
    k = full.counts.sum(axis=1)
    keep = np.asarray(full.items, dtype=object)[k >= min_k]
    if len(keep) < 2:
        raise DataError(
            f"only {len(keep)} of {len(full.items):,} items have at least {min_k} ratings per item (K); "
            f"the most any item has is {int(k.max())}. Lower the minimum."
        )
    kept = frame[to_text(frame["item"]).isin(set(keep.tolist())).to_numpy()]
    s = summarize_ratings(ratings_from_frame(kept))
    dropped = len(full.items) - len(keep)
    note = SummaryNumber(
        "items left out",
        dropped,
        _fmt_int(dropped),
        f"{dropped:,} of {len(full.items):,} items have fewer than {min_k} ratings per item (K) and are left out "
        "of every number above.",
    )
    return replace(s, numbers=(*s.numbers, note), min_k=min_k, n_items_dropped=dropped)


def _fmt_alpha(alpha: float) -> str:
    return "n/a" if not math.isfinite(alpha) else f"{alpha:.3f}"


def summarize_predictions(frame: pd.DataFrame, ratings_frame: pd.DataFrame | None = None) -> PredictionsSummary:
    """Items, models, predictions per model, labels predicted; validated against ``ratings_frame`` when given.

    Without ratings the checks are structural (columns, blanks, duplicate (item, model) rows, probabilities in
    [0, 1] summing to 1); with ratings every check of :func:`nkcore.ratings.predictions_from_frame` applies.

    >>> df = pd.DataFrame({"item": [1, 2, 1], "model": ["a", "a", "b"], "pred_label": ["x", "y", "x"]})
    >>> s = summarize_predictions(df)
    >>> s.models, s.per_model_min, s.per_model_max
    (('a', 'b'), 1, 2)
    """
    if ratings_frame is not None:
        ratings = ratings_from_frame(ratings_frame)
    else:
        labels = set()
        if "pred_label" in frame.columns:
            labels |= set(to_text(frame["pred_label"]).dropna().tolist())
        labels |= {str(c)[2:] for c in frame.columns if str(c).startswith("p_") and len(str(c)) > 2}
        items = to_text(frame["item"]).dropna().unique().tolist() if "item" in frame.columns else []
        # A stand-in ratings table with every item and label, so the same validation applies.
        ratings = Ratings(
            tuple(natural_order([str(i) for i in items])),
            tuple(natural_order(sorted(labels))),
            np.zeros((len(items), len(labels)), dtype=np.int64),
            0,
            0,
        )
    pred = predictions_from_frame(frame, ratings)
    has = pred.hard >= 0
    per_model = has.sum(axis=1)
    predicted_items = has.any(axis=0)
    label_counts = np.bincount(pred.hard[has], minlength=len(pred.labels))
    labels = _shares(pred.labels, label_counts)
    n_items = int(predicted_items.sum())
    models = pred.models
    numbers = [
        SummaryNumber(
            "items (N)", n_items, _fmt_int(n_items), f"The models predicted labels for {n_items:,} items (N)."
        ),
        SummaryNumber(
            "models",
            len(models),
            _fmt_int(len(models)),
            f"{len(models)} model{'s' if len(models) != 1 else ''}: {', '.join(map(_short, models[:8]))}"
            + (" ..." if len(models) > 8 else "")
            + ".",
        ),
        SummaryNumber(
            "predictions per model",
            float(per_model.min()),
            f"{int(per_model.min()):,}"
            + (f" to {int(per_model.max()):,}" if per_model.max() != per_model.min() else ""),
            "Every model predicted the same items."
            if per_model.min() == per_model.max() == n_items
            else f"Models cover between {int(per_model.min()):,} and {int(per_model.max()):,} of the items.",
        ),
        SummaryNumber(
            "probabilities",
            float(pred.probs is not None),
            "yes" if pred.probs is not None else "no",
            "Each prediction comes with one probability per label (p_<label> columns), so calibration can be judged."
            if pred.probs is not None
            else "Only hard labels are given (no p_<label> columns).",
        ),
    ]
    n_rated = covered = None
    if ratings_frame is not None:
        n_rated = len(ratings.items)
        covered = n_items / n_rated
        numbers.append(
            SummaryNumber(
                "rated items covered",
                covered,
                _pct(covered),
                f"The predictions cover {n_items:,} of the {n_rated:,} rated items (N), {_pct(covered)}.",
            )
        )
    return PredictionsSummary(
        "predictions",
        len(frame),
        n_items,
        models,
        int(per_model.min()),
        int(per_model.max()),
        "pred_label" in frame.columns,
        pred.probs is not None,
        labels,
        n_rated,
        covered,
        tuple(numbers),
    )


def summarize_paired(frame: pd.DataFrame) -> PairedSummary:
    """Cases, configs, accuracy per config and cases that every config has, for long or wide paired results.

    Long layout: columns case, config, correct (0/1), one row per (case, config). Wide layout: case plus one 0/1
    column per config. Errors: blank case / config, duplicate (case, config) rows, fewer than 2 configs.

    >>> df = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]})
    >>> [(c.config, c.accuracy) for c in summarize_paired(df).configs]
    [('a', 1.0), ('b', 0.5)]
    """
    need_columns(frame, ("case",), "paired results")
    frame = frame.reset_index(drop=True)  # positions are data rows, whatever index a caller's frame has
    if len(frame) == 0:
        raise DataError("the paired table has no rows")
    if "config" in frame.columns and "correct" in frame.columns:
        layout = "long"
        long = pd.DataFrame(
            {
                "case": text_column(frame, "case", "case"),
                "config": text_column(frame, "config", "config"),
                "correct": frame["correct"].to_numpy(),
                "row": np.arange(len(frame)),
            }
        )
    else:
        layout = "wide"
        configs = [c for c in frame.columns if c != "case"]
        case = text_column(frame, "case", "case")
        dup = np.flatnonzero(case.duplicated(keep=False).to_numpy())
        if len(dup):
            raise DataError(
                f"wide paired results need one row per case; case {show_value(case.iloc[dup[0]])} repeats in {format_rows(dup)}"
            )
        long = pd.DataFrame(
            {
                "case": np.repeat(case.to_numpy(dtype=object), len(configs)),
                "config": np.tile(np.array(configs, dtype=object), len(frame)),
                "correct": frame[configs].to_numpy(dtype=np.float64, na_value=np.nan).reshape(-1),
                "row": np.repeat(np.arange(len(frame)), len(configs)),
            }
        )
        long = long[~np.isnan(long["correct"].to_numpy(dtype=np.float64))].reset_index(drop=True)  # empty = no result
    correct = pd.to_numeric(long["correct"], errors="coerce")
    bad = np.unique(long["row"].to_numpy()[~correct.isin([0, 1]).to_numpy()])
    if len(bad):
        raise DataError(
            f"correct must be 0 or 1, but {format_rows(bad)} {'hold' if len(bad) > 1 else 'holds'} other values"
        )
    long["correct"] = correct.astype(np.int64)
    dup_at = np.flatnonzero(long.duplicated(["case", "config"], keep=False).to_numpy())
    if len(dup_at):
        first = long.iloc[dup_at[0]]
        dup = long["row"].to_numpy()[dup_at]
        raise DataError(
            f"duplicate rows: case {show_value(first['case'])} has config {show_value(first['config'])} more than once ({format_rows(dup)})"
        )
    configs = (
        natural_order(long["config"].unique().tolist())
        if layout == "long"
        else [c for c in frame.columns if c != "case"]
    )
    if len(configs) < 2:
        raise DataError(
            f"paired results need at least 2 configs to compare; the file has only {show_value(configs[0])}"
        )
    grouped = long.groupby("config", sort=False)["correct"].agg(["size", "sum"])
    rows = tuple(
        ConfigAccuracy(
            str(c),
            int(grouped.loc[c, "size"]),
            int(grouped.loc[c, "sum"]),
            float(grouped.loc[c, "sum"] / grouped.loc[c, "size"]),
        )
        for c in configs
    )
    per_case = long.groupby("case", sort=False)["config"].nunique()
    n_cases = len(per_case)
    n_complete = int((per_case == len(configs)).sum())
    top = max(r.accuracy for r in rows)
    n_top = sum(r.accuracy == top for r in rows)
    highest = (
        " (the highest)."
        if n_top == 1
        else f" (tied for the highest with {n_top - 1} other config{'s' if n_top > 2 else ''})."
    )
    numbers = [
        SummaryNumber("cases", n_cases, _fmt_int(n_cases), f"{n_cases:,} evaluation cases."),
        SummaryNumber(
            "configs",
            len(configs),
            _fmt_int(len(configs)),
            f"{len(configs)} configs compared: {', '.join(map(_short, configs[:8]))}"
            + (" ..." if len(configs) > 8 else "")
            + ".",
        ),
        SummaryNumber(
            "cases every config has",
            n_complete,
            _fmt_int(n_complete),
            "Every config was run on every case, so all cases are paired."
            if n_complete == n_cases
            else f"Only {n_complete:,} of {n_cases:,} cases have a result for every config; paired tests use those.",
        ),
    ]
    for r in rows:
        numbers.append(
            SummaryNumber(
                f"accuracy of {_short(r.config)}",
                r.accuracy,
                _pct(r.accuracy),
                f"{_short(r.config)} got {r.n_correct:,} of {r.n_cases:,} cases right"
                + (highest if r.accuracy == top and len(rows) > 1 else "."),
            )
        )
    return PairedSummary("paired", layout, n_cases, n_complete, rows, tuple(numbers))


def summarize_samples(frame: pd.DataFrame) -> SamplesSummary:
    """Cases, samples per request (n) per case, share of correct samples, distinct answers per case, latency.

    A sample is correct when its ``correct`` is 1 or, without that column, when its answer equals the gold
    answer as text (surrounding spaces ignored). Errors: blank case / sample, duplicate (case, sample) rows.

    >>> df = pd.DataFrame({"case": [1, 1, 1, 2], "sample": [0, 1, 2, 0], "answer": ["4", "4", "5", "x"],
    ...                    "gold": ["4", "4", "4", "x"]})
    >>> s = summarize_samples(df)
    >>> s.n_cases, s.n_max, s.correct_share
    (2, 3, 0.75)
    """
    need_columns(frame, ("case", "sample", "answer"), "samples")
    if "gold" not in frame.columns and "correct" not in frame.columns:
        raise DataError("samples need a gold (correct answer) or a correct (0/1) column")
    if len(frame) == 0:
        raise DataError("the samples table has no rows")
    frame = frame.reset_index(drop=True)  # positions are data rows, whatever index a caller's frame has
    case = text_column(frame, "case", "case")
    sample = text_column(frame, "sample", "sample")
    dup = np.flatnonzero(pd.DataFrame({"c": case, "s": sample}).duplicated(keep=False).to_numpy())
    if len(dup):
        raise DataError(
            f"duplicate samples: case {show_value(case.iloc[dup[0]])} has sample {show_value(sample.iloc[dup[0]])} more than once ({format_rows(dup)})"
        )
    answer = to_text(frame["answer"])
    if "correct" in frame.columns:
        correct = pd.to_numeric(frame["correct"], errors="coerce").to_numpy(dtype=np.float64)
    else:
        gold = to_text(frame["gold"])
        correct = (answer.fillna("\x00") == gold.fillna("\x01")).to_numpy(dtype=np.float64)
    per_case = case.value_counts(sort=False).to_numpy()
    n_cases = len(per_case)
    answers = pd.DataFrame({"c": case, "a": answer}).groupby("c", sort=False)["a"].nunique().to_numpy()
    share = float(np.nanmean(correct))
    p50 = p95 = float("nan")
    if "latency_s" in frame.columns:
        lat = pd.to_numeric(frame["latency_s"], errors="coerce").dropna().to_numpy(dtype=np.float64)
        if len(lat):
            p50, p95 = (float(v) for v in np.quantile(lat, [0.5, 0.95]))
    n_min, n_med, n_max = int(per_case.min()), float(np.median(per_case)), int(per_case.max())
    n_sentence = (
        f"Every case has {n_min:,} samples: samples per request (n) = {n_min:,}."
        if n_min == n_max
        else f"Cases have between {n_min:,} and {n_max:,} samples each (samples per request, n); the median case has "
        f"{_fmt_num(n_med)}."
    )
    numbers = [
        SummaryNumber("cases", n_cases, _fmt_int(n_cases), f"{n_cases:,} evaluation cases."),
        SummaryNumber("samples", len(frame), _fmt_int(len(frame)), f"{len(frame):,} model samples in total."),
        SummaryNumber(
            "samples per request (n), min / median / max",
            n_med,
            f"{n_min:,} / {_fmt_num(n_med)} / {n_max:,}",
            n_sentence,
        ),
        SummaryNumber(
            "correct samples",
            share,
            _pct(share),
            f"{_pct(share)} of single samples are correct: the accuracy of one call, before any majority vote.",
        ),
        SummaryNumber(
            "distinct answers per case (median)",
            float(np.median(answers)),
            _fmt_num(float(np.median(answers))),
            "How many different answers the samples of a typical case give; 1 means the model always agrees with itself.",
        ),
    ]
    if math.isfinite(p50):
        numbers.append(
            SummaryNumber(
                "latency p50 / p95",
                p50,
                f"{p50:.2f} s / {p95:.2f} s",
                f"Half of the single calls took at most {p50:.2f} s; 95% took at most {p95:.2f} s.",
            )
        )
    return SamplesSummary(
        "samples", n_cases, len(frame), n_min, n_med, n_max, share, float(np.median(answers)), p50, p95, tuple(numbers)
    )


def summarize(
    frame: pd.DataFrame, kind: str, min_k: int = 1
) -> RatingsSummary | PredictionsSummary | PairedSummary | SamplesSummary:
    """The summary of a canonical table of ``kind`` (see ``nkcore.kinds``); validates it on the way.

    ``min_k`` (ratings only): keep items with at least that many ratings per item (K). Predictions are summarised
    on their own here; use :func:`summarize_predictions` with a ratings table to check them against the ratings.

    >>> summarize(pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}), "ratings").n_items
    2
    """
    if kind == "ratings":
        return summarize_ratings_frame(frame, min_k)
    if kind == "predictions":
        return summarize_predictions(frame)
    if kind == "paired":
        return summarize_paired(frame)
    if kind == "samples":
        return summarize_samples(frame)
    raise DataError(f"unknown data kind {kind!r}; choose one of {', '.join(KINDS)}")


def validate_and_summarize(
    table: pd.DataFrame, kind: str, ratings_frame: pd.DataFrame | None = None
) -> RatingsSummary | PredictionsSummary | PairedSummary | SamplesSummary:
    """Accept or refuse a canonical table of ``kind`` with the same parser the analysis pages use, then summarise it.

    ratings: :func:`nkcore.ratings.ratings_from_frame`; predictions: :func:`nkcore.ratings.predictions_from_frame`
    against ``ratings_frame`` when given; paired results: ``nkcore.paired.parse_paired``; samples:
    ``nkcore.voting.parse_samples``. Any problem is a DataError naming the rows or columns.

    >>> validate_and_summarize(pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}), "ratings").kind
    'ratings'
    """
    if kind == "paired":
        from nkcore.paired import parse_paired

        parse_paired(table)
    elif kind == "samples":
        from nkcore.voting import parse_samples

        parse_samples(table)
    elif kind == "predictions" and ratings_frame is not None:
        return summarize_predictions(table, ratings_frame)
    return summarize(table, kind)
