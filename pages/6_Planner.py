"""Planner: before looking at any numbers, how many cases does an evaluation need, and what can it resolve?

The answer to "how many cases do I need" (one sentence, ``nkcore.resolution.sentences``) and the curve that supports
it lead, with the three numbers behind it; the controls follow; how each number is computed sits in an expander.
The label-error floor, with its own controls and the summary download, is a fragment."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import streamlit as st

from nkcore import paired, resolution
from nkcore.resolution import repeats
from nkcore.resolution import sentences as resolution_text
from ui import charts
from ui.charts import paired as charts_paired
from ui.common import cache, datasets, exports, page
from ui.common.text import md
from ui.planner import sequential as planner_sequential

page.setup_page(
    "Planner",
    "How many cases does an evaluation need, and what is the smallest difference between two configs it can resolve?",
)

CASE_STEPS = [20, 30, 50, 75, 100, 150, 200, 300, 400, 500, 600, 800, 1_000, 1_500, 2_000, 2_500, 3_200, 4_000,
              5_000, 6_400, 8_000, 10_000, 12_800, 15_000, 20_000, 30_000, 50_000]  # fmt: skip


def _cases(n: int | None) -> str:
    return f"{n:,}" if n is not None else "-"


with page.user_errors():
    answer_box = st.container()  # the answer, its chart and its numbers: filled once the controls below are read
    with st.container(border=True):
        st.markdown("**Your evaluation**")
        from_data = st.toggle(
            "Read the cases and discordance from the paired dataset instead",
            value=datasets.stored_choice("paired") is not None,  # the user's own paired results, when chosen
            key="pln_from_data",
            bind="query-params",
            help="uses the number of paired cases and the mean discordance between adjacent configs of the dataset "
            "chosen in the sidebar",
        )
        # With "read from data" the numbers come from the dataset: read them first, so the controls show the values
        # in use.
        data_values: tuple[int, float] | None = None
        if from_data:
            ds = datasets.choose_dataset("paired")
            if cache.compute(paired.has_repeats, ds):  # repeats or partial scores: no 2x2 table to plan from
                st.info(
                    f"{md(ds.name)} has repeats (or scores between 0 and 1): its cases are compared case by case, so "
                    "it has no discordance to plan from here. Its between- and within-case variances plan it in "
                    "'More cases or more repeats?' below; the sliders' values are used here.",
                    icon=":material/repeat:",
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
                f"From {md(ds.name)}: {cases:,} paired cases; adjacent configs disagree on "
                f"{md(resolution_text.discordance_text(discordance))} of them on average."
            )
        c3, c4, c5 = st.columns(3)
        alpha = c3.select_slider(
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

    p = cache.compute_params(resolution.plan, cases=cases, discordance=discordance, alpha=alpha, power=power,
                             target_diff=target)  # fmt: skip
    s = resolution.plan_sentences(p)
    answer = resolution_text.cases_answer(p)
    curve = cache.compute_params(
        resolution.resolution_curve, discordance=discordance, alpha=alpha, power=power, cases_min=20,
        cases_max=50_000, points=160,
    )  # fmt: skip
    wide = curve.to_frame().rename(
        columns={
            "min_resolvable_diff": "smallest resolvable difference (exact)",
            "sqrt_law_diff": "square-root law",
            "mde_at_power": "detectable at the chosen power (Connor)",
        }
    )
    # the chart's spec is cached on its inputs' content (a control that leaves them as they were rebuilds nothing);
    # the chart itself is built only when an export is clicked
    chart_args = (wide.melt(id_vars="cases", var_name="series", value_name="diff"), cases, target)
    chart_spec = cache.chart_spec(charts_paired.resolution_chart, *chart_args)

    def chart() -> alt.LayerChart:
        return charts_paired.resolution_chart(*chart_args)

    pwr = f"{100 * power:.0f}%"

    # ------------------------------------------------------------------ the answer, first on the page
    with answer_box:
        headline_floor = resolution.label_error_floor(e_pct / 100.0)
        st.markdown(f"**{md(resolution_text.plan_headline(p, answer, headline_floor))}**")
        charts.draw(chart_spec)
        m1, m2, m3 = st.columns(3)
        m1.metric(
            "cases needed",
            _cases(answer.cases) if answer is not None else "-",
            help=f"cases to detect a true difference of the target size {pwr} of the time, by the exact power of "
            "McNemar's exact test; the other counts are under 'How this is computed'",
        )
        m2.metric(
            "smallest resolvable",
            resolution_text.resolvable_points(p.min_resolvable_diff),
            help=f"with {cases:,} cases: the smallest observed difference that can reach p < alpha at all (exact "
            "critical count of discordant cases, divided by the cases)",
        )
        m3.metric(
            f"found {pwr} of the time",
            resolution_text.resolvable_points(p.mde_at_power),
            help=f"with {cases:,} cases: the minimum detectable difference (MDE), the true difference detected with "
            f"probability {pwr}, by Connor's (1987) formula; the exact figure is under 'How this is computed'",
        )
        with st.expander("How this is computed, and the other counts", icon=":material/functions:"):
            if answer is not None:
                more = f"more than {resolution.SEARCH_CEILING:,}"
                st.markdown(
                    "\n".join(
                        f"- **{md(m.name)}: {md(_cases(m.cases) if m.cases is not None else more)} cases.** "
                        f"{md(m.use_when[:1].upper() + m.use_when[1:])}."
                        for m in answer.methods
                    )
                )
                if s.target is not None:
                    st.markdown(md(s.target))
            st.metric(
                "discordant cases expected",
                f"{p.discordant:,}",
                help=f"{cases:,} cases x {resolution_text.discordance_text(discordance)} = "
                f"{p.expected_discordant:,.2f}, rounded (halves up)",
            )
            st.markdown(f"**Smallest resolvable difference.** {md(s.min_resolvable)}")
            st.markdown(f"**Found {pwr} of the time.** {md(s.mde)}")
            st.markdown(f"**The square-root law.** {md(s.sqrt_law)}")
            st.markdown(resolution_text.CHART_NOTE)
            exports.download_table_and_chart(
                wide, "resolution_curve", chart, "resolution_curve", explains=resolution_text.RESOLUTION_CHART_EXPLAINS
            )


@dataclass(frozen=True, slots=True)
class PlanView:
    """What the label-error section takes from the full run: the plan and its chart's builder (for the summary)."""

    plan: resolution.Plan
    answer: resolution_text.CasesAnswer | None
    target_pts: float
    chart: Callable[[], alt.LayerChart]
    e_pct: float  # the label error rate (%), a control of the page's main box (the headline carries its floor)


@st.fragment
def label_error_section(view: PlanView) -> None:
    """The label-error floor, the estimate from a double-labelled sample and the summary download.

    A fragment: its two controls (the double-labelled sample) change only what is drawn here, so they rerun this
    section alone; the label error rate itself is a main control, since the headline carries its floor.
    """
    with page.user_errors():
        _label_error_section(view)


def _label_error_section(view: PlanView) -> None:
    p = view.plan
    st.subheader("The label-error floor")
    st.markdown(resolution_text.LABEL_FLOOR_INTRO)
    e_pct = view.e_pct
    floor = resolution.label_error_floor(e_pct / 100.0)
    f1, f2 = st.columns(2)
    f1.metric(
        "best measurable accuracy",
        f"{100 * floor.best_measurable_accuracy:.1f}%",
        help="what a perfect system scores when this share of the gold labels is wrong: 1 - label error rate",
    )
    f2.metric(
        "lost in label noise",
        resolution_text.resolvable_points(floor.noise_floor_diff),
        help="two configs that differ by less than this are competing inside the noise of the ground truth",
    )
    st.markdown(md(resolution.label_error_sentence(floor)))
    if p.target_diff is not None:
        st.markdown(md(resolution.target_vs_floor_sentence(p.target_diff, floor)))

    st.markdown("**Estimate the label error rate from a double-labelled sample**")
    e1, e2 = st.columns(2)
    dl_items = e1.number_input(
        "items labelled twice", min_value=1, max_value=1_000_000, value=200, step=10, key="pln_dl_items",
        bind="query-params", help="items that two people labelled independently",
    )  # fmt: skip
    dl_dis = e2.number_input(
        "items where the two labels disagree", min_value=0, max_value=1_000_000, value=12, step=1,
        key="pln_dl_dis", bind="query-params", help="of the items labelled twice, those with two different labels",
    )  # fmt: skip
    est = cache.compute_params(resolution.estimate_label_error, items=int(dl_items), disagreements=int(dl_dis))
    st.metric(
        "estimated label error rate", f"{100 * est.error_rate:.1f}%",
        help=f"95% interval {100 * est.ci_low:.1f}% to {100 * est.ci_high:.1f}%",
    )  # fmt: skip
    st.markdown(md(resolution.label_estimate_sentence(est)))
    st.caption("Set the label error rate above to this estimate to see the floor it implies.")

    disc = resolution_text.discordance_text(p.discordance)
    numbers = resolution_text.summary_rows(p, view.answer, floor, est)
    exports.summary_download(
        "Planner",
        {"cases": p.cases, "discordance": disc, "alpha": p.alpha, "power": p.power,
         "target difference": f"{view.target_pts:.1f} points", "label error rate": f"{e_pct:.1f}%"},
        numbers,
        [view.chart],
    )  # fmt: skip


label_error_section(PlanView(p, answer, target_pts, chart, e_pct))


def repeats_section(alpha: float, power: float, chosen: datasets.Dataset | None) -> None:
    """More cases or more repeats? Every split of a budget of calls per config into cases x repeats per case
    (:func:`nkcore.resolution.repeat_plan`), the best one marked, in words first. The variances are typed, or read
    from the paired dataset (the one chosen above when there is one)."""
    st.subheader("More cases or more repeats?")
    st.markdown(repeats.REPEATS_INTRO)
    with st.container(border=True):
        use_data = st.toggle(
            "Read the variances and the cases available from the paired dataset",
            key="pln_rep_from_data",
            bind="query-params",
            help="measures the between- and within-case variance of the difference between two configs of the paired "
            "dataset chosen in the sidebar (it needs cases run more than once); its cases are the cases available",
        )
        measured: paired.MeasuredVariances | None = None
        if use_data:
            ds = chosen if chosen is not None else datasets.choose_dataset("paired")
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
        resolution.repeat_plan, calls=int(calls), between_var=float(between), within_var=float(within), alpha=alpha,
        power=power, cases_available=int(available),
    )  # fmt: skip
    words = resolution.repeat_plan_sentences(plan_r)
    st.markdown(f"**{md(words.headline)}**")
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


with page.user_errors():
    repeats_section(alpha, power, ds if from_data else None)
    planner_sequential.render(alpha, target_pts / 100.0, discordance, power)
page.finish_page()
