"""AppTest of the Data page's "Who rated" quality columns beside Dawid-Skene (``ui.data.raters``): each model the
reader adds is a column equal to ``raters --aggregate METHOD``'s ``rater_quality`` (crowd-kit), in percent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore.cli import main
from tests.app.conftest import clear_streamlit_caches, error_texts

pytest.importorskip("crowdkit")

SCRIPT = """
import pandas as pd
from nkcore import io
from ui.common.datasets import Dataset
from ui.data.raters import raters_section

frame = pd.read_csv({path!r})
fp = io.fingerprint(frame)
raters_section(Dataset(id=fp, name="ratings", kind="ratings", fingerprint=fp, frame=frame, builtin=False))
"""


def test_added_models_are_columns_equal_to_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    rows = [
        (f"i{i}", f"r{r}", int(t if rng.random() < (0.9 if r < 4 else 0.5) else 1 - t))
        for i, t in enumerate(truth)
        for r in range(6)
    ]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    clear_streamlit_caches()
    at = AppTest.from_string(SCRIPT.format(path=str(path)), default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "estimated quality (MACE)" not in at.dataframe[-1].value.columns  # nothing extra until asked
    at.multiselect(key="data_rater_models").set_value(["mace", "glad"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at)
    table = at.dataframe[-1].value.set_index("rater")
    for method, title in (("mace", "estimated quality (MACE)"), ("glad", "estimated quality (GLAD)")):
        capsys.readouterr()
        assert main(["raters", "--ratings", str(path), "--aggregate", method, "--json"]) == 0
        want = {q["rater"]: 100 * q["quality"] for q in json.loads(capsys.readouterr().out)["rater_quality"]}
        assert table[title].to_dict() == pytest.approx(want, abs=1e-9)
