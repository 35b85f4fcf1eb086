"""Small helpers shared by the CLI topic modules: JSON output of result objects."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np


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
