"""Checks of the planner's own inputs (cases, discordance, a target difference) and the ceilings of its searches.

Alpha and power are checked by :mod:`nkcore.common.checks`; everything here raises ``DataError`` with one line
naming the value and how to fix it, for any float a user can type (nan, inf, 1e308, denormals).
"""

from __future__ import annotations

import math

import numpy as np

from nkcore.common import limits
from nkcore.errors import DataError

__all__ = ["MAX_CASES", "SEARCH_CEILING", "check_cases", "check_discordance", "check_target", "max_cases"]

MAX_CASES = limits.LIMITS["cases"].default
"""Default largest number of cases taken as input (10,000,000; the server setting NKP_MAX_CASES changes it)."""

SEARCH_CEILING = 10**9
"""Largest number of cases a "cases for a target" answer reports; beyond it the answer is None ("more than ...")."""


def max_cases() -> int:
    """The largest number of cases taken as input now: the limit "cases" of :mod:`nkcore.common.limits`.

    >>> max_cases() == MAX_CASES  # without the server setting NKP_MAX_CASES
    True
    """
    return limits.get("cases")


def _is_real(x: object) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def check_cases(cases: float) -> int:
    """A number of evaluation cases: a whole number from 1 to :func:`max_cases`.

    >>> check_cases(200.0)
    200
    """
    if not _is_real(cases) or not math.isfinite(cases):
        raise DataError(f"the number of cases must be a whole number of at least 1; got {cases!r}")
    if int(cases) != cases or cases < 1:
        raise DataError(f"the number of cases must be a whole number of at least 1; got {cases}")
    cap = max_cases()
    if cases > cap:
        shown = f"{int(cases):,}" if cases < 1e15 else f"{float(cases):.3g}"
        raise DataError(
            f"the number of cases must be at most {cap:,} (server setting {limits.LIMITS['cases'].env}; the exact "
            f"computations take too long beyond); got {shown}"
        )
    return int(cases)


def check_discordance(discordance: float) -> float:
    """The share of cases two configs disagree on: above 0, at most 1 (a percentage gets a hint).

    >>> check_discordance(0.06)
    0.06
    """
    if not _is_real(discordance) or not (0.0 < discordance <= 1.0):
        hint = ""
        if _is_real(discordance) and 1.0 < discordance <= 100.0:
            hint = f" (as a fraction: {discordance / 100:g} for {discordance:g}%)"
        raise DataError(
            "discordance is the share of cases two configs disagree on, a fraction above 0 and at most 1 "
            f"(6% = 0.06); got {discordance}{hint}"
        )
    return float(discordance)


def check_target(target_diff: float, discordance: float) -> float:
    """A difference to resolve: above 0, at most 1 and at most the discordance (already checked).

    >>> check_target(0.01, 0.06)
    0.01
    """
    if not _is_real(target_diff) or not (0.0 < target_diff <= 1.0):
        raise DataError(
            f"the target difference is a fraction above 0 and at most 1 (1 point = 0.01); got {target_diff}"
        )
    if target_diff > discordance:
        raise DataError(
            f"the target difference {target_diff:g} is larger than the discordance {discordance:g}: two configs can "
            "never differ by more than the share of cases they disagree on"
        )
    return float(target_diff)
