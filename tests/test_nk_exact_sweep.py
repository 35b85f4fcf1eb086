"""Several grids at once (``nkcore.nk.exact.sweep.exact_grids``) and the CLI's lists of priors and eps.

Oracles: ``exact_grid`` of each (prior, eps) on its own (its numbers do not depend on the process that computes
them), the closed-form Accuracy gap at K = 1 (spec "Two facts a correct implementation shows"), and the JSON
contract keys of issue 5.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from nkcore.cli import main
from nkcore.errors import DataError
from nkcore.nk.exact import exact_grid, sweep
from nkcore.nk.exact.laws import clear_caches
from nkcore.nk.exact.sweep import exact_grids
from nkcore.nk.priors import expected_accuracy_gap_k1, get_prior

BUDGETS = (100, 1000)
KS = (1, 3, 20, 100)
CONTRACT = {"budget", "k", "n", "metric", "p", "delta", "ci_width", "reproducibility", "prior", "eps"}


def _numbers(cells: list) -> list[tuple]:
    return [(c.budget, c.k, c.n, c.metric, c.p, c.delta, c.ci_width, c.p_error, c.method, c.ties) for c in cells]


def test_whole_grids_on_two_processes_give_each_grids_own_numbers() -> None:
    jobs = [
        (get_prior("Toxicity").concentration, 0.1),
        (get_prior("JobsQ1").concentration, 0.3),
        (get_prior("DICES").concentration, 0.2),
    ]
    clear_caches()
    got = exact_grids(jobs, BUDGETS, KS, ["acc", "kl"], processes=2)
    assert len(got) == 3
    for (alpha, eps), cells in zip(jobs, got, strict=True):
        clear_caches()
        own = exact_grid(alpha, eps, BUDGETS, KS, ["acc", "kl"], processes=1)
        assert _numbers(cells) == _numbers(own)
        assert all((a.alt == b.alt).all() and (a.null == b.null).all() for a, b in zip(cells, own, strict=True))


def test_the_accuracy_gap_at_k1_is_the_closed_form_in_every_grid() -> None:
    alpha = get_prior("DICES").concentration
    got = exact_grids([(alpha, e) for e in (0.1, 0.2, 0.4)], [500], [1], ["acc"], processes=2)
    for eps, (cell,) in zip((0.1, 0.2, 0.4), got, strict=True):
        assert cell.delta == pytest.approx(expected_accuracy_gap_k1(alpha, eps), rel=1e-9)


def test_a_dead_worker_costs_time_not_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    real = sweep.exact_grid

    def dies_in_a_worker(*args: object, **kwargs: object) -> list:
        if os.getpid() != parent:
            os._exit(3)  # as a worker killed by the system would
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep, "exact_grid", dies_in_a_worker)  # the workers are forked with it
    jobs = [((1.0, 2.0), 0.1), ((1.0, 2.0), 0.3)]
    got = exact_grids(jobs, [100], [1], ["acc"], processes=2)
    assert [c.delta for (c,) in got] == pytest.approx([0.1 / 6, 0.3 / 6], rel=1e-9)


def test_bad_jobs_are_refused_before_any_work() -> None:
    with pytest.raises(DataError, match="eps must be between 0 and 1"):
        exact_grids([((1.0, 2.0), 0.1), ((1.0, 2.0), 1.5)], [100], [1], ["acc"])
    with pytest.raises(DataError, match="no grid"):
        exact_grids([], [100], [1], ["acc"])


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[dict]:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_lists_of_priors_and_eps_give_every_grid_in_one_list(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--grid", "--budgets", "100,1000", "--ks", "1,20", "--metric", "acc,kl", "--json"]
    both = _json(capsys, ["nk", "--prior", "Toxicity,JobsQ1", "--eps", "0.1,0.3", *base])
    singles = [
        _json(capsys, ["nk", "--prior", name, "--eps", eps, *base])
        for name in ("Toxicity", "JobsQ1")
        for eps in ("0.1", "0.3")
    ]
    assert both == [cell for grid in singles for cell in grid]  # prior by prior, then eps by eps
    assert all(CONTRACT <= set(c) for c in both)
    assert [(c["prior"], c["eps"]) for c in both[:: len(singles[0])]] == [
        ("Toxicity", 0.1),
        ("Toxicity", 0.3),
        ("JobsQ1", 0.1),
        ("JobsQ1", 0.3),
    ]


def test_cli_prior_all_is_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    cells = _json(
        capsys, ["nk", "--prior", "all", "--grid", "--budgets", "100", "--ks", "1", "--metric", "acc", "--json"]
    )
    assert len(cells) == 15
    for c in cells:
        assert c["delta"] == pytest.approx(expected_accuracy_gap_k1(get_prior(c["prior"]).concentration, 0.3), rel=1e-9)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--prior", "Toxicity", "--eps", "0.1,x", "--grid"], "--eps must be a number or a comma list"),
        (["--prior", "Toxicity", "--eps", "0.1,0.2", "--budget", "100", "--k", "1"], "go with --grid"),
        (["--prior", "Toxicity,DICES", "--min-budget"], "go with --grid"),
        (["--prior", "Toxicity", "--eps", "0.1,0.2", "--grid", "--method", "simulate"], "the exact engine"),
        (["--prior", "Toxicity", "--eps", "0.2,1.5", "--grid"], "eps must be between 0 and 1"),
        (["--prior", "Nope,DICES", "--grid"], "unknown prior 'Nope'"),
        (["--prior", "all", "--eps", "0.1,0.2,0.3,0.4,0.5", "--grid"], "75 grids .*NKP_MAX_GRIDS"),
    ],
)
def test_cli_bad_lists_get_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nk", *argv]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert re.search(message, lines[0])
