"""``python -m nkcore data FILE``: read a data file, detect its kind and columns, validate it, print its summary.

``python -m nkcore data derive paired|samples --predictions P ...``: a derived dataset (:mod:`nkcore.derive`):
several models' predictions + gold -> paired results, or several runs of one model -> raw samples. A file named
``derive`` is still read as a file when no ``paired``/``samples`` follows it.

A label-count file (an item column plus ``count_<label>`` columns, e.g. ChaosNLI, CIFAR-10H) is read as ratings
kept as counts (:func:`nkcore.ratings.ratings_from_counts`); ``--subset`` picks one subset of a mixed file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from nkcore.cli_util import print_json
from nkcore.derive import TIES, Derived, derive_paired, derive_samples
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import KINDS, ROLE_WORDS, KindGuess, apply_mapping, detect_kind, kind_columns, show_names
from nkcore.ratings import Ratings, count_columns, ratings_from_counts, ratings_from_frame
from nkcore.summary import validate_and_summarize
from nkcore.summary.ratings import summarize_ratings

DERIVED = ("paired", "samples")

__all__ = ["derive_files", "inspect_file", "read_ratings", "register", "run"]


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
    p.add_argument("--subset", help="use only this subset (a subset/split column, e.g. ChaosNLI's snli)")
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
                f"--map {role + '=' + column!r}: the file has no column {column!r}; its columns are "
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
            f"{show_names(columns)}. Pass --map ROLE=COLUMN, or --kind"
        )
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, (), guess.layout)


def _counts_result(path: Path, frame: pd.DataFrame, subset: str | None) -> dict | None:
    """The ``data`` result of a label-count file (ratings kept as counts), or None when it is not one."""
    found = count_columns(frame)
    if found is None or not any(c.lower().startswith("count_") for c in found.labels.values()):
        return None
    ratings = ratings_from_counts(frame, found.item, found.labels, subset=subset)
    mapping = {
        "item": found.item,
        **{f"count_{lab}": col for lab, col in found.labels.items() if lab in ratings.labels},
    }
    return {
        "file": str(path),
        "kind": "ratings",
        "layout": None,
        "mapping": mapping,
        "confidence": 1.0,
        "reason": f"ratings as label counts: item <- {found.item}, one count column per label "
        f"({', '.join(mapping[k] for k in list(mapping)[1:7])})",
        "n_rows": len(ratings.items),
        "fingerprint": fingerprint(frame),
        "summary": summarize_ratings(ratings),
    }


def read_ratings(path: Path, subset: str | None = None) -> tuple[Ratings, str]:
    """A ratings file (one row per rating, or label counts) as :class:`Ratings`, and the file's fingerprint."""
    frame = read_table(path)
    found = count_columns(frame)
    if found is not None and any(c.lower().startswith("count_") for c in found.labels.values()):
        return ratings_from_counts(frame, found.item, found.labels, subset=subset), fingerprint(frame)
    if subset is not None:
        col = next((str(c) for c in frame.columns if str(c).lower() in ("subset", "split")), None)
        if col is None:
            raise DataError(f"--subset {subset!r} given, but the ratings file has no subset column")
        frame = frame[frame[col].astype(str) == subset]
    guess = _usable(detect_kind(frame, "ratings"), [str(c) for c in frame.columns], {}, True)
    return ratings_from_frame(apply_mapping(frame, "ratings", guess.mapping)), fingerprint(frame)


def derive_files(
    what: str,
    predictions: Path,
    ratings: Path | None = None,
    gold_column: str | None = None,
    model: str | None = None,
    subset: str | None = None,
    ties: str = "drop",
) -> Derived:
    """``data derive paired|samples``: read the files and derive; ``source_ids`` are the files' fingerprints."""
    if ratings is None and gold_column is None:
        raise DataError("derive needs the gold labels: --ratings FILE (their plurality) or --gold-column COLUMN")
    if ratings is not None and gold_column is not None:
        raise DataError("give the gold labels one way: --ratings or --gold-column, not both")
    frame = read_table(predictions)
    ids = [fingerprint(frame)]
    gold = None
    if ratings is not None:
        gold, rid = read_ratings(ratings, subset)
        ids.append(rid)
    if what == "paired":
        if model is not None:
            raise DataError("--model is for derive samples; derive paired compares every model run")
        return derive_paired(frame, ratings=gold, gold_column=gold_column, subset=subset, ties=ties, source_ids=ids)
    if ties != "drop":
        raise DataError("derive samples drops items with a tied plurality (their gold is not one label); omit --ties")
    return derive_samples(frame, ratings=gold, gold_column=gold_column, model=model, subset=subset, source_ids=ids)


def _run_derive(args: argparse.Namespace) -> int:
    if args.predictions is None:
        raise DataError(f"data derive {args.derived} needs --predictions FILE")
    if args.kind is not None or args.map:
        raise DataError("--kind and --map are for data FILE, not for data derive")
    d = derive_files(args.derived, args.predictions, args.ratings, args.gold_column, args.model, args.subset, args.ties)
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


def inspect_file(
    path: Path,
    kind: str | None = None,
    ratings: Path | None = None,
    mapping: dict[str, str] | None = None,
    subset: str | None = None,
) -> dict:
    """Read, detect, map, validate and summarise one file; the dictionary the CLI prints with ``--json``.

    ``mapping`` (role -> column) overrides the detected columns, as the Data page's mapping editor does. A file of
    label counts (item + ``count_<label>`` columns) is summarised as ratings kept as counts; ``subset`` picks one
    subset of a file that mixes several.
    """
    frame = read_table(path)
    # label counts, unless a kind fits the file completely (a per-rating file, a samples file with a count_* column)
    if kind in (None, "ratings") and not mapping and detect_kind(frame, kind).missing:
        counted = _counts_result(path, frame, subset)
        if counted is not None:
            return counted
    if subset is not None:
        raise DataError("--subset is for label-count files and data derive")
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
    result = inspect_file(args.file, args.kind, args.ratings, _overrides(args.map), args.subset)
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
