"""Small helpers shared by the CLI topic modules: JSON output of result objects."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np

from nkcore.errors import one_line


def to_jsonable(obj: Any) -> Any:
    """Turn dataclasses, numpy scalars/arrays, tuples and non-finite floats into plain JSON values.

    NaN and infinities become ``null`` (JSON has no NaN).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on stdout.

    ASCII only (``ensure_ascii``): a control or bidirectional character in a name read from a file is written as
    its JSON escape (``"\\u001b"``, ``"\\u202e"``), so the output cannot drive a terminal and decodes to the exact
    string.
    """
    print(json.dumps(to_jsonable(obj), indent=2, ensure_ascii=True))


def one_line_strings(doc: Any) -> Any:
    """``doc`` with every string made one printable line (:func:`nkcore.errors.one_line`), for text output: a name
    read from a file with a line break in it ("B<newline>verdict: A wins") cannot print a line of its own. JSON
    output keeps the exact strings.

    >>> one_line_strings({"a": ["x\\ny", 1]})
    {'a': ['x\\\\ny', 1]}
    """
    if isinstance(doc, str):
        return one_line(doc)
    if isinstance(doc, dict):
        return {k: one_line_strings(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return type(doc)(one_line_strings(v) for v in doc)
    return doc
