"""Sampling page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Sampling",
    "What does majority voting over more samples per request (n) buy? Measured exact vote curves beside what independent and correlated samples would predict.",
)
st.info(
    "This page will show vote curves, effective samples (N_eff) and the errors more samples cannot fix. Not built yet: no numbers are shown."
)
