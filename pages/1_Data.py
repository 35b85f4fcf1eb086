"""Data: upload, check and store datasets; see what is in the dataset each page uses; delete stored datasets.

A thin page: the upload (ui.data.upload), evaluation-harness files and datasets derived from stored predictions
(ui.data.derive, ui.data.stored), the chosen dataset of each kind (ui.data.view), the stored list (ui.data.stored).
"""

from __future__ import annotations

from ui.common import page
from ui.data import derive, stored, upload, view
from ui.data.show import MAX_MB

page.setup_page(
    "Data",
    "Upload your own ratings, model predictions, paired results or raw samples, check what is in them, and make them "
    "available to every page. Uploads are stored on this server under their content hash, so a link to them keeps "
    "working.",
)
upload.upload_section()
derive.harness_section(MAX_MB)
stored.derive_section()
shown = view.view_section()
stored.stored_section()
view.summary_download(shown)
page.finish_page()
