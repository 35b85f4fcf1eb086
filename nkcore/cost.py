"""Money per samples per request (n): cost per call, per 1,000 requests, per month, per extra correct answer.

Reference: the chapter "The accuracy curve flattens sooner than the sample count suggests"
(``shared/seeds/002_544b9edd7c12c66d.txt``): at $0.0062 per call flat n = 3 costs $18.60 per 1,000 requests,
the 3+2 adaptive rule (3.38 calls) $20.96; from n = 1 to 3 one extra correct answer per 29 extra calls, from 3
to 5 one per 200; at 400,000 requests a month n = 7 costs $9,920 a month more than n = 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nkcore import latency as lat
from nkcore import voting
from nkcore.common.intervals import proportion_interval
from nkcore.errors import DataError
from nkcore.voting.adaptive import AdaptiveExpectation, adaptive_expected
from nkcore.voting.exact import case_credit_exact

__all__ = [
    "CostRow",
    "CostTable",
    "adaptive_from_frame",
    "build_table",
    "build_table_from_frame",
    "calls_per_extra_correct",
    "check_volume",
    "cost_per_1k",
    "marginal_sentence",
    "monthly_cost",
    "monthly_difference",
    "price_per_call",
]


MAX_PRICE_PER_CALL = 1e6
"""Largest price per call accepted, in dollars (far above any model's; larger ones only make the table's sums
overflow to infinity)."""
MAX_REQUESTS_PER_MONTH = 1e13
"""Largest number of requests per month accepted (ten trillion: about 4 million a second)."""


def check_volume(requests_per_month: float) -> float:
    """Requests per month: a finite number in [0, ``MAX_REQUESTS_PER_MONTH``]; returned as a float.

    >>> check_volume(400_000)
    400000.0
    """
    v = float(requests_per_month)
    if not math.isfinite(v) or v < 0 or v > MAX_REQUESTS_PER_MONTH:
        raise DataError(
            f"requests per month must be a non-negative number, at most {MAX_REQUESTS_PER_MONTH:,.0f}, got "
            f"{requests_per_month}"
        )
    return v


def price_per_call(
    per_call: float | None = None,
    input_per_million: float | None = None,
    output_per_million: float | None = None,
    input_tokens: float = 0.0,
    output_tokens: float = 0.0,
) -> float:
    """Dollars per call: the flat price, or tokens x price per million tokens (input and output).

    price = input_tokens * input_per_million / 1e6 + output_tokens * output_per_million / 1e6.

    >>> price_per_call(0.0062), round(price_per_call(None, 2.5, 10.0, 1200, 320), 4)
    (0.0062, 0.0062)
    """
    if per_call is not None:
        if not math.isfinite(per_call) or per_call < 0 or per_call > MAX_PRICE_PER_CALL:
            raise DataError(
                f"price per call must be a non-negative number of dollars, at most {MAX_PRICE_PER_CALL:,.0f}, got {per_call}"
            )
        return float(per_call)
    if input_per_million is None and output_per_million is None:
        raise DataError("give a price per call, or a price per million input and/or output tokens")
    vals = (input_per_million or 0.0, output_per_million or 0.0, input_tokens, output_tokens)
    if any((not math.isfinite(v)) or v < 0 for v in vals):
        raise DataError("token prices and token counts must be non-negative numbers")
    return price_per_call(
        (input_tokens * (input_per_million or 0.0) + output_tokens * (output_per_million or 0.0)) / 1e6
    )


def cost_per_1k(calls_per_request: float, price: float) -> float:
    """Dollars per 1,000 requests = 1000 x calls per request x price per call.

    >>> round(cost_per_1k(3, 0.0062), 2), round(cost_per_1k(3.38, 0.0062), 2)
    (18.6, 20.96)
    """
    return 1000.0 * calls_per_request * price


def monthly_cost(calls_per_request: float, price: float, requests_per_month: float) -> float:
    """Dollars a month = requests per month x calls per request x price per call.

    >>> round(monthly_cost(3, 0.0062, 400_000), 2)
    7440.0
    """
    if requests_per_month < 0:
        raise DataError(f"requests per month must be non-negative, got {requests_per_month}")
    return requests_per_month * calls_per_request * price


def monthly_difference(calls_a: float, calls_b: float, price: float, requests_per_month: float) -> float:
    """Monthly cost of row b minus row a: (cost per 1k of b - of a) x requests per month / 1000.

    >>> round(monthly_difference(3, 7, 0.0062, 400_000), 2)
    9920.0
    """
    return (cost_per_1k(calls_b, price) - cost_per_1k(calls_a, price)) * requests_per_month / 1000.0


def calls_per_extra_correct(acc_a: float, calls_a: float, acc_b: float, calls_b: float) -> float:
    """Extra calls spent per extra correct answer going from row a to row b: (calls_b - calls_a) / (acc_b - acc_a).

    Infinite when b is not more accurate. Reference: the chapter, 1 per 29 calls from n=1 to 3 (71% -> 78%).

    >>> round(calls_per_extra_correct(0.71, 1, 0.78, 3), 1), round(calls_per_extra_correct(0.78, 3, 0.79, 5))
    (28.6, 200)
    """
    gain = acc_b - acc_a
    if gain <= 1e-12:
        return math.inf
    return (calls_b - calls_a) / gain


@dataclass(frozen=True, slots=True)
class CostRow:
    """One configuration: flat n (``label`` "n=3") or the adaptive rule (``label`` "3+2").

    ``accuracy`` is the expected vote credit of a request drawing its samples at random from each case's recorded
    ones (``correct``, a sum of fractions, of ``n_cases``), with its 95% interval (Wilson, exact Clopper-Pearson
    ends near 0 or 100%) ``accuracy_low`` to ``accuracy_high`` (``correct`` rounded to whole cases); latency
    percentiles in
    seconds; money in dollars; ``compared_with`` names the row the marginal columns are measured from
    (flat rows: the previous flat row; the adaptive row: flat n0).
    """

    label: str
    n: int | str
    adaptive: bool
    calls: float
    accuracy: float
    accuracy_low: float
    accuracy_high: float
    correct: float
    n_cases: int
    p50: float
    p95: float
    p99: float
    cost_per_1k: float
    monthly_cost: float
    compared_with: str | None
    extra_calls: float
    extra_correct_per_1k_calls: float
    calls_per_extra_correct: float
    cost_per_extra_correct: float


@dataclass(frozen=True, slots=True)
class CostTable:
    """The cost and latency table: rows plus the inputs that made it.

    ``credit`` holds each case's expected vote credit under every row (cases x rows, columns in the order of
    ``rows``; fractions in [0, 1]): the same cases for every row, so any two columns are a paired comparison
    (:mod:`nkcore.advice`). ``adaptive_method``: how the adaptive row was computed ("exact", "monte-carlo" with
    ``adaptive_std_error`` the standard error of its accuracy, '' without the row).
    """

    rows: tuple[CostRow, ...]
    price_per_call: float
    requests_per_month: float
    latency_source: str
    tie: str
    trigger: str
    topup_share: float
    n_cases: int
    credit: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), compare=False, repr=False)
    adaptive_method: str = ""
    adaptive_std_error: float = 0.0

    def row(self, label: str) -> CostRow:
        """The row with this label ("n=3", "3+2"); DataError when absent."""
        for r in self.rows:
            if r.label == label:
                return r
        raise DataError(f"no row {label!r}; rows are {', '.join(r.label for r in self.rows)}")

    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (one row per configuration; ``n`` as text: "3" or "3+2")."""
        frame = pd.DataFrame([{f: getattr(r, f) for f in CostRow.__slots__} for r in self.rows])
        frame["n"] = frame["n"].astype(str)
        return frame


def _row(
    label: str,
    n: int | str,
    adaptive: bool,
    calls: float,
    correct: float,
    n_cases: int,
    quant: tuple[float, float, float],
    price: float,
    volume: float,
    base: tuple[str, float, float] | None,
) -> CostRow:
    acc = correct / n_cases
    low, high = proportion_interval(round(correct), n_cases)
    if base is None:
        cmp, per_call, cpc, extra_calls = None, math.nan, math.nan, math.nan
    else:
        cmp, b_acc, b_calls = base
        extra_calls = calls - b_calls
        per_call = 1000.0 * (acc - b_acc) / extra_calls if extra_calls > 0 else math.nan
        cpc = calls_per_extra_correct(b_acc, b_calls, acc, calls)
    return CostRow(
        label=label,
        n=n,
        adaptive=adaptive,
        calls=calls,
        accuracy=acc,
        accuracy_low=low,
        accuracy_high=high,
        correct=correct,
        n_cases=n_cases,
        p50=quant[0],
        p95=quant[1],
        p99=quant[2],
        cost_per_1k=cost_per_1k(calls, price),
        monthly_cost=monthly_cost(calls, price, volume),
        compared_with=cmp,
        extra_calls=extra_calls,
        extra_correct_per_1k_calls=per_call,
        calls_per_extra_correct=cpc,
        cost_per_extra_correct=cpc * price if math.isfinite(cpc) else cpc,
    )


_PERCENTILES = np.array([0.5, 0.95, 0.99])


def _quantiles(q: np.ndarray) -> tuple[float, float, float]:
    """(p50, p95, p99) as floats from the three quantiles of :data:`_PERCENTILES`."""
    p50, p95, p99 = (float(v) for v in q)
    return p50, p95, p99


def build_table(
    samples: voting.SampleSet,
    model: lat.LatencyModel,
    ns: tuple[int, ...] = (1, 3, 5, 7),
    price: float = 0.0062,
    requests_per_month: float = 400_000,
    adaptive: tuple[int, int] | None = (3, 2),
    trigger: voting.Trigger = "no_plurality",
    tie: voting.TieRule = "first",
    latency_source: str = "data",
    seed: int = 0,
) -> CostTable:
    """One row per flat n plus the adaptive rule: accuracy, calls, p50/p95/p99, cost per 1k, monthly cost, and
    the marginal calls and dollars per extra correct answer.

    All rows use the same cases (those with at least max(ns, n0 + m) samples), so their differences are paired.
    Accuracy is that of a request drawing its samples at random from each case's recorded ones, the Sampling page's
    reading: flat n is the exact expected plurality-vote credit over all n-subsets
    (:func:`nkcore.voting.exact.case_credit_exact`, ties as there: ``first`` credited as ``split``), so n = 1 is the
    single-call accuracy; the adaptive row is the rule's expected credit, top-up share and calls over a uniformly
    random order of each case's samples (:func:`nkcore.voting.adaptive.adaptive_expected`: exact, or for answer-group
    shapes past its work bound a seeded Monte Carlo over 4,000 random orders, its standard error in
    ``adaptive_std_error``). Latency is the max-of-n identity (:func:`nkcore.latency.fanout_quantile`), the adaptive
    row's the two fan-outs in sequence.
    """
    ns = tuple(sorted({int(n) for n in ns}))
    if not ns or ns[0] < 1:
        raise DataError("give at least one samples per request n >= 1")
    need = max([*ns, sum(adaptive) if adaptive else 0])
    if need > samples.max_n:
        raise DataError(f"the table needs {need} samples per case; the data has at most {samples.max_n}")
    price_per_call(price)
    check_volume(requests_per_month)
    keep = samples.n_samples >= need
    n_cases = int(keep.sum())
    sub = samples.subset(keep)
    credit = case_credit_exact(sub, tie)
    rows: list[CostRow] = []
    cols: list[np.ndarray] = []
    prev: tuple[str, float, float] | None = None
    by_n: dict[int, tuple[str, float, float]] = {}
    for n in ns:
        cols.append(credit[:, n - 1])
        correct = float(credit[:, n - 1].sum())
        q = _quantiles(lat.fanout_quantile(model, n, _PERCENTILES))
        r = _row(f"n={n}", n, False, float(n), correct, n_cases, q, price, requests_per_month, prev)
        rows.append(r)
        prev = (r.label, r.accuracy, r.calls)
        by_n[n] = prev
    share, method, error = math.nan, "", 0.0
    if adaptive is not None:
        n0, m = adaptive
        res = adaptive_expected(sub, n0, m, trigger, tie, seed=seed)
        cols.append(res.credit)
        share, method, error = res.share_topped_up, res.method, res.std_error
        q = _quantiles(lat.adaptive_quantile(model, n0, m, share, _PERCENTILES))
        base = by_n.get(n0) or (f"n={n0}", float(credit[:, n0 - 1].mean()), float(n0))
        label = f"{n0}+{m}"
        rows.append(
            _row(label, label, True, res.expected_calls, res.correct, n_cases, q, price, requests_per_month, base)
        )
    order = sorted(range(len(rows)), key=lambda i: (rows[i].calls, rows[i].adaptive))
    rows = [rows[i] for i in order]
    per_case = np.column_stack([cols[i] for i in order]) if cols else np.zeros((n_cases, 0))
    return CostTable(
        rows=tuple(rows),
        price_per_call=price,
        requests_per_month=requests_per_month,
        latency_source=latency_source,
        tie=tie,
        trigger=trigger,
        topup_share=share,
        n_cases=n_cases,
        credit=per_case,
        adaptive_method=method,
        adaptive_std_error=error,
    )


def build_table_from_frame(
    frame: pd.DataFrame,
    ns: tuple[int, ...] = (1, 3, 5, 7),
    n0: int = 3,
    m: int = 2,
    adaptive: bool = True,
    trigger: voting.Trigger = "no_plurality",
    tie: voting.TieRule = "first",
    price: float = 0.0062,
    requests_per_month: float = 400_000,
    latency: str = "data",
    p50_s: float | None = None,
    p95_s: float | None = None,
    seed: int = 0,
) -> CostTable:
    """:func:`build_table` from a samples table; ``latency`` "data" (its latency_s column) or "lognormal"
    (fitted to ``p50_s`` and ``p95_s``). A module-level entry point for the page's cache."""
    samples = voting.parse_samples(frame)
    if latency == "data":
        model = lat.empirical_model(samples.latencies())
    else:
        model = lat.model_from_inputs(None, latency, p50_s, p95_s)
    return build_table(
        samples, model, ns, price, requests_per_month, (n0, m) if adaptive else None, trigger, tie, latency, seed
    )


def adaptive_from_frame(
    frame: pd.DataFrame,
    n0: int = 3,
    m: int = 2,
    trigger: voting.Trigger = "no_plurality",
    tie: voting.TieRule = "first",
) -> tuple[AdaptiveExpectation, float, float]:
    """(:func:`nkcore.voting.adaptive.adaptive_expected`, expected correct of flat n0, of flat n0 + m) on the cases
    with n0 + m samples: the page's cached entry point (words: :func:`nkcore.advice.adaptive_expected_sentence`)."""
    samples = voting.parse_samples(frame)
    if n0 + m > samples.max_n:
        raise DataError(f"the rule {n0}+{m} needs {n0 + m} samples per case; the data has at most {samples.max_n}")
    sub = samples.subset(samples.n_samples >= n0 + m)
    credit = case_credit_exact(sub, tie)
    res = adaptive_expected(sub, n0, m, trigger, tie)
    return res, float(credit[:, n0 - 1].sum()), float(credit[:, n0 + m - 1].sum())


def _money(x: float) -> str:
    return f"${x:,.2f}" if abs(x) < 100 else f"${x:,.0f}"


def marginal_sentence(row: CostRow) -> str:
    """Plain-language reading of a row's marginal columns."""
    if row.compared_with is None:
        return f"{row.label} is the cheapest row: {_money(row.cost_per_1k)} per 1,000 requests."
    if not math.isfinite(row.calls_per_extra_correct):
        return (
            f"Going from {row.compared_with} to {row.label} spends {row.extra_calls:.2f} more calls per "
            f"request and buys no extra correct answer on these cases."
        )
    return (
        f"Going from {row.compared_with} to {row.label} buys one extra correct answer per "
        f"{row.calls_per_extra_correct:,.0f} extra calls ({_money(row.cost_per_extra_correct)} per extra correct answer)."
    )
