"""Budget (N x K): how many items (N) and ratings per item (K) make 'model A beats model B' reproducible."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.nk import frames, grid, priors, sentences
from nkcore.nk import metrics as nkm
from ui import cache, charts_nk, datasets, exports, page, work
from ui.text import md

# A click on the heatmap (last run's selection) goes into the link first, so the link always names the shown cell.
_picked = (st.session_state.get("bud_heat") or {}).get("selection", {}).get(charts_nk.CELL_SELECTION) or []
if _picked and {"budget", "k"} <= set(_picked[0]):
    st.query_params["bud_cell"] = f"{int(_picked[0]['budget'])}x{int(_picked[0]['k'])}"

# The metric selectbox keeps its label in the link; a link may also name the metric as the CLI does (?bud_metric=kl).
_raw_metric = st.query_params.get("bud_metric")
if _raw_metric in nkm.METRICS:
    st.query_params["bud_metric"] = sentences.metric_label(_raw_metric)
    st.rerun()  # the bound selectbox reads its link value when a run starts

page.setup_page(
    "Budget (N x K)",
    "How reproducibly does 'model A beats model B' hold when a budget of N x K ratings is split into items (N) and "
    "ratings per item (K)? Pick a prior (alpha) or your data; the heatmap shows where the comparison becomes "
    "reliable (p < 0.05, the method of *Forest vs Tree*, AAAI-26).",
)

SOURCES = ["Preset prior", "Prior fitted to ratings", "Resample ratings + predictions"]
PRECISION = {"Quick preview (200 rounds)": 200, "Full precision (1,000 rounds, as the paper)": 1000}
COLOR_BY = {"p-value": "p", "Reproducibility": "reproducibility"}
CUSTOM = "custom alpha (type it)"

with page.user_errors():
    c1, c2, c3 = st.columns([1.2, 1, 1])
    source = c1.radio("Where the numbers come from", SOURCES, key="bud_src", bind="query-params")
    metric = c2.selectbox(
        "Metric",
        nkm.ALL_METRICS,
        format_func=sentences.metric_label,
        key="bud_metric",
        bind="query-params",
        help="The paper's four: Accuracy, TV, Wins, KL. Beside them: smoothed KL, Jensen-Shannon, cross-entropy, F1.",
    )
    color_by = c3.radio("Colour the cells by", list(COLOR_BY), horizontal=True, key="bud_color", bind="query-params")

    # ------------------------------------------------------------------ the source of the numbers
    fitted = run_info = None
    prior: priors.Prior | None
    eps = 0.3
    s1, s2 = st.columns([1.2, 2])
    if source == "Preset prior":
        name = s1.selectbox("Prior (alpha)", [*priors.preset_names(), CUSTOM], key="bud_prior", bind="query-params")
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
            "eps: how much worse model B is (pulled towards noise)",
            min_value=0.0,
            max_value=1.0,
            value=0.3,
            step=0.01,
            key="bud_eps",
            bind="query-params",
            help="0 = B is as good as A; 1 = B answers pure noise. The paper's tables use 0.3.",
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
    p1, p2 = s2.columns([2, 1])
    precision = p1.radio("Rounds", list(PRECISION), key="bud_prec", bind="query-params")
    seed = p2.number_input(
        "Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="bud_seed", bind="query-params"
    )
    ks = grid.parse_int_list(ks_text, "ratings per item (K)")
    rounds = PRECISION[precision]
    budgets = [b for b in grid.PAPER_BUDGETS if b <= max_budget]

    # ------------------------------------------------------------------ compute, one budget row at a time
    # Each row is its own cached computation (changing the largest budget reuses the rows already done); a simulated
    # row runs through ui.work (progress bar, Cancel, one computation per key across viewers). A row over the
    # server's work limit is left out and said, instead of losing the rows that fit.
    cells: list = []
    refused: list[tuple[int, str]] = []
    bar = st.progress(0.0, text="Computing the grid…") if prior is None else None
    for i, b in enumerate(budgets):
        try:
            if prior is None:
                run_info = cache.compute(
                    frames.resample_frames,
                    rds,
                    pds,
                    model_a=model_a,
                    model_b=model_b,
                    budgets=(b,),
                    ks=ks,
                    metrics=nkm.ALL_METRICS,
                    rounds=rounds,
                    seed=int(seed),
                )
                cells.extend(run_info.cells)
            else:
                cells.extend(
                    work.compute_with_progress(
                        grid.simulate_grid,
                        alpha=prior.alpha,
                        eps=float(eps),
                        budgets=(b,),
                        ks=ks,
                        metrics=nkm.ALL_METRICS,
                        rounds=rounds,
                        seed=int(seed),
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

    # ------------------------------------------------------------------ what the prior or data is
    if prior is not None:
        alpha_txt = ", ".join(f"{a:.3g}" for a in prior.alpha)
        st.caption(
            f"Prior (alpha) **{md(prior.name)}**: {md(f'[{alpha_txt}]')}, M = {prior.m} labels, alpha0 = {prior.alpha0:.3g} "
            f"(small alpha0: items differ a lot; large: items alike). Model A answers like the raters; model B is "
            f"pulled towards noise by eps = {eps}. Each cell: {rounds:,} simulated evaluations with A really better "
            f"and {rounds:,} with no difference."
        )
    if fitted is not None:
        f = fitted.fit
        comparisons = cache.compute(frames.preset_comparisons, rds)
        st.caption(
            f"Fitted to {fitted.n_items:,} items ({fitted.ratings_per_item[1]:.0f} ratings per item (K) typical) over "
            f"labels {md(', '.join(fitted.labels))}."
        )
        st.markdown(md(sentences.fit_source_sentence(fitted, comparisons, rds.name)))
        for w in f.warnings:
            st.warning(f"Fit warning: {md(w)}. The simulation may not describe this data well; try 'Resample'.")
    if run_info is not None:
        probs = "their probabilities" if run_info.uses_probabilities else "their hard labels (one-hot)"
        sk = run_info.skipped_k
        skipped = f" K = {sk[0]} to {sk[-1]} left out: no item has that many ratings." if sk else ""
        st.caption(
            f"Resampling {run_info.n_items:,} items that have ratings and both predictions; distribution metrics use "
            f"{probs}. Each round draws items (N) with replacement and K of each item's ratings without replacement; "
            f"the null swaps the two models' predictions on each item by a fair coin.{skipped}"
        )
    if metric == "kl":
        st.info(md(sentences.kl_artifact_sentence()))

    # ------------------------------------------------------------------ the heatmap and the budget slider
    shown = [b for b in budgets if any(c.budget == b for c in mcells)]
    budget = int(
        st.select_slider(
            "Budget (N x K ratings): highlight a row and name its best K",
            options=shown,
            value=1000 if 1000 in shown else shown[-1],
            key="bud_budget",
            bind="query-params",
        )
    )
    best = {bk.budget: bk for bk in grid.best_k(mcells, metric)}
    by_cell = {(c.budget, c.k): c for c in mcells}
    raw = st.query_params.get("bud_cell", "")
    chosen = tuple(int(v) for v in raw.split("x")) if raw.count("x") == 1 and raw.replace("x", "").isdigit() else None
    if chosen not in by_cell:
        chosen = (budget, best[budget].k) if budget in best else None
    df = grid.cells_frame(mcells)
    df["extrapolated"] = [sentences.extrapolated(c) for c in mcells]
    # the colour and tooltip say "A ahead in": strictly ahead (a real-data cell's reproducibility is the share of
    # rounds in the full data's direction, which counts ties when the full data has no difference)
    df["reproducibility"] = [sentences.gap_shares(c.alt).ahead for c in mcells]
    label = sentences.metric_label(metric)
    chart = charts_nk.heatmap(
        df,
        COLOR_BY[color_by],
        budget,
        best[budget].k if budget in best else None,
        chosen,
        f"{label}: how repeatable is 'A beats B' for each budget and ratings per item (K)",
    )
    st.altair_chart(chart, width="stretch", on_select="rerun", selection_mode=charts_nk.CELL_SELECTION, key="bud_heat")
    st.caption(
        "Each square is a split of the budget into items (N) = budget / K and ratings per item (K). Darker = more "
        "repeatable. Black outline: p < 0.05 ('reasonably repeatable'). Orange frame: the budget chosen on the "
        "slider; star: its best K. Red ring: the cell shown below. x: extrapolation (more items than the data has). "
        "Click any square to see its details."
    )
    exports.download_table_and_chart(
        grid.cells_frame(cells), "nk_grid", chart, "nk_heatmap", table_label="Download every cell (CSV)"
    )
    note = sentences.extrapolation_note(mcells)
    if note:
        st.warning(md(note), icon=":material/warning:")
    if budget in best:
        pool = getattr(by_cell.get((budget, best[budget].k)), "n_qualifying", None)
        st.markdown(f"**Best K at this budget.** {md(sentences.best_k_sentence(best[budget], pool))}")

    # ------------------------------------------------------------------ the chosen cell
    cell = by_cell[chosen] if chosen else None
    if cell is not None:
        st.subheader(sentences.cell_heading(cell))
        if sentences.extrapolated(cell):
            st.warning(md(sentences.extrapolation_sentence(cell)), icon=":material/warning:")
        shares = sentences.gap_shares(cell.alt, cell.null)
        m = st.columns(5)
        m[0].metric("p-value", sentences.fmt_p(cell.p), help="The paper's rule: share of null gaps >= alternative gaps")
        m[1].metric(
            "A ahead in",
            f"{shares.ahead:.0%}",
            help="share of evaluations in which A is strictly ahead (a tie is not a win; ties are counted apart)",
        )
        m[2].metric(
            "Delta (mean gap)", sentences.fmt_gap(cell.delta), help="|mean of the score gap when A really is better|"
        )
        m[3].metric("CI-width", sentences.fmt_gap(cell.ci_width), help="width of the middle 95% of those gaps")
        a_name, b_name = (model_a, model_b) if run_info is not None else ("A", "B")
        if shares.all_tied:
            st.info(md(sentences.shares_sentence(shares, a_name, b_name)), icon=":material/info:")
        else:
            st.markdown(md(sentences.shares_sentence(shares, a_name, b_name)))
        st.caption(
            "'A ahead in' counts how often the better model simply wins. The p-value asks more: could a gap of "
            "that size just as well come from two equally good models? Only when it could not (p < 0.05) is the "
            "comparison reproducible."
        )
        if run_info is not None:
            sig = cell.significant_share
            m[4].metric("paired test agrees", "n/a" if sig != sig else f"{sig:.0%}", help=md(cell.test))
            st.markdown(md(sentences.resample_sentence(cell, model_a, model_b)))
        else:
            m[4].metric("items (N)", f"{cell.n:,}")
            st.markdown(md(sentences.cell_sentence(cell)))
        real = run_info is not None
        dist = charts_nk.gap_distributions(
            cell.alt,
            cell.null,
            label,
            "Score gap over resampled evaluations of the real data" if real else "Score gap in simulated evaluations",
            ("real predictions", "predictions swapped at random (null)") if real else None,
        )
        st.altair_chart(dist, width="stretch")
        st.caption(
            (
                "Blue: gaps when the real data is resampled; grey: the same with each item's two predictions swapped "
                "by a coin (no real difference)."
                if real
                else "Blue: gaps from evaluations where A really is better; grey: where there is no difference."
            )
            + " The less they overlap, the smaller the p-value: one evaluation of this size can tell A from B."
            + (f" {md(sentences.kl_jump_sentence(cell.n))}" if metric == "kl" else "")
        )
        exports.download_chart(dist, "nk_gap_distribution")

    # ------------------------------------------------------------------ minimal budget and the paper's claims
    st.subheader("Minimal budget per metric")
    mins = grid.minimal_budgets(cells, nkm.ALL_METRICS)
    st.markdown(f"**In one line:** {md(sentences.headline_sentence(mins))}")
    table = pd.DataFrame(
        [
            {
                "metric": sentences.metric_label(mb.metric),
                "minimal budget (N x K)": "never" if mb.budget is None else f"{mb.budget:,}",
                "ratings per item (K)": "" if mb.k is None else str(mb.k),
                "items (N)": "" if mb.budget is None or mb.k is None else f"{mb.budget // mb.k:,}",
                "p-value": "" if mb.p is None else sentences.fmt_p(mb.p),
            }
            for mb in mins
        ]
    )
    exports.table(table, "nk_minimal_budget", hide_index=True, width="stretch")
    st.caption(
        f"The smallest budget (up to {max_budget:,}) at which some ratings per item (K) reaches p < 0.05, and that K; "
        f"'never' = not within the grid. {md(sentences.kl_artifact_short())} {md(sentences.precision_sentence(rounds))}"
    )
    st.subheader("The paper's claims, checked on these numbers")
    if prior is not None:
        st.markdown(md(sentences.claims_basis_sentence(prior.name, prior.alpha0, fitted is not None)))
    for cl in sentences.claims_check(cells):
        mark = ":green[**holds**]" if cl.holds else (":red[**does not hold**]" if cl.holds is False else "undecided")
        st.markdown(f"- {md(cl.claim)} {mark}. {md(cl.evidence)}")

    # ------------------------------------------------------------------ summary
    numbers = [
        (
            sentences.metric_label(mb.metric),
            "-" if mb.budget is None else f"{mb.budget:,}",
            sentences.minimal_budget_sentence(mb),
        )
        for mb in mins
    ]
    if cell is not None:
        numbers.insert(
            0,
            (
                f"cell {cell.budget:,} / K {cell.k}",
                f"p = {sentences.fmt_p(cell.p)}",
                sentences.cell_sentence(cell)
                if run_info is None
                else sentences.resample_sentence(cell, model_a, model_b),
            ),
        )
    params = {"source": source, "metric": label, "eps": eps, "rounds": rounds, "seed": int(seed), "K": ks_text}
    if prior is not None:
        params["prior (alpha)"] = f"{prior.name}: {list(prior.alpha)}"
    exports.summary_download("Budget (N x K)", params, numbers, [chart])

page.finish_page()
