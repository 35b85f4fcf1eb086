"""AppTest of the pass@k section (``ui.sampling.passk.passk_section``) in a tiny script, outside any page."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.app.conftest import clear_streamlit_caches, error_texts, plain, rendered_markdown

SAMPLE_SCRIPT = """
from ui.common import datasets
from ui.sampling.passk import passk_section

passk_section(datasets.load_dataset("samples", None))
"""

FILE_SCRIPT = """
import pandas as pd
from nkcore import io
from ui.common.datasets import Dataset
from ui.sampling.passk import passk_section

frame = pd.read_csv({path!r})
fp = io.fingerprint(frame)
passk_section(Dataset(id=fp, name="upload", kind="samples", fingerprint=fp, frame=frame, builtin=False))
"""


def _run(script: str) -> AppTest:
    clear_streamlit_caches()
    return AppTest.from_string(script, default_timeout=120).run()


def _run_frame(frame: pd.DataFrame, tmp_path: Path) -> AppTest:
    path = tmp_path / "samples.csv"
    frame.to_csv(path, index=False)
    return _run(FILE_SCRIPT.format(path=str(path)))


def test_sample_dataset_verdict_chart_and_flaky_table(worked_frame: pd.DataFrame) -> None:
    at = _run(SAMPLE_SCRIPT)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    assert at.subheader[0].value == "Pass@k and flaky cases"
    assert [e.label for e in at.expander] == ["How to read this chart"]
    assert "**pass@k** counts a pick with at least one right answer" in at.expander[0].markdown[0].value
    right = (worked_frame["answer"] == worked_frame["gold"]).groupby(worked_frame["case"]).sum()
    any_right, all_right = (right > 0).mean(), (right == 7).mean()  # 0.85 and 0.175, counted here
    flaky = int(((right > 0) & (right < 7)).sum())
    verdict = plain(at.markdown[0].value)
    assert verdict == (
        f"**pass@7 (at least one of 7 samples right) is {any_right:.0%} but all 7 right (pass^7) is only 18%: "
        f"{flaky / 200:.0%} of cases are flaky (their samples disagree).**"
    )
    assert all_right == 0.175 and flaky == 135
    assert plain(at.markdown[2].value).startswith("135 of 200 cases (67.5%) are flaky")
    # one chart with the three readings
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1
    spec = json.dumps(json.loads(charts[0].proto.spec))
    for name in ("at least one of k right (pass@k)", "majority of k right (majority vote)", "all k right (pass^k)"):
        assert name in spec
    # the 20 most evenly split flaky cases, with their answers
    table = at.dataframe[0].value
    assert len(table) == 20
    assert list(table.columns) == ["case", "gold answer", "right samples", "share right", "answers (count)"]
    even = (table["share right"] - 50).abs().round(9).tolist()
    assert even == sorted(even) and even[0] == round(min(abs(100 * c / 7 - 50) for c in range(1, 7)), 9)
    first = table.iloc[0]
    assert "(gold)" in first["answers (count)"] and first["right samples"] == "4 of 7"
    assert any("The 20 of 135 flaky cases" in plain(c.value) for c in at.caption)
    labels = [str(getattr(b, "label", "")) for b in at.get("download_button")]
    assert "Download all 135 flaky cases (CSV)" in labels and "Chart as PNG" in labels


def test_binary_file_lists_flaky_cases_without_answers(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"case": [1, 1, 1, 2, 2, 2, 3, 3, 3], "sample": [1, 2, 3] * 3, "correct": [1, 0, 1, 1, 1, 1, 0, 1, 0]}
    )
    at = _run_frame(frame, tmp_path)
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table.columns) == ["case", "right samples", "share right"]
    assert table["case"].tolist() == ["1", "3"] and table["right samples"].tolist() == ["2 of 3", "1 of 3"]
    assert "pass@3 (at least one of 3 samples right) is 100% but all 3 right (pass^3) is only 33%" in plain(
        at.markdown[0].value
    )


def test_user_text_reaches_only_tables_and_bad_input_is_a_message(tmp_path: Path) -> None:
    rows = [("[x](http://e.org)", j, "**b**" if j == 2 else "g", "g") for j in (1, 2, 3)]
    rows += [("c2", j, "g", "g") for j in (1, 2, 3)]
    at = _run_frame(pd.DataFrame(rows, columns=["case", "sample", "answer", "gold"]), tmp_path)
    assert not at.exception
    assert at.dataframe[0].value["answers (count)"].tolist() == ["g ×2 (gold), **b** ×1"]
    assert not any("](http" in t or "**b**" in t for t in rendered_markdown(at))
    one = pd.DataFrame({"case": [1, 2], "sample": [1, 1], "answer": ["a", "b"], "gold": ["a", "a"]})
    at = _run_frame(one, tmp_path)
    assert not at.exception
    assert any("every case has one sample" in e for e in error_texts(at))
    assert not at.dataframe and not at.get("vega_lite_chart")


def test_cases_with_different_sample_counts_are_said(tmp_path: Path) -> None:
    rows = [(1, j, "g" if j != 2 else "w", "g") for j in (1, 2, 3, 4)] + [(2, j, "g", "g") for j in (1, 2)]
    at = _run_frame(pd.DataFrame(rows, columns=["case", "sample", "answer", "gold"]), tmp_path)
    assert not at.exception
    # k = 2, the most samples every case has: case 1 has 3 right of 4, so pass@2 = 1, pass^2 = (1/2 + 1) / 2
    assert plain(at.markdown[0].value).startswith(
        "**pass@2 (at least one of 2 samples right) is 100% but all 2 right (pass^2) is only 75%"
    )
    assert any("Cases have 2 to 4 samples: at each k, the cases with at least k count." in c.value for c in at.caption)
