"""AppTest of the Sampling page: default view, a changed widget changes the numbers, bad input shows an error."""

from __future__ import annotations

import pandas as pd

from nkcore import store
from tests.app.conftest import RunPage, error_texts, plain

PAGE = "pages/4_Sampling.py"


def _metrics(at) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def _text(at) -> str:
    return " ".join(plain(m.value) for m in at.markdown)


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
    everything = " ".join(plain(x.value) for x in [*at.caption, *at.markdown, *at.info])
    assert "The chapter says 31" not in everything and "sample_data/README.md" not in everything  # maintainers' text
    # one rho leads (estimated from the samples); the fitted one is a check, with why the two differ
    assert "rho = 0.35" in text and "flattens at a level set by rho" not in text  # the curve beats independence
    assert "The data does better: 79.0%, at or above even fully independent samples (76.7%)" in text
    assert "As a check of the correlated model: rho fitted to the measured curve at n up to 5 is 0.00" in text
    assert "The two rhos differ because they answer different questions" in text
    # differences are taken between the shown values: 76.7% -> 79.0% is +2.3 points
    delta = next(m for m in at.metric if plain(m.label) == "measured at n = 7").proto.delta
    assert delta == "+2.3 points vs prediction"
    labels = list(_metrics(at))
    assert {"rho model at n = 7 (fit on n ≤ 5)", "beta-binomial at n = 7 (fit on n ≤ 5)"} <= set(labels)
    assert "If rho were 0.17" in text and "N_eff = 3.5" in text


def test_moving_the_rho_slider_changes_the_prediction(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    before = next(plain(m.value) for m in at.markdown if m.value.startswith("**What if:**"))
    at.slider(key="smp_rho").set_value(0.5).run()
    assert not at.exception
    after = next(plain(m.value) for m in at.markdown if m.value.startswith("**What if:**"))
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
    assert any("If rho were 0.30" in plain(m.value) for m in at.markdown)


def test_out_of_range_link_value_is_reported_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"smp_from": "9"}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert any("smp_from=9" in plain(w.value) for w in at.warning)  # finish_page(): the link value could not be used


def _store(rows: list[tuple[int, int, str, str]], name: str) -> str:
    frame = pd.DataFrame(rows, columns=["case", "sample", "answer", "gold"])
    return store.put(frame, "samples", name).id


def test_every_sample_right_has_no_rho_and_no_error(run_page: RunPage) -> None:
    ds = _store([(c, j, "x", "x") for c in range(1, 6) for j in range(1, 4)], "all_right.csv")
    at = run_page(PAGE, query={"samples": ds}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert _metrics(at)["rho (estimated)"] == "n/a"
    assert "rho cannot be estimated" in _text(at)


def test_one_case_is_a_clear_error(run_page: RunPage) -> None:
    ds = _store([(1, j, a, "a") for j, a in enumerate("aab", start=1)], "one_case.csv")
    at = run_page(PAGE, query={"samples": ds}, timeout=120)
    assert not at.exception
    assert any("this data has 1" in e for e in error_texts(at))


def test_uploaded_data_gets_no_chapter_note(run_page: RunPage) -> None:
    rows = [
        (c, j, "w" if c % 3 == 0 else ("a" if (c + j) % 4 else "b"), "a") for c in range(40) for j in (1, 2, 3, 4, 5)
    ]
    at = run_page(PAGE, query={"samples": _store(rows, "mine.csv")}, timeout=120)
    assert not at.exception and not error_texts(at)
    assert "in 14 of those" in _text(at)  # cases 0, 3, ..., 39: every sample "w"
    assert "The chapter says 31" not in " ".join(plain(c.value) for c in at.caption)
    assert not [s for s in at.select_slider if s.key == "smp_fit"]  # 5 samples: only n <= 3 to fit on, no slider
    assert "rho fitted to the measured curve at n up to 3" in _text(at)
