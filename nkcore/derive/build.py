"""Paired results and raw samples from parsed predictions (:class:`nkcore.ratings.Predictions`) and gold labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nkcore.common.formatting import count
from nkcore.derive.gold import NO_GOLD, NOT_EVERY, TIED, accepted_labels, drop_reasons
from nkcore.derive.result import Derived
from nkcore.errors import DataError
from nkcore.kinds import natural_order, show_value
from nkcore.ratings import Predictions, Ratings

__all__ = ["paired_from_predictions", "samples_from_runs"]


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

    >>> from nkcore.ratings import predictions_from_frame, ratings_from_frame
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
    accept, has, tied, rule = accepted_labels(gold, items, predictions.labels, ties)
    hard = predictions.hard[pick]
    keep, dropped = drop_reasons(
        [(NO_GOLD, ~has), (TIED, tied & (ties == "drop")), (NOT_EVERY, (hard < 0).any(axis=0))]
    )
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
    model, so seed0 is sample 1) is sample j + 1; answer = its predicted label; gold = the item's plurality label
    (``gold`` a :class:`Ratings`) or the mapping's label. Items with a tied plurality, without gold, or missed by a
    run are dropped and counted.

    Reference: repeated samples of one case, voted by plurality, as in the chapter's sampling analysis
    (:mod:`nkcore.voting`); here each run (seed) is one sample.

    >>> from nkcore.ratings import predictions_from_frame, ratings_from_frame
    >>> r = ratings_from_frame(pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xxyy")}))
    >>> p = predictions_from_frame(pd.DataFrame({"item": [1, 2, 1, 2], "model": ["s0", "s0", "s1", "s1"],
    ...                                          "pred_label": list("xxxy")}), r)
    >>> samples_from_runs(p, r).frame.values.tolist()
    [['1', 1, 'x', 'x'], ['1', 2, 'x', 'x'], ['2', 1, 'x', 'y'], ['2', 2, 'y', 'y']]
    """
    pick = _pick_models(predictions, runs if runs is not None else natural_order(list(predictions.models)))
    items = list(predictions.items)
    _accept, has, tied, rule = accepted_labels(gold, items, predictions.labels, "drop")
    if isinstance(gold, Ratings):
        pos = pd.Index(gold.items).get_indexer(items)
        gold_label = np.array(
            [gold.labels[int(np.argmax(gold.counts[p]))] if p >= 0 else "" for p in pos], dtype=object
        )
    else:
        gold_label = np.array([str(gold.get(i, "")) for i in items], dtype=object)
    hard = predictions.hard[pick]
    keep, dropped = drop_reasons([(NO_GOLD, ~has), (TIED, tied), (NOT_EVERY, (hard < 0).any(axis=0))])
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
