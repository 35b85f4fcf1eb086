"""Compare's "Which config ships" on real data (issue 54): LLMBar's 65 judge configs on the same 419 items and HANNA's
11 story sources on the same 96 prompts, stored as the Data page stores a paired-results table. The page opens on
the decision (the verdict, then the leaderboard chart) and says what ``python -m nkcore rank FILE --json`` says on the
same file: the same verdict sentence, could-be-best set and winner; the chart's intervals are checked against an
independent sup-t band computed here from the case means.

Data: ``../shared/datasets/llmbar_judge_configs`` (Natural + Adversarial, 419 items; the two orders of the outputs
as two repeats, or the original order alone: 0/1 results, the McNemar path) and ``hanna_story_eval`` (Coherence, the
3 human ratings (1-5) of each story as 3 repeats, scored (rating - 1) / 4). Tests marked ``shared``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nkcore import store
from nkcore.cli import main
from tests.app.conftest import RunPage, error_texts, plain
from tests.app.helpers import found, in_order, leading_elements
from tests.conftest import ROOT

COMPARE = "pages/3_Compare.py"
DATASETS = ROOT.parent / "shared" / "datasets"
LLMBAR = DATASETS / "llmbar_judge_configs" / "llmbar_verdicts_long.csv.gz"
HANNA = DATASETS / "hanna_story_eval" / "hanna_ratings_long.csv.gz"
needs_shared = pytest.mark.skipif(not (LLMBAR.is_file() and HANNA.is_file()), reason="../shared/datasets is absent")


def llmbar_frame(both_orders: bool = True) -> pd.DataFrame:
    """LLMBar's 419 LLMBar items x 65 configs: case = item_id; repeat 1 (original order) and 2 (swapped), or the
    original order alone (0/1 results, no repeat column)."""
    d = pd.read_csv(LLMBAR)
    d = d[~d["subset"].str.startswith("Processed")]  # the Processed-* subsets have 8 configs only
    one = d.assign(repeat=1, correct=d["correct_noswap"])
    two = d.assign(repeat=2, correct=d["correct_swap"])
    both = pd.concat([one, two])[["item_id", "config", "repeat", "correct"]].rename(columns={"item_id": "case"})
    out = both if both_orders else both[both["repeat"] == 1].drop(columns="repeat")
    return out.reset_index(drop=True)


def hanna_frame() -> pd.DataFrame:
    """HANNA Coherence: case = prompt_index, config = system, the 3 raters as repeats, score = (rating - 1) / 4."""
    h = pd.read_csv(HANNA)
    h = h[h["criterion"] == "Coherence"]
    parts = [
        pd.DataFrame(
            {"case": h["prompt_index"], "config": h["system"], "repeat": k, "score": (h[f"human_{k}"] - 1) / 4}
        )
        for k in (1, 2, 3)
    ]
    return pd.concat(parts, ignore_index=True)


REAL = {
    "llmbar_both_orders": lambda: llmbar_frame(True),
    "llmbar_original_order": lambda: llmbar_frame(False),
    "hanna_coherence": hanna_frame,
}


def _cli(frame: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, object]:
    path = tmp_path / "paired.csv"
    frame.to_csv(path, index=False)
    assert main(["rank", str(path), *flags, "--json"]) == 0
    doc: dict[str, object] = json.loads(capsys.readouterr().out)
    return doc


def _chart_rows(at: object) -> pd.DataFrame:
    """The leaderboard's data as drawn (Streamlit ships the chart's rows as Arrow)."""
    from streamlit import dataframe_util

    chart = found(at, "vega_lite_chart")[0].proto  # type: ignore[arg-type]
    return pd.concat([dataframe_util.convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.datasets])


def _sup_t(frame: pd.DataFrame, resamples: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An independent sup-t band of each config's mean: case means by pandas, the case bootstrap by numpy's
    multinomial draws (the same generator and draws as the rank command, so the same c within rounding)."""
    score = "score" if "score" in frame.columns else "correct"
    means = frame.groupby(["case", "config"], sort=False)[score].mean().unstack()
    x = means.dropna().to_numpy(dtype=float)
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    boot = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples) @ x / n
    m, se = x.mean(axis=0), x.std(axis=0, ddof=1) / np.sqrt(n)
    c = np.quantile((np.abs(boot - m) / se).max(axis=1), 0.95, method="inverted_cdf")
    return m - c * se, m + c * se


@pytest.mark.shared
@needs_shared
@pytest.mark.parametrize("name", list(REAL))
def test_real_data_opens_on_the_verdict_the_cli_gives(
    name: str, run_page: RunPage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = REAL[name]()
    doc = _cli(frame, tmp_path, capsys, "--margin", "1")
    ds_id = store.put(frame, "paired", f"{name}.csv").id
    at = run_page(COMPARE, query={"eval": ds_id}, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    lead = leading_elements(at, 5)  # title, the question, then the decision (headline, verdict) and its chart
    assert [t for t, _ in lead] == ["title", "markdown", "markdown", "markdown", "vega_lite_chart"], lead
    k, m = len(doc["could_be_best"]), len(doc["configs"])  # type: ignore[arg-type]
    said = f"{k} of the {m} configs could be the best" if k > 1 else f"{doc['winner']['config']} is the best of"  # type: ignore[index]
    assert lead[2][1].startswith("#### Which config ships? " + said), lead[2]
    assert lead[3][1] == f"**{doc['verdict']}.**"  # the CLI's sentence, word for word
    table = next(f.value for f in at.dataframe if "could be best" in f.value.columns)
    assert list(table["config"]) == [c["config"] for c in doc["configs"]]  # type: ignore[attr-defined]
    assert set(table.loc[table["could be best"] == "yes", "config"]) == set(doc["could_be_best"])  # type: ignore[arg-type]
    winner = doc["winner"]
    captions = " ".join(plain(c.value) for c in at.caption)
    assert f"{winner['config']} scores {100 * winner['naive']:.1f}%, {100 * winner['corrected']:.1f}%" in captions  # type: ignore[index]
    rows = _chart_rows(at)
    n = len(doc["configs"])  # type: ignore[arg-type]
    assert len(rows) == min(n, 15)  # the top 15 until "show all"
    best = rows.loc[rows["status"] == "could be the best", "config"]
    assert set(best) == set(doc["could_be_best"]) & set(rows["config"])  # type: ignore[arg-type]
    assert rows["config"].iloc[0] == winner["config"]  # type: ignore[index]
    low, high = _sup_t(frame)
    names = list(frame.drop_duplicates("config")["config"])
    band = dict(zip(names, zip(low, high, strict=True), strict=True))
    for _, r in rows.iterrows():
        lo, hi = band[r["config"]]
        assert r["low"] == pytest.approx(max(0.0, lo), abs=1e-9) and r["high"] == pytest.approx(min(1.0, hi), abs=1e-9)
        assert r["low"] <= r["mean"] <= r["high"]
    if n > 15:
        at.toggle(key="cmp_ship_all").set_value(True).run()
        assert len(_chart_rows(at)) == n
    # the pairwise tests follow the decision
    kinds = [(x.type, plain(getattr(x, "value", "") or "")) for x in in_order(at.main) if x.type == "subheader"]
    assert kinds and kinds[0][1] == "The pairwise tests", kinds


# ---------------------------------------------------------------------------------------------------- the frontier

COST = "pages/5_Cost_and_latency.py"


def _priced_run(seed: int = 3) -> pd.DataFrame:
    """Five configs on 300 cases x 3 repeats with a cost per call: two cheap and weak, one cheap and strong, two dear
    (one about as strong as the cheap strong one, one weaker than it)."""
    rng = np.random.default_rng(seed)
    truth = {"tiny": (0.50, 0.0001), "small": (0.52, 0.0002), "mid": (0.75, 0.0004), "big": (0.77, 0.004),
             "bloated": (0.55, 0.01)}  # fmt: skip
    ease = rng.normal(0.0, 1.0, 300)
    rows = []
    for config, (p, price) in truth.items():
        shift = np.log(p / (1 - p))
        for case in range(300):
            q = 1 / (1 + np.exp(-(shift + 0.8 * ease[case])))
            for rep in (1, 2, 3):
                rows.append((str(case), config, rep, int(rng.random() < q), price * rng.uniform(0.8, 1.2)))
    return pd.DataFrame(rows, columns=["case", "config", "repeat", "correct", "cost"])


def _brute_force_frontier(frame: pd.DataFrame, resamples: int = 2000, seed: int = 0) -> dict[str, str | None]:
    """config -> the cheapest config that costs no more and is resolvably above it (None: on the frontier), from an
    independent transcription of the paired max-T intervals: case means by pandas, the same multinomial draws."""
    means = frame.groupby(["case", "config"], sort=False)["correct"].mean().unstack()
    names = list(frame.drop_duplicates("config")["config"])
    x = means[names].to_numpy(dtype=float)
    n, m = x.shape
    cost = frame.groupby("config")["cost"].mean()[names].to_numpy()
    boot = np.random.default_rng(seed).multinomial(n, np.full(n, 1.0 / n), size=resamples) @ x / n
    e = boot - x.mean(axis=0)
    t = np.zeros(resamples)
    se = {}
    for j in range(m):
        for k in range(j + 1, m):
            s = np.std(x[:, j] - x[:, k], ddof=1) / np.sqrt(n)
            se[j, k] = se[k, j] = s
            if s > 0:
                t = np.maximum(t, np.abs(e[:, j] - e[:, k]) / s)
    c = np.quantile(t, 0.95, method="inverted_cdf")
    mean = x.mean(axis=0)
    out: dict[str, str | None] = {}
    for j in range(m):
        beaters = [k for k in range(m) if k != j and cost[k] <= cost[j] and mean[k] - mean[j] - c * se[k, j] > 0]
        out[names[j]] = names[min(beaters, key=lambda k: cost[k])] if beaters else None
    return out


def test_frontier_rows_match_a_brute_force_frontier() -> None:
    from nkcore.rank.frontier_view import frontier_rows

    frame = _priced_run()
    rows = frontier_rows(frame)
    oracle = _brute_force_frontier(frame)
    assert {r.config: r.beaten_by for r in rows} == oracle
    assert {r.config for r in rows if r.on_frontier} == {c for c, b in oracle.items() if b is None}
    assert [r.cost for r in rows] == sorted(r.cost for r in rows)  # cheapest first
    assert {c for c, b in oracle.items() if b is not None}  # the design puts some configs off the frontier


def test_cost_page_shows_the_frontier_the_cli_gives(
    run_page: RunPage, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = _priced_run()
    doc = _cli(frame, tmp_path, capsys, "--cost-column", "cost")
    ds_id = store.put(frame, "paired", "priced run").id
    at = run_page(COST, query={"eval": ds_id}, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    heads = [plain(h.value) for h in at.subheader]
    assert "Across the 5 configs: which are worth their cost?" in heads
    table = next(f.value for f in at.dataframe if "on the frontier" in f.value.columns)
    on = list(table.loc[table["on the frontier"] == "yes", "config"])
    assert on == [f["config"] for f in doc["frontier"]]  # type: ignore[attr-defined]  # the CLI's, cheapest first
    text = " ".join(plain(m.value) for m in at.markdown)
    assert " are on the cost frontier" in text or "the only config on the cost frontier" in text
    for name in on:
        assert name in text


def test_cost_page_shows_the_frontier_on_one_run_per_case(run_page: RunPage) -> None:
    """One run per case leaves nothing to vote over: the page says so, and still shows the frontier across configs."""
    frame = _priced_run()
    frame = frame[frame["repeat"] == 1].drop(columns="repeat")
    ds_id = store.put(frame, "paired", "priced single run").id
    at = run_page(COST, query={"eval": ds_id}, timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    heads = [plain(h.value) for h in at.subheader]
    assert "Across the 5 configs: which are worth their cost?" in heads
    assert any("on the frontier" in f.value.columns for f in at.dataframe)


def test_charts_are_valid_vega_lite() -> None:
    """The builders' output validated against the Vega-Lite schema (the page sends it unvalidated)."""
    from nkcore.rank.document import rank_doc
    from nkcore.rank.frontier_view import frontier_rows, simultaneous_scores
    from ui.charts import rank as rank_charts
    from ui.compare.ship import leaderboard_rows

    frame = _priced_run()
    doc = rank_doc(frame.drop(columns="cost"))
    rows = leaderboard_rows(doc, simultaneous_scores(frame.drop(columns="cost")))
    assert list(rows["config"]) == [c["config"] for c in doc["configs"]]
    rank_charts.leaderboard_chart(rows, "95%", 3).to_dict(validate=True)
    f = pd.DataFrame(
        [{"config": r.config, "cost": r.cost, "mean": r.mean, "low": r.low, "high": r.high,
          "status": rank_charts.FRONTIER if r.on_frontier else rank_charts.NOT_FRONTIER, "beaten_by": r.beaten_by or ""}
         for r in frontier_rows(frame)]
    )  # fmt: skip
    rank_charts.frontier_chart(f, "95%").to_dict(validate=True)
