"""Parquet tables, checked from the file's metadata (columns, rows, cells, uncompressed size) before the data is
read, so a "Parquet bomb" (dictionary / run-length encoding packing a billion cells into a few bytes) is refused.

Reference: Apache Parquet format (magic ``PAR1``, footer metadata).
"""

from __future__ import annotations

import io

import pandas as pd

from nkcore.errors import DataError
from nkcore.io.checks import check_columns, check_rows, fail, limit, limit_hint, size_text

__all__ = ["read_parquet"]


def _unreadable(name: str, exc: Exception) -> DataError:
    return fail(name, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:200]})")


def _check_decoded_text(data: bytes, name: str, max_bytes: int) -> None:
    """Refuse text that decodes past ``max_bytes``: the text columns are read as dictionaries (each distinct value
    once, a small index per row) and their decoded size, sum over rows of the length of the row's value, is added
    up before any column is expanded. A dictionary page holds a long text once however many rows repeat it, so the
    encoded size in the metadata does not bound it (a 465 KB file of one 20,000-character text in 200,000 rows
    decoded to 4 GB and took 6 GB)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        schema = pq.ParquetFile(io.BytesIO(data)).schema_arrow
        text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
        text += [f.name for f in schema if pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type)]
        if not text:
            return
        table = pq.ParquetFile(io.BytesIO(data), read_dictionary=text).read(columns=text)
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _unreadable(name, exc) from None
    decoded = 0
    for column in table.columns:
        for chunk in column.chunks:
            if pa.types.is_dictionary(chunk.type):
                lengths = pc.binary_length(chunk.dictionary).fill_null(0)
                decoded += int(pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0)
            else:
                decoded += chunk.nbytes
        if decoded > max_bytes:
            raise fail(
                name,
                f"the text of the Parquet file decodes to more than {size_text(max_bytes)} (its long texts are "
                f"repeated in many rows){limit_hint('unpacked_bytes')}",
            )


def read_parquet(data: bytes, name: str, max_bytes: int) -> pd.DataFrame:
    """A table from Parquet ``data``: columns, rows x columns and the encoded size checked on the metadata first;
    more cells than a text file under ``max_bytes`` could hold (2 bytes a cell, ``0,``) is refused; so are more
    values in the columns' chunks (nested lists counted value by value) than the cell limit, and text that
    decodes past ``max_bytes`` (:func:`_check_decoded_text`), before the table is made.

    >>> buf = io.BytesIO(); pd.DataFrame({"item": [1, 2]}).to_parquet(buf)
    >>> read_parquet(buf.getvalue(), "x.parquet", 10_000)["item"].tolist()
    [1, 2]
    """
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(io.BytesIO(data))
        meta, names = parquet.metadata, [str(n) for n in parquet.schema_arrow.names]
        n_columns, n_rows = meta.num_columns, meta.num_rows
        unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _unreadable(name, exc) from None
    check_columns(names, name, "in the Parquet file")
    check_rows(name, n_rows, n_columns, "the Parquet file")
    if unpacked > max_bytes or n_rows * n_columns > max_bytes // 2:
        raise fail(
            name,
            f"the uncompressed content ({n_rows:,} rows x {n_columns:,} columns, {size_text(unpacked)} encoded) is "
            f"over the size limit of {size_text(max_bytes)}",
        )
    leaf_values = sum(
        meta.row_group(i).column(j).num_values for i in range(meta.num_row_groups) for j in range(n_columns)
    )
    limit(name, "cells", leaf_values, "the Parquet file (values of its columns, nested lists counted value by value)")
    _check_decoded_text(data, name, max_bytes)
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _unreadable(name, exc) from None
    frame = frame.reset_index(drop=frame.index.name is None and isinstance(frame.index, pd.RangeIndex))
    frame.columns = [str(c) for c in frame.columns]
    return frame
