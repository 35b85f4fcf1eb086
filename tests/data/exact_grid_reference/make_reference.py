"""Writes the reference values of ``tests/test_nk_exact_reference.py``: the exact grid of several presets from the
engine as it was BEFORE the speed work of issue 36 (main at 441c0ba), every number as its exact float (``float.hex``)
and the 1000 quantile points of each cell as a sha256 of their bytes.

Run it with the old source tree first on ``sys.path`` (so that its ``nkcore`` is imported), e.g.::

    mkdir -p /tmp/old_tree && git archive 441c0ba nkcore | tar -x -C /tmp/old_tree
    PYTHONPATH=/tmp/old_tree .venv/bin/python tests/data/exact_grid_reference/make_reference.py

It refuses to run on this tree's ``nkcore`` (the point is to compare the new code with the old one).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import nkcore
from nkcore.nk.exact import exact_grid
from nkcore.nk.priors import get_prior

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parents[2]))  # after the old tree: its nkcore is the one imported
from tests.test_nk_exact_reference import grid_rows  # noqa: E402  the rows' format, one home

CASES = (
    ("Toxicity", 0.3, ("acc", "tv", "wins", "kl")),
    ("DICES", 0.3, ("acc", "tv", "wins", "kl")),
    ("JobsQ3", 0.3, ("acc", "tv", "wins", "kl")),
    ("balanced12", 0.1, ("acc", "kl_smooth", "js", "ce")),
    ("unbalanced5", 0.4, ("acc", "tv", "js")),
)
FIELDS = ("p", "delta", "ci_width", "reproducibility", "ties", "mean_gap", "p_error", "delta_error", "ci_width_error")


def main() -> None:
    if Path(nkcore.__file__).resolve().parents[1] == HERE.parents[2]:
        sys.exit("run with the OLD tree first on PYTHONPATH (see the module doc)")
    for name, eps, metrics in CASES:
        prior = get_prior(name)
        vector = getattr(prior, "concentration", None) or prior.alpha  # the old tree's name: alpha
        cells = exact_grid(vector, eps, metrics=metrics)
        rows = grid_rows(cells, FIELDS)
        out = {"preset": name, "eps": eps, "metrics": list(metrics), "fields": list(FIELDS), "cells": rows}
        path = HERE / f"{name}_{eps}.json.gz"
        with gzip.open(path, "wt") as f:
            json.dump(out, f)
        print(path.name, len(rows), "cells")


if __name__ == "__main__":
    main()
