"""The cases behind a verdict (nkcore.paired.disagreements) against independent computations.

Oracles: McNemar's discordant counts b and c of the paired analysis (nkcore.paired.compare_frame_pair,
analyse_paired), the case-level counts of the sign-flip comparison (compare_frame_cases: A higher, B higher), case
means computed here with a plain pandas pivot, and answers and golds written out by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nkcore import paired
from nkcore.errors import DataError
from nkcore.paired import DISAGREEMENT_COLUMNS, disagreements, select_disagreements


def _binary_long(n: int, seed: int, configs: tuple[str, ...] = ("A", "B")) -> pd.DataFrame:
    """A long 0/1 table of ``n`` cases (ids "q0", "q1"...) with correlated configs (hard and easy cases), rows shuffled."""
    rng = np.random.default_rng(seed)
    ease = rng.random(n)
    rows = [
        {"case": f"q{i}", "config": c, "correct": int(rng.random() < 0.3 + 0.6 * ease[i] + 0.05 * j)}
        for i in range(n)
        for j, c in enumerate(configs)
    ]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("seed", range(6))
def test_discordant_cases_are_mcnemars_b_and_c(seed: int) -> None:
    frame = _binary_long(150, seed)
    comp = paired.compare_frame_pair(frame, a="A", b="B")
    table = disagreements(frame, "A", "B")
    assert list(table.columns) == list(DISAGREEMENT_COLUMNS)
    assert int((table["difference"] < 0).sum()) == comp.a_only  # b: only A right
    assert int((table["difference"] > 0).sum()) == comp.b_only  # c: only B right
    assert len(table) == comp.discordant
    assert table["difference"].sum() / comp.n_cases == pytest.approx(comp.diff)
    # independently: the pivot of the raw rows, the cases whose two results differ
    wide = frame.pivot(index="case", columns="config", values="correct")
    expected = set(wide.index[wide["A"] != wide["B"]])
    assert set(table["case"]) == expected
    for row in table.itertuples(index=False):
        assert (row[1], row[2]) == (wide.loc[row[0], "A"], wide.loc[row[0], "B"])


def test_discordant_counts_equal_every_adjacent_pair_of_the_worked_example() -> None:
    frame = pd.read_csv("sample_data/worked_example_paired.csv")
    result = paired.analyse_paired(frame)
    for c in result.comparisons:
        table = disagreements(frame, c.config_a, c.config_b, configs=result.configs)
        assert (int((table["difference"] < 0).sum()), int((table["difference"] > 0).sum())) == (c.a_only, c.b_only)
    assert [(c.a_only, c.b_only) for c in result.comparisons] == [(12, 26), (5, 7), (3, 3)]


def test_binary_rows_keep_the_order_the_cases_first_appear() -> None:
    frame = pd.DataFrame({"case": ["z", "a", "m", "b"], "A": [1, 0, 1, 1], "B": [0, 0, 0, 1]})  # wide
    table = disagreements(frame, "A", "B")
    assert table["case"].tolist() == ["z", "m"]
    assert table[["answers A", "answers B", "gold"]].isna().all().all()  # a wide table records no answers


def test_pairing_over_the_compared_configs_drops_the_cases_one_of_them_lacks() -> None:
    frame = pd.DataFrame({"case": ["1", "2", "3", "4"], "A": [1, 1, 0, 0], "B": [0, 0, 1, 0], "C": [1, None, 1, 1]})
    assert disagreements(frame, "A", "B")["case"].tolist() == ["1", "2", "3"]
    assert disagreements(frame, "A", "B", configs=("A", "B", "C"))["case"].tolist() == ["1", "3"]
    comp = paired.analyse_paired(frame, configs=("A", "B", "C")).comparisons[0]
    assert comp.discordant == 2


def _with_epochs(seed: int, n: int = 40, epochs: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ease = rng.random(n)
    rows = []
    for i in range(n):
        for c, lift in (("weak", 0.0), ("strong", 0.2)):
            for e in range(1, epochs + 1):
                right = rng.random() < min(1.0, 0.2 + 0.6 * ease[i] + lift)
                rows.append(
                    {"case": i, "config": c, "epoch": e, "correct": int(right), "answer": "1" if right else "0"}
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("seed", range(4))
def test_with_repeats_the_rows_are_the_cases_whose_means_differ_largest_first(seed: int) -> None:
    frame = _with_epochs(seed)
    table = disagreements(frame, "weak", "strong")
    means = frame.pivot_table(index="case", columns="config", values="correct", aggfunc="mean")
    diff = (means["strong"] - means["weak"]).rename(index=str)
    nonzero = diff[diff != 0]
    assert sorted(table["case"]) == sorted(nonzero.index)
    assert table["difference"].to_numpy() == pytest.approx(nonzero.loc[table["case"]].to_numpy())
    assert list(np.abs(table["difference"])) == sorted(np.abs(table["difference"]), reverse=True)
    comp = paired.compare_frame_cases(frame, a="weak", b="strong")
    assert (int((table["difference"] < 0).sum()), int((table["difference"] > 0).sum())) == (
        comp.a_better,
        comp.b_better,
    )
    assert comp.diff == pytest.approx(table["difference"].sum() / comp.n_cases)
    # the answers, one per epoch in epoch order, read back to the scores
    for row in table.itertuples(index=False):
        for answers, score in ((row[4], row[1]), (row[5], row[2])):
            parts = answers.split(", ")
            assert len(parts) == 3 and np.mean([p == "1" for p in parts]) == pytest.approx(score)


def test_answers_per_repeat_in_repeat_order_and_the_gold() -> None:
    frame = pd.DataFrame(
        {
            "case": ["c1"] * 6 + ["c2"] * 6,
            "config": (["A"] * 3 + ["B"] * 3) * 2,
            "repeat": [3, 1, 2, 2, 1, 3] * 2,
            "correct": [0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0],
            "answer": ["y", "x", "x", "x", "x", "x", "x", "x", "x", "z", "x", None],
            "gold": "x",
        }
    )
    table = disagreements(frame, "A", "B")
    assert table["case"].tolist() == ["c2", "c1"]  # |-2/3| before |+1/3|
    assert table["score A"].tolist() == pytest.approx([1.0, 2 / 3])
    assert table["score B"].tolist() == pytest.approx([1 / 3, 1.0])
    c1 = table.set_index("case").loc["c1"]
    assert c1["answers A"] == "x, x, y" and c1["answers B"] == "x, x, x" and c1["gold"] == "x"
    c2 = table.set_index("case").loc["c2"]
    assert c2["answers B"] == "x, z, –"  # repeat 1 (x), 2 (z), 3 (no answer recorded)


def test_partial_scores_without_repeats() -> None:
    frame = pd.DataFrame({"case": [1, 1, 2, 2, 3, 3], "config": ["A", "B"] * 3, "score": [0.5, 0.75, 1, 1, 0.2, 0]})
    table = disagreements(frame, "A", "B")
    assert table["case"].tolist() == ["1", "3"] and table["difference"].tolist() == pytest.approx([0.25, -0.2])


def test_no_disagreement_is_an_empty_table_with_the_columns() -> None:
    frame = pd.DataFrame({"case": [1, 2], "A": [1, 0], "B": [1, 0]})
    table = disagreements(frame, "A", "B")
    assert table.empty and list(table.columns) == list(DISAGREEMENT_COLUMNS)


def test_bad_choices_are_data_errors() -> None:
    frame = pd.DataFrame({"case": [1, 2], "A": [1, 0], "B": [0, 0]})
    with pytest.raises(DataError, match="two different configs"):
        disagreements(frame, "A", "A")
    with pytest.raises(DataError, match="not among the compared configs"):
        disagreements(frame, "A", "B", configs=("A", "C"))
    with pytest.raises(DataError, match="unknown config"):
        disagreements(frame, "A", "C")
    with pytest.raises(DataError, match="side must be"):
        select_disagreements(disagreements(frame, "A", "B"), "left")  # type: ignore[arg-type]


def test_select_by_side_and_case_text() -> None:
    frame = _binary_long(120, 3)
    table = disagreements(frame, "A", "B")
    comp = paired.compare_frame_pair(frame, a="A", b="B")
    assert len(select_disagreements(table, "a")) == comp.a_only
    assert len(select_disagreements(table, "b")) == comp.b_only
    assert len(select_disagreements(table, "all")) == comp.discordant
    some = select_disagreements(table, "all", " Q1 ")
    assert len(some) == sum("q1" in c for c in table["case"]) and all("q1" in c for c in some["case"])
    assert select_disagreements(table, "all", "no such case").empty
