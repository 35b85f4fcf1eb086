"""Planner page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Planner",
    "Before looking at any numbers: what is the smallest difference this evaluation can resolve, and how many cases would a smaller one need? Also the floor that label errors put under every accuracy.",
)
st.info(
    "This page will show the resolvable difference against cases, the minimum detectable difference and the label-error floor. Not built yet: no numbers are shown."
)
