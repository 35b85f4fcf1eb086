"""Planner section "Stopping as soon as it is decided": cases to a decision with an anytime-valid test for a true
difference, next to the fixed-n plan, and what peeking at the fixed-n test every 10 cases does to false positives.

One function, :func:`render`, called by ``pages/6_Planner.py`` with the planner's alpha, target difference,
discordance and power. Numbers: :func:`nkcore.sequential.sequential_plan` (simulated, seeded) and
:func:`nkcore.resolution.cases_for_power_exact`, both through ``ui.common.cache.compute_params``.
"""

from __future__ import annotations

import streamlit as st

from nkcore import resolution, sequential
from nkcore.common.formatting import percent
from nkcore.errors import DataError
from ui.common import cache


def render(significance: float, diff: float, discordance: float, power: float = 0.8) -> None:
    """The section for a true difference ``diff`` (fraction) at ``discordance``, level ``significance``, fixed-n ``power``."""
    st.subheader("Stopping as soon as it is decided")
    if not 0 < diff <= discordance:
        st.info("Give a target difference no larger than the discordance to plan an anytime-valid run.")
        return
    fixed = cache.compute_params(
        resolution.cases_for_power_exact,
        target_diff=diff,
        discordance=discordance,
        significance=significance,
        power=power,
    )
    if fixed is None:
        st.info("The fixed-n plan for this difference is beyond the cases limit; an anytime-valid run would be too.")
        return
    try:
        plan = cache.compute_params(
            sequential.sequential_plan,
            diff=diff,
            discordance=discordance,
            significance=significance,
            fixed_cases=int(fixed),
        )
    except DataError:  # the simulation would pass the server's work limits (a fixed-n plan of 100,000s of cases)
        st.info(
            f"The fixed-n plan needs {int(fixed):,} cases: simulating anytime-valid runs that long is beyond this "
            "server's limits. Plan a larger difference to see how early such a run stops."
        )
        return
    pwr = percent(power, 0)
    m1, m2, m3 = st.columns(3)
    m1.metric(
        f"fixed-n ({pwr} power)",
        f"{fixed:,} cases",
        help="cases for the exact McNemar test to detect the target difference this often, looking once at the end",
    )
    med = f"{plan.stop_median:,.0f} cases" if plan.stop_median is not None else "not within the runs"
    m2.metric(
        "anytime: median stop",
        med,
        help=f"median over {plan.runs:,} simulated runs of the cases at which the anytime-valid test decided (runs "
        f"allowed up to {plan.max_cases:,} cases); half the runs decide between the quartiles shown below",
    )
    m3.metric(
        "false wins if peeking",
        f"{percent(plan.naive_false_positive, 0)}",
        help=f"peeking at the fixed-n test every {plan.every} cases: the share of simulated runs with no real "
        f"difference that reach p < {significance:g} at some look, checking every "
        f"{plan.every} cases up to {fixed:,}; the anytime-valid test: {percent(plan.sequential_false_positive, 1)}",
    )
    spread = (
        f"half of the runs decide between {plan.stop_q1:,.0f} and {plan.stop_q3:,.0f} cases"
        if plan.stop_q1 is not None and plan.stop_q3 is not None
        else "few runs decide"
    )
    st.markdown(
        f"With a true difference of {100 * diff:.1f} points, an evaluation checked after every case and stopped at the "
        f"first decision needs about {med} ({spread}); {percent(plan.decided_by_fixed, 0)} of runs decide within the "
        f"fixed-n plan's {fixed:,} cases and {percent(plan.decided_share, 0)} within {plan.max_cases:,}. Peeking at "
        f"the fixed-n test every {plan.every} cases instead would call a winner when there is none in "
        f"{percent(plan.naive_false_positive, 0)} of runs, not {percent(significance, 0 if significance >= 0.01 else 1)}."
    )
    st.caption(
        f"Simulated ({plan.runs:,} runs, seeded): {discordance:.1%} of cases discordant; the anytime-valid test is "
        "the mixture SPRT on the discordant cases (Compare page, 'As the cases came in')."
    )
