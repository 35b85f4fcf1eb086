"""Compare's "Which config ships" section, for evaluations of three or more configs: every config's score with its
rank interval, the configs that could be the best, the winner's score corrected for having been picked, and the
configs not worse than the best by more than a margin (the margin is an input bound to the link).

The numbers are the ``rank`` command's (``nkcore.rank.document.rank_doc``, through the cache): the page and
``python -m nkcore rank FILE --margin POINTS --json`` give the same document on the same table.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nkcore import evaluation as nkeval
from nkcore.rank.document import rank_doc
from ui.common import cache, exports
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = ["ship_section"]


def _cost_column(ds: Dataset, configs: tuple[str, ...]) -> str | None:
    """``cost`` when the run recorded a cost for every config (then the frontier and the config to ship follow)."""
    if "cost" not in ds.frame.columns:
        return None
    table = cache.compute(nkeval.config_table, ds)
    priced = table.set_index("config")["price_per_call"].reindex(list(configs))
    return "cost" if bool(priced.notna().all()) else None


def ship_section(ds: Dataset, configs: tuple[str, ...]) -> None:
    """The section (open by default; its state and the margin are in the link); nothing below three configs."""
    if len(configs) < 3:
        return
    box = st.expander(
        f"Which config ships? {len(configs)} configs ranked, the ones that could be the best",
        expanded=True,
        key="cmp_ship",
        on_change="rerun",
        bind="query-params",
        icon=":material/emoji_events:",
    )
    if not box.open:
        return
    with box:
        margin = st.number_input(
            "margin: a config may score at most this much below the best and still count as not worse (points)",
            min_value=0.0,
            max_value=20.0,
            value=1.0,
            step=0.5,
            key="cmp_margin",
            bind="query-params",
            help="0 leaves the non-inferiority test out. The test: one-sided paired t on the case differences "
            "shifted by the margin, Holm over the configs against the best observed.",
        )
        doc = cache.compute(
            rank_doc,
            ds,
            margin_points=float(margin) if margin > 0 else None,
            cost_column=_cost_column(ds, configs),
        )
        st.markdown(f"**{md(doc['verdict'])}.**")
        best = set(doc["could_be_best"])
        tests = {t["config"]: t for t in doc.get("margin_tests", [])}
        rows = []
        for c in doc["configs"]:  # few, short columns: the table fits a projector's 1024 px without scrolling
            row = {
                "config": c["config"],
                "could be best": "yes" if c["config"] in best else "no",
                "score % (95%)": f"{100 * c['mean']:.1f} ({100 * c['ci_low']:.1f}-{100 * c['ci_high']:.1f})",
                "rank": f"{c['rank_low']}" if c["rank_low"] == c["rank_high"] else f"{c['rank_low']}-{c['rank_high']}",
            }
            if "cost" in c:
                row["$ per call"] = f"{c['cost']:.4g}"
            if tests:
                t = tests.get(c["config"])
                row[f"within {margin:g} pt"] = "best" if t is None else ("yes" if t["non_inferior"] else "not shown")
            rows.append(row)
        exports.table(pd.DataFrame(rows), "which_config_ships", hide_index=True, width="stretch")
        w = doc["winner"]
        st.caption(
            md(
                f"Score: the mean over cases with its {round(100 * doc['level'])}% interval. Rank: the interval of "
                "ranks, holding for every config at once; a config 'could be best' when no other is resolvably above "
                f"it. 'Within {margin:g} pt': shown not worse than the best by more than the margin. The best observed score is biased upward by having been "
                f"picked among {len(configs)}: {w['config']} scores {100 * w['naive']:.1f}%, "
                f"{100 * w['corrected']:.1f}% after the correction ({100 * w['ci_low']:.1f}% to "
                f"{100 * w['ci_high']:.1f}%). Method: {doc['method']}. The same numbers: python -m nkcore rank FILE"
                + (f" --margin {margin:g}" if margin > 0 else "")
                + " --json."
            )
        )
