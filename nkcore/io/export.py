"""Tables, file names and chart titles for download: formula-like text defused, names in plain words, numbers
rounded for reading, and the context of the view (page, datasets, date) carried by every file.

Reference: OWASP, "CSV Injection" (:func:`csv_safe`); Vega-Lite title and subtitle (:func:`titled_spec`).
Nothing here draws: ``ui.common.exports`` turns these into download buttons.

Modules, one idea each (every name is importable from here):
- :mod:`~nkcore.io.spreadsheet`     spreadsheet-safe, readable tables: :func:`csv_safe`, :func:`readable_table`
- :mod:`~nkcore.io.export_context`  the view a download comes from and the file name that says so
- :mod:`~nkcore.io.export_titles`   the parameters a summary lists, p-values as bounds, chart titles
"""

from __future__ import annotations

from nkcore.io.export_context import DatasetRef, ExportContext, export_file_name, slug
from nkcore.io.export_titles import applicable_params, p_text, titled_spec
from nkcore.io.spreadsheet import (
    GRID_NAMES,
    NEVER,
    PLAIN_NAMES,
    csv_safe,
    plain_name,
    readable_table,
    round_for_reading,
)

__all__ = [
    "GRID_NAMES",
    "NEVER",
    "PLAIN_NAMES",
    "DatasetRef",
    "ExportContext",
    "applicable_params",
    "csv_safe",
    "export_file_name",
    "p_text",
    "plain_name",
    "readable_table",
    "round_for_reading",
    "slug",
    "titled_spec",
]
