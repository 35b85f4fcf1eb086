"""``python -m nkcore data FILE``: read a data file, detect its kind and columns, validate it, print its summary.

``python -m nkcore data derive paired|samples --predictions P ...``: a derived dataset (:mod:`nkcore.derive`):
several models' predictions + gold -> paired results, or several runs of one model -> raw samples. A file named
``derive`` is still read as a file when no ``paired``/``samples`` follows it.

A label-count file (an item column plus ``count_<label>`` columns, e.g. ChaosNLI, CIFAR-10H) is read as ratings
kept as counts (:func:`nkcore.ratings.ratings_from_counts`); ratings nested per item (LeWiDi's JSON, ChaosNLI's
JSON Lines) are made flat first (:func:`nkcore.kinds.flatten_nested`). ``--subset COLUMN=VALUE`` (or ``VALUE``)
keeps one dataset or split of a file that holds several, ``--item-key COL1,COL2`` names each item by several
columns, ``--keep first|last`` keeps one of repeated (item, rater) / (item, model) rows.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nkcore.cli.common import print_json
from nkcore.common.formatting import plural
from nkcore.datafiles import derive_files, inspect_file
from nkcore.derive import TIES
from nkcore.errors import DataError
from nkcore.kinds import KEEP_CHOICES, KINDS, ROLE_WORDS

DERIVED = ("paired", "samples")

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``data`` subcommand."""
    p = subparsers.add_parser(
        "data",
        help="read a data file (CSV/TSV/Parquet/JSONL, optionally gzipped), detect its kind, validate, summarise",
        description="Read a ratings / predictions / paired / samples file, guess which column is which, validate "
        "it and print the summary the Data page shows. Exit 2 with one line on bad input.",
    )
    p.add_argument("file", type=Path, help="the data file, or the word derive (then paired or samples)")
    p.add_argument(
        "derived",
        nargs="?",
        choices=DERIVED,
        metavar="{paired,samples}",
        help="after derive: paired (models' predictions + gold -> paired results) or samples (runs of one model -> "
        "raw samples)",
    )
    p.add_argument("--kind", choices=KINDS, help="the data kind (default: detected from the columns)")
    p.add_argument("--ratings", type=Path, help="for predictions: a ratings file to check the predictions against")
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="ROLE=COLUMN",
        help="use COLUMN of the file for ROLE (e.g. --map item=thing --map rater=person); overrides the detected "
        "column, repeatable. Roles: " + ", ".join(ROLE_WORDS) + ", p_<label>",
    )
    p.add_argument(
        "--subset",
        metavar="COLUMN=VALUE",
        help="use only the rows whose COLUMN is VALUE (a dataset/split/task column, e.g. --subset dataset=ArMIS); "
        "VALUE alone picks it from the file's one subset column (e.g. ChaosNLI's snli)",
    )
    p.add_argument(
        "--item-key",
        metavar="COL1,COL2",
        help="name each item by several columns joined (e.g. dataset,item_id) when item ids repeat across datasets",
    )
    p.add_argument(
        "--keep",
        choices=KEEP_CHOICES,
        help="repeated (item, rater) or (item, model) rows: keep the first or the last of each (default: refuse)",
    )
    p.add_argument("--predictions", type=Path, help="derive: the predictions file")
    p.add_argument("--gold-column", help="derive: the predictions file's column of gold labels (instead of --ratings)")
    p.add_argument("--model", help="derive samples: the model whose runs (seeds) are the samples")
    p.add_argument(
        "--ties", choices=TIES, default="drop", help="derive paired: items with a tied plurality (default drop)"
    )
    p.add_argument("--out", type=Path, help="derive: write the derived table to this CSV file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _mapping_text(mapping: dict[str, str]) -> str:
    parts = [f"{role} <- {col}" for role, col in mapping.items() if not role.startswith("p_")]
    probs = [col for role, col in mapping.items() if role.startswith("p_")]
    if probs:
        parts.append(f"probabilities <- {', '.join(probs)}")
    return ", ".join(parts)


def _overrides(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        role, sep, column = item.partition("=")
        if not sep or not role.strip() or not column.strip():
            raise DataError(f"--map takes ROLE=COLUMN (e.g. --map item=thing), not {item!r}")
        out[role.strip()] = column.strip()
    return out


def _run_derive(args: argparse.Namespace) -> int:
    if args.predictions is None:
        raise DataError(f"data derive {args.derived} needs --predictions FILE")
    if args.kind is not None or args.map:
        raise DataError("--kind and --map are for data FILE, not for data derive")
    if args.keep is not None:
        raise DataError("--keep is for data FILE; derive keeps one prediction per (item, model run) as the file has it")
    d = derive_files(
        args.derived,
        args.predictions,
        args.ratings,
        args.gold_column,
        args.model,
        args.subset,
        args.ties,
        args.item_key,
    )
    if args.out is not None:
        try:
            d.frame.to_csv(args.out, index=False)
        except OSError as exc:
            raise DataError(f"cannot write {args.out}: {exc.strerror or exc}") from exc
    summary = d.summary()
    if args.json:
        print_json({**summary, "out": str(args.out) if args.out is not None else None})
        return 0
    print(
        f"derived {d.kind} data: {summary['n_rows']:,} rows, {d.items_kept:,} cases, "
        f"{len(d.configs)} {'configs' if d.kind == 'paired' else 'samples per case'} ({', '.join(d.configs[:8])})"
    )
    for note in d.notes:
        print(f"  {note}")
    if args.out is not None:
        print(f"written to {args.out}")
    return 0


def _harness_summary(path: Path, as_json: bool) -> bool:
    """When ``path`` is an evaluation tool's output (lm-evaluation-harness samples, an inspect_ai log, promptfoo
    results), print what it holds, as ``compare`` and ``vote`` read it, and return True; else False (a table).

    JSON: ``file``, ``kind`` "harness", ``tool``, ``configs``, ``paired_cases`` (cases every config has, or None
    with one config), ``sample_cases`` (cases with several samples, or None), ``per_config`` (each config's
    ``cases``, ``repeats`` min / max, ``scores``, ``mean_score``, ``errors``), ``fields`` (how each field of the
    tool's file was read), ``notes``."""
    from nkcore.harness import TOOL_NAMES, config_rows, read_harness
    from nkcore.harness.files import path_tool, read_paths
    from nkcore.harness.result import FIELDS

    tool = path_tool(path)
    if tool is None:
        return False
    res = read_harness(read_paths([path]))
    paired = None if res.paired is None else int(res.paired["case"].nunique())
    sampled = None if res.samples is None else int(res.samples["case"].nunique())
    doc: dict[str, Any] = {
        "file": str(path),
        "kind": "harness",
        "tool": res.tool,
        "configs": list(res.configs),
        "paired_cases": paired,
        "sample_cases": sampled,
        "per_config": config_rows(res),
        "fields": FIELDS.get(res.tool, {}),
        "notes": list(res.notes),
    }
    if as_json:
        print_json(doc)
        return True
    print(f"{path.name}: {TOOL_NAMES.get(res.tool, res.tool)} output, {plural(len(res.configs), 'config')}: "
          f"{', '.join(res.configs)}")  # fmt: skip
    for row in doc["per_config"]:
        reps = row["repeats"]
        shown = f"{reps['min']}" if reps["min"] == reps["max"] else f"{reps['min']} to {reps['max']}"
        print(
            f"  {row['config']}: {plural(row['cases'], 'case')} x {shown} repeat{'s' if reps['max'] > 1 else ''}, "
            f"{row['scores']:,} scores, mean score {row['mean_score']:.1%} (cases weighted equally)"
            + (f", {plural(row['errors'], 'error')}" if row["errors"] else "")
        )
    if paired is not None:
        print(f"  paired results: {paired:,} cases every config has (python -m nkcore compare reads them)")
    if sampled is not None:
        print(f"  raw samples: {sampled:,} cases with several samples each (python -m nkcore vote reads them)")
    for field, how in doc["fields"].items():
        print(f"  {field}: {how}")
    for note in res.notes:
        print(f"  note: {note}")
    return True


def run(args: argparse.Namespace) -> int:
    """Run ``data``; plain output is a few lines with the glossary words."""
    if str(args.file) == "derive" and args.derived is not None:
        return _run_derive(args)
    if str(args.file) == "derive" and not args.file.exists():
        raise DataError("data derive needs what to derive: data derive paired ... or data derive samples ...")
    if args.derived is not None:
        raise DataError(f"{args.derived} only follows derive: python -m nkcore data derive {args.derived} ...")
    derive_only = [
        f
        for f, v in (
            ("--predictions", args.predictions),
            ("--gold-column", args.gold_column),
            ("--model", args.model),
            ("--out", args.out),
        )
        if v is not None
    ]
    if derive_only:
        raise DataError(f"{', '.join(derive_only)} only work with data derive paired|samples")
    if args.kind is None and args.file.is_file() and _harness_summary(args.file, args.json):
        return 0
    result = inspect_file(
        args.file, args.kind, args.ratings, _overrides(args.map), args.subset, args.item_key, args.keep
    )
    if args.json:
        print_json(result)
        return 0
    layout = f" ({result['layout']} layout)" if result["layout"] else ""
    print(f"{Path(result['file']).name}: {result['kind']} data{layout}, {result['n_rows']:,} rows")
    print(f"columns: {_mapping_text(result['mapping'])}")
    for number in result["summary"].numbers:
        print(f"  {number.label}: {number.display}. {number.sentence}")
    labels = getattr(result["summary"], "labels", ())
    if labels:
        print("  label distribution: " + ", ".join(f"{s.label} {100 * s.share:.1f}%" for s in labels[:12]))
    return 0
