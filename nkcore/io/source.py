"""The source of a table: its bytes (from an upload or a path, under the size limit), gunzipped in steps under the
unpacked-size and ratio limits, its format named by its file name, its text encoding, and binary files refused by
their magic bytes.

Reference: RFC 1952 (gzip, magic ``1f 8b``); the magic numbers of the formats in :data:`BINARY_MAGIC`.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from pathlib import Path

from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.io.checks import SUPPORTED, fail, hexbytes, limit_hint, size_text

__all__ = [
    "BINARY_MAGIC",
    "GZIP_MAGIC",
    "PARQUET_MAGIC",
    "check_binary",
    "decode",
    "gunzip",
    "load_source",
    "suffix_format",
    "unpack",
]

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
# Binary formats people upload by mistake, with a hint for each.
BINARY_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive or an Excel .xlsx workbook"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel .xls / Office document"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (ELF executable)"),
    (b"BZh", "a bzip2 archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
)
_TEXT_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": None, ".jsonl": "jsonl", ".ndjson": "jsonl"}
_ALL_SUFFIXES = {**_TEXT_SUFFIXES, ".json": "json", ".parquet": "parquet", ".pq": "parquet"}
_GUNZIP_CHUNK = 1 << 20


def _too_big(name: str, size: int, max_bytes: int) -> DataError:
    return fail(
        name, f"the file is {size_text(size)}, over the size limit of {size_text(max_bytes)}{limit_hint('file_bytes')}"
    )


def load_source(source: bytes | str | Path, filename: str | None, max_bytes: int) -> tuple[bytes, str]:
    """(raw bytes, display name) of an upload's bytes or a path, refusing files over ``max_bytes`` before reading.

    >>> load_source(b"a,b\\n", None, 100)
    (b'a,b\\n', 'the uploaded file')
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        name = filename or "the uploaded file"
        if len(data) > max_bytes:
            raise _too_big(name, len(data), max_bytes)
        return data, name
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = filename or path.name
        if not path.is_file():
            raise fail(str(path), "no such file")
        size = path.stat().st_size
        if size > max_bytes:
            raise _too_big(name, size, max_bytes)
        return path.read_bytes(), name
    raise TypeError(f"read_table: source must be bytes, str or Path, not {type(source).__name__}")


def gunzip(data: bytes, name: str, max_bytes: int) -> bytes:
    """Decompress gzip data in 1 MiB steps, stopping as soon as the output passes the unpacked-size cap.

    Cap = min(``max_bytes``, ``limits.get("gzip_ratio")`` x the packed size): a few KB that unpack to gigabytes
    (a "gzip bomb") are refused after reading just past the cap, never fully unpacked.

    >>> gunzip(gzip.compress(b"a,b\\n1,2\\n"), "x.csv.gz", 1000)
    b'a,b\\n1,2\\n'
    """
    ratio_cap = limits.get("gzip_ratio") * max(len(data), 1)
    cap = min(max_bytes, ratio_cap)
    parts: list[bytes] = []
    total = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            while total <= cap:
                block = fh.read(min(_GUNZIP_CHUNK, cap + 1 - total))
                if not block:
                    break
                parts.append(block)
                total += len(block)
    except (OSError, EOFError, zlib.error, struct.error) as exc:
        raise fail(name, f"the gzip-compressed data is corrupt or truncated ({exc})") from None
    if total > cap:
        if cap == ratio_cap and ratio_cap < max_bytes:
            lim = limits.LIMITS["gzip_ratio"]
            raise fail(
                name,
                f"the compressed file unpacks to more than {limits.get('gzip_ratio'):,} {lim.unit} "
                f"({size_text(len(data))} packed); the limit is {limits.get('gzip_ratio'):,} {lim.unit} "
                f"(server setting {lim.env}): {lim.hint}",
            )
        raise fail(
            name,
            f"the uncompressed content is over the size limit of {size_text(max_bytes)}{limit_hint('unpacked_bytes')}",
        )
    return b"".join(parts)


def unpack(data: bytes, name: str, max_bytes: int | None = None) -> bytes:
    """``data`` gunzipped (:func:`gunzip`) when it starts with the gzip magic ``1f 8b``, else ``data`` itself.

    The cap is ``max_bytes`` when given, else ``limits.get("unpacked_bytes")``; the ratio limit applies too. An
    empty compressed file is refused.

    >>> unpack(gzip.compress(b'{"a": 1}'), "x.jsonl.gz"), unpack(b"plain", "x.jsonl")
    (b'{"a": 1}', b'plain')
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    out = gunzip(data, name, limits.get("unpacked_bytes") if max_bytes is None else max_bytes)
    if not out:
        raise fail(name, "the file is empty (the compressed file holds 0 bytes)")
    return out


def suffix_format(name: str) -> tuple[str | None, bool]:
    """(format named by the file name or None, whether the name ends in .gz).

    >>> suffix_format("Ratings.TSV.gz")
    ('tsv', True)
    """
    lower = name.lower()
    gz = lower.endswith(".gz") or lower.endswith(".gzip")
    if gz:
        lower = lower.rsplit(".", 1)[0]
    return _ALL_SUFFIXES.get(Path(lower).suffix), gz


def decode(data: bytes, name: str) -> bytes:
    """Validate the text encoding; return UTF-8 bytes without a byte-order mark (a UTF-16 one is honoured).

    >>> decode(b"\\xef\\xbb\\xbfa,b\\n", "x.csv")
    b'a,b\\n'
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise fail(
                name, f"the file starts with a UTF-16 byte-order mark but is not valid UTF-16 (byte offset {exc.start})"
            ) from None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 1]
        raise fail(
            name,
            f"undecodable bytes: tried UTF-8, byte 0x{bad.hex()} at byte offset {exc.start} (line {line}) "
            "is not valid UTF-8. Save the file as UTF-8 (in Excel: 'CSV UTF-8').",
        ) from None
    return data


def check_binary(data: bytes, name: str, fmt: str | None) -> None:
    """Refuse a binary file (a known magic number, or a NUL byte in the first 64 KiB) with what it seems to be.

    >>> check_binary(b"%PDF-1.7", "r.csv", "csv")
    Traceback (most recent call last):
    nkcore.errors.DataError: r.csv: this is a binary file (a PDF document, first bytes 25 50 44 46), not a text table despite its .csv name. Upload CSV, TSV, Parquet or JSONL (optionally gzipped).
    """
    despite = f" despite its .{fmt} name" if fmt else ""
    for magic, what in BINARY_MAGIC:
        if data.startswith(magic):
            raise fail(
                name,
                f"this is a binary file ({what}, first bytes {hexbytes(data)}), not a text table{despite}. "
                f"Upload {SUPPORTED}.",
            )
    nul = data[:65536].find(b"\x00")
    if nul >= 0:
        raise fail(
            name, f"this is a binary file (NUL byte at offset {nul}), not a text table{despite}. Upload {SUPPORTED}."
        )
