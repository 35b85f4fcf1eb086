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

from nkcore.derive.build import paired_from_predictions, samples_from_runs
from nkcore.derive.gold import TIES, gold_from_column
from nkcore.derive.result import Derived
from nkcore.derive.tables import derive_paired, derive_samples
from nkcore.kinds.runs import model_name_column, run_column, run_values

__all__ = [
    "TIES",
    "Derived",
    "derive_paired",
    "derive_samples",
    "gold_from_column",
    "model_name_column",
    "paired_from_predictions",
    "run_column",
    "run_values",
    "samples_from_runs",
]
