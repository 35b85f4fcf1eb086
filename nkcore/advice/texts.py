"""The Cost & latency page's words about the cost table: its columns, the latency percentiles, its charts' captions
and the note on how the table is computed."""

from __future__ import annotations

__all__ = [
    "ACCURACY_CHART_CAPTION",
    "ACCURACY_CHART_EXPLAINS",
    "COLUMN_HELP",
    "LATENCY_CHART_CAPTION",
    "PERCENTILES",
    "PERCENTILE_HELP",
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
    "accuracy": "share of the cases the vote gets right",
    "95% interval from": "95% Wilson interval of the accuracy on these cases",
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


def table_note(n_cases: int, topup_share: float | None) -> str:
    """How the cost table's accuracy and latency are computed, and what 'no gain' and '—' mean.

    A request waits for its slowest sample: its q-quantile is the single-call quantile at q^(1/n). ``topup_share``
    (the share of requests the adaptive rule tops up) is None when the table has no adaptive row.
    """
    rule = (
        f" the adaptive row adds a second fan-out, in sequence, for the {topup_share:.0%} of requests that top up;"
        if topup_share is not None
        else ""
    )
    return (
        f"Accuracy: the vote over each case's first samples on the same {n_cases:,} cases (ties: the answer seen first "
        "wins). Latency: a request waits for its slowest sample, so its q-quantile is the single-call quantile at "
        f"q^(1/n);{rule} 'no gain': the row buys no extra correct answer at any price; '—': the cheapest row, nothing "
        "to compare with."
    )
