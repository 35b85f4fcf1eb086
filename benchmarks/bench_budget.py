"""Benchmark: how long the Budget page takes to redraw after each of its controls (issue 13: every control < 1 s).

Run: ``.venv/bin/python benchmarks/bench_budget.py`` (``--reps 5``; ``--scenarios preset,real``).

Each scenario opens the Budget page in Streamlit's AppTest (the script run, without a browser: what the server
spends, not the network or Vega's drawing) and changes one control at a time. Two numbers per control, medians of
``--reps`` changes:

- **cold**: a change to a value not seen before in this process (a new eps, a new largest budget, ...): what the
  first reader to ask pays (the computation itself). Controls whose values are few (a radio) have no cold number
  after their first change.
  "Verify this cell with simulation" (``bud_verify``) and "Resample raters as well as items" (``bud_raters``) run
  a simulation on purpose: their cold number is that simulation.
- **warm**: the control toggled between two values already computed: what every later change costs (the page's
  own work plus the cache's lookups).

Scenarios: the preset Toxicity (the exact engine on a prior), and the built-in sample ratings + predictions (the
exact engine on real data where the server has ``frames.exact_resample_frames``). **Reference**: a trivial page
(a slider and its value) run the same way in the same process; every time is also printed as a ratio to it, the
number to compare between runs on a busy machine (2 cores shared by several jobs). The last line is one JSON object.
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

from streamlit.testing.v1 import AppTest  # noqa: E402

TARGET_S = 1.0
TIMEOUT = 600
REFERENCE = """
import streamlit as st
st.title("Reference")
x = st.slider("x", 0, 100, 10, key="x")
st.write(x)
"""


def _open(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/2_Budget.py")
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    return at


def _timed(at: AppTest, change: Callable[[AppTest], Any]) -> float:
    change(at)
    t0 = time.perf_counter()
    at.run()
    dt = time.perf_counter() - t0
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    return dt


def _widget(at: AppTest, kind: str, key: str) -> Any:
    return getattr(at, kind)(key=key)


def _measure(at: AppTest, kind: str, key: str, cold: list[Any], warm: tuple[Any, Any], reps: int) -> dict[str, Any]:
    """Median cold (new values, as many as given up to reps) and warm (two known values in turn) redraw times."""
    row: dict[str, Any] = {"control": key}
    if cold:
        row["cold_s"] = statistics.median(
            _timed(at, lambda a, v=v: _widget(a, kind, key).set_value(v)) for v in cold[:reps]
        )
    for v in warm:  # both values computed before the warm changes
        _timed(at, lambda a, v=v: _widget(a, kind, key).set_value(v))
    times = [_timed(at, lambda a, i=i: _widget(a, kind, key).set_value(warm[i % 2])) for i in range(reps)]
    row["warm_s"] = statistics.median(times)
    if reps % 2:  # leave the view as it was found (the next control is measured on the default view)
        _timed(at, lambda a: _widget(a, kind, key).set_value(warm[1]))
    return row


def _reference(reps: int) -> float:
    at = AppTest.from_string(REFERENCE, default_timeout=60).run()
    return statistics.median(_timed(at, lambda a, i=i: a.slider(key="x").set_value(20 + i)) for i in range(reps))


def _controls(scenario: str) -> list[tuple[str, str, list[Any], tuple[Any, Any]]]:
    common: list[tuple[str, str, list[Any], tuple[Any, Any]]] = [
        ("selectbox", "bud_metric", ["tv", "wins", "kl", "js", "kl_smooth"], ("tv", "acc")),
        ("radio", "bud_color", [], ("Reproducibility", "p-value")),
        ("select_slider", "bud_budget", [], (500, 1000)),
        ("select_slider", "bud_maxb", [1000, 5000, 500, 10000, 2500], (1000, 2500)),
        ("text_input", "bud_ks", ["1-10", "1-5,20", "2-8", "1-10,20-100:20", "1,3,9"], ("1-10", "1-10,20-500:20")),
    ]
    if scenario == "preset":
        return [
            *common,
            ("slider", "bud_eps", [0.31, 0.32, 0.33, 0.34, 0.35], (0.2, 0.3)),
            ("selectbox", "bud_prior", ["DICES", "D3code", "JobsQ1", "JobsQ3", "balanced3"], ("DICES", "Toxicity")),
            ("number_input", "bud_any", [1800, 1900, 2100, 2300, 777], (1800, 1900)),
            ("toggle", "bud_verify", [True], (True, False)),
        ]
    return [
        *common,
        ("selectbox", "bud_mb", [], ("_other_", "_default_")),
        ("toggle", "bud_raters", [True], (True, False)),
        ("toggle", "bud_verify", [True], (True, False)),
    ]


SCENARIOS = {
    "preset": {"bud_src": "Preset prior", "bud_prior": "Toxicity"},
    "real": {"bud_src": "Resample ratings + predictions"},
}


def main() -> None:
    """Measure every scenario's controls and print one line per control, then the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scenarios", default="preset,real")
    args = ap.parse_args()
    ref = _reference(args.reps)
    print(f"reference (trivial page, slider change): {ref * 1000:.0f} ms (median of {args.reps})")
    out: dict[str, Any] = {"reference_s": ref, "reps": args.reps, "target_s": TARGET_S, "scenarios": {}}
    for name in args.scenarios.split(","):
        t0 = time.perf_counter()
        at = _open(SCENARIOS[name])
        first = time.perf_counter() - t0
        print(f"\n{name}: first load {first:.2f} s (computes the default grid)")
        rows = []
        for kind, key, cold, warm in _controls(name):
            try:
                _widget(at, kind, key)
            except Exception:  # not on this view
                continue
            if key == "bud_mb":  # the sample's own model names: the others are new (cold), then two in turn
                w = _widget(at, kind, key)
                others = [o for o in w.options if o not in (w.value, at.selectbox(key="bud_ma").value)]
                cold, warm = others[1:], (others[0], w.value)
            row = _measure(at, kind, key, cold, warm, args.reps)
            rows.append(row)
            parts = [f"{key:<12}"]
            for col in ("cold_s", "warm_s"):
                if col in row:
                    v = row[col]
                    mark = "ok" if v < TARGET_S else "SLOW"
                    parts.append(f"{col[:-2]} {v * 1000:7.0f} ms ({v / ref:5.1f}x ref, {mark})")
            print("  " + "  ".join(parts), flush=True)
        out["scenarios"][name] = {"first_load_s": first, "controls": rows}
    print("\n" + json.dumps(out))


if __name__ == "__main__":
    main()
