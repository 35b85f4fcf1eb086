"""``python -m nkcore fanout``: p50/p95/p99 latency (and cost) of fanning out n samples per request, and what to ship.

JSON keys are a contract: ``fanout`` prints ``rows`` with ``n``, ``p50``, ``p95``, ``p99`` and, with a price,
``cost_per_1k`` and ``monthly_cost``; and ``recommendation``: null, or with ``--latency-budget`` and a samples file
with answers, what to ship (:meth:`nkcore.advice.Advice.to_dict`: pay only for accuracy gains the paired test on the
same cases supports). Extra keys may be added, never renamed (an evaluation-harness file adds ``notes``: how it was
read; ``fanout`` adds ``config``, ``price_per_call`` and ``price_source``: where the price came from,
``--price-per-call`` or the file's cost per call).
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nkcore import advice, cost, latency, voting
from nkcore.cli.common import print_json
from nkcore.errors import DataError
from nkcore.evaluation import price_per_call
from nkcore.harness import TOOL_NAMES, Run, lm_eval, promptfoo, read_harness
from nkcore.harness import inspect as inspect_log
from nkcore.harness.files import path_tool, read_paths
from nkcore.harness.reading import load_json, notes_for, plain_bytes
from nkcore.io import read_table
from nkcore.voting.adaptive import adaptive_expected
from nkcore.voting.rules import as_trigger

__all__ = ["FanoutInput", "fanout_report", "read_fanout_input", "register", "run_fanout"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fanout`` subcommand."""
    f = subparsers.add_parser(
        "fanout",
        help="p50/p95/p99 latency (and cost) of fanning out n samples per request, flat or adaptive",
        description="Latency of waiting for the slowest of n calls (the q-quantile of the max of n is the "
        "single-call quantile at q^(1/n)), for flat n and an adaptive n0+m rule, with optional cost.",
    )
    src = f.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--latencies",
        type=Path,
        help="a samples file with latency_s, a one-column file of latencies, or an evaluation-harness output that "
        "records each call's latency (promptfoo results.json: latencyMs; inspect_ai log: total_time)",
    )
    src.add_argument("--p50", type=float, help="single-call median latency in seconds (with --p95: lognormal)")
    f.add_argument("--p95", type=float, help="single-call 95th percentile latency in seconds")
    f.add_argument("--n", type=int, nargs="+", default=[1, 3, 5, 7], help="samples per request n (default 1 3 5 7)")
    f.add_argument("--adaptive", help="adaptive rule n0+m, e.g. 3+2")
    f.add_argument("--topup-share", type=float, help="share of requests that top up (default: from the samples file)")
    f.add_argument(
        "--trigger", choices=voting.TRIGGERS, default=None, help="top-up trigger of --adaptive (default no_plurality)"
    )
    f.add_argument(
        "--config", help="evaluation-harness files with several configs: the config (provider, model) to read"
    )
    f.add_argument(
        "--price-per-call",
        type=float,
        help="dollars per call (default: the mean cost per call an evaluation-harness file records, e.g. "
        "promptfoo's cost)",
    )
    f.add_argument("--requests-per-month", type=float, help="requests per month (for the monthly cost)")
    f.add_argument(
        "--latency-budget",
        type=float,
        help="p95 latency budget in seconds: recommend what to ship (needs a samples file with answers); a dearer "
        "setting is recommended only when the paired test on the same cases shows its gain (McNemar exact p < 0.05)",
    )
    f.add_argument("--json", action="store_true", help="machine-readable output")
    f.set_defaults(func=run_fanout)


@dataclass(frozen=True, slots=True)
class FanoutInput:
    """What ``fanout --latencies FILE`` read: ``frame`` (``latency_s`` in seconds, with the samples' ``case``,
    ``sample``, ``answer`` / ``correct`` when the file has several samples per case, so the adaptive rule's top-up
    share can be measured), ``config`` (the harness config read, None for a table), ``price_per_call`` (the mean
    of the file's cost per call, dollars; None when it records none), ``priced_calls`` (the calls with a cost) and
    ``notes`` (how the file was read)."""

    frame: pd.DataFrame
    config: str | None = None
    price_per_call: float | None = None
    priced_calls: int = 0
    notes: tuple[str, ...] = ()


def _file_runs(path: Path, tool: str) -> list[Run]:
    """The runs of one harness file, read by its tool's reader (the rows :func:`read_harness` joins)."""
    name, data = str(path), path.read_bytes()
    if tool == "promptfoo":
        plain = plain_bytes(name, data)
        return promptfoo.read_results(name, load_json(plain, name, max_bytes=len(plain)))
    if tool == "inspect":
        return [inspect_log.read_log(name, data)]
    return [lm_eval.read_samples(name, data)]


def _choose_config(path: Path, configs: tuple[str, ...], config: str | None) -> str:
    listed = ", ".join(repr(c) for c in configs)
    if config is None and len(configs) == 1:
        return configs[0]
    if config is None:
        raise DataError(f"{path} holds {len(configs)} configs: name the one to read with --config ({listed})")
    if config not in configs:
        raise DataError(f"{path} has no config {config!r}: the configs are {listed}")
    return config


def read_fanout_input(path: Path, config: str | None = None) -> FanoutInput:
    """The single-call latencies (and cost per call) of ``fanout --latencies FILE``.

    A table (samples with ``latency_s``, or one column of seconds) is read as it is. An evaluation-harness output
    (anything :func:`nkcore.harness.read_harness` reads) gives one config's calls (``config``, needed when the file
    holds several): latency_s = each call's latency in seconds (promptfoo ``latencyMs`` / 1000, inspect_ai
    ``total_time``), every repeat or epoch a call; price per call = mean(``cost``) over the calls that record one.

    >>> import json, tempfile
    >>> rows = [{"testIdx": i, "vars": {"q": i}, "provider": {"id": "m"}, "success": True, "latencyMs": 100 * (i + 1),
    ...          "cost": 0.002} for i in range(20)]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "results.json"
    ...     _ = path.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": rows}}))
    ...     got = read_fanout_input(path)
    >>> got.config, float(got.frame["latency_s"].median()), round(got.price_per_call, 6), got.priced_calls
    ('m', 1.05, 0.002, 20)
    """
    tool = path_tool(path)
    if tool is None:
        if config is not None:
            raise DataError("--config applies to evaluation-harness files; this is a latencies or samples table")
        return FanoutInput(read_table(path))
    res = read_harness(read_paths([path]))
    chosen = _choose_config(path, res.configs, config)
    runs = _file_runs(path, tool)
    if len(runs) != len(res.configs):
        raise DataError(f"{path}: the file's configs could not be told apart; give one config per file")
    rows = dict(zip(res.configs, runs, strict=True))[chosen].rows
    seconds = rows["latency_s"].to_numpy(dtype=float)
    has = ~np.isnan(seconds)
    what = f"config {chosen}" if len(res.configs) > 1 else "the file"
    if not has.any():
        raise DataError(
            f"{path}: {TOOL_NAMES[res.tool]} recorded no latency for {what} (promptfoo writes latencyMs, inspect_ai "
            "total_time): give a samples table with latency_s, or --p50 and --p95"
        )
    own = notes_for(res.notes, res.tool, res.configs, res.errors, {chosen})  # other configs' error notes left out
    notes = [n for n in own if not n.startswith(("one config (", "paired results"))]  # about compare
    if not has.all():
        notes.append(f"{int((~has).sum())} of {len(seconds)} calls record no latency and are left out")
    samples = res.samples_for(chosen) if res.samples is not None else None
    if samples is not None and has.all() and len(samples) == len(rows):
        frame = samples.drop(columns="latency_s", errors="ignore").merge(
            rows[["case", "sample", "latency_s"]], on=["case", "sample"], how="left", validate="one_to_one"
        )
        if frame["latency_s"].isna().any():  # the samples' cases are not the run's (renamed): latencies only
            frame = pd.DataFrame({"latency_s": seconds})
    else:
        frame = pd.DataFrame({"latency_s": seconds[has]})
    priced = None if res.evaluation is None else price_per_call(res.evaluation, chosen)  # the one price rule
    if priced is not None and priced.n_priced < priced.n_calls:
        notes.append(f"{priced.n_priced} of {priced.n_calls} calls record a cost; the price per call is their mean")
    price, n_priced = (priced.dollars, priced.n_priced) if priced is not None else (None, 0)
    return FanoutInput(frame, chosen, price, n_priced, tuple(notes))


def _parse_rule(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*\+\s*(\d+)\s*", text or "")
    if not m:
        raise DataError(f"--adaptive must look like 3+2 (n0 samples, then m more), got {text!r}")
    n0, k = int(m.group(1)), int(m.group(2))
    if n0 < 1 or k < 1:
        raise DataError(f"--adaptive needs n0 >= 1 and m >= 1, got {text!r}")
    return n0, k


def fanout_report(
    frame: pd.DataFrame | None,
    ns: list[int],
    p50: float | None = None,
    p95: float | None = None,
    adaptive: str | None = None,
    topup_share: float | None = None,
    trigger: str = "no_plurality",
    price_per_call: float | None = None,
    requests_per_month: float | None = None,
    latency_budget: float | None = None,
    price_source: str | None = None,
) -> dict[str, Any]:
    """The ``fanout`` JSON document: latency rows (and cost fields when a price is given), and ``recommendation``
    (None without ``latency_budget``): :func:`nkcore.advice.advise` on the samples' vote accuracy, the same flat
    n and adaptive rule, the file's latencies and the price (0 when none is given). ``price_source`` says where
    the price came from (default ``--price-per-call`` when one is given)."""
    if frame is not None:
        model = latency.latency_model_from_frame(frame)
    else:
        if p50 is None or p95 is None:
            raise DataError("give --latencies FILE, or both --p50 and --p95 (seconds)")
        model = latency.lognormal_from_p50_p95(p50, p95)
    if any(not 1 <= n <= latency.MAX_N for n in ns):
        raise DataError(f"--n values must be between 1 and {latency.MAX_N}, got {' '.join(map(str, ns))}")
    # a samples file (answers or correct) measures the top-up share and accuracy; a latencies-only file does not
    cols = {str(c).strip().lower() for c in frame.columns} if frame is not None else set()
    has_answers = bool({"answer", "correct"} & cols)
    rule = None
    if adaptive:
        n0, m = _parse_rule(adaptive)
        if topup_share is not None and has_answers:
            measured = adaptive_expected(voting.parse_samples(frame), n0, m, as_trigger(trigger))
            raise DataError(
                f"--topup-share is measured from the samples file ({measured.share_topped_up:.0%} of requests top up "
                f"under {adaptive}): leave it out, or give latencies without answers (or --p50 and --p95)"
            )
        if topup_share is None:
            if not has_answers:
                raise DataError(
                    "--adaptive needs --topup-share F (the share of requests that top up), or a samples file with "
                    "answers to measure it from"
                )
            # the expected share over random orders of each case's samples: the cost table's reading (nkcore.cost)
            topup_share = adaptive_expected(voting.parse_samples(frame), n0, m, as_trigger(trigger)).share_topped_up
        if not 0.0 <= topup_share <= 1.0:
            raise DataError(f"--topup-share must be in [0, 1], got {topup_share}")
        rule = (n0, m, float(topup_share))
    if requests_per_month is not None:
        cost.check_volume(requests_per_month)
    if price_per_call is not None:
        cost.price_per_call(price_per_call)
    elif requests_per_month is not None:
        raise DataError("--requests-per-month needs --price-per-call (dollars per call) for the monthly cost")
    rows = []
    for r in latency.fanout_rows(model, tuple(ns), rule):
        row: dict[str, object] = {
            "n": r.n,
            "label": r.label,
            "adaptive": r.adaptive,
            "calls": r.calls,
            "p50": r.p50,
            "p95": r.p95,
            "p99": r.p99,
        }
        if price_per_call is not None:
            row["price_per_call"] = price_per_call
            row["cost_per_1k"] = cost.cost_per_1k(r.calls, price_per_call)
            row["monthly_cost"] = (
                cost.monthly_cost(r.calls, price_per_call, requests_per_month)
                if requests_per_month is not None
                else None
            )
        rows.append(row)
    recommendation = None
    if latency_budget is not None:
        if frame is None or not has_answers:
            raise DataError(
                "--latency-budget needs --latencies FILE with the samples' answers (or correct), so that accuracy "
                "can be compared on the same cases"
            )
        table = cost.build_table(
            voting.parse_samples(frame),
            model,
            tuple(ns),
            price_per_call if price_per_call is not None else 0.0,
            requests_per_month if requests_per_month is not None else 0.0,
            (rule[0], rule[1]) if rule else None,
            as_trigger(trigger),
        )
        recommendation = advice.advise(table, latency_budget).to_dict()
    return {
        "latency_source": "empirical" if model.kind == "empirical" else "lognormal",
        "price_per_call": price_per_call,
        "price_source": (price_source or "--price-per-call") if price_per_call is not None else None,
        "topup_share": rule[2] if rule else None,
        "requests_per_month": requests_per_month,
        "rows": rows,
        "recommendation": recommendation,
    }


def run_fanout(args: argparse.Namespace) -> int:
    """Run ``fanout``."""
    if args.p50 is not None and args.p95 is None:
        raise DataError("--p50 needs --p95 too (seconds)")
    if args.latencies is not None and args.p95 is not None:
        raise DataError("give either --latencies FILE or --p50 and --p95, not both")
    if args.trigger is not None and not args.adaptive:
        raise DataError("--trigger sets when the adaptive rule tops up: give it with --adaptive N0+M")
    if args.topup_share is not None and not args.adaptive:
        raise DataError("--topup-share is the share of requests the adaptive rule tops up: give it with --adaptive")
    config = getattr(args, "config", None)
    if config is not None and args.latencies is None:
        raise DataError("--config picks a config of an evaluation-harness file: give it with --latencies FILE")
    got = read_fanout_input(args.latencies, config) if args.latencies is not None else None
    price, source = args.price_per_call, None
    if price is None and got is not None and got.price_per_call is not None:
        price = got.price_per_call
        source = f"{args.latencies.name}: mean cost of {got.priced_calls:,} calls" + (
            f" of config {got.config}" if got.config is not None else ""
        )
    doc = fanout_report(
        got.frame if got is not None else None,
        list(dict.fromkeys(args.n)),  # a repeated n is one row
        args.p50,
        args.p95,
        args.adaptive,
        args.topup_share,
        args.trigger or "no_plurality",
        price,
        args.requests_per_month,
        args.latency_budget,
        source,
    )
    if got is not None:
        doc["config"] = got.config
        if got.notes:
            doc["notes"] = list(got.notes)
    if args.json:
        print_json(doc)
        return 0
    print(
        f"single-call latency: {doc['latency_source']}"
        + (f"; top-up share {doc['topup_share']:.0%}" if doc["topup_share"] is not None else "")
        + (f"; config {doc['config']}" if doc.get("config") is not None else "")
    )
    if doc["price_per_call"] is not None:
        print(f"price per call: ${doc['price_per_call']:.6g} ({doc['price_source']})")
    for r in doc["rows"]:
        what = f"adaptive {r['label']}" if r["adaptive"] else f"samples per request n={r['n']}"
        line = f"  {what:<28} calls {r['calls']:.2f}  p50 {r['p50']:.2f} s  p95 {r['p95']:.2f} s  p99 {r['p99']:.2f} s"
        if "cost_per_1k" in r:
            line += f"  ${r['cost_per_1k']:,.2f} per 1k requests"
            if r["monthly_cost"] is not None and math.isfinite(r["monthly_cost"]):
                line += f"  ${r['monthly_cost']:,.0f} a month"
        print(line)
    if doc["recommendation"] is not None:
        print(doc["recommendation"]["sentence"])
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0
