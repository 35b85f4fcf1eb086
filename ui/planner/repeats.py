"""The Planner's "More cases or more repeats?": every split of a budget of calls into cases x repeats per case,
with variances typed or read from the paired dataset."""

from __future__ import annotations

import streamlit as st

from nkcore import paired, resolution
from nkcore.resolution import repeats
from nkcore.resolution import sentences as resolution_text
from ui import charts
from ui.charts import paired as charts_paired
from ui.common import cache, datasets, evaluation, page
from ui.common.text import md

__all__ = ["repeats_dataset", "repeats_section"]


FULL_RUN = "_pln_rep_full_run"
"""Session flag: the switch to the dataset's variances was flipped, so the fragment asks for a run of the page."""


def _needs_page_run() -> None:
    st.session_state[FULL_RUN] = True


def repeats_dataset(chosen: datasets.Dataset | None) -> datasets.Dataset | None:
    """The paired dataset :func:`repeats_section` reads its variances from while its switch is on (None while it is
    off): the one chosen above, else the sidebar's chooser, drawn here in the page's run (a fragment's run cannot
    add it, and a dataset chooser run inside the fragment kept the section's later inputs out of the link)."""
    on = st.session_state.get("pln_rep_from_data")
    if on is None:  # the switch is not drawn yet: what the link says, else its default
        raw = st.query_params.get("pln_rep_from_data")
        on = raw.lower() == "true" if raw is not None else _reads_data_by_default()
    if not on:
        return None
    return chosen if chosen is not None else evaluation.paired_in_use()


def _reads_data_by_default() -> bool:
    """The switch opens on for a team's own evaluation with repeats (its variances are what it needs)."""
    ev = evaluation.in_use()
    return not ev.builtin and ev.source.kind == "paired" and bool(cache.compute(paired.has_repeats, ev.source))


@st.fragment
def repeats_section(significance: float, power: float, ds: datasets.Dataset | None) -> None:
    """More cases or more repeats? Every split of a budget of calls per config into cases x repeats per case
    (:func:`nkcore.resolution.repeat_plan`), the best one marked, in words first. The variances are typed, or read
    from the paired dataset ``ds`` (:func:`repeats_dataset`).

    A fragment: its inputs change only this section (nothing else on the page reads them), so they rerun it alone.
    The switch to the dataset's variances reruns the page instead: it may add the dataset chooser to the sidebar,
    which a fragment's own run cannot draw."""
    with page.user_errors():
        _repeats_section(significance, power, ds)


def _repeats_section(significance: float, power: float, ds: datasets.Dataset | None) -> None:
    st.subheader("More cases or more repeats?")
    st.markdown(repeats.REPEATS_INTRO)
    with st.container(border=True):
        use_data = st.toggle(
            "Read the variances and the cases available from the paired dataset",
            value=_reads_data_by_default(),
            key="pln_rep_from_data",
            bind="query-params",
            help="measures the between- and within-case variance of the difference between two configs of the paired "
            "dataset chosen in the sidebar (it needs cases run more than once); its cases are the cases available",
            on_change=_needs_page_run,
        )
        if st.session_state.pop(FULL_RUN, False):
            st.rerun()  # the whole page (scope "app"), which passes the dataset: see repeats_section
        measured: paired.MeasuredVariances | None = None
        if use_data and ds is not None:
            configs = list(cache.compute(paired.parse_cases, ds).configs)
            p1, p2 = st.columns(2)
            a = p1.selectbox("config A", configs, index=0, key="pln_rep_a", bind="query-params")
            b = p2.selectbox("config B", configs, index=min(1, len(configs) - 1), key="pln_rep_b", bind="query-params")
            measured = cache.compute(paired.measured_variances, ds, a=a, b=b)
            st.caption(md(paired.measured_sentence(measured)))
        r1, r2 = st.columns(2)
        calls = r1.number_input(
            "calls per config", min_value=1, max_value=10_000_000, value=1_000, step=100, key="pln_rep_calls",
            bind="query-params", help=repeats.CALLS_HELP,
        )  # fmt: skip
        if measured is None:
            available = r2.number_input(
                "cases available", min_value=1, max_value=10_000_000, value=200, step=50, key="pln_rep_cases",
                bind="query-params", help=repeats.CASES_AVAILABLE_HELP,
            )  # fmt: skip
        else:
            available = measured.components.n_cases
            r2.number_input(
                "cases available (from the data)", value=available, disabled=True, help=repeats.CASES_AVAILABLE_HELP
            )
        v1, v2 = st.columns(2)
        if measured is not None and measured.split_known:
            between, within = measured.components.between_var, measured.components.within_var
            v1.number_input("between-case variance (from the data)", value=round(between, 4), format="%.4f",
                            disabled=True, help=repeats.BETWEEN_VAR_HELP)  # fmt: skip
            v2.number_input("within-case variance (from the data)", value=round(within, 4), format="%.4f",
                            disabled=True, help=repeats.WITHIN_VAR_HELP)  # fmt: skip
        else:
            between = v1.number_input(
                "between-case variance", min_value=0.0, max_value=1.0, value=0.0625, step=0.005, format="%.4f",
                key="pln_rep_between", bind="query-params", help=repeats.BETWEEN_VAR_HELP,
            )  # fmt: skip
            within = v2.number_input(
                "within-case variance", min_value=0.0, max_value=1.0, value=0.1875, step=0.005, format="%.4f",
                key="pln_rep_within", bind="query-params", help=repeats.WITHIN_VAR_HELP,
            )  # fmt: skip
    plan_r = cache.compute_params(
        resolution.repeat_plan, calls=int(calls), between_var=float(between), within_var=float(within), significance=significance,
        power=power, cases_available=int(available),
    )  # fmt: skip
    words = resolution.repeat_plan_sentences(plan_r)
    st.markdown(f"**{md(words.headline)}**")
    if measured is None:
        st.caption(
            "Why this can differ from the top of the page: the top plans one run per case with McNemar's exact test "
            "at its discordance; this section plans with the variances typed here, so the two agree at one repeat per "
            "case only when between- plus within-case variance equals that discordance."
        )
    splits = plan_r.to_frame()
    charts.draw(cache.chart_spec(charts_paired.repeats_chart, splits))
    pwr = f"{100 * plan_r.power:.0f}%"
    best = plan_r.best
    m1, m2 = st.columns(2)
    m1.metric(
        "best split: cases x repeats per case",
        f"{best.cases:,} x {best.repeats:,}",
        help=f"cases x repeats per case = {best.calls:,} calls per config: the split with the smallest resolvable "
        "difference (ties: fewer calls, then fewer repeats)",
    )
    m2.metric(
        "smallest resolvable with the best split",
        resolution_text.resolvable_points(best.min_resolvable_diff),
        help="with the best split: the true difference the case-level test resolves (reaches p < alpha) half the "
        "time, z x sqrt((between-case variance + within-case variance / repeats per case) / cases)",
    )
    st.markdown(md(words.best))
    shown = splits.assign(
        min_resolvable_diff=100 * splits["min_resolvable_diff"], mde_at_power=100 * splits["mde_at_power"]
    ).rename(
        columns={
            "repeats": "repeats per case",
            "calls": "calls per config",
            "min_resolvable_diff": "smallest resolvable (points)",
            "mde_at_power": f"detected {pwr} of the time (points)",
            "best": "best split",
        }
    )[["repeats per case", "cases", "calls per config", "smallest resolvable (points)",
       f"detected {pwr} of the time (points)", "best split"]]  # fmt: skip
    st.dataframe(
        shown.style.format({"smallest resolvable (points)": "{:.1f}", f"detected {pwr} of the time (points)": "{:.1f}",
                            "cases": "{:,}", "calls per config": "{:,}"}),
        hide_index=True,
    )  # fmt: skip
    with st.expander("Why more cases beat more repeats", icon=":material/functions:"):
        st.markdown(md(words.law))
        st.markdown(repeats.REPEATS_CHART_NOTE)
