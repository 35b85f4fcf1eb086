"""Views of an evaluation (see :mod:`nkcore.evaluation`): one config's samples, its price, single-call accuracy."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.common.formatting import plural
from nkcore.errors import DataError
from nkcore.kinds.columns import REPEAT_COLUMNS, SCORE_COLUMNS

__all__ = [
    "EVAL_COLUMNS",
    "Price",
    "SamplesView",
    "config_names",
    "config_table",
    "long_form",
    "price_per_call",
    "repeat_column",
    "samples_view",
    "single_call_accuracy",
]

EVAL_COLUMNS: tuple[str, ...] = ("case", "config", "repeat", "correct", "answer", "gold", "latency_s", "cost")
"""The columns of an evaluation (``repeat`` may be named ``epoch``, inspect_ai's word; all but case, config and
correct are optional)."""

_HOW_TO_REPEAT = (
    "run each case several times (inspect_ai: --epochs 5; promptfoo: eval --repeat 5; lm-evaluation-harness: "
    "repeats in the task)"
)


def repeat_column(frame: pd.DataFrame) -> str | None:
    """The column numbering each case's repeats (``repeat``, ``epoch`` or ``sample``, first found), or None.

    >>> repeat_column(pd.DataFrame(columns=["case", "config", "epoch", "correct"]))
    'epoch'
    """
    return next((c for c in REPEAT_COLUMNS if c in frame.columns), None)


def long_form(frame: pd.DataFrame) -> pd.DataFrame:
    """An evaluation in its long layout: paired results in the wide layout (``case`` plus one 0/1 column per
    config, optionally a repeat column) melted to ``case, config, [repeat], correct`` (configs in column order,
    empty cells left out); a long table or raw samples (``sample`` and ``answer`` columns) as they are.

    >>> long_form(pd.DataFrame({"case": [1, 2], "A": [1, 0], "B": [1, None]})).to_dict("list")
    {'case': [1, 2, 1], 'config': ['A', 'A', 'B'], 'correct': [1.0, 0.0, 1.0]}
    """
    if "case" not in frame.columns or any(c in frame.columns for c in ("config", "correct", "score", "answer")):
        return frame  # long, or raw samples: a wide table has none of these columns
    keys = ["case", *[c for c in REPEAT_COLUMNS if c in frame.columns]]
    configs = [c for c in frame.columns if c not in keys]
    if not configs:
        return frame
    out = frame.melt(id_vars=keys, value_vars=configs, var_name="config", value_name="correct")
    out = out.dropna(subset=["correct"]).reset_index(drop=True)
    return out[[keys[0], "config", *keys[1:], "correct"]]


def config_names(frame: pd.DataFrame) -> tuple[str, ...]:
    """The configs of an evaluation in order of first appearance (the wide layout's config columns in order);
    () for raw samples (one config).

    >>> config_names(pd.DataFrame({"case": [1, 1, 2], "config": ["b", "a", "b"], "correct": [1, 0, 1]}))
    ('b', 'a')
    """
    frame = long_form(frame)
    if "config" not in frame.columns:
        return ()
    return tuple(str(v) for v in pd.unique(frame["config"].dropna()))


def _rows_of(frame: pd.DataFrame, config: str | None) -> pd.DataFrame:
    frame = long_form(frame)
    if "config" not in frame.columns:
        return frame
    names = config_names(frame)
    if config is None:
        if len(names) == 1:
            config = names[0]
        else:
            raise DataError(f"name the config: the evaluation holds {len(names)} ({', '.join(names[:8])})")
    rows = frame[frame["config"].astype(str) == config]
    if rows.empty:
        raise DataError(f"no config {config!r} in the evaluation; its configs are {', '.join(names[:12])}")
    return rows


def _scores(rows: pd.DataFrame) -> np.ndarray:
    column = next((c for c in SCORE_COLUMNS if c in rows.columns), SCORE_COLUMNS[-1])
    return pd.to_numeric(rows[column], errors="coerce").to_numpy(dtype=float)


def single_call_accuracy(frame: pd.DataFrame, config: str | None = None) -> float:
    """Single-call accuracy of one config: the mean over cases of each case's mean score over its repeats.

    p = (1 / N) sum_i (1 / n_i) sum_j c_ij, with c_ij the score (0/1 or in [0, 1]) of case i's j-th repeat and n_i
    its repeats (scores missing through an error left out). It is the expected score of one call on a case drawn
    at random, the vote curve's value at n = 1 (Sampling), the accuracy Compare tests (the case as the unit) and
    Cost's single-call row: one number on every page. Reference: the case as the unit of repeated evaluations
    (Miller 2024, "Adding Error Bars to Evals": means over resampled answers, errors clustered by question).

    >>> f = pd.DataFrame({"case": [1, 1, 1, 2], "config": "A", "repeat": [1, 2, 3, 1], "correct": [1, 0, 0, 1]})
    >>> round(single_call_accuracy(f), 4)  # (1/3 + 1) / 2
    0.6667
    """
    return _single_call(_rows_of(frame, config))


def _single_call(rows: pd.DataFrame) -> float:
    """:func:`single_call_accuracy` of one config's rows."""
    scores = pd.Series(_scores(rows), index=rows.index)
    per_case = scores.groupby(rows["case"].astype(str).to_numpy(), sort=False).mean().dropna()
    if per_case.empty:
        raise DataError("no case has a score")
    return float(per_case.mean())


@dataclass(frozen=True, slots=True)
class Price:
    """The price per call recorded by a run: ``dollars`` (the mean recorded cost of one call), ``n_priced`` calls
    with a cost out of ``n_calls``, and ``sentence`` saying where it came from."""

    dollars: float
    n_priced: int
    n_calls: int
    sentence: str


def price_per_call(frame: pd.DataFrame, config: str | None = None) -> Price | None:
    """The price of one call of ``config`` from the run's own ``cost`` column, or None when it records none.

    price = mean of the recorded costs (dollars per call) over the calls that record one; the sentence names the
    calls it comes from (promptfoo writes ``cost`` per result).

    >>> f = pd.DataFrame({"case": [1, 2, 3], "config": "A", "correct": [1, 0, 1], "cost": [0.002, 0.002, None]})
    >>> p = price_per_call(f); (p.dollars, p.n_priced, p.n_calls)
    (0.002, 2, 3)
    """
    return _price(_rows_of(frame, config))


def _price(rows: pd.DataFrame) -> Price | None:
    """:func:`price_per_call` of one config's rows."""
    if "cost" not in rows.columns:
        return None
    costs = pd.to_numeric(rows["cost"], errors="coerce").to_numpy(dtype=float)
    priced = costs[np.isfinite(costs) & (costs >= 0)]
    if len(priced) == 0:
        return None
    dollars = float(priced.mean())
    which = "every call" if len(priced) == len(costs) else f"{len(priced):,} of {len(costs):,} calls"
    sentence = f"${dollars:.4g} per call: the mean cost the run recorded for {which}"
    return Price(dollars, len(priced), len(costs), sentence)


@dataclass(frozen=True, slots=True)
class SamplesView:
    """One config's raw samples, as the majority vote reads them (:func:`nkcore.voting.parse_samples`): ``frame``
    (``case, sample`` + ``answer`` / ``gold`` / ``correct``, ``latency_s``, ``cost``) or None with ``reason``
    (one sentence: why this config cannot be voted on, and what to do); ``notes``: choices made (answers graded as
    text, errored samples left out)."""

    config: str
    frame: pd.DataFrame | None
    reason: str
    notes: tuple[str, ...] = ()


def samples_view(frame: pd.DataFrame, config: str | None = None) -> SamplesView:
    """The raw samples of one config of an evaluation (a raw-samples table is returned as it is).

    Per config (never across configs, so one config's errors or graded answers do not change another's view):
    samples whose score is missing (the call ended in an error) are left out and counted; the answers are kept
    when every answer's grade is the same wherever it appears in a case (with the gold when the grade is answer ==
    gold), else the vote counts right and wrong samples (binary). None, with the reason, when every case has one
    sample or the scores are partial credit (a majority vote needs right / wrong samples).

    >>> f = pd.DataFrame({"case": [1, 1, 1, 1], "config": ["A", "A", "B", "B"], "repeat": [1, 2, 1, 2],
    ...                   "correct": [1, 0, 0.5, 1.0], "answer": ["x", "y", "x", "x"], "gold": "x"})
    >>> samples_view(f, "A").frame.columns.tolist()
    ['case', 'sample', 'answer', 'gold', 'correct']
    >>> samples_view(f, "B").reason[:40]
    'B has scores between 0 and 1 (partial cr'
    """
    frame = long_form(frame)
    if "config" not in frame.columns:  # raw samples: one config
        return SamplesView("", frame, "")
    rows = _rows_of(frame, config)
    name = str(rows["config"].iloc[0])
    rep = repeat_column(rows)
    cases = rows["case"].astype(str)
    if rep is None or not cases.duplicated().any():
        return SamplesView(
            name,
            None,
            f"{name} has one sample per case, so there is nothing to vote over: a vote needs several samples "
            f"per case; {_HOW_TO_REPEAT}.",
        )
    scores = _scores(rows)
    notes: list[str] = []
    missing = np.isnan(scores)
    if missing.any():
        notes.append(f"{plural(int(missing.sum()), 'sample')} of {name} ended in an error (no score): left out")
        rows, scores = rows.loc[~missing], scores[~missing]
    if not np.isin(scores, (0.0, 1.0)).all():
        return SamplesView(
            name,
            None,
            f"{name} has scores between 0 and 1 (partial credit), and a majority vote needs right / wrong samples: "
            "score the run with a right / wrong scorer (inspect_ai: pick it with --scorer, or set a threshold) to "
            "see the vote; Compare and the Planner read the partial scores as they are.",
            tuple(notes),
        )
    out = pd.DataFrame(
        {"case": rows["case"].to_numpy(), "sample": rows[rep].to_numpy(), "correct": scores.astype(np.int8)}
    )
    answer = rows["answer"] if "answer" in rows.columns else None
    gold = rows["gold"] if "gold" in rows.columns else None
    if answer is not None and answer.notna().all():
        right = scores == 1.0
        if gold is not None and gold.notna().all() and np.array_equal((answer == gold).to_numpy(), right):
            out.insert(2, "answer", answer.to_numpy())
            out.insert(3, "gold", gold.to_numpy())
        elif (rows.assign(_s=scores).groupby(["case", "answer"])["_s"].nunique() == 1).all():
            out.insert(2, "answer", answer.to_numpy())
            notes.append(f"{name}: the samples keep each answer and the tool's grade (answers graded right count as "
                         "the gold)")  # fmt: skip
        else:
            notes.append(
                f"{name}: the answers are graded text (the same text can be graded differently, or the grade is not "
                "answer == gold), so the vote counts right and wrong samples"
            )
    for col in ("latency_s", "cost"):
        if col in rows.columns:
            values = pd.to_numeric(rows[col], errors="coerce").to_numpy(dtype=float)
            if (col == "latency_s" and np.isfinite(values).all()) or (col == "cost" and np.isfinite(values).any()):
                out[col] = values
    return SamplesView(name, out.reset_index(drop=True), "", tuple(notes))


def config_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every config of an evaluation side by side: cases, samples per case (fewest to most), single-call accuracy
    (:func:`single_call_accuracy`), price per call from the run (NaN when none is recorded) and the median
    latency of one call (seconds; NaN when none is recorded).

    >>> f = pd.DataFrame({"case": [1, 2, 1, 2], "config": ["A", "A", "B", "B"], "correct": [1, 0, 1, 1]})
    >>> config_table(f)[["config", "cases", "single_call_accuracy"]].to_dict("records")
    [{'config': 'A', 'cases': 2, 'single_call_accuracy': 0.5}, {'config': 'B', 'cases': 2, 'single_call_accuracy': 1.0}]
    """
    frame = long_form(frame)
    # each config's rows once (one pass, not a filter of the whole table per config); raw samples: one config
    if "config" in frame.columns:
        named = frame[frame["config"].notna()]
        groups = [(str(name), rows) for name, rows in named.groupby(named["config"].astype(str), sort=False)]
    else:
        groups = [("", frame)]
    out = []
    for name, rows in groups:
        sizes = rows.groupby(rows["case"].astype(str), sort=False).size()
        price = _price(rows)
        lat = (
            pd.to_numeric(rows["latency_s"], errors="coerce").dropna()
            if "latency_s" in rows.columns
            else pd.Series(dtype=float)
        )
        out.append(
            {
                "config": name,
                "cases": int(sizes.size),
                "samples_min": int(sizes.min()),
                "samples_max": int(sizes.max()),
                "single_call_accuracy": _single_call(rows),
                "price_per_call": price.dollars if price is not None else float("nan"),
                "median_latency_s": float(lat.median()) if len(lat) else float("nan"),
            }
        )
    return pd.DataFrame(out)
