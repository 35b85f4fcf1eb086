"""Budget page, the answer and the one chart: the verdict, the heatmap or the N x K plane, the best K of a budget."""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from nkcore.nk import exact as nk_exact
from nkcore.nk import grid, sentences
from ui import charts
from ui.budget.compute import SEARCH_MAX, Answer, Cell, Grid
from ui.budget.controls import COLOR_BY, ENGINE_METRICS, SOURCES, Choices
from ui.charts import nk as charts_nk
from ui.charts import plane as charts_plane
from ui.common import cache, exports, page
from ui.common.datasets import Dataset
from ui.common.text import md

GRID_TAB = "Heatmap: budget x K"
PLANE_TAB = "Plane: items x K"
"""The two views' tab labels, short enough for both to fit a 390 px phone (the tab in the link is its label); what
each view is, in full, is the caption under the tabs (:data:`VIEW_CAPTION`)."""
OLD_TABS = {
    "Budget x ratings per item (click a cell)": GRID_TAB,
    "Items x ratings per item, budgets as lines": PLANE_TAB,
}
"""The tabs' former labels, as links made before they were shortened carry them: opened as the same view."""
VIEW_CAPTION = (
    "Heatmap: each budget (rows) split by ratings per item (K, columns); click a cell. Plane: items (N) x ratings "
    "per item (K), each budget a dashed line."
)
HEATMAP_CAPTION = (
    "Each square is a split of the budget into items (N) = budget / K and ratings per item (K); darker = more "
    "repeatable. The orange frame is the budget chosen on the slider, the star its best K, the red ring the cell "
    "shown below. White dot: p < 0.05; x: extrapolation. Click any square to see its details."
)


def draw_verdict(box: DeltaGenerator, ch: Choices, g: Grid, ans: Answer) -> None:
    """The answer that leads the page, and in one line what it was computed on and how."""
    with box:
        st.markdown(f"#### {md(ans.verdict)}")
        if ch.fitted is not None and ch.fitted.fit.warnings:  # said under the number they qualify, not far below
            short = sentences.fit_warnings_short(ch.fitted.fit.warnings, ch.resample_possible)
            st.warning(md(short), icon=":material/warning:")
        who = (
            f"{ch.model_a} against {ch.model_b}, resampling the real ratings"
            if ch.real
            else f"prior {ch.prior.name if ch.prior else ''}; model A answers with each item's true label shares, "
            f"model B is a made-up worse model that mixes {ch.eps:.0%} random labels into them (eps = {ch.eps:g})"
        )
        how = (
            "computed exactly from each item's score law: no simulation noise, no seed"
            if g.exact_view
            else f"simulated, {ch.rounds:,} + {ch.rounds:,} rounds per cell, seed {ch.seed}"
        )
        mb = ans.mb
        beyond = (
            f" That is beyond this grid's largest budget ({max(ch.budgets):,}): raise 'Largest budget on the grid' "
            "to see it on the charts."
            if mb.budget is not None and mb.budget > max(ch.budgets) and not ans.everything_tied
            else ""
        )
        st.caption(f"{md(who)}; searched {md(ans.searched)}; {how}.{beyond}")


HeatArgs = tuple[pd.DataFrame, str, int, int | None, tuple[int, int] | None, str]
"""``charts_nk.heatmap``'s positional arguments: cells, colour, budget row, its best K, chosen cell, title."""


def _first_budget(shown: list[int]) -> int:
    """The budget slider's default: 1,000 ratings when the grid has it, else the largest."""
    return 1000 if 1000 in shown else shown[-1]


def _row_cell(budget: int, best: dict[int, grid.BestK]) -> tuple[int, int] | None:
    """The cell in detail when the link names none: the budget row's best K (None when the row has none)."""
    return (budget, best[budget].k) if budget in best else None


def _rows_and_best(ch: Choices, mcells: list[Cell]) -> tuple[list[int], dict[int, grid.BestK]]:
    """The budgets with a cell (the chart's rows, the slider's options) and each budget's best K."""
    shown = [b for b in ch.budgets if any(c.budget == b for c in mcells)]
    return shown, {bk.budget: bk for bk in grid.best_k(mcells, ch.metric)}


def _cells_table(mcells: list[Cell]) -> pd.DataFrame:
    """The chosen metric's cells as the charts read them (``grid.cells_frame`` with extrapolation and "A ahead")."""
    df = grid.cells_frame(mcells)
    df["extrapolated"] = [grid.extrapolated(c) for c in mcells]
    # the colour and tooltip say "A ahead in": strictly ahead (a real-data cell's reproducibility is the share of
    # rounds in the full data's direction, which counts ties when the full data has no difference)
    df["reproducibility"] = [sentences.gap_shares(c.alt).ahead for c in mcells]
    return df


def _heat_args(
    ch: Choices, df: pd.DataFrame, budget: int, best: dict[int, grid.BestK], chosen: tuple[int, int] | None
) -> HeatArgs:
    """The heatmap's arguments (``charts_nk.heatmap``), the same for the page and :func:`warm_heatmap`."""
    return (
        df,
        COLOR_BY[ch.color_by],
        budget,
        best[budget].k if budget in best else None,
        chosen,
        f"{ch.label}: how repeatable is 'A beats B' for each budget and ratings per item (K)",
    )


def warm_heatmap(ch: Choices, g: Grid) -> None:
    """The heatmap's spec of ``g`` as a link without a chosen cell opens it, into the cache (the spec of the Budget
    page's default view is the costliest part of its first run: ``ui.budget.warm``)."""
    shown, best = _rows_and_best(ch, g.mcells)
    if not shown:
        return
    budget = _first_budget(shown)
    chosen = _row_cell(budget, best)
    cache.chart_spec(charts_nk.heatmap, *_heat_args(ch, _cells_table(g.mcells), budget, best, chosen))


def _chosen_cell(
    shown: list[int], best: dict[int, grid.BestK], by_cell: dict[tuple[int, int], Cell]
) -> tuple[int, tuple[int, int] | None]:
    budget = int(
        st.select_slider(
            "Budget (N x K ratings): highlight a row and name its best K",
            options=shown,
            value=_first_budget(shown),
            key="bud_budget",
            bind="query-params",
        )
    )
    raw = st.query_params.get("bud_cell", "")
    chosen: tuple[int, int] | None = None
    if raw.count("x") == 1 and raw.replace("x", "").isdigit():
        b, k = raw.split("x")
        chosen = (int(b), int(k))
    if chosen not in by_cell:
        chosen = _row_cell(budget, best)
    return budget, chosen


def draw_charts(ch: Choices, g: Grid, ans: Answer) -> tuple[Cell | None, exports.ChartOrBuilder | None]:
    """The budget slider, the open tab's chart (heatmap or plane), the best K sentences; returns (the chosen
    cell or None, the chart shown, as a function that builds it, or None)."""
    mcells = g.mcells
    shown, best = _rows_and_best(ch, mcells)
    by_cell = {(c.budget, c.k): c for c in mcells}
    df = _cells_table(mcells)
    budget, chosen = _chosen_cell(shown, best, by_cell)
    # Only the open tab is drawn (Altair's spec building is most of a redraw); the open tab is in the link.
    old = st.query_params.get("bud_view")
    if old in OLD_TABS:  # the bound tabs read the link before this run: set the widget's state as well
        st.query_params["bud_view"] = st.session_state["bud_view"] = OLD_TABS[old]
    st.caption(VIEW_CAPTION)
    tab_grid, tab_plane = st.tabs([GRID_TAB, PLANE_TAB], key="bud_view", bind="query-params", on_change="rerun")
    shown_chart: exports.ChartOrBuilder | None = None
    if tab_grid.open is not False:
        with tab_grid:
            heat_args = _heat_args(ch, df, budget, best, chosen)

            def heat() -> alt.LayerChart:
                return charts_nk.heatmap(*heat_args)

            # the spec is cached on its inputs' content (a control that leaves them as they were redraws nothing
            # new); the chart itself is built only when a download is clicked
            spec = cache.chart_spec(charts_nk.heatmap, *heat_args)
            charts.draw(spec, key="bud_heat", on_select="rerun", selection_mode=charts_nk.CELL_SELECTION)
            st.caption(HEATMAP_CAPTION)
            exports.download_table_and_chart(
                grid.cells_frame(g.cells),
                "nk_grid",
                heat,
                "nk_heatmap",
                table_label="Cells (CSV)",
                explains="Darker: more repeatable; white dot: p < 0.05; x: extrapolation; orange frame: the budget "
                "chosen; star: its best K; red ring: the cell in detail.",
            )
            shown_chart = heat
    if tab_plane.open:
        with tab_plane:
            shown_chart = _plane(ch, df, shown, chosen, ans)
    if budget in best:
        pool = getattr(by_cell.get((budget, best[budget].k)), "n_qualifying", None)
        st.markdown(f"**Best K at this budget.** {md(sentences.best_k_sentence(best[budget], pool))}")
    if ch.prior is not None and ch.metric in ENGINE_METRICS:
        any_budget(ch)
    note = sentences.extrapolation_note(mcells)
    if note:
        st.warning(md(note), icon=":material/warning:")
    return (by_cell[chosen] if chosen else None), shown_chart


def _plane(
    ch: Choices, df: pd.DataFrame, shown: list[int], chosen: tuple[int, int] | None, ans: Answer
) -> Callable[[], alt.TopLevelMixin]:
    mb = ans.mb
    point = (
        charts_plane.MinimalPoint(mb.budget, mb.budget // mb.k, mb.k)
        if mb.budget is not None and mb.k is not None and not ans.everything_tied
        else None
    )
    args = (
        df,
        COLOR_BY[ch.color_by],
        shown,
        f"{ch.label}: items (N) x ratings per item (K); each dashed line is one budget N x K",
    )

    def plane() -> alt.TopLevelMixin:
        return charts_plane.nk_plane(*args, chosen=chosen, minimal=point)

    charts.draw(cache.chart_spec(charts_plane.nk_plane, *args, chosen=chosen, minimal=point), key="bud_plane")
    st.caption(
        "Each mark is a split of a budget: items (N) across, ratings per item (K) up, both on log scales, so a "
        "budget N x K is a dashed line (labelled with its ratings at the top). Squares: p < 0.05; circles: not. "
        + (
            "Orange line and star: the smallest budget that reaches p < 0.05 and its split. "
            if point is not None
            else ""
        )
        + "Red ring: the cell shown below."
    )
    exports.download_chart(
        plane,
        "nk_plane",
        explains="Squares: p < 0.05, circles: not; dashed lines: budgets N x K; orange line and star: the "
        "smallest budget that reaches p < 0.05 and its split; red ring: the cell in detail.",
    )
    return plane


@st.fragment
def any_budget(ch: Choices) -> None:
    """Any budget, not only the grid's: the engine finds its best split.

    A fragment: the typed budget changes only the sentence drawn here (nothing else on the page reads it), so it
    reruns this section alone; its number stays in the link (checked in a browser, tests/browser/test_budget.py)."""
    with page.user_errors():
        _any_budget(ch)


def _any_budget(ch: Choices) -> None:
    assert ch.prior is not None
    typed = st.columns([1, 2])[0].number_input(
        "Any other budget (ratings): its best split",
        min_value=1,
        max_value=SEARCH_MAX,
        value=None,
        step=100,
        key="bud_any",
        bind="query-params",
        placeholder="e.g. 1800",
        help="Type the number of ratings you can pay for; the engine finds the ratings per item (K) among "
        "those tried with the smallest p-value, and items (N) = budget / K.",
    )
    if typed:
        bk = cache.compute_params(
            nk_exact.best_k_for_budget,
            prior=ch.prior.concentration,
            eps=ch.eps,
            metric=ch.metric,
            budget=int(typed),
            ks=ch.ks,
        )
        st.markdown(f"**Best K at {int(typed):,} ratings.** {md(sentences.best_k_sentence(bk))}")


def data_line(choices: Choices) -> str:
    """The page's first line: where its numbers come from (a preset prior, a prior fitted to the ratings in use,
    or the ratings and predictions resampled), naming the datasets; "the built-in sample" when it is."""

    def named(ds: Dataset) -> str:
        return "the built-in sample" if ds.builtin else f"{md(ds.name)} (`{ds.id[:8]}`)"

    if choices.source == SOURCES[0] and choices.prior is not None:
        return f"**Data:** the paper's preset prior {md(choices.prior.name)} (no upload is read). Upload ratings on the Data page to plan from your own."
    if choices.rds is None:
        return "**Data:** a prior typed or chosen here."
    text = f"**Data:** ratings {named(choices.rds)}"
    if choices.real and choices.pds is not None:
        return (
            text
            + f" · predictions {named(choices.pds)} · models {md(choices.model_a)} and {md(choices.model_b)}, resampled"
        )
    return text + " · a prior fitted to them"
