"""Page set-up, the messages about the opened link, user-error display and the share link.

Every page starts with :func:`setup_page` and ends with :func:`finish_page`. Pages are classic multipage scripts in
``pages/`` (no ``st.navigation``): a deep link such as ``/Compare?cmp_a=n%3D1`` works as the very first request to
a fresh server, because Streamlit routes it straight to the page script, which sets itself up here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import streamlit as st

from nkcore.errors import DataError
from ui import charts
from ui.common import exports, links, work
from ui.common.datasets import KINDS
from ui.common.text import link_value, md

# The tab's icon, served by the app itself (Streamlit's media endpoint, same origin). ":material/balance:" made
# every viewer's browser fetch the icon from fonts.gstatic.com: broken without internet access, and every viewer's
# address sent to that host. The sidebar's material icons are drawn with the font bundled in Streamlit.
FAVICON = str(Path(__file__).resolve().parents[2] / "static" / "favicon.png")

PAGE_ICONS: dict[str, str] = {
    "app.py": ":material/home:",
    "pages/1_Data.py": ":material/table:",
    "pages/2_Budget.py": ":material/grid_on:",
    "pages/3_Compare.py": ":material/compare_arrows:",
    "pages/4_Sampling.py": ":material/how_to_vote:",
    "pages/5_Cost_and_latency.py": ":material/payments:",
    "pages/6_Planner.py": ":material/straighten:",
    "pages/7_Judges.py": ":material/gavel:",
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
    (
        "pages/7_Judges.py",
        "Judges",
        "Does an LLM judge's score hold up against human labels, and how many human labels to buy?",
    ),
)


EVALUATION_PAGES: tuple[str, ...] = (
    "pages/3_Compare.py",
    "pages/4_Sampling.py",
    "pages/5_Cost_and_latency.py",
    "pages/6_Planner.py",
    "pages/7_Judges.py",
)
"""The pages that read the evaluation in use (ui.common.evaluation)."""


def open_links(paths: Sequence[str]) -> None:
    """One "Open <page>" link per page of ``paths``, side by side (after a store, and on Home)."""
    for col, path in zip(st.columns(len(paths)), paths, strict=True):
        name = next(n for p, n, _ in PAGES if p == path)
        col.page_link(path, label=f"Open {name}", icon=PAGE_ICONS[path])


def setup_page(title: str, purpose: str) -> None:
    """Call first on every page: page config, title, the plain-language purpose, the shared sidebar.

    It also starts the run's export context with ``title`` (:func:`ui.common.exports.start_context`): every download
    on the page is named after it and the datasets chosen on it, and removes from the link the values no widget could
    take
    (:func:`ui.common.links.clean_link`; :func:`finish_page` names them).
    """
    st.set_page_config(page_title=f"{title} · NK Planner", page_icon=FAVICON, layout="wide")
    work.page_run_started()  # background work yields to a reader's page
    exports.start_context(title)
    charts.enable_theme()
    st.title(title)
    st.markdown(purpose)
    st.session_state["_nkp_url_at_start"] = {k: st.query_params.get_all(k) for k in st.query_params}
    links.clean_link()  # values no widget could take (400 digits, 1e309) leave the link before any widget reads it
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


_SCROLL_JS = """<script>(function () {
  let tries = 0;
  const timer = setInterval(() => {
    const el = document.querySelector(".st-key-%s");
    if (el) { el.scrollIntoView({block: "start"}); clearInterval(timer); }
    if (++tries > 150) clearInterval(timer);
  }, 100);
})();</script>"""


def land_on(key: str, when: bool) -> None:
    """A shared link lands on what was shared: on the first run of this page in the session, when ``when`` (the
    link names the section, e.g. a chosen cell), scroll the container with ``key`` to the top of the window. Later
    runs (the reader's own clicks) never scroll. ``key`` is a fixed, literal container key: no user text reaches
    the script."""
    flag = f"_nkp_landed_{key}"
    if flag in st.session_state:
        return
    st.session_state[flag] = True
    if when and key.replace("_", "").isalnum():
        st.html(_SCROLL_JS % key, unsafe_allow_javascript=True)


def finish_page() -> None:
    """Call last on every page: say which values of the opened link could not be used.

    Streamlit silently drops a bound parameter whose value is out of range or not an option; a teammate who opened
    a link must know that the view differs from the one that was shared. Each dropped ``key=value`` is shown
    literally (escaped with :func:`ui.common.text.md`, cut to 80 characters): a crafted link cannot put an image, a
    link or coloured text into the warning.
    """
    start: dict[str, list[str]] = st.session_state.pop("_nkp_url_at_start", {})
    ignored = []
    for key, raw in start.items():
        if key in KINDS or key == "eval" or st.query_params.get_all(key) == raw:
            continue
        if key in st.session_state and _matches(raw, st.session_state[key]):
            continue  # equal to the default, so Streamlit keeps the URL clean
        ignored.append(link_value(key, raw))  # the link is anyone's text: escaped and cut, never a code span
    if ignored:
        st.session_state.get("_nkp_link_note", st).warning(
            "Some values in the link could not be used (out of range, or not an option on this page): "
            + "; ".join(ignored)
            + ". Those controls show their default values instead."
        )


def fit_choices(key: str, options: Sequence[str], minimum: int = 1) -> bool:
    """Keep a choice widget's remembered value within this dataset's ``options`` before the widget is drawn.

    A session keeps a widget's value when the dataset changes (an upload on the Data page, another dataset in the
    sidebar): configs of the sample ("n=1", "n=3"...) are then not options, and Streamlit would draw an empty choice,
    so the page would open on an error instead of a verdict. A remembered list loses the values that are not
    options and is forgotten (the widget's default applies) when fewer than ``minimum`` remain; a remembered single
    value that is not an option is forgotten. True when the value was changed.
    """
    if key not in st.session_state:
        return False
    value = st.session_state[key]
    allowed = set(options)
    if isinstance(value, (list, tuple)):
        kept = [v for v in value if v in allowed]
        if len(kept) == len(value):
            return False
        if len(kept) < minimum:
            del st.session_state[key]
        else:
            st.session_state[key] = kept
        return True
    if value in allowed:
        return False
    del st.session_state[key]
    return True


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
