"""Reading user files into tables: CSV, TSV, Parquet and JSONL (optionally gzipped), with precise errors; the one
safe JSON loader; table fingerprints; spreadsheet-safe exports.

The format is decided by the file's content first (gzip, Parquet and other binary magic bytes) and by its
name second (``.csv``, ``.tsv``, ``.jsonl``...; for text files without a telling name the delimiter is sniffed
from the header line). Everything a user can get wrong raises :class:`nkcore.errors.DataError` with a message
that names the file, the problem and the line or byte offset involved.

Modules, one idea each: :mod:`~nkcore.io.checks` (limits and error sentences shared by the readers),
:mod:`~nkcore.io.source` (bytes, size caps, gzip and :func:`unpack`, encoding, binary magic), :mod:`~nkcore.io.text` (delimited
text), :mod:`~nkcore.io.json_safe` (:func:`load_json`, the depth scan), :mod:`~nkcore.io.jsonl` (JSON tables; :func:`iter_json_lines`, the one JSON Lines reader),
:mod:`~nkcore.io.parquet`, :mod:`~nkcore.io.read` (:func:`read_table`), :mod:`~nkcore.io.fingerprints`
(:func:`fingerprint`, the id under which ``nkcore.store`` keeps a table), :mod:`~nkcore.io.spreadsheet`
(:func:`csv_safe`, readable tables) and :mod:`~nkcore.io.export` (what a download carries: file names, chart titles;
with :mod:`~nkcore.io.export_context` and :mod:`~nkcore.io.export_titles`).
"""

from __future__ import annotations

import os

import pyarrow as pa

from nkcore.io.checks import DEFAULT_MAX_BYTES, MAX_COLUMNS, MAX_NAME_CHARS, fail, limit
from nkcore.io.fingerprints import fingerprint
from nkcore.io.json_safe import check_json_depth, load_json
from nkcore.io.jsonl import iter_json_lines
from nkcore.io.read import read_table
from nkcore.io.source import unpack
from nkcore.io.spreadsheet import csv_safe
from nkcore.io.text import NA_VALUES, line_too_long

if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:  # the server's operator may choose another
    # pyarrow's default pool (mimalloc) keeps the pages of freed columns for reuse, so a request's peak also holds
    # the text columns of its earlier steps; the system allocator gives them back (about 90 MB less at the peak of
    # ``data`` on 1,000,000 rows of long ids; docs/reliability.md).
    pa.set_memory_pool(pa.system_memory_pool())

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_NAME_CHARS",
    "NA_VALUES",
    "check_json_depth",
    "csv_safe",
    "fail",
    "fingerprint",
    "iter_json_lines",
    "limit",
    "line_too_long",
    "load_json",
    "read_table",
    "unpack",
]
