"""What a download says about its view: the parameters a summary lists (:func:`applicable_params`), p-values
written as bounds (:func:`p_text`), and a chart's title carrying the view's context (:func:`titled_spec`).

Reference: Vega-Lite title and subtitle (:func:`titled_spec`).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from nkcore.common.formatting import shorten
from nkcore.io.spreadsheet import NEVER

__all__ = ["applicable_params", "p_text", "titled_spec"]


def _applies_default(value: object) -> bool:
    if value is None:
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    if isinstance(value, str) and not value.strip():
        return False
    return not (isinstance(value, (list, tuple, set, dict)) and not value)


def _param_text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return NEVER if math.isinf(value) else f"{float(value):g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_param_text(v) for v in value)
    return p_text(str(value))


def applicable_params(
    params: Mapping[str, Any], applies: Callable[[str, Any], bool] | Iterable[str] | None = None
) -> dict[str, str]:
    """The parameters a summary lists, as text: empty ones (None, "", NaN, []) dropped, and those ``applies``
    rejects (a predicate on name and value, or the collection of names that apply).

    Floats read as ``%g`` (0.1, not 0.1000000000000000055), booleans as yes / no, lists comma-separated.

    >>> applicable_params({"eps": 0.1, "rounds": 500, "prior": None, "K": ""})
    {'eps': '0.1', 'rounds': '500'}
    >>> applicable_params({"eps": 0.1, "rounds": 500}, applies=["rounds"])
    {'rounds': '500'}
    """
    if applies is None:
        keep: Callable[[str, Any], bool] = lambda _k, _v: True  # noqa: E731
    elif callable(applies):
        keep = applies
    else:
        names = {str(a) for a in applies}
        keep = lambda k, _v: k in names  # noqa: E731
    return {str(k): _param_text(v) for k, v in params.items() if _applies_default(v) and keep(str(k), v)}


_P_EQUALS_BOUND = re.compile(r"\bp\s*=\s*([<>≤≥])\s*")


def p_text(text: str) -> str:
    """``text`` with "p = < 0.001" written "p < 0.001" (a bound is not a value; see
    :func:`nkcore.common.formatting.format_p`).

    >>> p_text("p = < 0.001; Holm p = 0.04"), p_text("mid-p = > 0.5")
    ('p < 0.001; Holm p = 0.04', 'mid-p > 0.5')
    """
    return _P_EQUALS_BOUND.sub(lambda m: f"p {m.group(1)} ", text)


# ------------------------------------------------------------------ chart titles
def _title_lines(title: object) -> tuple[list[str], dict[str, Any]]:
    """(text lines, other title properties) of a Vega-Lite ``title`` (a string, a list or a TitleParams dict)."""
    if isinstance(title, dict):
        props = {k: v for k, v in title.items() if k not in ("text", "subtitle")}
        text = title.get("text", "")
    else:
        props, text = {}, title
    lines = [str(t) for t in text] if isinstance(text, list) else ([str(text)] if text else [])
    return lines, props


def titled_spec(spec: Mapping[str, Any], context: Iterable[str], explains: str = "") -> dict[str, Any]:
    """A copy of the Vega-Lite ``spec`` whose title carries the view's context and a line explaining its marks.

    The chart's own title stays the title (a title set on its first layer is moved up, and removed from later
    layers that repeat it); under it, as subtitle, come
    the ``context`` lines ("<page>: <datasets>", "models: ..."; a line the title already says is left out) and
    ``explains``. A chart without a title gets the first context line as its title. Lines are cut to 110 characters
    so that a long name cannot widen the image.

    >>> spec = titled_spec({"mark": "point", "title": "Accuracy"}, ["Compare: team evals"], "Bars: 95% intervals.")
    >>> spec["title"]["text"], spec["title"]["subtitle"]
    (['Accuracy'], ['Compare: team evals', 'Bars: 95% intervals.'])
    >>> titled_spec({"mark": "point"}, ["Compare: team evals", "configs: a, b"])["title"]
    {'text': ['Compare: team evals'], 'subtitle': ['configs: a, b']}
    """
    out = copy.deepcopy(dict(spec))
    title = out.get("title")
    layers = out.get("layer")
    if not title and isinstance(layers, list) and layers and isinstance(layers[0], dict) and layers[0].get("title"):
        title = layers[0].pop("title")
        for layer in layers[1:]:  # a layer copied from the first carries the same title: one title, drawn once
            if isinstance(layer, dict) and layer.get("title") == title:
                del layer["title"]
    lines, props = _title_lines(title)
    old_sub = title.get("subtitle", []) if isinstance(title, dict) else []
    subtitle = [str(s) for s in old_sub] if isinstance(old_sub, list) else [str(old_sub)] if old_sub else []
    extra = [" ".join(str(c).split()) for c in context]
    extra = [c for c in extra if c]
    if not lines and extra:
        lines, extra = extra[:1], extra[1:]
    said = " ".join(lines + subtitle)
    subtitle = [*(c for c in extra if c not in said), *subtitle]
    if explains.strip():
        subtitle.append(" ".join(explains.split()))
    new: dict[str, Any] = {**props, "text": [shorten(t, 110) for t in lines]}
    if subtitle:
        new["subtitle"] = [shorten(s, 110) for s in subtitle]
    out["title"] = new
    return out
