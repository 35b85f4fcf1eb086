"""Page set-up, the dataset choosers, the URL-state convention and user-error display.

Every page starts with :func:`setup_page`. Pages are classic multipage scripts in ``pages/`` (no
``st.navigation``): a deep link such as ``/Compare?cmp_a=n%3D1`` works as the very first request to a fresh server,
because Streamlit routes it straight to the page script, which sets itself up here.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
import streamlit as st

from nkcore import io as nkio
from nkcore import store
from nkcore.errors import DataError
from ui import charts

Kind = Literal["samples", "paired", "ratings", "predictions"]
KINDS: tuple[Kind, ...] = ("samples", "paired", "ratings", "predictions")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"

# The embedded default of each kind: file in sample_data/ and the name users see.
SAMPLES: dict[str, tuple[str, str]] = {
    "samples": ("worked_example_samples.csv", "Sample: worked example (200 cases)"),
    "paired": ("worked_example_paired.csv", "Sample: worked example (n = 1, 3, 5, 7)"),
    "ratings": ("ratings.csv", "Sample: 500 items x 40 ratings"),
    "predictions": ("predictions.csv", "Sample: 3 models on 500 items"),
}

KIND_LABELS: dict[str, str] = {
    "samples": "Raw samples (case, sample, answer, gold)",
    "paired": "Paired results (case, config, correct)",
    "ratings": "Ratings (item, rater, label)",
    "predictions": "Model predictions (item, model, label / probabilities)",
}

PAGE_ICONS: dict[str, str] = {
    "app.py": ":material/home:",
    "pages/1_Data.py": ":material/table:",
    "pages/2_Budget.py": ":material/grid_on:",
    "pages/3_Compare.py": ":material/compare_arrows:",
    "pages/4_Sampling.py": ":material/how_to_vote:",
    "pages/5_Cost_and_latency.py": ":material/payments:",
    "pages/6_Planner.py": ":material/straighten:",
}

PAGES: tuple[tuple[str, str, str], ...] = (
    ("pages/1_Data.py", "Data", "Upload ratings, predictions, paired results or raw samples; see what is in them."),
    (
        "pages/2_Budget.py",
        "Budget (N x K)",
        "How many items (N) and ratings per item (K) make 'model A beats model B' reproducible.",
    ),
    ("pages/3_Compare.py", "Compare", "Does config B really score higher than config A on the same cases?"),
    (
        "pages/4_Sampling.py",
        "Sampling",
        "What majority voting over more samples per request (n) buys, and why the curve flattens.",
    ),
    (
        "pages/5_Cost_and_latency.py",
        "Cost & latency",
        "What each extra sample per request costs in money and tail latency; when adaptive top-up pays.",
    ),
    ("pages/6_Planner.py", "Planner", "The smallest difference an evaluation can resolve, and the cases it needs."),
)


@dataclass(frozen=True, slots=True)
class Dataset:
    """A dataset chosen on a page: its id (sha256 hex), name, kind, fingerprint and frame (canonical columns)."""

    id: str
    name: str
    kind: str
    fingerprint: str
    frame: pd.DataFrame
    builtin: bool


def setup_page(title: str, purpose: str) -> None:
    """Call first on every page: page config, title, the plain-language purpose, the shared sidebar."""
    st.set_page_config(page_title=f"{title} · NK Planner", page_icon=":material/balance:", layout="wide")
    charts.enable_theme()
    st.title(title)
    st.markdown(purpose)
    st.session_state["_nkp_url_at_start"] = {k: st.query_params.get_all(k) for k in st.query_params}
    st.session_state["_nkp_link_note"] = st.empty()  # filled by finish_page() when link values were dropped
    with st.sidebar:
        # Our own navigation (config: client.showSidebarNavigation = false) so pages carry their real names;
        # the pages/ scripts stay auto-discovered, which is what makes deep links work on a fresh server.
        with st.container(key="nkp_nav"):
            st.page_link("app.py", label="Home", icon=PAGE_ICONS["app.py"])
            for path, name, _ in PAGES:
                st.page_link(path, label=name, icon=PAGE_ICONS[path])
        st.divider()
        st.caption(
            "**NK Planner** decides how to spend an evaluation budget and how to read the result. "
            "Every control on a page is in the link: share it and a teammate sees the same view."
        )
    show_share_link()


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_sample(kind: str) -> Dataset:
    filename, name = SAMPLES[kind]
    frame = nkio.read_table(SAMPLE_DIR / filename)
    fp = nkio.fingerprint(frame)
    return Dataset(id=fp, name=name, kind=kind, fingerprint=fp, frame=frame, builtin=True)


@st.cache_resource(show_spinner=False, max_entries=64)
def _load_stored(ds_id: str) -> Dataset:
    meta, frame = store.get(ds_id)
    return Dataset(id=meta.id, name=meta.name, kind=meta.kind, fingerprint=meta.id, frame=frame, builtin=False)


def load_dataset(kind: str, ds_id: str | None) -> Dataset:
    """The dataset ``ds_id`` of ``kind`` (the built-in sample when ``ds_id`` is None or the sample's id)."""
    sample = _load_sample(kind)
    if ds_id is None or ds_id == sample.id:
        return sample
    ds = _load_stored(store.validate_id(ds_id))
    if ds.kind != kind:
        raise DataError(f"dataset {ds_id[:12]}… holds {ds.kind}, not {kind}")
    return ds


def dataset_options(kind: str) -> dict[str, str]:
    """id -> display name of every dataset of ``kind``: the sample first, then stored uploads (newest first)."""
    sample = _load_sample(kind)
    options = {sample.id: sample.name}
    for meta in store.list_datasets(kind):
        options.setdefault(meta.id, f"{meta.name} ({meta.n_rows:,} rows, {meta.id[:8]})")
    return options


# Every Markdown-active ASCII punctuation: images, links and bare-URL autolinks (the ':' of "http:" and the dots),
# :colour[...] directives, emphasis, code, LaTeX. An escaped character renders as itself.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_AUTOLINK = re.compile(r"(\\:|[wW]{3}|@)(?=\S)")


def md(text: object) -> str:
    """Text from a user's file (names, labels, messages quoting them) shown literally, never as Markdown: a label
    ``![x](http://tracker/p.png)`` must not load an image in a teammate's browser, ``:red[x]`` must not colour."""
    escaped = _MARKDOWN.sub(r"\\\1", str(text))
    # GFM autolinks bare URLs even when escaped; an invisible word joiner keeps them plain text
    return _AUTOLINK.sub("\\1\u2060", escaped)


def _explain_bad_link(kind: str, raw: str, options: dict[str, str]) -> None:
    """Say plainly why a dataset id in the link cannot be used (validated before any file access)."""
    if raw in options:
        return
    fallback = md(options[next(iter(options))])
    what = KIND_LABELS[kind].split(" (")[0].lower()
    try:
        store.validate_id(raw)
    except DataError:
        st.warning(
            f"The link's {what} dataset id is not a valid id (ids are 64 lowercase hexadecimal characters); "
            f"showing {fallback} instead."
        )
        return
    other = next((m for m in store.list_datasets() if m.id == raw), None)
    if other is not None:
        held = KIND_LABELS.get(other.kind, other.kind).split(" (")[0].lower()
        st.warning(f"The link's {what} dataset {raw[:12]}… holds {held}, not {what}; showing {fallback} instead.")
        return
    st.warning(
        f"The link asks for {what} dataset {raw[:12]}…, which is not on this server (it may have been deleted or "
        f"uploaded elsewhere). Showing {fallback} instead; upload the file on the Data page."
    )


def choose_dataset(kind: Kind, label: str | None = None) -> Dataset:
    """A sidebar selectbox of the datasets of ``kind``; the choice is in the URL as ``?<kind>=<id>``.

    The dataset id is kept in the URL by hand rather than with ``bind="query-params"``, because a bound selectbox
    stores its *displayed* label in the URL, and the link must carry the id. The URL wins when it names a dataset
    on this server; otherwise the page says why and falls back to the session's last choice or the sample. The
    choice is remembered across page switches for the session.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    options = dataset_options(kind)
    ids = list(options)
    sample_id = ids[0]
    widget_key = f"_nkp_ds_{kind}"
    memory = f"_nkp_chosen_{kind}"
    raw = st.query_params.get(kind)
    if raw is not None and raw not in options:
        _explain_bad_link(kind, str(raw), options)
        del st.query_params[kind]
        raw = None
    wanted = raw if raw is not None else st.session_state.get(memory, sample_id)
    if wanted not in options:
        wanted = sample_id
    st.session_state[widget_key] = wanted

    def _on_change() -> None:
        new = st.session_state[widget_key]
        if new == sample_id:
            st.query_params.pop(kind, None)
        else:
            st.query_params[kind] = new

    chosen = st.sidebar.selectbox(
        label or KIND_LABELS[kind],
        ids,
        format_func=lambda i: options.get(i, i),
        key=widget_key,
        on_change=_on_change,
        help="Upload your own on the Data page. The choice is part of the link.",
    )
    st.session_state[memory] = chosen
    if chosen == sample_id:
        st.query_params.pop(kind, None)
    else:
        st.query_params[kind] = chosen
    return load_dataset(kind, chosen)


def _matches(raw: list[str], value: object) -> bool:
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(values) != len(raw):
        return False
    for text, val in zip(raw, values, strict=True):
        if isinstance(val, bool):
            if text.lower() != str(val).lower():
                return False
        elif isinstance(val, (int, float)):
            try:
                if float(text) != float(val):
                    return False
            except ValueError:
                return False
        elif str(val) != text:
            return False
    return True


def finish_page() -> None:
    """Call last on every page: say which values of the opened link could not be used.

    Streamlit silently drops a bound parameter whose value is out of range or not an option; a teammate who opened
    a link must know that the view differs from the one that was shared.
    """
    start: dict[str, list[str]] = st.session_state.pop("_nkp_url_at_start", {})
    ignored = []
    for key, raw in start.items():
        if key in KINDS or st.query_params.get_all(key) == raw:
            continue
        if key in st.session_state and _matches(raw, st.session_state[key]):
            continue  # equal to the default, so Streamlit keeps the URL clean
        ignored.append(f"`{key}={', '.join(raw)}`")
    if ignored:
        st.session_state.get("_nkp_link_note", st).warning(
            "Some values in the link could not be used (out of range, or not an option on this page): "
            + "; ".join(ignored)
            + ". Those controls show their default values instead."
        )


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Show a ``DataError`` as a plain message (no traceback) and stop the page there."""
    try:
        yield
    except DataError as exc:
        st.error(md(str(exc)))  # messages quote uploaded text: shown literally
        st.stop()


_COPY_LINK_HTML = """
<div style="font-family: sans-serif; font-size: 14px;">
  <button id="copy" style="padding: 4px 10px; border-radius: 6px; border: 1px solid #bbb; background: #fff;
    cursor: pointer;">Copy link to this view</button>
  <span id="status" style="margin-left: 6px; color: #555;"></span>
</div>
<script>
const status = document.getElementById("status");
document.getElementById("copy").addEventListener("click", async () => {
  const url = window.parent.location.href;
  try {
    await navigator.clipboard.writeText(url);
    status.textContent = "copied";
  } catch (err) {
    const area = document.createElement("textarea");
    area.value = url;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    status.textContent = ok ? "copied" : url;
  }
});
</script>
"""


def show_share_link() -> None:
    """The visible "copy link" control: copies the browser's current URL (every bound widget is in it)."""
    with st.sidebar:
        st.iframe(_COPY_LINK_HTML, height=40)
