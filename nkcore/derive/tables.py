"""Derived datasets from predictions *tables* (any column names): the gold from ratings or a gold column."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nkcore.derive.build import paired_from_predictions, samples_from_runs
from nkcore.derive.gold import NOT_RATED, gold_from_column
from nkcore.derive.result import Derived
from nkcore.errors import DataError
from nkcore.kinds import apply_mapping, detect_kind, natural_order, show_value, to_text
from nkcore.kinds.columns import normal_name
from nkcore.kinds.runs import choose_subset, model_name_column, run_column, run_values
from nkcore.ratings import Predictions, Ratings, predictions_from_frame

__all__ = ["derive_paired", "derive_samples"]


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
    frame = choose_subset(frame, subset, "predictions")
    guess = detect_kind(frame, "predictions")
    item = guess.mapping.get("item")
    if item is None:
        raise DataError(
            f"no item column in the predictions (columns: {', '.join(map(str, frame.columns[:20]))}); name it item"
        )
    notes: list[str] = []
    if model is not None:
        coarse = model_name_column(frame, guess.mapping.get("model"))
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
        coarse = model_name_column(frame, guess.mapping.get("model"))
        sub = choose_subset(frame, subset, "predictions")
        if coarse is not None and normal_name(coarse) == "model" and sub[coarse].nunique() > 1:
            names = natural_order([str(v) for v in to_text(sub[coarse]).dropna().unique()])
            raise DataError(
                f"the predictions hold {len(names)} models ({', '.join(names[:12])}); name the one whose runs are the "
                "samples (model=..., --model)"
            )
    prep = _prepare(frame, ratings, gold_column, subset, model, model_column)
    d = samples_from_runs(prep.predictions, prep.gold, source_ids=source_ids, extra_dropped=prep.dropped)
    return Derived(d.frame, d.kind, d.source_ids, prep.notes + d.notes, d.configs, d.items_kept, d.dropped)
