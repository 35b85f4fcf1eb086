"""Parquet tables, checked from the file's metadata (columns, rows, cells, uncompressed size) before the data is
read, so a "Parquet bomb" (dictionary / run-length encoding packing a billion cells into a few bytes) is refused.

Reference: Apache Parquet format (magic ``PAR1``, footer metadata).
"""

from __future__ import annotations

import io

import pandas as pd

from nkcore.errors import DataError
from nkcore.io.checks import check_columns, check_rows, fail, size_text

__all__ = ["read_parquet"]


def _unreadable(name: str, exc: Exception) -> DataError:
    return fail(name, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:200]})")


def read_parquet(data: bytes, name: str, max_bytes: int) -> pd.DataFrame:
    """A table from Parquet ``data``: columns, rows x columns and the encoded size checked on the metadata first;
    more cells than a text file under ``max_bytes`` could hold (2 bytes a cell, ``0,``) is refused.

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
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several unrelated types for a corrupt file
        raise _unreadable(name, exc) from None
    frame = frame.reset_index(drop=frame.index.name is None and isinstance(frame.index, pd.RangeIndex))
    frame.columns = [str(c) for c in frame.columns]
    return frame
