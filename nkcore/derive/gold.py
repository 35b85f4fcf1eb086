"""Gold labels of items: the plurality of their ratings (ties dropped or any tied label) or a gold column."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nkcore.common.formatting import count
from nkcore.errors import DataError
from nkcore.kinds import show_value, to_text
from nkcore.ratings import Ratings

__all__ = ["NOT_EVERY", "NOT_RATED", "NO_GOLD", "TIED", "TIES", "accepted_labels", "drop_reasons", "gold_from_column"]


TIES: tuple[str, ...] = ("drop", "any")
"""How an item whose plurality is tied is handled: ``drop`` leaves it out; ``any`` accepts any tied label."""

# Reasons an item is left out, in the order they are checked (an item counts under the first that applies).
NO_GOLD = "no gold label"
TIED = "tied plurality"
NOT_EVERY = "not predicted by every model"
NOT_RATED = "not in the gold labels"


def accepted_labels(
    gold: Ratings | Mapping[str, str], items: Sequence[str], labels: Sequence[str], ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Per item of ``items``: (accepted[i, m] for m in ``labels``, has_gold, tied, the gold rule in words)."""
    if ties not in TIES:
        raise DataError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    n, m = len(items), len(labels)
    accept = np.zeros((n, m), dtype=bool)
    tied = np.zeros(n, dtype=bool)
    if isinstance(gold, Ratings):
        pos = pd.Index(gold.items).get_indexer(list(items))
        has = pos >= 0
        counts = gold.counts[pos[has]]
        top = counts == counts.max(axis=1, keepdims=True)
        tied[has] = top.sum(axis=1) >= 2
        lab_pos = pd.Index(gold.labels).get_indexer(list(labels))
        known = lab_pos >= 0
        sub = np.zeros((int(has.sum()), m), dtype=bool)
        sub[:, known] = top[:, lab_pos[known]]
        accept[has] = sub
        rule = "gold = the plurality label of each item's ratings"
    else:
        values = [gold.get(item) for item in items]
        has = np.array([v is not None and str(v) != "" for v in values], dtype=bool)
        codes = pd.Index(list(labels)).get_indexer([str(v) if v is not None else "" for v in values])
        hit = has & (codes >= 0)
        accept[np.flatnonzero(hit), codes[hit]] = True
        rule = "gold = the gold column"
    return accept, has, tied, rule


def gold_from_column(frame: pd.DataFrame, item_col: str, gold_col: str) -> dict[str, str]:
    """Item id -> gold label from a column of a predictions table (every row of an item must give the same label).

    Blank gold cells are ignored (that row states no gold); DataError when the column is missing or an item has two
    different gold labels.

    >>> gold_from_column(pd.DataFrame({"item": [1, 1, 2], "gold": ["x", "x", None]}), "item", "gold")
    {'1': 'x'}
    """
    for col in (item_col, gold_col):
        if col not in frame.columns:
            raise DataError(
                f"no column {col!r} in the predictions table; its columns are {', '.join(map(str, frame.columns[:20]))}"
            )
    pairs = pd.DataFrame({"item": to_text(frame[item_col]), "gold": to_text(frame[gold_col])}).dropna()
    pairs = pairs[(pairs["item"] != "") & (pairs["gold"] != "")].drop_duplicates()
    clash = pairs["item"].duplicated(keep=False)
    if clash.any():
        item = pairs.loc[clash, "item"].iloc[0]
        shown = ", ".join(map(show_value, pairs.loc[pairs["item"] == item, "gold"].tolist()[:4]))
        raise DataError(
            f"item {show_value(item)} has different gold labels in column {gold_col!r} ({shown}) "
            f"({count(int(clash.sum()), 'row')} disagree); give one gold label per item"
        )
    return dict(zip(pairs["item"].tolist(), pairs["gold"].tolist(), strict=True))


def drop_reasons(reasons: list[tuple[str, np.ndarray]]) -> tuple[np.ndarray, tuple[tuple[str, int], ...]]:
    """Keep mask and (reason, count) from masks of items to drop, each item counted under its first reason."""
    n = len(reasons[0][1])
    gone = np.zeros(n, dtype=bool)
    out = []
    for reason, mask in reasons:
        new = mask & ~gone
        if new.any():
            out.append((reason, int(new.sum())))
        gone |= new
    return ~gone, tuple(out)
