"""Charts of "Which config ships" (Compare) and of the cost frontier (Cost & latency).

:func:`leaderboard_chart`: one row per config, best observed first: the mean score (a dot) with its interval (all
configs at once), coloured by whether the config could be the best (the legend names the set and its size), its rank
interval written beside it, alternate tie groups (configs with as many configs resolvably above them) on a grey band.
:func:`frontier_chart`: mean cost per call against mean score with its interval, the configs on the frontier joined
by a line and coloured, the others grey. Builders take plain frames so ``ui.common.cache.chart_spec`` can cache them.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ui.charts import NAME_LABEL_PX, PADDING, PALETTE, name_labels, title

__all__ = ["BEST", "FRONTIER", "NOT_BEST", "NOT_FRONTIER", "ROW_STEP", "frontier_chart", "leaderboard_chart"]

BEST_COLOUR = PALETTE[0]
OTHER_COLOUR = "#8d96a3"
ROW_STEP = 26
"""Height (px) of one leaderboard row: 15 rows and the title fit a 768 px window under the verdict."""
BEST, NOT_BEST = "could be the best", "resolvably below the best"
FRONTIER, NOT_FRONTIER = "on the cost frontier", "beaten at no higher cost"


def _domain(low: pd.Series, high: pd.Series, right_room: float = 0.0) -> list[float]:
    """[lo, hi] of a score axis: the intervals plus 2 points, in [0, 1], with ``right_room`` of the span added on the
    right (for the rank labels)."""
    lo = max(0.0, math.floor(100 * (float(low.min()) - 0.02)) / 100)
    hi = min(1.0, math.ceil(100 * (float(high.max()) + 0.02)) / 100)
    return [lo, hi + right_room * (hi - lo)]


def _ticks(domain: list[float], top: float = 1.0) -> list[float]:
    """Score ticks inside ``domain`` and at most ``top`` (100%): every 5 points on a narrow axis, else every 10.

    >>> _ticks([0.7, 1.05])
    [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
    """
    step = 0.05 if domain[1] - domain[0] <= 0.45 else 0.1
    first = math.ceil(round(domain[0] / step, 9)) * step
    out, v = [], first
    while v <= min(domain[1], top) + 1e-9:
        out.append(round(v, 4))
        v += step
    return out


def leaderboard_chart(every: pd.DataFrame, level: str, top: int | None = None) -> alt.LayerChart:
    """The leaderboard: ``every`` config's row with columns config, mean, low, high (the simultaneous interval), rank
    (text, e.g. "1–12"), tier (tie group number, 1 = top), status (:data:`BEST` / :data:`NOT_BEST`), best observed
    first; ``level`` the confidence in words ("95%"); ``top``: draw the first ``top`` rows only (the legend still
    counts every config)."""
    rows = every if top is None else every.head(top)
    shown_of = len(every)
    names = name_labels(rows["config"].tolist())
    n_best = int((every["status"] == BEST).sum())
    labels = {BEST: f"{BEST} ({n_best})", NOT_BEST: f"{NOT_BEST} ({len(every) - n_best})"}
    data = rows.assign(
        _axis=list(names.short),
        _band=rows["tier"] % 2 == 0,
        _rank_label="rank " + rows["rank"].astype(str),
        status_label=rows["status"].map(labels),
    )
    domain = _domain(data["low"], data["high"], right_room=0.22)
    axis_title = "config" + (f" ({names.common})" if names.common else "")
    sub = f"dot: mean score; bar: {level} interval, all configs at once; beside it: the ranks it could hold (1 = best)."
    if rows["tier"].nunique() > 1:
        sub += " Shaded rows: tie groups (as many configs shown above them)."
    if shown_of > len(rows):
        sub += f" The top {len(rows)} of {shown_of} configs."
    base = alt.Chart().encode(
        y=alt.Y(
            "_axis:N",
            title=axis_title,
            sort=list(data["_axis"]),  # best first (a layer drawing some rows only must not reorder the axis)
            axis=alt.Axis(labelLimit=NAME_LABEL_PX, titleLimit=NAME_LABEL_PX * 2),
        )
    )
    scale = alt.Scale(domain=domain, nice=False, zero=False)
    colour = alt.Color(
        "status_label:N",
        scale=alt.Scale(domain=[labels[BEST], labels[NOT_BEST]], range=[BEST_COLOUR, OTHER_COLOUR]),
        legend=alt.Legend(title=None, orient="top", labelLimit=320),
    )
    tooltip = [
        alt.Tooltip("config:N"),
        alt.Tooltip("mean:Q", title="mean score", format=".1%"),
        alt.Tooltip("low:Q", title=f"{level} interval from", format=".1%"),
        alt.Tooltip("high:Q", title="to", format=".1%"),
        alt.Tooltip("rank:N", title="rank (all configs at once)"),
        alt.Tooltip("tier:Q", title="tie group"),
        alt.Tooltip("status_label:N", title="verdict"),
    ]
    band = (
        base.transform_filter("datum._band")
        .mark_rect(color="#eef0f3")
        .encode(x=alt.X(datum=domain[0], type="quantitative", scale=scale), x2=alt.X2(datum=domain[1]))
    )
    whisker = base.mark_rule(strokeWidth=3).encode(
        x=alt.X("low:Q", title="mean score", scale=scale, axis=alt.Axis(format=".0%", values=_ticks(domain))),
        x2=alt.X2("high"),
        color=colour,
        tooltip=tooltip,
    )
    dot = base.mark_point(filled=True, size=90, opacity=1).encode(x=alt.X("mean:Q"), color=colour, tooltip=tooltip)
    text = base.mark_text(align="left", dx=6, fontSize=12, color="#333").encode(x=alt.X("high:Q"), text="_rank_label:N")
    head = "Which config could be the best" if n_best > 1 else f"The best config: {rows['config'].iloc[0]}"
    return alt.LayerChart(data=data, layer=[band, whisker, dot, text], title=title(head, sub)).properties(
        padding=PADDING, width=640, height=alt.Step(ROW_STEP)
    )


def frontier_chart(rows: pd.DataFrame, level: str) -> alt.LayerChart:
    """Cost against score: ``rows`` with columns config, cost (mean per call), mean, low, high, status
    (:data:`FRONTIER` / :data:`NOT_FRONTIER`), beaten_by (text, "" on the frontier), cheapest first."""
    dearest = float(rows["cost"].max())
    data = rows.assign(_short=list(name_labels(rows["config"].tolist()).short), _last=rows["cost"] >= dearest)
    y_domain = _domain(data["low"], data["high"])
    cheapest = float(data["cost"].min())
    positive = cheapest > 0 and dearest > 10 * cheapest
    if positive:  # a log axis from half the cheapest to twice the dearest: each config's cost in view, no empty decade
        scale = alt.Scale(type="log", domain=[cheapest / 2, dearest * 2], nice=False)
    else:
        scale = alt.Scale(zero=False, padding=30)
    x = alt.X(
        "cost:Q",
        title="mean cost per call ($)" + (", log scale" if positive else ""),
        scale=scale,
        axis=alt.Axis(format="$.2~g", tickCount=4, grid=not positive),
    )
    y = alt.Y("mean:Q", title="mean score", scale=alt.Scale(domain=y_domain, nice=False), axis=alt.Axis(format=".0%"))
    colour = alt.Color(
        "status:N",
        scale=alt.Scale(domain=[FRONTIER, NOT_FRONTIER], range=[BEST_COLOUR, OTHER_COLOUR]),
        legend=alt.Legend(title=None, orient="top"),
    )
    tooltip = [
        alt.Tooltip("config:N"),
        alt.Tooltip("cost:Q", title="mean cost per call ($)", format=".3~g"),
        alt.Tooltip("mean:Q", title="mean score", format=".1%"),
        alt.Tooltip("low:Q", title=f"{level} interval from", format=".1%"),
        alt.Tooltip("high:Q", title="to", format=".1%"),
        alt.Tooltip("status:N", title="verdict"),
        alt.Tooltip("beaten_by:N", title="beaten by"),
    ]
    base = alt.Chart(data).encode(x=x)
    line = (
        base.transform_filter(alt.datum.status == FRONTIER)
        .mark_line(color=BEST_COLOUR, strokeDash=[5, 3], opacity=0.7)
        .encode(y=y, order="cost:Q")
    )
    whisker = base.mark_rule(strokeWidth=3).encode(y=alt.Y("low:Q", scale=alt.Scale(domain=y_domain)), y2="high:Q",
                                                  color=colour, tooltip=tooltip)  # fmt: skip
    dot = base.mark_point(filled=True, size=110, opacity=1).encode(y=y, color=colour, tooltip=tooltip)
    text = (
        base.transform_filter("!datum._last")
        .mark_text(align="left", dx=8, dy=-12, fontSize=12, color="#333")
        .encode(y=y, text="_short:N")
    )
    last = (  # the dearest config's name to the left of its dot, inside the plot
        base.transform_filter("datum._last")
        .mark_text(align="right", dx=-8, dy=-12, fontSize=12, color="#333")
        .encode(y=y, text="_short:N")
    )
    return alt.LayerChart(
        layer=[line, whisker, dot, text, last],
        title=title(
            "Score against cost",
            f"dot: mean score; bar: {level} interval, all configs at once; blue and joined: the cost frontier "
            "(no config costs no more and scores resolvably higher)",
        ),
    ).properties(padding=PADDING, width=640, height=360)
