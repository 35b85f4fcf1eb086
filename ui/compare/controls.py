"""The Compare page's controls, the same in its McNemar view (``pages/3_Compare.py``) and its case-level view
(:mod:`ui.compare.cases`): what to compare, alpha, and the configs (in order, or one pair), under the same link keys.

Bound widgets keep their displayed option in the link, so the options are the words themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from ui.common import page

ADJACENT, PAIR = "each config against the next", "one pair of my choice"


@dataclass(frozen=True, slots=True)
class CompareChoice:
    """What the controls chose: ``mode`` (:data:`ADJACENT` or :data:`PAIR`), ``significance``; ``order`` the configs in
    order (adjacent mode), ``a`` and ``b`` the pair (pair mode; empty in the other mode)."""

    mode: str
    significance: float
    order: tuple[str, ...] = ()
    a: str = ""
    b: str = ""

    @property
    def confidence(self) -> float:
        """The intervals' level, 1 - alpha."""
        return 1.0 - self.significance


def read_controls(configs: Sequence[str], alpha_help: str, order_label: str) -> CompareChoice:
    """Draw the controls (in the caller's container) for a dataset's ``configs`` and return the choice; remembered
    choices that are not this dataset's configs are dropped first (:func:`ui.common.page.fit_choices`)."""
    configs = list(configs)
    c1, c2 = st.columns([3, 2])
    mode = c1.radio("What to compare", [ADJACENT, PAIR], horizontal=True, key="cmp_mode", bind="query-params")
    significance = c2.select_slider(
        "How sure before calling a difference: significance level (alpha)",
        options=[0.01, 0.05, 0.1],
        value=0.05,
        key="cmp_alpha",
        bind="query-params",
        help=alpha_help,
    )
    if mode == ADJACENT:
        page.fit_choices("cmp_configs", configs, minimum=2)
        order = st.multiselect(order_label, configs, default=configs, key="cmp_configs", bind="query-params")
        return CompareChoice(mode, float(significance), order=tuple(order))
    p1, p2 = st.columns(2)
    page.fit_choices("cmp_a", configs)
    page.fit_choices("cmp_b", configs)
    a = p1.selectbox("Config A (the baseline)", configs, index=0, key="cmp_a", bind="query-params")
    b = p2.selectbox(
        "Config B (compared with A)", configs, index=min(1, len(configs) - 1), key="cmp_b", bind="query-params"
    )
    return CompareChoice(mode, float(significance), a=a, b=b)
