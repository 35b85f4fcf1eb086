"""``compare --sequential``: when an anytime-valid test reading the cases one by one first decided (JSON and text)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from nkcore import sequential

__all__ = ["print_sequential", "sequential_doc"]


def sequential_doc(frame: pd.DataFrame, doc: dict[str, Any], order: str | None = None) -> dict[str, Any]:
    """``compare --sequential``'s ``sequential`` document: ``decided_at`` (cases, or null), ``winner`` ("a", "b" or
    null), ``anytime_p``, ``low``, ``high`` (the confidence sequence on B minus A after the last case), ``looks``
    (a short list for plotting: ``n``, ``diff``, ``low``, ``high``, ``anytime_p``, ``decided``), and ``method``,
    ``order``, ``n_cases``, ``diff``, ``sentence``."""
    run = sequential.sequential_compare(frame, doc["a"]["config"], doc["b"]["config"], doc["alpha"], order)
    return {
        "decided_at": run.decided_at,
        "winner": run.winner,
        "winner_config": run.winner_config,
        "anytime_p": run.anytime_p,
        "low": run.low,
        "high": run.high,
        "diff": run.diff,
        "n_cases": run.n_cases,
        "alpha": run.significance,
        "method": run.method,
        "order": order if order is not None else "file order",
        "sentence": sequential.room_sentence(run, doc["p_value"], doc["diff"]),
        "looks": [
            {"n": x.n, "diff": x.diff, "low": x.low, "high": x.high, "anytime_p": x.anytime_p, "decided": x.decided}
            for x in run.looks
        ],
    }


def print_sequential(seq: dict[str, Any]) -> None:
    """The text of ``compare --sequential``: the sentence, the state after the last case and about eight looks of
    the running state (every k-th, the deciding one and the last)."""
    print(f"sequential ({seq['method']}; cases in {seq['order']}):")
    print(f"  {seq['sentence']}")
    print(
        f"  after {seq['n_cases']:,} cases: difference {100 * seq['diff']:+.1f} points, anytime p "
        f"{seq['anytime_p']:.3g}, {100 * (1 - seq['alpha']):g}% confidence sequence {100 * seq['low']:+.1f} to "
        f"{100 * seq['high']:+.1f}"
    )
    print("  running state (cases: difference, confidence sequence, anytime p):")
    looks = seq["looks"]
    step = max(1, len(looks) // 8)
    shown = [x for i, x in enumerate(looks) if i % step == 0 or x["n"] == seq["decided_at"] or i == len(looks) - 1]
    for x in shown:
        mark = "  <- decided" if x["n"] == seq["decided_at"] else ""
        print(
            f"    {x['n']:>7,}: {100 * x['diff']:+.1f} [{100 * x['low']:+.1f}, {100 * x['high']:+.1f}] "
            f"p {x['anytime_p']:.3g}{mark}"
        )
