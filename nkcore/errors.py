"""The one exception type for problems a user can fix (bad files, bad parameters).

The UI shows its message with ``st.error``; the CLI prints it on one line to stderr and exits 2.
"""

from __future__ import annotations


class DataError(ValueError):
    """Bad input a user can fix. The message names the problem and the rows or columns involved."""
