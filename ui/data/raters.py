"""The Data page's "Who rated" section: ratings per rater, agreement with the other raters, alpha-changers.

``raters_section(ds)`` draws one sentence, the raters whose removal moves Krippendorff's alpha the most, and every
rater in an expander with a CSV download. Numbers come from :func:`nkcore.summary.raters.raters_frame` through
``ui.common.cache.compute``; rater ids (user text) reach the page only in tables, and sentences go through
``ui.common.text.md``.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from nkcore.errors import DataError
from nkcore.kinds.values import show_value
from nkcore.ratings import quality as nkquality
from nkcore.summary import raters as nkraters
from ui.common import cache, exports
from ui.common.datasets import Dataset
from ui.common.text import md

__all__ = ["MIN_SCORED", "TOP", "lowest_agreement", "raters_section", "raters_table"]

TOP = 10  # raters listed as moving alpha the most
MIN_SCORED = 20  # a rater's agreement is singled out only over at least this many scored ratings

COLUMNS = {
    "rater": "rater",
    "ratings": "ratings",
    "agreement": "agrees with the others",
    "alpha_without": "alpha without this rater",
    "alpha_change": "change in alpha",
    "quality": "estimated quality (Dawid-Skene)",
}


def raters_table(
    rows: tuple[nkraters.RaterRow, ...],
    quality: dict[str, float] | None = None,
    more: dict[str, dict[str, float]] | None = None,
) -> pd.DataFrame:
    """One row per rater with plain column names; agreement in percent (NaN when no other rater shares an item);
    with ``quality`` (rater -> Dawid-Skene quality, 0..1), its column in percent; ``more``: further columns (title ->
    rater -> quality, 0..1), in percent."""
    frame = pd.DataFrame(
        [
            {
                "rater": r.rater,
                "ratings": r.ratings,
                "agreement": 100.0 * r.agreement,
                "alpha_without": r.alpha_without,
                "alpha_change": r.alpha_change,
                "quality": 100.0 * quality.get(r.rater, math.nan) if quality is not None else math.nan,
            }
            for r in rows
        ],
        columns=list(COLUMNS),
    )
    if quality is None:
        frame = frame.drop(columns=["quality"])
    frame = frame.rename(columns=COLUMNS)
    for title, values in (more or {}).items():
        frame[title] = [100.0 * values.get(r.rater, math.nan) for r in rows]
    return frame


_CONFIG = {
    "agrees with the others": st.column_config.NumberColumn(
        format="%.1f%%",
        help="Share of this rater's ratings that match the most common label among the item's other ratings "
        "(a tie between t labels counts 1/t).",
    ),
    "alpha without this rater": st.column_config.NumberColumn(
        format="%.3f", help="Krippendorff's alpha (nominal) of the data with all of this rater's ratings removed."
    ),
    "change in alpha": st.column_config.NumberColumn(
        format="%+.3f", help="Alpha without this rater minus alpha with everyone: positive means the rest agree more."
    ),
    "estimated quality (Dawid-Skene)": st.column_config.NumberColumn(
        format="%.0f%%",
        help="The chance that this rater's label is the right one on a random item, estimated by the Dawid-Skene "
        "model (crowd-kit): every rater gets their own table of which label they give for each true label, fitted "
        "to who agrees with whom. Low quality: the model-weighted label counts this rater's ratings less.",
    ),
}


OTHER_MODELS = {
    "one-coin": "one accuracy per rater (errors spread evenly over the other labels)",
    "mace": "MACE: each rater's competence, the chance they give the true label rather than a label of their own habit",
    "glad": "GLAD: each rater's ability with each item's difficulty; here the chance to be right on a random item",
}
"""The other rater-quality models the section offers beside Dawid-Skene (``raters --aggregate``), in words."""


def _other_quality(ds: Dataset) -> dict[str, dict[str, float]]:
    """The quality columns of the models the reader added (a multiselect; each fit is cached): title -> rater ->
    quality. A model that cannot be fitted is said in a caption and left out."""
    chosen = st.multiselect(
        "Also estimate quality with",
        list(OTHER_MODELS),
        default=[],
        format_func=lambda m: nkquality.METHOD_NAMES[m],
        key="data_rater_models",
        help="Other rater-quality models from crowd-kit, as `raters --aggregate one-coin|mace|glad` gives them: "
        + "; ".join(OTHER_MODELS.values())
        + ". Each adds a column; MACE and GLAD take a while on large files.",
    )
    out: dict[str, dict[str, float]] = {}
    for method in chosen:
        try:
            agg = cache.compute(nkquality.quality_frame, ds, method=method)
        except DataError as exc:
            st.caption(md(str(exc)))
            continue
        out[f"estimated quality ({nkquality.METHOD_NAMES[method]})"] = {q.rater: q.quality for q in agg.raters}
        st.caption(md(nkquality.quality_sentence(agg)))
    return out


def _quality(ds: Dataset) -> tuple[dict[str, float] | None, str | None]:
    """Each rater's Dawid-Skene quality and the sentence about it, or (None, why not) when it cannot be fitted."""
    try:
        agg = cache.compute(nkquality.quality_frame, ds, method="dawid-skene")
    except DataError as exc:
        return None, str(exc)
    return {q.rater: q.quality for q in agg.raters}, nkquality.quality_sentence(agg)


def lowest_agreement(summary: nkraters.RaterSummary, min_scored: int = MIN_SCORED) -> nkraters.RaterRow | None:
    """The rater with the lowest agreement among those with at least ``min_scored`` scored ratings, when it is
    below half the overall agreement (a rater worth a look even if alpha barely moves without them); else None."""
    rows = [r for r in summary.raters if r.scored >= min_scored and math.isfinite(r.agreement)]
    if not rows or not math.isfinite(summary.agreement):
        return None
    low = min(rows, key=lambda r: (r.agreement, -r.ratings, r.rater))
    return low if low.agreement < summary.agreement / 2 else None


def raters_section(ds: Dataset) -> None:
    """Draw the per-rater summary of the ratings dataset ``ds`` (one row per rating, with a rater column).

    Label-count tables carry no rater ids: the section says so. A ``DataError`` is shown as a message and ends the
    section, not the page.
    """
    st.subheader("Who rated: ratings per rater and agreement")
    if "rater" not in ds.frame.columns:
        st.info("These ratings are label counts without rater ids, so there is nothing to say about single raters.")
        return
    try:
        summary = cache.compute(nkraters.raters_frame, ds, top=TOP)
    except DataError as exc:
        st.error(md(str(exc)))
        return
    st.markdown(md(summary.sentence))
    quality, said = _quality(ds)
    if said is not None:
        (st.markdown if quality is not None else st.caption)(md(said))
    low = lowest_agreement(summary)
    if low is not None:
        st.caption(
            md(
                f"Least in line with the others: rater {show_value(low.rater)} ({low.ratings:,} ratings) agrees with the rest on "
                f"{100 * low.agreement:.1f}% of their ratings, against {100 * summary.agreement:.1f}% overall."
            )
        )
    if summary.top_changers:
        st.caption(
            f"The {min(TOP, len(summary.top_changers))} raters whose ratings move Krippendorff's alpha "
            f"(now {summary.alpha:.3f}) the most when left out. A rater who raises alpha when left out labels "
            "differently from the rest: check their instructions or their work before dropping anyone."
        )
        exports.table(
            raters_table(summary.top_changers),
            "raters_alpha_changers",
            download=False,
            hide_index=True,
            width="stretch",
            column_config=_CONFIG,
        )
    more = ", with their estimated quality" if quality is not None else ""
    with st.expander(f"All {summary.n_raters:,} raters, most ratings first{more}"):
        other = _other_quality(ds) if quality is not None else {}
        config = _CONFIG | {t: st.column_config.NumberColumn(format="%.0f%%") for t in other}
        exports.table(
            raters_table(summary.raters, quality, other),
            "raters",
            hide_index=True,
            width="stretch",
            column_config=config,
        )
