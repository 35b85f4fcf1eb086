"""Downloads: every table as CSV, every chart as PNG and SVG (vl-convert), and the one-page summary of a view.

Chart images are rendered only when the user clicks (deferred ``data`` callables), so a slider stays instant.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from nkcore.io import csv_safe
from ui.text import md


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "export"


def table_csv(df: pd.DataFrame) -> bytes:
    """The bytes of a table download: UTF-8 CSV, formula-like text defused (``nkcore.io.csv_safe``)."""
    return csv_safe(df).to_csv(index=False).encode("utf-8")


def download_table(df: pd.DataFrame, name: str, *, label: str = "Download table (CSV)") -> None:
    """A CSV download button for ``df`` (file ``<name>.csv``); formula-like text is defused (``nkcore.io.csv_safe``)."""
    st.download_button(
        label,
        data=lambda: table_csv(df),
        file_name=f"{_slug(name)}.csv",
        mime="text/csv",
        key=f"dl_csv_{_slug(name)}",
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


def chart_png(chart: alt.TopLevelMixin, scale: float = 2.0) -> bytes:
    """The chart as a PNG image (vl-convert)."""
    import vl_convert as vlc

    return vlc.vegalite_to_png(chart.to_json(), scale=scale)


def chart_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as an SVG document (vl-convert)."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(chart.to_json())


def download_chart(chart: alt.TopLevelMixin, name: str) -> None:
    """PNG and SVG download buttons for ``chart`` (rendered on click)."""
    slug = _slug(name)
    left, right = st.columns(2)
    with left:
        st.download_button(
            "Chart as PNG",
            data=lambda: chart_png(chart),
            file_name=f"{slug}.png",
            mime="image/png",
            key=f"dl_png_{slug}",
            on_click="ignore",
            icon=":material/image:",
        )
    with right:
        st.download_button(
            "Chart as SVG",
            data=lambda: chart_svg(chart).encode("utf-8"),
            file_name=f"{slug}.svg",
            mime="image/svg+xml",
            key=f"dl_svg_{slug}",
            on_click="ignore",
            icon=":material/image:",
        )


def download_table_and_chart(
    df: pd.DataFrame,
    table_name: str,
    chart: alt.TopLevelMixin,
    chart_name: str,
    *,
    table_label: str = "Download table (CSV)",
) -> None:
    """The table's CSV button beside the chart's PNG and SVG buttons (the data behind a chart, and the chart)."""
    left, right = st.columns([1, 2])
    with left:
        download_table(df, table_name, label=table_label)
    with right:
        download_chart(chart, chart_name)


def summary_html(
    title: str,
    params: dict[str, Any],
    numbers: list[tuple[str, str, str]],
    charts: list[alt.TopLevelMixin],
    link: str = "",
) -> str:
    """A self-contained one-page HTML summary: parameters, key numbers with their sentences, charts, the link.

    Every text (title, parameter names and values, labels, sentences, the link) is escaped with ``html.escape``
    (quotes too), so names from an uploaded file are shown as typed and cannot add markup; the link is written only
    when it is an ``http`` or ``https`` URL (:func:`safe_link`), so it cannot be ``javascript:`` or ``data:``.
    """
    esc = html.escape
    rows = "".join(f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in params.items())
    nums = "".join(
        f"<tr><th>{esc(label)}</th><td><b>{esc(value)}</b></td><td>{esc(sentence)}</td></tr>"
        for label, value, sentence in numbers
    )
    imgs = "".join(
        f'<p><img alt="chart" style="max-width:100%" src="data:image/png;base64,'
        f'{base64.b64encode(chart_png(c, scale=1.5)).decode()}"/></p>'
        for c in charts
    )
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    link = safe_link(link)
    link_html = f'<p>Link to this view: <a href="{esc(link)}">{esc(link)}</a></p>' if link else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{esc(title)} · NK Planner</title>"
        "<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;"
        "vertical-align:top}th{background:#f6f6f6;font-weight:normal}</style></head><body>"
        f"<h1>{esc(title)}</h1><p>NK Planner summary, generated {when}.</p>{link_html}"
        f"<h2>Parameters</h2><table>{rows}</table>"
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
    params: dict[str, Any],
    numbers: list[tuple[str, str, str]],
    charts: list[alt.TopLevelMixin] | None = None,
) -> None:
    """The "one-page summary" download of the current view (HTML with the charts embedded)."""
    charts = charts or []
    link = _current_link()
    with st.expander("Summary of this view for a review doc", icon=":material/description:"):
        st.markdown("\n".join(f"- **{md(label)}: {md(value)}**. {md(sentence)}" for label, value, sentence in numbers))
        st.download_button(
            "Download one-page summary (HTML)",
            data=lambda: summary_html(title, params, numbers, charts, link=link).encode("utf-8"),
            file_name=f"{_slug(title)}_summary.html",
            mime="text/html",
            key=f"dl_summary_{_slug(title)}",
            on_click="ignore",
            icon=":material/download:",
        )


def _current_link() -> str:
    from urllib.parse import urlencode

    base = st.context.url or ""
    params = st.query_params.to_dict()
    return f"{base}?{urlencode(params)}" if params else base
