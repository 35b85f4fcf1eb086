"""Cost & latency's numbers: the table of configurations (flat n and the adaptive rule) for the inputs, cached on
the dataset's fingerprint (:func:`nkcore.cost.build_table_from_frame`)."""

from __future__ import annotations

from nkcore import cost
from nkcore.cost import CostTable
from ui.common import cache, datasets
from ui.cost.controls import Inputs

__all__ = ["cost_table"]


def cost_table(ds: datasets.Dataset, inputs: Inputs, with_rule: bool) -> CostTable:
    """Accuracy, latency percentiles and money per configuration; the adaptive row only ``with_rule``."""
    ns, n0, m, trigger, price, volume = inputs.ns, inputs.n0, inputs.m, inputs.trigger, inputs.price, inputs.volume
    lat_kind, typed, p50, p95 = inputs.lat_kind, inputs.typed, inputs.p50, inputs.p95
    table: CostTable = cache.compute(
        cost.build_table_from_frame,
        ds,
        ns=tuple(sorted(int(n) for n in ns)),
        n0=int(n0),
        m=int(m),
        adaptive=with_rule,
        trigger=trigger,
        price=float(price),
        requests_per_month=float(volume),
        latency=lat_kind,
        p50_s=float(p50) if typed else None,
        p95_s=float(p95) if typed else None,
    )

    return table
