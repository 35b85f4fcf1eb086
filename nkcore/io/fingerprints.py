"""A table's content hash: sha256 of a canonical serialisation, the id under which ``nkcore.store`` keeps it.

Reference: FIPS 180-4 (SHA-256).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd

__all__ = ["fingerprint"]


_TEXT_CHUNK = 16_384  # text values serialised at a time
_TEXT_KEEP = 8 * 2**20  # a text column's serialisation up to this size is made once (its length, then its hash)


def _column_bytes(col: pd.Series) -> tuple[str, bytes | _TextBlock]:
    """(dtype family, canonical bytes) of one column; stable across pandas/numpy versions. A text column's bytes
    (a JSON list) are made and hashed in pieces (:class:`_TextBlock`), never held as one string."""
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype) and not col.isna().any():
        return "bool", col.to_numpy(dtype=np.uint8).tobytes()
    if pd.api.types.is_integer_dtype(dtype):
        if col.isna().any():
            values = col.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
            return "float", _float_bytes(values)
        return "int", col.to_numpy(dtype="<i8").tobytes()
    if pd.api.types.is_float_dtype(dtype):
        return "float", _float_bytes(col.to_numpy(dtype=np.float64, na_value=np.nan))
    if pd.api.types.is_datetime64_any_dtype(dtype):
        values = [None if pd.isna(v) else pd.Timestamp(v).isoformat() for v in col]
        return "datetime", json.dumps(values, ensure_ascii=False).encode("utf-8")
    return "str", _TextBlock(col)


class _TextBlock:
    """The JSON list of a column's values as text (``str(value)``, null when missing), compact and not ASCII-escaped,
    produced in pieces of :data:`_TEXT_CHUNK` values: the same bytes as one ``json.dumps`` of the whole list."""

    def __init__(self, col: pd.Series) -> None:
        self.col = col

    def pieces(self) -> Iterator[bytes]:
        """The serialisation in pieces: ``[``, the values joined by ``,``, ``]``."""
        yield b"["
        for start in range(0, len(self.col), _TEXT_CHUNK):
            values = [None if _missing(v) else str(v) for v in self.col.iloc[start : start + _TEXT_CHUNK].tolist()]
            inner = json.dumps(values, ensure_ascii=False, separators=(",", ":"))[1:-1].encode("utf-8")
            yield (b"," + inner) if start else inner
        yield b"]"

    def sized(self) -> tuple[int, Iterable[bytes]]:
        """(length in bytes, the pieces to hash): the pieces made once and kept while they total at most
        :data:`_TEXT_KEEP` bytes; a longer serialisation is measured, then made again piece by piece to hash."""
        kept: list[bytes] | None = []
        size = 0
        for piece in self.pieces():
            size += len(piece)
            if kept is not None:
                kept.append(piece)
                if size > _TEXT_KEEP:
                    kept = None
        return size, (kept if kept is not None else self.pieces())


def _missing(v: object) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v) or v is pd.NaT


def _float_bytes(values: np.ndarray) -> bytes:
    out = np.array(values, dtype="<f8")
    out[np.isnan(out)] = np.nan  # one NaN bit pattern
    out[out == 0] = 0.0  # -0.0 == 0.0
    return out.tobytes()


def fingerprint(frame: pd.DataFrame) -> str:
    """sha256 hex of a canonical serialisation of ``frame``: column names, dtype families, values, row order.

    Serialisation: a JSON header ``{"columns": [...], "n_rows": n}``, then per column its name, its family
    (int -> little-endian int64; float -> little-endian float64 with one NaN and -0.0 == 0.0; bool -> uint8;
    anything else -> JSON list of ``str(value)`` / null), each block length-prefixed. The index is ignored, and so
    are pandas' storage details (object vs str dtype, numpy vs nullable ints without missing values), so the same
    table read from CSV, Parquet or the store gives the same id.

    >>> fingerprint(pd.DataFrame({"a": [1, 2]})) == fingerprint(pd.DataFrame({"a": [1, 2]}, index=[5, 6]))
    True
    """
    h = hashlib.sha256()
    header = {"columns": [str(c) for c in frame.columns], "n_rows": len(frame)}
    h.update(json.dumps(header, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    for name in frame.columns:
        family, payload = _column_bytes(frame[name])
        for block in (str(name).encode("utf-8"), family.encode("ascii"), payload):
            size, pieces = block.sized() if isinstance(block, _TextBlock) else (len(block), (block,))
            h.update(size.to_bytes(8, "little"))
            for piece in pieces:
                h.update(piece)
    return h.hexdigest()
