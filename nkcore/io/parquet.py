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


def _text_decoded_size(arr: object) -> int:
    """Bytes the text of ``arr`` takes once decoded: a dictionary's value lengths summed over its indices, plain text
    its buffers, lists / maps / structs their children (through ``flatten``, which keeps slices and offsets)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    assert isinstance(arr, pa.Array)
    t = arr.type
    if pa.types.is_dictionary(t):
        lengths = pc.binary_length(arr.dictionary).fill_null(0)
        return int(pc.sum(pc.take(lengths, arr.indices)).as_py() or 0)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return int(arr.nbytes)
    if pa.types.is_map(t):
        return _text_decoded_size(arr.keys) + _text_decoded_size(arr.items)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _text_decoded_size(arr.flatten())
    if pa.types.is_struct(t):
        return sum(_text_decoded_size(child) for child in arr.flatten())
    return 0


def _check_decoded_text(data: bytes, name: str, max_bytes: int) -> None:
    """Refuse text that decodes past ``max_bytes``: every text leaf (a top-level text column, or text inside lists,
    structs and maps) is read as a dictionary (each distinct value once, a small index per row) and its decoded
    size, sum over values of the length of the value, is added up before any column is expanded. A dictionary page
    holds a long text once however many rows repeat it, so the encoded size in the metadata does not bound it (a
    465 KB file of one 20,000-character text in 200,000 rows decoded to 4 GB and took 6 GB)."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(io.BytesIO(data))
        leaves = [parquet.schema.column(i) for i in range(len(parquet.schema))]
        text = [c.path for c in leaves if c.physical_type in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")]
        if not text:
            return
        tops = list(dict.fromkeys(path.split(".", 1)[0] for path in text))
        table = pq.ParquetFile(io.BytesIO(data), read_dictionary=text).read(columns=tops)
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _unreadable(name, exc) from None
    decoded = 0
    for column_name, column in zip(table.column_names, table.columns, strict=True):
        for chunk in column.chunks:
            try:
                decoded += _text_decoded_size(chunk)
            except Exception as exc:  # a nesting pyarrow cannot flatten: refused, never decoded unmeasured
                raise fail(
                    name, f"the text of column {column_name!r} cannot be measured before it is decoded ({exc})"[:300]
                ) from None
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
