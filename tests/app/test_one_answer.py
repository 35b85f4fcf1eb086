"""One answer everywhere: every page (AppTest) and the CLI on the same inputs give each shared number the same value,
or name the difference in the same sentence.

The shared numbers: the one-call accuracy, each pairwise p and its verdict (with the family rule named where it
applies), the minimal budget, the smallest resolvable difference and the label-error floor; on the samples and on
two real datasets (ChaosNLI's predictions turned into paired results, and two inspect_ai logs of 60 cases x 3
epochs).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nkcore import store
from nkcore.cli import main
from nkcore.harness import read_harness
from nkcore.harness.files import read_paths
from tests.app.conftest import RunPage, error_texts, plain
from tests.conftest import DATASETS, ROOT

TIMEOUT = 240


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _texts(at: AppTest) -> str:
    parts = [plain(m.value) for m in at.markdown] + [plain(c.value) for c in at.caption]
    parts += [plain(i.value) for i in at.info] + [plain(w.value) for w in at.warning]
    return "\n".join(parts)


def _metrics(at: AppTest) -> dict[str, str]:
    return {plain(m.label): plain(m.value) for m in at.metric}


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    assert not error_texts(at), error_texts(at)
    return at


def test_the_samples_give_one_answer_on_every_page_and_in_the_cli(
    run_page: RunPage, capsys: pytest.CaptureFixture[str]
) -> None:
    paired = str(ROOT / "sample_data" / "worked_example_paired.csv")
    samples = str(ROOT / "sample_data" / "worked_example_samples.csv")
    one_three = _cli(capsys, "compare", paired, "--a", "n=1", "--b", "n=3")
    one_call = f"{100 * one_three['a']['accuracy']:.1f}%"  # the first sample of each case: 71.0%

    # the one-call accuracy. Compare's built-in example is the chapter's paired table (each config's first n
    # samples: n=1 is the first sample, 71.0%); Sampling and Cost & latency read every sample (63.1%), and
    # Sampling's headline names both readings
    compare = _ok(run_page("pages/3_Compare.py", timeout=TIMEOUT))
    text = _texts(compare)
    assert f"n=1: 142 of 200 correct = {one_call}" in text
    assert one_three["verdict"].split(", p =")[0] in text  # the pair's verdict, its p named with Holm's family
    assert "but only tentatively (with Holm's adjustment for 3 pairs" in text
    vote = _cli(capsys, "vote", samples)
    all_samples = f"{100 * vote['p_single']:.1f}%"  # 63.1%
    cost = _ok(run_page("pages/5_Cost_and_latency.py", timeout=TIMEOUT))
    ctext = _texts(cost)
    table = next(f.value for f in cost.dataframe if "configuration" in f.value.columns)
    row = table.set_index("configuration").loc["n=1"]
    assert f"{float(row['accuracy']):.1f}%" == all_samples  # the cost table's n=1 row: every sample, as Sampling
    curve = {p["n"]: p["accuracy"] for p in vote["curve"]}
    gain = f"n=1 by {100 * (curve[3] - curve[1]):.1f} points, sign-flip p < 0.001, the one comparison"
    assert gain in ctext  # the advice's paired test on the expected credit of each case (fractions: sign-flip)
    sampling = _ok(run_page("pages/4_Sampling.py", timeout=TIMEOUT))
    stext = _texts(sampling)
    assert f"(one call, over all samples; the first sample alone: {one_call})" in stext
    assert all_samples in stext  # 63.1%: the all-samples reading, named as such

    # the smallest resolvable difference and the floor: the Planner, the CLI plan, and Compare's n=3 -> n=5 sentence
    plan = _cli(capsys, "plan", "--cases", "200", "--discordance", "0.06", "--label-error", "0.03")
    planner = _ok(run_page("pages/6_Planner.py", timeout=TIMEOUT))
    ptext = _texts(planner)
    resolvable = f"{100 * plan['min_resolvable_diff']:.1f} points"
    assert _metrics(planner)["smallest resolvable"] == resolvable
    assert f"a net of 8 cases = {resolvable}" in text  # Compare: 12 discordant cases of 200 = 6%
    floor = f"{100 * plan['label_error']['noise_floor_diff']:.1f} points"
    assert f"below the label-error floor of {floor}" in ptext  # the headline carries it
    assert _metrics(planner)["lost in label noise"] == floor

    # the minimal budget: the Budget page leads with the engine's answer at any budget, the CLI names it
    nk = _cli(capsys, "nk", "--prior", "Toxicity", "--min-budget", "--metric", "acc")
    budget = _ok(run_page("pages/2_Budget.py", timeout=TIMEOUT))
    headline = next(plain(m.value) for m in budget.markdown if m.value.startswith("####"))
    assert f"{nk[0]['any_budget']['budget']:,} ratings" in headline


@pytest.mark.shared
def test_chaosnli_predictions_give_the_same_verdict_in_compare_and_the_cli(
    run_page: RunPage, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """ChaosNLI SNLI: the models' predictions against the raters' plurality, derived into paired results by the CLI,
    stored, and compared on the page and by the CLI: the same verdict, word for word."""
    chaos = DATASETS / "chaosnli"
    preds, counts = chaos / "predictions_snli_mnli_baan2022.csv.gz", chaos / "label_counts.csv.gz"
    out = tmp_path / "paired.csv"
    args = ["data", "derive", "paired", "--predictions", str(preds), "--ratings", str(counts), "--out", str(out)]
    capsys.readouterr()
    assert main([*args, "--subset", "snli"]) == 0
    frame = pd.read_csv(out)
    configs = list(dict.fromkeys(frame["config"]))
    doc = _cli(capsys, "compare", str(out), "--a", configs[0], "--b", configs[1])
    meta = store.put(frame, "paired", "chaosnli paired")
    at = _ok(run_page("pages/3_Compare.py", query={"paired": meta.id, "cmp_mode": "one pair of my choice"}))
    assert doc["verdict"] in _texts(at)


def test_an_inspect_pair_gives_the_same_verdict_on_compare_and_its_link_as_in_the_cli(
    run_page: RunPage, capsys: pytest.CaptureFixture[str], inspect_epoch_pair: tuple[Path, Path]
) -> None:
    weak, strong = inspect_epoch_pair  # tests.inspect_logs.epoch_pair, written once per run (tests/conftest.py)
    doc = _cli(capsys, "compare", str(weak), str(strong))
    res = read_harness(read_paths([weak, strong]))
    assert res.paired is not None
    meta = store.put(res.paired, "paired", "inspect pair")
    at = _ok(run_page("pages/3_Compare.py", query={"paired": meta.id}))
    text = _texts(at)
    assert doc["verdict"] in text
    # the metrics beside it: the CLI's cases and effective cases
    assert _metrics(at)["paired cases"] == f"{doc['n_cases']:,}"
    assert _metrics(at)["effective cases"] == f"{doc['effective_cases']:,.0f}"


def test_a_promptfoo_run_gives_one_answer_on_every_page_and_in_the_cli(
    run_page: RunPage, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51: a promptfoo run of 3 providers x 7 tests x 3 repeats with costs (written by promptfoo itself),
    stored whole as the Data page stores it. For every config: one single-call accuracy on Sampling (its headline),
    Cost & latency (its n=1 row), Compare (the config's mean) and the CLI (``vote``, ``compare``); one verdict for
    each adjacent pair on Compare and in the CLI; one price per call on Cost & latency and in the run's JSON."""
    from nkcore.kinds import apply_mapping

    path = ROOT / "tests" / "data" / "promptfoo" / "results.json"
    res = read_harness([(path.name, path.read_bytes())])
    assert res.evaluation is not None
    ds_id = store.put(
        apply_mapping(res.evaluation, "paired", {c: c for c in res.evaluation.columns}), "paired", "pf"
    ).id
    configs = res.configs
    results = json.loads(path.read_text())["results"]["results"]
    compare = _ok(run_page("pages/3_Compare.py", query={"eval": ds_id}, timeout=TIMEOUT))
    ctext = _texts(compare)
    for a, b in itertools.pairwise(configs):
        doc = _cli(capsys, "compare", str(path), "--a", a, "--b", b)
        head = doc["verdict"].split(" (95% interval")[0]  # "cannot tell X from Y: +9.5 points"
        assert head.endswith(" points") and head in ctext, (head, a, b)  # the pair's verdict and its difference
    for j, config in enumerate(configs):
        vote = _cli(capsys, "vote", str(path), "--config", config)
        one_call = f"{100 * vote['p_single']:.1f}%"
        sampling = _ok(run_page("pages/4_Sampling.py", query={"eval": ds_id, "smp_config": config}, timeout=TIMEOUT))
        assert f"from {one_call} (one call, over all samples" in _texts(sampling), config
        cost = _ok(run_page("pages/5_Cost_and_latency.py", query={"eval": ds_id, "lat_config": config}))
        table = next(f.value for f in cost.dataframe if "configuration" in f.value.columns)
        assert f"{float(table.set_index('configuration').loc['n=1', 'accuracy']):.1f}%" == one_call, config
        mine = [float(r["cost"]) for r in results if r["promptIdx"] == j]
        assert cost.number_input(key="lat_price").value == pytest.approx(round(sum(mine) / len(mine), 6), abs=1e-9)
        pair = _cli(capsys, "compare", str(path), "--a", config, "--b", configs[(j + 1) % 3])
        assert f"{100 * pair['a']['accuracy']:.1f}%" == one_call, config  # Compare's accuracy of the config
