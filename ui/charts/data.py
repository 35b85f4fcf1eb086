"""Altair charts of the Data page: label distribution, ratings per item (K), accuracy per config, latencies.

The builders only draw numbers that ``nkcore.summary`` computed (or raw columns that Altair bins itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import altair as alt
import pandas as pd

from ui.charts import EXPORT_WIDTH, NAME_LABEL_PX, PADDING, PALETTE, name_labels, split_title, title, title_px


class LabelCount(Protocol):
    """What :func:`label_bars` reads of each label (``nkcore.summary``'s label shares)."""

    @property
    def label(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def share(self) -> float: ...


class ConfigScore(Protocol):
    """What :func:`config_accuracy_bars` reads of each config (``nkcore.summary``'s config accuracies)."""

    @property
    def config(self) -> str: ...
    @property
    def accuracy(self) -> float: ...
    @property
    def n_cases(self) -> int: ...
    @property
    def n_correct(self) -> int: ...


def label_bars(shares: Iterable[LabelCount], title: str, what: str = "ratings") -> alt.Chart:
    """Horizontal bars: one per label, length = share of all ``what`` (objects with label, count, share).

    Long labels are cut to their distinguishing part on the axis (the full label in the tooltip)."""
    data = pd.DataFrame([{"label": s.label, "count": s.count, "share": s.share} for s in shares])
    names = name_labels(data["label"].tolist() if len(data) else [])
    data = data.assign(short_label=list(names.short))
    chart_title = split_title(title)
    return (
        alt.Chart(data, title=chart_title)
        .mark_bar(color=PALETTE[0])
        .encode(
            y=alt.Y(
                "short_label:N",
                title=f"label ({names.common})" if names.common else "label",
                sort=None,
                axis=alt.Axis(labelLimit=NAME_LABEL_PX),
            ),
            x=alt.X("share:Q", title=f"share of all {what}", axis=alt.Axis(format=".0%")),
            tooltip=[alt.Tooltip("label:N"), alt.Tooltip("count:Q", format=","), alt.Tooltip("share:Q", format=".1%")],
        )
        .properties(padding=PADDING, width=EXPORT_WIDTH, height=80 + title_px(chart_title) + 34 * len(data))
    )


def k_histogram(k_hist: Sequence[tuple[int, int]], min_k: int = 1) -> alt.Chart:
    """Bars: how many items have each number of ratings per item (K); items below ``min_k`` greyed out.

    The K labels stand upright and are thinned (every other one dropped until none overlap) on a narrow screen."""
    data = pd.DataFrame(k_hist, columns=["k", "items"])
    data["kept"] = data["k"] >= min_k
    chart_title = title(
        "How many ratings each item has", f"grey: items with fewer than {min_k} ratings, left out" if min_k > 1 else ""
    )
    return (
        alt.Chart(data, title=chart_title)
        .mark_bar()
        .encode(
            x=alt.X(
                "k:O",
                title="ratings per item (K)",
                axis=alt.Axis(labelAngle=0, labelOverlap="parity", labelSeparation=4),
            ),
            y=alt.Y("items:Q", title="items (N)", axis=alt.Axis(format=",~d")),
            color=alt.ColorValue("#c9ced6", condition={"test": "datum.kept", "value": PALETTE[0]}),
            tooltip=[
                alt.Tooltip("k:O", title="ratings per item (K)"),
                alt.Tooltip("items:Q", title="items", format=","),
            ],
        )
        .properties(padding=PADDING, width=EXPORT_WIDTH, height=240 + title_px(chart_title))
    )


def config_accuracy_bars(configs: Iterable[ConfigScore]) -> alt.Chart:
    """Bars: accuracy of each config (objects with config, n_cases, n_correct, accuracy).

    Long config names are cut to their distinguishing part on the axis (the full name in the tooltip, the part they
    share in the axis title)."""
    data = pd.DataFrame(
        [{"config": c.config, "accuracy": c.accuracy, "cases": c.n_cases, "correct": c.n_correct} for c in configs]
    )
    names = name_labels(data["config"].tolist() if len(data) else [])
    data = data.assign(short_label=list(names.short))
    chart_title = title("Accuracy of each config on its cases")
    return (
        alt.Chart(data, title=chart_title)
        .mark_bar(color=PALETTE[0])
        .encode(
            y=alt.Y(
                "short_label:N",
                title=f"config ({names.common})" if names.common else "config",
                sort=None,
                axis=alt.Axis(labelLimit=NAME_LABEL_PX),
            ),
            x=alt.X(
                "accuracy:Q",
                title="accuracy (share of cases right)",
                axis=alt.Axis(format=".0%"),
                scale=alt.Scale(domain=[0, 1]),
            ),
            tooltip=[
                alt.Tooltip("config:N"),
                alt.Tooltip("accuracy:Q", format=".1%"),
                alt.Tooltip("correct:Q", format=","),
                alt.Tooltip("cases:Q", format=","),
            ],
        )
        .properties(padding=PADDING, width=EXPORT_WIDTH, height=80 + title_px(chart_title) + 34 * len(data))
    )


def latency_histogram(latency_s: pd.Series) -> alt.Chart:
    """Histogram of single-call latencies in seconds (Altair bins the raw column)."""
    data = pd.DataFrame({"latency_s": pd.to_numeric(latency_s, errors="coerce").dropna()})
    chart_title = title("Single-call latency")
    return (
        alt.Chart(data, title=chart_title)
        .mark_bar(color=PALETTE[2])
        .encode(
            x=alt.X("latency_s:Q", bin=alt.Bin(maxbins=40), title="seconds per call"),
            y=alt.Y("count():Q", title="calls", axis=alt.Axis(format=",~d")),
        )
        .properties(padding=PADDING, width=EXPORT_WIDTH, height=240 + title_px(chart_title))
    )
