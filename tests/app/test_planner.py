"""Planner page (AppTest): the chapter's numbers by default, sliders change them, bad input is an error; the answer
and its chart lead the page, method notes sit in an expander, jargon labels explain themselves."""

from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

from nkcore import store
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import expander_texts, jargon_without_help, leading_elements, texts_outside_expanders

PAGE = "pages/6_Planner.py"
ANSWER = (
    "To detect a true difference of 1.0 points 80% of the time (p < 0.05), you need 4,876 cases at 6% discordance, "
    "by the exact power of McNemar's exact test."
)


def _metrics(at: AppTest) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def _markdown(at: AppTest) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def test_default_view_has_the_chapter_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Planner"
    m = _metrics(at)
    assert m["discordant cases expected"] == "12"
    assert m["smallest resolvable"] == "4.0 points"
    assert m["found 80% of the time"] == "4.8 points"  # Connor's MDE
    # one answer to "how many cases for 1 point" leads; the other four are in "How this is computed", named
    assert m["cases needed"] == "4,876"
    assert not {"cases to resolve it (exact)", "resolved for good from", "square-root law (the chapter)"} & set(m)
    assert "you need 4,876 cases at 6% discordance, by the exact power of McNemar's exact test" in _markdown(at)
    how = at.expander[0]
    assert how.label == "How this is computed, and the other counts"
    inside = "\n".join(plain(x.value) for x in how.markdown)
    for name, value in [
        ("80% of the time (Connor's formula)", "4,707"),
        ("resolvable at all (exact critical count)", "2,600"),
        ("resolvable at every larger size", "2,800"),
        ("square-root law (the chapter)", "3,200"),
    ]:
        assert f"{name}: {value} cases." in inside
    assert "the number to plan with" in inside.lower()
    assert m["best measurable accuracy"] == "97.0%"
    text = _markdown(at)
    assert "10 of them must fall the same way to reach p < 0.05, a net of 8 cases = 4.0 points" in text
    assert "gives 200 x (4.0 / 1.0)^2 = 3,200" in text  # the chapter's square-root-law scaling
    assert "about 4,707 cases by Connor's formula, 4,876 by the exact power" in text
    assert "(z = 1.96, the two-sided critical value for alpha = 0.05)" in text
    assert "a perfect system scores 97.0%" in text
    assert "assuming two independent labellings" in text
    assert not error_texts(at)


def test_more_cases_shrink_the_resolvable_difference(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.select_slider(key="pln_cases").set_value(800).run()
    assert not at.exception
    m = _metrics(at)
    assert m["discordant cases expected"] == "48"
    assert m["smallest resolvable"] == "2.0 points"  # four times the cases, half the difference
    at.slider(key="pln_err").set_value(1.0).run()
    assert _metrics(at)["best measurable accuracy"] == "99.0%"


def test_link_parameters_set_the_view(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"pln_cases": "3200", "pln_disc": "6.0"}, timeout=120)
    assert not at.exception
    assert _metrics(at)["smallest resolvable"] == "0.9 points"


def test_target_above_discordance_is_a_warning(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.slider(key="pln_disc").set_value(2.0)
    at.slider(key="pln_target").set_value(5.0).run()
    assert not at.exception
    assert any("never differ by more than" in plain(w.value) for w in at.warning)
    m = _metrics(at)
    assert m["cases needed"] == "-"


def test_impossible_double_labelling_counts_are_an_error(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.number_input(key="pln_dl_dis").set_value(500).run()
    assert not at.exception
    assert any("disagreements must be a whole number from 0 to 200" in e for e in error_texts(at))


def test_reading_cases_and_discordance_from_the_paired_data(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.toggle(key="pln_from_data").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("200 paired cases" in c.value and "9.3%" in plain(c.value) for c in at.caption)
    assert _metrics(at)["discordant cases expected"] == "19"
    # the controls show the values in use (not the sliders' 200 cases / 6.0%), greyed
    shown = {n.label: n for n in at.number_input}
    assert shown["cases in the evaluation set (from the data)"].value == 200
    disc = shown["discordance: % of cases two configs disagree on (from the data)"]
    assert disc.value == 9.3 and disc.disabled
    assert not [s for s in at.select_slider if s.key == "pln_cases"] and not [
        s for s in at.slider if s.key == "pln_disc"
    ]
    text = _markdown(at)
    assert "200 cases at 9.3% discordance" in text and "9.33" not in text.split("sqrt(")[0]


def test_non_integer_expected_discordant_cases_are_rounded_half_up(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"pln_cases": "100", "pln_disc": "14.5"}, timeout=120)
    assert not at.exception
    assert _metrics(at)["discordant cases expected"] == "15"  # 14.5 (14.499999999999998 in floating point) -> 15
    assert "give 14.50 discordant cases on average, about 15 (rounded to the nearest whole number" in _markdown(at)


def test_data_with_no_discordance_falls_back_to_the_sliders(run_page: RunPage) -> None:
    frame = pd.DataFrame({"case": ["1", "2", "3", "4"], "A": [1, 0, 1, 1], "B": [1, 0, 1, 1]})
    meta = store.put(frame, "paired", "same.csv")
    at = run_page(PAGE, query={"paired": meta.id, "pln_from_data": "true"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert any("agree on every one of the 4 paired cases" in plain(w.value) for w in at.warning)
    assert _metrics(at)["discordant cases expected"] == "12"  # the sliders' 200 cases at 6%
    assert not error_texts(at)


def test_bad_upload_read_from_data_is_an_error(run_page: RunPage) -> None:
    frame = pd.DataFrame({"case": ["1", "2", "3"], "config": ["A", "A", "A"], "correct": ["1", "0", "1"]})
    meta = store.put(frame, "paired", "one_config.csv")
    at = run_page(PAGE, query={"paired": meta.id, "pln_from_data": "true"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert any("at least two configs; found only 'A'" in e for e in error_texts(at))


def test_the_answer_and_its_chart_come_first(run_page: RunPage) -> None:
    """Under the title and its one-line question: the one answer to "how many cases do I need", then the curve;
    no control or metric comes before them."""
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    first = leading_elements(at, 4)
    assert [t for t, _ in first] == ["title", "markdown", "markdown", "vega_lite_chart"], first
    assert first[2][1] == f"**{ANSWER}**"


def test_without_a_target_the_answer_is_what_the_cases_resolve(run_page: RunPage) -> None:
    # a 10-point target is more than the 6% discordance: left out; the answer is the chapter's 4.0 points at 200
    at = run_page(PAGE, query={"pln_target": "10.0"}, timeout=120)
    assert leading_elements(at, 3)[2][1] == (
        "**200 cases at 6% discordance can resolve a difference of 4.0 points or more at p < 0.05; anything smaller "
        'returns "cannot tell".**'
    )
    # 4 discordant cases: even 4 of 4 one way gives p = 2 / 2^4 = 0.125, so nothing is resolvable at 0.05
    at = run_page(PAGE, query={"pln_disc": "2.0", "pln_target": "5.0"}, timeout=120)
    assert leading_elements(at, 3)[2][1] == "**200 cases at 2% discordance cannot resolve any difference at p < 0.05.**"


def test_method_notes_are_in_the_expander(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    how = expander_texts(at)["How this is computed, and the other counts"]
    for note in ("Blue: the net of discordant cases", "Ignoring that discordant cases come in whole numbers",
                 "10 of them must fall the same way", "Connor's formula"):  # fmt: skip
        assert note in how, note
    outside = "\n".join(texts_outside_expanders(at))
    for note in ("Blue:", "Ignoring that discordant cases", "must fall the same way", "Connor"):
        assert note not in outside, note


def test_no_jargon_label_without_help(run_page: RunPage) -> None:
    for query in ({}, {"pln_from_data": "true"}):
        at = run_page(PAGE, query=query, timeout=120)
        assert not at.exception
        assert jargon_without_help(at) == [], query
