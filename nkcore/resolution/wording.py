"""How the Planner writes a difference in points and a discordance rate (the sentences of :mod:`nkcore.resolution`).

Points are formatted by :func:`nkcore.common.formatting.points`; a positive difference too small for one decimal
keeps two significant digits.
"""

from __future__ import annotations

from nkcore.common.formatting import percent, points

__all__ = ["discordance_text", "resolvable_points", "short_points"]


def short_points(x: float) -> str:
    """Points with one decimal; a positive difference below 0.05 points with two significant digits (a typed
    target of 0.0001 read 'Resolving 0.0 points').

    >>> short_points(0.019), short_points(0.0001), short_points(1e-300)
    ('1.9', '0.01', '1e-298')
    """
    if 0 < abs(x) < 0.0005:
        return f"{100.0 * abs(x):.2g}"
    return points(x, sign=False)


def discordance_text(d: float) -> str:
    """A discordance for reading: as typed when it has at most two decimals in percent ('6%', '6.25%'), else one
    decimal ('13.0%' for a measured 0.130284).

    >>> discordance_text(0.06), discordance_text(0.0625), discordance_text(0.130284)
    ('6%', '6.25%', '13.0%')
    """
    v = 100.0 * d
    if abs(v - round(v, 2)) < 1e-9:
        return f"{round(v, 2):g}%"
    return percent(d)


def resolvable_points(x: float) -> str:
    """A resolvable difference in points, or 'none' when it exceeds 100 points (nothing is resolvable).

    >>> resolvable_points(0.04), resolvable_points(float("inf"))
    ('4.0 points', 'none')
    """
    return f"{short_points(x)} points" if x <= 1.0 else "none"
