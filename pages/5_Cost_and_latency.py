"""Cost & latency page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Cost & latency",
    "Each extra sample per request (n) costs money and tail latency. One table puts accuracy, calls, latency percentiles and cost side by side, with the adaptive top-up rule between the flat rows.",
)
st.info(
    "This page will show the cost and latency table and a recommendation under a latency budget. Not built yet: no numbers are shown."
)
