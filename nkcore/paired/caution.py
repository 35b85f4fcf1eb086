"""The caution printed beside a paired interval that covers less often than its level (too few differing cases).

The paired bootstrap intervals (:func:`nkcore.paired.exact_paired_bootstrap`, :func:`nkcore.paired.case_bootstrap`)
are percentile intervals of a difference carried by the cases where the two configs differ; with fewer than 25
such cases their exact coverage falls to 0.50-0.93 at 95% (docs/coverage.md). The verdict's test (McNemar's exact
p, the sign-flip p) holds its level at any count, so the caution points to it. Threshold and figures:
:func:`nkcore.paired.bootstrap.interval_reliable`.
"""

from __future__ import annotations

from nkcore.common.formatting import plural
from nkcore.paired.bootstrap import FEW_CHANGED, interval_reliable

__all__ = ["interval_caution"]


def interval_caution(changed: int, same: int | None = None, repeats: bool = False) -> str | None:
    """The sentence beside a paired interval that is less reliable than its level, or None when it holds.

    ``changed``: cases where the configs differ (discordant cases; with ``repeats``, cases whose mean differs);
    ``same``: for 0/1 results, cases where they agree (see :func:`nkcore.paired.bootstrap.interval_reliable`).

    >>> interval_caution(3, 197)
    "this interval is less reliable: only 3 cases where the configs disagree (it covers the true difference less often than it says below 25); read the test's p"
    >>> interval_caution(40, 160) is None
    True
    """
    if interval_reliable(changed, same):
        return None
    what = "whose mean differs between the configs" if repeats else "where the configs disagree"
    if changed < FEW_CHANGED:
        count = "no case" if changed == 0 else f"only {plural(changed, 'case')}"
        return (
            f"this interval is less reliable: {count} {what} (it covers the true difference less often than it says "
            f"below {FEW_CHANGED}); read the test's p"
        )
    return (
        f"this interval is less reliable: the configs disagree on {changed} of {changed + (same or 0)} cases, almost "
        "all of them (it covers the true difference less often than it says); read the test's p"
    )
