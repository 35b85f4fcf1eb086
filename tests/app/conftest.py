"""AppTest harness: run a page script headlessly with Streamlit's caches cleared before each test.

Usage::

    def test_default_view(run_page):
        at = run_page("pages/3_Compare.py", query={"cmp_a": "n=1"})
        assert not at.exception
        assert at.title[0].value == "Compare"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

RunPage = Callable[..., AppTest]


def clear_streamlit_caches() -> None:
    """Streamlit's caches are per process: clear them so tests do not see each other's results (and stop the
    background work a page queued, which would otherwise run into the next test)."""
    from ui.common import work

    assert work.stop_background(), "a background computation did not stop"
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture
def run_page() -> Iterator[RunPage]:
    """``run_page(path, query=None, timeout=60)`` -> an AppTest that has run ``path`` (e.g. "pages/3_Compare.py")."""
    clear_streamlit_caches()

    def _run(path: str, query: dict[str, Any] | None = None, timeout: float = 60) -> AppTest:
        # Always start from the real entrypoint (app.py) and switch to the page, as the server does: page links
        # and the sidebar navigation resolve paths relative to the entrypoint.
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        if path != "app.py":
            at.switch_page(path)
        for key, value in (query or {}).items():
            at.query_params[key] = value
        return at.run()

    yield _run
    clear_streamlit_caches()


def plain(markdown: str) -> str:
    """The text a reader sees for Markdown that shows user text literally (``ui.common.text.md`` escapes it)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def error_texts(at: AppTest) -> list[str]:
    """Every st.error message on the page (user-facing problems, not exceptions), as the reader sees it."""
    return [plain(e.value) for e in at.error]


def rendered_markdown(at: AppTest) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown: bodies of markdown, captions, alerts and
    headings; metric labels, values and help; widget, expander, tab and button labels and help; radio options.
    Widget values, dataframes and charts are left out: they are not Markdown."""
    from streamlit.testing.v1.element_tree import AlertBase, Expander, HeadingBase, Markdown, Metric, Radio, Tab

    texts: list[str] = []
    for node in at._tree:
        if isinstance(node, (Markdown, AlertBase, HeadingBase)):
            texts.append(str(node.value))
        elif isinstance(node, Metric):
            texts += [node.label, str(node.value), node.help or "", node.proto.delta or ""]
        elif isinstance(node, (Expander, Tab)):
            texts.append(node.label)
        else:
            for attr in ("label", "help"):
                value = getattr(node, attr, None)
                if isinstance(value, str):
                    texts.append(value)
            if isinstance(node, Radio):
                texts += [str(o) for o in node.options]
    return [t for t in texts if t]
