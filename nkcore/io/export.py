"""Tables, file names and chart titles for download: formula-like text defused, names in plain words, numbers
rounded for reading, and the context of the view (page, datasets, date) carried by every file.

Reference: OWASP, "CSV Injection" (:func:`csv_safe`); Vega-Lite title and subtitle (:func:`titled_spec`).
Nothing here draws: ``ui.exports`` turns these into download buttons.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from nkcore.common.formatting import name_list, shorten

__all__ = [
    "GRID_NAMES",
    "NEVER",
    "PLAIN_NAMES",
    "DatasetRef",
    "ExportContext",
    "applicable_params",
    "csv_safe",
    "export_file_name",
    "p_text",
    "plain_name",
    "readable_table",
    "round_for_reading",
    "slug",
    "titled_spec",
]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _csv_safe_text(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` safe to open in a spreadsheet: text that would run as a formula gets a leading ``'``.

    Rule (OWASP "CSV Injection"): a text cell or column name starting with ``=``, ``+``, ``-``, ``@``, TAB or CR is
    prefixed with a single quote, so Excel / LibreOffice / Google Sheets show it as text instead of evaluating
    ``=cmd|' /C calc'!A0`` or ``=HYPERLINK(...)``. Plain numbers written as text (``-1``, ``+2.5``) and numeric
    columns are left alone. Use it on every table a user downloads that holds uploaded text.

    >>> csv_safe(pd.DataFrame({"label": ["=1+1", "-1", "ok", "@SUM(A1)"]}))["label"].tolist()
    ["'=1+1", '-1', 'ok', "'@SUM(A1)"]
    """
    out = frame.copy()
    out.columns = [_csv_safe_text(str(c)) for c in frame.columns]
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if pd.api.types.is_object_dtype(col.dtype) or pd.api.types.is_string_dtype(col.dtype):
            out.isetitem(i, col.map(_csv_safe_text, na_action="ignore"))
    return out


# ------------------------------------------------------------------ plain names and rounding
NEVER = "never"
"""What an infinite number is written as in a download (a budget never reached, a gain that never pays)."""

PLAIN_NAMES: dict[str, str] = {
    # curves and accuracies (Sampling, Compare)
    "n": "samples per request n",
    "accuracy": "accuracy",
    "ci_low": "interval from",
    "ci_high": "interval to",
    "first_n_accuracy": "accuracy of the vote over the first n samples",
    "diff": "difference (B minus A)",
    "low": "interval from",
    "high": "interval to",
    # the cost and latency table (nkcore.cost.CostRow)
    "label": "configuration",
    "adaptive": "adaptive (tops up when unsure)",
    "calls": "calls per request",
    "accuracy_low": "95% interval from",
    "accuracy_high": "95% interval to",
    "correct": "correct cases",
    "n_cases": "cases",
    "p50": "p50 latency (s)",
    "p95": "p95 latency (s)",
    "p99": "p99 latency (s)",
    "cost_per_1k": "$ per 1k requests",
    "monthly_cost": "$ per month",
    "compared_with": "compared with row",
    "extra_calls": "extra calls per request",
    "extra_correct_per_1k_calls": "extra correct per 1k extra calls",
    "calls_per_extra_correct": "calls per extra correct",
    "cost_per_extra_correct": "$ per extra correct",
    # the resolution curve (nkcore.resolution)
    "min_resolvable_diff": "smallest resolvable difference (exact)",
    "sqrt_law_diff": "square-root law",
    "mde_at_power": "detectable at the chosen power (Connor)",
}
"""Column name -> plain name, for tables that are not an N x K grid (see :data:`GRID_NAMES`)."""

GRID_NAMES: dict[str, str] = {
    "budget": "budget (N x K ratings)",
    "k": "ratings per item K",
    "n": "items N",
    "metric": "metric",
    "p": "p-value",
    "delta": "effect size (mean gap)",
    "ci_width": "95% interval width",
    "reproducibility": "share of repeats with the same winner",
    "significant_share": "share of repeats with a significant paired test",
    "ties": "share of tied repeats",
    "mean_gap": "signed mean gap (A minus B)",
    "full_gap": "gap on the full data",
    "direction": "winner on the full data (+1 A, -1 B, 0 tie)",
    "rounds": "repeated evaluations per side",
    "n_qualifying": "items with at least K ratings",
    "test": "paired test",
    "method": "how computed",
    "p_error": "p-value standard error",
    "delta_error": "effect size standard error",
    "ci_width_error": "95% interval width standard error",
    "extrapolated": "extrapolated (more items than the data has)",
}
"""Column name -> plain name in an N x K grid (a table with ``budget`` and ``k`` columns), where ``n`` is items."""


def plain_name(column: str, columns: Iterable[str] = ()) -> str:
    """The plain name of a column: :data:`GRID_NAMES` when ``columns`` hold ``budget`` and ``k``, else
    :data:`PLAIN_NAMES`; a column neither knows keeps its name.

    ``n`` means items (N) in an N x K grid and samples per request (n) elsewhere, so the other columns decide.

    >>> plain_name("n", ["budget", "k", "n"]), plain_name("n", ["n", "accuracy"]), plain_name("my col")
    ('items N', 'samples per request n', 'my col')
    """
    cols = set(columns)
    if {"budget", "k"} <= cols and column in GRID_NAMES:
        return GRID_NAMES[column]
    return PLAIN_NAMES.get(column, column)


def round_for_reading(x: float) -> float:
    """``x`` to three significant digits, never cutting the whole part (1234.5 -> 1234, not 1230).

    Formula: round(x, max(0, 2 - floor(log10 |x|))). NaN, infinities and 0 come back unchanged.

    >>> round_for_reading(0.77341), round_for_reading(12.345), round_for_reading(1234.4), round_for_reading(0.000123456)
    (0.773, 12.3, 1234.0, 0.000123)
    """
    v = float(x)
    if v == 0 or not math.isfinite(v):
        return v
    return round(v, max(0, 2 - math.floor(math.log10(abs(v)))))


def _is_inf(value: object) -> bool:
    return isinstance(value, (float, np.floating)) and math.isinf(float(value))


def _unique_names(names: list[str], originals: list[str]) -> list[str]:
    """Names made unique: a plain name used twice, or equal to another column's name, gets its original added."""
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out = []
    for n, o in zip(names, originals, strict=True):
        out.append(n if seen[n] == 1 or n == o else f"{n} ({o})")
    return out


def readable_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for reading in a spreadsheet: plain column names, floats rounded, the raw floats kept, no "inf".

    Rules:
    - each column gets its plain name (:func:`plain_name`; a name it does not know is kept);
    - a float column is rounded by :func:`round_for_reading`, and its unrounded values follow the table in a
      column ``"<plain name> (raw)"`` (every float column has one, so a script finds the same columns each time);
    - an infinite value, in any column, is written ``"never"`` (:data:`NEVER`), an empty cell stays empty;
    - text and integer columns are unchanged (formula-like text is defused by :func:`csv_safe`, applied after).

    >>> df = pd.DataFrame({"budget": [1000], "k": [5], "n": [200], "p": [0.012345], "ci_width": [float("inf")]})
    >>> readable_table(df).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'budget (N x K ratings)': 1000, 'ratings per item K': 5, 'items N': 200, 'p-value': 0.0123,
      '95% interval width': 'never', 'p-value (raw)': 0.012345, '95% interval width (raw)': 'never'}]
    """
    originals = [str(c) for c in frame.columns]
    names = _unique_names([plain_name(c, originals) for c in originals], originals)
    shown: dict[str, pd.Series] = {}
    raw: dict[str, pd.Series] = {}
    for i, name in enumerate(names):
        col = frame.iloc[:, i].reset_index(drop=True)
        if pd.api.types.is_float_dtype(col.dtype):
            has_inf = bool(np.isinf(col.to_numpy(dtype=float, na_value=np.nan)).any())
            rounded = col.map(round_for_reading, na_action="ignore")
            shown[name] = rounded.map(_never) if has_inf else rounded
            raw[f"{name} (raw)"] = col.map(_never) if has_inf else col
        elif pd.api.types.is_object_dtype(col.dtype):
            shown[name] = col.map(_never, na_action="ignore")
        else:
            shown[name] = col
    return pd.DataFrame({**shown, **{k: v for k, v in raw.items() if k not in shown}})


def _never(value: object) -> object:
    return NEVER if _is_inf(value) else value


# ------------------------------------------------------------------ the context of an export
@dataclass(frozen=True, slots=True)
class DatasetRef:
    """A dataset a view uses: its display name, its id (sha256 hex), its kind and the models / configs it holds."""

    name: str
    id: str
    kind: str
    models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExportContext:
    """Where an export comes from: the page's title and the datasets chosen on it (in the order chosen)."""

    page: str = ""
    datasets: tuple[DatasetRef, ...] = ()

    def with_dataset(self, ref: DatasetRef) -> ExportContext:
        """This context with ``ref`` added (a dataset chosen twice on a page is listed once).

        >>> ExportContext("Compare").with_dataset(DatasetRef("a", "1", "paired")).with_dataset(
        ...     DatasetRef("a", "1", "paired")).datasets
        (DatasetRef(name='a', id='1', kind='paired', models=()),)
        """
        if any(d.id == ref.id and d.kind == ref.kind for d in self.datasets):
            return self
        return replace(self, datasets=(*self.datasets, ref))

    @property
    def dataset_names(self) -> str:
        """The datasets' names, comma-separated (each cut to 60 characters); "" when none was chosen.

        >>> ExportContext("Budget", (DatasetRef("ratings A", "1", "ratings"), DatasetRef("preds", "2", "predictions"))
        ...     ).dataset_names
        'ratings A, preds'
        """
        return name_list([d.name for d in self.datasets], limit=4, width=60)

    @property
    def models(self) -> tuple[str, ...]:
        """The models and configs of every dataset, each once, in order."""
        return tuple(dict.fromkeys(m for d in self.datasets for m in d.models))

    def title_lines(self) -> tuple[str, ...]:
        """What a chart image says about its view: "<page>: <dataset names>", then the models or configs in them.

        The page alone when no dataset was chosen; no models line when the datasets name none.

        >>> ExportContext("Compare", (DatasetRef("team evals", "ab12", "paired", ("n=1", "n=3")),)).title_lines()
        ('Compare: team evals', 'configs: n=1, n=3')
        """
        if not self.datasets:
            return (self.page,) if self.page else ()
        first = f"{self.page}: {self.dataset_names}" if self.page else self.dataset_names
        models = self.models
        if not models:
            return (first,)
        word = "configs" if all(d.kind == "paired" for d in self.datasets if d.models) else "models"
        return first, f"{word}: {name_list(models, limit=8, width=30)}"


def slug(text: str, limit: int = 40) -> str:
    """``text`` as a safe piece of a file name: ASCII letters, digits, ``.`` and ``-`` only, lower case, at most
    ``limit`` characters, no leading or trailing ``.`` or ``-`` and no ``..``; "" when nothing is left.

    A name from a user may hold slashes, backslashes, ``..``, quotes, control characters or emoji: none reach the
    file name.

    >>> slug("Sample: worked example (200 cases)"), slug("../../etc/passwd"), slug("<y>|*?"), slug("☃")
    ('sample-worked-example-200-cases', 'etc-passwd', 'y', '')
    """
    s = re.sub(r"[^A-Za-z0-9.]+", "-", text).lower()
    s = re.sub(r"-*\.[-.]*", ".", s)  # a run of dots and dashes holding a dot is one dot: never ".."
    return s[:limit].strip(".-")


def export_file_name(context: ExportContext, name: str, ext: str, day: dt.date) -> str:
    """``nk-planner_<page>_<datasets>_<YYYY-MM-DD>_<name>.<ext>``: where a download comes from, in its name.

    Each part is :func:`slug`-ged and bounded (page 24, datasets about 60 in all: each its share, the first two and
    "and-k-more" past three; name 40 characters), so the name stays under 160 characters whatever users typed; a
    missing part (no dataset chosen) is left out.

    >>> ctx = ExportContext("Budget (N x K)", (DatasetRef("Sample: 500 items x 40 ratings", "ab", "ratings"),))
    >>> export_file_name(ctx, "nk_grid", "csv", dt.date(2026, 12, 1))
    'nk-planner_budget-n-x-k_sample-500-items-x-40-ratings_2026-12-01_nk-grid.csv'
    >>> export_file_name(ExportContext(), "../x", "png", dt.date(2026, 1, 2))
    'nk-planner_2026-01-02_x.png'
    """
    page = slug(context.page, 24)
    page = "home" if page == "nk-planner" else page
    names = [d.name for d in context.datasets]
    if len(names) > 3:
        names = [*names[:2], f"and {len(names) - 2} more"]
    each = max(12, 60 // max(1, len(names)) - 1)  # every dataset named, each cut to its share of 60 characters
    data = "+".join(p for p in (slug(n, each) for n in names) if p)
    parts = ["nk-planner", page, data, day.isoformat(), slug(name, 40) or "export"]
    extension = re.sub(r"[^a-z0-9]", "", ext.lower())[:8] or "dat"
    return "_".join(p for p in parts if p) + "." + extension


# ------------------------------------------------------------------ summary parameters and p-values
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
