"""Numbers of the (N, K) results in words: p, gaps, counts, a number with its accuracy, the gap's shares (A
ahead, tied, B ahead), and how a simulated number agrees with the exact engine's (the page's verify check).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

TIE_TOLERANCE = 1e-12
"""Gaps within this of zero are ties: the float noise of a difference of equal means is far below it."""


@dataclass(frozen=True, slots=True)
class GapShares:
    """How a cell's alternative gaps split: ``ahead`` (gap > 0: A strictly ahead), ``behind`` (gap < 0) and
    ``tied`` (|gap| <= :data:`TIE_TOLERANCE`), summing to 1; ``all_tied``: every alternative and null gap is a tie
    (the two models agree on every item drawn: nothing to detect)."""

    ahead: float
    behind: float
    tied: float
    all_tied: bool


def gap_shares(alt: object, null: object | None = None) -> GapShares:
    """Shares of alternative gaps with A strictly ahead, strictly behind and tied.

    ahead = #{gap > tol} / R, behind = #{gap < -tol} / R, tied = #{|gap| <= tol} / R, tol = 1e-12.

    >>> gap_shares([0.1, -0.2, 0.0, 0.3])
    GapShares(ahead=0.5, behind=0.25, tied=0.25, all_tied=False)
    >>> gap_shares([0.0, 1e-17], [0.0, -1e-18]).all_tied
    True
    """
    a = np.asarray(alt, dtype=float).ravel()
    if a.size == 0:
        return GapShares(math.nan, math.nan, math.nan, False)
    everything = a if null is None else np.concatenate([a, np.asarray(null, dtype=float).ravel()])
    return GapShares(
        float(np.mean(a > TIE_TOLERANCE)),
        float(np.mean(a < -TIE_TOLERANCE)),
        float(np.mean(np.abs(a) <= TIE_TOLERANCE)),
        bool(np.all(np.abs(everything) <= TIE_TOLERANCE)),
    )


def fmt_gap(x: float) -> str:
    """A gap or interval width for reading: three significant digits, and 0 for float noise (|x| <= 1e-12).

    >>> fmt_gap(0.07412), fmt_gap(1e-17), fmt_gap(-3.3e-16)
    ('0.0741', '0', '0')
    """
    if not math.isfinite(x):
        return "n/a"
    return "0" if abs(x) <= TIE_TOLERANCE else f"{x:.3g}"


def shares_sentence(shares: GapShares, model_a: str = "A", model_b: str = "B") -> str:
    """Where the resampled evaluations put A: strictly ahead, strictly behind, tied; or that there is nothing to
    detect when the two models agree on every item drawn.

    >>> shares_sentence(GapShares(0.0, 0.0, 1.0, True), "m1", "m2")
    'These two models agree on every item: nothing to detect (every resampled gap is 0).'
    >>> shares_sentence(GapShares(0.6, 0.3, 0.1, False))
    'A is strictly ahead in 60% of the evaluations, B in 30%, and they tie in 10%.'
    """
    if shares.all_tied:
        return "These two models agree on every item: nothing to detect (every resampled gap is 0)."
    return (
        f"{model_a} is strictly ahead in {shares.ahead:.0%} of the evaluations, {model_b} in {shares.behind:.0%}, "
        f"and they tie in {shares.tied:.0%}."
    )


def fmt_int(x: int) -> str:
    """Thousands with commas: 2500 -> '2,500'."""
    return f"{int(x):,}"


def fmt_p(p: float) -> str:
    """A p-value for reading: '< 0.001', or three decimals.

    >>> fmt_p(0.0004), fmt_p(0.0312)
    ('< 0.001', '0.031')
    """
    if p is None or not math.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_phrase(p: float | None) -> str:
    """'p = 0.031' or 'p < 0.001' (never 'p = < 0.001').

    >>> p_phrase(0.0312), p_phrase(0.0)
    ('p = 0.031', 'p < 0.001')
    """
    text = fmt_p(p)  # type: ignore[arg-type]
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_alpha0(x: float) -> str:
    """alpha0 for reading: three significant digits, whole numbers with commas from 1,000 on (never 1.47e+03).

    >>> fmt_alpha0(4.4932), fmt_alpha0(1469.88), fmt_alpha0(0.0512)
    ('4.49', '1,470', '0.0512')
    """
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def fmt_error(value: float, error: float | None, fmt: Any) -> str:
    """A number with its accuracy in words: '0.031 (+/- 0.002)' (one standard error), '0.031 (exact)' when the
    error is 0, '0.0405 (exact to these digits)' when it is below half a unit of the last digit shown, and the
    number alone when its error is unknown (NaN).

    >>> fmt_error(0.0312, 0.0021, lambda x: f"{x:.3f}"), fmt_error(0.0312, 0.0, lambda x: f"{x:.3f}")
    ('0.031 (+/- 0.002)', '0.031 (exact)')
    >>> fmt_error(0.0405, 1e-6, lambda x: f"{x:.4f}"), fmt_error(0.5, math.nan, lambda x: f"{x:.1f}")
    ('0.0405 (exact to these digits)', '0.5')
    """
    text = str(fmt(value))
    if error is None or not math.isfinite(error) or not math.isfinite(value):
        return text
    if error == 0:
        return f"{text} (exact)"
    if "e" in text:
        unit = abs(value) * 1e-2
    else:
        decimals = text.split(".", 1)[1] if "." in text else ""
        unit = 10.0 ** -len(decimals)
    if error < unit / 2:
        return f"{text} (exact to these digits)"
    return f"{text} (+/- {error:.1g})"


def fmt_share_error(share: float, error: float | None) -> str:
    """A share (reproducibility) with its standard error beside it, in the same decimals: '0.77 ± 0.01'; more
    decimals when the error is smaller (at most four: '0.7677 ± 0.0004'), '(exact)' when it is 0, '(exact to these
    digits)' below 0.00005, the share alone when the error is unknown (NaN).

    >>> fmt_share_error(0.7712, 0.0123), fmt_share_error(0.76771, 0.0021), fmt_share_error(0.5, 0.0)
    ('0.77 ± 0.01', '0.768 ± 0.002', '0.50 (exact)')
    >>> fmt_share_error(0.99999, 1e-9), fmt_share_error(0.5, math.nan)
    ('1.0000 (exact to these digits)', '0.50')
    """
    if share is None or not math.isfinite(share):
        return "n/a"
    if error is None or not math.isfinite(error):
        return f"{share:.2f}"
    if error == 0:
        return f"{share:.2f} (exact)"
    if error < 5e-5:
        return f"{share:.4f} (exact to these digits)"
    decimals = min(4, max(2, -math.floor(math.log10(error))))
    return f"{share:.{decimals}f} ± {error:.{decimals}f}"


def is_exact_text(text: str) -> bool:
    """Whether ``fmt_error`` said the number is exact (to its digits)."""
    return text.endswith("(exact)") or text.endswith("(exact to these digits)")


def seed_summary(values: Sequence[float]) -> tuple[float, float]:
    """(mean, standard error of the mean) over seeds: sd / sqrt(seeds), a simulation's Monte Carlo error.

    >>> seed_summary([1.0, 3.0])
    (2.0, 1.0)
    """
    arr = np.asarray(values, dtype=float)
    if arr.size < 2:
        return float(arr.mean()), math.nan
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))


def agreement_z(engine_value: float, engine_error: float, sims: Sequence[float]) -> tuple[float, float, float]:
    """(mean, standard error, z) of a simulated number against the engine's:
    z = (mean(sims) - engine) / sqrt(se^2 + engine_error^2), 0 when they agree to 1e-12.

    >>> [round(x, 6) for x in agreement_z(0.5, 0.0, [0.4, 0.6])], round(agreement_z(0.3, 0.0, [0.4, 0.6])[2], 6)
    ([0.5, 0.1, 0.0], 2.0)
    """
    mean, se = seed_summary(sims)
    spread = math.sqrt(
        (se if math.isfinite(se) else 0.0) ** 2 + (engine_error if math.isfinite(engine_error) else 0.0) ** 2
    )
    diff = mean - engine_value
    z = 0.0 if abs(diff) <= 1e-12 else (diff / spread if spread > 0 else math.inf)
    return mean, se, z


__all__ = [
    "TIE_TOLERANCE",
    "GapShares",
    "agreement_z",
    "fmt_alpha0",
    "fmt_error",
    "fmt_gap",
    "fmt_int",
    "fmt_p",
    "fmt_share_error",
    "gap_shares",
    "is_exact_text",
    "p_phrase",
    "seed_summary",
    "shares_sentence",
]
