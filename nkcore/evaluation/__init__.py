"""The evaluation: one team's run, stored once and whole, and the views every page reads from it.

An evaluation is a long table, one row per (case, config, repeat): ``case``, ``config``, optionally a repeat
column (``repeat`` / ``epoch``: every repeat is kept), ``correct`` (0/1, or a score in [0, 1] for partial credit),
and where the run recorded them ``answer``, ``gold``, ``latency_s`` (seconds) and ``cost`` (dollars per call). It is
stored as a paired-results dataset that keeps those columns, so old paired datasets are evaluations too (without
answers), and a raw-samples dataset is an evaluation of one config.

Views (computed, never stored as copies):

- :func:`samples_view`: one config's raw samples for the majority vote (``case, sample`` + ``answer`` / ``gold`` /
  ``correct`` as the config's own rows allow, ``latency_s``, ``cost``), or the reason there are none;
- :func:`price_per_call`: the mean recorded cost per call of one config, with the sentence that says where it
  came from;
- :func:`single_call_accuracy`: the one definition of single-call accuracy every page uses.
"""

from __future__ import annotations

from nkcore.evaluation.views import (
    EVAL_COLUMNS,
    Price,
    SamplesView,
    config_names,
    config_table,
    long_form,
    price_per_call,
    repeat_column,
    samples_view,
    single_call_accuracy,
)

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
