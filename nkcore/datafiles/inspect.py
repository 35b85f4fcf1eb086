"""One data file read, detected, mapped, validated and summarised: the document ``data FILE --json`` prints (and the
Data page's mapping editor reads the same way).
"""

from __future__ import annotations

from pathlib import Path

from nkcore.datafiles.choose import detected_kind
from nkcore.datafiles.read import counts_ratings, read_file, unique_pairs, usable_guess
from nkcore.io import fingerprint, read_table
from nkcore.kinds import apply_mapping, detect_kind, flatten_nested
from nkcore.kinds.columns import COUNT_PREFIX
from nkcore.summary import validate_and_summarize
from nkcore.summary.ratings import summarize_ratings

__all__ = ["inspect_file"]


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
    got = read_file(path, subset, item_key, flatten=not mapping)
    forced = {**got.forced, **(mapping or {})}
    frame = got.frame
    guess = detected_kind(frame, kind, forced)
    lead = f"{got.note}; " if got.note else ""
    if guess.layout == "counts" and guess.kind == "ratings" and not mapping:
        counted = counts_ratings(frame, guess, got.forced)
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
    guess = usable_guess(frame, guess, forced, kind is not None)
    table = apply_mapping(frame, guess.kind, guess.mapping)
    table = unique_pairs(table, guess.kind, got, guess.mapping.get("item"), keep)
    ratings_table = None
    if guess.kind == "predictions" and ratings is not None:
        r_frame = read_table(ratings)
        r_flat = flatten_nested(r_frame, ratings.name)
        r_frame = r_flat.frame if r_flat is not None else r_frame
        r_guess = detect_kind(r_frame, "ratings")
        if r_guess.layout != "counts":
            r_guess = usable_guess(r_frame, r_guess, {}, True)
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
