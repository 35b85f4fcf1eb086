"""The Data page's judge tables (issue 55): judge scores on every case, human labels on a subset, stored as an
evaluation the Judges page reads.

A judge table is stored as paired results (the evaluation every page reads, ``?eval=``) with its judge and human
columns kept beside them: ``case``, ``config``, ``correct`` (the first judge's score, filled with its config mean where
missing and put on 0-1 when its scale is wider: what Compare and the Planner read), ``human`` (empty where no human
labelled) and one column per judge under its own name (scores as numbers, true/false as 1/0; pairwise verdicts
1 / 2 / tie kept as given, so the page reads them with ``scale="pairwise"`` as the CLI does; a missing score stays
missing). The Judges page finds these columns again by their names
(:func:`nkcore.kinds.judge.detect_judge`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from nkcore import summary as nksummary
from nkcore.errors import DataError
from nkcore.judge import judge_table
from nkcore.kinds.judge import RESERVED, JudgeGuess, detect_judge, guess_scale
from ui.common import cache, exports, page
from ui.common.datasets import Dataset
from ui.common.text import md
from ui.data import derive

__all__ = ["JUDGE_KIND", "JUDGE_WORDS", "is_judge_table", "judge_evaluation", "judge_note", "judge_upload"]

JUDGE_KIND = "judge"
"""The kind chooser's option for a judge table (stored as paired results, module docstring)."""
JUDGE_WORDS = "Judge scores with human labels (case, config, judge, human)"
_NONE = "(none)"


def _stored_name(judge: str) -> str:
    return f"{judge} (judge)" if judge in RESERVED or judge == "human" else judge


def judge_evaluation(
    frame: pd.DataFrame,
    judges: list[str],
    human: str,
    config: str | None,
    case: str | None,
    scale: str,
) -> pd.DataFrame:
    """The judge table as the stored evaluation (module docstring), checked by :func:`nkcore.judge.judge_table`
    (a DataError names the problem)."""
    t = judge_table(frame, judges, human, config, case, scale, fill_missing_judge=True)
    out = t.frame[["case", "config"]].copy()
    first = t.frame[t.judges[0]].to_numpy(dtype=float)
    lo, hi = float(np.min(first)), float(np.max(first))
    out["correct"] = first if lo >= 0 and hi <= 1 else (first - lo) / (hi - lo) if hi > lo else np.full_like(first, 0.5)
    if t.scale == "pairwise":  # verdicts kept as given (1 / 2 / tie): the Judges page reads them as the CLI does
        out["human"] = frame[human].reset_index(drop=True).to_numpy()
        for j in t.judges:
            out[_stored_name(j)] = frame[j].reset_index(drop=True).to_numpy()
        return out.reset_index(drop=True)
    out["human"] = t.frame["human"].to_numpy(dtype=float)
    for j in t.judges:
        raw = frame[j].reset_index(drop=True)
        missing = (raw.isna() | (raw.astype(str).str.strip() == "")).to_numpy()
        out[_stored_name(j)] = np.where(missing, np.nan, t.frame[j].to_numpy(dtype=float))
    return out.reset_index(drop=True)


def _store(table: pd.DataFrame, name: str, mapping: dict[str, str]) -> None:
    """Store the judge table as the evaluation in use; when its configs share no case, say that Compare cannot pair
    them (the Judges page compares them as independent samples)."""
    pages: tuple[str, ...] = ("pages/7_Judges.py", "pages/3_Compare.py")
    extra = ""
    try:
        nksummary.validate_and_summarize(table[["case", "config", "correct"]], "paired")
    except DataError as exc:
        pages, extra = ("pages/7_Judges.py",), f" Compare cannot pair its configs ({md(exc)}); the Judges page can."
    ds_id = derive.save(table, "paired", name, mapping)
    if ds_id is None:
        return
    st.session_state[derive.FLASH] = (
        "success",
        f"Stored **{md(name)}** (`{ds_id[:12]}`) as judge scores with human labels. It is now the evaluation in use "
        f"on every page, and the link to this view carries it.{extra}",
        pages,
    )


def judge_upload(frame: pd.DataFrame, file_name: str, token: str, guess: JudgeGuess | None) -> None:
    """The judge table's columns (guessed, to check), its preview and the store button."""
    columns = [str(c) for c in frame.columns]
    g = guess
    if g is not None:
        st.caption(f"Why: {md(g.reason)}.")
    c1, c2 = st.columns(2)
    human = c1.selectbox(
        "Human score (empty where no human labelled the case)",
        columns,
        index=columns.index(g.human) if g else 0,
        key=f"_dat_jh_{token}",
    )
    judges = c2.multiselect(
        "Judge score column(s), the one to correct first",
        [c for c in columns if c != human],
        default=[j for j in (g.judges if g else ()) if j != human],
        key=f"_dat_jj_{token}",
    )
    c3, c4, c5 = st.columns(3)
    opts = [_NONE, *columns]
    config = c3.selectbox(
        "Config column", opts, index=opts.index(g.config) if g and g.config else 0, key=f"_dat_jc_{token}"
    )
    case = c4.selectbox(
        "Case column (optional)",
        opts,
        index=opts.index(g.case) if g and g.case else 0,
        key=f"_dat_ji_{token}",
        help="The id of each case. When configs were run on the same cases, their differences are taken case by case.",
    )
    scales = ["numeric", "pairwise"]
    scale = c5.selectbox(
        "Scores are",
        scales,
        index=scales.index(g.scale if g else guess_scale(frame, [human, *judges])),
        format_func=lambda s: "numbers (or 0/1)" if s == "numeric" else "pairwise verdicts (1 / 2 / tie)",
        key=f"_dat_js_{token}",
    )
    if not judges:
        st.warning("Choose at least one judge score column.")
        return
    table = judge_evaluation(
        frame, list(judges), str(human), None if config == _NONE else config, None if case == _NONE else case, scale
    )
    n_h = int(table["human"].notna().sum())
    st.success(
        f"The file is a valid judge table: {len(table):,} rows, {table['config'].nunique():,} config(s), "
        f"{len(judges)} judge(s), human labels on {n_h:,} rows ({n_h / len(table):.0%}).",
        icon=":material/check_circle:",
    )
    st.caption(
        "Stored as an evaluation: the Judges page corrects the judge's scores with the human labels; Compare and the "
        "Planner read the first judge's score (put on 0-1) as each case's score."
    )
    st.markdown(f"**Preview** (first 10 of {len(table):,} rows, as stored)")
    exports.table(table.head(10), "upload_preview", download=False, hide_index=True)
    mapping = {"human": str(human), **{f"judge_{i + 1}": j for i, j in enumerate(judges)}}
    if config != _NONE:
        mapping["config"] = str(config)
    if case != _NONE:
        mapping["case"] = str(case)
    st.button(
        "Store and use this dataset",
        type="primary",
        key="dat_save",
        on_click=_store,
        args=(table, file_name, mapping),
        help="Stored under its content hash on this server; the Judges page then reads it, and links carry it.",
    )


def is_judge_table(ds: Dataset) -> bool:
    """Whether a stored evaluation holds judge scores beside human labels (:func:`nkcore.kinds.judge.detect_judge`)."""
    return cache.compute(detect_judge, ds) is not None


def judge_note(cannot_pair: str | None) -> None:
    """The Data page's view of a judge table: the Judges page reads it; when its configs share no case
    (``cannot_pair``, the paired parser's reason), its paired-results numbers are not shown."""
    if cannot_pair is None:
        st.caption(
            "This evaluation holds judge scores with human labels on a subset: the numbers below read the first "
            "judge's score (on 0-1) as each case's score; the Judges page corrects it with the human labels."
        )
    else:
        st.info(
            "This evaluation holds judge scores with human labels on a subset, and each config has cases of its own, "
            f"so there are no paired-results numbers to show ({md(cannot_pair)}). The Judges page reads it.",
            icon=":material/info:",
        )
    st.page_link("pages/7_Judges.py", label="Open Judges", icon=page.PAGE_ICONS["pages/7_Judges.py"])
