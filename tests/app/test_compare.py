"""Compare page (AppTest): default view on the worked example, changed widgets, bad data shown as an error."""

from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

from nkcore import store
from tests.app.conftest import RunPage, error_texts, plain

PAGE = "pages/3_Compare.py"
N1_N3 = "n=3 beats n=1: +7.0 points (95% interval +1.0 to +13.0), p = 0.034"


def _markdown(at: AppTest) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def _metrics(at: AppTest) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def test_default_view_reads_the_worked_example(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Compare"
    assert _metrics(at) == {"paired cases": "200", "configs compared": "4", "cases dropped to pair them": "0"}
    text = _markdown(at)
    assert N1_N3 in text
    # the win over n=1 does not survive Holm's adjustment over the 3 adjacent pairs: the sentence says so in order
    assert N1_N3 + "; but that p is for this pair on its own: with Holm's adjustment for the 3 adjacent" in text
    assert "p = 0.10, not below alpha = 0.05, so treat the win as tentative" in text
    assert (
        "cannot tell n=5 from n=3: +1.0 points (95% interval -2.5 to +4.5, p = 0.77) is inside what 200 cases" in text
    )
    assert "n=1: 142 of 200 correct = 71.0%" in text and "n=7: 158 of 200 correct = 79.0%" in text
    assert "162 of the 200 cases came out the same" in text
    assert any("1 time in 6" in plain(i.value) for i in at.info)
    assert not error_texts(at)


def test_choosing_one_pair_changes_the_numbers(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.radio(key="cmp_mode").set_value("one pair of my choice").run()
    at.selectbox(key="cmp_a").set_value("n=3")
    at.selectbox(key="cmp_b").set_value("n=5").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _metrics(at)["configs compared"] == "2"
    text = _markdown(at)
    assert "cannot tell n=5 from n=3" in text and N1_N3 not in text
    assert "Holm" not in text  # a single pair is not adjusted
    assert not at.info  # no ordering note for a single chosen pair


def test_alpha_changes_the_interval_level(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.select_slider(key="cmp_alpha").set_value(0.1).run()
    assert not at.exception
    assert "n=3 beats n=1: +7.0 points (90% interval" in _markdown(at)


def test_fewer_than_two_configs_is_an_error_not_an_exception(run_page: RunPage) -> None:
    at = run_page(PAGE, timeout=120)
    at.multiselect(key="cmp_configs").set_value(["n=1"]).run()
    assert not at.exception
    assert any("at least two configs" in e for e in error_texts(at))


def test_bad_upload_is_shown_as_an_error(run_page: RunPage) -> None:
    frame = pd.DataFrame(
        {"case": ["1", "1", "2", "2"], "config": ["A", "B", "A", "B"], "correct": ["1", "2", "0", "1"]}
    )
    meta = store.put(frame, "paired", "bad.csv")
    at = run_page(PAGE, query={"paired": meta.id}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    errors = error_texts(at)
    assert errors and "'correct' must be 0 or 1" in errors[0] and "config 'B'" in errors[0]


def test_configs_that_agree_on_every_case(run_page: RunPage) -> None:
    frame = pd.DataFrame({"case": [str(i) for i in range(30)], "old": [i % 3 == 0 for i in range(30)]})
    frame["old"] = frame["old"].astype(int)
    frame["new"] = frame["old"]
    meta = store.put(frame, "paired", "same.csv")
    at = run_page(PAGE, query={"paired": meta.id}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert "cannot tell new from old: they agree on all 30 cases (no discordant case)" in _markdown(at)
    assert not error_texts(at)


def test_config_names_with_spaces_and_equals_signs_survive_the_link(run_page: RunPage) -> None:
    frame = pd.DataFrame({"case": ["1", "2", "3", "4", "5"], "model one": [1, 1, None, 0, 0],
                          "model=two": [0, 1, 1, None, 1]})  # fmt: skip
    meta = store.put(frame, "paired", "odd names.csv")
    query = {"paired": meta.id, "cmp_mode": "one pair of my choice", "cmp_a": "model=two", "cmp_b": "model one"}
    at = run_page(PAGE, query=query, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    assert at.query_params["cmp_a"] == "model=two"  # the link keeps the name, not dropped as unknown
    assert _metrics(at) == {"paired cases": "3", "configs compared": "2", "cases dropped to pair them": "2"}
    assert "cannot tell model one from model=two: 0.0 points" in _markdown(at)


def test_uploaded_wide_table_with_gaps_reports_dropped_cases(run_page: RunPage) -> None:
    frame = pd.DataFrame({"case": [str(i) for i in range(40)], "old": [i % 2 for i in range(40)],
                          "new": [None if i < 4 else (i + 1) % 3 == 0 for i in range(40)]})  # fmt: skip
    frame["new"] = frame["new"].map(lambda v: None if v is None else int(v))
    meta = store.put(frame, "paired", "wide.csv")
    at = run_page(PAGE, query={"paired": meta.id}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert _metrics(at) == {"paired cases": "36", "configs compared": "2", "cases dropped to pair them": "4"}


def _four_configs(correct: tuple[int, ...], n: int = 1000) -> str:
    """A stored wide paired table: config j right on a random ``correct[j]`` of ``n`` cases (seeded)."""
    import numpy as np

    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"case": [str(i) for i in range(n)]})
    for j, k in enumerate(correct):
        right = np.zeros(n, dtype=int)
        right[rng.choice(n, size=k, replace=False)] = 1
        frame[f"cfg{j + 1}"] = right
    return store.put(frame, "paired", "four.csv").id


def test_trend_note_only_when_the_accuracies_are_monotone(run_page: RunPage) -> None:
    """75.1, 73.9, 73.7, 75.2 do not rise: no 'a rising sequence is not evidence of a trend' note."""
    at = run_page(PAGE, query={"paired": _four_configs((751, 739, 737, 752))}, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert "cfg1: 751 of 1,000 correct = 75.1%" in _markdown(at)
    assert not any("sequence" in plain(i.value) for i in at.info)
    at = run_page(PAGE, query={"paired": _four_configs((737, 739, 751, 752))}, timeout=120)
    notes = [plain(i.value) for i in at.info if "sequence" in plain(i.value)]
    assert len(notes) == 1 and "a rising sequence among them is not evidence of a trend" in notes[0]
    assert "1 time in 24" in notes[0]
    at = run_page(PAGE, query={"paired": _four_configs((752, 751, 739, 737))}, timeout=120)
    notes = [plain(i.value) for i in at.info if "sequence" in plain(i.value)]
    assert len(notes) == 1 and "a falling sequence among them" in notes[0]
