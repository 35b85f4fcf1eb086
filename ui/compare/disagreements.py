"""Compare page section "The cases behind the verdict": the cases two configs disagree on, side by side.

One function, :func:`render`, called by the McNemar view (:mod:`ui.compare.pairs`) and the case-level view
(:mod:`ui.compare.cases`) after the tests, with the pairs they compared. The section is an expander; it computes
only while open. It shows one pair (the headline's first win, or the pair chosen), each case's score and answers
(one per repeat) of both configs and the gold where the run recorded them, filtered by side and by case id, with
its CSV download. Numbers: :func:`nkcore.paired.disagreements` through ``ui.common.cache.compute``; words:
:func:`nkcore.paired.sentences.disagreement_sentence` and
:func:`nkcore.paired.case_sentences.case_disagreement_sentence`.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from nkcore import paired
from nkcore.paired import case_sentences as case_words
from nkcore.paired import sentences as words
from nkcore.paired.disagreements import Side
from ui.common import cache, datasets, exports
from ui.common.text import md

__all__ = ["ALL", "CASE_SIDES", "PAIR_SIDES", "headline_pair", "render"]

Comparison = paired.PairedComparison | paired.CaseComparison
"""A compared pair: McNemar's test on a 2 x 2 table, or the case-level comparison."""

# Bound widgets keep their displayed option in the link, so the options are the words themselves, the same for every
# dataset ("A", "B": the pair's configs, named in the radio's help and the table's headers).
ALL = "all"
PAIR_SIDES: dict[str, Side] = {ALL: "all", "A right, B wrong": "a", "B right, A wrong": "b"}
CASE_SIDES: dict[str, Side] = {ALL: "all", "A scores higher": "a", "B scores higher": "b"}


def _significant(comp: Comparison, significance: float) -> bool:
    p = comp.p_value if isinstance(comp, paired.CaseComparison) else comp.p_exact
    return bool(p < significance)


def headline_pair(comps: Sequence[Comparison], significance: float) -> int:
    """The index of the pair the headline names first: its first win (p < alpha), else the first pair."""
    return next((i for i, c in enumerate(comps) if _significant(c, significance)), 0)


def render(
    ds: datasets.Dataset,
    comps: Sequence[Comparison],
    compared: Sequence[str],
    significance: float,
    word: str | None = None,
) -> None:
    """The section for the compared pairs ``comps`` (paired over the configs ``compared``) at level
    ``significance``; ``word`` is the repeat column's word for the case-level view (None: one 0/1 result per case)."""
    box = st.expander(
        "The cases behind the verdict: where the two configs disagree",
        icon=":material/compare_arrows:",
        key="cmp_show_disagreements",
        on_change="rerun",
        bind="query-params",  # a shared link opens it as the sender had it
    )
    with box:
        if box.open:
            _section(ds, comps, compared, significance, word)


def _section(
    ds: datasets.Dataset,
    comps: Sequence[Comparison],
    compared: Sequence[str],
    significance: float,
    word: str | None,
) -> None:
    labels = [f"{c.config_a} → {c.config_b}" for c in comps]
    comp = comps[headline_pair(comps, significance)]
    if len(labels) > 1:
        label = st.selectbox(
            "Pair",
            labels,
            index=labels.index(f"{comp.config_a} → {comp.config_b}"),
            key="cmp_dis_pair",
            bind="query-params",
            help="the pair whose cases are listed; at first the pair the verdict names first",
        )
        comp = comps[labels.index(label)] if label in labels else comp
    a, b = comp.config_a, comp.config_b
    table = cache.compute(paired.disagreements, ds, config_a=a, config_b=b, configs=tuple(compared))
    a_side = int((table["difference"] < 0).sum())
    b_side = int((table["difference"] > 0).sum())
    if word is None:
        st.markdown(md(words.disagreement_sentence(a, b, a_side, b_side, comp.n_cases)))
    else:
        st.markdown(md(case_words.case_disagreement_sentence(a, b, a_side, b_side, comp.n_cases, word)))
    if table.empty:
        return
    sides = PAIR_SIDES if word is None else CASE_SIDES
    c1, c2 = st.columns([3, 2])
    option = c1.radio(
        "Show",
        list(sides),
        horizontal=True,
        key="cmp_dis_side",
        bind="query-params",
        help=md(f"A is {a}, B is {b}: all the cases they disagree on, or only those one of them wins"),
    )
    case_text = c2.text_input(
        "Case id contains",
        key="cmp_dis_case",
        bind="query-params",
        max_chars=200,
        help="show only the cases whose id contains this text (upper or lower case alike)",
    )
    shown = paired.select_disagreements(table, sides.get(option, "all"), case_text)
    recorded = [c for c in ("answers A", "answers B", "gold") if table[c].notna().any()]
    out = shown[["case", "score A", "score B", "difference", *recorded]].rename(
        columns={
            "score A": f"score {a}",
            "score B": f"score {b}",
            "difference": f"{b} − {a}",
            "answers A": f"answers {a}",
            "answers B": f"answers {b}",
        }
    )
    score_fmt = "%.0f" if word is None else "%.2f"
    exports.table(
        out,
        f"disagreements_{a}_{b}",
        hide_index=True,
        width="stretch",
        height=min(420, 38 + 35 * max(1, len(out))),
        column_config={
            "case": st.column_config.TextColumn("case", pinned=True, help="the case id"),
            f"score {a}": st.column_config.NumberColumn(
                f"score {a}", format=score_fmt, help=md(f"{a}'s score on the case (the mean over its repeats)")
            ),
            f"score {b}": st.column_config.NumberColumn(
                f"score {b}", format=score_fmt, help=md(f"{b}'s score on the case (the mean over its repeats)")
            ),
            f"{b} − {a}": st.column_config.NumberColumn(
                f"{b} − {a}", format="%+.2f", help=md(f"{b}'s score minus {a}'s on the case")
            ),
        },
    )
    shown_note = f"Showing {len(out):,} of the {len(table):,} cases."
    if not recorded:
        shown_note += (
            " The run recorded no answers: harness logs (inspect_ai, promptfoo, lm-evaluation-harness) or a long table "
            "with 'answer' and 'gold' columns show each config's answers and the gold beside the scores."
        )
    elif "answers A" in recorded and word is not None:
        shown_note += f" Answers are listed one per {word}, in order."
    st.caption(shown_note)
