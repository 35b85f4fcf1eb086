"""Planner page (AppTest): the chapter's numbers by default, sliders change them, bad input is an error; the answer
and its chart lead the page, method notes sit in an expander, jargon labels explain themselves."""

from __future__ import annotations

import numpy as np
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
# The default label error rate (3%) puts the floor at 3.0 points, above the 1-point target: the headline says so
# (it used to promise 4,876 cases while a section lower down said more cases would not settle it).
FLOOR = (
    ", but 1.0 points is below the label-error floor of 3.0 points (3% of gold labels wrong): more cases will not "
    "settle it; fix the labels first."
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
    assert first[2][1] == f"**{ANSWER.rstrip('.')}{FLOOR}**"
    at = run_page(PAGE, query={"pln_err": "0.5"}, timeout=120)  # a floor of 0.5 points: the target is above it
    assert leading_elements(at, 3)[2][1] == f"**{ANSWER}**"


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


# ------------------------------------------------------------------------------------- more cases or more repeats?

REPEATS_HEADLINE = (
    "More cases, as long as you have them: 1,000 calls per config on 1,000 cases (one repeat each) would resolve 3.1 "
    "points; on the 200 cases you have, 5 repeats per case resolve 4.4 points."
)


def test_more_cases_or_more_repeats_section(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert "More cases or more repeats?" in [plain(h.value) for h in at.subheader]
    assert f"**{REPEATS_HEADLINE}**" in [m.value for m in at.markdown] or REPEATS_HEADLINE in _markdown(at)
    m = _metrics(at)
    assert m["best split: cases x repeats per case"] == "200 x 5"
    assert m["smallest resolvable with the best split"] == "4.4 points"
    assert m["smallest resolvable"] == "4.0 points"  # the Planner's own metric, unchanged
    assert "200 cases x 5 repeats per case = 1,000 calls per config" in _markdown(at)
    table = next(d.value for d in at.dataframe if "repeats per case" in d.value.columns)
    assert table["repeats per case"].tolist() == list(range(1, 11))
    assert table["best split"].tolist() == [k == 5 for k in range(1, 11)]
    assert "(0.0625 + 0.1875 / K) / N" in expander_texts(at)["Why more cases beat more repeats"]
    # more cases available than calls: one repeat per case is best
    at.number_input(key="pln_rep_cases").set_value(5000).run()
    assert not at.exception
    assert "on 1,000 cases (one repeat each) (you have 5,000) resolve 3.1 points" in _markdown(at)
    assert _metrics(at)["best split: cases x repeats per case"] == "1,000 x 1"
    assert not error_texts(at)


def test_repeats_read_from_a_dataset_with_epochs(run_page: RunPage) -> None:
    rng = np.random.default_rng(0)
    p_a = rng.uniform(0.2, 0.8, 60)
    rows = [
        (f"q{i}", cfg, e, int(rng.random() < p))
        for i in range(60)
        for cfg, p in (("A", p_a[i]), ("B", p_a[i] + (0.2 if i % 2 else -0.15)))
        for e in (1, 2, 3)
    ]
    frame = pd.DataFrame(rows, columns=["case", "config", "epoch", "correct"])
    meta = store.put(frame, "paired", "epochs.csv")
    at = run_page(PAGE, query={"paired": meta.id, "pln_rep_from_data": "true"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    caption = next(plain(c.value) for c in at.caption if "A -> B on 60 cases with 3 repeats per case" in plain(c.value))
    assert "within-case variance" in caption
    shown = {n.label: n for n in at.number_input}
    assert shown["cases available (from the data)"].value == 60
    assert shown["within-case variance (from the data)"].disabled
    assert "60 cases you have" in _markdown(at)


def test_repeats_from_one_result_per_case_use_the_typed_variances(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"pln_rep_from_data": "true"}, timeout=120)  # the sample: one 0/1 result per case
    assert not at.exception, [e.value for e in at.exception]
    assert any("cannot be split into its between-case and within-case parts" in plain(c.value) for c in at.caption)
    assert {n.key for n in at.number_input} >= {"pln_rep_between", "pln_rep_within"}
    assert "on the 200 cases you have, 5 repeats per case resolve 4.4 points" in _markdown(at)
    assert jargon_without_help(at) == []


def test_repeats_switch_flipped_on_the_page_reads_the_dataset_and_off_again(run_page: RunPage) -> None:
    """The switch sits in a fragment: flipped in a session (not by the link), it reads the evaluation in use (the
    sidebar's one chooser, always drawn) and shows the dataset's numbers; flipped back, the typed ones."""
    at = run_page(PAGE, timeout=120)
    sidebar_boxes = lambda: [s.label for s in at.sidebar.selectbox]  # noqa: E731
    assert sidebar_boxes() == ["Evaluation in use"]
    at.toggle(key="pln_rep_from_data").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert sidebar_boxes() == ["Evaluation in use"]
    assert any("cannot be split into its between-case and within-case parts" in plain(c.value) for c in at.caption)
    assert {n.label for n in at.number_input} >= {"cases available (from the data)"}
    at.toggle(key="pln_rep_from_data").set_value(False).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not any("cases available (from the data)" == n.label for n in at.number_input)
    assert "cases available" in {n.label for n in at.number_input}


def test_repeats_chart_is_a_valid_spec_with_the_best_split_marked() -> None:
    from nkcore import resolution
    from ui.charts import paired as charts_paired

    frame = resolution.repeat_plan(1000, 0.0625, 0.1875, cases_available=200).to_frame()
    spec = charts_paired.repeats_chart(frame).to_dict(validate=True)
    dots, label = spec["layer"][1], spec["layer"][2]
    assert dots["encoding"]["color"]["scale"]["domain"] == list(charts_paired.REPEAT_COLORS)
    labels = [r["label"] for r in spec["datasets"][label["data"]["name"]]]
    assert labels == ["best: 200 cases x 5"]


def test_a_stored_paired_dataset_opens_the_planner_on_its_numbers(run_page: RunPage) -> None:
    import pandas as pd

    from nkcore import store

    frame = pd.DataFrame({"case": range(100), "A": [i % 2 for i in range(100)], "B": [i % 3 > 0 for i in range(100)]})
    meta = store.put(frame.astype(int), "paired", "two configs")
    at = run_page(PAGE, query={"paired": meta.id}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.toggle(key="pln_from_data").value is True
    assert any("From two configs: 100 paired cases" in c.value for c in at.caption)


# ------------------------------------------------------------------------------------- many configs (issue 54)


def test_many_configs_section_gives_the_planners_numbers(run_page: RunPage) -> None:
    """The section's two counts are nkcore.rank.plan's for its inputs (default, then changed and from a link)."""
    from nkcore.rank.plan import non_inferiority_cases, separation_cases

    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    m = _metrics(at)
    sep = separation_cases(0.03, 0.06, 0.0, 1, 5, 0.05, 0.8)
    ni = non_inferiority_cases(0.02, 0.06, 0.0, 1, 0.0, 0.05, 0.8)
    assert m["cases to separate the best"] == f"{sep.cases:,}"
    assert m["cases to show not worse"] == f"{ni.cases:,}"
    assert f"With 5 configs, {sep.cases:,} cases (one run each) show the best above a runner-up 3.0 points" in (
        _markdown(at)
    )
    at.number_input(key="pln_rank_configs").set_value(20)
    at.number_input(key="pln_rank_within").set_value(0.2)
    at.number_input(key="pln_rank_repeats").set_value(4).run()
    assert not at.exception, [e.value for e in at.exception]
    m = _metrics(at)
    sep = separation_cases(0.03, 0.06, 0.2, 4, 20, 0.05, 0.8)
    assert m["cases to separate the best"] == f"{sep.cases:,}"
    at = run_page(PAGE, query={"pln_rank_gap": "5.0", "pln_rank_margin": "1.0"}, timeout=120)
    m = _metrics(at)
    assert m["cases to separate the best"] == f"{separation_cases(0.05, 0.06, 0.0, 1, 5, 0.05, 0.8).cases:,}"
    assert m["cases to show not worse"] == f"{non_inferiority_cases(0.01, 0.06, 0.0, 1, 0.0, 0.05, 0.8).cases:,}"


def test_many_configs_section_refuses_zero_variance_in_words(run_page: RunPage) -> None:
    at = run_page(PAGE, query={"pln_rank_between": "0.0", "pln_rank_within": "0.0"}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert any("both 0" in e for e in error_texts(at))
