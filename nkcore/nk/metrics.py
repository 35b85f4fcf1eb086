"""The metrics of the (N, K) engine: their names, meaning and direction, and how a typed list is read.

Every metric depends only on per-item label COUNTS (gold: K ratings per item; a machine: its K responses,
or a fixed probability vector / hard label on real data). Their float implementations are in
``nkcore.nk.scores``; the fast integer kernel of the simulation is ``nkcore.nk.count_gaps``.

The paper's four metrics (spec "Metrics"):
- ``acc``  Accuracy: share of items whose plurality label (ties to the lowest category index) matches the gold
  plurality label. Larger is better.
- ``tv``   TV: mean over all N x M cells of |P_A(m|i) - P_G(m|i)|. Smaller is better.
- ``wins`` Wins: share of items where A is closer (per-item TV) to gold than B, minus the reverse. It is
  already a comparison of A with B, so it IS the gap.
- ``kl``   KL(P_G || P_A), natural log, with 1e-12 added to every count (the paper's convention). An item where
  gold has mass and A has none costs about ln(1e12) = 27.63 nats: the "KL artifact" (see ``kl_artifact_nats``).
Beyond the paper:
- ``kl_smooth`` KL with Jeffreys smoothing (add 1/2 to every count of gold and of a count machine, the
  Krichevsky-Trofimov estimate); probability machines are only floored at 1e-12.
- ``js``   Jensen-Shannon distance (square root of the JS divergence, natural log; bounded by sqrt(ln 2)).
- ``ce``   cross-entropy -sum_m P_G(m|i) log q_A(m|i), q Jeffreys-smoothed for count machines, floored at 1e-12
  for probability machines.
- ``f1``   macro F1 of A's plurality label against the gold plurality label (classes present in either).
Score gap (spec): Gamma(A,G) - Gamma(B,G) for larger-is-better metrics, Gamma(B,G) - Gamma(A,G) otherwise,
so a positive gap always means "A looks better".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError

KL_EPS = 1e-12
"""The paper's additive constant on counts for KL."""
JEFFREYS = 0.5
"""Pseudo-count of the smoothed KL and of the cross-entropy (Jeffreys / Krichevsky-Trofimov)."""


@dataclass(frozen=True, slots=True)
class MetricInfo:
    """What a metric is called and how to read it."""

    name: str
    label: str
    larger_is_better: bool
    paper: bool
    plain: str
    unit: str = "points"  # how a gap reads: "points" (a share x 100), "scale" (a 0-1 distance), "nats"


METRICS: dict[str, MetricInfo] = {
    "acc": MetricInfo(
        "acc", "Accuracy (plurality vote)", True, True, "share of items whose majority label matches the raters' one"
    ),
    "tv": MetricInfo(
        "tv", "TV (total variation)", False, True, "how far the label shares are from the raters' shares", "scale"
    ),
    "wins": MetricInfo("wins", "Wins", True, True, "items where A is closer to the raters than B, minus the reverse"),
    "kl": MetricInfo(
        "kl",
        "KL divergence (paper's version)",
        False,
        True,
        "KL divergence with the paper's 1e-12 added to counts",
        "nats",
    ),
    "kl_smooth": MetricInfo(
        "kl_smooth", "KL (smoothed, add 1/2)", False, False, "KL divergence with Jeffreys smoothing (add 1/2)", "nats"
    ),
    "js": MetricInfo(
        "js", "Jensen-Shannon distance", False, False, "symmetric, bounded distance between label shares", "scale"
    ),
    "ce": MetricInfo(
        "ce", "Cross-entropy", False, False, "surprise of the machine at the raters' labels (nats)", "nats"
    ),
    "f1": MetricInfo("f1", "Macro F1 (plurality)", True, False, "F1 of majority labels, averaged over the labels"),
}
PAPER_METRICS: tuple[str, ...] = ("acc", "tv", "wins", "kl")
ALL_METRICS: tuple[str, ...] = tuple(METRICS)
_ALIASES = {
    "accuracy": "acc",
    "kl_paper": "kl",
    "jsd": "js",
    "jensen_shannon": "js",
    "macro_f1": "f1",
    "klsmooth": "kl_smooth",
}


def parse_metrics(text: str | Sequence[str] | None, default: Sequence[str] = PAPER_METRICS) -> tuple[str, ...]:
    """Metric names from a comma list (or sequence), validated; ``None`` or ``"all"`` expand.

    >>> parse_metrics("acc, TV")
    ('acc', 'tv')
    """
    if text is None:
        return tuple(default)
    items = [t for t in (text.split(",") if isinstance(text, str) else text)]
    out: list[str] = []
    for raw in items:
        name = raw.strip().lower()
        if not name:
            continue
        if name == "all":
            out.extend(m for m in ALL_METRICS if m not in out)
            continue
        if name == "paper":
            out.extend(m for m in PAPER_METRICS if m not in out)
            continue
        name = _ALIASES.get(name, name)
        if name not in METRICS:
            raise DataError(f"unknown metric {raw.strip()!r}: choose from {', '.join(ALL_METRICS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise DataError("no metric given: choose from " + ", ".join(ALL_METRICS))
    return tuple(out)


def kl_artifact_nats(eps: float = KL_EPS) -> float:
    """Cost of one item where gold is unanimous and the machine put none of its responses there (K = 1).

    Formula: with K = 1, P_G = (1+e, e)/(1+2e) and P_A = (e, 1+e)/(1+2e), so KL ~ ln(1/e).
    Reference: spec "Metrics" (KL); the paper's toolkit adds 1e-12 to counts.

    >>> round(kl_artifact_nats(), 2)
    27.63
    """
    p = np.array([1.0 + eps, eps]) / (1.0 + 2.0 * eps)
    q = p[::-1]
    return float(np.sum(p * np.log(p / q)))


ITEM_METRICS: tuple[str, ...] = ("acc", "tv", "wins", "kl", "kl_smooth", "js", "ce")
"""Metrics that are a mean over items of a per-item score (so a paired per-item test applies); not F1."""


def is_larger_better(metric: str) -> bool:
    """True when a larger score is better (Accuracy, Wins, F1)."""
    return METRICS[metric].larger_is_better


__all__ = [
    "ALL_METRICS",
    "ITEM_METRICS",
    "JEFFREYS",
    "KL_EPS",
    "METRICS",
    "PAPER_METRICS",
    "MetricInfo",
    "is_larger_better",
    "kl_artifact_nats",
    "parse_metrics",
]
