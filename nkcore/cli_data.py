"""``python -m nkcore data FILE``: read a data file, detect its kind and columns, validate it, print its summary."""

from __future__ import annotations

import argparse
from pathlib import Path

from nkcore.cli_util import print_json
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import KINDS, ROLE_WORDS, KindGuess, apply_mapping, detect_kind
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
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _mapping_text(mapping: dict[str, str]) -> str:
    parts = [f"{role} <- {col}" for role, col in mapping.items() if not role.startswith("p_")]
    probs = [col for role, col in mapping.items() if role.startswith("p_")]
    if probs:
        parts.append(f"probabilities <- {', '.join(probs)}")
    return ", ".join(parts)


def _usable(guess: KindGuess, columns: list[str]) -> KindGuess:
    if guess.missing:
        words = "; ".join(ROLE_WORDS.get(m, m) for m in guess.missing)
        raise DataError(
            f"cannot use this file as {guess.kind} data: no column found for {words}. Columns: "
            f"{', '.join(columns[:20])}. Rename the column or pass --kind"
        )
    return guess


def inspect_file(path: Path, kind: str | None = None, ratings: Path | None = None) -> dict:
    """Read, detect, map, validate and summarise one file; the dictionary the CLI prints with ``--json``."""
    frame = read_table(path)
    guess = _usable(detect_kind(frame, kind), [str(c) for c in frame.columns])
    table = apply_mapping(frame, guess.kind, guess.mapping)
    ratings_table = None
    if guess.kind == "predictions" and ratings is not None:
        r_frame = read_table(ratings)
        r_guess = _usable(detect_kind(r_frame, "ratings"), [str(c) for c in r_frame.columns])
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
    result = inspect_file(args.file, args.kind, args.ratings)
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
