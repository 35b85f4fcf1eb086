"""``data derive paired|samples`` from files: the predictions file, and the gold labels from a ratings file (their
plurality, read by :func:`nkcore.datafiles.read.read_ratings`) or a column; the derivation is :mod:`nkcore.derive`.
"""

from __future__ import annotations

from pathlib import Path

from nkcore.datafiles.read import read_ratings
from nkcore.derive import Derived, derive_paired, derive_samples
from nkcore.errors import DataError
from nkcore.io import fingerprint, read_table
from nkcore.kinds import KEY_COLUMN, detect_kind, parse_item_key, with_key

__all__ = ["derive_files"]


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
