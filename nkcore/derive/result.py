"""The result of a derivation: the derived table, its kind, its sources and what was left out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from nkcore.io import fingerprint

__all__ = ["Derived"]


@dataclass(frozen=True, slots=True, eq=False)
class Derived:
    """A derived table and where it came from.

    ``frame``: the canonical table (paired: case, config, correct; samples: case, sample, answer, gold);
    ``kind``: "paired" or "samples"; ``source_ids``: ids of the datasets it was derived from;
    ``notes``: plain sentences (gold rule, ties, runs); ``configs``: the models (paired) or runs (samples), in
    order; ``items_kept``: cases in the table; ``dropped``: (reason, items) pairs, reasons in check order.
    """

    frame: pd.DataFrame
    kind: str
    source_ids: tuple[str, ...]
    notes: tuple[str, ...]
    configs: tuple[str, ...]
    items_kept: int
    dropped: tuple[tuple[str, int], ...]

    @property
    def items_dropped(self) -> int:
        """Items left out, all reasons together."""
        return sum(n for _, n in self.dropped)

    @property
    def id(self) -> str:
        """The id the store gives this table (:func:`nkcore.io.fingerprint` of ``frame``)."""
        return fingerprint(self.frame)

    def summary(self) -> dict[str, Any]:
        """The JSON summary: kind, n_rows, configs, items_kept, items_dropped, dropped (by reason), notes, ids."""
        return {
            "kind": self.kind,
            "id": self.id,
            "n_rows": len(self.frame),
            "configs": list(self.configs),
            "items_kept": self.items_kept,
            "items_dropped": self.items_dropped,
            "dropped": dict(self.dropped),
            "notes": list(self.notes),
            "source_ids": list(self.source_ids),
        }
