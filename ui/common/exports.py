"""Downloads: every table as CSV, every chart as PNG and SVG (vl-convert), and the one-page summary of a view.

Every file carries its context. :func:`start_context` (called by ``ui.common.page.setup_page``) records the page's
title and :func:`note_dataset` (called by ``ui.common.datasets.choose_dataset``) each dataset chosen on it, in the
session under
one private key, reset at every run of a page. From that record a file is named
``nk-planner_<page>_<datasets>_<YYYY-MM-DD>_<name>.<ext>``, a chart image's title names the page, the datasets and
their models (with an optional line that explains its marks), and the one-page summary lists the datasets with their
ids. A CSV stays a plain table: plain column names, numbers rounded for reading with the raw values in
``"<name> (raw)"`` columns, "never" for an infinite value (:func:`nkcore.io.export.readable_table`), formula-like
text defused (:func:`nkcore.io.csv_safe`). A dataset chosen on the page is downloaded as it is (no renaming, no
rounding), so that it can be uploaded again.

Chart images are rendered only when the user clicks (deferred ``data`` callables), so a slider stays instant; the
context is read when the button is drawn, not on the click.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from nkcore.common.formatting import name_list
from nkcore.io import csv_safe
from nkcore.io.export import (
    DatasetRef,
    ExportContext,
    applicable_params,
    export_file_name,
    p_text,
    readable_table,
    slug,
    titled_spec,
)
from ui.common.text import md

ChartOrBuilder = alt.TopLevelMixin | Callable[[], alt.TopLevelMixin]
"""A chart, or a function without arguments that builds it (see :func:`download_chart`)."""

CONTEXT_KEY = "_nkp_export_context"
"""Session-state key of this run's :class:`~nkcore.io.export.ExportContext` (page title and chosen datasets)."""
FRAMES_KEY = "_nkp_export_frames"
"""Session-state key of the ``id()`` of each dataset frame chosen in this run (downloaded as it is)."""

Applies = Callable[[str, object], bool] | Iterable[str] | None


def _in_a_run() -> bool:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True) is not None


def start_context(page: str) -> None:
    """Start this run's export context: the page's title, no dataset yet (``ui.common.page.setup_page`` calls it)."""
    if _in_a_run():
        st.session_state[CONTEXT_KEY] = ExportContext(page=page)
        st.session_state[FRAMES_KEY] = frozenset()


def note_dataset(
    name: str, ds_id: str, kind: str, models: Iterable[str] = (), frame: pd.DataFrame | None = None
) -> None:
    """Record a dataset chosen on this page (``ui.common.datasets.choose_dataset`` calls it): its name, id, kind and the
    models or configs it holds; ``frame``, when given, is downloaded as it is (see :func:`download_table`)."""
    if not _in_a_run():
        return
    ref = DatasetRef(name=str(name), id=str(ds_id), kind=str(kind), models=tuple(str(m) for m in models))
    st.session_state[CONTEXT_KEY] = current_context().with_dataset(ref)
    if frame is not None:
        st.session_state[FRAMES_KEY] = frozenset({*st.session_state.get(FRAMES_KEY, frozenset()), id(frame)})


def current_context() -> ExportContext:
    """This run's export context (an empty one outside a Streamlit run)."""
    if not _in_a_run():
        return ExportContext()
    ctx = st.session_state.get(CONTEXT_KEY)
    return ctx if isinstance(ctx, ExportContext) else ExportContext()


def _dataset_frames() -> frozenset[int]:
    frames = st.session_state.get(FRAMES_KEY) if _in_a_run() else None
    return frames if isinstance(frames, frozenset) else frozenset()


def _today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def file_name(name: str, ext: str) -> str:
    """The download's file name: ``nk-planner_<page>_<datasets>_<YYYY-MM-DD>_<name>.<ext>`` (UTC date), every part
    slugged and bounded (:func:`nkcore.io.export.export_file_name`)."""
    return export_file_name(current_context(), name, ext, _today())


def _key(name: str) -> str:
    return slug(name, 200) or "export"


def table_csv(df: pd.DataFrame) -> bytes:
    """The bytes of a table download: UTF-8 CSV, formula-like text defused (``nkcore.io.csv_safe``)."""
    return csv_safe(df).to_csv(index=False).encode("utf-8")


def readable_csv(df: pd.DataFrame) -> bytes:
    """The bytes of a results table for reading: :func:`nkcore.io.export.readable_table`, then :func:`table_csv`."""
    return table_csv(readable_table(df))


def download_table(
    df: pd.DataFrame, name: str, *, label: str = "Download table (CSV)", readable: bool | None = None
) -> None:
    """A CSV download button for ``df``, named by :func:`file_name`; formula-like text is defused.

    ``readable`` (default: yes, unless ``df`` is a dataset chosen on this page): plain column names, rounded numbers
    beside their raw values, "never" for infinity (:func:`readable_csv`). A dataset is written as it is.
    """
    as_is = readable is False or (readable is None and id(df) in _dataset_frames())
    st.download_button(
        label,
        data=(lambda: table_csv(df)) if as_is else (lambda: readable_csv(df)),
        file_name=file_name(name, "csv"),
        mime="text/csv",
        key=f"dl_csv_{_key(name)}",
        on_click="ignore",
        icon=":material/download:",
    )


def table(df: pd.DataFrame, name: str, *, download: bool = True, **dataframe_kwargs: Any) -> None:
    """Show ``df`` with ``st.dataframe`` and, below it, its CSV download button.

    The table is shown through ``nkcore.io.csv_safe``, so that Streamlit's own download icon on the table cannot
    hand a spreadsheet a formula hidden in uploaded text (``=cmd|...``); numbers are untouched. Text that starts with
    ``+`` or ``-`` and is not a number is shown with a leading ``'`` too, so keep signed values in number columns.
    """
    st.dataframe(csv_safe(df), **dataframe_kwargs)
    if download:
        download_table(df, name)


def chart_spec(chart: alt.TopLevelMixin, context: Iterable[str] = (), explains: str = "") -> dict[str, Any]:
    """The chart's Vega-Lite spec; with ``context`` lines or ``explains``, its title carries them
    (:func:`nkcore.io.export.titled_spec`)."""
    spec: dict[str, Any] = chart.to_dict()
    lines = tuple(context)
    return titled_spec(spec, lines, explains) if lines or explains.strip() else spec


def chart_png(
    chart: alt.TopLevelMixin, scale: float = 2.0, *, context: Iterable[str] = (), explains: str = ""
) -> bytes:
    """The chart as a PNG image (vl-convert), its title carrying ``context`` and ``explains`` when given."""
    import vl_convert as vlc

    return bytes(vlc.vegalite_to_png(chart_spec(chart, context, explains), scale=scale))


def chart_svg(chart: alt.TopLevelMixin, *, context: Iterable[str] = (), explains: str = "") -> str:
    """The chart as an SVG document (vl-convert), its title carrying ``context`` and ``explains`` when given."""
    import vl_convert as vlc

    return str(vlc.vegalite_to_svg(chart_spec(chart, context, explains)))


def _built(chart: ChartOrBuilder) -> alt.TopLevelMixin:
    return chart if isinstance(chart, alt.TopLevelMixin) else chart()


def download_chart(chart: ChartOrBuilder, name: str, *, explains: str = "") -> None:
    """PNG and SVG download buttons for ``chart`` (rendered on click), named by :func:`file_name`.

    ``chart``: the chart, or a function without arguments that builds it (called on click only: a page that draws
    a cached spec, ``ui.common.cache.chart_spec``, need not build the chart on every rerun).

    The image's title names the page, the datasets and their models or configs ("Compare: <dataset>",
    "configs: n=1, n=3"), under the chart's own title; ``explains``, one line saying what the marks are ("Bars: 95%
    intervals; dashed line: no difference"), is added under it.
    """
    context = current_context().title_lines()
    key = _key(name)
    left, right = st.columns(2)
    with left:
        st.download_button(
            "Chart as PNG",
            data=lambda: chart_png(_built(chart), context=context, explains=explains),
            file_name=file_name(name, "png"),
            mime="image/png",
            key=f"dl_png_{key}",
            on_click="ignore",
            icon=":material/image:",
        )
    with right:
        st.download_button(
            "Chart as SVG",
            data=lambda: chart_svg(_built(chart), context=context, explains=explains).encode("utf-8"),
            file_name=file_name(name, "svg"),
            mime="image/svg+xml",
            key=f"dl_svg_{key}",
            on_click="ignore",
            icon=":material/image:",
        )


def download_table_and_chart(
    df: pd.DataFrame,
    table_name: str,
    chart: ChartOrBuilder,
    chart_name: str,
    *,
    table_label: str = "Download table (CSV)",
    explains: str = "",
) -> None:
    """The table's CSV button beside the chart's PNG and SVG buttons (the data behind a chart, and the chart)."""
    left, right = st.columns([1, 2])
    with left:
        download_table(df, table_name, label=table_label)
    with right:
        download_chart(chart, chart_name, explains=explains)


_SUMMARY_CSS = (
    "body{font-family:sans-serif;max-width:900px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;max-width:100%}"
    "th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}"
    "th{background:#f6f6f6;font-weight:normal}"
    "p,th,td,a{overflow-wrap:anywhere;word-break:break-word}"
)


def summary_html(
    title: str,
    params: dict[str, object],
    numbers: list[tuple[str, str, str]],
    charts: Sequence[ChartOrBuilder],
    link: str = "",
    *,
    context: ExportContext | None = None,
    applies: Applies = None,
) -> str:
    """A self-contained one-page HTML summary: datasets, parameters, key numbers with their sentences, charts, link.

    ``charts``: charts, or functions without arguments that build them (see :func:`download_chart`).

    - The datasets of ``context`` (this run's, by default: :func:`current_context`) are named with their full ids
      and the models or configs they hold.
    - Only the parameters that apply are listed (:func:`nkcore.io.export.applicable_params`): empty ones (None, "",
      NaN) are dropped, and ``applies`` (a predicate on name and value, or the names that apply) drops the rest.
    - A p-value bound reads "p < 0.001", never "p = < 0.001" (:func:`nkcore.io.export.p_text`).
    - Every text (title, names, values, labels, sentences, the link) is escaped with ``html.escape`` (quotes too), so
      names from an uploaded file are shown as typed and cannot add markup; the link is written only when it is an
      ``http`` or ``https`` URL (:func:`safe_link`), so it cannot be ``javascript:`` or ``data:``; long links and
      names wrap (CSS ``overflow-wrap: anywhere``).
    """
    esc = html.escape
    ctx = current_context() if context is None else context
    data_rows = "".join(
        f"<tr><td>{esc(d.name)}</td><td>{esc(d.id)}</td><td>{esc(d.kind)}</td>"
        f"<td>{esc(name_list(d.models, limit=20, width=60))}</td></tr>"
        for d in ctx.datasets
    )
    datasets = (
        "<h2>Datasets</h2><table><tr><th>name</th><th>id</th><th>kind</th><th>models / configs</th></tr>"
        f"{data_rows}</table>"
        if data_rows
        else ""
    )
    shown = applicable_params(params, applies)
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in shown.items())
    parameters = f"<h2>Parameters</h2><table>{rows}</table>" if rows else ""
    nums = "".join(
        f"<tr><th>{esc(p_text(label))}</th><td><b>{esc(p_text(value))}</b></td><td>{esc(p_text(sentence))}</td></tr>"
        for label, value, sentence in numbers
    )
    imgs = "".join(
        f'<p><img alt="chart" style="max-width:100%" src="data:image/png;base64,'
        f'{base64.b64encode(chart_png(_built(c), scale=1.5)).decode()}"/></p>'
        for c in charts
    )
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = f" of the {ctx.page} page" if ctx.page and ctx.page != title else ""
    link = safe_link(link)
    link_html = f'<p>Link to this view: <a href="{esc(link)}">{esc(link)}</a></p>' if link else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{esc(title)} · NK Planner</title><style>{_SUMMARY_CSS}</style></head><body>"
        f"<h1>{esc(title)}</h1><p>NK Planner summary{esc(page)}, generated {when}.</p>{link_html}"
        f"{datasets}{parameters}"
        f"<h2>Key numbers</h2><table>{nums}</table>{imgs}</body></html>"
    )


def safe_link(url: str) -> str:
    """``url`` when it is an absolute ``http`` or ``https`` URL, else ``""`` (never a ``javascript:`` link).

    >>> safe_link("https://nk.example/Compare?cmp_a=n%3D1")
    'https://nk.example/Compare?cmp_a=n%3D1'
    >>> safe_link(" JavaScript:alert(1)//http://x")
    ''
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    return url.strip() if parts.scheme.lower() in ("http", "https") and parts.netloc else ""


def summary_download(
    title: str,
    params: dict[str, object],
    numbers: list[tuple[str, str, str]],
    charts: Sequence[ChartOrBuilder] | None = None,
    *,
    applies: Applies = None,
) -> None:
    """The "one-page summary" download of the current view (HTML with the charts embedded, :func:`summary_html`);
    ``charts`` are rendered on click, and a function among them (see :func:`download_chart`) is called then."""
    charts = list(charts or [])
    link = _current_link()
    context = current_context()
    with st.expander("Summary of this view for a review doc", icon=":material/description:"):
        st.markdown(
            "\n".join(
                f"- **{md(p_text(label))}: {md(p_text(value))}**. {md(p_text(sentence))}"
                for label, value, sentence in numbers
            )
        )
        st.download_button(
            "Download one-page summary (HTML)",
            data=lambda: summary_html(
                title, params, numbers, charts, link=link, context=context, applies=applies
            ).encode("utf-8"),
            file_name=file_name("summary", "html"),
            mime="text/html",
            key=f"dl_summary_{_key(title)}",
            on_click="ignore",
            icon=":material/download:",
        )


def _current_link() -> str:
    from urllib.parse import urlencode

    base = st.context.url or ""
    params = st.query_params.to_dict()
    return f"{base}?{urlencode(params)}" if params else base
