"""AppTest of the Data page's "Who rated" quality columns beside Dawid-Skene (``ui.data.raters``): each model the
reader adds is a column equal to ``raters --aggregate METHOD``'s ``rater_quality`` (crowd-kit), in percent."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

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


def _fit_once(monkeypatch: pytest.MonkeyPatch, classes: tuple[type, ...]) -> collections.Counter[str]:
    """crowd-kit's ``fit_predict`` of ``classes`` remembered per (model, settings, table): a second fit of the same
    model with the same settings on the same table takes the first fit's state and labels instead of fitting again
    (MACE and GLAD take seconds whatever the data's size). Returns how often each model was served so."""
    fits: dict[tuple[Any, ...], tuple[dict[str, Any], pd.Series]] = {}
    served: collections.Counter[str] = collections.Counter()
    for cls in classes:
        fit_predict = cls.fit_predict

        def remembered(self: Any, data: pd.DataFrame, *args: Any, _fit: Any = fit_predict, **kwargs: Any) -> Any:
            settings = tuple(sorted((k, repr(v)) for k, v in vars(self).items()))
            key = (type(self), settings, tuple(data.columns), pd.util.hash_pandas_object(data).to_numpy().tobytes())
            if key in fits:
                state, labels = fits[key]
                vars(self).update(state)
                served[type(self).__name__] += 1
                return labels.copy()
            labels = _fit(self, data, *args, **kwargs)
            fits[key] = (dict(vars(self)), labels.copy())
            return labels

        monkeypatch.setattr(cls, "fit_predict", remembered)
    return served


def test_added_models_are_columns_equal_to_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's columns equal the CLI's numbers, and the CLI fits the very models the page fitted: the same
    model, settings and table (each of its fits is served from the page's, ``_fit_once``)."""
    from crowdkit.aggregation import GLAD, MACE

    served = _fit_once(monkeypatch, (MACE, GLAD))
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
    assert served == {"MACE": 1, "GLAD": 1}  # the CLI asked for exactly the page's fits
