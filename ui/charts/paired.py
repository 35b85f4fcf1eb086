"""Altair builders for the Compare and Planner pages (data frames in, charts out; no statistics here)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import (
    EXPORT_WIDTH,
    NAME_LABEL_PX,
    NOT_SIGNIFICANT,
    PADDING,
    PALETTE,
    SIGNIFICANT,
    bottom_legend,
    interval_dots,
    name_labels,
    title,
    title_px,
)

PAIR_ARROW = " → "
"""What separates the two configs in a pair's label ("n=1 → n=3")."""

PAIRED = "paired (exact bootstrap)"
MARGINAL = "as if independent (marginal)"
"""The two interval kinds of the difference chart (short enough for one legend line on a 390 px phone)."""
INTERVAL_COLORS = {PAIRED: SIGNIFICANT, MARGINAL: NOT_SIGNIFICANT}

PAIR_PX = 40
"""Height (px) of one interval's row in the chart of paired differences (a pair has two: 80 px)."""

_TICKS = (10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)

CURVE_COLORS = {
    "smallest resolvable difference (exact)": PALETTE[0],
    "square-root law": PALETTE[5],
    "detectable at the chosen power (Connor)": PALETTE[1],
}


def _series_color(field: str, colors: dict[str, str], item_px: int = 330) -> alt.Color:
    """A colour encoding with a fixed domain (the keys of ``colors``) and a bottom legend whose columns follow the
    width (one per line on a phone)."""
    domain = list(colors)
    return alt.Color(
        f"{field}:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[colors[d] for d in domain]),
        legend=bottom_legend(len(domain), item_px),
    )


def pair_labels(pairs: list[str]) -> list[str]:
    """Pair labels "A → B" with each config cut to its distinguishing part among all configs named in ``pairs``
    (:func:`ui.charts.name_labels`); a label without the arrow is cut as a name of its own.

    >>> pair_labels(["bert-base-uncased_seed0 → bert-base-uncased_seed1", "n=1 → n=3"])
    ['bert-base-uncased_seed0 → bert-base-uncased_seed1', 'n=1 → n=3']
    >>> pair_labels(["bert-base-uncased_seed0 → bert-base-uncased_seed1", "bert-base-uncased_seed1 → bert-base-uncased_seed2"])
    ['seed0 → seed1', 'seed1 → seed2']
    """
    return _pair_names(pairs)[0]


def _pair_names(pairs: list[str]) -> tuple[list[str], str]:
    """:func:`pair_labels` and the part every config shares that the labels leave out ("" when none was cut)."""
    split = [p.split(PAIR_ARROW) if p.count(PAIR_ARROW) == 1 else [p] for p in pairs]
    configs = list(dict.fromkeys(c for parts in split for c in parts))
    names = name_labels(configs)
    short = names.mapping()
    return [PAIR_ARROW.join(short[c] for c in parts) for parts in split], names.common


def pair_note(pairs: list[str]) -> str:
    """What the pair labels cut from every config, for the chart's subtitle, so that "seed0 → seed1" still says whose
    seeds they are ("" when nothing was cut).

    >>> pair_note(["bert-base-uncased_seed0 → bert-base-uncased_seed1"])
    'each label fills the … of bert-base-uncased_…'
    >>> pair_note(["n=1 → n=3"])
    ''
    """
    common = _pair_names(pairs)[1]
    return f"each label fills the … of {common}" if common else ""


def _points_axis(title: str, signed: bool, tick_count: int | None = None) -> alt.Axis:
    """An axis for differences stored as fractions (0.04) but read in percentage points ("+4"), with about
    ``tick_count`` ticks (default: Vega's, one per 40 px)."""
    fmt = "+.1~f" if signed else ".1~f"  # 4, 0.5, +2.5: one decimal only where a tick needs it
    # zero carries no sign ("0", not "+0"), as in nkcore.common.formatting.points
    label = f"abs(datum.value) < 1e-12 ? '0' : format(datum.value * 100, '{fmt}')"
    if tick_count is None:
        return alt.Axis(title=title, labelExpr=label)
    return alt.Axis(title=title, labelExpr=label, tickCount=tick_count)


def accuracy_chart(acc: pd.DataFrame, level_pct: str = "95%") -> alt.LayerChart:
    """Accuracy of each config with its marginal interval. ``acc``: config, accuracy, ci_low, ci_high.

    Long config names are cut to their distinguishing part on the axis (the full name in the tooltip, the shared
    part in the axis title). Its height follows the rows (:func:`ui.charts.interval_dots`: a step per row), so the
    spec is the same whatever the number of configs.
    """
    return interval_dots(
        acc,
        "config",
        "accuracy",
        "ci_low",
        "ci_high",
        value_title=f"accuracy, {level_pct} interval",
        value_format=".0%",
        title=title("Accuracy of each config", f"dots: accuracy; bars: its {level_pct} marginal interval"),
        label_title="config",
    )


DOT_PX = 70
"""Area (px²) of a difference's dot: a radius of about 4.7 px."""

EDGE_SHARE = 0.05
"""Room the difference axis keeps beyond the outermost interval end or dot on each side, as a share of the span of
the marks (and zero), at least :data:`EDGE_MIN` (a fraction of cases): 5% is 16 px of a 320 px plot, more than a dot's
radius, so that no dot or whisker end is drawn on, or cut by, the edge of the plot."""
EDGE_MIN = 0.01
"""The least room (1 point) beyond the marks, so that a chart of zeros (no discordant case) still has an axis."""
DIFF_TICKS = 8
"""About how many ticks the difference axis has; its domain is rounded out to them (Vega's nice count), so that the
ticks are whole steps of 1, 2 or 5 x 10^k points and the zero line has a label."""


def winner_first(diffs: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`difference_chart` turned to read as the verdict does: each pair's difference as winner minus
    loser (the config with the higher score minus the other), its label "loser → winner".

    A row with B minus A below zero is flipped: its label "A → B" becomes "B → A", diff becomes -diff and the
    interval (low, high) becomes (-high, -low); a row at zero keeps its direction. No statistics: the same numbers,
    read from the other config.

    >>> d = pd.DataFrame({"pair": ["n=7 → n=1"], "diff": [-0.206], "low": [-0.28], "high": [-0.13]})
    >>> winner_first(d).to_dict("records")
    [{'pair': 'n=1 → n=7', 'diff': 0.206, 'low': 0.13, 'high': 0.28}]
    """
    flip = (diffs["diff"] < 0).to_numpy()

    def turned(pair: str) -> str:
        parts = pair.split(PAIR_ARROW)
        return PAIR_ARROW.join(reversed(parts)) if len(parts) == 2 else pair

    pairs = [turned(str(p)) if f else str(p) for p, f in zip(diffs["pair"], flip, strict=True)]
    return diffs.assign(
        pair=pairs,
        diff=diffs["diff"].where(~flip, -diffs["diff"]),
        low=diffs["low"].where(~flip, -diffs["high"]),
        high=diffs["high"].where(~flip, -diffs["low"]),
    )


def difference_chart(diffs: pd.DataFrame) -> alt.LayerChart:
    """Paired difference of each pair as winner minus loser (the direction of the verdict, :func:`winner_first`),
    with the paired interval and (below it) the marginal one.

    ``diffs``: long, one row per pair and interval kind: pair ("A → B"), interval (a key of
    :data:`INTERVAL_COLORS`), diff, low, high (B minus A, fractions of cases). The axis keeps :data:`EDGE_SHARE` of
    the marks' span beyond every dot and interval end on each side (an invisible rule from the lowest mark less that
    room to the highest plus it, computed in the spec: the spec stays the same whatever the data), then rounds out
    to nice ticks.
    """
    diffs = winner_first(diffs)
    color = _series_color("interval", INTERVAL_COLORS)
    pairs = [str(p) for p in diffs["pair"]]
    diffs = diffs.assign(pair_label=pair_labels(pairs))
    y = alt.Y(
        "pair_label:N",
        title="pair (loser → winner)",
        sort=None,
        axis=alt.Axis(labelLimit=NAME_LABEL_PX),
    )
    y_offset = alt.YOffset("interval:N", sort=list(INTERVAL_COLORS), scale=alt.Scale(paddingInner=0.3))
    x_axis = _points_axis("winner minus loser (percentage points)", signed=True, tick_count=DIFF_TICKS)
    tooltip = [
        alt.Tooltip("pair:N", title="loser -> winner"),
        alt.Tooltip("interval:N"),
        alt.Tooltip("diff_pts:Q", title="winner minus loser (points)", format="+.1f"),
        alt.Tooltip("low_pts:Q", title="interval from (points)", format="+.1f"),
        alt.Tooltip("high_pts:Q", title="interval to (points)", format="+.1f"),
    ]
    diffs = diffs.assign(diff_pts=100 * diffs["diff"], low_pts=100 * diffs["low"], high_pts=100 * diffs["high"])
    note = pair_note(pairs)
    chart_title = title(
        "Difference between configs",
        [
            "winner minus loser, as the verdict reads; paired interval (blue) against the interval if the configs "
            "were independent",
            *([note] if note else []),
        ],
    )
    base = alt.Chart(diffs, title=chart_title)
    whisker = base.mark_rule(strokeWidth=3).encode(
        y=y,
        yOffset=y_offset,
        x=alt.X("low:Q", axis=x_axis, scale=alt.Scale(zero=True, nice=DIFF_TICKS)),
        x2=alt.X2("high"),
        color=color,
        tooltip=tooltip,
    )
    dot = base.mark_point(filled=True, size=DOT_PX).encode(
        y=y, yOffset=y_offset, x=alt.X("diff:Q"), color=color, tooltip=tooltip
    )
    room = (
        base.transform_aggregate(lo="min(low)", hi="max(high)", dlo="min(diff)", dhi="max(diff)")
        .transform_calculate(
            left="min(0, datum.lo, datum.dlo)",
            right="max(0, datum.hi, datum.dhi)",
        )
        .transform_calculate(pad=f"max({EDGE_SHARE} * (datum.right - datum.left), {EDGE_MIN})")
        .transform_calculate(edge_from="datum.left - datum.pad", edge_to="datum.right + datum.pad")
        .mark_rule(opacity=0)
        .encode(x=alt.X("edge_from:Q"), x2=alt.X2("edge_to"))
    )
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color="#444", strokeDash=[4, 3]).encode(x=alt.X("zero:Q"))
    # 40 px an interval, 80 a pair (a step of the offset within each pair): the height follows the data, so the
    # spec is the same for any number of pairs and a change of the pairs sends new data only (Streamlit then updates
    # the drawn chart in place instead of building a new one); title, axis and legend are added to the plot's height
    return alt.LayerChart(layer=[whisker, dot, zero, room]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=alt.Step(PAIR_PX)
    )


def resolution_chart(curve: pd.DataFrame, cases: int, target_diff: float | None) -> alt.LayerChart:
    """Resolvable difference against cases (log axis): exact sawtooth, square-root law, MDE at power.

    ``curve``: cases, series (a key of :data:`CURVE_COLORS`), diff (fraction; inf/NaN rows are dropped).
    A vertical rule marks the current number of cases; a horizontal rule the target difference, if any.
    """
    data = curve[pd.notna(curve["diff"]) & (curve["diff"] < 1.0)]
    data = data.assign(diff_pts=100 * data["diff"])
    domain = list(CURVE_COLORS)
    color = _series_color("series", CURVE_COLORS)
    lo, hi = int(data["cases"].min()), int(data["cases"].max())
    x = alt.X(
        "cases:Q", title="cases (log scale)", scale=alt.Scale(type="log", domain=[lo, hi], nice=False),
        axis=alt.Axis(format=",d", values=[v for v in _TICKS if lo <= v <= hi]),
    )  # fmt: skip
    y = alt.Y("diff:Q", axis=_points_axis("difference in accuracy (points)", signed=False))
    chart_title = title("What an evaluation can resolve", "the smallest difference in accuracy, against cases")
    lines = (
        alt.Chart(data, title=chart_title)
        .mark_line(strokeWidth=2.5, interpolate="step-after", clip=True)
        .encode(
            x=x,
            y=y,
            color=color,
            strokeDash=alt.StrokeDash(
                "series:N",
                scale=alt.Scale(domain=domain, range=[[1, 0], [5, 4], [1, 0]]),
                legend=None,
            ),
            tooltip=[
                alt.Tooltip("series:N", title="line"),
                alt.Tooltip("cases:Q", format=","),
                alt.Tooltip("diff_pts:Q", title="difference (points)", format=".1f"),
            ],
        )
    )
    layers: list[alt.Chart] = [lines]
    now = pd.DataFrame({"cases": [cases], "label": [f"now: {cases:,} cases"]})
    layers.append(alt.Chart(now).mark_rule(color="#444", strokeDash=[2, 2]).encode(x=alt.X("cases:Q")))
    layers.append(
        alt.Chart(now)
        .mark_text(align="left", dx=4, dy=-6, color="#444", fontSize=12)
        .encode(x=alt.X("cases:Q"), y=alt.YValue(8), text=alt.Text("label:N"))
    )
    if target_diff is not None:
        tgt = pd.DataFrame({"diff": [target_diff], "label": [f"target: {100 * target_diff:.1f} points"]})
        layers.append(alt.Chart(tgt).mark_rule(color=PALETTE[3], strokeWidth=2).encode(y=alt.Y("diff:Q")))
        layers.append(
            alt.Chart(tgt)
            .mark_text(align="left", dx=4, dy=-6, color="#8a6100", fontSize=12)
            .encode(y=alt.Y("diff:Q"), x=alt.XValue(0), text=alt.Text("label:N"))
        )
    # Streamlit fits title, axis and legend into the height
    return alt.LayerChart(layer=layers).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=400 + title_px(chart_title)
    )


REPEAT_COLORS = {"smallest resolvable difference": PALETTE[0], "best split": PALETTE[1]}
"""The marks of the repeats chart: every split's smallest resolvable difference, and the best split."""


def repeats_chart(splits: pd.DataFrame) -> alt.LayerChart:
    """Smallest resolvable difference (points) against repeats per case for a budget of calls; the best split is
    marked. ``splits``: one row per split: cases, repeats, calls, min_resolvable_diff, mde_at_power (fractions) and
    best (True on one row), as :meth:`nkcore.resolution.RepeatPlan.to_frame` gives it; rows above 100 points are
    dropped."""
    data = splits[splits["min_resolvable_diff"] <= 1.0]
    data = data.assign(
        diff_pts=100 * data["min_resolvable_diff"],
        mde_pts=100 * data["mde_at_power"],
        mark=["best split" if b else "smallest resolvable difference" for b in data["best"]],
    )
    chart_title = title(
        "More cases or more repeats?",
        "smallest resolvable difference for each split of the calls per config into cases x repeats per case",
    )
    x = alt.X("repeats:Q", title="repeats per case", axis=alt.Axis(format="d", tickMinStep=1))
    y = alt.Y("diff_pts:Q", title="smallest resolvable difference (points)", scale=alt.Scale(zero=False))
    tooltip = [
        alt.Tooltip("repeats:Q", title="repeats per case"),
        alt.Tooltip("cases:Q", title="cases", format=","),
        alt.Tooltip("calls:Q", title="calls per config", format=","),
        alt.Tooltip("diff_pts:Q", title="smallest resolvable (points)", format=".1f"),
        alt.Tooltip("mde_pts:Q", title="detected at the chosen power (points)", format=".1f"),
    ]
    base = alt.Chart(data, title=chart_title)
    line = base.mark_line(color=PALETTE[0], strokeWidth=2).encode(x=x, y=y)
    dots = base.mark_point(filled=True, size=90).encode(
        x=x, y=y, color=_series_color("mark", REPEAT_COLORS), tooltip=tooltip
    )
    best = data[data["best"]].assign(
        label=lambda f: [f"best: {c:,} cases x {r:,}" for c, r in zip(f["cases"], f["repeats"], strict=True)]
    )
    label = (
        alt.Chart(best)
        .mark_text(align="left", dx=8, dy=-10, color="#8a2432", fontSize=12)
        .encode(x="repeats:Q", y="diff_pts:Q", text="label:N")
    )
    return alt.LayerChart(layer=[line, dots, label]).properties(
        padding=PADDING, width=EXPORT_WIDTH, height=320 + title_px(chart_title)
    )
