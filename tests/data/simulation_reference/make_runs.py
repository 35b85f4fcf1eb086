"""Writes the stored simulation runs of ``tests/test_nk_exact_validation.py``: for every preset, the simulation's
p, Delta and CI-width of each representative configuration, metric and seed (that module's ``simulation_runs``,
stored by its ``write_runs`` under its ``simulation_key``). Run it again whenever the validation warns that the
runs are stale (the simulator's source, numpy or scipy changed)::

    .venv/bin/python tests/data/simulation_reference/make_runs.py            # every preset
    .venv/bin/python tests/data/simulation_reference/make_runs.py JobsQ3     # some presets

About six minutes of CPU for all fifteen presets on this machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from nkcore.nk.priors import preset_names
from tests.test_nk_exact_validation import simulation_runs, write_runs


def main(names: list[str]) -> None:
    for name in names or preset_names():
        path = write_runs(name, simulation_runs(name))
        print(path.name)


if __name__ == "__main__":
    main(sys.argv[1:])
