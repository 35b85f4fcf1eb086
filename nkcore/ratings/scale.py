"""Whether labels are an ordered numeric scale (1-5, 0-10): the one test the ordinal metrics and the agreement level
(Krippendorff's ordinal alpha for ordered labels, nominal otherwise) share."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["label_values"]


def label_values(labels: Sequence[str]) -> np.ndarray | None:
    """The labels as numbers when every label is one and there are at least 3 (an ordered scale), else None.

    >>> label_values(["1", "2", "5"]).tolist(), label_values(["0", "1"]), label_values(["a", "b", "c"])
    ([1.0, 2.0, 5.0], None, None)
    """
    try:
        v = np.array([float(x) for x in labels])
    except (TypeError, ValueError):
        return None
    if v.size < 3 or not np.all(np.isfinite(v)) or np.unique(v).size != v.size:
        return None
    return v
