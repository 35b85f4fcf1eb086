"""Sampling: what majority voting over more samples per request (n) buys, and what it cannot fix.

The verdict (one sentence) and the vote curve lead; explanations, the effective-samples table, the model check and
method notes sit in expanders; the words come from ``nkcore.voting.sentences``. The sections that depend on one
control each (the curve with its what-if rho, the unfixable cases, the model check) are fragments; the curve's
fragment draws the one-page summary, which carries the what-if, so no other fragment can leave it stale.

A thin page: the tie rule, then the cached analysis (ui.sampling.analysis), the curve (ui.sampling.curve), the key
numbers and effective samples (ui.sampling.numbers), the unfixable cases (ui.sampling.unfixable), pass@k
(ui.sampling.passk) and the model check (ui.sampling.check)."""

from __future__ import annotations

import streamlit as st

from nkcore.voting import sentences as words
from nkcore.voting.rules import as_tie_rule
from ui.common import evaluation, page
from ui.common.text import md
from ui.sampling import analysis, check, curve, numbers, unfixable
from ui.sampling.passk import passk_section

page.setup_page("Sampling", "What does majority voting over more samples per request (n) buy?")
ev, config, ds = evaluation.one_config("smp_config")  # the evaluation, the first line, the config picker

with page.user_errors():
    # Positions first, filled below: the verdict and its chart lead; the tie rule (a method choice every number
    # depends on) lives in the Method expander at the end but must be read before anything is computed.
    verdict_box = st.container()
    curve_box = st.container()
    numbers_box = st.container()
    read_box = st.expander("How to read this", icon=":material/help:")
    neff_box = st.expander("Effective samples (N_eff): what n correlated samples are worth")
    unfixable_box = st.container()
    passk_box = st.container()
    check_box = st.container()
    method_box = st.expander("Method: ties, intervals and models", icon=":material/functions:")
    with method_box:
        tie = st.radio(
            "Tie rule when two answers get the same number of votes",
            list(words.TIE_HELP),
            captions=list(words.TIE_HELP.values()),
            horizontal=True,
            key="smp_tie",
            bind="query-params",
        )
    view = analysis.analyse(ds, tie)
    with verdict_box:
        st.markdown(f"**{md(words.verdict_sentence(view.a))}**")
    with curve_box:  # the curve, and the what-if correlation
        curve.curve_section(view)
    with numbers_box:
        numbers.draw_numbers(view)
    with read_box:
        numbers.draw_reading(view)
    with neff_box:
        numbers.draw_neff(view)
    with unfixable_box:
        unfixable.unfixable_section(ds, view.a, tie)
    with passk_box:  # pass@k, pass^k and flaky cases
        passk_section(ds, tie=as_tie_rule(tie), curves=view.passk, flaky=view.flaky)
    with check_box:  # the model check
        check.draw_check(view)
    evaluation.configs_table(ev, config)
    with method_box:
        st.markdown(words.method_notes())
page.finish_page()
