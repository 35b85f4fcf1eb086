"""Tests of nkcore.paired.table: long and wide layouts, pairing, the true/false vocabulary, precise messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nkcore import paired as pr
from nkcore.common.truth import FALSE_WORDS, TRUE_WORDS
from nkcore.errors import DataError
from tests.test_paired import long_frame, worked_table


def test_long_and_wide_parse_to_the_same_table() -> None:
    t = worked_table()
    long = long_frame(t)
    wide = pd.DataFrame({"case": t.cases, **{c: t.correct[:, j].astype(int) for j, c in enumerate(t.configs)}})
    for frame, layout in ((long, "long"), (wide, "wide")):
        p = pr.parse_paired(frame)
        assert p.layout == layout
        assert p.configs == t.configs
        assert p.n_cases == 200 and p.dropped_cases == 0 and p.cases_per_config == (200,) * 4
        assert np.array_equal(p.correct, t.correct)
        assert list(p.cases) == list(t.cases)


def test_analyse_frame_gives_the_chapter_numbers() -> None:
    o = pr.analyse_paired(long_frame(worked_table()))
    assert [round(c.p_exact, 3) for c in o.comparisons] == [0.034, 0.774, 1.0]
    c = pr.compare_frame_pair(long_frame(worked_table()), "n=1", "n=3")
    assert (c.a_only, c.b_only, c.diff_ci_low, c.diff_ci_high) == (12, 26, pytest.approx(0.01), pytest.approx(0.13))


def test_parse_accepts_booleans_strings_and_case_insensitive_columns() -> None:
    f = pd.DataFrame(
        {"Case": ["a", "b", "c"], "X": [True, False, True], "Y": ["yes", "0", "TRUE"], "Z": [1.0, 0.0, np.nan]}
    )
    p = pr.parse_paired(f)
    assert p.layout == "wide" and p.configs == ("X", "Y", "Z")
    assert p.cases_per_config == (3, 3, 2) and p.dropped_cases == 1 and p.n_cases == 2
    assert p.correct.tolist() == [[True, True, True], [False, False, False]]
    q = pr.parse_paired(f, ("X", "Y"))  # pairing only the chosen configs keeps case c
    assert q.n_cases == 3 and q.dropped_cases == 0


def test_long_pairing_counts_dropped_cases() -> None:
    f = pd.DataFrame(
        {"case": [1, 1, 2, 3, 3, 4], "config": ["A", "B", "A", "A", "B", "B"], "correct": [1, 0, 1, 1, 1, 0]}
    )
    p = pr.parse_paired(f)
    assert p.cases_per_config == (3, 3) and p.dropped_cases == 2 and p.n_cases == 2
    assert list(p.cases) == ["1", "3"]


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (pd.DataFrame(), "empty"),
        (pd.DataFrame({"case": [], "config": [], "correct": []}), "empty"),
        (pd.DataFrame({"id": [1], "A": [1], "B": [0]}), "no 'case' column"),
        (pd.DataFrame({"case": [1, 1], "config": ["A", "B"]}), "no 'correct' column"),
        (
            pd.DataFrame({"case": [1, 2], "config": ["A", "A"], "correct": [1, 0]}),
            "at least two configs; found only 'A'",
        ),
        (pd.DataFrame({"case": [1, 2], "A": [1, 0]}), "at least two configs"),
        (
            pd.DataFrame({"case": [1, 1, 2, 1], "config": ["A", "B", "A", "A"], "correct": [1, 0, 1, 0]}),
            r"duplicate \(case, config\).*case '1' with config 'A'; data rows 1, 4\. Keep one row",
        ),
        (
            pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B", "A", "B"], "correct": [1, 2, 1, "x"]}),
            r"'correct' must be 0 or 1; 2 row\(s\) are not: data rows 2 \(case '1', config 'B': 2\), "
            r"4 \(case '2', config 'B': 'x'\)$",
        ),
        (
            pd.DataFrame({"case": [1, 2, 3], "A": [1, 0, 1], "B": [0, 0.5, 1]}),
            r"config column 'B' must hold 0 or 1 \(or be empty\); 1 row\(s\) do not: data row 2 \(case '2': 0.5\)$",
        ),
        (
            pd.DataFrame({"case": [1, 1], "A": [1, 0], "B": [0, 1]}),
            "duplicate case ids in the wide table: case '1' and others at data rows 1, 2; keep",
        ),
        (pd.DataFrame({"case": [1, 2], "A": [1, None], "B": [None, 1]}), "no case has results for every config"),
        (
            pd.DataFrame({"case": [1, None], "config": ["A", "B"], "correct": [1, 0]}),
            "missing case id in the 'case' column at data row 2$",
        ),
    ],
)
def test_parse_errors_are_precise(frame: pd.DataFrame, words: str) -> None:
    with pytest.raises(DataError, match=words):
        pr.parse_paired(frame)


def test_unknown_config_lists_the_configs_present() -> None:
    with pytest.raises(DataError, match="unknown config 'n=9'; the configs present are 'n=1', 'n=3', 'n=5', 'n=7'"):
        pr.parse_paired(long_frame(worked_table()), ("n=1", "n=9"))
    with pytest.raises(DataError, match="unknown config 'x'"):
        pr.compare_pair(worked_table(), "x", "n=3")
    with pytest.raises(DataError, match="two different configs"):
        pr.compare_pair(worked_table(), "n=3", "n=3")


def test_the_worked_example_file_parses_to_the_chapter_table(worked_paired_frame: pd.DataFrame) -> None:
    p = pr.parse_paired(worked_paired_frame)
    assert p.layout == "long" and p.configs == ("n=1", "n=3", "n=5", "n=7")
    assert p.n_cases == 200 and p.dropped_cases == 0
    assert p.correct.sum(axis=0).tolist() == [142, 156, 158, 158]


def test_every_word_of_the_truth_vocabulary_is_read_in_both_layouts() -> None:
    words = sorted(TRUE_WORDS) + sorted(FALSE_WORDS)
    expected = [True] * len(TRUE_WORDS) + [False] * len(FALSE_WORDS)
    shouted = [f" {w.upper()} " for w in words]
    wide = pd.DataFrame({"case": range(len(words)), "A": shouted, "B": [1] * len(words)})
    assert pr.parse_paired(wide).column("A").tolist() == expected
    long = pd.DataFrame(
        {"case": list(range(len(words))) * 2, "config": ["A"] * len(words) + ["B"] * len(words), "correct": words * 2}
    )
    assert pr.parse_paired(long).column("B").tolist() == expected


def test_float_case_ids_match_integer_ids() -> None:
    # a column with a blank reads as float (3.0); its ids still read "3" like the integers of the other file
    f = pd.DataFrame({"case": [1.0, 2.0, 3.0], "A": [1, 0, 1], "B": [0, 0, 1]})
    assert list(pr.parse_paired(f).cases) == ["1", "2", "3"]


@pytest.mark.parametrize(
    "ids",
    [(1e19, 2e19), (2.0**63, 2.0**63 + 4096), (1e300, float("inf")), (2.0**53 - 1, -(2.0**53 - 1)), (-0.0, 7.0)],
)
def test_float_case_ids_beyond_int64_stay_distinct(ids: tuple[float, float]) -> None:
    """Whole floats read as integers only below 2**53 (where a float is exactly that integer); larger ones keep their
    float text. Oracle: Python's int() of each id below 2**53, repr() from there on; never the wrapped int64 -2**63."""
    long = pd.DataFrame({"case": [ids[0], ids[0], ids[1], ids[1]], "config": list("ABAB"), "correct": [1, 0, 1, 1]})
    wide = pd.DataFrame({"case": list(ids), "A": [1, 1], "B": [0, 1]})
    oracle = sorted(str(int(x)) if abs(x) < 2**53 else repr(x) for x in ids)
    for frame in (long, wide):
        assert sorted(pr.parse_paired(frame).cases.tolist()) == oracle


def test_cases_per_config_quotes_config_names() -> None:
    """A config name with a line break is quoted with its escape: the message stays one line and unambiguous."""
    wide = pd.DataFrame({"case": [1, 2], "it\nem": [1, None], "B": [None, 0]})
    with pytest.raises(DataError) as info:
        pr.parse_paired(wide)
    assert str(info.value).endswith(r"(cases per config: 'it\nem': 1, 'B': 1)")


def test_long_table_errors_name_the_data_rows() -> None:
    f = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", None, "A", "B"], "correct": [1, 0, 1, 1]})
    with pytest.raises(DataError, match=r"^missing config name in the 'config' column at data row 2$"):
        pr.parse_paired(f)
    f = pd.DataFrame({"case": [1, 1, 2, 2], "config": ["A", "B", "A", "B"], "correct": [1, None, 1, ""]})
    with pytest.raises(DataError, match=r"2 row\(s\) are not: data rows 2 \(case '1', config 'B': None\), 4 "):
        pr.parse_paired(f)
    many = pd.DataFrame({"case": np.repeat(np.arange(8), 2), "config": ["A", "B"] * 8, "correct": ["?"] * 16})
    with pytest.raises(
        DataError, match=r"16 row\(s\) are not: data rows 1 .*, 5 \(case '2', config 'A': '\?'\) and 11 more$"
    ):
        pr.parse_paired(many)


def test_index_of_and_column() -> None:
    t = worked_table()
    assert t.index_of("n=5") == 2
    assert t.column("n=3").sum() == 156
    with pytest.raises(DataError, match="unknown config 'n=2'; the configs present are 'n=1', 'n=3'"):
        t.column("n=2")


def test_table_from_counts_respects_the_case_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NKP_MAX_CASES", "100")
    assert pr.paired_table_from_counts("A", "B", 50, 20, 20, 10).n_cases == 100
    with pytest.raises(DataError, match="the 2x2 table has 101 cases; the limit is 100 cases"):
        pr.paired_table_from_counts("A", "B", 51, 20, 20, 10)
    with pytest.raises(DataError, match="add up to zero cases"):
        pr.paired_table_from_counts("A", "B", 0, 0, 0, 0)
