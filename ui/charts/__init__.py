"""One Altair theme for every chart, and the chart builders and helpers more than one page uses.

One module per page family (``data``, ``nk``, ``plane``, ``paired``, ``sequential``, ``voting``, ``passk``) holds its
builders. Builders return Altair charts; pages draw them with :func:`draw` (the unvalidated spec at the container's
width; ``st.altair_chart`` validates the chart on every rerun, which cost more than the rest of a rerun) and offer
them with ``ui.common.exports.download_chart``.

Charts are read on a projector and on a phone as well as on a laptop, so:

- the theme's fonts are readable from the back of a room (axis labels 12 px, axis and legend titles 14 px,
  chart titles 16 px);
- a title is short and wraps (:func:`title`): Streamlit cuts a title line wider than the container with an ellipsis,
  so long text goes into wrapped lines and a subtitle rather than one long line;
- names on an axis are cut to their distinguishing part (:func:`name_labels`; the full name stays in the tooltip
  and the title), and the axis label limit is wide enough for what is left.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import altair as alt
import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from nkcore.common.formatting import distinguishing_names

FONT = "Source Sans Pro, Helvetica, Arial, sans-serif"
PALETTE = ["#1f5aa6", "#d1495b", "#00798c", "#edae49", "#66a182", "#8d96a3", "#2e4057"]
SIGNIFICANT = "#1f5aa6"
NOT_SIGNIFICANT = "#8d96a3"

AXIS_LABEL_PX = 12
"""Smallest axis label font (px) readable on a projector."""
TITLE_PX = 16
AXIS_TITLE_PX = 14
SUBTITLE_PX = 13
TITLE_CHARS = 44
"""Characters per title line: 44 x ~7.5 px at 16 px is about 330 px, which fits a chart in half of a 1024 px
window, or a phone's full width."""
SUBTITLE_CHARS = 56
PADDING = {"top": 10, "bottom": 10, "left": 8, "right": 8}
"""Padding (px) around every chart, set on the chart itself: Streamlit replaces a missing padding with a bottom
one only, and with none on the top and left a wrapped title's first line and a y axis title were cut at the edge."""
EXPORT_WIDTH = 640
"""Width (px) of a chart exported as PNG or SVG; on a page, Streamlit sets the width to the container's."""
ROW_PX = 45
"""Height (px) of one row of :func:`interval_dots` (a dot with its interval)."""
NAME_LABEL_PX = 240
"""Label limit (px) of an axis of names: a shortened name fits; a longer one is cut with an ellipsis and shown in
full in the tooltip."""


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": FONT,
            "view": {"stroke": None},
            "axis": {
                "labelFontSize": AXIS_LABEL_PX,
                "titleFontSize": AXIS_TITLE_PX,
                "gridColor": "#e8e8e8",
                "titleFontWeight": "normal",
                "labelColor": "#333",
                "titleColor": "#333",
            },
            "legend": {
                "labelFontSize": AXIS_LABEL_PX,
                "titleFontSize": AXIS_TITLE_PX,
                "titleFontWeight": "normal",
                "orient": "bottom",
                "labelLimit": NAME_LABEL_PX,
                # Streamlit's theme draws legend symbols with a thick stroke that spaces rows about 30 px apart
                "symbolStrokeWidth": 1,
                "rowPadding": 3,
            },
            "title": {
                "fontSize": TITLE_PX,
                "subtitleFontSize": SUBTITLE_PX,
                "subtitleColor": "#555",
                "anchor": "start",
                "fontWeight": "normal",
                "offset": 8,
            },
            "header": {"labelFontSize": AXIS_LABEL_PX, "titleFontSize": AXIS_TITLE_PX},
            "range": {"category": PALETTE},
        }
    }


_THEME_READY = False


def enable_theme() -> None:
    """Register and enable the NK Planner theme, and turn off Altair's debug mode (idempotent; the registry is
    read once per process).

    Altair's debug mode (on by default) validates every schema object against the Vega-Lite JSON schema as it is
    built: with it off, a chart is checked once, by the tests (``tests/test_charts.py`` validates the builders'
    output), instead of on every rerun. The default data transformer's 5,000-row limit is lifted: :func:`draw`
    sends the rows Streamlit would (as Arrow), and a builder decides how many rows it draws."""
    global _THEME_READY
    if not _THEME_READY:
        alt.utils.schemapi.disable_debug_mode()
        alt.data_transformers.disable_max_rows()
        if "nkplanner" not in alt.theme.names():
            alt.theme.register("nkplanner", enable=False)(_theme)
        _THEME_READY = True
    if alt.theme.active != "nkplanner":
        alt.theme.enable("nkplanner")


_COMPOSITIONS = ("layer", "hconcat", "vconcat", "concat")


def _swap_data(chart: Any, datasets: dict[str, bytes], swapped: list[tuple[Any, Any]]) -> None:
    """Replace, in place, every data frame of ``chart`` and of its sub-charts by a named dataset; the frames go into
    ``datasets`` (name -> Arrow IPC bytes, the name a hash of the bytes, as Streamlit's own Altair path does) and
    (chart, frame) into ``swapped`` so that :func:`spec` puts them back. Altair's default path turns a frame into
    JSON rows through a slow sanitising copy."""
    data = getattr(chart, "data", alt.Undefined)
    if isinstance(data, pd.DataFrame):
        raw = dataframe_util.convert_anything_to_arrow_bytes(data)
        name = "d" + hashlib.md5(raw, usedforsecurity=False).hexdigest()
        datasets[name] = raw
        swapped.append((chart, data))
        chart.data = alt.NamedData(name=name)
    for attr in _COMPOSITIONS:
        parts = getattr(chart, attr, alt.Undefined)
        if isinstance(parts, list):
            for part in parts:
                _swap_data(part, datasets, swapped)


def spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The Vega-Lite spec of ``chart`` (theme config included), not validated against the schema, its data as
    named Arrow datasets: what :func:`draw` sends, and what a page may cache (a plain, picklable dict).

    Validating a layered chart costs more than the rest of a rerun; the builders' output is validated by the
    tests instead (``tests/test_charts.py``). The chart's frames are swapped for their names while it is converted
    and put back afterwards (copying the chart cost as much as converting it), so ``chart`` is unchanged."""
    enable_theme()
    datasets: dict[str, bytes] = {}
    swapped: list[tuple[Any, Any]] = []
    try:
        _swap_data(chart, datasets, swapped)
        out: dict[str, Any] = chart.to_dict(validate=False)
    finally:
        for part, frame in swapped:
            part.data = frame
    if datasets:
        out["datasets"] = {**out.get("datasets", {}), **datasets}
    return out


def draw(
    chart: alt.TopLevelMixin | dict[str, Any],
    *,
    key: str | None = None,
    on_select: Literal["ignore", "rerun"] = "ignore",
    selection_mode: str | Sequence[str] | None = None,
) -> Any:
    """Draw a chart (an Altair chart, or a spec from :func:`spec` or ``ui.common.cache.chart_spec``) at the container's
    width; with ``on_select="rerun"``, a click on a selection (``selection_mode``: its name) reruns the page and
    the selection is returned (as ``st.vega_lite_chart`` returns it), otherwise None is returned.

    ``st.vega_lite_chart`` of the unvalidated spec: Streamlit's ``st.altair_chart`` validates the whole chart on
    every rerun. The data travels as it does with ``st.altair_chart`` (named Arrow datasets), and the theme is the
    same (its config is in the spec)."""
    the_spec = chart if isinstance(chart, dict) else spec(chart)
    if on_select == "ignore":
        st.vega_lite_chart(the_spec, width="stretch", key=key)
        return None
    return st.vega_lite_chart(the_spec, width="stretch", key=key, on_select=on_select, selection_mode=selection_mode)


def wrap(text: str, width: int) -> list[str]:
    """``text`` broken into lines of at most ``width`` characters at spaces (a longer word keeps its own line).

    >>> wrap("Accuracy of each config with its interval", 20)
    ['Accuracy of each', 'config with its', 'interval']
    >>> wrap("", 20)
    []
    """
    return textwrap.wrap(" ".join(str(text).split()), width=width, break_long_words=False, break_on_hyphens=False)


def title(text: str, subtitle: str | Sequence[str] = "") -> alt.TitleParams:
    """A chart title that is never cut: ``text`` wrapped into lines of :data:`TITLE_CHARS`, ``subtitle`` (one
    string or several paragraphs) wrapped into lines of :data:`SUBTITLE_CHARS`.

    Streamlit gives a title the container's width less 40 px and cuts a longer line with an ellipsis; wrapped lines
    of about 330 px fit half of a 1024 px window and a 390 px phone.

    >>> t = title("Accuracy of each config", "with its 95% interval")
    >>> t.text, t.subtitle
    (['Accuracy of each config'], ['with its 95% interval'])
    """
    paragraphs = [subtitle] if isinstance(subtitle, str) else list(subtitle)
    sub = [line for p in paragraphs for line in wrap(p, SUBTITLE_CHARS)]
    lines = wrap(text, TITLE_CHARS) or [""]
    return alt.TitleParams(text=lines, subtitle=sub) if sub else alt.TitleParams(text=lines)


def split_title(text: str) -> alt.TitleParams:
    """A one-line title given by a page, split for reading: the part before the first ": " becomes the title and
    the rest its subtitle (both wrapped, see :func:`title`); without ": " the whole text is the title.

    >>> t = split_title("Accuracy (plurality vote): how repeatable is 'A beats B'")
    >>> t.text, t.subtitle
    (['Accuracy (plurality vote)'], ["how repeatable is 'A beats B'"])
    """
    head, sep, rest = str(text).partition(": ")
    return title(head, rest) if sep and head.strip() and rest.strip() else title(text)


def title_px(t: alt.TitleParams | str) -> int:
    """Pixels a title takes above the plot (lines of 20 px, subtitle lines of 17 px, 8 px offset): charts whose
    height Streamlit fits title and all into add this to their furniture.

    >>> title_px(title("Accuracy of each config", "with its 95% interval"))
    45
    """
    if isinstance(t, str):
        return 28 if t else 0
    lines = t.text if isinstance(t.text, list) else [t.text]
    sub = t.subtitle if isinstance(t.subtitle, list) else ([] if t.subtitle is alt.Undefined else [t.subtitle])
    return 8 + 20 * len(lines) + 17 * len(sub)


def legend_columns(items: int, item_px: int = 200) -> alt.ExprRef:
    """Columns of a legend that follow the chart's width: as many ``item_px`` wide columns as fit (at most
    ``items``, at least one), so a phone gets one column and a projector a row.

    >>> legend_columns(3, 250).to_dict()
    {'expr': 'max(1, min(3, floor(width / 250)))'}
    """
    return alt.ExprRef(f"max(1, min({int(items)}, floor(width / {int(item_px)})))")


def bottom_legend(items: int, item_px: int = 200) -> alt.Legend:
    """A legend under the plot whose columns follow the width (:func:`legend_columns`), labels up to
    ``item_px - 30`` px (the symbol and gap take the rest)."""
    return alt.Legend(orient="bottom", columns=legend_columns(items, item_px), labelLimit=max(60, item_px - 30))


@dataclass(frozen=True, slots=True)
class NameLabels:
    """Axis labels for a list of names: ``short[i]`` is ``names[i]`` cut to its distinguishing part; ``common`` says
    what was cut from every name ("bert-base-uncased_…"), empty when nothing was."""

    names: tuple[str, ...]
    short: tuple[str, ...]
    common: str

    def mapping(self) -> dict[str, str]:
        """Full name -> its axis label."""
        return dict(zip(self.names, self.short, strict=True))


_BRACKETS = {")": "(", "]": "[", "}": "{"}
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _balanced_cut(short: str) -> str:
    """``short`` without the brackets a cut left open: a closing bracket at its end whose opening bracket was cut
    away, an opening bracket at its start whose closing one was ("weak.eval)" -> "weak.eval")."""
    for close, open_ in _BRACKETS.items():
        while short.endswith(close) and short.count(close) > short.count(open_):
            short = short[:-1]
        while short.startswith(open_) and short.count(open_) > short.count(close):
            short = short[1:]
    return short


def tidy_cuts(shorts: Sequence[str]) -> list[str]:
    """Distinguishing parts (:func:`nkcore.common.formatting.distinguishing_names`) made readable: brackets the cut
    left open are dropped, and a file extension every part ends with (".eval") is dropped, as long as the parts
    stay different and none is empty; otherwise ``shorts`` unchanged.

    >>> tidy_cuts(["weak.eval)", "strong.eval)"])
    ['weak', 'strong']
    >>> tidy_cuts(["n=1", "n=3"]), tidy_cuts(["a.eval", "a.json"])
    (['n=1', 'n=3'], ['a.eval', 'a.json'])
    """
    out = [_balanced_cut(s) for s in shorts]
    ends = {m.group(0) for s in out if (m := _EXTENSION.search(s))}
    if len(ends) == 1 and all(_EXTENSION.search(s) for s in out):
        out = [_EXTENSION.sub("", s) for s in out]
    if any(not s.strip() for s in out) or len(set(out)) < len(set(shorts)):
        return list(shorts)
    return out


def name_labels(names: Sequence[object]) -> NameLabels:
    """Short axis labels for ``names`` (:func:`nkcore.common.formatting.distinguishing_names`) and the part they
    share, written with an ellipsis where the distinguishing part was ("bert-base-uncased_…").

    >>> nl = name_labels(["bert-base-uncased_seed0", "bert-base-uncased_seed1"])
    >>> nl.short, nl.common
    (('seed0', 'seed1'), 'bert-base-uncased_…')
    >>> name_labels(["n=1", "n=3"]).common
    ''
    >>> name_labels(["mockllm/model (digits_weak.eval)", "mockllm/model (digits_strong.eval)"]).short
    ('weak', 'strong')
    """
    full = [str(n) for n in names]
    unique = list(dict.fromkeys(full))
    short_of = dict(zip(unique, tidy_cuts(distinguishing_names(unique)), strict=True))
    short = [short_of[n] for n in full]
    common = ""
    if unique and short_of[unique[0]] != unique[0]:
        first, cut = unique[0], short_of[unique[0]]
        at = first.find(cut)
        common = f"{first[:at]}…{first[at + len(cut) :]}" if at >= 0 else ""
    return NameLabels(tuple(full), tuple(short), common)


def line_with_band(
    data: pd.DataFrame,
    x: str,
    y: str,
    lo: str,
    hi: str,
    *,
    color: str | None = None,
    x_title: str,
    y_title: str,
    y_format: str = ".0%",
    title: str = "",
) -> alt.LayerChart:
    """A line with points and a shaded interval band (``lo`` to ``hi``), one colour per ``color`` group."""
    enc_color = alt.Color(f"{color}:N", title=None) if color else alt.ColorValue(PALETTE[0])
    base = alt.Chart(data, title=split_title(title) if title else "").encode(
        x=alt.X(f"{x}:Q", title=x_title),
        color=enc_color,
    )
    band = base.mark_area(opacity=0.18).encode(
        y=alt.Y(f"{lo}:Q", title=y_title, axis=alt.Axis(format=y_format)), y2=alt.Y2(hi)
    )
    tooltip = [alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q", format=y_format)]
    tooltip += [alt.Tooltip(f"{lo}:Q", format=y_format), alt.Tooltip(f"{hi}:Q", format=y_format)]
    line = base.mark_line(point=True).encode(y=alt.Y(f"{y}:Q"), tooltip=tooltip)
    return alt.LayerChart(layer=[band, line]).properties(padding=PADDING, width=EXPORT_WIDTH, height=320)


def interval_dots(
    data: pd.DataFrame,
    label: str,
    value: str,
    lo: str,
    hi: str,
    *,
    value_title: str,
    value_format: str = ".0%",
    zero_rule: bool = False,
    title: str | alt.TitleParams = "",
    label_title: str | None = None,
) -> alt.LayerChart:
    """Horizontal dot-and-whisker chart: one row per ``label``, ``value`` with its interval ``lo``-``hi``.

    Long labels are shown by their distinguishing part (:func:`name_labels`), the full one in the tooltip; the
    axis is titled ``label_title`` (default: the column name), with the part every label shares when one was cut.
    """
    names = name_labels(data[label].tolist())
    data = data.assign(_axis_label=list(names.short))
    axis_title = label_title if label_title is not None else label
    if names.common:
        axis_title = f"{axis_title} ({names.common})"
    base = alt.Chart(data, title=title).encode(
        y=alt.Y(
            "_axis_label:N",
            title=axis_title,
            sort=None,
            axis=alt.Axis(labelLimit=NAME_LABEL_PX, titleLimit=NAME_LABEL_PX * 2),
        )
    )
    whisker = base.mark_rule(strokeWidth=2, color=PALETTE[0]).encode(
        x=alt.X(f"{lo}:Q", title=value_title, axis=alt.Axis(format=value_format)), x2=alt.X2(hi)
    )
    tooltip = [alt.Tooltip(f"{label}:N")] + [alt.Tooltip(f"{c}:Q", format=value_format) for c in (value, lo, hi)]
    dot = base.mark_point(filled=True, size=80, color=PALETTE[0]).encode(x=alt.X(f"{value}:Q"), tooltip=tooltip)
    layers: list[alt.Chart] = [whisker, dot]
    if zero_rule:
        layers.append(
            alt.Chart(pd.DataFrame({"zero": [0.0]}))
            .mark_rule(color="#444", strokeDash=[4, 3])
            .encode(x=alt.X("zero:Q"))
        )
    # 45 px a row, as a step of the labels' axis: the height follows the data, so the spec is the same for any
    # number of rows and a change of the rows sends new data only (Streamlit then updates the drawn chart in place
    # instead of building a new one); title and axis are added to the plot's height
    return alt.LayerChart(layer=layers).properties(padding=PADDING, width=EXPORT_WIDTH, height=alt.Step(ROW_PX))
