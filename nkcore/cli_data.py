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
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from nkcore.cli_util import print_json
from nkcore.common.formatting import plural
from nkcore.derive import TIES, Derived, derive_paired, derive_samples
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import (
    KEEP_CHOICES,
    KEY_COLUMN,
    KINDS,
    ROLE_WORDS,
    KindGuess,
    apply_mapping,
    detect_kind,
    drop_duplicates,
    duplicates,
    duplicates_advice,
    flatten_nested,
    key_columns,
    kind_columns,
    parse_item_key,
    parse_subset,
    show_names,
    subset_rows,
    with_key,
)
from nkcore.kinds.columns import COUNT_PREFIX
from nkcore.kinds.mapping import no_rater_advice
from nkcore.ratings import Ratings, ratings_from_counts, ratings_from_frame
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


def _few_values(col: pd.Series) -> bool:
    """A column that could hold labels: 2 to 20 distinct values."""
    try:
        return 2 <= col.nunique() <= 20
    except TypeError:  # unhashable cells
        return False


def _usable(frame: pd.DataFrame, guess: KindGuess, forced: dict[str, str], kind_given: bool) -> KindGuess:
    """The guess with the roles forced by --map, or a refusal naming what is missing and what to pass."""
    columns = [str(c) for c in frame.columns]
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
    advice = no_rater_advice(frame, mapping) if guess.kind == "ratings" and missing == ["rater"] else None
    if advice is not None:
        raise DataError(advice)
    if missing:
        words = "; ".join(ROLE_WORDS.get(m, m) for m in missing)
        hint = ""
        if "label" in missing:
            few = [c for c in columns if c not in mapping.values() and _few_values(frame[c])]
            hint = (
                f" (e.g. --map label={few[0]}; columns with few distinct values: {show_names(few[:6])})" if few else ""
            )
        raise DataError(
            f"cannot use this file as {guess.kind} data: no column found for {words}. Columns: "
            f"{show_names(columns)}. Pass --map ROLE=COLUMN{hint}, or --kind"
        )
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, (), guess.layout)


@dataclass(frozen=True, slots=True)
class _Read:
    """A file read for ``data``: ``frame`` the table to detect (flattened, one subset, with the item key), ``whole``
    the table before the subset was cut (its subset columns name the likely cause of repeated rows), ``forced``
    roles the flags fix (the item key), ``note`` what was done to the file ("" when nothing)."""

    frame: pd.DataFrame
    whole: pd.DataFrame
    forced: dict[str, str]
    note: str


def _read(path: Path, subset: str | None, item_key: str | None, flatten: bool = True) -> _Read:
    """Read a file; ratings nested per item made flat (:func:`nkcore.kinds.flatten_nested`); ``--subset`` and
    ``--item-key`` applied (:mod:`nkcore.kinds.subsets`)."""
    frame = read_table(path)
    notes: list[str] = []
    flat = flatten_nested(frame, path.name) if flatten else None
    if flat is not None:
        frame = flat.frame
        notes.append(flat.reason)
    whole = frame
    if subset is not None:
        column, value = parse_subset(subset, frame)
        frame = subset_rows(frame, column, value)
        notes.append(f"subset {column} = {value} ({len(frame):,} of {len(whole):,} rows)")
    forced: dict[str, str] = {}
    if item_key is not None:
        columns = parse_item_key(item_key)
        frame = with_key(frame, columns)
        forced["item"] = KEY_COLUMN
        notes.append(f"item <- {KEY_COLUMN} ({' / '.join(columns)})")
    return _Read(frame, whole, forced, "; ".join(notes))


def _counts_ratings(frame: pd.DataFrame, guess: KindGuess, forced: dict[str, str]) -> Ratings:
    """The ratings of a label-count table detected as such (layout ``counts``)."""
    labels = {role[len(COUNT_PREFIX) :]: col for role, col in guess.mapping.items() if role.startswith(COUNT_PREFIX)}
    return ratings_from_counts(frame, forced.get("item", guess.mapping["item"]), labels)


def _unique_pairs(table: pd.DataFrame, kind: str, got: _Read, item: str | None, keep: str | None) -> pd.DataFrame:
    """The table with repeated (item, rater) / (item, model) rows kept once (``--keep``), or a refusal that says
    how many, the likely cause and the flag to pass."""
    columns = key_columns(kind)
    dup = duplicates(table, columns) if columns else None
    if dup is None or columns is None:
        return table
    if keep is None:
        keyed = item == KEY_COLUMN
        raise DataError(duplicates_advice(dup, got.whole, None if keyed else item, kind, keyed))
    return drop_duplicates(table, keep, columns)


def read_ratings(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> tuple[Ratings, str]:
    """A ratings file (one row per rating, label counts, or ratings nested per item) as :class:`Ratings`, and the
    file's fingerprint; ``subset`` (``COLUMN=VALUE`` or ``VALUE``), ``item_key`` (``COL1,COL2``) and ``keep``
    (``first`` / ``last`` of repeated (item, rater) rows) as in ``data FILE``."""
    got = _read(path, subset, item_key)
    guess = _guess(got.frame, "ratings", got.forced)
    if guess.layout == "counts":
        return _counts_ratings(got.frame, guess, got.forced), fingerprint(got.frame)
    guess = _usable(got.frame, guess, got.forced, True)
    table = apply_mapping(got.frame, "ratings", guess.mapping)
    table = _unique_pairs(table, "ratings", got, guess.mapping.get("item"), keep)
    return ratings_from_frame(table), fingerprint(got.frame)


def read_ratings_counts(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """:func:`read_ratings` as a label-count table: ``item`` + one ``count_<label>`` column per label."""
    return _counts_frame(read_ratings(path, subset, item_key, keep)[0])


def _counts_frame(r: Ratings) -> pd.DataFrame:
    """Ratings as a label-count table: ``item`` + one ``count_<label>`` column per label."""
    return pd.DataFrame(
        {"item": list(r.items), **{f"{COUNT_PREFIX}{lab}": r.counts[:, j] for j, lab in enumerate(r.labels)}}
    )


def read_ratings_table(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """A ratings file as ``data FILE`` reads it, kept one row per rating (``item``, ``rater`` when the file names
    raters, ``label``), so rater identity survives; a label-count file comes back as :func:`read_ratings_counts`."""
    got = _read(path, subset, item_key)
    guess = _guess(got.frame, "ratings", got.forced)
    if guess.layout == "counts":  # the file already read: not read again through read_ratings_counts
        return _counts_frame(_counts_ratings(got.frame, guess, got.forced))
    guess = _usable(got.frame, guess, got.forced, True)
    table = apply_mapping(got.frame, "ratings", guess.mapping)
    return _unique_pairs(table, "ratings", got, guess.mapping.get("item"), keep)


def read_predictions_table(
    path: Path, subset: str | None = None, item_key: str | None = None, keep: str | None = None
) -> pd.DataFrame:
    """A predictions file mapped to item, model, pred_label / p_<label>, as ``data FILE`` reads it, for use beside a
    ratings file: ``subset`` (``COLUMN=VALUE``) applies when the file has that column (else every row is kept and
    the predictions are matched to the rated items), ``item_key`` names items by several columns, ``keep`` keeps
    the first or last of repeated (item, model) rows (else they are refused with their count and cause)."""
    whole = frame = read_table(path)
    if subset is not None:
        chosen: tuple[str, str] | None
        try:
            chosen = parse_subset(subset, frame)
        except DataError:  # no such subset column in the predictions: they are matched to the ratings' items
            chosen = None
        if chosen is not None:
            frame = subset_rows(frame, *chosen)
    forced: dict[str, str] = {}
    if item_key is not None:
        frame = with_key(frame, parse_item_key(item_key))
        forced["item"] = KEY_COLUMN
    guess = detect_kind(frame, "predictions")
    mapping = {**guess.mapping, **forced}
    if guess.missing and not (set(guess.missing) <= set(forced)):
        raise DataError(f"{path.name}: not a predictions table ({guess.reason})")
    table = apply_mapping(frame, "predictions", mapping)
    columns = key_columns("predictions")
    dup = duplicates(table, columns) if columns else None
    if dup is not None and columns is not None:
        if keep is None:
            item = None if forced else guess.mapping.get("item")
            keyed = forced.get("item") == KEY_COLUMN
            raise DataError(f"{path.name}: " + duplicates_advice(dup, whole, item, "predictions", keyed))
        table = drop_duplicates(table, keep, columns)
    return table


def derive_files(
    what: str,
    predictions: Path,
    ratings: Path | None = None,
    gold_column: str | None = None,
    model: str | None = None,
    subset: str | None = None,
    ties: str = "drop",
    item_key: str | None = None,
) -> Derived:
    """``data derive paired|samples``: read the files and derive; ``source_ids`` are the files' fingerprints.

    ``subset`` keeps one dataset or split of both files (``COLUMN=VALUE`` or ``VALUE``); ``item_key`` names each
    item by several columns of both files (``COL1,COL2``).
    """
    if ratings is None and gold_column is None:
        raise DataError("derive needs the gold labels: --ratings FILE (their plurality) or --gold-column COLUMN")
    if ratings is not None and gold_column is not None:
        raise DataError("give the gold labels one way: --ratings or --gold-column, not both")
    frame = read_table(predictions)
    ids = [fingerprint(frame)]
    if item_key is not None:
        item = detect_kind(frame, "predictions").mapping.get("item")
        if item is None:
            raise DataError(f"--item-key: no item column found in {predictions.name} to replace by the key")
        frame = with_key(frame, parse_item_key(item_key))
        frame = frame.assign(**{item: frame[KEY_COLUMN]}).drop(columns=[KEY_COLUMN])
    gold = None
    if ratings is not None:
        gold, rid = read_ratings(ratings, subset, item_key)
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


def inspect_file(
    path: Path,
    kind: str | None = None,
    ratings: Path | None = None,
    mapping: dict[str, str] | None = None,
    subset: str | None = None,
    item_key: str | None = None,
    keep: str | None = None,
) -> dict:
    """Read, detect, map, validate and summarise one file; the dictionary the CLI prints with ``--json``.

    ``mapping`` (role -> column) overrides the detected columns, as the Data page's mapping editor does. Ratings
    nested per item (LeWiDi's rater lists, ChaosNLI's label counters) are made flat first
    (:func:`nkcore.kinds.flatten_nested`, when no ``mapping`` is given); a file of label counts (item +
    ``count_<label>`` columns, detected by :func:`nkcore.kinds.detect_kind` as layout ``counts``) is summarised as
    ratings kept as counts. ``subset`` keeps one dataset or split (``COLUMN=VALUE``, or ``VALUE`` of the file's one
    subset column), ``item_key`` builds the item from several columns (``COL1,COL2``), ``keep`` keeps the
    ``first`` or ``last`` of repeated (item, rater) / (item, model) rows; without it they are refused with the
    likely cause and the flag to pass.
    """
    got = _read(path, subset, item_key, flatten=not mapping)
    forced = {**got.forced, **(mapping or {})}
    frame = got.frame
    guess = _guess(frame, kind, forced)
    lead = f"{got.note}; " if got.note else ""
    if guess.layout == "counts" and guess.kind == "ratings" and not mapping:
        counted = _counts_ratings(frame, guess, got.forced)
        shown = {
            "item": forced.get("item", guess.mapping["item"]),
            **{f"{COUNT_PREFIX}{lab}": guess.mapping[f"{COUNT_PREFIX}{lab}"] for lab in counted.labels},
        }
        return {
            "file": str(path),
            "kind": "ratings",
            "layout": None,
            "mapping": shown,
            "confidence": guess.confidence,
            "reason": lead + guess.reason,
            "n_rows": len(counted.items),
            "fingerprint": fingerprint(frame),
            "summary": summarize_ratings(counted),
        }
    guess = _usable(frame, guess, forced, kind is not None)
    table = apply_mapping(frame, guess.kind, guess.mapping)
    table = _unique_pairs(table, guess.kind, got, guess.mapping.get("item"), keep)
    ratings_table = None
    if guess.kind == "predictions" and ratings is not None:
        r_frame = read_table(ratings)
        r_flat = flatten_nested(r_frame, ratings.name)
        r_frame = r_flat.frame if r_flat is not None else r_frame
        r_guess = detect_kind(r_frame, "ratings")
        if r_guess.layout != "counts":
            r_guess = _usable(r_frame, r_guess, {}, True)
        ratings_table = apply_mapping(r_frame, "ratings", r_guess.mapping)
    summary = validate_and_summarize(table, guess.kind, ratings_table)
    return {
        "file": str(path),
        "kind": guess.kind,
        "layout": guess.layout if guess.kind == "paired" else None,
        "mapping": dict(guess.mapping),
        "confidence": guess.confidence,
        "reason": lead + guess.reason,
        "n_rows": len(table),
        "fingerprint": fingerprint(table),
        "summary": summary,
    }


def _harness_summary(path: Path, as_json: bool) -> bool:
    """When ``path`` is an evaluation tool's output (lm-evaluation-harness samples, an inspect_ai log, promptfoo
    results), print what it holds, as ``compare`` and ``vote`` read it, and return True; else False (a table).

    JSON: ``file``, ``kind`` "harness", ``tool``, ``configs``, ``paired_cases`` (cases every config has, or None
    with one config), ``sample_cases`` (cases with several samples, or None), ``notes``."""
    from nkcore.harness import TOOL_NAMES, read_harness
    from nkcore.harness.files import path_tool, read_paths

    tool = path_tool(path)
    if tool is None:
        return False
    res = read_harness(read_paths([path]))
    paired = None if res.paired is None else int(res.paired["case"].nunique())
    sampled = None if res.samples is None else int(res.samples["case"].nunique())
    doc = {
        "file": str(path),
        "kind": "harness",
        "tool": res.tool,
        "configs": list(res.configs),
        "paired_cases": paired,
        "sample_cases": sampled,
        "notes": list(res.notes),
    }
    if as_json:
        print_json(doc)
        return True
    print(f"{path.name}: {TOOL_NAMES.get(res.tool, res.tool)} output, {plural(len(res.configs), 'config')}: "
          f"{', '.join(res.configs)}")  # fmt: skip
    if paired is not None:
        print(f"  paired results: {paired:,} cases every config has (python -m nkcore compare reads them)")
    if sampled is not None:
        print(f"  raw samples: {sampled:,} cases with several samples each (python -m nkcore vote reads them)")
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
