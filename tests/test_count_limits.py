"""Label-count files that claim too many ratings: refused as they are read, and the prior fit bounded whatever K.

Issue 52: a 500-byte file of 20 items with count_a = count_b = 10**8 passed every limit; the prior fit then made
arrays as long as the ratings per item (3.7 GiB, MemoryError at 10**12, a traceback at 10**18). The expected
numbers here come from the files as written (sums by Python integers) and from a plain re-statement of the spread
check over the whole support, not from the code under test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nkcore.cli import main
from nkcore.common import limits
from nkcore.errors import DataError
from nkcore.nk import fit as fit_module
from nkcore.nk.fit import assess_alpha, fit_dirichlet
from nkcore.nk.frames import fit_prior_frame, ratings_of
from nkcore.ratings import ratings_from_counts
from nkcore.summary import validate_and_summarize

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
PER_ITEM = "NKP_MAX_RATINGS_PER_ITEM"
TOTAL = "NKP_MAX_RATINGS"


def _frame(per_label: list[tuple[int, int]]) -> pd.DataFrame:
    """Items 0, 1, ... with (count_a, count_b) each, as Python ints (10**18 stays exact in the CSV)."""
    return pd.DataFrame(
        {
            "item": list(range(len(per_label))),
            "count_a": [a for a, _ in per_label],
            "count_b": [b for _, b in per_label],
        }
    )


def _csv(path: Path, per_label: list[tuple[int, int]]) -> Path:
    """The file exactly as a user would write it (no pandas in between: the numbers are the literal digits)."""
    lines = ["item,count_a,count_b"] + [f"{i},{a},{b}" for i, (a, b) in enumerate(per_label)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _expected_refusal(item: int, ratings: int, others: int) -> str:
    more = f", one of {others:,} items over the limit" if others > 1 else ""
    return (
        f"item '{item}' (data row {item + 1}{more}) has {ratings:,} ratings; the limit is "
        f"{limits.get('ratings_per_item'):,} ratings per item (server setting {PER_ITEM})"
    )


@pytest.mark.parametrize("power", [8, 12, 18])
def test_huge_counts_are_refused_by_the_parser(power: int) -> None:
    frame = _frame([(10**power, 10**power)] * 20)
    assert len(frame.to_csv(index=False).encode()) < 1_000  # the file of the issue: under 1 KB
    with pytest.raises(DataError) as err:
        ratings_from_counts(frame)
    assert str(err.value).startswith(_expected_refusal(0, 2 * 10**power, 20))
    # every way in refuses it the same way: the engine's reader, the prior fit of a table, the Data page's check
    for call in (ratings_of, fit_prior_frame, lambda f: validate_and_summarize(f, "ratings")):
        with pytest.raises(DataError, match=PER_ITEM):
            call(frame)


def test_a_file_at_the_limit_is_read_and_fitted(monkeypatch: pytest.MonkeyPatch) -> None:
    cap = limits.get("ratings_per_item")
    assert cap == limits.LIMITS["ratings_per_item"].default == 10_000
    per_label = [(cap // 2 + 37 * i, cap // 2 - 37 * i) for i in range(20)]  # every item exactly at the limit
    r = ratings_from_counts(_frame(per_label))
    assert r.counts.tolist() == [list(p) for p in per_label]  # items 0..19 are already in natural order
    assert r.ratings_per_item.tolist() == [cap] * 20 and r.n_ratings == 20 * cap == r.n_raters * 20
    fit = fit_dirichlet(r.counts)
    assert fit.n_ratings == 20 * cap and np.isfinite(fit.marginal_tv) and np.isfinite(fit.log_likelihood)
    # one rating more on item 7 alone: refused, naming that item and no others
    over = list(per_label)
    over[7] = (over[7][0] + 1, over[7][1])
    with pytest.raises(DataError) as err:
        ratings_from_counts(_frame(over))
    assert str(err.value).startswith(_expected_refusal(7, cap + 1, 1))
    # the setting moves the limit both ways
    monkeypatch.setenv(PER_ITEM, str(cap + 1))
    assert ratings_from_counts(_frame(over)).ratings_per_item.max() == cap + 1
    monkeypatch.setenv(PER_ITEM, str(cap - 1))
    with pytest.raises(DataError, match=f"one of 20 items over the limit.*{cap - 1:,} ratings per item"):
        ratings_from_counts(_frame(per_label))


def test_total_ratings_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # at the defaults: 10,000 items of 10,000 ratings is exactly 10**8 and passes; one item more is refused
    cap = limits.LIMITS["ratings"].default
    assert cap == 100_000_000 == limits.get("ratings")
    ok = ratings_from_counts(_frame([(5_000, 5_000)] * 10_000))
    assert ok.n_ratings == cap
    with pytest.raises(DataError) as err:
        ratings_from_counts(_frame([(5_000, 5_000)] * 10_001))
    assert str(err.value).startswith(
        f"the label-count table has {10_001 * 10_000:,} ratings; the limit is {cap:,} ratings (server setting {TOTAL})"
    )
    monkeypatch.setenv(TOTAL, "1000")
    assert ratings_from_counts(_frame([(30, 20)] * 20)).n_ratings == 1000
    with pytest.raises(DataError, match=f"1,001 ratings; the limit is 1,000 ratings .*{TOTAL}"):
        ratings_from_counts(_frame([(30, 20)] * 19 + [(31, 20)]))


@pytest.mark.parametrize("count", [10**12, 10**18, 1e30, 2**63 - 1])
def test_the_fit_refuses_a_modal_k_over_the_limit_without_allocating(count: float) -> None:
    counts = np.array([[count, count]] * 20, dtype=float)
    tracemalloc.start()
    try:
        for call in (lambda: fit_dirichlet(counts), lambda: assess_alpha(counts, (1.0, 1.0))):
            with pytest.raises(DataError) as err:
                call()
            msg = str(err.value)
            k = 2 * float(count)  # past 2^53 the message gives the float's 15 significant digits, not its noise
            shown = f"{k:,.0f}" if k < 2**53 else f"{int(Decimal(f'{k:.15g}')):,}"
            assert msg.startswith(
                f"each of the 20 items with the most common number of ratings (K) has {shown} ratings"
            )
            assert PER_ITEM in msg
        assert tracemalloc.get_traced_memory()[1] < 2**20  # nothing sized by the counts
    finally:
        tracemalloc.stop()


def _reference_check(sub: np.ndarray, k: int, prior: np.ndarray) -> tuple[float, float]:
    """The spread check over the whole support 0..K at once: TV and its sampling allowance, averaged over labels."""
    a0 = prior.sum()
    x = np.arange(k + 1)
    tvs, allow = [], []
    for j in range(sub.shape[1]):
        pmf = stats.betabinom.pmf(x, k, prior[j], a0 - prior[j])
        obs = np.array([np.sum(sub[:, j] == v) for v in x]) / sub.shape[0]
        tvs.append(0.5 * np.abs(obs - pmf).sum())
        allow.append(0.5 * np.sqrt(2 * pmf * (1 - pmf) / (np.pi * sub.shape[0])).sum())
    return float(np.mean(tvs)), float(np.mean(allow))


@pytest.mark.parametrize("chunk", [fit_module.SUPPORT_CHUNK, 7, 1])
def test_the_spread_check_in_chunks_equals_the_whole_support(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    rng = np.random.default_rng(52)
    prior = np.array([0.7, 2.0, 1.3])
    x = np.array([rng.multinomial(30, rng.dirichlet(prior)) for _ in range(300)], dtype=float)
    monkeypatch.setattr(fit_module, "SUPPORT_CHUNK", chunk)
    got = fit_module._marginal_check(x, 30, prior)
    assert got == pytest.approx(_reference_check(x, 30, prior), rel=1e-12, abs=1e-15)
    fit = fit_dirichlet(x)
    assert (fit.marginal_tv, fit.marginal_tv_allowance) == pytest.approx(
        _reference_check(x, 30, np.array(fit.concentration)), rel=1e-9
    )


def test_a_raised_limit_keeps_the_fit_memory_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    k = 1_000_000  # 8 MB for one float array over the support 0..K: the spread check never holds one
    monkeypatch.setenv(PER_ITEM, str(2 * k))
    rng = np.random.default_rng(1)
    a = rng.binomial(k, rng.beta(2.0, 3.0, size=40)).astype(float)
    counts = np.column_stack([a, k - a])
    fit_dirichlet(np.array([[1, 2], [2, 1], [3, 0]]))  # scipy's modules imported before memory is traced
    tracemalloc.start()
    try:
        fit = fit_dirichlet(counts)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fit.n_ratings == 40 * k and peak < 8 * k / 2  # under half of one support-long float64 array
    assert fit.alpha0 == pytest.approx(5.0, rel=0.6)  # Beta(2, 3) shares: alpha0 = 5, loosely from 40 items


def test_nested_label_counters_are_refused_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "nested.jsonl"
    p.write_text("".join(json.dumps({"uid": i, "label_counter": {"e": 10**12, "n": 10**12}}) + "\n" for i in range(20)))
    assert main(["data", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2,000,000,000,000 ratings" in err and PER_ITEM in err


@pytest.mark.parametrize("power", [8, 12, 18])
def test_cli_data_refuses_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], power: int) -> None:
    path = _csv(tmp_path / f"c{power}.csv", [(10**power, 10**power)] * 20)
    assert main(["data", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"error: {_expected_refusal(0, 2 * 10**power, 20)}: " + (
        f"{limits.LIMITS['ratings_per_item'].hint}\n"
    )


def _nk(path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """``python -m nkcore nk --ratings PATH --budget 200 --k 2`` in a fresh process, 2 GiB of address space if
    prlimit is there; with its wall time."""
    cmd = [sys.executable, "-m", "nkcore", "nk", "--ratings", str(path), "--budget", "200", "--k", "2"]
    prlimit = shutil.which("prlimit")
    if prlimit:
        cmd = [prlimit, "--as=2147483648", *cmd]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    return proc, time.perf_counter() - start


@pytest.mark.slow  # fresh interpreters: about 1.5 s each
@pytest.mark.parametrize("power", [8, 12, 18])
def test_cli_nk_exits_2_with_one_line(tmp_path: Path, power: int) -> None:
    proc, seconds = _nk(_csv(tmp_path / f"c{power}.csv", [(10**power, 10**power)] * 20))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout == "" and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {_expected_refusal(0, 2 * 10**power, 20)}")
    assert "more memory than this machine has" not in proc.stderr  # the MemoryError path is never reached
    assert seconds < 30


@pytest.mark.slow
def test_cli_nk_at_the_limit_runs(tmp_path: Path) -> None:
    cap = limits.LIMITS["ratings_per_item"].default
    proc, seconds = _nk(_csv(tmp_path / "at.csv", [(cap // 2 + 37 * i, cap // 2 - 37 * i) for i in range(20)]))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Prior (alpha) fitted to at.csv" in proc.stdout and "budget of 200 ratings" in proc.stdout
    assert seconds < 30


@pytest.mark.shared
def test_real_count_files_pass_with_room() -> None:
    for path, subsets in (
        (SHARED / "chaosnli" / "label_counts.csv.gz", ("snli", "mnli_m", "alphanli")),
        (SHARED / "cifar10h" / "label_counts.csv.gz", (None,)),
    ):
        frame = pd.read_csv(path)
        for subset in subsets:
            part = frame if subset is None else frame[frame["subset"] == subset]
            sums = part[[c for c in part.columns if c.startswith("count_")]].fillna(0).sum(axis=1)
            r = ratings_from_counts(frame, subset=subset)
            assert r.n_ratings == int(sums.sum()) and int(r.ratings_per_item.max()) == int(sums.max())
            assert sums.max() * 100 <= limits.get("ratings_per_item")  # K <= 100: a hundredth of the limit
            assert sums.sum() * 100 <= limits.get("ratings")  # 511,000 at most: under a hundredth
            fit = fit_dirichlet(r.counts)  # the spread check: the same numbers over the whole support
            k_mode = int(pd.Series(r.ratings_per_item).mode().iloc[0])
            sub = r.counts[r.ratings_per_item == k_mode].astype(float)
            assert (fit.marginal_tv, fit.marginal_tv_allowance) == pytest.approx(
                _reference_check(sub, k_mode, np.array(fit.concentration)), rel=1e-9
            )
