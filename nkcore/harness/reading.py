"""Safe reading for the harness readers: size, line-length and nesting-depth limits, gzip, one-line errors.

Every limit comes from :mod:`nkcore.common.limits` (``file_bytes``, ``unpacked_bytes``, ``gzip_ratio``,
``line_bytes``, ``json_depth``, ``rows``); a file over one, or one that is not valid JSON, raises ``DataError``
naming the file and how to fix it. Nothing here is a second reader: one JSON document is read by
:func:`nkcore.io.load_json`, JSON Lines by :func:`nkcore.io.iter_json_lines` and gzip by :func:`nkcore.io.unpack`
(re-exported here with :func:`nkcore.io.fail`, :func:`nkcore.io.limit` and :func:`nkcore.io.line_too_long` as
``long_line``, for the harness readers).
"""

from __future__ import annotations

from nkcore.io import fail, iter_json_lines, limit, load_json, unpack
from nkcore.io import line_too_long as long_line

__all__ = ["check_file_size", "fail", "iter_json_lines", "limit", "load_json", "long_line", "plain_bytes", "unpack"]


def check_file_size(name: str, size: int) -> None:
    """Refuse a file over the ``file_bytes`` limit (before it is parsed).

    >>> check_file_size("a.jsonl", 10)
    """
    limit(name, "file_bytes", size, "the file")


def plain_bytes(name: str, data: bytes) -> bytes:
    """A file's bytes ready to parse: its size checked against ``file_bytes``, then gunzipped when it is gzip
    (``.jsonl.gz``, ``.json.gz``) under the unpacked-size and ratio limits (:func:`nkcore.io.unpack`).

    >>> import gzip
    >>> plain_bytes("a.jsonl.gz", gzip.compress(b'{"a": 1}'))
    b'{"a": 1}'
    """
    check_file_size(name, len(data))
    return unpack(data, name)
