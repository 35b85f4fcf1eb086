"""The Planner's controls: the evaluation (cases and discordance, typed or read from the paired dataset), alpha,
power, the target difference and the label error rate, every one bound to the link."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from nkcore import paired
from nkcore.resolution import sentences as resolution_text
from ui.common import cache, datasets, evaluation
from ui.common.text import md

__all__ = ["CASE_STEPS", "Choices", "read_controls"]

CASE_STEPS = [20, 30, 50, 75, 100, 150, 200, 300, 400, 500, 600, 800, 1_000, 1_500, 2_000, 2_500, 3_200, 4_000,
              5_000, 6_400, 8_000, 10_000, 12_800, 15_000, 20_000, 30_000, 50_000]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Choices:
    """What the controls say: ``ds`` is the paired dataset read (None unless ``from_data``); ``target`` is None when
    the target difference is more than the discordance (it is left out)."""

    from_data: bool
    ds: datasets.Dataset | None
    cases: int
    discordance: float
    significance: float
    power: float
    target_pts: float
    target: float | None
    e_pct: float


def read_controls() -> Choices:
    """The box "Your evaluation"; with "read from data" the numbers come from the dataset, shown greyed where the
    sliders were."""
    ds: datasets.Dataset | None = None
    source = ""  # the name of the dataset the numbers are read from
    with st.container(border=True):
        st.markdown("**Your evaluation**")
        from_data = st.toggle(
            "Read the cases and discordance from the paired dataset instead",
            value=not evaluation.in_use_is_builtin(),  # the user's own evaluation, when one is in use
            key="pln_from_data",
            bind="query-params",
            help="uses the number of paired cases and the mean discordance between adjacent configs of the dataset "
            "chosen in the sidebar",
        )
        # With "read from data" the numbers come from the dataset: read them first, so the controls show the values
        # in use.
        data_values: tuple[int, float] | None = None
        if from_data:
            ds = evaluation.paired_in_use()
            source = ds.name
            if cache.compute(paired.has_repeats, ds):  # repeats or partial scores: no 2x2 table to plan from
                one_run = cache.compute(paired.one_run_plan, ds)
                if one_run is None:
                    st.info(
                        f"{md(ds.name)} has scores between 0 and 1 (partial credit): it has no right / wrong "
                        "discordance to plan from here. Its between- and within-case variances plan it in 'More "
                        "cases or more repeats?' below; the sliders' values are used here.",
                        icon=":material/repeat:",
                    )
                elif one_run.discordance > 0:
                    data_values = (one_run.n_cases, round(one_run.discordance, 6))
                    lo, hi = one_run.repeats
                    reps = f"{lo}" if lo == hi else f"{lo} to {hi}"
                    st.caption(
                        f"{md(ds.name)} has {reps} repeats per case: this section plans one run per case, with the "
                        "discordance one run of two adjacent configs shows on average (from each case's share of "
                        "right repeats); 'More cases or more repeats?' below plans the repeats."
                    )
                ordered = None
            else:
                ordered = cache.compute(paired.analyse_paired, ds)
            if ordered is None:
                pass
            elif ordered.mean_discordance > 0:
                data_values = (ordered.n_cases, round(ordered.mean_discordance, 6))
            else:
                st.warning(
                    f"In {md(ds.name)} the adjacent configs agree on every one of the {ordered.n_cases:,} paired "
                    "cases, so there is no discordance to plan from; the sliders' values are used instead."
                )
        c1, c2 = st.columns(2)
        if data_values is None:
            cases = c1.select_slider(
                "cases in the evaluation set",
                options=CASE_STEPS, value=200, key="pln_cases", bind="query-params",
                help="evaluation cases that both configs are run on",
            )  # fmt: skip
            disc_pct = c2.slider(
                "discordance: % of cases two configs disagree on (one right, the other wrong)",
                min_value=0.5, max_value=50.0, value=6.0, step=0.5, format="%.1f%%", key="pln_disc",
                bind="query-params", help=resolution_text.DISCORDANCE_HELP,
            )  # fmt: skip
            discordance = disc_pct / 100.0
        else:
            # the values in use, shown where the sliders were (greyed: they come from the data, not from a control)
            cases, discordance = data_values
            c1.number_input("cases in the evaluation set (from the data)", value=cases, disabled=True)
            c2.number_input(
                "discordance: % of cases two configs disagree on (from the data)",
                value=round(100 * discordance, 1),
                format="%.1f",
                disabled=True,
                help="the mean share of cases on which adjacent configs of the dataset disagree",
            )
            st.caption(
                f"From {md(source)}: {cases:,} paired cases; adjacent configs disagree on "
                f"{md(resolution_text.discordance_text(discordance))} of them on average."
            )
        c3, c4, c5 = st.columns(3)
        significance = c3.select_slider(
            "how sure before calling a difference: significance level (alpha)", options=[0.001, 0.01, 0.05, 0.1],
            value=0.05, key="pln_alpha", bind="query-params", help=resolution_text.ALPHA_HELP,
        )  # fmt: skip
        power = c4.slider(
            "power: how often a real difference should be detected",
            min_value=0.5, max_value=0.95, value=0.8, step=0.05, key="pln_power", bind="query-params", help=resolution_text.POWER_HELP,
        )  # fmt: skip
        target_pts = c5.slider(
            "target difference (points)", min_value=0.5, max_value=10.0, value=1.0, step=0.5, key="pln_target",
            bind="query-params", help="a difference you need to be able to resolve, in percentage points",
        )  # fmt: skip
        e_pct = st.slider(
            "label error rate (% of gold labels that are wrong)", min_value=0.0, max_value=10.0, value=3.0, step=0.5,
            format="%.1f%%", key="pln_err", bind="query-params",
            help="the share of evaluation cases whose gold answer is wrong: differences below the floor it sets "
            "cannot be settled by more cases; estimate it from a double-labelled sample in 'The label-error floor'",
        )  # fmt: skip
        target: float | None = target_pts / 100.0
        if target_pts / 100.0 > discordance:
            st.warning(
                f"A target of {target_pts:.1f} points is more than the discordance "
                f"({resolution_text.discordance_text(discordance)}): two "
                "configs can never differ by more than the share of cases they disagree on. The target is left out."
            )
            target = None

    return Choices(from_data, ds, cases, discordance, significance, power, target_pts, target, e_pct)
