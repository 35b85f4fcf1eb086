"""Budget page, one cell in detail: its numbers with their accuracy, its sentences, the check by simulation and
the chart of its score gaps."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from nkcore.nk import cell_words as cell_numbers
from nkcore.nk import grid, number_words, sentences
from nkcore.nk.metrics import METRICS
from ui import charts
from ui.budget.compute import Cell, Grid, simulated_cells
from ui.budget.controls import Choices, rounds_and_seed
from ui.charts import nk as charts_nk
from ui.common import exports, page
from ui.common.text import md

VERIFY_SEEDS = 10
"""The simulation that checks a cell runs this many seeds; their spread gives its Monte Carlo error."""
AGREE_Z = 4.0
"""Engine and simulation agree when every difference is within this many standard errors (with 10 seeds, a
t-distribution with 9 degrees of freedom exceeds 4 in 0.3% of checks)."""


def draw_cell(ch: Choices, g: Grid, cell: Cell) -> None:
    """The chosen cell: heading, five numbers, how exact they are, what they say, verify, the gap chart."""
    st.subheader(sentences.cell_heading(cell))
    if grid.extrapolated(cell):
        st.warning(md(sentences.extrapolation_sentence(cell)), icon=":material/warning:")
    shares = sentences.gap_shares(cell.alt, cell.null)
    # two rows of three: "< 0.001" and "paired test agrees" are cut in a fifth of the page at 1024 px (a projector)
    m = [*st.columns(3), *st.columns(3)]
    m[0].metric("p-value", sentences.fmt_p(cell.p), help="The paper's rule: share of null gaps >= alternative gaps")
    m[1].metric(
        "A ahead in",
        ahead_text(cell, shares.ahead),
        help="share of evaluations in which A is strictly ahead (a tie is not a win; ties are counted apart): "
        "0.77 means 77 in 100. The number after ± is its uncertainty (one standard error): the simulation's "
        "chance error over its rounds, or the engine's from the items it drew; 'exact' when there is none.",
    )
    m[2].metric(
        "Mean gap",
        sentences.fmt_gap(cell.delta),
        help="Delta in the paper: |mean of the score gap when A really is better|",
    )
    m[3].metric("CI-width", sentences.fmt_gap(cell.ci_width), help="width of the middle 95% of those gaps")
    if g.run_info is not None and cell.real is not None:  # real data: its cells are resampled
        sig = cell.significant_share
        m[4].metric("paired test agrees", "n/a" if sig != sig else f"{sig:.0%}", help=md(cell.test))
    else:
        m[4].metric("items (N)", f"{cell.n:,}")
    a, b = (ch.model_a, ch.model_b) if g.run_info is not None else ("model A", f"model B (eps {ch.eps:g})")
    st.caption(md(cell_numbers.numbers_sentence(cell, a, b)))  # each number in words: these models, metric, budget
    if g.exact_view:
        st.markdown("**How exact these numbers are:** " + md(accuracy_words(cell)))
    if shares.all_tied:
        st.info(md(sentences.shares_sentence(shares, ch.model_a, ch.model_b)), icon=":material/info:")
    else:
        st.markdown(md(sentences.shares_sentence(shares, ch.model_a, ch.model_b)))
    st.markdown(md(cell_words(ch, g, cell)))
    if g.exact_view:
        verify_section(ch, cell)
    gaps_section(ch, g, cell)


def cell_words(ch: Choices, g: Grid, cell: Cell) -> str:
    """What the cell says in one sentence (the real-data one names the two models)."""
    if g.run_info is not None:
        said = sentences.resample_sentence(cell, ch.model_a, ch.model_b)
        return f"{said} {cell_numbers.resample_p_phrase(cell, ch.model_a, ch.model_b)}."
    return sentences.cell_sentence(cell)


def ahead_text(cell: Cell, ahead: float) -> str:
    """The 'A ahead in' share with its standard error beside it ('0.77 ± 0.01'). The error is the cell's
    reproducibility's (A strictly ahead: the same share, but on real data, where the reproducibility counts the full
    data's winner; there the share is shown alone)."""
    if cell.real is not None:
        return number_words.fmt_share_error(ahead, math.nan)
    return number_words.fmt_share_error(cell.reproducibility, cell.reproducibility_error)


def accuracy_words(cell: Cell) -> str:
    """p, the mean gap, the CI-width and the reproducibility with their own errors, in one sentence."""
    parts = [
        ("p", sentences.fmt_error(cell.p, cell.p_error, sentences.fmt_p)),
        ("mean gap", sentences.fmt_error(cell.delta, cell.delta_error, sentences.fmt_gap)),
        ("CI-width", sentences.fmt_error(cell.ci_width, cell.ci_width_error, sentences.fmt_gap)),
        (
            "reproducibility",
            sentences.fmt_error(cell.reproducibility, cell.reproducibility_error, lambda x: f"{x:.3f}"),
        ),
    ]
    how = grid.method_words(cell.method)
    if all(sentences.is_exact_text(text) for _, text in parts):
        return f"p, the mean gap, the CI-width and the reproducibility are exact to the digits shown ({how})."
    return (
        ", ".join(f"{name} {'' if text.startswith('<') else '= '}{text}" for name, text in parts)
        + f" ({how}; +/- is one standard error)."
    )


def _simulate(ch: Choices, cell: Cell, rounds: int, seed: int) -> list[Cell]:
    runs: list[Cell] = []
    for s in range(VERIFY_SEEDS):
        step = f"Simulating budget {cell.budget:,}, K = {cell.k}: seed {s + 1} of {VERIFY_SEEDS}"
        found, _ = simulated_cells(ch, (cell.budget,), (cell.k,), (ch.metric,), rounds, seed + s, step)
        runs.extend(c for c in found if c.metric == ch.metric)
    return runs


@st.fragment
def verify_section(ch: Choices, cell: Cell) -> None:
    """'Verify this cell with simulation': the paper's simulation over several seeds beside the engine.

    A fragment: its toggle, rounds and seed change only the table drawn here (on the engine's view, where it is
    shown, no other section reads rounds or seed), so they rerun this section alone."""
    with page.user_errors():
        _verify_section(ch, cell)


def _verify_section(ch: Choices, cell: Cell) -> None:
    verify = st.toggle(
        "Verify this cell with simulation",
        key="bud_verify",
        bind="query-params",
        help=f"Simulates this cell {VERIFY_SEEDS} times (seeds seed, seed + 1, ...) the way the paper does "
        "and shows its numbers beside the engine's, with the simulation's Monte Carlo error (the spread of "
        "the seeds / sqrt(seeds)).",
    )
    if not verify:
        return
    rounds, seed = rounds_and_seed(None, "Rounds per seed", "First seed", index=1, horizontal=True)
    runs = _simulate(ch, cell, rounds, seed)
    rows = []
    worst = 0.0
    for what, engine_value, engine_error, sims, fmt in (
        ("p-value", cell.p, cell.p_error, [c.p for c in runs], sentences.fmt_p),
        ("Mean gap (Delta)", cell.delta, cell.delta_error, [c.delta for c in runs], sentences.fmt_gap),
        ("CI-width", cell.ci_width, cell.ci_width_error, [c.ci_width for c in runs], sentences.fmt_gap),
        (
            "A ahead in",
            cell.reproducibility,
            cell.reproducibility_error,
            [sentences.gap_shares(c.alt).ahead for c in runs],
            None,
        ),
    ):
        mean, se, z = sentences.agreement_z(engine_value, engine_error, sims)
        if what != "CI-width" or rounds >= 1000:  # few rounds narrow the simulation's CI-width
            worst = max(worst, abs(z))
        if fmt is None:  # a share: in percent, its error in percentage points
            engine_text = f"{engine_value:.1%}" + (
                f" (+/- {100 * engine_error:.1g} points)" if math.isfinite(engine_error) and engine_error > 0 else ""
            )
            sim_text = f"{mean:.1%}" + (f" (+/- {100 * se:.1g} points)" if math.isfinite(se) else "")
        else:
            engine_text = sentences.fmt_error(engine_value, engine_error, fmt)
            sim_text = sentences.fmt_error(mean, se, fmt)
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


def gaps_section(ch: Choices, g: Grid, cell: Cell) -> None:
    """The score gaps of the cell, drawn only while the expander is open (its state is in the link)."""
    real = g.run_info is not None
    gaps_box = st.expander("Score gaps of this cell (chart)", key="bud_gaps", on_change="rerun", bind="query-params")
    if not gaps_box.open:
        return
    with gaps_box:
        dist = charts_nk.gap_distributions(
            cell.alt,
            cell.null,
            ch.label,
            "Score gap over resampled evaluations of the real data" if real else "Score gap in repeated evaluations",
            ("real predictions", "predictions swapped at random (null)") if real else None,
        )
        charts.draw(dist)
        st.caption(
            (
                "Blue: gaps when the real data is resampled; grey: the same with each item's two predictions "
                "swapped by a coin (no real difference)."
                if real
                else "Blue: gaps from evaluations where A really is better; grey: where there is no difference."
            )
            + " The less they overlap, the smaller the p-value: one evaluation of this size can tell A from B."
            + (" The engine draws each distribution as 1,000 evenly spaced quantiles." if g.exact_view else "")
            + (f" {md(sentences.kl_jump_sentence(cell.n))}" if METRICS[ch.metric].kl_artifact else "")
        )
        exports.download_chart(
            dist,
            "nk_gap_distribution",
            explains="Blue: gaps when A really is better (or the real data); grey: no difference (null).",
        )
