"""Compare page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Compare",
    "Two configs evaluated on the same cases: does B really score higher than A? Paired tests look only at the cases where the two disagree, which is where the evidence is.",
)
st.info(
    "This page will show accuracy per config, paired differences with exact bootstrap intervals and McNemar p-values. Not built yet: no numbers are shown."
)
