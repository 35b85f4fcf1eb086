"""``python -m nkcore plan``: what a paired evaluation can resolve (the Planner from the command line).

JSON keys are a contract (README.md): ``plan`` prints at least ``cases``, ``discordance``, ``min_resolvable_diff``,
``mde_at_power`` and, with ``--target-diff``, ``cases_for_target``. Extra keys may be added, never renamed.
Differences are fractions (0.04 = 4 points); infinities (nothing resolvable) are ``null``.

Repeats per case (``--repeats``, ``--calls``, ``--from``): the case-level plan of
:mod:`nkcore.resolution.repeats`. ``case_level`` holds one design's numbers (cases, repeats, calls, variances,
``min_resolvable_diff``, ``mde_at_power``); with ``--calls``, ``splits`` lists every split of the calls per config,
each with exactly ``cases``, ``repeats``, ``calls``, ``min_resolvable_diff``, ``mde_at_power``, and
``best_split`` is one of them. Without a discordance the top-level ``cases``, ``min_resolvable_diff`` and
``mde_at_power`` are the case-level design's and ``discordance`` is ``null``.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from nkcore import paired, resolution
from nkcore.cli.common import print_json
from nkcore.cli.paired_input import read_compare_input
from nkcore.errors import DataError
from nkcore.resolution import repeats as rp

__all__ = ["case_plan_report", "plan_report", "register", "run_plan"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``plan`` subcommand."""
    p = subparsers.add_parser(
        "plan",
        help="what an evaluation can resolve: smallest resolvable difference, MDE at power, cases for a target",
        description="From the number of cases and the discordance (share of cases two configs disagree on, a "
        "fraction), the smallest difference that can reach p < alpha at all (exact binomial critical count), the "
        "minimum detectable difference at a power (Connor 1987, with its exact power) and the cases needed for a "
        "target difference. With repeats per case: the case-level plan from the between- and within-case variances "
        "(typed, or read from a paired file with --from), and with --calls every split of a budget of calls per "
        "config into cases x repeats per case, and the best one.",
    )
    p.add_argument("--cases", type=int, help="number of evaluation cases (1 to 10,000,000)")
    p.add_argument("--discordance", type=float, help="share of discordant cases, e.g. 0.06")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--power", type=float, default=0.8, help="power for the minimum detectable difference (0.8)")
    p.add_argument("--target-diff", type=float, help="a difference to resolve, as a fraction (0.01 = 1 point)")
    p.add_argument("--label-error", type=float, help="gold-label error rate, e.g. 0.03: adds the label-error floor")
    p.add_argument("--repeats", type=int, help="repeats per case (per config), e.g. 5 epochs: the case-level plan")
    p.add_argument("--between-var", type=float, help="between-case variance of the true per-case difference, e.g. 0.06")
    p.add_argument("--within-var", type=float, help="within-case variance of one repeat's difference, e.g. 0.19")
    p.add_argument(
        "--from",
        dest="from_files",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="read variances, cases and repeats from a paired-results file (or evaluation-harness outputs)",
    )
    p.add_argument("--a", dest="config_a", help="with --from: config A (default: the first of two)")
    p.add_argument("--b", dest="config_b", help="with --from: config B (default: the other)")
    p.add_argument("--calls", type=int, help="calls per config to split into cases x repeats per case")
    p.add_argument("--cases-available", type=int, help="with --calls: cases there are (default: unlimited)")
    p.add_argument("--max-repeats", type=int, help="with --calls: most repeats per case to try")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_plan)


def plan_report(
    cases: int,
    discordance: float,
    significance: float = 0.05,
    power: float = 0.8,
    target_diff: float | None = None,
    label_error: float | None = None,
) -> dict[str, Any]:
    """The ``plan`` JSON document."""
    p = resolution.plan(cases, discordance, significance, power, target_diff)
    doc = dataclasses.asdict(p)
    if target_diff is None:
        for key in [k for k in doc if k == "target_diff" or k.startswith("cases_for_target")]:
            doc.pop(key)
    s = resolution.plan_sentences(p)
    doc["sentences"] = {k: v for k, v in dataclasses.asdict(s).items() if v is not None}
    if label_error is not None:
        floor = resolution.label_error_floor(label_error)
        doc["label_error"] = dataclasses.asdict(floor)
        doc["sentences"]["label_error"] = resolution.label_error_sentence(floor)
    return doc


def case_plan_report(
    between_var: float,
    within_var: float,
    cases: int | None = None,
    repeats: int = 1,
    calls: int | None = None,
    significance: float = 0.05,
    power: float = 0.8,
    cases_available: int | None = None,
    max_repeats: int | None = None,
) -> dict[str, Any]:
    """The case-level part of the ``plan`` document: ``case_level`` (one design, when ``cases`` is given) and,
    with ``calls``, ``splits``, ``best_split`` and ``budget``; their sentences under ``sentences``."""
    doc: dict[str, Any] = {"sentences": {}}
    if cases is not None:
        design = rp.repeat_design(cases, repeats, between_var, within_var, significance, power)
        doc["case_level"] = dataclasses.asdict(design)
        doc["sentences"]["case_level"] = rp.repeat_design_sentence(design)
    if calls is not None:
        plan = rp.repeat_plan(calls, between_var, within_var, significance, power, cases_available, max_repeats)
        doc["splits"] = [dataclasses.asdict(s) for s in plan.splits]
        doc["best_split"] = dataclasses.asdict(plan.best)
        doc["budget"] = {
            "calls": plan.calls,
            "cases_available": plan.cases_available,
            "max_repeats": plan.max_repeats,
            "unlimited_cases": dataclasses.asdict(plan.unlimited_cases),
        }
        s = rp.repeat_plan_sentences(plan)
        doc["sentences"].update(splits=s.headline, best_split=s.best, variance_law=s.law)
    return doc


def _source(args: argparse.Namespace) -> tuple[paired.MeasuredVariances, dict[str, Any], list[str]] | None:
    """The variances read with ``--from``: the measurement, its JSON and the notes (None without ``--from``)."""
    if args.from_files is None:
        if args.config_a is not None or args.config_b is not None:
            raise DataError("--a and --b name the configs of a --from file; give --from FILE too")
        return None
    if args.between_var is not None or args.within_var is not None or args.discordance is not None:
        raise DataError(
            "--from reads the variances (and the discordance) from the file: give --from or --between-var, "
            "--within-var and --discordance, not both"
        )
    frame, read_notes = read_compare_input(args.from_files)
    m = paired.measured_variances(frame, args.config_a, args.config_b)
    vc = m.components
    doc = {
        "files": [str(p) for p in args.from_files],
        "config_a": m.config_a,
        "config_b": m.config_b,
        **dataclasses.asdict(vc),
        "repeats": m.repeats,
        "discordance": m.discordance,
    }
    notes = list(read_notes)
    if not m.split_known:
        notes.append(
            f"every case has one result per config, so the variance of one case's difference "
            f"({vc.between_var:.4g}) cannot be split into its between-case and within-case parts; it is used whole, "
            "as between-case variance (exact for one repeat per case). Run some cases at least twice to plan repeats."
        )
    return m, doc, notes


def run_plan(args: argparse.Namespace) -> int:
    """Run ``plan``."""
    source = _source(args)
    typed = (args.between_var, args.within_var)
    if (typed[0] is None) != (typed[1] is None):
        raise DataError("give both --between-var and --within-var (or neither)")
    between: float | None = typed[0]
    within: float | None = typed[1]
    discordance: float | None = args.discordance
    cases: int | None = args.cases
    repeats: int | None = args.repeats
    available: int | None = args.cases_available
    notes: list[str] = []
    if source is not None:
        m, source_doc, notes = source
        if m.discordance == 0.0 or (m.components.between_var == 0.0 and not m.split_known):
            raise DataError(
                f"configs {m.config_a!r} and {m.config_b!r} score the same on every one of the "
                f"{m.components.n_cases:,} paired cases: there is no difference to plan from"
            )
        between, within = m.components.between_var, m.components.within_var if m.split_known else 0.0
        discordance = m.discordance
        cases = m.components.n_cases if cases is None else cases
        available = m.components.n_cases if available is None else available
        if repeats is None:
            repeats = m.repeats
        if not m.split_known and (repeats != 1 or args.calls is not None):
            raise DataError(
                "the file has one result per case and config, so it cannot tell how much repeats average away (the "
                "within-case variance): run some cases at least twice per config, or give --between-var and "
                "--within-var"
            )
    if repeats is not None and repeats != 1 and discordance is not None:
        raise DataError(
            "--discordance describes one repeat per case (McNemar's test); with --repeats above 1 give "
            "--between-var and --within-var instead"
        )
    if between is None and (args.calls is not None or (repeats is not None and (repeats != 1 or discordance is None))):
        raise DataError(
            "--repeats and --calls need --between-var and --within-var (the variance of the per-case difference "
            "between cases, and of one repeat's difference within a case), or --from FILE to read them"
        )
    if between is None and discordance is None:
        raise DataError(
            "give --cases and --discordance, or --between-var and --within-var with --cases or --calls, or --from FILE"
        )
    if cases is None and args.calls is None:
        raise DataError("give --cases (the number of evaluation cases), or --calls to split a budget of calls")
    if args.calls is None and (args.cases_available is not None or args.max_repeats is not None):
        raise DataError("--cases-available and --max-repeats shape the splits of --calls; give --calls too")

    doc: dict[str, Any] = {}
    if discordance is not None and cases is not None:
        doc = plan_report(cases, discordance, args.alpha, args.power, args.target_diff, args.label_error)
    elif args.target_diff is not None:
        raise DataError("--target-diff is planned with McNemar's test: give --discordance (or a file of 0/1 results)")
    if between is not None and within is not None:
        case_doc = case_plan_report(
            between,
            within,
            cases,
            1 if repeats is None else repeats,
            args.calls,
            args.alpha,
            args.power,
            available,
            args.max_repeats,
        )
        if not doc:  # no discordance: the case-level design is the plan (the best split's without --cases)
            k = case_doc["best_split"]["repeats"] if cases is None else 1 if repeats is None else repeats
            n = case_doc["best_split"]["cases"] if cases is None else cases
            design = rp.repeat_design(n, k, between, within, args.alpha, args.power)
            doc = {**dataclasses.asdict(design), "discordance": None, "sentences": {}}
            if args.label_error is not None:
                floor = resolution.label_error_floor(args.label_error)
                doc["label_error"] = dataclasses.asdict(floor)
                case_doc["sentences"]["label_error"] = resolution.label_error_sentence(floor)
            case_doc.setdefault("case_level", dataclasses.asdict(design))
            if "case_level" not in case_doc["sentences"]:
                case_doc["sentences"] = {"case_level": rp.repeat_design_sentence(design), **case_doc["sentences"]}
        sentences = {**doc["sentences"], **case_doc.pop("sentences")}
        doc.update(case_doc)
        doc["sentences"] = sentences
    if source is not None:
        doc["source"] = source_doc
    if notes:
        doc["notes"] = notes
    if args.json:
        print_json(doc)
        return 0
    for text in doc["sentences"].values():
        print(text)
    for note in notes:
        print(f"Note: {note}")
    return 0
