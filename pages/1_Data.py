"""Data page (body filled by its issue; until then it says what it will show)."""

from __future__ import annotations

import streamlit as st

from ui import bootstrap

bootstrap.setup_page(
    "Data",
    "Upload your own ratings, model predictions, paired results or raw samples, check what is in them, and make them available to every page. Uploads are stored on this server under their content hash, so a link to them keeps working.",
)
st.info(
    "This page will show uploads, column mapping, previews and dataset summaries. Not built yet: no numbers are shown."
)
