"""The pieces every dataset summary is made of: one number with its sentence, label shares, number formats.

A summary's ``numbers`` are what the Data page shows as metrics and ``nkcore data`` prints, in order; every
number carries a plain-language sentence and uses the glossary's words ("items (N)", "ratings per item (K)",
"samples per request (n)").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.common.formatting import percent, shorten

__all__ = ["LabelShare", "SummaryNumber", "label_shares", "number_text", "share_text", "short_name", "whole"]


@dataclass(frozen=True, slots=True)
class SummaryNumber:
    """One number of a summary: ``label`` (glossary words, e.g. "items (N)"), ``value`` (NaN when undefined),
    ``display`` (formatted for people) and ``sentence`` (what it means, in plain words)."""

    label: str
    value: float
    display: str
    sentence: str


@dataclass(frozen=True, slots=True)
class LabelShare:
    """How often one label occurs: ``count`` and ``share`` of the total."""

    label: str
    count: int
    share: float


def label_shares(names: Sequence[str], counts: np.ndarray) -> tuple[LabelShare, ...]:
    """One :class:`LabelShare` per label: share = count / total count (a total of 0 counts as 1).

    >>> [(s.label, s.share) for s in label_shares(["x", "y"], np.array([1, 3]))]
    [('x', 0.25), ('y', 0.75)]
    """
    total = max(int(np.sum(counts)), 1)
    return tuple(LabelShare(str(n), int(c), float(c) / total) for n, c in zip(names, counts, strict=True))


def whole(n: float) -> str:
    """A count with thousands separators: ``whole(20125) == '20,125'``."""
    return f"{int(n):,}"


def number_text(x: float) -> str:
    """A whole number without decimals, anything else with one; "n/a" when undefined.

    >>> number_text(3.0), number_text(2.5), number_text(float("nan"))
    ('3', '2.5', 'n/a')
    """
    if not math.isfinite(x):
        return "n/a"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def share_text(x: float) -> str:
    """:func:`nkcore.common.formatting.percent`, or "n/a" when the share is undefined.

    >>> share_text(0.1234), share_text(float("nan"))
    ('12.3%', 'n/a')
    """
    return "n/a" if not math.isfinite(x) else percent(x)


def short_name(name: object, limit: int = 40) -> str:
    """A user's name (config, model) cut for a sentence or a label (:func:`nkcore.common.formatting.shorten`).

    >>> short_name("a-very-long-config-name", limit=10)
    'a-very-lo…'
    """
    return shorten(name, limit)
