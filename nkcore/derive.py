"""Derived datasets: model predictions + gold labels -> paired results; several runs of one model -> raw samples.

- :func:`paired_from_predictions`: each model (or model run) right or wrong on each item, a ``paired`` table
  (``case, config, correct``) that the paired comparison and the resolution planner read;
- :func:`samples_from_runs`: the runs (seeds) of one model as the samples of each case, a ``samples`` table
  (``case, sample, answer, gold``) that the sampling analysis reads;
- :func:`derive_paired`, :func:`derive_samples`: the same from a predictions *table* (any column names), with the
  gold from a ratings dataset (its plurality label) or from a gold column of the predictions table;
- :func:`run_column`: which column names the model run, i.e. makes (item, run) unique.

The gold label of an item is the plurality of its ratings (the label with the most ratings). When two or more
labels share the largest count (a tied plurality), ``ties="drop"`` (the default) leaves the item out and counts it;
``ties="any"`` (paired results only) counts a prediction right when it is one of the tied labels.
Only items with a gold label and a prediction from every model (run) are kept; :class:`Derived` says how many were
dropped and why. A derived table is stored like an upload; its id is :attr:`Derived.id` (the store's fingerprint)
and :attr:`Derived.source_ids` names the datasets it was derived from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from nkcore.common.formatting import count
from nkcore.errors import DataError
from nkcore.io import fingerprint
from nkcore.kinds import apply_mapping, detect_kind, natural_order, show_value, to_text
from nkcore.kinds.columns import SYNONYMS, normal_name
from nkcore.ratings import Predictions, Ratings, predictions_from_frame

__all__ = [
    "TIES",
    "Derived",
    "derive_paired",
    "derive_samples",
    "gold_from_column",
    "paired_from_predictions",
    "run_column",
    "samples_from_runs",
]

TIES: tuple[str, ...] = ("drop", "any")
"""How an item whose plurality is tied is handled: ``drop`` leaves it out; ``any`` accepts any tied label."""

# Reasons an item is left out, in the order they are checked (an item counts under the first that applies).
NO_GOLD = "no gold label"
TIED = "tied plurality"
NOT_EVERY = "not predicted by every model"
NOT_RATED = "not in the gold labels"

_RUN_WORDS = ("model_run", "run", "run_id", "checkpoint", "seed", "model_seed", "replicate")
_SUBSET_NAMES = ("subset", "split", "dataset")


@dataclass(frozen=True, slots=True, eq=False)
class Derived:
    """A derived table and where it came from.

    ``frame``: the canonical table (paired: case, config, correct; samples: case, sample, answer, gold);
    ``kind``: "paired" or "samples"; ``source_ids``: ids of the datasets it was derived from;
    ``notes``: plain sentences (gold rule, ties, runs); ``configs``: the models (paired) or runs (samples), in
    order; ``items_kept``: cases in the table; ``dropped``: (reason, items) pairs, reasons in check order.
    """

    frame: pd.DataFrame
    kind: str
    source_ids: tuple[str, ...]
    notes: tuple[str, ...]
    configs: tuple[str, ...]
    items_kept: int
    dropped: tuple[tuple[str, int], ...]

    @property
    def items_dropped(self) -> int:
        """Items left out, all reasons together."""
        return sum(n for _, n in self.dropped)

    @property
    def id(self) -> str:
        """The id the store gives this table (:func:`nkcore.io.fingerprint` of ``frame``)."""
        return fingerprint(self.frame)

    def summary(self) -> dict[str, Any]:
        """The JSON summary: kind, n_rows, configs, items_kept, items_dropped, dropped (by reason), notes, ids."""
        return {
            "kind": self.kind,
            "id": self.id,
            "n_rows": len(self.frame),
            "configs": list(self.configs),
            "items_kept": self.items_kept,
            "items_dropped": self.items_dropped,
            "dropped": dict(self.dropped),
            "notes": list(self.notes),
            "source_ids": list(self.source_ids),
        }


# ------------------------------------------------------------------------------------------------ gold labels
def _accepted(
    gold: Ratings | Mapping[str, str], items: Sequence[str], labels: Sequence[str], ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Per item of ``items``: (accepted[i, m] for m in ``labels``, has_gold, tied, the gold rule in words)."""
    if ties not in TIES:
        raise DataError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    n, m = len(items), len(labels)
    accept = np.zeros((n, m), dtype=bool)
    tied = np.zeros(n, dtype=bool)
    if isinstance(gold, Ratings):
        pos = pd.Index(gold.items).get_indexer(list(items))
        has = pos >= 0
        counts = gold.counts[pos[has]]
        top = counts == counts.max(axis=1, keepdims=True)
        tied[has] = top.sum(axis=1) >= 2
        lab_pos = pd.Index(gold.labels).get_indexer(list(labels))
        known = lab_pos >= 0
        sub = np.zeros((int(has.sum()), m), dtype=bool)
        sub[:, known] = top[:, lab_pos[known]]
        accept[has] = sub
        rule = "gold = the plurality label of each item's ratings"
    else:
        values = [gold.get(item) for item in items]
        has = np.array([v is not None and str(v) != "" for v in values], dtype=bool)
        codes = pd.Index(list(labels)).get_indexer([str(v) if v is not None else "" for v in values])
        hit = has & (codes >= 0)
        accept[np.flatnonzero(hit), codes[hit]] = True
        rule = "gold = the gold column"
    return accept, has, tied, rule


def gold_from_column(frame: pd.DataFrame, item_col: str, gold_col: str) -> dict[str, str]:
    """Item id -> gold label from a column of a predictions table (every row of an item must give the same label).

    Blank gold cells are ignored (that row states no gold); DataError when the column is missing or an item has two
    different gold labels.

    >>> gold_from_column(pd.DataFrame({"item": [1, 1, 2], "gold": ["x", "x", None]}), "item", "gold")
    {'1': 'x'}
    """
    for col in (item_col, gold_col):
        if col not in frame.columns:
            raise DataError(
                f"no column {col!r} in the predictions table; its columns are {', '.join(map(str, frame.columns[:20]))}"
            )
    pairs = pd.DataFrame({"item": to_text(frame[item_col]), "gold": to_text(frame[gold_col])}).dropna()
    pairs = pairs[(pairs["item"] != "") & (pairs["gold"] != "")].drop_duplicates()
    clash = pairs["item"].duplicated(keep=False)
    if clash.any():
        item = pairs.loc[clash, "item"].iloc[0]
        shown = ", ".join(map(show_value, pairs.loc[pairs["item"] == item, "gold"].tolist()[:4]))
        raise DataError(
            f"item {show_value(item)} has different gold labels in column {gold_col!r} ({shown}) "
            f"({count(int(clash.sum()), 'row')} disagree); give one gold label per item"
        )
    return dict(zip(pairs["item"].tolist(), pairs["gold"].tolist(), strict=True))


def _dropped(reasons: list[tuple[str, np.ndarray]]) -> tuple[np.ndarray, tuple[tuple[str, int], ...]]:
    """Keep mask and (reason, count) from masks of items to drop, each item counted under its first reason."""
    n = len(reasons[0][1])
    gone = np.zeros(n, dtype=bool)
    out = []
    for reason, mask in reasons:
        new = mask & ~gone
        if new.any():
            out.append((reason, int(new.sum())))
        gone |= new
    return ~gone, tuple(out)


def _pick_models(predictions: Predictions, models: Sequence[str] | None) -> np.ndarray:
    if models is None:
        return np.arange(len(predictions.models))
    pos = pd.Index(list(predictions.models)).get_indexer(list(models))
    if (pos < 0).any():
        unknown = [m for m, p in zip(models, pos, strict=True) if p < 0]
        raise DataError(
            f"no predictions of {', '.join(map(show_value, unknown))}; the models are "
            f"{', '.join(map(show_value, predictions.models[:12]))}"
        )
    return np.asarray(pos)


# ------------------------------------------------------------------------------------------------ from Predictions
def paired_from_predictions(
    predictions: Predictions,
    gold: Ratings | Mapping[str, str],
    *,
    ties: str = "drop",
    models: Sequence[str] | None = None,
    source_ids: Sequence[str] = (),
    extra_dropped: Sequence[tuple[str, int]] = (),
) -> Derived:
    """Paired results (case, config, correct): each model right or wrong on each item against the gold label.

    correct[item, model] = 1 if the model's label is the item's gold label (with ``ties="any"``: one of its tied
    plurality labels), else 0. ``gold`` is a :class:`Ratings` (gold = plurality of each item's label counts) or a
    mapping item -> gold label. Kept: items with a gold label (not a dropped tie) that every model predicts; the
    rest are counted by reason in :attr:`Derived.dropped`. Cases are items in the predictions' order, configs the
    models in order (``models`` picks some). DataError when fewer than 2 models or no item is left.

    Reference: the paired comparison of configs on the same cases (McNemar 1947) needs exactly this table.

    >>> from nkcore.ratings import ratings_from_frame
    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
    ...                                      "label": list("xxyyxy")}))
    >>> p = predictions_from_frame(pd.DataFrame({"item": [1, 2, 3, 1, 2, 3], "model": list("aaabbb"),
    ...                                          "pred_label": list("xxxxyy")}), r)
    >>> d = paired_from_predictions(p, r)
    >>> d.frame["correct"].tolist(), d.dropped  # item 3 is a 1-1 tie: dropped
    ([1, 1, 0, 1], (('tied plurality', 1),))
    """
    pick = _pick_models(predictions, models)
    if len(pick) < 2:
        raise DataError(
            f"paired results need at least 2 models to compare; the predictions have {count(len(pick), 'model')}"
        )
    items = list(predictions.items)
    accept, has, tied, rule = _accepted(gold, items, predictions.labels, ties)
    hard = predictions.hard[pick]
    keep, dropped = _dropped([(NO_GOLD, ~has), (TIED, tied & (ties == "drop")), (NOT_EVERY, (hard < 0).any(axis=0))])
    if not keep.any():
        raise DataError(
            "no item is left: " + "; ".join(f"{count(n, 'item')} {why}" for why, n in dropped) + ". Check that the "
            "predictions and the gold labels use the same item ids"
        )
    idx = np.flatnonzero(keep)
    h = hard[:, idx]
    correct = accept[idx[None, :], np.maximum(h, 0)] & (h >= 0)
    names = [predictions.models[i] for i in pick]
    frame = pd.DataFrame(
        {
            "case": np.repeat(np.array([items[i] for i in idx], dtype=object), len(names)),
            "config": np.tile(np.array(names, dtype=object), len(idx)),
            "correct": correct.T.reshape(-1).astype(np.int64),
        }
    )
    n_tied = int((tied & keep).sum())
    notes = [rule]
    if isinstance(gold, Ratings):
        notes.append(
            f"{count(int(tied.sum()), 'item')} with a tied plurality: "
            + ("left out" if ties == "drop" else f"kept ({n_tied}), a prediction of any tied label counts as right")
        )
    all_dropped = tuple(extra_dropped) + dropped
    notes.append(
        f"{count(len(idx), 'item')} kept, {count(sum(n for _, n in all_dropped), 'item')} dropped"
        + (f" ({'; '.join(f'{n} {why}' for why, n in all_dropped)})" if all_dropped else "")
    )
    return Derived(frame, "paired", tuple(source_ids), tuple(notes), tuple(names), len(idx), all_dropped)


def samples_from_runs(
    predictions: Predictions,
    gold: Ratings | Mapping[str, str],
    *,
    runs: Sequence[str] | None = None,
    source_ids: Sequence[str] = (),
    extra_dropped: Sequence[tuple[str, int]] = (),
) -> Derived:
    """Raw samples (case, sample, answer, gold): the runs (seeds) of one model as the samples of each case.

    Run j of ``runs`` (default: every model of ``predictions`` in natural order, each taken to be a run of the same
    model, so seed0 is sample 1) is sample j + 1; answer = its predicted label; gold = the item's plurality label (``gold`` a :class:`Ratings`) or the
    mapping's label. Items with a tied plurality, without gold, or missed by a run are dropped and counted.

    >>> from nkcore.ratings import ratings_from_frame
    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xxyy")}))
    >>> p = predictions_from_frame(pd.DataFrame({"item": [1, 2, 1, 2], "model": ["s0", "s0", "s1", "s1"],
    ...                                          "pred_label": list("xxxy")}), r)
    >>> samples_from_runs(p, r).frame.values.tolist()
    [['1', 1, 'x', 'x'], ['1', 2, 'x', 'x'], ['2', 1, 'x', 'y'], ['2', 2, 'y', 'y']]
    """
    pick = _pick_models(predictions, runs if runs is not None else natural_order(list(predictions.models)))
    items = list(predictions.items)
    _accept, has, tied, rule = _accepted(gold, items, predictions.labels, "drop")
    if isinstance(gold, Ratings):
        pos = pd.Index(gold.items).get_indexer(items)
        gold_label = np.array(
            [gold.labels[int(np.argmax(gold.counts[p]))] if p >= 0 else "" for p in pos], dtype=object
        )
    else:
        gold_label = np.array([str(gold.get(i, "")) for i in items], dtype=object)
    hard = predictions.hard[pick]
    keep, dropped = _dropped([(NO_GOLD, ~has), (TIED, tied), (NOT_EVERY, (hard < 0).any(axis=0))])
    if not keep.any():
        raise DataError(
            "no item is left: " + "; ".join(f"{count(n, 'item')} {why}" for why, n in dropped) + ". Check that the "
            "predictions and the gold labels use the same item ids"
        )
    idx = np.flatnonzero(keep)
    names = [predictions.models[i] for i in pick]
    labels = np.array(predictions.labels, dtype=object)
    frame = pd.DataFrame(
        {
            "case": np.repeat(np.array([items[i] for i in idx], dtype=object), len(names)),
            "sample": np.tile(np.arange(1, len(names) + 1, dtype=np.int64), len(idx)),
            "answer": labels[hard[:, idx].T.reshape(-1)],
            "gold": np.repeat(gold_label[idx], len(names)),
        }
    )
    all_dropped = tuple(extra_dropped) + dropped
    notes = (
        rule + ("; items with a tied plurality are left out" if isinstance(gold, Ratings) else ""),
        "samples per case (n) = "
        + str(len(names))
        + ": "
        + ", ".join(f"sample {j + 1} = {n}" for j, n in enumerate(names)),
        f"{count(len(idx), 'item')} kept, {count(sum(n for _, n in all_dropped), 'item')} dropped"
        + (f" ({'; '.join(f'{n} {why}' for why, n in all_dropped)})" if all_dropped else ""),
    )
    return Derived(frame, "samples", tuple(source_ids), notes, tuple(names), len(idx), all_dropped)


# ------------------------------------------------------------------------------------------------ from tables
def _is_id_like(col: pd.Series) -> bool:
    """Text, integer or boolean column (a float column of scores never names a run)."""
    return not pd.api.types.is_float_dtype(col.dtype) or bool(
        np.all(np.mod(col.dropna().to_numpy(dtype=np.float64), 1) == 0)
    )


def _run_rank(name: str) -> int:
    n = normal_name(name)
    words = _RUN_WORDS + SYNONYMS["model"]
    return words.index(n) if n in words else len(words)


def run_column(frame: pd.DataFrame, item_col: str, exclude: Sequence[str] = ()) -> str:
    """The column that makes (item, column) unique: which model run predicted the row.

    Candidates: every column other than ``item_col`` and ``exclude`` whose values are ids (text or whole numbers,
    not scores), with at least 2 distinct values. Among those with no repeated (item, value) pair, the one named
    most like a run or model (``model_run``, ``run``, ``seed``, ``model``, ``system``...) wins, then the one with
    the fewest distinct values. When no single column does it, a pair of candidates joined (``model`` +
    ``seed`` -> ``"roberta / 0"``) is returned as ``"model+seed"`` (see :func:`run_values`).
    DataError when nothing makes the rows unique.

    >>> f = pd.DataFrame({"uid": [1, 1, 1, 2, 2, 2], "model": ["r", "r", "b"] * 2, "model_run": ["r0", "r1", "b0"] * 2})
    >>> run_column(f, "uid")
    'model_run'
    """
    skip = {item_col, *exclude}
    items = to_text(frame[item_col])
    cands = [
        str(c)
        for c in frame.columns
        if str(c) not in skip
        and _is_id_like(frame[c])
        and not str(c).lower().startswith(("p_", "prob_", "logit"))
        and frame[c].nunique() >= 2
    ]
    unique = [c for c in cands if not pd.DataFrame({"i": items, "r": to_text(frame[c])}).duplicated().any()]
    if unique:
        return min(unique, key=lambda c: (_run_rank(c), frame[c].nunique(), c))
    named = sorted(cands, key=lambda c: (_run_rank(c), c))[:6]
    for pair in combinations(named, 2):
        a, b = sorted(pair, key=lambda c: normal_name(c) not in SYNONYMS["model"])  # the model's name first
        key = run_values(frame, f"{a}+{b}")
        if not pd.DataFrame({"i": items, "r": key}).duplicated().any():
            return f"{a}+{b}"
    raise DataError(
        f"no column tells the model runs apart: some item has two rows for every choice of "
        f"{', '.join(cands[:8]) or 'run column'}; add a column naming the model run (e.g. model_run)"
    )


def run_values(frame: pd.DataFrame, column: str) -> pd.Series:
    """The run name of each row: the column's text, or for ``"a+b"`` the two columns' text joined by ``" / "``."""
    if column in frame.columns:
        return to_text(frame[column])
    a, _, b = column.partition("+")
    return to_text(frame[a]).astype(object) + " / " + to_text(frame[b]).astype(object)


def _choose_subset(frame: pd.DataFrame, subset: str | None, what: str) -> pd.DataFrame:
    col = next((str(c) for c in frame.columns if normal_name(c) in _SUBSET_NAMES), None)
    if subset is None:
        return frame
    if col is None:
        raise DataError(f"subset {subset!r} given, but the {what} have no subset column")
    out = frame[to_text(frame[col]) == subset]
    if len(out) == 0:
        names = natural_order([str(v) for v in to_text(frame[col]).dropna().unique()])
        raise DataError(f"no rows of subset {subset!r} in the {what}; the subsets are {', '.join(names[:12])}")
    return out.reset_index(drop=True)


@dataclass(frozen=True, slots=True, eq=False)
class _Prepared:
    predictions: Predictions
    gold: Ratings | dict[str, str]
    dropped: tuple[tuple[str, int], ...]
    notes: tuple[str, ...]


def _prepare(
    frame: pd.DataFrame,
    ratings: Ratings | None,
    gold_column: str | None,
    subset: str | None,
    model: str | None,
    model_column: str | None,
) -> _Prepared:
    """Predictions table -> aligned Predictions (one 'model' per run) and the gold, with rows outside the gold cut."""
    if (ratings is None) == (gold_column is None):
        raise DataError("give the gold labels one way: a ratings dataset (its plurality) or a gold column, not both")
    frame = _choose_subset(frame, subset, "predictions")
    guess = detect_kind(frame, "predictions")
    item = guess.mapping.get("item")
    if item is None:
        raise DataError(
            f"no item column in the predictions (columns: {', '.join(map(str, frame.columns[:20]))}); name it item"
        )
    notes: list[str] = []
    if model is not None:
        coarse = guess.mapping.get("model")
        if coarse is None:
            raise DataError("a model was named, but the predictions have no model column")
        names = to_text(frame[coarse])
        if not (names == model).any():
            shown = ", ".join(map(show_value, natural_order(names.dropna().unique().tolist())[:12]))
            raise DataError(f"no predictions of model {show_value(model)} in column {coarse!r}; the models are {shown}")
        frame = frame[names == model].reset_index(drop=True)
        notes.append(f"model {show_value(model)} (column {coarse})")
    probs = [c for role, c in guess.mapping.items() if role.startswith("p_")]
    pred = guess.mapping.get("pred_label")
    exclude = [c for c in (pred, gold_column, *probs) if c is not None]
    run = model_column or run_column(frame, item, exclude)
    notes.append(f"each model run is named by column {run}")
    table = pd.DataFrame({"item": to_text(frame[item]), "model": run_values(frame, run)})
    if pred is not None:
        table["pred_label"] = apply_mapping(
            frame, "predictions", {"item": item, "model": run.split("+")[0], "pred_label": pred}
        )["pred_label"].to_numpy()
    else:
        mapped = apply_mapping(frame, "predictions", {"item": item, "model": run.split("+")[0], **guess.mapping})
        for role in (r for r in guess.mapping if r.startswith("p_")):
            table[role] = mapped[role].to_numpy()
    gold: Ratings | dict[str, str]
    if ratings is not None:
        gold = ratings
        rated = table["item"].isin(set(ratings.items))
    else:
        assert gold_column is not None
        gold = gold_from_column(frame, item, gold_column)
        rated = pd.Series(True, index=table.index)
    outside = int(table.loc[~rated, "item"].nunique())
    table = table[rated].reset_index(drop=True)
    if len(table) == 0:
        raise DataError(
            "none of the predicted items is in the ratings; check that both use the same item ids (and subset)"
        )
    if ratings is not None:
        preds = predictions_from_frame(table, ratings)
    else:
        labels = natural_order(
            sorted(
                {*table.get("pred_label", pd.Series(dtype=object)).dropna().tolist()}
                | {c[2:] for c in table if c.startswith("p_")}
            )
        )
        items = natural_order(table["item"].unique().tolist())
        scaffold = Ratings(tuple(items), tuple(labels), np.zeros((len(items), len(labels)), dtype=np.int64), 0, 0)
        preds = predictions_from_frame(table, scaffold)
    return _Prepared(preds, gold, ((NOT_RATED, outside),) if outside else (), tuple(notes))


def derive_paired(
    frame: pd.DataFrame,
    *,
    ratings: Ratings | None = None,
    gold_column: str | None = None,
    subset: str | None = None,
    model_column: str | None = None,
    ties: str = "drop",
    source_ids: Sequence[str] = (),
) -> Derived:
    """Paired results from a predictions table (any column names) and gold labels; see :func:`paired_from_predictions`.

    Gold: ``ratings`` (each item's plurality; predicted items the ratings lack are dropped and counted) or
    ``gold_column`` of the table. ``subset`` keeps that subset's rows; the run column is ``model_column`` or
    :func:`run_column` (ChaosNLI: ``model_run``, since ``model`` repeats across seeds).
    """
    prep = _prepare(frame, ratings, gold_column, subset, None, model_column)
    d = paired_from_predictions(
        prep.predictions, prep.gold, ties=ties, source_ids=source_ids, extra_dropped=prep.dropped
    )
    return Derived(d.frame, d.kind, d.source_ids, prep.notes + d.notes, d.configs, d.items_kept, d.dropped)


def derive_samples(
    frame: pd.DataFrame,
    *,
    ratings: Ratings | None = None,
    gold_column: str | None = None,
    model: str | None = None,
    subset: str | None = None,
    model_column: str | None = None,
    source_ids: Sequence[str] = (),
) -> Derived:
    """Raw samples from the runs of one model in a predictions table; see :func:`samples_from_runs`.

    ``model`` keeps the rows whose model column names it; without it the table must hold one model (a model
    column with several names is refused, naming them). The runs are told apart by :func:`run_column`.
    """
    if model is None:
        guess = detect_kind(frame, "predictions")
        coarse = guess.mapping.get("model")
        sub = _choose_subset(frame, subset, "predictions")
        if coarse is not None and normal_name(coarse) == "model" and sub[coarse].nunique() > 1:
            names = natural_order([str(v) for v in to_text(sub[coarse]).dropna().unique()])
            raise DataError(
                f"the predictions hold {len(names)} models ({', '.join(names[:12])}); name the one whose runs are the "
                "samples (model=..., --model)"
            )
    prep = _prepare(frame, ratings, gold_column, subset, model, model_column)
    d = samples_from_runs(prep.predictions, prep.gold, source_ids=source_ids, extra_dropped=prep.dropped)
    return Derived(d.frame, d.kind, d.source_ids, prep.notes + d.notes, d.configs, d.items_kept, d.dropped)
