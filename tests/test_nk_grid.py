"""Grid, minimal budget, best K, the paper's headline claims, sentences and the ``nk`` CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.nk.grid import (
    PAPER_KS,
    CellResult,
    best_k,
    cells_frame,
    configurations,
    extrapolated,
    minimal_budget_search,
    minimal_budgets,
    parse_int_list,
    simulate_grid,
)
from nkcore.nk.priors import DATASET_PRESETS, get_prior
from nkcore.nk.sentences import claims_check, fmt_p, kl_artifact_sentence, minimal_budget_sentence

TOX = get_prior("Toxicity").concentration


def test_paper_grid_has_282_configurations() -> None:
    cfgs = configurations()
    assert len(cfgs) == 282
    assert len(configurations([100, 250, 500, 1000, 2500])) == 142
    assert all(c.n == c.budget // c.k and c.k <= c.budget for c in cfgs)
    assert len(PAPER_KS) == 35 and PAPER_KS[:11] == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20) and PAPER_KS[-1] == 500
    assert [c.k for c in configurations([100])] == [*range(1, 11), 20, 40, 60, 80, 100]


def _cell(budget: int, k: int, metric: str, p: float, delta: float = 0.1, ci: float = 0.2) -> CellResult:
    z = np.zeros(2)
    return CellResult(budget, k, budget // k, metric, p, delta, ci, 0.9, 0.0, delta, 2, z, z)


def test_best_k_and_minimal_budget_by_hand() -> None:
    cells = [
        _cell(100, 1, "tv", 0.30),
        _cell(100, 20, "tv", 0.08),
        _cell(250, 1, "tv", 0.20),
        _cell(250, 20, "tv", 0.04),
        _cell(250, 40, "tv", 0.04, delta=0.2),  # same p, larger Delta / CI-width: preferred
        _cell(250, 1, "acc", 0.5),
    ]
    assert [(b.budget, b.k) for b in best_k(cells, "tv")] == [(100, 20), (250, 40)]
    mbs = {m.metric: m for m in minimal_budgets(cells)}
    assert (mbs["tv"].budget, mbs["tv"].k, mbs["tv"].p) == (250, 40, 0.04)
    assert mbs["acc"].budget is None
    assert "does not reach" in minimal_budget_sentence(mbs["acc"])
    assert "250" in minimal_budget_sentence(mbs["tv"]) and "(K) = 40" in minimal_budget_sentence(mbs["tv"])


def test_minimal_budget_search_equals_full_grid() -> None:
    kw: dict[str, Any] = {
        "budgets": [100, 250, 500],
        "ks": [1, 5, 20, 60],
        "metrics": ["acc", "tv"],
        "rounds": 200,
        "seed": 5,
    }
    full = minimal_budgets(simulate_grid(TOX, 0.4, **kw), ["acc", "tv"])
    assert minimal_budget_search(TOX, 0.4, **kw) == full


def test_parse_int_list() -> None:
    assert parse_int_list("1-3,20-60:20, 7", "K") == (1, 2, 3, 7, 20, 40, 60)
    with pytest.raises(DataError):
        parse_int_list("a,b", "K")
    with pytest.raises(DataError):
        parse_int_list("0", "K")


def test_cells_frame_and_sentences() -> None:
    cells = simulate_grid(TOX, 0.3, [100], [1, 20], ["acc", "kl"], rounds=50, seed=0)
    df = cells_frame(cells)
    assert list(df.columns[:8]) == ["budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility"]
    assert len(df) == 4
    assert "27.63" in kl_artifact_sentence()
    assert fmt_p(0.0001) == "< 0.001"
    claims = claims_check(cells)
    assert claims[0].holds in (True, False) and claims[0].evidence


@pytest.mark.slow
@pytest.mark.parametrize("name", DATASET_PRESETS)
def test_headline_claim_on_each_preset(name: str) -> None:
    """Spec: for every dataset some metric reaches p < 0.05 within N x K <= 1000, at K > 10 (eps = 0.3)."""
    cells = simulate_grid(get_prior(name).concentration, 0.3, [100, 250, 500, 1000], PAPER_KS, rounds=500, seed=0)
    hits = [c for c in cells if c.k > 10 and c.p < 0.05]
    assert hits, f"{name}: no metric reaches p < 0.05 at K > 10 within budget 1000"
    assert claims_check(cells)[0].holds


# ---- CLI ----------------------------------------------------------------------------------------------------------
def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_cell_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    obj = _json(
        capsys,
        ["nk", "--prior", "Toxicity", "--budget", "1000", "--k", "120", "--metric", "tv", "--rounds", "200", "--json"],
    )
    assert isinstance(obj, dict)
    for key in ("budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility"):
        assert key in obj
    assert (obj["budget"], obj["k"], obj["n"], obj["metric"]) == (1000, 120, 8, "tv")


def test_cli_grid_and_min_budget_json(capsys: pytest.CaptureFixture[str]) -> None:
    grid = _json(
        capsys,
        [
            "nk",
            "--alpha",
            "3,3,3",
            "--eps",
            "0.4",
            "--grid",
            "--budgets",
            "100,250",
            "--ks",
            "1,20",
            "--metric",
            "acc,js",
            "--rounds",
            "100",
            "--json",
        ],
    )
    assert isinstance(grid, list) and len(grid) == 8 and {g["metric"] for g in grid} == {"acc", "js"}
    mb = _json(
        capsys,
        [
            "nk",
            "--prior",
            "JobsQ1",
            "--min-budget",
            "--budgets",
            "100,250,500",
            "--ks",
            "1,20,40",
            "--rounds",
            "200",
            "--json",
        ],
    )
    assert [set(x) - {"any_budget"} for x in mb] == [{"metric", "budget", "k", "p"}] * 4  # the contract's keys
    assert [x["metric"] for x in mb] == ["acc", "tv", "wins", "kl"]


def test_cli_plain_text_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nk", "--prior", "DICES", "--budget", "500", "--k", "5", "--rounds", "50"]) == 0
    out = capsys.readouterr().out
    assert "items (N) 100 x ratings per item (K) 5" in out
    assert main(["nk", "--prior", "nope", "--grid"]) == 2
    assert "unknown prior" in capsys.readouterr().err
    assert main(["nk", "--alpha", "1,-1", "--budget", "100", "--k", "1"]) == 2
    assert main(["nk", "--prior", "DICES", "--budget", "100"]) == 2
    assert main(["nk", "--prior", "DICES", "--budget", "100", "--k", "5", "--metric", "auc"]) == 2


def test_cli_real_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = ["item,rater,label"] + [f"i{i},r{j},{'a' if (i * j) % 4 else 'b'}" for i in range(40) for j in range(8)]
    (tmp_path / "r.csv").write_text("\n".join(rows) + "\n")
    preds = ["item,model,pred_label"] + [
        f"i{i},{m},{'a' if m == 'm1' or i % 2 else 'b'}" for i in range(40) for m in ("m1", "m2")
    ]
    (tmp_path / "p.csv").write_text("\n".join(preds) + "\n")
    obj = _json(
        capsys,
        [
            "nk",
            "--ratings",
            str(tmp_path / "r.csv"),
            "--predictions",
            str(tmp_path / "p.csv"),
            "--models",
            "m1,m2",
            "--budget",
            "80",
            "--k",
            "4",
            "--rounds",
            "50",
            "--json",
        ],
    )
    assert obj["k"] == 4 and obj["n"] == 20 and "reproducibility" in obj
    fitted = _json(
        capsys, ["nk", "--ratings", str(tmp_path / "r.csv"), "--budget", "80", "--k", "4", "--rounds", "50", "--json"]
    )
    assert fitted["prior"].startswith("fitted")


def test_the_p_standard_error_is_the_spread_of_p_over_fresh_samples() -> None:
    """The paper's p from finite null and alternative samples: its DeLong standard error matches the spread of p
    over 2,000 fresh pairs of samples (normal gaps 2.5 sd apart, 500 each)."""
    from nkcore.nk.pvalue import p_standard_error, p_value

    rng = np.random.default_rng(0)
    ps, ses = [], []
    for _ in range(2000):
        null, alt = rng.normal(0, 1, 500), rng.normal(2.5, 1, 500)
        ps.append(p_value(null, alt))
        ses.append(p_standard_error(null, alt))
    assert float(np.mean(ses)) == pytest.approx(float(np.std(ps, ddof=1)), rel=0.05)


def test_one_cell_record_keeps_every_former_attribute_and_json_key() -> None:
    """Every engine returns ``nkcore.nk.cell.Cell``; a part's fields read as the cell's own and are absent (AttributeError,
    so ``getattr`` defaults hold) without that part; ``summary()`` has the keys of the CLI's JSON contract, in order."""
    from nkcore.nk.cell import BASE_KEYS, CROSSED_KEYS, POLICY_KEYS, REAL_KEYS, Cell, RealPart, fixed_policy

    c = _cell(100, 4, "acc", 0.01)
    assert isinstance(c, Cell) and CellResult is Cell
    assert getattr(c, "n_qualifying", None) is None and not hasattr(c, "policy") and not hasattr(c, "item_p")
    assert list(c.summary()) == [
        "budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility", "ties", "mean_gap", "rounds",
        "method", "p_error", "delta_error", "ci_width_error", "reproducibility_error",
    ]  # fmt: skip
    # issue 53: the reproducibility's Monte Carlo error for a cell of simulated rounds, Agresti-Coull's
    # (r~ = (x + 2) / (rounds + 4), sqrt(r~ (1 - r~) / (rounds + 4))): never 0, also when every round agreed
    from nkcore.nk.cell import make_cell
    from nkcore.nk.pvalue import cell_stats

    m = make_cell(100, 4, 25, "acc", cell_stats([0.1, -0.2, 0.3, 0.05], [0.0] * 4), 4, z4 := np.zeros(4), z4)
    assert (m.reproducibility, m.reproducibility_error) == (0.75, pytest.approx(np.sqrt(5 / 8 * 3 / 8 / 8)))
    every = make_cell(100, 4, 25, "acc", cell_stats([0.1, 0.2, 0.3, 0.05], [0.0] * 4), 4, z4, z4)
    assert every.reproducibility == 1.0 and every.reproducibility_error == pytest.approx(np.sqrt(6 / 8 * 2 / 8 / 8))
    f = fixed_policy(c)
    assert (f.policy, f.first_stage_k, f.mean_ratings_per_item, f.max_ratings_per_item) == ("fixed", 4, 4.0, 4)
    assert list(f.summary()) == [*BASE_KEYS, *POLICY_KEYS] and f.p == c.p
    r = Cell(100, 4, 25, "acc", 0.2, 0.1, 0.3, 0.8, 0.0, 0.1, 10, c.alt, c.null, real=RealPart(0.1, 1, 0.5, 30, "t"))
    assert (r.full_gap, r.direction, r.significant_share, r.n_qualifying, r.test) == (0.1, 1, 0.5, 30, "t")
    assert list(r.summary()) == list(REAL_KEYS) and extrapolated(r) is False
    assert CROSSED_KEYS[:7] == ("budget", "k", "n", "metric", "p", "delta", "ci_width")
