"""Benchmark: open a stored 1,000,000-row dataset on the second app server of an S3-compatible store, the first
time (read from the store) and the second time (this server's cache), against a local folder in the same process.

Run: ``.venv/bin/python benchmarks/bench_store.py`` (``--rows N``, ``--repeats R``).

Set-up: moto's server mode on a loopback port (the S3 tests' store, installed by requirements-dev.txt), a fresh
bucket, and a ratings table of ``--rows`` rows (50,000 items x 20 ratings per item, 2,000 raters, 3 labels) stored
once with ``store.put``, as the first server's upload does. "The second server" is this process, which never stored
it: the first open is ``ui.common.datasets.load_dataset`` with its cache cleared (one GET of the description, one GET of
the Parquet, decoded), the second is the same call again (``st.cache_resource``: no store access). Reference in
the same process: the same two opens on a local-folder store. Medians over ``--repeats``; the ratio S3 / local.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
logging.getLogger("streamlit").setLevel(logging.ERROR)


def _table(rows: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "item": [f"i{i // 20}" for i in range(rows)],
            "rater": [f"r{v}" for v in rng.integers(0, 2_000, rows)],
            "label": np.array(["pos", "neg", "neutral"])[rng.integers(0, 3, rows)],
        }
    )


def _opens(root: str, ds_id: str, repeats: int) -> tuple[list[float], list[float]]:
    from ui.common import datasets

    os.environ["NKP_DATA_DIR"] = root
    first, second = [], []
    datasets._load_stored.clear()
    datasets.load_dataset("ratings", ds_id)  # warm-up, not timed (imports, the S3 client, the page cache)
    for _ in range(repeats):
        datasets._load_stored.clear()
        t0 = time.perf_counter()
        ds = datasets.load_dataset("ratings", ds_id)
        t1 = time.perf_counter()
        again = datasets.load_dataset("ratings", ds_id)
        t2 = time.perf_counter()
        assert len(ds.frame) == len(again.frame) and again.frame is ds.frame
        first.append(t1 - t0)
        second.append(t2 - t1)
    return first, second


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL_S3=endpoint,
    )  # fmt: skip
    bucket = f"nkp-bench-{uuid.uuid4().hex[:8]}"
    boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
    from nkcore import store

    table = _table(args.rows)
    s3_root = f"s3://{bucket}/nkp"
    local_root = tempfile.mkdtemp(prefix="nkp-bench-store-")
    t0 = time.perf_counter()
    meta = store.put(table, "ratings", "bench.csv", root=s3_root)
    put_s = time.perf_counter() - t0
    assert store.put(table, "ratings", "bench.csv", root=local_root).id == meta.id
    size = len(store.backends.open_backend(s3_root).read(f"{meta.id}.parquet", 1 << 30))
    print(f"{args.rows:,} rows, Parquet {size / 1e6:.1f} MB; put to S3 (moto on loopback) {put_s:.2f} s")
    results = {}
    for name, root in (("local folder", local_root), ("S3 (moto)", s3_root)):
        first, second = _opens(root, meta.id, args.repeats)
        results[name] = (statistics.median(first), statistics.median(second))
        print(
            f"{name:>12}: first open {results[name][0] * 1e3:8.1f} ms, second open {results[name][1] * 1e3:8.3f} ms "
            f"(medians of {args.repeats})"
        )
    ratio = results["S3 (moto)"][0] / results["local folder"][0]
    print(f"first open on the second server, S3 / local folder: {ratio:.2f}x")
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
