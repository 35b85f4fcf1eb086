"""Per-rater summary of a ratings table with rater ids: how much each rater rated, how often they agree with the
others, and whose ratings move the agreement (Krippendorff's alpha) the most.

- ratings per rater;
- agreement with the leave-one-out plurality: for each of a rater's ratings, the plurality of the item's OTHER
  ratings; a rating counts 1 when its label is the only most common one, 1/t when it is one of t tied most common
  labels (a random tie-break's expected agreement), 0 otherwise; ratings of items nobody else rated are not scored;
- leave-one-rater-out alpha: nominal Krippendorff's alpha with all of one rater's ratings removed, computed from the
  value-counts form of alpha by subtracting that rater's contributions (O(ratings + raters x labels) for all raters,
  instead of one full recomputation per rater).

Value-counts form (Krippendorff 2011, section C, nominal): for an item u with m_u >= 2 ratings and label counts
n_uc, its coincidences add n_uc to the label totals n_c and D_u = m_u - (sum_c n_uc^2 - m_u) / (m_u - 1) to the
observed disagreement D = sum_{c != k} o_ck; alpha = 1 - (n - 1) D / (n^2 - sum_c n_c^2) with n = sum_c n_c.
Removing one rating of label l from u changes sum_c n_uc^2 by -2 n_ul + 1 and m_u by -1 (an item left with one
rating leaves the pairable data).

Reference: K. Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011); Pandita et al., arXiv 2605.13801
(rater identity in evaluations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from nkcore.common.formatting import percent, plural
from nkcore.kinds.values import show_value
from nkcore.ratings.raters import RaterRatings, rater_ratings_from_frame
from nkcore.summary.ratings import alpha_level, krippendorff_alpha, scale_alpha

__all__ = [
    "RaterRow",
    "RaterSummary",
    "alpha_from_parts",
    "alpha_parts",
    "leave_one_out_agreement",
    "leave_one_rater_out_alpha",
    "raters_frame",
    "raters_sentence",
    "summarize_raters",
]

TOP_CHANGERS = 10
"""How many raters the summary lists as the ones whose removal moves alpha the most."""
NOTABLE_CHANGE = 0.01
"""A change of alpha smaller than this when one rater is left out is reported as "no single rater stands out"."""


@dataclass(frozen=True, slots=True)
class RaterRow:
    """One rater: ``ratings``; ``scored``: ratings on items somebody else also rated; ``agreement``: mean agreement
    with the leave-one-out plurality over the scored ratings (NaN when none); ``alpha_without``: alpha with this
    rater's ratings removed; ``alpha_change`` = alpha_without - alpha (positive: the data agree more without them)."""

    rater: str
    ratings: int
    scored: int
    agreement: float
    alpha_without: float
    alpha_change: float


@dataclass(frozen=True, slots=True)
class RaterSummary:
    """Per-rater summary (see :func:`summarize_raters`).

    ``alpha``: nominal Krippendorff's alpha, the one the leave-one-rater-out changes are measured on;
    ``scale_alpha`` at ``scale_level``: the alpha the labels call for (ordinal for an ordered numeric scale such as
    1-5, else nominal: :func:`nkcore.summary.ratings.scale_alpha`); ``raters``: every rater, most ratings first;
    ``top_changers``: the raters whose removal changes alpha the most (largest |alpha_change| first);
    ``ratings_per_rater``: (min, median, max); ``agreement``: share of all scored ratings that agree with the
    leave-one-out plurality; ``sentence``: the headline.
    """

    n_raters: int
    n_ratings: int
    n_items: int
    alpha: float
    ratings_per_rater: tuple[int, float, int]
    agreement: float
    raters: tuple[RaterRow, ...]
    top_changers: tuple[RaterRow, ...]
    sentence: str
    scale_alpha: float = float("nan")
    scale_level: str = "nominal"


def alpha_parts(counts: np.ndarray) -> tuple[np.ndarray, float]:
    """The value-counts parts of nominal alpha: pairable label totals n_c (M,) and observed disagreement D.

    Formula: over items u with m_u >= 2 ratings, n_c = sum_u n_uc and D = sum_u m_u - (sum_c n_uc^2 - m_u) / (m_u - 1).

    >>> n_c, d = alpha_parts(np.array([[3, 0], [0, 3], [2, 1], [1, 0]]))
    >>> n_c.tolist(), d
    ([5, 4], 2.0)
    """
    c = np.asarray(counts, dtype=np.int64)
    m_u = c.sum(axis=1)
    pair = m_u >= 2
    cp, mp = c[pair], m_u[pair].astype(float)
    s = (cp.astype(float) ** 2).sum(axis=1)
    return cp.sum(axis=0), float(np.sum(mp - (s - mp) / (mp - 1.0)))


def alpha_from_parts(n_c: np.ndarray, d: float | np.ndarray) -> float | np.ndarray:
    """Nominal alpha = 1 - (n - 1) D / (n^2 - sum_c n_c^2) from :func:`alpha_parts` (last axis of ``n_c``: labels).

    NaN when undefined (fewer than two labels among the pairable ratings).

    >>> round(float(alpha_from_parts(np.array([5, 4]), 2.0)), 4)  # the doctest of krippendorff_alpha: 0.6
    0.6
    """
    nc = np.asarray(n_c, dtype=float)
    n = nc.sum(axis=-1)
    den = n**2 - (nc**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, 1.0 - (n - 1.0) * np.asarray(d, dtype=float) / np.where(den > 0, den, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def leave_one_rater_out_alpha(rr: RaterRatings) -> np.ndarray:
    """Nominal Krippendorff's alpha without each rater's ratings, one value per rater (``rr.raters`` order).

    Computed by subtracting each rater's contributions from :func:`alpha_parts` (see the module docstring);
    equal to :func:`nkcore.summary.ratings.krippendorff_alpha` on the reduced counts.

    >>> from nkcore.ratings.raters import rater_ratings
    >>> rr = rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [0, 0, 1, 1, 1, 1])
    >>> [round(float(a), 3) for a in leave_one_rater_out_alpha(rr)]  # without rater 2 the raters agree fully
    [0.0, 0.0, 1.0]
    """
    counts = rr.ratings.counts
    m = counts.shape[1]
    n_c, d = alpha_parts(counts)
    it, ra, la = rr.item_codes, rr.rater_codes, rr.label_codes
    m_u = counts.sum(axis=1)[it].astype(float)
    s_u = (counts.astype(float) ** 2).sum(axis=1)[it]
    n_ul = counts[it, la].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_before = np.where(m_u >= 2, m_u - (s_u - m_u) / (m_u - 1.0), 0.0)
        m2, s2 = m_u - 1.0, s_u - 2.0 * n_ul + 1.0
        d_after = np.where(m2 >= 2, m2 - (s2 - m2) / (m2 - 1.0), 0.0)
    n_r = rr.n_raters
    dd = np.bincount(ra, weights=d_after - d_before, minlength=n_r)
    dv = np.zeros(n_r * m)
    pairable = m_u >= 2
    dv -= np.bincount(ra[pairable] * m + la[pairable], minlength=n_r * m)
    two = m_u == 2  # the item's other rating leaves the pairable data too
    if np.any(two):
        other = counts[it[two]].copy()
        other[np.arange(other.shape[0]), la[two]] -= 1
        dv -= np.bincount(ra[two] * m + np.argmax(other, axis=1), minlength=n_r * m)
    return np.asarray(alpha_from_parts(n_c[None, :] + dv.reshape(n_r, m), d + dd), dtype=float)


def leave_one_out_agreement(rr: RaterRatings) -> tuple[np.ndarray, np.ndarray]:
    """Per rating: agreement with the plurality of the item's other ratings, and whether it could be scored.

    Agreement = [n'_l = max n'] / #{labels at the max}, n' = the item's counts without this rating, l its label;
    not scored (False) when the item has no other rating.

    >>> from nkcore.ratings.raters import rater_ratings
    >>> a, ok = leave_one_out_agreement(rater_ratings([0, 0, 0, 1, 1, 2], [0, 1, 2, 0, 1, 0], [0, 0, 1, 0, 1, 1]))
    >>> a.tolist(), ok.tolist()
    ([0.5, 0.5, 0.0, 0.0, 0.0, 0.0], [True, True, True, True, True, False])
    """
    counts = rr.ratings.counts
    it, la = rr.item_codes, rr.label_codes
    others = counts[it].copy()
    rows = np.arange(it.size)
    others[rows, la] -= 1
    top = others.max(axis=1)
    tied = (others == top[:, None]).sum(axis=1)
    ok = others.sum(axis=1) > 0
    agree = np.where(ok & (others[rows, la] == top), 1.0 / tied, 0.0)
    return agree, ok


def summarize_raters(rr: RaterRatings, top: int = TOP_CHANGERS) -> RaterSummary:
    """Ratings per rater, agreement with the leave-one-out plurality, and the top alpha-changers.

    >>> from nkcore.ratings.raters import rater_ratings
    >>> s = summarize_raters(rater_ratings([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [0, 0, 1, 1, 1, 1]))
    >>> s.top_changers[0].rater, round(s.top_changers[0].alpha_change, 3)
    ('2', 0.625)
    """
    n_r = rr.n_raters
    per = np.bincount(rr.rater_codes, minlength=n_r)
    agree, ok = leave_one_out_agreement(rr)
    scored = np.bincount(rr.rater_codes[ok], minlength=n_r)
    agree_sum = np.bincount(rr.rater_codes[ok], weights=agree[ok], minlength=n_r)
    alpha = krippendorff_alpha(rr.ratings.counts)
    loo = leave_one_rater_out_alpha(rr)
    rows = [
        RaterRow(
            rater=rr.raters[r],
            ratings=int(per[r]),
            scored=int(scored[r]),
            agreement=float(agree_sum[r] / scored[r]) if scored[r] else float("nan"),
            alpha_without=float(loo[r]),
            alpha_change=float(loo[r] - alpha),
        )
        for r in range(n_r)
    ]
    by_ratings = sorted(rows, key=lambda x: (-x.ratings, x.rater))
    finite = [x for x in rows if math.isfinite(x.alpha_change)]
    changers = sorted(finite, key=lambda x: (-abs(x.alpha_change), x.rater))[: max(0, int(top))]
    overall = float(agree[ok].mean()) if ok.any() else float("nan")
    summary = RaterSummary(
        n_raters=n_r,
        n_ratings=int(rr.item_codes.size),
        n_items=len(rr.ratings.items),
        alpha=alpha,
        ratings_per_rater=(int(per.min()), float(np.median(per)), int(per.max())),
        agreement=overall,
        raters=tuple(by_ratings),
        top_changers=tuple(changers),
        sentence="",
    )
    level = alpha_level(tuple(rr.ratings.labels))
    scale = alpha if level == "nominal" else scale_alpha(rr.ratings)[0]
    summary = replace(summary, scale_alpha=scale, scale_level=level)
    return replace(summary, sentence=raters_sentence(summary))


def raters_sentence(s: RaterSummary) -> str:
    """The per-rater headline: how the ratings are spread over raters, agreement, and the biggest alpha-changer.

    >>> row = RaterRow("r1", 40, 40, 0.5, 0.45, 0.05)
    >>> s = RaterSummary(3, 60, 20, 0.4, (10, 10.0, 40), 0.8, (row,), (row,), "")
    >>> raters_sentence(s)[:78]
    '3 raters gave 60 ratings (10 to 40 each, median 10); 80.0% of ratings match th'
    """
    lo, med, hi = s.ratings_per_rater
    med_text = f"{med:,g}"
    head = (
        f"{plural(s.n_raters, 'rater')} gave {s.n_ratings:,} ratings ({lo:,} to {hi:,} each, median {med_text})"
        if lo != hi
        else f"{plural(s.n_raters, 'rater')} gave {s.n_ratings:,} ratings ({lo:,} each)"
    )
    agree = (
        f"; {percent(s.agreement)} of ratings match the most common label among the other ratings of the same item"
        if math.isfinite(s.agreement)
        else "; no item has two ratings, so agreement cannot be computed"
    )
    scale = (
        f" For these ordered labels the {s.scale_level} alpha is the one to read: {s.scale_alpha:.3f}."
        if s.scale_level != "nominal" and math.isfinite(s.scale_alpha)
        else ""
    )
    nominal = "nominal " if s.scale_level != "nominal" else ""
    if not s.top_changers or not math.isfinite(s.alpha):
        return head + agree + "." + scale
    t = s.top_changers[0]
    if abs(t.alpha_change) < NOTABLE_CHANGE:
        return (
            f"{head}{agree}. No single rater moves agreement much: leaving out any one of them moves Krippendorff's "
            f"{nominal}alpha ({s.alpha:.3f}) by less than {NOTABLE_CHANGE}.{scale}"
        )
    verb = "raises" if t.alpha_change > 0 else "lowers"
    return (
        f"{head}{agree}. Leaving out rater {show_value(t.rater)} ({plural(t.ratings, 'rating')}) {verb} "
        f"Krippendorff's {nominal}alpha the most, from {s.alpha:.3f} to {t.alpha_without:.3f}.{scale}"
    )


def raters_frame(frame: pd.DataFrame, top: int = TOP_CHANGERS) -> RaterSummary:
    """:func:`summarize_raters` of a ratings table (item, rater, label; one row per rating).

    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": list("abab"), "label": list("xxxy")})
    >>> raters_frame(df).ratings_per_rater
    (2, 2.0, 2)
    """
    return summarize_raters(rater_ratings_from_frame(frame), top)
