"""AppTest of the Cost & latency page: default view, changed inputs change the numbers, bad input shows an error."""

from __future__ import annotations

from tests.app.conftest import RunPage, error_texts

PAGE = "pages/5_Cost_and_latency.py"


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown) + " " + " ".join(s.value for s in at.success)


def test_default_view_shows_the_chapter_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Cost & latency"
    rec = at.success[0].value
    assert "ship flat samples per request n=3" in rec and "$18.60 per 1,000 requests" in rec
    table = at.dataframe[0].value
    assert list(table["configuration"]) == ["n=1", "n=3", "3+2", "n=5", "n=7"]
    assert round(float(table.loc[table["configuration"] == "3+2", "$ / 1k requests"].iloc[0]), 2) == 20.96
    text = _text(at)
    assert "$9,920 a month" in text
    assert "one extra correct answer per 29 extra calls" in text and "per 200 extra calls" in text
    assert "tops up 19% of requests and averages 3.38 calls" in text


def test_latency_budget_changes_the_recommendation(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.slider(key="lat_budget").set_value(20.0).run()
    assert not at.exception
    assert "ship the adaptive rule 3+2" in at.success[0].value


def test_typed_latency_and_price_change_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.radio(key="lat_src").set_value("typed p50 and p95").run()
    at.number_input(key="lat_p95").set_value(3.0).run()
    at.number_input(key="lat_price").set_value(0.01).run()
    assert not at.exception
    table = at.dataframe[0].value
    row1 = table[table["configuration"] == "n=1"].iloc[0]
    assert abs(row1["p95 (s)"] - 3.0) < 1e-9 and abs(row1["$ / 1k requests"] - 10.0) < 1e-9


def test_bad_input_shows_an_error_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"lat_n0": "6", "lat_m": "4"}, timeout=120)
    assert not at.exception
    assert any("needs 10 samples per case" in e for e in error_texts(at))
