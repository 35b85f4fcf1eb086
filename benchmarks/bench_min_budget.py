"""Benchmark: the Budget page's "Minimal budget for every metric" table (``bud_all``) on a prior (issue 51: 17 s to open
on the 2-core machine; target under 3 s).

Run: ``.venv/bin/python benchmarks/bench_min_budget.py`` (``--reps 5``; ``--chaosnli DIR``; ``--page`` also times the
page's click in AppTest, as it is and with the table computed as before).

Two ways to the same table, timed in the same process, each from a cold engine (``laws.clear_caches``) after the grid
of the metric on screen (Accuracy) is computed, as when the page has opened:

- **reference**: what the table did before: every engine metric's full exact grid, one call per metric (each K's
  items drawn again for each metric), then ``minimal_budgets`` of all the cells;
- **rows**: ``search.min_budgets_on_grid``: the grid's rows in ascending budget order, every metric not answered yet
  in one call (one draw of each K's items for all of them), stopping at each metric's answer.

Each is checked to give the same minimal budgets (metric, budget, K, p). Printed per prior: the medians of ``--reps``
runs (the two ways alternate, so a busy machine slows both alike) and their ratio rows / reference, the number to
compare between runs on a shared machine. Priors: the preset Toxicity, the prior fitted to the built-in sample
ratings, and the priors fitted to ChaosNLI's three subsets (label counts, ``--chaosnli``; left out when absent). The
last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from nkcore.nk import frames, grid, priors  # noqa: E402
from nkcore.nk.exact import exact_grid  # noqa: E402
from nkcore.nk.exact.laws import clear_caches  # noqa: E402
from nkcore.nk.exact.search import min_budgets_on_grid  # noqa: E402
from nkcore.nk.metrics import ALL_METRICS, ITEM_METRICS  # noqa: E402

CHAOSNLI = ROOT.parent / "shared" / "datasets" / "chaosnli"
EPS = 0.3
BUDGETS = tuple(b for b in grid.PAPER_BUDGETS if b <= 2500)  # the page's default largest budget
KS = tuple(grid.parse_int_list("1-10,20-500:20", "ratings per item (K)"))  # the page's default K


def _priors(chaos: Path) -> dict[str, tuple[float, ...]]:
    out = {"Toxicity (preset)": tuple(priors.get_prior("Toxicity").concentration)}
    sample = pd.read_csv(ROOT / "sample_data" / "ratings.csv")
    out["sample ratings (fitted)"] = tuple(frames.fit_prior_frame(sample).fit.concentration)
    counts = chaos / "label_counts.csv.gz"
    if counts.exists():
        raw = pd.read_csv(counts)
        for subset in ("snli", "mnli_m", "alphanli"):
            part = raw[raw.subset == subset].dropna(axis=1, how="all").rename(columns={"uid": "item"})
            part = part[["item", *[c for c in part.columns if c.startswith("count_")]]]
            out[f"ChaosNLI {subset} (fitted)"] = tuple(frames.fit_prior_frame(part).fit.concentration)
    return out


def reference(prior: tuple[float, ...]) -> list[Any]:
    """The table as it was computed before: one full grid per metric, then the minimal budgets of all the cells."""
    cells = [c for m in ITEM_METRICS for c in exact_grid(prior, EPS, BUDGETS, KS, (m,))]
    return grid.minimal_budgets(cells, list(ITEM_METRICS))


def rows(prior: tuple[float, ...]) -> list[Any]:
    return min_budgets_on_grid(prior, EPS, BUDGETS, KS, ITEM_METRICS)


def _cold(prior: tuple[float, ...], way: Callable[[tuple[float, ...]], list[Any]]) -> tuple[float, list[Any]]:
    clear_caches()
    exact_grid(prior, EPS, BUDGETS, KS, ("acc",))  # the page has opened on Accuracy
    t0 = time.perf_counter()
    found = way(prior)
    return time.perf_counter() - t0, found


def _old_every_minimal(ch: Any, g: Any) -> list[Any]:
    """The table's numbers as the page computed them before: every engine metric's full grid, one cached call each."""
    from ui.budget import compute

    cells = compute.all_cells(ch, g)
    return grid.minimal_budgets(cells, [m for m in ALL_METRICS if any(c.metric == m for c in cells)])


def _click(query: dict[str, str], read_first: bool) -> float:
    """One click on the table, right after the page opened on a cold server (no law or grid cached before), or, with
    ``read_first``, once the page's background prefetch has ended (a reader who reads the page before opening it)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui.common import work

    clear_caches()
    st.cache_data.clear()
    work.IDLE_S = 0.2 if read_first else 1e9  # right after opening: no prefetch before the click
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.switch_page("pages/2_Budget.py")
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    deadline = time.monotonic() + 300
    while read_first and (work._QUEUE or work.running() or work._RUNNER is not None) and time.monotonic() < deadline:
        time.sleep(0.05)
    at.session_state["bud_all"] = True
    t0 = time.perf_counter()
    at.run()
    dt = time.perf_counter() - t0
    work.stop_background()
    if at.exception or not any("minimal budget (N x K)" in d.value.columns for d in at.dataframe):
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    return dt


def _page(reps: int) -> dict[str, Any]:
    """The click on the table in AppTest (the page's script run, no browser) on the preset Toxicity and on the prior
    fitted to the built-in sample ratings: medians of ``reps`` clicks right after the page opened on a cold server,
    the page as it is and with the table computed as before (``_old_every_minimal``), alternating; the page as it is
    once its prefetch has ended; and a trivial page's rerun (bench_budget.py's reference)."""
    from streamlit.testing.v1 import AppTest

    from ui.budget import compute

    def trivial() -> float:
        at = AppTest.from_string("import streamlit as st\nx = st.slider('x', 0, 100, 10, key='x')\nst.write(x)\n")
        at.run()
        at.slider(key="x").set_value(20)
        t0 = time.perf_counter()
        at.run()
        return time.perf_counter() - t0

    out: dict[str, Any] = {"trivial_s": statistics.median(trivial() for _ in range(reps))}
    new_way = compute.every_minimal
    for name, query in (("Toxicity", {}), ("sample ratings (fitted)", {"bud_src": "Prior fitted to ratings"})):
        times: dict[str, list[float]] = {"before": [], "now": [], "now, page read first": []}
        for i in range(reps):
            for way in ("before", "now") if i % 2 == 0 else ("now", "before"):
                compute.every_minimal = _old_every_minimal if way == "before" else new_way
                times[way].append(_click(query, read_first=False))
            times["now, page read first"].append(_click(query, read_first=True))
        compute.every_minimal = new_way
        med = {k: statistics.median(v) for k, v in times.items()}
        out[name] = {**{f"{k}_s": v for k, v in med.items()}, "ratio": med["now"] / med["before"]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--chaosnli", type=Path, default=CHAOSNLI)
    ap.add_argument("--page", action="store_true", help="also time the click on the table in AppTest")
    args = ap.parse_args()
    out: dict[str, Any] = {"budgets": list(BUDGETS), "ks": len(KS), "metrics": list(ITEM_METRICS), "priors": {}}
    print(f"{'prior':28} {'reference s':>12} {'rows s':>8} {'rows/ref':>9}  answers")
    for name, prior in _priors(args.chaosnli).items():
        ref_t: list[float] = []
        new_t: list[float] = []
        for i in range(args.reps):
            for way in (reference, rows) if i % 2 == 0 else (rows, reference):
                dt, found = _cold(prior, way)
                (ref_t if way is reference else new_t).append(dt)
                if way is reference:
                    want = found
                else:
                    got = found
        if got != want:
            raise SystemExit(f"{name}: the answers differ\n{want}\n{got}")
        r, n = statistics.median(ref_t), statistics.median(new_t)
        answers = ", ".join(f"{mb.metric} {mb.budget or '-'}" for mb in got)
        print(f"{name:28} {r:12.2f} {n:8.2f} {n / r:9.2f}  {answers}", flush=True)
        out["priors"][name] = {"reference_s": r, "rows_s": n, "ratio": n / r, "same_answers": True}
    if args.page:
        out["page"] = page = _page(args.reps)
        print(f"\npage, cold click on the table (trivial page's rerun: {page['trivial_s'] * 1000:.0f} ms)")
        for name, p in page.items():
            if isinstance(p, dict):
                print(
                    f"{name:28} before {p['before_s']:6.2f} s  now {p['now_s']:6.2f} s  now/before {p['ratio']:.2f}"
                    f"  (now, after the page's prefetch: {p['now, page read first_s']:.2f} s)"
                )
    print("\n" + json.dumps(out))


if __name__ == "__main__":
    main()
