"""Budget page: spend the ratings where the raters disagree (adaptive allocation), and raters who are not alike.

The chosen cell's budget and ratings per item (K) spread three ways (``nkcore.nk.adaptive``: fixed K, a second
round by the plurality's margin, one rating at a time until the plurality is clear), with the same numbers and the
same words as the cell above; on a prior, raters of two kinds (some answer at random) with and without weighting
them down. Every number here is the CLI's (``nk ... --adaptive POLICY``, the command is shown), computed through
``ui.common.progress`` (cached, with a progress bar). Widgets keep their keys and link parameters (``bud_ad_*``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.nk import adaptive, adaptive_resample, adaptive_sentences, grid, number_words, sentences
from ui.budget.compute import Cell, Grid
from ui.budget.controls import PRECISION, Choices
from ui.common import cache, progress
from ui.common.text import md

MAX_COMPARE_BUDGET = 2_500
"""Budgets up to this are compared across (larger ones cost the page too much simulation)."""
POOR_SHARES = [0.0, 0.1, 0.2, 0.3]
CONTESTED = [0.1, 0.2, 0.3, 0.5]
FIRST = [0.25, 0.5, 0.75]
INTRO = (
    "*Forest vs Tree* gives every item the same number of ratings (K). Here the same budget is spent "
    "differently: every item gets a **first round** of ratings, and the rest go to the items where the raters "
    "disagree (the plurality's lead is small). **Margin**: one second round for the most contested items. "
    "**Sequential**: one more rating at a time to each item whose plurality is not yet clear (a lead of 2 ratings), "
    "at most 3 x K per item; ratings not needed are not spent."
)


AdaptiveResult = adaptive.AdaptiveCell | adaptive_resample.AdaptiveResampleCell
"""One policy's cell: the prior simulated, or the real data resampled."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The section's controls: the first round's share, the contested share, rounds and seed; ``poor`` and
    ``weighted`` (raters who answer at random, weighted down or not) on a prior only."""

    first: float
    contested: float
    rounds: int
    seed: int
    poor: float = 0.0
    weighted: bool = False
    shares: tuple[float, ...] = ()
    qualities: tuple[float, ...] = ()


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _cells(ch: Choices, policy: str, budgets: tuple[int, ...], k: int, settings: Settings) -> Sequence[AdaptiveResult]:
    """One policy's cells at ratings per item (K) = ``k`` on ``budgets``: the prior simulated or the data resampled."""
    params = {
        "budgets": budgets,
        "ks": (k,),
        "policy": policy,
        "first_share": settings.first,
        "contested": settings.contested,
        "metrics": (ch.metric,),
        "rounds": settings.rounds,
        "seed": settings.seed,
    }
    label = f"Simulating the {policy} policy"
    if ch.prior is not None:
        return progress.compute_with_progress(
            adaptive.policy_grid,
            prior=ch.prior.concentration,
            eps=ch.eps,
            progress_label=label,
            poor_share=settings.poor,
            weighted=settings.weighted,
            **({"shares": settings.shares, "qualities": settings.qualities} if settings.shares else {}),
            **params,
        )
    return progress.compute_with_progress(
        adaptive_resample.policy_grid_frames,
        *ch.data,
        model_a=ch.model_a,
        model_b=ch.model_b,
        progress_label=label,
        **params,
    )


def _row(what: str, c: Cell | AdaptiveResult, real: bool) -> dict[str, str]:
    mean = getattr(c, "mean_ratings_per_item", float(c.k))
    most = getattr(c, "max_ratings_per_item", int(c.k))
    return {  # the verdict first: on a narrow screen the table scrolls sideways
        "how the ratings are spread": what,
        "p-value": sentences.fmt_p(c.p),
        "p < 0.05?": "yes" if c.p < 0.05 else "no",
        "same winner as all the data" if real else "A ahead in": _repro(c),
        "Mean gap": sentences.fmt_gap(c.delta),
        "CI-width": sentences.fmt_gap(c.ci_width),
        "items (N)": f"{c.n:,}",
        "ratings per item (mean / most)": f"{mean:.1f} / {most}",
    }


def _policy_words(policy: str, c: AdaptiveResult, s: Settings) -> str:
    """A policy's row name: what it did with this cell's budget."""
    if policy == "margin":
        return f"margin: {c.first_stage_k} first, the rest to the {s.contested:.0%} most contested"
    return f"sequential: {c.first_stage_k} first, then until a lead of 2"


def _repro(c: Cell | AdaptiveResult) -> str:
    """The share with its standard error beside it ('0.77 ± 0.02': the simulation's Monte Carlo error, or the
    engine's)."""
    r = c.reproducibility
    return "n/a" if r != r else number_words.fmt_share_error(r, getattr(c, "reproducibility_error", float("nan")))


def _command(ch: Choices, cell: Cell, policy: str, s: Settings) -> str:
    if ch.prior is None:
        src = f"--ratings RATINGS --predictions PREDICTIONS --models {ch.model_a},{ch.model_b}"
    elif ch.prior.name in _preset_names():
        src = f"--prior {ch.prior.name}"
    else:
        src = "--alpha " + ",".join(f"{a:g}" for a in ch.prior.concentration)
    eps = "" if ch.prior is None else f" --eps {ch.eps:g}"
    return (
        f"python -m nkcore nk {src}{eps} --budget {cell.budget} --k {cell.k} --metric {ch.metric} "
        f"--adaptive {policy} --first-share {s.first:g} --contested {s.contested:g} "
        f"--rounds {s.rounds} --seed {s.seed} --json"
    )


def _preset_names() -> tuple[str, ...]:
    from nkcore.nk.priors import preset_names

    return tuple(preset_names())


def draw_adaptive(ch: Choices, g: Grid, cell: Cell) -> None:
    """The section, closed by default (its state is in the link): the chosen cell spread three ways, the budgets
    compared at this K, and (on a prior) raters who are not alike."""
    box = st.expander(
        "More ratings where the raters disagree (adaptive allocation)",
        key="bud_adaptive",
        on_change="rerun",
        bind="query-params",
    )
    if not box.open:
        return
    with box:
        st.markdown(INTRO)
        c1, c2, c3, c4 = st.columns([2, 2, 3, 1])
        first = c1.select_slider(
            "First round: share of K",
            FIRST,
            value=0.5,
            format_func=_pct,
            key="bud_ad_first",
            bind="query-params",
            help="Every item first gets this share of the ratings per item (K), at least 1 rating.",
        )
        contested = c2.select_slider(
            "Margin: items that get the rest",
            CONTESTED,
            value=0.2,
            format_func=_pct,
            key="bud_ad_contested",
            bind="query-params",
            help="The most contested items (smallest lead of the top label after the first round) share the rest.",
        )
        precision = c3.radio(
            "Rounds", list(PRECISION), index=0, key="bud_ad_prec", bind="query-params", horizontal=False
        )
        seed = int(c4.number_input("Seed", 0, 2**31 - 1, 0, 1, key="bud_ad_seed", bind="query-params"))
        s = Settings(first, contested, PRECISION[precision], seed)
        rows = [_row(f"fixed: {cell.k} on every item (the cell above)", cell, ch.real)]
        found: dict[str, AdaptiveResult] = {}
        for policy in ("margin", "sequential"):
            got = _cells(ch, policy, (cell.budget,), cell.k, s)
            if got:
                found[policy] = got[0]
                rows.append(_row(_policy_words(policy, got[0], s), got[0], ch.real))
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        for policy, c in found.items():
            st.markdown(f"**{policy.capitalize()}:** " + md(adaptive_sentences.adaptive_cell_sentence(c)))
        st.caption(
            "Margin and sequential are simulated (or resampled from the data) with the rounds and seed above; the "
            "fixed row is the cell above. The same numbers from the command line:"
        )
        st.code("\n".join(_command(ch, cell, p, s) for p in found), language="bash")
        _recommend(ch, cell, s)
        _compare(ch, g, cell, s)
        if ch.prior is not None:
            _raters(ch, g, cell, s)


def _recommend(ch: Choices, cell: Cell, s: Settings) -> None:
    """The recommendation at this budget: every fixed K of the grid and K = 1 against margin and sequential at
    every K (``policies.recommend``); adaptive only where it beats the best fixed K by more than twice the Monte
    Carlo error (issue 53: fixed K = 1, left out before, beat every adaptive policy on Jobs Q1 and ChaosNLI SNLI)."""
    ks = tuple(sorted({1, *(int(k) for k in ch.ks if int(k) <= cell.budget // 2)}))
    params = {
        "budget": int(cell.budget),
        "ks": ks,
        "metric": ch.metric,
        "first_share": s.first,
        "contested": s.contested,
        "rounds": s.rounds,
        "seed": s.seed,
    }
    label = "Comparing every fixed K with the adaptive policies"
    try:
        if ch.prior is not None:
            rec = progress.compute_with_progress(
                adaptive.recommend_prior, prior=ch.prior.concentration, eps=ch.eps, progress_label=label, **params
            )
        else:
            rec = progress.compute_with_progress(
                adaptive_resample.recommend_frames,
                *ch.data,
                model_a=ch.model_a,
                model_b=ch.model_b,
                progress_label=label,
                **params,
            )
    except DataError as exc:
        st.caption(md(str(exc)))
        return
    st.markdown("**Recommendation at this budget:** " + md(adaptive_sentences.recommendation_sentence(rec)))


def _compare(ch: Choices, g: Grid, cell: Cell, s: Settings) -> None:
    """The budgets of the grid (up to MAX_COMPARE_BUDGET) at this K: where does 'A beats B' become repeatable?"""
    budgets = tuple(b for b in ch.budgets if cell.k <= b <= MAX_COMPARE_BUDGET)
    if len(budgets) < 2:
        return
    fixed = [c for c in g.mcells if c.k == cell.k and c.budget in budgets]
    best: list[AdaptiveResult] = []
    for b in budgets:
        options = [c for p in ("margin", "sequential") for c in _cells(ch, p, (b,), cell.k, s)]
        if options:
            best.append(min(options, key=lambda c: c.p))
    st.markdown(
        f"**Across budgets ({budgets[0]:,} to {budgets[-1]:,} ratings), {cell.k} ratings per item on average:** "
        + md(adaptive_sentences.policy_comparison_sentence(best, fixed, ch.metric))
    )


def _raters(ch: Choices, g: Grid, cell: Cell, s: Settings) -> None:
    """Raters who are not alike (a prior only): a share answers at random; the plurality of all ratings, and the
    ratings weighted by their raters' quality (what Dawid-Skene estimates on real ratings: the Data page). A prior
    fitted to ratings with rater ids: the raters' population fitted to them (``_fitted_raters``) instead, and the
    typed share only when those raters look alike."""
    st.markdown("**Raters who are not alike.** The paper assumes every rater is as good as every other.")
    if ch.rds is not None and "rater" in ch.rds.frame.columns and _fitted_raters(ch, cell, s):
        return
    poor = st.select_slider(
        "Share of ratings from raters who answer at random",
        POOR_SHARES,
        value=0.0,
        format_func=_pct,
        key="bud_ad_poor",
        bind="query-params",
        help="The Data page's 'Who rated' section estimates each rater's quality (Dawid-Skene) from real ratings.",
    )
    if poor <= 0:
        return
    rows = [_row(f"fixed: {cell.k} each, raters alike (the cell above)", cell, False)]
    got = {}
    for weighted in (False, True):
        c = _cells(ch, "fixed", (cell.budget,), cell.k, replace(s, poor=poor, weighted=weighted))[0]
        got[weighted] = c
        what = "weighted down" if weighted else "counted like the others"
        rows.append(_row(f"fixed: {cell.k} each, {poor:.0%} of them random, {what}", c, False))
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    budgets = tuple(b for b in ch.budgets if cell.k <= b <= MAX_COMPARE_BUDGET)
    before = grid.minimal_budgets(
        [c for b in budgets for c in _cells(ch, "fixed", (b,), cell.k, replace(s, poor=poor))], [ch.metric]
    )[0]
    after = grid.minimal_budgets(
        [c for b in budgets for c in _cells(ch, "fixed", (b,), cell.k, replace(s, poor=poor, weighted=True))],
        [ch.metric],
    )[0]
    st.markdown(
        f"**At {cell.k} ratings per item, budgets {budgets[0]:,} to {budgets[-1]:,}:** "
        + md(
            adaptive_sentences.minimal_budget_shift_sentence(
                f"with {poor:.0%} of the ratings from raters who answer at random, weighting them down", before, after
            )
        )
    )


FITTED_KS = 6
"""At most this many ratings per item (K) of the grid are simulated for the fitted raters (the cost of the page)."""


def _shift_ks(ks: Sequence[int], k: int) -> tuple[int, ...]:
    """The grid's K values, at most ``FITTED_KS`` of them (evenly spread, the chosen cell's K kept)."""
    ks = sorted(set(int(x) for x in ks))
    if len(ks) > FITTED_KS:
        picks = {ks[round(i * (len(ks) - 1) / (FITTED_KS - 2))] for i in range(FITTED_KS - 1)}
        ks = sorted(picks | {int(k)})
    return tuple(ks)


def _fitted_raters(ch: Choices, cell: Cell, s: Settings) -> bool:
    """The raters of the ratings the prior was fitted to (``nkcore.ratings.population``): their classes and, when
    some are below the others, the cell with them counted like the others and weighted down, and how the minimal
    budget and best K move (``nkcore.nk.adaptive.population_shift``, the command shown). False when the raters
    look alike or cannot be fitted: the typed share follows."""
    from nkcore.ratings import population

    assert ch.rds is not None and ch.prior is not None
    try:
        pop = cache.compute(population.population_frame, ch.rds)
    except DataError as exc:
        st.caption(md(f"The raters' quality could not be fitted: {exc}"))
        return False
    st.markdown(md(population.population_sentence(pop)))
    if pop.alike:
        st.caption("To see what poorer raters would do, choose a share of random ratings:")
        return False
    fit = replace(s, shares=pop.shares, qualities=pop.mix_qualities)
    rows = [_row(f"fixed: {cell.k} each, raters alike (the cell above)", cell, False)]
    for weighted in (False, True):
        c = _cells(ch, "fixed", (cell.budget,), cell.k, replace(fit, weighted=weighted))[0]
        what = "weighted by quality" if weighted else "counted like the others"
        rows.append(_row(f"fixed: {cell.k} each, these raters, {what}", c, False))
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    classes = "; ".join(
        f"{c.name}: {c.n_raters:,} raters, {c.share:.0%} of the ratings, {c.quality:.0%} informative"
        for c in pop.classes
    )
    st.caption(md(f"The simulated raters, fitted to the data (one-coin Dawid-Skene): {classes}."))
    budgets = tuple(b for b in ch.budgets if b <= MAX_COMPARE_BUDGET)
    ks = _shift_ks(ch.ks, cell.k)
    if len(budgets) < 2:
        return True
    shift = progress.compute_with_progress(
        adaptive.population_shift,
        prior=ch.prior.concentration,
        eps=ch.eps,
        budgets=budgets,
        ks=ks,
        shares=pop.shares,
        qualities=pop.mix_qualities,
        metrics=(ch.metric,),
        rounds=s.rounds,
        seed=s.seed,
        progress_label="Simulating the fitted raters",
    )[0]
    st.markdown(
        f"**Budgets {budgets[0]:,} to {budgets[-1]:,}, ratings per item (K) {', '.join(map(str, ks))}:** "
        + md(adaptive_sentences.population_shift_sentence(shift))
    )
    best = pd.DataFrame(
        {
            "budget": [f"{b.budget:,}" for b in shift.best_alike],
            "best K, raters alike": [b.k for b in shift.best_alike],
            "best K, these raters": [b.k for b in shift.best_unweighted],
            "best K, weighted by quality": [b.k for b in shift.best_weighted],
        }
    )
    st.dataframe(best, hide_index=True, width="stretch")
    st.caption(
        "Simulated with K ratings per item on every item, the rounds and seed above (the same seeds for the three). "
        "The prior was fitted to all the ratings, the poorer raters' included. The same numbers from the command line:"
    )
    st.code(
        f"python -m nkcore raters --ratings RATINGS --population --shift --eps {ch.eps:g} "
        f"--budgets {','.join(map(str, budgets))} --ks {','.join(map(str, ks))} --metric {ch.metric} "
        f"--rounds {s.rounds} --seed {s.seed} --json",
        language="bash",
    )
    return True
