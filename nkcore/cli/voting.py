"""``python -m nkcore vote``: the exact majority-vote curve, rho, N_eff, pass@k and the errors more samples cannot fix.

JSON keys are a contract: ``vote`` prints ``n_cases``, ``curve`` (``n``, ``accuracy``, ``ci_low``,
``ci_high``, ``first_n_accuracy``), ``rho``, ``rho_ci_low``, ``rho_ci_high``, ``p_single``, ``n_eff`` (``n``,
``n_eff``), ``unfixable``, ``unanimous_wrong``, ``pass_at_k`` and ``pass_hat_k`` (lists of ``k``, ``value``,
``ci_low``, ``ci_high``, ``n_cases``), ``flaky`` (count of cases whose samples disagree), ``flaky_share``. Extra
keys may be added, never renamed (an evaluation-harness file adds ``notes``: how it was read). The ``fanout``
subcommand (latency and cost of n samples per request) is :mod:`nkcore.cli.fanout`.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import pandas as pd

from nkcore import voting
from nkcore.cli.common import print_json
from nkcore.errors import DataError
from nkcore.harness import read_harness
from nkcore.harness.files import path_tool, read_paths
from nkcore.harness.reading import notes_for
from nkcore.io import read_table
from nkcore.voting.rules import as_tie_rule

__all__ = ["read_vote_input", "register", "run_vote", "vote_report"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``vote`` subcommand."""
    p = subparsers.add_parser(
        "vote",
        help="exact majority-vote accuracy at every samples per request (n), rho, N_eff, unfixable errors",
        description="Read raw samples (case, sample, answer, gold [, latency_s]; or a 0/1 correct column) and print "
        "the exact plurality-vote curve with 95% intervals (exact, over cases) and paired bootstrap steps, the first-n reading, rho, N_eff and the "
        "errors more samples cannot fix.",
    )
    p.add_argument(
        "file",
        type=Path,
        help="samples file (CSV/TSV/Parquet/JSONL); or an evaluation-harness output with several samples per case "
        "(inspect_ai .eval/.json log with epochs, promptfoo results.json with --repeat)",
    )
    p.add_argument("--tie", choices=voting.TIE_RULES, default="first", help="tie rule (default: first)")
    p.add_argument(
        "--from-n",
        type=int,
        default=None,
        help="count unfixable errors among cases wrong at this n (default 3, or the most samples per case if fewer)",
    )
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--config", help="evaluation-harness files with several configs: the config (model) to read")
    p.add_argument(
        "--scorer",
        help="inspect_ai logs with several scorers: the scorer whose values are read (a right / wrong one for the vote)",
    )
    p.add_argument(
        "--filter", help="lm-evaluation-harness files: the filter whose records are read (default: the file's first)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_vote)


def _k_values(values: tuple[voting.KValue, ...]) -> list[dict[str, Any]]:
    return [
        {"k": v.k, "value": v.value, "ci_low": v.ci_low, "ci_high": v.ci_high, "n_cases": v.n_cases} for v in values
    ]


FLAKY_LISTED = 20  # flaky cases listed in the JSON document, most evenly split first


def vote_report(
    frame: pd.DataFrame, tie: str = "first", from_n: int | None = None, n_boot: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """The ``vote`` JSON document for a samples table.

    ``pass_at_k`` / ``pass_hat_k``: :func:`nkcore.voting.pass_k_curves` (per-case n: at k, the cases with at least
    k samples); ``flaky`` / ``flaky_share`` / ``flaky_cases`` (the 20 most evenly split): :func:`nkcore.voting.flaky_cases`.
    """
    a = voting.analyze_samples(frame, tie=as_tie_rule(tie), n_boot=n_boot, seed=seed, from_n=from_n)
    samples = voting.parse_samples(frame)
    pk = voting.pass_k_curves(samples, as_tie_rule(tie), n_boot=n_boot, seed=seed, majority=False)
    fl = voting.flaky_cases(samples)
    curve = [
        {
            "n": p.n,
            "accuracy": p.accuracy,
            "ci_low": p.ci_low,
            "ci_high": p.ci_high,
            "first_n_accuracy": p.first_n_accuracy,
            "n_cases": p.n_cases,
            "first_n_correct": p.first_n_correct,
            "diff_from_n": p.diff_from_n,
            "diff": p.diff,
            "diff_ci_low": p.diff_ci_low,
            "diff_ci_high": p.diff_ci_high,
            "diff_reliable": p.step_reliable,
            "diff_cases_changed": p.diff_cases_changed,
        }
        for p in a.curve.points
    ]
    return {
        "n_cases": a.n_cases,
        "tie": tie,
        "curve": curve,
        "rho": a.rho.rho,
        "rho_ci_low": a.rho.ci_low,
        "rho_ci_high": a.rho.ci_high,
        "rho_method": a.rho.method,
        "p_single": a.curve.point(1).accuracy,
        "n_eff": [{"n": r.n, "n_eff": r.n_eff} for r in a.n_eff],
        "unfixable": a.unfixable.still_wrong,
        "unanimous_wrong": a.unfixable.unanimous_wrong,
        "wrong_at_from_n": a.unfixable.wrong_at_from_n,
        "from_n": a.unfixable.from_n,
        "beta_binomial": {"alpha": a.beta_binomial.alpha, "beta": a.beta_binomial.beta, "rho": a.beta_binomial.rho},
        "unfixable_sentence": voting.unfixable_sentence(a.unfixable),
        "pass_at_k": _k_values(pk.pass_at_k),
        "pass_hat_k": _k_values(pk.pass_hat_k),
        "passk_sentence": voting.passk_sentence(pk, fl.flaky_share),
        "flaky": fl.flaky,
        "flaky_share": fl.flaky_share,
        "flaky_sentence": voting.flaky_sentence(fl),
        "flaky_cases": [
            {
                "case": c.case,
                "gold": c.gold,
                "n_samples": c.n_samples,
                "n_right": c.n_right,
                "answers": [{"answer": x.answer, "count": x.count, "right": x.right} for x in c.answers],
            }
            for c in fl.cases[:FLAKY_LISTED]
        ],
    }


def read_vote_input(
    path: Path, config: str | None = None, scorer: str | None = None, filter: str | None = None
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The samples table of ``vote``'s file, and the notes from reading it.

    A file that is not an evaluation-harness output is read as a samples table; a harness output is read with
    :func:`nkcore.harness.read_harness` and its raw samples (several epochs or repeats per case) are used, those of
    ``config`` when it holds several configs with samples, scored by inspect_ai's ``scorer`` (lm-eval's ``filter``)
    when given. A config that cannot be voted on is a DataError with the true reason (one sample per case, or
    partial credit). The notes are those about the config read (other configs' error notes are left out).
    """
    if path_tool(path) is None:
        for flag, value in (("--config", config), ("--scorer", scorer), ("--filter", filter)):
            if value is not None:
                raise DataError(f"{flag} applies to evaluation-harness files; this is a samples table")
        return read_table(path), ()
    res = read_harness(read_paths([path]), scorer=scorer, filter=filter)
    view = res.samples_view(config)
    samples = view.frame
    if samples is None:
        raise DataError(f"{path}: {view.reason}")
    notes = notes_for(res.notes, res.tool, res.configs, res.errors, {view.config})
    kept = dict.fromkeys((*notes, *view.notes))
    about_samples = tuple(n for n in kept if not n.startswith(("one config (", "paired results use")))
    return samples, about_samples


def run_vote(args: argparse.Namespace) -> int:
    """Run ``vote``."""
    frame, notes = read_vote_input(
        args.file, getattr(args, "config", None), getattr(args, "scorer", None), getattr(args, "filter", None)
    )
    doc = vote_report(frame, args.tie, args.from_n, args.n_boot, args.seed)
    if notes:
        doc["notes"] = list(notes)
    if args.json:
        print_json(doc)
        return 0
    print(f"{doc['n_cases']} cases; tie rule: {doc['tie']}")
    print("samples per request (n) | cases | exact accuracy (95% CI) | first n samples")
    for p in doc["curve"]:
        print(
            f"  n={p['n']:<3} {p['n_cases']:>6}  {p['accuracy']:.1%} ({p['ci_low']:.1%} to {p['ci_high']:.1%})"
            f"   {p['first_n_accuracy']:.1%}"
        )
    print(f"single-call accuracy p = {doc['p_single']:.1%}")
    if math.isfinite(doc["rho"]):
        print(
            f"rho (correlation of samples within a case) = {doc['rho']:.3f} "
            f"(95% CI {doc['rho_ci_low']:.3f} to {doc['rho_ci_high']:.3f})"
        )
        print("effective samples (N_eff): " + ", ".join(f"n={r['n']}: {r['n_eff']:.2f}" for r in doc["n_eff"]))
    else:
        print("rho cannot be estimated: every sample is correct, or every sample is wrong (N_eff taken as n)")
    print("errors more samples cannot fix: " + doc["unfixable_sentence"])
    print(
        "samples per case (k) | pass@k: at least one of k right | pass^k: all k right (95% score interval over cases)"
    )
    for a, h in zip(doc["pass_at_k"], doc["pass_hat_k"], strict=True):
        print(
            f"  k={a['k']:<3} {a['value']:.1%} ({a['ci_low']:.1%} to {a['ci_high']:.1%})"
            f"   {h['value']:.1%} ({h['ci_low']:.1%} to {h['ci_high']:.1%})"
        )
    print(doc["passk_sentence"])
    print("flaky cases: " + doc["flaky_sentence"])
    for note in doc.get("notes", []):
        print(f"note: {note}")
    return 0
