"""Data files as the command line reads them (one concept per module):

- :mod:`nkcore.datafiles.read`: a ratings or predictions file read with ``--subset``, ``--item-key``, ``--keep``
  and ``--map`` (kind and columns detected, nested ratings made flat, repeated rows refused or kept once);
- :mod:`nkcore.datafiles.inspect`: one file read, validated and summarised (the ``data FILE`` document);
- :mod:`nkcore.datafiles.derive`: paired results or raw samples derived from a predictions file and gold labels;
- :mod:`nkcore.datafiles.choose`: the column guess and the preferred reading of a file (the Data page's and the CLI's).

The ``data`` subcommand itself (arguments, printing) is :mod:`nkcore.cli.data`.
"""

from nkcore.datafiles.derive import derive_files
from nkcore.datafiles.inspect import inspect_file
from nkcore.datafiles.read import read_predictions_table, read_ratings, read_ratings_counts, read_ratings_table

__all__ = [
    "derive_files",
    "inspect_file",
    "read_predictions_table",
    "read_ratings",
    "read_ratings_counts",
    "read_ratings_table",
]
