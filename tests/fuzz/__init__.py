"""Property-based fuzz suite: every reader and every CLI subcommand either answers or refuses in one line.

The only acceptable outcomes for any input are a result, or ``nkcore.errors.DataError`` with a non-empty one-line
message (exit code 2 and exactly one line on stderr for the command line). ``corpus.py`` generates the hostile
files kept as regression tests. Profiles: see ``conftest.py`` (``make fuzz`` runs the long one).
"""
