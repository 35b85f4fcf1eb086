"""The exact engine against the simulation engine on every preset (slow): p, Delta, CI-width and significance.

For every preset at eps 0.3: a representative set of configurations that covers every K of the paper's grid and
every budget (one budget per K, taken in turn among the budgets with at most ``N_CAP`` items, so the simulation
stays affordable), each paper metric. The simulation runs ``SEEDS`` seeds x 1000 + 1000 rounds; its Monte Carlo
error is the larger of the seeds' spread and the error a 1000-round run has in theory, computed from the
engine's law (p: the U-statistic's variance, Var[P0(S0 >= a)] + Var[P1(S1 <= n)] over R, at least p (1 - p) / R
below p = 0.01, where rare extreme datasets dominate it and 1000 points cannot resolve them; Delta: sd / sqrt(R);
CI-width: the order statistics' spread). The CI-width is compared as a 1000-round sample would give it on average
(``sample_quantile_moments``: on a discrete law, e.g. Accuracy with few items, sample quantiles fall between the
law's atoms, while the engine reports the limit, the law's own quantiles). |z| < 4, z = (engine - mean of the seeds) / sqrt(se_sim^2 + engine
error^2). Significance (p < 0.05) must agree wherever the simulation's p is not within 4 se of 0.05, so the
minimal budgets agree too. The worst cells are printed.

The simulation's runs are stored (``tests/data/simulation_reference/``, written by ``make_runs.py`` there with
this module's ``simulation_runs``) under a key: a sha256 of the source of every nkcore module the simulation
imports, numpy's and scipy's versions, the prior, the configurations, seeds and rounds. The simulation is
deterministic, so with the same key it draws the same numbers: the stored runs are used, and
``test_stored_runs_are_what_the_simulator_draws`` draws a part of them again (one seed of the cheapest
configuration of each sampler a preset uses, and of the cheapest drawn in several chunks) and checks every number.
Once the key changes (the simulator or a version changed), the validation simulates every run itself again, as slow
as before, and warns until the reference is written again.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
import scipy
from scipy import stats

from nkcore.nk.exact import convolve as cv
from nkcore.nk.exact import exact_grid
from nkcore.nk.exact.cells import plan
from nkcore.nk.exact.laws import item_laws
from nkcore.nk.grid import PAPER_BUDGETS, PAPER_KS, CellResult, simulate_grid
from nkcore.nk.metrics import PAPER_METRICS
from nkcore.nk.outcomes import use_types
from nkcore.nk.priors import preset_names, resolve_prior
from nkcore.nk.samplers import urn_max_k
from nkcore.nk.simulate import _chunks as chunks_of
from nkcore.nk.simulate import draw_work
from tests.conftest import ROOT
from tests.test_import_graph import import_graph, imported_by, package_modules

SEEDS = 5
"""Simulation runs per cell. With 3, a cell's spread is estimated on 2 degrees of freedom (Student's t(2): |t| > 4
one time in 17) and one cell in ~1,300 per preset fell outside |z| < 4 by the simulation's own luck (JobsQ1,
budget 2,500, K 280, Wins: seeds 1000-1002 gave Delta 0.931-0.938 where 24 seeds average 0.9444 and the engine
says 0.9442)."""
ROUNDS = 1000
N_CAP = 1000
Z_MAX = 4.0
EPS = 0.3
REF = Path(__file__).resolve().parent / "data" / "simulation_reference"
SIMULATION_ENTRY = ("nkcore.nk.grid", "nkcore.nk.priors")
"""The modules the validation's simulation starts from (``simulate_grid``, ``resolve_prior``)."""

Key = tuple[int, int, str]


class SimRun(NamedTuple):
    """What the validation reads of one simulated cell."""

    p: float
    delta: float
    ci_width: float


def representative_configs(n_cap: int = N_CAP) -> list[tuple[int, int]]:
    """(budget, K): every K of the paper's grid once, budgets taken in turn, N = budget // K <= n_cap."""
    out = []
    for i, k in enumerate(PAPER_KS):
        ok = [b for b in PAPER_BUDGETS if b >= k and b // k <= n_cap]
        out.append((ok[i % len(ok)], k))
    return out


def test_representative_configs_cover_the_grid() -> None:
    cfgs = representative_configs()
    assert {k for _, k in cfgs} == set(PAPER_KS)
    assert {b for b, _ in cfgs} == set(PAPER_BUDGETS)


def sample_quantile_moments(xs: np.ndarray, cdf: np.ndarray, u: float, rounds: int) -> tuple[float, float]:
    """Mean and variance of numpy's linear-interpolation u-quantile of ``rounds`` draws from the law with atoms
    ``xs`` and cdf ``cdf``.

    The engine reports the limit (the law's quantile); on a discrete law a 1000-round sample's quantile sits
    between atoms on average, so the simulation is compared with this expectation: with h = (R - 1) u,
    j = floor(h), q = (1 - (h - j)) X_(j) + (h - j) X_(j+1), P(X_(j) <= x) = P(Bin(R, F(x)) > j); the variance
    treats X_(j) and X_(j+1) as equal (they differ only where an atom boundary falls between them).
    """
    h = (rounds - 1) * u
    j = int(np.floor(h))
    mean = second = 0.0
    for idx, wgt in ((j, 1.0 - (h - j)), (j + 1, h - j)):
        below = stats.binom.sf(idx, rounds, np.minimum(cdf, 1.0))  # P(X_(idx) <= x), 0-based order statistic
        mass = np.diff(np.concatenate([[0.0], below]))
        mean += wgt * float(np.sum(mass * xs))
        second += wgt * float(np.sum(mass * xs**2))
    return mean, max(second - mean**2, 0.0)


def alt_law(alpha: tuple[float, ...], c: CellResult) -> tuple[np.ndarray, np.ndarray]:
    """Atoms and cdf of the cell's S1 / N: exact on the engine's lattice, else from its 1000 quantile points."""
    if c.method == "lattice":
        alt, null = item_laws(alpha, EPS, c.k, [c.metric])
        a, b = alt[c.metric], null[c.metric]
        h, _, _ = plan(a, b, c.n)
        s1 = cv.power(cv.on_lattice(a.values, a.prob, h), c.n)
        keep = s1.pmf > 0
        xs = (np.arange(s1.lo, s1.hi + 1) * h / (a.scale * c.n))[keep]
        return xs, np.cumsum(s1.pmf[keep])
    xs = np.unique(c.alt)
    return xs, np.searchsorted(np.sort(c.alt), xs, side="right") / c.alt.size


def _theory_se(c: CellResult, rounds: int) -> tuple[float, float, float]:
    """A 1000-round simulation's standard errors of p, Delta and CI-width, from the engine's law (its points)."""
    alt, nul = np.sort(c.alt), np.sort(c.null)
    if np.median(nul) > np.median(alt):
        alt, nul = np.sort(-alt), np.sort(-nul)
    f0 = 1.0 - np.searchsorted(nul, alt, side="left") / nul.size  # P(S0 >= a)
    g1 = np.searchsorted(alt, nul, side="right") / alt.size  # P(S1 <= n)
    se_p = float(np.sqrt((f0.var() + g1.var()) / rounds))
    if c.p < 0.01:  # tails the 1000 points cannot resolve: the bound Var <= 2 p / R, halved
        se_p = max(se_p, float(np.sqrt(c.p * (1.0 - c.p) / rounds)))
    se_d = float(np.std(c.alt) / np.sqrt(rounds))
    q = []
    for u in (0.025, 0.975):
        d = np.sqrt(u * (1 - u) / rounds)
        lo, hi = np.quantile(c.alt, [max(u - d, 0.0), min(u + d, 1.0)])
        q.append((hi - lo) / 2)
    return se_p, se_d, float(np.hypot(*q))


def simulation_runs(
    name: str, configs: list[tuple[int, int]] | None = None, seeds: range = range(SEEDS)
) -> dict[Key, list[SimRun]]:
    """The simulation's runs of a preset, drawn now: (budget, K, metric) -> one ``SimRun`` per seed (1000 + s)."""
    alpha = resolve_prior(name, None).concentration
    runs: dict[Key, list[SimRun]] = {}
    for b, k in representative_configs() if configs is None else configs:
        for s in seeds:
            for c in simulate_grid(alpha, EPS, [b], [k], PAPER_METRICS, rounds=ROUNDS, seed=1000 + s):
                runs.setdefault((b, k, c.metric), []).append(SimRun(c.p, c.delta, c.ci_width))
    return runs


@functools.cache
def simulation_sources() -> tuple[Path, ...]:
    """The source files of every nkcore module the simulation imports, directly or through others (the import graph
    of every nkcore file, ~0.5 s to parse: once per process, not once per key)."""
    mods = package_modules("nkcore")
    return tuple(sorted(mods[m] for m in imported_by(import_graph(mods), SIMULATION_ENTRY)))


def simulation_key(name: str) -> dict[str, object]:
    """What the stored runs of a preset depend on; the same key draws the same numbers."""
    sources = hashlib.sha256()
    for path in simulation_sources():
        sources.update(f"{path.relative_to(ROOT)}\n".encode() + path.read_bytes())
    return {
        "preset": name,
        "concentration": list(resolve_prior(name, None).concentration),
        "eps": EPS,
        "configs": [list(c) for c in representative_configs()],
        "metrics": list(PAPER_METRICS),
        "seeds": [1000 + s for s in range(SEEDS)],
        "rounds": ROUNDS,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sources": sources.hexdigest(),
    }


def stored_runs(name: str) -> dict[Key, list[SimRun]] | None:
    """The stored runs of a preset, or None when absent or written under another key."""
    path = REF / f"{name}.json.gz"
    if not path.exists():
        return None
    with gzip.open(path, "rt") as f:
        ref = json.load(f)
    if ref["key"] != simulation_key(name):
        return None
    return {(b, k, mt): [SimRun(*(float.fromhex(x) for x in r)) for r in rs] for b, k, mt, rs in ref["runs"]}


def write_runs(name: str, runs: dict[Key, list[SimRun]]) -> Path:
    """Store a preset's runs under its key, every number as its exact float (``float.hex``)."""
    REF.mkdir(parents=True, exist_ok=True)
    rows = [[b, k, mt, [[float(x).hex() for x in r] for r in rs]] for (b, k, mt), rs in sorted(runs.items())]
    path = REF / f"{name}.json.gz"
    with gzip.open(path, "wt") as f:
        json.dump({"key": simulation_key(name), "runs": rows}, f)
    return path


def sampler_of(n: int, k: int, m: int) -> str:
    """The sampler the simulation's "auto" rule picks for a cell (``simulate._types_for``, ``draw_dataset``)."""
    return "types" if use_types(n, k, m) else "urn" if k <= urn_max_k(m) else "dirichlet"


def spot_configs(name: str) -> list[tuple[int, int]]:
    """The cheapest configuration of each sampler the preset's configurations use, and the cheapest whose rounds
    are drawn in more than one chunk (each chunk seeded on its own)."""
    m = len(resolve_prior(name, None).concentration)
    best: dict[str, tuple[int, tuple[int, int]]] = {}
    for b, k in representative_configs():
        kinds = [sampler_of(b // k, k, m)] + (["chunks"] if len(chunks_of(b // k, k, m, ROUNDS)) > 1 else [])
        work = draw_work(b // k, k, m, ROUNDS)
        for kind in kinds:
            if kind not in best or work < best[kind][0]:
                best[kind] = (work, (b, k))
    return sorted({c for _, c in best.values()})


@pytest.mark.slow
@pytest.mark.parametrize("name", preset_names())
def test_stored_runs_are_what_the_simulator_draws(name: str) -> None:
    stored = stored_runs(name)
    if stored is None:
        pytest.skip(f"no stored runs of {name} under the current key: the validation simulates them itself")
    fresh = simulation_runs(name, spot_configs(name), range(1))
    differ = [(key, stored[key][0], runs[0]) for key, runs in fresh.items() if stored[key][0] != runs[0]]
    assert fresh and not differ, (
        f"{len(differ)} stored runs differ from a fresh draw, first (stored, drawn): {differ[0]}"
    )


def test_the_key_covers_every_module_the_simulation_runs() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in simulation_sources()}
    for module in ("simulate", "samplers", "outcomes", "count_gaps", "count_kernels", "pvalue", "priors", "grid"):
        assert f"nkcore/nk/{module}.py" in names
    assert "nkcore/__init__.py" in names and "nkcore/common/seeding.py" in names
    assert not any(n.startswith("nkcore/nk/exact/") for n in names)  # the engine under test is not part of the key


@pytest.mark.slow
@pytest.mark.parametrize("name", preset_names())
def test_engine_agrees_with_the_simulation(name: str) -> None:
    alpha = resolve_prior(name, None).concentration
    cfgs = representative_configs()
    engine: dict[Key, CellResult] = {}
    for b, k in cfgs:
        for c in exact_grid(alpha, EPS, [b], [k], PAPER_METRICS):
            engine[(b, k, c.metric)] = c
    sims = stored_runs(name)
    if sims is None:
        warnings.warn(
            f"{name}: the stored simulation runs are absent or stale (the simulator, numpy or scipy changed): all "
            "drawn again now; write them again with tests/data/simulation_reference/make_runs.py",
            stacklevel=1,
        )
        sims = simulation_runs(name)
    rows = []
    disagree = []
    for key, c in engine.items():
        runs = sims[key]
        theory = _theory_se(c, ROUNDS)
        for (field, err_field), th in zip(
            (("p", "p_error"), ("delta", "delta_error"), ("ci_width", "ci_width_error")), theory, strict=True
        ):
            v = np.array([getattr(r, field) for r in runs])
            se = max(float(v.std(ddof=1)), th) / np.sqrt(len(v))
            err = float(getattr(c, err_field))
            value = float(getattr(c, field))
            if field == "ci_width":  # what a 1000-round sample's quantiles give on average, and their spread
                xs, cdf = alt_law(alpha, c)
                (m_hi, v_hi), (m_lo, v_lo) = (sample_quantile_moments(xs, cdf, u, ROUNDS) for u in (0.975, 0.025))
                value = m_hi - m_lo
                se = max(float(v.std(ddof=1)), float(np.sqrt(v_hi + v_lo))) / np.sqrt(len(v))
            z = (value - float(v.mean())) / max(np.hypot(se, err), 1e-12)
            rows.append((abs(z), key, field, value, err, float(v.mean()), se, c.method))
        p_sim = float(np.mean([r.p for r in runs]))
        se_p = max(float(np.std([r.p for r in runs], ddof=1)), theory[0]) / np.sqrt(len(runs))
        if abs(p_sim - 0.05) > Z_MAX * np.hypot(se_p, c.p_error) and (p_sim < 0.05) != (c.p < 0.05):
            disagree.append((key, c.p, p_sim, se_p))
    rows.sort(key=lambda r: -r[0])
    print(f"\n{name}: worst cells of {len(rows)} (|z|, (budget, K, metric), number, engine +- error, sim +- se)")
    for r in rows[:8]:
        print(f"  |z|={r[0]:.2f} {r[1]} {r[2]} engine={r[3]:.5g}+-{r[4]:.2g} sim={r[5]:.5g}+-{r[6]:.2g} {r[7]}")
    assert not disagree, f"significance differs: {disagree}"
    assert rows[0][0] < Z_MAX, f"worst cell |z| = {rows[0][0]:.2f}: {rows[0][1:]}"
