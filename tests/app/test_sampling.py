"""AppTest of the Sampling page: default view, a changed widget changes the numbers, bad input shows an error."""

from __future__ import annotations

from tests.app.conftest import RunPage, error_texts

PAGE = "pages/4_Sampling.py"


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_default_view_shows_title_and_key_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Sampling"
    m = _metrics(at)
    assert m["cases"] == "200" and m["samples per case (largest n)"] == "7"
    assert m["accuracy at n = 7"] == "79.0%"
    text = _text(at)
    assert "rho = 0.35" in text
    assert "38 are still wrong" in text and "in 30 of those" in text  # the worked example: 44 -> 38, 30 unanimous
    assert "If rho were 0.17" in text and "N_eff = 3.5" in text


def test_moving_the_rho_slider_changes_the_prediction(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    before = next(m.value for m in at.markdown if m.value.startswith("**What if:**"))
    at.slider(key="smp_rho").set_value(0.5).run()
    assert not at.exception
    after = next(m.value for m in at.markdown if m.value.startswith("**What if:**"))
    assert before != after and "If rho were 0.50" in after and "N_eff = 1.8" in after


def test_tie_rule_changes_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    first = _text(at)
    at.radio(key="smp_tie").set_value("wrong").run()
    assert not at.exception
    assert _text(at) != first


def test_url_reproduces_the_view(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"smp_rho": "0.3", "smp_tie": "split"}, timeout=120)
    assert not at.exception
    assert at.slider(key="smp_rho").value == 0.3
    assert any("If rho were 0.30" in m.value for m in at.markdown)


def test_bad_input_shows_an_error_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"smp_from": "9"}, timeout=120)
    assert not at.exception
    assert any("from_n=9" in e for e in error_texts(at))
