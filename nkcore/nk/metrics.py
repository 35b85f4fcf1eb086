"""The metrics of the (N, K) engine: their names, meaning and direction, and how a typed list is read.

Every metric depends only on per-item label COUNTS (gold: K ratings per item; a machine: its K responses,
or a fixed probability vector / hard label on real data). The registry ``METRICS`` holds one :class:`Metric` per
name with everything the engines need: its float kernels (``nkcore.nk.score_kernels``, dispatched by
``nkcore.nk.scores``), its count kernel (``nkcore.nk.count_kernels``, dispatched by ``nkcore.nk.count_gaps``),
what the exact engine needs to know, its unit and words. Engines look a metric up; none branches on its name.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nkcore.errors import DataError
from nkcore.nk import count_kernels as ck
from nkcore.nk import score_kernels as sk
from nkcore.nk.score_kernels import JEFFREYS, KL_EPS

ItemScore = Callable[[np.ndarray, np.ndarray, "np.ndarray | None", bool], np.ndarray]
"""Float kernel: (gold counts (..., N, M), machine (..., N, M), its labels or None, machine is probabilities) ->
the machine's per-item score (..., N)."""
PairGap = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""Float kernel of a metric that compares two machines directly (Wins): (gold, A, B) -> per-item gap."""
LabelGap = Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]
"""Label kernel: (gold plurality labels, A's labels, B's labels, M) -> per-item gap (Accuracy) or per-dataset gap
(macro F1)."""
CountUnits = Callable[[ck.CountInputs], tuple[np.ndarray, float]]
"""Count kernel: category-major counts -> (per-item gap in whole units, scale)."""
Weights = Callable[[int, int], tuple[np.ndarray, np.ndarray]]
"""(K, M) -> per-count weight w(c) and ln q(c) of a KL-family gap sum_m w(G_m) [ln q(A_m) - ln q(B_m)]."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric: what it is called, how to read it, and the kernels every engine calls.

    name, label, plain (one line for a help text), larger_is_better, paper (one of the paper's four);
    unit: how a gap reads on the pages: "points" (a share x 100), "scale" (a 0-1 distance), "nats";
    scale_words: the words after a gap on the "scale" unit ("" = "on its 0-1 scale").
    per_item: a mean over items of a per-item gap (a paired per-item test and the exact engine apply; not F1);
    labels_only: reads only the plurality labels of gold and the machines' hard labels (Accuracy, F1);
    sign_test: per-item gaps are -1, 0 or 1, so the exact sign test (McNemar) is the paired test;
    takes_logs: per-item gaps off a short integer lattice (2^32 units; the exact engine's fine lattice for few
    items); law_ms: rough CPU milliseconds of one K's per-item law in the exact engine (for its work estimate);
    exact_mean: the exact engine pins the mean of an estimated law to a quadrature (``exact.means``);
    kl_artifact: an item where gold has mass and the machine none costs about ln(1e12) = 27.63 nats (the paper's
    KL: the pages add the KL-artifact notes, ``sentences.kl_artifact_sentence``, ``kl_jump_sentence``).
    Kernels: item_score (float, one machine per item), pair_gap (float, two machines, e.g. Wins), label_gap (labels),
    indexed (shared-work float kernel on gathered machines, ``scores.item_gaps_indexed``), count_units (integer
    counts, the simulation and the exact engine), log_weights (the exact mean of a KL-family gap).
    """

    name: str
    label: str
    larger_is_better: bool
    paper: bool
    plain: str
    unit: str = "points"
    scale_words: str = ""
    per_item: bool = True
    labels_only: bool = False
    sign_test: bool = False
    takes_logs: bool = False
    law_ms: float = 30.0
    exact_mean: bool = False
    kl_artifact: bool = False
    item_score: ItemScore | None = None
    pair_gap: PairGap | None = None
    label_gap: LabelGap | None = None
    indexed: Callable[[sk.IndexedInputs], np.ndarray] | None = None
    count_units: CountUnits | None = None
    log_weights: Weights | None = None


MetricInfo = Metric
"""The former name of :class:`Metric`."""

METRICS: dict[str, Metric] = {
    "acc": Metric(
        "acc",
        "Accuracy (plurality vote)",
        True,
        True,
        "share of items whose majority label matches the raters' one",
        labels_only=True,
        sign_test=True,
        law_ms=8.0,
        item_score=sk.acc_item,
        label_gap=sk.acc_label_gap,
        indexed=sk.acc_indexed,
        count_units=ck.acc_units,
    ),
    "tv": Metric(
        "tv",
        "TV (total variation)",
        False,
        True,
        "how far the label shares are from the raters' shares",
        "scale",
        scale_words="on TV's 0-1 scale (0 = the same label shares, 1 = none in common)",
        law_ms=12.0,
        exact_mean=True,
        item_score=sk.tv_item,
        indexed=sk.tv_indexed,
        count_units=ck.tv_units,
    ),
    "wins": Metric(
        "wins",
        "Wins",
        True,
        True,
        "items where A is closer to the raters than B, minus the reverse",
        sign_test=True,
        law_ms=8.0,
        pair_gap=sk.wins_gap_item,
        indexed=sk.wins_indexed,
        count_units=ck.wins_units,
    ),
    "kl": Metric(
        "kl",
        "KL divergence (paper's version)",
        False,
        True,
        "KL divergence with the paper's 1e-12 added to counts",
        "nats",
        takes_logs=True,
        exact_mean=True,
        kl_artifact=True,
        item_score=sk.kl_item,
        indexed=sk.kl_indexed,
        count_units=ck.kl_units,
        log_weights=ck.kl_weights,
    ),
    "kl_smooth": Metric(
        "kl_smooth",
        "KL (smoothed, add 1/2)",
        False,
        False,
        "KL divergence with Jeffreys smoothing (add 1/2)",
        "nats",
        takes_logs=True,
        exact_mean=True,
        item_score=sk.kl_smooth_item,
        indexed=sk.kl_smooth_indexed,
        count_units=ck.kl_smooth_units,
        log_weights=ck.kl_smooth_weights,
    ),
    "js": Metric(
        "js",
        "Jensen-Shannon distance",
        False,
        False,
        "symmetric, bounded distance between label shares",
        "scale",
        scale_words="on the Jensen-Shannon distance's scale (0 = the same shares, at most 0.83)",
        takes_logs=True,
        law_ms=25.0,
        item_score=sk.js_item,
        count_units=ck.js_units,
    ),
    "ce": Metric(
        "ce",
        "Cross-entropy",
        False,
        False,
        "surprise of the machine at the raters' labels (nats)",
        "nats",
        takes_logs=True,
        exact_mean=True,
        item_score=sk.ce_item,
        indexed=sk.ce_indexed,
        count_units=ck.ce_units,
        log_weights=ck.ce_weights,
    ),
    "f1": Metric(
        "f1",
        "Macro F1 (plurality)",
        True,
        False,
        "F1 of majority labels, averaged over the labels",
        per_item=False,
        labels_only=True,
        label_gap=sk.f1_label_gap,
    ),
}
"""The registry: every metric the engines know. A new metric is one entry here plus its kernels
(``score_kernels``, ``count_kernels``)."""
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


ITEM_METRICS: tuple[str, ...] = tuple(m for m, info in METRICS.items() if info.per_item)
"""Metrics that are a mean over items of a per-item score (so a paired per-item test applies); not F1."""


def is_larger_better(metric: str) -> bool:
    """True when a larger score is better (Accuracy, Wins, F1)."""
    return METRICS[metric].larger_is_better


def metric(name: str) -> Metric:
    """The registry's entry of a metric name (``DataError`` naming the choices for an unknown one).

    >>> metric("tv").unit, metric("kl").takes_logs
    ('scale', True)
    """
    info = METRICS.get(name)
    if info is None:
        raise DataError(f"unknown metric {name!r}: choose from {', '.join(ALL_METRICS)}")
    return info


def with_flag(flag: str, names: Sequence[str] | None = None) -> tuple[str, ...]:
    """The metrics (of ``names``, default all, in that order) whose registry entry has ``flag`` set.

    >>> with_flag("exact_mean"), with_flag("sign_test", ["wins", "tv", "acc"])
    (('tv', 'kl', 'kl_smooth', 'ce'), ('wins', 'acc'))
    """
    return tuple(m for m in (ALL_METRICS if names is None else names) if bool(getattr(METRICS[m], flag)))


__all__ = [
    "ALL_METRICS",
    "ITEM_METRICS",
    "JEFFREYS",
    "KL_EPS",
    "METRICS",
    "PAPER_METRICS",
    "Metric",
    "MetricInfo",
    "is_larger_better",
    "kl_artifact_nats",
    "metric",
    "parse_metrics",
    "with_flag",
]
