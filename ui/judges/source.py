"""Which judge table the Judges page reads, and which of its columns is which (pickers bound to the link).

The page reads the evaluation in use (``?eval=``, :mod:`ui.common.evaluation`) when its stored table holds a human
score column beside judge score columns (a judge table stored on the Data page: :mod:`ui.data.judge`); otherwise it
says so in one sentence and shows the built-in example (``sample_data/judged_example.csv``, written by
``nkcore.sample_data``). The columns are guessed by :func:`nkcore.kinds.judge.detect_judge`; the pickers start on the
guess and are part of the link (``jdg_judges``, ``jdg_human``, ``jdg_config``, ``jdg_case``, ``jdg_scale``,
``jdg_alpha``).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from nkcore import io as nkio
from nkcore.errors import DataError
from nkcore.kinds.judge import JudgeGuess, detect_judge, score_columns
from ui.common import cache, evaluation, exports, page
from ui.common.datasets import SAMPLE_DIR, Dataset
from ui.common.evaluation import Evaluation
from ui.common.text import md
from ui.judges.compute import Choice

__all__ = ["EXAMPLE_NAME", "NO_CASE", "NO_CONFIG", "SCALES", "Source", "choose_source", "read_columns"]

EXAMPLE_FILE = SAMPLE_DIR / "judged_example.csv"
EXAMPLE_NAME = "the built-in example (judged: 3 prompts x 300 cases, 2 judges, human labels on 60 cases)"
NO_CONFIG = "(none: one config)"
NO_CASE = "(none: each config has its own cases)"
SCALES: dict[str, str] = {"numbers (or 0/1)": "numeric", "pairwise verdicts (1 / 2 / tie)": "pairwise"}
_KEYS = ("jdg_judges", "jdg_human", "jdg_config", "jdg_case", "jdg_scale")
_SEEN = "_jdg_dataset"


@dataclass(frozen=True, slots=True)
class Source:
    """The judge table the page reads: ``ds``, the column ``guess``, whether it is the built-in ``example``, and
    ``ev`` (the evaluation in use)."""

    ds: Dataset
    guess: JudgeGuess
    example: bool
    ev: Evaluation


@st.cache_resource(show_spinner=False, max_entries=2)
def _example() -> Dataset:
    frame = nkio.read_table(EXAMPLE_FILE)
    fp = nkio.fingerprint(frame)
    return Dataset(id=fp, name=EXAMPLE_NAME, kind="paired", fingerprint=fp, frame=frame, builtin=True)


def choose_source() -> Source:
    """The evaluation in use when it holds human labels beside judge scores, else the built-in example (said in one
    sentence); the page's data line."""
    ev = evaluation.choose_evaluation()
    guess = None if ev.builtin else cache.compute(detect_judge, ev.source)
    if guess is not None:
        src = Source(ev.source, guess, False, ev)
        st.caption(f"**Data:** {md(ev.name)} (`{ev.id[:8]}`) · judge scores with human labels")
    else:
        ex = _example()
        example_guess = cache.compute(detect_judge, ex)
        assert example_guess is not None  # the example is a judge table (tests/app/test_judges.py)
        src = Source(ex, example_guess, True, ev)
        st.caption(
            f"**Data:** {EXAMPLE_NAME}. Upload your own judge scores with human labels on the Data page and they are "
            "used here."
        )
        if not ev.builtin:
            st.info(
                f"{md(ev.name)} has no human labels beside a judge's scores (a column such as `human`, empty where no "
                "human labelled the case), so this page shows the built-in example.",
                icon=":material/info:",
            )
    exports.note_dataset(src.ds.name, src.ds.id, "paired", (), frame=src.ds.frame)
    return src


def _forget_other_dataset(ds: Dataset) -> None:
    """A new table: the pickers start on its guess (a value the link carries is kept)."""
    if st.session_state.get(_SEEN) == ds.fingerprint:
        return
    for key in _KEYS:
        if key not in st.query_params:
            st.session_state.pop(key, None)
    st.session_state[_SEEN] = ds.fingerprint


def read_columns(src: Source) -> Choice:
    """The column pickers (in an expander under the data line), started on the guess; the choice they make."""
    frame = src.ds.frame
    g = src.guess
    _forget_other_dataset(src.ds)
    columns = [str(c) for c in frame.columns]
    scores = score_columns(frame)
    humans = list(dict.fromkeys([g.human, *scores]))
    with st.expander(
        "Columns: which is the judge, the human label, the config and the case", icon=":material/view_column:"
    ):
        c1, c2 = st.columns(2)
        page.fit_choices("jdg_human", humans)
        human = str(
            c1.selectbox(
                "Human score (empty where no human labelled the case)",
                humans,
                index=0,
                key="jdg_human",
                bind="query-params",
            )
        )
        options = [c for c in scores if c != human]
        page.fit_choices("jdg_judges", options)
        judges = c2.multiselect(
            "Judge score column(s); the first is the one corrected",
            options,
            default=[j for j in g.judges if j in options],
            key="jdg_judges",
            bind="query-params",
            help="Several judges are also compared with each other and with the humans (the last section).",
        )
        c3, c4, c5 = st.columns(3)
        configs = [NO_CONFIG, *columns]
        page.fit_choices("jdg_config", configs)
        config = str(
            c3.selectbox(
                "Config column",
                configs,
                index=configs.index(g.config) if g.config in configs else 0,
                key="jdg_config",
                bind="query-params",
            )
        )
        cases = [NO_CASE, *columns]
        default_case = g.case
        page.fit_choices("jdg_case", cases)
        case = str(
            c4.selectbox(
                "Case column (configs run on the same cases)",
                cases,
                index=cases.index(default_case) if default_case in cases else 0,
                key="jdg_case",
                bind="query-params",
                help="When every config was run on the same cases, their differences are taken case by case (paired). "
                "Choose none when each case belongs to one config.",
            )
        )
        words = list(SCALES)
        page.fit_choices("jdg_scale", words)
        scale = str(
            c5.selectbox(
                "Scores are",
                words,
                index=words.index(next(w for w, s in SCALES.items() if s == g.scale)),
                key="jdg_scale",
                bind="query-params",
                help="Pairwise verdicts are read as response 1's score: 1 (response 1 better) = 1, 2 = 0, tie = 0.5.",
            )
        )
        significance = st.select_slider(
            "How sure: significance level (alpha); intervals are at 1 - alpha",
            options=[0.01, 0.05, 0.1],
            value=0.05,
            key="jdg_alpha",
            bind="query-params",
            help="0.05 gives 95% intervals; a difference between configs is called when its interval excludes 0.",
        )
    if not judges:
        raise DataError("choose at least one judge score column (under Columns, above)")
    return Choice(
        judges=tuple(str(j) for j in judges),
        human=human,
        config=None if config == NO_CONFIG else config,
        case=None if case == NO_CASE else case,
        scale=SCALES[scale],
        significance=float(significance),
    )
