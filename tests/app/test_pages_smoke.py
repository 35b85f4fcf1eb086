"""Every page runs on the sample data with no exception and shows its title (AppTest, no browser)."""

from __future__ import annotations

import pytest

from tests.app.conftest import RunPage
from ui.common.page import PAGES

ALL_PAGES = [("app.py", "NK Planner")] + [(path, name) for path, name, _ in PAGES]


@pytest.mark.parametrize(("path", "title"), ALL_PAGES, ids=[p for p, _ in ALL_PAGES])
def test_page_runs_and_shows_its_title(run_page: RunPage, path: str, title: str) -> None:
    at = run_page(path, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title and at.title[0].value == title
    # the purpose sentence stands right under the title
    assert at.markdown and len(at.markdown[0].value.split()) >= 8


def test_home_lists_the_data_in_use(run_page: RunPage) -> None:
    """Home names the evaluation in use (one chooser for Compare, Sampling, Cost & latency and the Planner) and the
    ratings and predictions in use (Budget)."""
    at = run_page("app.py")
    labels = [s.label for s in at.sidebar.selectbox]
    assert labels[0] == "Evaluation in use" and len(labels) == 3
    assert any("Ratings" in label for label in labels)
    table = at.dataframe[0].value
    assert list(table["what"].str.split(" ").str[0]) == ["Evaluation", "Ratings", "Model"]
    assert (table["rows"] > 0).all()


def test_hostile_dataset_id_in_link_is_refused_plainly(run_page: RunPage) -> None:
    at = run_page("app.py", query={"ratings": "../../etc/passwd"})
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "not a valid id" in warnings


def test_unknown_dataset_id_in_link_says_not_on_this_server(run_page: RunPage) -> None:
    at = run_page("app.py", query={"samples": "ab" * 32})
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "not on this server" in warnings
