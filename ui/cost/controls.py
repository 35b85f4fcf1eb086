"""Cost & latency's inputs: price, volume, the latency budget, where single-call latency comes from, the adaptive
rule and the flat samples per request to compare, every one bound to the link."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from nkcore import advice
from nkcore.evaluation import Price
from nkcore.voting import sentences as words
from ui.common import datasets

__all__ = ["DEFAULT_PRICE", "SOURCES", "TRIGGERS", "WORDS", "Inputs", "has_latency", "price_source", "read_inputs"]

SOURCES = ("latencies in the data", "typed p50 and p95")
# Shown words -> nkcore trigger; the shown words are also what the link carries.
TRIGGERS = {
    "no strict plurality": "no_plurality",
    "no majority": "no_majority",
    "any disagreement": "not_unanimous",
}
WORDS = {code: words for words, code in TRIGGERS.items()}


@dataclass(frozen=True, slots=True)
class Inputs:
    """What the inputs say (numbers as the widgets return them; ``typed``: latency from the typed p50 and p95)."""

    price: float
    volume: int
    budget: float
    source: str
    typed: bool
    p50: float
    p95: float
    n0: int
    m: int
    trigger_words: str
    trigger: str
    ns: list[int]

    @property
    def lat_kind(self) -> str:
        """Where single-call latency comes from, as nkcore names it."""
        return "lognormal" if self.typed else "data"


def has_latency(ds: datasets.Dataset) -> bool:
    """The samples record latencies (a ``latency_s`` column with a value): else only the typed percentiles work."""
    return "latency_s" in ds.frame.columns and bool(ds.frame["latency_s"].notna().any())


DEFAULT_PRICE = 0.0062
"""The chapter's example price per call (dollars), used when the run records no cost."""


def price_source(price: float, run_price: Price | None) -> str:
    """Where the price in use came from, for the summary: the run's recorded cost, the example price, or typed."""
    if run_price is not None and price == min(round(run_price.dollars, 6), 10.0):
        return run_price.sentence
    if run_price is None and price == DEFAULT_PRICE:
        return "the chapter's example price (the run records no cost)"
    return "typed"


def read_inputs(max_n: int, latency_in_data: bool, run_price: float | None = None) -> Inputs:
    """The bordered box of inputs (below the verdict, its chart and why); the price opens on the run's own price
    per call when it recorded one (``run_price``), else on :data:`DEFAULT_PRICE`."""
    with st.container(border=True):
        st.markdown("**Inputs**")
        c1, c2, c3, c4 = st.columns(
            [1.4, 1.4, 1.1, 1.1]
        )  # room for "400000" and "0.0062" beside the +/- buttons at 1024 px
        price = c1.number_input(
            "price per call ($)",
            0.0,
            10.0,
            DEFAULT_PRICE if run_price is None else min(round(run_price, 6), 10.0),
            0.0001,
            format="%.4f",
            key="lat_price",
            bind="query-params",
            help="Opens on the price the run recorded per call when it recorded one (see the line above the "
            "inputs), else on the chapter's example price, $0.0062.",
        )
        volume = c2.number_input(
            "requests per month", 0, 10**10, 400_000, 10_000, key="lat_volume", bind="query-params"
        )
        budget = c3.slider(
            "latency budget, p95 (s)", 0.5, 30.0, 6.5, 0.1, key="lat_budget", bind="query-params",
            help="The slowest 5% of requests may take longer than this (p95: the 95th percentile of request "
            "latency; a request waits for its slowest sample).",
        )  # fmt: skip
        source = c4.radio(
            "single-call latency from",
            SOURCES,
            key="lat_src",
            bind="query-params",
            disabled=not latency_in_data,
            help="The latency_s column of the data, or a lognormal fitted to the median (p50) and the 95th "
            "percentile (p95) typed below.",
        )
        c5, c6, c7, c8 = st.columns(4)
        typed = source == SOURCES[1]
        p50 = c5.number_input(
            "single-call median, p50 (s)", 0.01, 600.0, 1.9, 0.1, key="lat_p50", bind="query-params",
            disabled=not typed, help=f"p50, the {advice.PERCENTILE_HELP['p50']}, for one model call.",
        )  # fmt: skip
        p95 = c6.number_input(
            "single-call slow tail, p95 (s)", 0.01, 600.0, 4.6, 0.1, key="lat_p95", bind="query-params",
            disabled=not typed, help=f"p95, the {advice.PERCENTILE_HELP['p95']}, for one model call.",
        )  # fmt: skip
        n0 = c7.number_input(
            "adaptive rule: samples drawn first (n0)", 1, max_n, min(3, max_n), 1, key="lat_n0", bind="query-params"
        )
        m = c8.number_input(
            "adaptive rule: samples added when unsure (m)", 1, max_n, min(2, max_n), 1, key="lat_m",
            bind="query-params",
        )  # fmt: skip
        c9, c10 = st.columns([2, 2])
        trigger_words = c9.radio(
            "adaptive rule: add the m samples when the first n0 show…",
            list(TRIGGERS),
            captions=[words.TRIGGER_HELP[t] for t in TRIGGERS.values()],
            horizontal=True,
            key="lat_trigger",
            bind="query-params",
        )
        trigger = TRIGGERS[trigger_words]
        ns = c10.multiselect(
            "flat samples per request (n) to compare",
            list(range(1, max_n + 1)),
            default=[n for n in (1, 3, 5, 7) if n <= max_n],
            key="lat_ns",
            bind="query-params",
            help=f"The data has up to {max_n} samples per case.",
        )
    return Inputs(price, volume, budget, source, typed, p50, p95, n0, m, trigger_words, trigger, ns)
