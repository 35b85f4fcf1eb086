"""``python -m nkcore data FILE``: read a data file, detect its kind and columns, validate it, print its summary."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from nkcore.cli_util import print_json
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import KINDS, ROLE_WORDS, KindGuess, apply_mapping, detect_kind, kind_columns
from nkcore.summary import validate_and_summarize

__all__ = ["inspect_file", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``data`` subcommand."""
    p = subparsers.add_parser(
        "data",
        help="read a data file (CSV/TSV/Parquet/JSONL, optionally gzipped), detect its kind, validate, summarise",
        description="Read a ratings / predictions / paired / samples file, guess which column is which, validate "
        "it and print the summary the Data page shows. Exit 2 with one line on bad input.",
    )
    p.add_argument("file", type=Path, help="the data file")
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


def _guess(frame: pd.DataFrame, kind: str | None, forced: dict[str, str]) -> KindGuess:
    """The detected (or given) kind; with roles forced by --map and no --kind, the best kind that has those roles."""
    guess = detect_kind(frame, kind)
    if kind is None and forced:
        fits = [
            k
            for k in KINDS
            if all(r in sum(kind_columns(k), ()) or (k == "predictions" and r.startswith("p_")) for r in forced)
        ]
        if fits and guess.kind not in fits:
            guess = max((detect_kind(frame, k) for k in fits), key=lambda g: g.confidence)
    return guess


def _usable(guess: KindGuess, columns: list[str], forced: dict[str, str], kind_given: bool) -> KindGuess:
    for role, column in forced.items():
        if column not in columns:
            raise DataError(
                f"--map {role}={column}: the file has no column {column!r}; its columns are "
                f"{', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}"
            )
    mapping = {**guess.mapping, **forced}
    missing = [m for m in guess.missing if not set(m.replace("p_<label> columns", "p_").split(" or ")) & set(mapping)]
    if missing and not forced and not kind_given and guess.confidence == 0:
        raise DataError(f"cannot tell what this file holds: {guess.reason}. Pass --kind and --map ROLE=COLUMN")
    if missing:
        words = "; ".join(ROLE_WORDS.get(m, m) for m in missing)
        raise DataError(
            f"cannot use this file as {guess.kind} data: no column found for {words}. Columns: "
            f"{', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}. Pass --map ROLE=COLUMN, or --kind"
        )
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, (), guess.layout)


def inspect_file(
    path: Path, kind: str | None = None, ratings: Path | None = None, mapping: dict[str, str] | None = None
) -> dict:
    """Read, detect, map, validate and summarise one file; the dictionary the CLI prints with ``--json``.

    ``mapping`` (role -> column) overrides the detected columns, as the Data page's mapping editor does.
    """
    frame = read_table(path)
    guess = _usable(
        _guess(frame, kind, mapping or {}), [str(c) for c in frame.columns], mapping or {}, kind is not None
    )
    table = apply_mapping(frame, guess.kind, guess.mapping)
    ratings_table = None
    if guess.kind == "predictions" and ratings is not None:
        r_frame = read_table(ratings)
        r_guess = _usable(detect_kind(r_frame, "ratings"), [str(c) for c in r_frame.columns], {}, True)
        ratings_table = apply_mapping(r_frame, "ratings", r_guess.mapping)
    summary = validate_and_summarize(table, guess.kind, ratings_table)
    return {
        "file": str(path),
        "kind": guess.kind,
        "layout": guess.layout if guess.kind == "paired" else None,
        "mapping": dict(guess.mapping),
        "confidence": guess.confidence,
        "reason": guess.reason,
        "n_rows": len(table),
        "fingerprint": fingerprint(table),
        "summary": summary,
    }


def run(args: argparse.Namespace) -> int:
    """Run ``data``; plain output is a few lines with the glossary words."""
    result = inspect_file(args.file, args.kind, args.ratings, _overrides(args.map))
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
