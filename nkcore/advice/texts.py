"""The Cost & latency page's words about the cost table: its columns, the latency percentiles, its charts' captions,
the note on how the table is computed and the adaptive rule in expectation."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nkcore.voting.adaptive import AdaptiveExpectation

__all__ = [
    "ACCURACY_CHART_CAPTION",
    "ACCURACY_CHART_EXPLAINS",
    "COLUMN_HELP",
    "LATENCY_CHART_CAPTION",
    "PERCENTILES",
    "PERCENTILE_HELP",
    "adaptive_expected_sentence",
    "table_note",
]

PERCENTILES = ("p50", "p95", "p99")
#: The latency percentiles in words (the Cost & latency page's help texts).
PERCENTILE_HELP = {
    "p50": "median: half of the requests are faster",
    "p95": "95th percentile: 1 request in 20 is slower",
    "p99": "99th percentile: 1 request in 100 is slower",
}
#: The cost table's columns (as the Cost & latency page names them) in words, for their headers' tooltips.
COLUMN_HELP = {
    "configuration": "n=3: always 3 samples per request; 3+2 (adaptive): 3, plus 2 when unsure",
    "accuracy": "expected share of the cases the vote gets right when a request draws its samples at random from "
    "each case's recorded ones (n = 1: the single-call accuracy, as on Sampling)",
    "95% interval from": "95% Wilson interval of the accuracy on these cases (expected correct cases rounded)",
    "to": "upper end of the 95% interval",
    "calls per request": "model calls per request, on average",
    **{f"{q} (s)": f"request latency, {PERCENTILE_HELP[q]}" for q in PERCENTILES},
    "$ / 1k requests": "calls per request x price per call x 1,000",
    "$ / month": "at the requests per month above",
    "calls per extra correct": "extra calls spent for each extra correct answer, against the row in 'vs row'",
    "$ per extra correct": "the same in dollars",
    "vs row": "the row the two columns before are measured from",
}
ACCURACY_CHART_CAPTION = (
    "Each point is one configuration; the grey bar is its accuracy's 95% interval. Darker points are slower; hollow "
    "points are over the latency budget."
)
LATENCY_CHART_CAPTION = (
    f"Request latency per configuration: p50, {PERCENTILE_HELP['p50']}; p95, {PERCENTILE_HELP['p95']}; p99, "
    f"{PERCENTILE_HELP['p99']}. The dashed line is the latency budget."
)
#: The marks of the accuracy-against-cost chart, one line (under the title of its PNG and SVG).
ACCURACY_CHART_EXPLAINS = (
    "Points: configurations (darker = slower, hollow = over the latency budget); grey bars: 95% intervals of accuracy."
)


def table_note(n_cases: int, topup_share: float | None, std_error: float = 0.0, orders: int = 0) -> str:
    """How the cost table's accuracy and latency are computed, and what 'no gain' and '—' mean.

    Accuracy is the expectation over requests that draw their samples at random from each case's recorded ones:
    flat n exact over all n-subsets (the Sampling page's curve), the adaptive row exact over random orders, or, when
    ``orders`` > 0, a seeded Monte Carlo over that many random orders per answer-group shape with standard error
    ``std_error`` (of the accuracy). A request waits for its slowest sample: its q-quantile is the single-call
    quantile at q^(1/n). ``topup_share`` (the expected share of requests the adaptive rule tops up) is None when the
    table has no adaptive row.

    >>> "standard error 0.2 points" in table_note(200, 0.08, 0.002, 4000)
    True
    """
    rule = (
        f" the adaptive row adds a second fan-out, in sequence, for the {topup_share:.0%} of requests that top up;"
        if topup_share is not None
        else ""
    )
    adaptive = ""
    if topup_share is not None:
        adaptive = (
            f" The adaptive row is a seeded Monte Carlo over {orders:,} random orders of each case's samples (standard "
            f"error {100 * std_error:.1f} points), the exact sum being too long for these samples."
            if orders
            else " The adaptive row is exact over every order of each case's samples."
        )
    return (
        "Accuracy: the expected vote of a request that draws its samples at random from each case's recorded ones, "
        f"on the same {n_cases:,} cases (n = 1 is the single-call accuracy, each flat n the Sampling page's curve; "
        f"ties: the answer seen first wins).{adaptive} Latency: a request waits for its slowest sample, so its "
        f"q-quantile is the single-call quantile at q^(1/n);{rule} 'no gain': the row buys no extra correct answer at "
        "any price; '—': the cheapest row, nothing to compare with."
    )


def adaptive_expected_sentence(r: AdaptiveExpectation, flat_n0: float, flat_full: float) -> str:
    """The adaptive rule in expectation over random orders of each case's samples, in words.

    ``flat_n0`` / ``flat_full``: the expected correct cases of flat n0 and flat n0 + m on the same cases.

    >>> import numpy as np
    >>> from nkcore.voting.adaptive import AdaptiveExpectation
    >>> r = AdaptiveExpectation(3, 2, "no_plurality", "first", np.array([1.0, 0.5]), np.array([0.0, 0.4]), "exact",
    ...                         0, 0, 0.0, 0.0, 1.0)
    >>> adaptive_expected_sentence(r, 1.4, 1.6)
    'Drawing 3 samples and 2 more when the first 3 have no strict plurality tops up 20% of requests and averages 3.40 calls; it scores 1.5 of 2 cases in expectation (flat n = 3: 1.4; flat n = 5: 1.6).'
    """
    rule = {
        "no_plurality": "have no strict plurality",
        "no_majority": "have no majority",
        "not_unanimous": "do not all agree",
    }[r.trigger]
    mc = (
        f" (Monte Carlo over {r.orders:,} random orders, standard error {100 * r.std_error:.1f} points)"
        if r.method == "monte-carlo"
        else ""
    )
    return (
        f"Drawing {r.n0} samples and {r.m} more when the first {r.n0} {rule} tops up {r.share_topped_up:.0%} of "
        f"requests and averages {r.expected_calls:.2f} calls; it scores {r.correct:,.1f} of {r.n_cases:,} cases in "
        f"expectation{mc} (flat n = {r.n0}: {flat_n0:,.1f}; flat n = {r.n0 + r.m}: {flat_full:,.1f})."
    )
