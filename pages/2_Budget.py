"""Budget (N x K) page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Budget (N x K)",
    "How reproducibly does 'model A beats model B' hold when a budget of N x K ratings is split into items (N) and ratings per item (K)? Pick a prior or your data, and see where the comparison becomes reliable.",
)
st.info(
    "This page will show reproducibility heatmaps over items (N) and ratings per item (K), the minimal budget and the best K per budget. Not built yet: no numbers are shown."
)
