"""Budget (N x K): how many items (N) and ratings per item (K) make 'model A beats model B' reproducible."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.nk import exact as nk_exact
from nkcore.nk import frames, grid, priors, sentences
from nkcore.nk import metrics as nkm
from ui import cache, charts_nk, charts_plane, datasets, exports, page, work
from ui.text import md

GRID_TAB = "Budget x ratings per item (click a cell)"
PLANE_TAB = "Items x ratings per item, budgets as lines"
SOURCES = ["Preset prior", "Prior fitted to ratings", "Resample ratings + predictions"]
PRECISION = {"Quick preview (200 rounds)": 200, "Full precision (1,000 rounds, as the paper)": 1000}
COLOR_BY = {"p-value": "p", "Reproducibility": "reproducibility"}
CUSTOM = "custom alpha (type it)"
SEARCH_MAX = max(grid.PAPER_BUDGETS)
"""The headline's smallest budget is searched on the continuous budget axis up to this many ratings."""
VERIFY_SEEDS = 10
"""The simulation that checks a cell runs this many seeds; their spread gives its Monte Carlo error."""
AGREE_Z = 4.0
"""Engine and simulation agree when every difference is within this many standard errors (with 10 seeds, a
t-distribution with 9 degrees of freedom exceeds 4 in 0.3% of checks)."""
METHOD_WORDS = {
    "lattice": "exact convolution of the per-item law",
    "edgeworth": "normal approximation with a skewness correction (Edgeworth), for many items",
    "normal": "normal approximation, for many items",
    "simulate": "simulated",
}
"""How the engine computed a cell, in words (the ``method`` field of a cell)."""
ENGINE_METRICS = nkm.ITEM_METRICS
"""The metrics of the instant engine: every metric that is a mean over items (macro F1 is not: it is simulated)."""
PLAIN_METRIC = {"kl": "KL divergence (paper's version)"}
"""Names on the metric selector where the engine's label is jargon (the sentences keep the engine's label)."""
METRIC_HELP = (
    "How the two models are scored against the raters, per item i, then averaged over items (N):  \n"
    "- Accuracy: 1 if the model's majority label equals the raters' majority label.  \n"
    "- TV (total variation): mean over labels m of |P_model(m|i) - P_raters(m|i)|.  \n"
    "- Wins: +1 where A is closer (per-item TV) to the raters than B, -1 where B is.  \n"
    "- KL divergence (paper's version): sum_m P_raters log(P_raters / P_model), with 1e-12 added to every count, "
    "so a label the model never gave costs about ln(1e12) = 27.6 nats (natural-log units).  \n"
    "- KL (smoothed): the same with 1/2 added to every count.  \n"
    "- Jensen-Shannon distance, cross-entropy, macro F1 of majority labels: beyond the paper."
)


def metric_name(metric: str) -> str:
    """The metric's name on the selector: the engine's label, or a plain name where that label is jargon."""
    return PLAIN_METRIC.get(metric, sentences.metric_label(metric))


def fmt_error(value: float, error: float, fmt: Callable[[float], str]) -> str:
    """A number with its accuracy in words: '0.031 (+/- 0.002)' (one standard error), '0.031 (exact)' when the
    error is 0, '0.0405 (exact to these digits)' when it is below half a unit of the last digit shown, and the
    number alone when its error is unknown (NaN). E.g. 0.0312 with error 0.0021 and three decimals reads
    '0.031 (+/- 0.002)'; 0.0405 with error 1e-6 and three significant digits '0.0405 (exact to these digits)'.
    """
    text = fmt(value)
    if error is None or not math.isfinite(error) or not math.isfinite(value):
        return text
    if error == 0:
        return f"{text} (exact)"
    if "e" in text:
        unit = abs(value) * 1e-2
    else:
        decimals = text.split(".", 1)[1] if "." in text else ""
        unit = 10.0 ** -len(decimals)
    if error < unit / 2:
        return f"{text} (exact to these digits)"
    return f"{text} (+/- {error:.1g})"


def seed_summary(values: list[float]) -> tuple[float, float]:
    """(mean, standard error of the mean) over the seeds: sd / sqrt(seeds), the simulation's Monte Carlo error."""
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return float(arr.mean()), math.nan
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))


# A click on the heatmap (last run's selection) goes into the link first, so the link always names the shown cell.
_picked = (st.session_state.get("bud_heat") or {}).get("selection", {}).get(charts_nk.CELL_SELECTION) or []
if _picked and {"budget", "k"} <= set(_picked[0]):
    st.query_params["bud_cell"] = f"{int(_picked[0]['budget'])}x{int(_picked[0]['k'])}"

# The metric selectbox keeps its name in the link; a link may also name the metric as the CLI does (?bud_metric=kl)
# or by the engine's label that an older view of this page wrote (?bud_metric=KL (paper, 1e-12)).
_raw_metric = st.query_params.get("bud_metric")
_by_name = {sentences.metric_label(m): m for m in nkm.ALL_METRICS if metric_name(m) != sentences.metric_label(m)}
if _raw_metric in nkm.METRICS or _raw_metric in _by_name:
    st.query_params["bud_metric"] = metric_name(_by_name.get(_raw_metric, _raw_metric))
    st.rerun()  # the bound selectbox reads its link value when a run starts

page.setup_page(
    "Budget (N x K)",
    "How many items (N) and ratings per item (K) does an evaluation need before 'model A beats model B' "
    "holds up when it is run again? (p < 0.05, the method of *Forest vs Tree*, AAAI-26.)",
)
verdict_box = st.container()  # the answer leads the page: filled once the numbers are computed

with page.user_errors():
    c1, c2, c3 = st.columns([1.2, 1, 1])
    source = c1.radio("Where the numbers come from", SOURCES, key="bud_src", bind="query-params")
    metric = c2.selectbox(
        "Metric",
        nkm.ALL_METRICS,
        format_func=metric_name,
        key="bud_metric",
        bind="query-params",
        help=METRIC_HELP,
    )
    color_by = c3.radio("Colour the cells by", list(COLOR_BY), horizontal=True, key="bud_color", bind="query-params")

    # ------------------------------------------------------------------ the source of the numbers
    fitted = run_info = None
    prior: priors.Prior | None
    eps = 0.3
    s1, s2 = st.columns([1.2, 2])
    if source == "Preset prior":
        name = s1.selectbox(
            "Kind of data: prior (alpha)",
            [*priors.preset_names(), CUSTOM],
            key="bud_prior",
            bind="query-params",
            help="How the items' label shares vary, as Dirichlet parameters alpha (one per label) fitted by the "
            "paper's authors to each dataset. alpha0 = sum(alpha): small = items differ a lot, large = items alike.",
        )
        typed = s1.text_input(
            "alpha, one value per label", "2, 1, 1", key="bud_alpha", bind="query-params", disabled=name != CUSTOM
        )
        prior = priors.resolve_prior(alpha=typed) if name == CUSTOM else priors.get_prior(name)
    elif source == "Prior fitted to ratings":
        rds = datasets.choose_dataset("ratings")
        fitted = cache.compute(frames.fit_prior_frame, rds)
        prior = priors.Prior(f"fitted to {rds.name}", fitted.fit.alpha, "Dirichlet-multinomial ML fit")
    else:
        rds = datasets.choose_dataset("ratings")
        pds = datasets.choose_dataset("predictions")
        models = list(cache.compute(frames.model_names, pds))
        if len(models) < 2:
            st.error("The predictions dataset needs at least two models to compare.")
            st.stop()
        model_a = s1.selectbox("Model A", models, index=0, key="bud_ma", bind="query-params")
        model_b = s1.selectbox("Model B", models, index=1, key="bud_mb", bind="query-params")
        prior = None
    if source != "Resample ratings + predictions":
        eps = s1.slider(
            "How much worse model B is (eps)",
            min_value=0.0,
            max_value=1.0,
            value=0.3,
            step=0.01,
            key="bud_eps",
            bind="query-params",
            help="Model B answers from (1 - eps) x the item's true label shares + eps x random label shares "
            "(Dirichlet noise); model A answers like the raters. 0 = B is as good as A; 1 = B answers pure noise. "
            "The paper's tables use 0.3.",
        )
    max_budget = s2.select_slider(
        "Largest budget on the grid (N x K ratings)",
        options=list(grid.PAPER_BUDGETS),
        value=2500,
        key="bud_maxb",
        bind="query-params",
    )
    ks_text = s2.text_input(
        "Ratings per item (K) to try",
        "1-10,20-500:20",
        key="bud_ks",
        bind="query-params",
        help="Numbers and ranges: 1-10 means 1 to 10; 20-500:20 means 20, 40, ..., 500 (the paper's list).",
    )
    ks = grid.parse_int_list(ks_text, "ratings per item (K)")
    budgets = [b for b in grid.PAPER_BUDGETS if b <= max_budget]

    # The instant engine computes the cells from the per-item law of the score gap: no rounds, no seed, no noise.
    # It covers every metric that is a mean over items; macro F1 and sources without the engine are simulated, and
    # only then do the number of rounds and the seed matter (and show).
    exact_grid_fn = nk_exact.exact_grid if prior is not None else None
    # real data: the engine's frames-level entry point (``frames.exact_resample_frames``, ResampleRun like
    # ``frames.resample_frames``) where the server has it; else the resampler
    exact_real_fn = getattr(frames, "exact_resample_frames", None) if prior is None else None
    has_engine = exact_grid_fn is not None or exact_real_fn is not None
    sim_metrics = nkm.ALL_METRICS if not has_engine else tuple(m for m in (metric,) if m not in ENGINE_METRICS)
    rounds, seed = 0, 0
    if sim_metrics:
        p1, p2 = s2.columns([2, 1])
        precision = p1.radio("Rounds", list(PRECISION), key="bud_prec", bind="query-params")
        seed = int(
            p2.number_input(
                "Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="bud_seed", bind="query-params"
            )
        )
        rounds = PRECISION[precision]

    # ------------------------------------------------------------------ compute
    # The engine's grid is one cached computation (its per-item laws serve every budget). A simulated grid is
    # computed one budget row at a time: each row is its own cached computation (changing the largest budget
    # reuses the rows already done) and runs through ui.work (progress bar, Cancel, one computation per key across
    # viewers); a row over the server's work limit is left out and said, instead of losing the rows that fit.
    cells: list[Any] = []
    if exact_grid_fn is not None and prior is not None:
        cells.extend(
            work.compute_with_progress(
                exact_grid_fn,
                alpha=prior.alpha,
                eps=float(eps),
                budgets=tuple(budgets),
                ks=ks,
                metrics=ENGINE_METRICS,
                progress_label="Computing the grid",
            )
        )
    if exact_real_fn is not None:
        run_info = work.compute_with_progress(
            exact_real_fn,
            rds,
            pds,
            model_a=model_a,
            model_b=model_b,
            budgets=tuple(budgets),
            ks=ks,
            metrics=ENGINE_METRICS,
            progress_label="Computing the grid",
        )
        cells.extend(run_info.cells)
    refused: list[tuple[int, str]] = []
    bar = st.progress(0.0, text="Computing the grid…") if prior is None and sim_metrics else None
    for i, b in enumerate(budgets if sim_metrics else []):
        try:
            if prior is None:
                sim_run = cache.compute(
                    frames.resample_frames,
                    rds,
                    pds,
                    model_a=model_a,
                    model_b=model_b,
                    budgets=(b,),
                    ks=ks,
                    metrics=sim_metrics,
                    rounds=rounds,
                    seed=seed,
                )
                run_info = run_info or sim_run
                cells.extend(sim_run.cells)
            else:
                cells.extend(
                    work.compute_with_progress(
                        grid.simulate_grid,
                        alpha=prior.alpha,
                        eps=float(eps),
                        budgets=(b,),
                        ks=ks,
                        metrics=sim_metrics,
                        rounds=rounds,
                        seed=seed,
                        progress_label=f"Budget {b:,} ({i + 1} of {len(budgets)})",
                    )
                )
        except DataError as exc:
            refused.append((b, str(exc)))
        if bar is not None:
            bar.progress((i + 1) / len(budgets), text=f"Budget {b:,} done ({i + 1} of {len(budgets)})")
    if bar is not None:
        bar.empty()
    if refused:
        left_out = ", ".join(f"{b:,}" for b, _ in refused)
        st.warning(
            f"Budgets {left_out} were not computed: {md(refused[0][1])}. The rest of the grid is shown; choose "
            "Quick preview or a smaller largest budget to stay within the server's limits."
        )
    mcells = [c for c in cells if c.metric == metric]
    if not mcells:
        st.error("No cell could be computed: no item has that many ratings per item (K). Try smaller K.")
        st.stop()
    exact_view = has_engine and all(getattr(c, "method", "simulate") != "simulate" for c in mcells)

    # ------------------------------------------------------------------ the answer: smallest budget for this metric
    label = metric_name(metric)
    a_name, b_name = (model_a, model_b) if run_info is not None else ("A", "B")
    if prior is not None and metric in ENGINE_METRICS:
        # the answer is not bound to the grid on show: any budget up to the paper's largest
        mb = cache.compute_params(
            nk_exact.min_budget_continuous,
            alpha=prior.alpha,
            eps=float(eps),
            metric=metric,
            ks=ks,
            level=0.05,
            max_budget=SEARCH_MAX,
        )
        searched = f"any budget up to {SEARCH_MAX:,} ratings"
        tried = ""
    else:
        mb = grid.minimal_budgets(mcells, [metric])[0]
        searched = f"the budgets on the grid ({', '.join(f'{b:,}' for b in budgets)})"
        tried = " tried"
    everything_tied = all(sentences.gap_shares(c.alt, c.null).all_tied for c in mcells)
    if everything_tied:
        verdict = "These two models agree on every item: nothing to detect."
    elif mb.budget is not None and mb.k is not None:
        n_items = mb.budget // mb.k
        per = "rating per item" if mb.k == 1 else "ratings per item"
        verdict = (
            f"Smallest budget{tried} that reaches p < 0.05 for {label}: {mb.budget:,} ratings "
            f"({n_items:,} items x {mb.k} {per})."
        )
    else:
        verdict = f"{label} does not reach p < 0.05 within {searched}: a larger budget is needed."
    with verdict_box:
        st.markdown(f"#### {md(verdict)}")
        who = (
            f"{a_name} against {b_name}, resampling the real ratings"
            if run_info is not None
            else f"prior {prior.name if prior else ''}, model B {eps:.0%} of the way to noise (eps = {eps})"
        )
        how = (
            "computed exactly from each item's score law: no simulation noise, no seed"
            if exact_view
            else f"simulated, {rounds:,} + {rounds:,} rounds per cell, seed {seed}"
        )
        beyond = (
            f" That is beyond this grid's largest budget ({max(budgets):,}): raise 'Largest budget on the grid' to "
            "see it on the charts."
            if mb.budget is not None and mb.budget > max(budgets) and not everything_tied
            else ""
        )
        st.caption(f"{md(who)}; searched {md(searched)}; {how}.{beyond}")

    # ------------------------------------------------------------------ the one chart: heatmap, and the N x K plane
    shown = [b for b in budgets if any(c.budget == b for c in mcells)]
    best = {bk.budget: bk for bk in grid.best_k(mcells, metric)}
    by_cell = {(c.budget, c.k): c for c in mcells}
    df = grid.cells_frame(mcells)
    df["extrapolated"] = [sentences.extrapolated(c) for c in mcells]
    # the colour and tooltip say "A ahead in": strictly ahead (a real-data cell's reproducibility is the share of
    # rounds in the full data's direction, which counts ties when the full data has no difference)
    df["reproducibility"] = [sentences.gap_shares(c.alt).ahead for c in mcells]
    budget = int(
        st.select_slider(
            "Budget (N x K ratings): highlight a row and name its best K",
            options=shown,
            value=1000 if 1000 in shown else shown[-1],
            key="bud_budget",
            bind="query-params",
        )
    )
    raw = st.query_params.get("bud_cell", "")
    chosen = tuple(int(v) for v in raw.split("x")) if raw.count("x") == 1 and raw.replace("x", "").isdigit() else None
    if chosen not in by_cell:
        chosen = (budget, best[budget].k) if budget in best else None
    # Only the open tab is drawn (Altair's spec building is most of a redraw); the open tab is in the link.
    tab_grid, tab_plane = st.tabs([GRID_TAB, PLANE_TAB], key="bud_view", bind="query-params", on_change="rerun")
    shown_chart: Any = None
    if tab_grid.open is not False:
        with tab_grid:
            chart = charts_nk.heatmap(
                df,
                COLOR_BY[color_by],
                budget,
                best[budget].k if budget in best else None,
                chosen,
                f"{label}: how repeatable is 'A beats B' for each budget and ratings per item (K)",
            )
            st.altair_chart(
                chart, width="stretch", on_select="rerun", selection_mode=charts_nk.CELL_SELECTION, key="bud_heat"
            )
            st.caption(
                "Each square is a split of the budget into items (N) = budget / K and ratings per item (K); darker = "
                "more repeatable. The orange frame is the budget chosen on the slider, the star its best K, the red ring "
                "the cell shown below. Click any square to see its details."
            )
            exports.download_table_and_chart(
                grid.cells_frame(cells), "nk_grid", chart, "nk_heatmap", table_label="Download every cell (CSV)"
            )
            shown_chart = chart
    if tab_plane.open:
        with tab_plane:
            point = (
                charts_plane.MinimalPoint(mb.budget, mb.budget // mb.k, mb.k)
                if mb.budget is not None and mb.k is not None and not everything_tied
                else None
            )
            plane = charts_plane.nk_plane(
                df,
                COLOR_BY[color_by],
                shown,
                f"{label}: items (N) x ratings per item (K); each dashed line is one budget N x K",
                chosen=chosen,
                minimal=point,
            )
            st.altair_chart(plane, width="stretch", key="bud_plane")
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
            shown_chart = plane
    if budget in best:
        pool = getattr(by_cell.get((budget, best[budget].k)), "n_qualifying", None)
        st.markdown(f"**Best K at this budget.** {md(sentences.best_k_sentence(best[budget], pool))}")
    if prior is not None and metric in ENGINE_METRICS:
        # any budget, not only the grid's: the engine needs no simulation for it
        any_budget = st.columns([1, 2])[0].number_input(
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
        if any_budget:
            bk = cache.compute_params(
                nk_exact.best_k_for_budget,
                alpha=prior.alpha,
                eps=float(eps),
                metric=metric,
                budget=int(any_budget),
                ks=ks,
            )
            st.markdown(f"**Best K at {int(any_budget):,} ratings.** {md(sentences.best_k_sentence(bk))}")
    note = sentences.extrapolation_note(mcells)
    if note:
        st.warning(md(note), icon=":material/warning:")

    # ------------------------------------------------------------------ the chosen cell
    cell = by_cell[chosen] if chosen else None
    if cell is not None:
        st.subheader(sentences.cell_heading(cell))
        if sentences.extrapolated(cell):
            st.warning(md(sentences.extrapolation_sentence(cell)), icon=":material/warning:")
        shares = sentences.gap_shares(cell.alt, cell.null)
        m = st.columns([1, 1, 1.35, 1, 1.35])  # the longer labels get room at 1024 px (a projector)
        m[0].metric("p-value", sentences.fmt_p(cell.p), help="The paper's rule: share of null gaps >= alternative gaps")
        m[1].metric(
            "A ahead in",
            f"{shares.ahead:.0%}",
            help="share of evaluations in which A is strictly ahead (a tie is not a win; ties are counted apart)",
        )
        m[2].metric(
            "Mean gap",
            sentences.fmt_gap(cell.delta),
            help="Delta in the paper: |mean of the score gap when A really is better|",
        )
        m[3].metric("CI-width", sentences.fmt_gap(cell.ci_width), help="width of the middle 95% of those gaps")
        if run_info is not None:
            sig = cell.significant_share
            m[4].metric("paired test agrees", "n/a" if sig != sig else f"{sig:.0%}", help=md(cell.test))
        else:
            m[4].metric("items (N)", f"{cell.n:,}")
        if exact_view:
            parts = [
                ("p", fmt_error(cell.p, cell.p_error, sentences.fmt_p)),
                ("mean gap", fmt_error(cell.delta, cell.delta_error, sentences.fmt_gap)),
                ("CI-width", fmt_error(cell.ci_width, cell.ci_width_error, sentences.fmt_gap)),
            ]
            how = METHOD_WORDS.get(cell.method, cell.method)
            if all(text.endswith("(exact)") or text.endswith("(exact to these digits)") for _, text in parts):
                words = f"p, the mean gap and the CI-width are exact to the digits shown ({how})."
            else:
                words = (
                    ", ".join(f"{name} {'' if text.startswith('<') else '= '}{text}" for name, text in parts)
                    + f" ({how}; +/- is one standard error)."
                )
            st.markdown("**How exact these numbers are:** " + md(words))
        if shares.all_tied:
            st.info(md(sentences.shares_sentence(shares, a_name, b_name)), icon=":material/info:")
        else:
            st.markdown(md(sentences.shares_sentence(shares, a_name, b_name)))
        if run_info is not None:
            st.markdown(md(sentences.resample_sentence(cell, model_a, model_b)))
        else:
            st.markdown(md(sentences.cell_sentence(cell)))

        # -------------------------------------------------------------- verify the engine with the simulation
        if exact_view:
            verify = st.toggle(
                "Verify this cell with simulation",
                key="bud_verify",
                bind="query-params",
                help=f"Simulates this cell {VERIFY_SEEDS} times (seeds seed, seed + 1, ...) the way the paper does "
                "and shows its numbers beside the engine's, with the simulation's Monte Carlo error (the spread of "
                "the seeds / sqrt(seeds)).",
            )
            if verify:
                v1, v2 = st.columns([2, 1])
                precision = v1.radio(
                    "Rounds per seed",
                    list(PRECISION),
                    index=1,
                    key="bud_prec",
                    bind="query-params",
                    horizontal=True,
                )
                seed = int(
                    v2.number_input(
                        "First seed",
                        min_value=0,
                        max_value=2**31 - 1,
                        value=0,
                        step=1,
                        key="bud_seed",
                        bind="query-params",
                    )
                )
                rounds = PRECISION[precision]
                runs: list[Any] = []
                for s in range(VERIFY_SEEDS):
                    step = f"Simulating budget {cell.budget:,}, K = {cell.k}: seed {s + 1} of {VERIFY_SEEDS}"
                    if prior is not None:
                        runs.extend(
                            c
                            for c in work.compute_with_progress(
                                grid.simulate_grid,
                                alpha=prior.alpha,
                                eps=float(eps),
                                budgets=(cell.budget,),
                                ks=(cell.k,),
                                metrics=(metric,),
                                rounds=rounds,
                                seed=seed + s,
                                progress_label=step,
                            )
                            if c.metric == metric
                        )
                    else:
                        sim_run = work.compute_with_progress(
                            frames.resample_frames,
                            rds,
                            pds,
                            model_a=model_a,
                            model_b=model_b,
                            budgets=(cell.budget,),
                            ks=(cell.k,),
                            metrics=(metric,),
                            rounds=rounds,
                            seed=seed + s,
                            progress_label=step,
                        )
                        runs.extend(c for c in sim_run.cells if c.metric == metric)
                rows = []
                worst = 0.0
                for what, engine_value, engine_error, sims, fmt in (
                    ("p-value", cell.p, cell.p_error, [c.p for c in runs], sentences.fmt_p),
                    ("Mean gap (Delta)", cell.delta, cell.delta_error, [c.delta for c in runs], sentences.fmt_gap),
                    ("CI-width", cell.ci_width, cell.ci_width_error, [c.ci_width for c in runs], sentences.fmt_gap),
                    ("A ahead in", shares.ahead, math.nan, [sentences.gap_shares(c.alt).ahead for c in runs], None),
                ):
                    mean, se = seed_summary(sims)
                    spread = math.sqrt(se**2 + (engine_error if math.isfinite(engine_error) else 0.0) ** 2)
                    diff = mean - engine_value
                    z = 0.0 if abs(diff) <= 1e-12 else (diff / spread if spread > 0 else math.inf)
                    if what != "CI-width" or rounds >= 1000:  # few rounds narrow the simulation's CI-width
                        worst = max(worst, abs(z))
                    if fmt is None:  # a share: in percent, its error in percentage points
                        engine_text = f"{engine_value:.1%}"
                        sim_text = f"{mean:.1%}" + (f" (+/- {100 * se:.1g} points)" if math.isfinite(se) else "")
                    else:
                        engine_text = fmt_error(engine_value, engine_error, fmt)
                        sim_text = fmt_error(mean, se, fmt)
                    rows.append(
                        {
                            "number": what,
                            "engine": engine_text,
                            f"simulation ({VERIFY_SEEDS} seeds x {rounds:,} rounds)": sim_text,
                            "difference in std. errors": "0" if z == 0 else f"{z:+.1f}",
                        }
                    )
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
                st.markdown(
                    f"**The simulation agrees with the engine:** every difference is within {worst:.1f} standard "
                    f"errors of the simulation's own noise (below {AGREE_Z:g} is agreement)."
                    if worst < AGREE_Z
                    else f"**The simulation and the engine differ** by up to {worst:.1f} standard errors: "
                    "more than the simulation's noise explains. Quote the simulation's numbers for this cell."
                )
                st.caption(
                    "+/- after a simulated number: its Monte Carlo standard error, the spread of the seeds divided "
                    f"by the square root of {VERIFY_SEEDS}. +/- after an engine number: its own standard error (0 "
                    "where it is exact). Difference in std. errors: (simulation - engine) / both errors combined."
                    + (
                        f" At {rounds:,} rounds the simulation's CI-width runs narrow (the 2.5% and 97.5% points of "
                        f"{rounds:,} samples fall inside the distribution's), so it is left out of the verdict; the "
                        "engine gives the limit of many rounds."
                        if rounds < 1000
                        else ""
                    )
                )
        real = run_info is not None
        # drawn only while open (a closed expander's chart would cost a redraw for nothing); open or not is in the link
        gaps_box = st.expander(
            "Score gaps of this cell (chart)", key="bud_gaps", on_change="rerun", bind="query-params"
        )
        if gaps_box.open:
            with gaps_box:
                dist = charts_nk.gap_distributions(
                    cell.alt,
                    cell.null,
                    label,
                    (
                        "Score gap over resampled evaluations of the real data"
                        if real
                        else "Score gap in repeated evaluations"
                    ),
                    ("real predictions", "predictions swapped at random (null)") if real else None,
                )
                st.altair_chart(dist, width="stretch")
                st.caption(
                    (
                        "Blue: gaps when the real data is resampled; grey: the same with each item's two predictions "
                        "swapped by a coin (no real difference)."
                        if real
                        else "Blue: gaps from evaluations where A really is better; grey: where there is no difference."
                    )
                    + " The less they overlap, the smaller the p-value: one evaluation of this size can tell A from B."
                    + (" The engine draws each distribution as 1,000 evenly spaced quantiles." if exact_view else "")
                    + (f" {md(sentences.kl_jump_sentence(cell.n))}" if metric == "kl" else "")
                )
                exports.download_chart(
                    dist,
                    "nk_gap_distribution",
                    explains="Blue: gaps when A really is better (or the real data); grey: no difference (null).",
                )

    # ------------------------------------------------------------------ method notes and secondary tables
    with st.expander("How these numbers are computed"):
        if prior is not None:
            alpha_txt = ", ".join(f"{a:.3g}" for a in prior.alpha)
            st.caption(
                f"Prior (alpha) **{md(prior.name)}**: {md(f'[{alpha_txt}]')}, M = {prior.m} labels, item agreement "
                f"alpha0 = sum(alpha) = {prior.alpha0:.3g} (small: items differ a lot; large: items alike). Model A "
                f"answers like the raters; model B is pulled towards noise by eps = {eps}."
            )
        if exact_view:
            st.caption(
                "Every metric is a mean over items of a per-item score gap, and items are independent, so the gap of "
                "an evaluation with N items is the mean of N draws from one per-item law. The engine works that law "
                "out for each K and gets every N from it (exact convolution, or a checked approximation for large "
                "N): the numbers are the paper's in the limit of infinitely many simulated rounds. Each number "
                "carries its own error (+/-); 'Verify this cell with simulation' runs the paper's simulation beside it."
            )
        else:
            st.caption(
                f"Each cell: {rounds:,} simulated evaluations with A really better and {rounds:,} with no difference. "
                f"{md(sentences.precision_sentence(rounds))}"
            )
        if run_info is not None:
            probs = "their probabilities" if run_info.uses_probabilities else "their hard labels (one-hot)"
            sk = run_info.skipped_k
            skipped = f" K = {sk[0]} to {sk[-1]} left out: no item has that many ratings." if sk else ""
            st.caption(
                f"Resampling {run_info.n_items:,} items that have ratings and both predictions; distribution metrics "
                f"use {probs}. Each round draws items (N) with replacement and K of each item's ratings without "
                f"replacement; the null swaps the two models' predictions on each item by a fair coin.{skipped}"
            )
        if fitted is not None:
            st.caption(
                f"Fitted to {fitted.n_items:,} items ({fitted.ratings_per_item[1]:.0f} ratings per item (K) typical) "
                f"over labels {md(', '.join(fitted.labels))}."
            )
        if metric == "kl":
            st.info(md(sentences.kl_artifact_sentence()))
    if fitted is not None:
        comparisons = cache.compute(frames.preset_comparisons, rds)
        with st.expander("Where this prior comes from, how well it fits, and why the paper's preset differs"):
            st.markdown(md(sentences.fit_source_sentence(fitted, comparisons, rds.name)))
        for w in fitted.fit.warnings:
            st.warning(f"Fit warning: {md(w)}. The numbers may not describe this data well; try 'Resample'.")

    mins = grid.minimal_budgets(cells, [m for m in nkm.ALL_METRICS if any(c.metric == m for c in cells)])
    with st.expander("Minimal budget for every metric"):
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
            f"The smallest budget on the grid (up to {max_budget:,}) at which some ratings per item (K) reaches "
            f"p < 0.05, and that K; 'never' = not within the grid. {md(sentences.kl_artifact_short())}"
            + ("" if exact_view else f" {md(sentences.precision_sentence(rounds))}")
        )
    with st.expander("The paper's claims, checked on these numbers"):
        if prior is not None:
            st.markdown(md(sentences.claims_basis_sentence(prior.name, prior.alpha0, fitted is not None)))
        for cl in sentences.claims_check(cells):
            mark = (
                ":green[**holds**]" if cl.holds else (":red[**does not hold**]" if cl.holds is False else "undecided")
            )
            st.markdown(f"- {md(cl.claim)} {mark}. {md(cl.evidence)}")

    # ------------------------------------------------------------------ summary
    numbers = [(f"answer: {label}", "-" if mb.budget is None else f"{mb.budget:,}", verdict)]
    numbers += [
        (
            metric_name(x.metric),
            "-" if x.budget is None else f"{x.budget:,}",
            sentences.minimal_budget_sentence(x),
        )
        for x in mins
    ]
    if cell is not None:
        numbers.insert(
            1,
            (
                f"cell {cell.budget:,} / K {cell.k}",
                f"p = {sentences.fmt_p(cell.p)}",
                sentences.cell_sentence(cell)
                if run_info is None
                else sentences.resample_sentence(cell, model_a, model_b),
            ),
        )
    params: dict[str, Any] = {"source": source, "metric": label, "K": ks_text}
    if prior is not None:
        params["eps"] = eps
        params["prior (alpha)"] = f"{prior.name}: {list(prior.alpha)}"
    if exact_view:
        params["method"] = "instant engine (exact, no seed)"
    else:
        params.update({"rounds": rounds, "seed": seed})
    exports.summary_download("Budget (N x K)", params, numbers, [shown_chart] if shown_chart is not None else [])

page.finish_page()
