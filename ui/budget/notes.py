"""Budget page, below the cell: how the numbers are computed, the minimal budget of every metric, the paper's
claims checked, and the one-page summary."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore.nk import frames, grid, sentences
from nkcore.nk import metrics as nkm
from ui.budget import compute as budget_compute
from ui.budget.cell import cell_words
from ui.budget.compute import Answer, Cell, Grid
from ui.budget.controls import Choices, metric_name
from ui.common import cache, exports
from ui.common.text import md


def draw_method(ch: Choices, g: Grid) -> None:
    """'How these numbers are computed' and, for a fitted prior, where it comes from."""
    with st.expander("How these numbers are computed", key="bud_method", bind="query-params"):
        if ch.prior is not None:
            alpha_txt = ", ".join(f"{a:.3g}" for a in ch.prior.concentration)
            st.caption(
                f"Prior (alpha) **{md(ch.prior.name)}**: {md(f'[{alpha_txt}]')}, M = {ch.prior.m} labels, item "
                f"agreement alpha0 = sum(alpha) = {ch.prior.alpha0:.3g} (small: items differ a lot; large: items "
                f"alike). Model A answers like the raters; model B is pulled towards noise by eps = {ch.eps}."
            )
        if g.exact_view:
            st.caption(
                "Every metric is a mean over items of a per-item score gap, and items are independent, so the gap of "
                "an evaluation with N items is the mean of N draws from one per-item law. The engine works that law "
                "out for each K and gets every N from it (exact convolution, or a checked approximation for large "
                "N): the numbers are the paper's in the limit of infinitely many simulated rounds. Each number "
                "carries its own error (+/-); 'Verify this cell with simulation' runs the paper's simulation beside it."
            )
        else:
            st.caption(
                f"Each cell: {ch.rounds:,} simulated evaluations with A really better and {ch.rounds:,} with no "
                f"difference. {md(sentences.precision_sentence(ch.rounds))}"
            )
        run = g.run_info
        if run is not None:
            probs = "their probabilities" if run.uses_probabilities else "their hard labels (one-hot)"
            sk = run.skipped_k
            skipped = f" K = {sk[0]} to {sk[-1]} left out: no item has that many ratings." if sk else ""
            st.caption(
                f"Resampling {run.n_items:,} items that have ratings and both predictions; distribution metrics "
                f"use {probs}. Each round draws items (N) with replacement and K of each item's ratings without "
                f"replacement; the null swaps the two models' predictions on each item by a fair coin.{skipped}"
            )
        if ch.fitted is not None:
            st.caption(
                f"Fitted to {ch.fitted.n_items:,} items ({ch.fitted.ratings_per_item[1]:.0f} ratings per item (K) "
                f"typical) over labels {md(', '.join(ch.fitted.labels))}."
            )
        if nkm.METRICS[ch.metric].kl_artifact:
            st.info(md(sentences.kl_artifact_sentence()))
    if ch.fitted is not None:
        comparisons = cache.compute(frames.preset_comparisons, ch.ratings)
        with st.expander(
            "Where this prior comes from, how well it fits, and why the paper's preset differs",
            key="bud_fit",
            bind="query-params",
        ):
            st.markdown(md(sentences.fit_source_sentence(ch.fitted, comparisons, ch.ratings.name)))
        way_out = "; try 'Resample ratings + predictions'" if ch.resample_possible else ""
        for w in ch.fitted.fit.warnings:
            st.warning(f"Fit warning: {md(w)}. The numbers may not describe this data well{way_out}.")


def draw_tables(ch: Choices, g: Grid) -> list[grid.MinimalBudget]:
    """The minimal budget of every metric and the paper's claims, each computed only while its expander is open
    (open or not is in the link: ``bud_all``, ``bud_claims``); returns the minimal budgets computed (the shown
    metric's alone while both are closed)."""
    every = st.expander("Minimal budget for every metric", key="bud_all", on_change="rerun", bind="query-params")
    claims = st.expander(
        "The paper's claims, checked on these numbers", key="bud_claims", on_change="rerun", bind="query-params"
    )
    cells = budget_compute.all_cells(ch, g) if claims.open else g.cells  # the claims read every metric's cells
    if every.open and not claims.open:  # the table alone: each metric's rows up to its answer (every_minimal)
        mins = budget_compute.every_minimal(ch, g)
    else:
        mins = grid.minimal_budgets(cells, _metrics_in(cells))
    if every.open:
        with every:
            _minimal_table(ch, g, mins)
    if claims.open:
        with claims:
            if ch.prior is not None:
                st.markdown(md(sentences.claims_basis_sentence(ch.prior.name, ch.prior.alpha0, ch.fitted is not None)))
            for cl in sentences.claims_check(cells):
                mark = (
                    ":green[**holds**]"
                    if cl.holds
                    else (":red[**does not hold**]" if cl.holds is False else "undecided")
                )
                st.markdown(f"- {md(cl.claim)} {mark}. {md(cl.evidence)}")
    return mins


def _minimal_table(ch: Choices, g: Grid, mins: list[grid.MinimalBudget]) -> None:
    st.markdown(f"**In one line:** {md(sentences.headline_sentence(mins))}")
    table = pd.DataFrame(
        [
            {
                "metric": metric_name(x.metric),
                "minimal budget (N x K)": "never" if x.budget is None else f"{x.budget:,}",
                "ratings per item (K)": "" if x.k is None else str(x.k),
                "items (N)": "" if x.budget is None or x.k is None else f"{x.budget // x.k:,}",
                "p-value": "" if x.p is None else sentences.fmt_p(x.p),
            }
            for x in mins
        ]
    )
    exports.table(table, "nk_minimal_budget", hide_index=True, width="stretch")
    st.caption(
        f"The smallest budget on the grid (up to {ch.max_budget:,}) at which some ratings per item (K) reaches "
        f"p < 0.05, and that K; 'never' = not within the grid. {md(sentences.kl_artifact_short())}"
        + ("" if g.exact_view else f" {md(sentences.precision_sentence(ch.rounds))}")
    )


def _metrics_in(cells: list[Cell]) -> list[str]:
    present = {c.metric for c in cells}
    return [m for m in nkm.ALL_METRICS if m in present]


def draw_summary(
    ch: Choices,
    g: Grid,
    ans: Answer,
    cell: Cell | None,
    mins: list[grid.MinimalBudget],
    chart: exports.ChartOrBuilder | None,
) -> None:
    """The one-page summary download: the answer, the cell, every metric's minimal budget, the parameters."""
    numbers = [(f"answer: {ch.label}", "-" if ans.mb.budget is None else f"{ans.mb.budget:,}", ans.verdict)]
    numbers += [
        (metric_name(x.metric), "-" if x.budget is None else f"{x.budget:,}", sentences.minimal_budget_sentence(x))
        for x in mins
    ]
    if cell is not None:
        numbers.insert(1, (f"cell {cell.budget:,} / K {cell.k}", sentences.p_phrase(cell.p), cell_words(ch, g, cell)))
    params: dict[str, object] = {"source": ch.source, "metric": ch.label, "K": ch.ks_text}
    if ch.prior is not None:
        params["eps"] = ch.eps
        params["prior (alpha)"] = f"{ch.prior.name}: {list(ch.prior.concentration)}"
    if g.exact_view:
        params["method"] = "instant engine (exact, no seed)"
    else:
        params.update({"rounds": ch.rounds, "seed": ch.seed})
    exports.summary_download("Budget (N x K)", params, numbers, [chart] if chart is not None else [])
