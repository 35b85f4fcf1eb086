"""Benchmark: load + validate + summarise 1,000,000 ratings (CSV and Parquet), and label counts (CIFAR-10H's
10,000 items x 10 labels; 1,000,000 ratings as counts), each against a plain pandas / numpy reference.

Run: ``.venv/bin/python benchmarks/bench_data.py`` (``--quick`` for 100,000 ratings, ``--repeats R``; the label-count
parts alone: ``--counts-only``).

Data: 50,000 items x 20 ratings per item (K), raters from a pool of 2,000, 3 labels; written once to a temporary
CSV (about 14 MB) and Parquet file. Fast path (what the Data page and ``python -m nkcore data`` do):
``read_table`` -> ``detect_kind`` -> ``apply_mapping`` -> ``ratings_from_frame`` -> ``summarize_ratings``
(items, ratings per item, raters, labels, Krippendorff's alpha, tied pluralities), plus, timed separately,
``fingerprint`` (the store id). Reference, in the same process: ``pd.read_csv`` / ``pd.read_parquet``, a
duplicate check with ``DataFrame.duplicated``, ``groupby([item, label]).size().unstack()`` for the counts, the
same package call for alpha and the same tie rule. Both must give the same numbers (checked). Target: fast path
under 5 s for 1,000,000 ratings. Prints medians over the repeats and the ratio.

Label counts (what the Data page does with a label-count upload): CIFAR-10H-shaped counts, 10,000 items x 10 labels
(``image_id`` + ``count_<class>``, about 51 ratings per item), generated with numpy, and the real
``../shared/datasets/cifar10h/label_counts.csv.gz`` when present: upload (``read_table`` of the file's bytes) +
``detect_kind`` (layout ``counts``) + ``apply_mapping`` + ``ratings_from_counts`` + ``summarize_ratings``; and
1,000,000 ratings as counts (50,000 items x 20 ratings per item, 3 labels, a table in memory): ``detect_kind`` +
summarise. Reference, same process: ``pd.read_csv`` + the count matrix by numpy + the same alpha call and tie rule.
Target: each under 1 s. Medians of at least 5 repeats.
"""

from __future__ import annotations

import argparse
import functools
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nkcore.io import fingerprint, read_table
from nkcore.kinds import apply_mapping, detect_kind
from nkcore.ratings import ratings_from_counts, ratings_from_frame
from nkcore.summary import summarize_ratings


def make_ratings(n_items: int, k: int, seed: int = 0) -> pd.DataFrame:
    """Synthetic long ratings: each item gets ``k`` distinct raters and labels from an item-specific mix."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), k)
    raters = (np.tile(np.arange(k), n_items) + (items * 7) % 2000) % 2000
    mix = rng.dirichlet([2.0, 1.0, 0.7], size=n_items)
    u = rng.random(n_items * k)
    cum = np.cumsum(mix, axis=1)[items]
    codes = (u[:, None] > cum[:, :-1]).sum(axis=1)
    labels = np.array(["neg", "neu", "pos"])[codes]
    return pd.DataFrame({"item_id": "t" + items.astype(str), "annotator_id": "w" + raters.astype(str), "label": labels})


def fast_path(path: Path) -> tuple[int, float, float, np.ndarray]:
    frame = read_table(path)
    guess = detect_kind(frame)
    table = apply_mapping(frame, guess.kind, guess.mapping)
    summary = summarize_ratings(ratings_from_frame(table))
    return summary.n_items, summary.alpha, summary.tied_share, np.array([x.count for x in summary.labels])


def reference(path: Path) -> tuple[int, float, float, np.ndarray]:
    frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
    frame = frame.rename(columns={"item_id": "item", "annotator_id": "rater"})
    if frame.duplicated(["item", "rater"]).any() or frame[["item", "rater", "label"]].isna().any().any():
        raise ValueError("bad ratings")
    counts = frame.groupby(["item", "label"]).size().unstack(fill_value=0)
    values = counts.to_numpy()
    alpha = krippendorff.alpha(value_counts=values[values.sum(axis=1) >= 2], level_of_measurement="nominal")
    top = values.max(axis=1, keepdims=True)
    tied = float(((values == top).sum(axis=1) >= 2).mean())
    return len(counts), float(alpha), tied, values.sum(axis=0)


CIFAR_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
CIFAR_FILE = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "cifar10h" / "label_counts.csv.gz"


def make_counts(n_items: int, labels: tuple[str, ...], k_low: int, k_high: int, seed: int = 0) -> pd.DataFrame:
    """Label counts: each item's K (uniform in [k_low, k_high]) ratings drawn from a peaked Dirichlet mix."""
    rng = np.random.default_rng(seed)
    k = rng.integers(k_low, k_high + 1, size=n_items)
    alpha = np.full(len(labels), 0.3)
    mix = rng.dirichlet(alpha, size=n_items)
    counts = np.array([rng.multinomial(int(ki), p) for ki, p in zip(k, mix, strict=True)])
    frame = pd.DataFrame(counts, columns=[f"count_{lab}" for lab in labels])
    frame.insert(0, "image_id", np.arange(n_items))
    return frame


def counts_fast(frame: pd.DataFrame) -> tuple[int, float, float, np.ndarray]:
    """detect (the counts layout) + map + parse + summarise a label-count table."""
    guess = detect_kind(frame)
    assert guess.layout == "counts", guess
    summary = summarize_ratings(ratings_from_counts(apply_mapping(frame, "ratings", guess.mapping)))
    return summary.n_items, summary.alpha, summary.tied_share, np.array([x.count for x in summary.labels])


def counts_reference(frame: pd.DataFrame) -> tuple[int, float, float, np.ndarray]:
    """The same numbers by numpy: the count matrix in label order, the same alpha call, the same tie rule."""
    cols = sorted((c for c in frame.columns if c.startswith("count_")), key=lambda c: c[len("count_") :])
    values = frame[cols].to_numpy(dtype=np.int64)
    alpha = krippendorff.alpha(value_counts=values[values.sum(axis=1) >= 2], level_of_measurement="nominal")
    top = values.max(axis=1, keepdims=True)
    tied = float(((values == top).sum(axis=1) >= 2).mean())
    return len(values), float(alpha), tied, values.sum(axis=0)


def _same(
    fast: tuple[int, float, float, np.ndarray], ref: tuple[int, float, float, np.ndarray], order: list[int]
) -> None:
    assert fast[0] == ref[0] and abs(fast[1] - ref[1]) < 1e-9 and abs(fast[2] - ref[2]) < 1e-12, (fast, ref)
    assert np.array_equal(fast[3], ref[3][order]), (fast[3], ref[3])


def bench_counts(repeats: int) -> None:
    """The label-count timings (see the module doc)."""
    cases: list[tuple[str, bytes]] = []
    generated = make_counts(10_000, CIFAR_CLASSES, 47, 63)
    cases.append(("CIFAR-10H-shaped counts, numpy (10,000 items x 10 labels)", generated.to_csv(index=False).encode()))
    if CIFAR_FILE.is_file():
        cases.append((f"CIFAR-10H {CIFAR_FILE.name} (shared datasets)", CIFAR_FILE.read_bytes()))
    for what, data in cases:
        name = "label_counts.csv.gz" if data[:2] == b"\x1f\x8b" else "label_counts.csv"

        def fast(data: bytes = data, name: str = name) -> tuple[int, float, float, np.ndarray]:
            return counts_fast(read_table(data, name))

        def ref(data: bytes = data) -> tuple[int, float, float, np.ndarray]:
            return counts_reference(
                pd.read_csv(io.BytesIO(data), compression="infer" if data[:2] != b"\x1f\x8b" else "gzip")
            )

        t_fast, got = timed(fast, repeats)
        t_ref, want = timed(ref, repeats)
        frame = read_table(data, name)
        labels = [c[len("count_") :] for c in frame.columns if str(c).startswith("count_")]
        shown = [
            x.label
            for x in summarize_ratings(
                ratings_from_counts(frame, "image_id" if "image_id" in frame.columns else None)
            ).labels
        ]
        _same(got, want, [sorted(labels).index(lab) for lab in shown])
        print(
            f"{what}: upload+detect+summarise median {t_fast:.3f} s (target < 1 s) | reference median {t_ref:.3f} s | "
            f"ratio {t_fast / t_ref:.2f} | {got[0]:,} items, alpha {got[1]:.4f}"
        )
    million = make_counts(50_000, ("neg", "neu", "pos"), 20, 20, seed=1)
    assert int(million.filter(like="count_").to_numpy().sum()) == 1_000_000
    t_fast, got = timed(lambda: counts_fast(million), repeats)
    t_ref, want = timed(lambda: counts_reference(million), repeats)
    _same(got, want, [0, 1, 2])
    print(
        f"1,000,000 ratings as counts (50,000 items x 20 ratings per item (K), 3 labels): detect+summarise median "
        f"{t_fast:.3f} s (target < 1 s) | reference median {t_ref:.3f} s | ratio {t_fast / t_ref:.2f}"
    )


def timed(func: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 ratings instead of 1,000,000")
    parser.add_argument("--repeats", type=int, default=5, help="runs per timing; the median is printed (>= 5)")
    parser.add_argument("--counts-only", action="store_true", help="only the label-count timings")
    args = parser.parse_args()
    args.repeats = max(args.repeats, 5)
    bench_counts(args.repeats)
    if args.counts_only:
        return
    n_items, k = (5_000, 20) if args.quick else (50_000, 20)
    frame = make_ratings(n_items, k)
    with tempfile.TemporaryDirectory() as tmp:
        csv, parquet = Path(tmp) / "ratings.csv", Path(tmp) / "ratings.parquet"
        frame.to_csv(csv, index=False)
        frame.to_parquet(parquet, index=False)
        print(
            f"{len(frame):,} ratings: {n_items:,} items (N) x {k} ratings per item (K); CSV {csv.stat().st_size / 2**20:.1f} MiB"
        )
        for path in (csv, parquet):
            t_fast, fast = timed(functools.partial(fast_path, path), args.repeats)
            t_ref, ref = timed(functools.partial(reference, path), args.repeats)
            assert fast[0] == ref[0] and abs(fast[1] - ref[1]) < 1e-12 and abs(fast[2] - ref[2]) < 1e-12
            assert np.array_equal(fast[3], ref[3])
            print(
                f"{path.suffix[1:]:>8}: load+validate+summarise median {t_fast:.2f} s (target < 5 s) | "
                f"pandas reference median {t_ref:.2f} s | ratio fast/reference {t_fast / t_ref:.2f}"
            )
        table = apply_mapping(
            read_table(csv), "ratings", {"item": "item_id", "rater": "annotator_id", "label": "label"}
        )
        t_fp, _ = timed(lambda: fingerprint(table), args.repeats)
        print(f"fingerprint (store id) of the canonical table: median {t_fp:.2f} s")
        print(f"alpha {fast[1]:.4f}, items with a tied plurality {100 * fast[2]:.1f}% (both paths agree)")


if __name__ == "__main__":
    main()
