"""``python -m nkcore``: the same answers as the dashboard, for scripts and CI.

One module per subcommand (``nkcore/cli/<topic>.py``; a topic too large for one module is split by concept into
``<topic>_<part>.py``). Each exposes ``register(subparsers)``, which adds its subcommand and sets ``func`` (a
callable ``args -> int``) on it; :func:`build_parser` calls them in the order of :data:`COMMANDS`, which is the
order of ``--help``. The modules are imported on demand: a command line that starts with a subcommand imports and
registers that one only (its help, errors and output are the same; the start-up skips the other topics' scipy and
pandas imports); anything else (``--help``, no command, an unknown one) registers them all. JSON output goes through :mod:`nkcore.cli.common`. Exit codes: 0 success, 2 bad input
(a one-line message on stderr, never a traceback). Limits on the work of one request are checked in nkcore
(``nkcore.common.limits``; ``python -m nkcore limits`` prints them); a RecursionError or MemoryError that gets past
them is still reported in one line, exit 2.

Text output is written through :class:`EscapingWriter`: names read from a file (models, providers, configs, labels)
reach the terminal with their control and bidirectional characters escaped (``nkcore.errors.printable_lines``), so a
crafted log cannot colour, erase or reverse a line of the verdict. ``--json`` output is left alone: ``print_json``
writes ASCII JSON, whose escapes (``\\u001b``) decode to the exact strings.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, TextIO

from nkcore.errors import DataError, one_line, printable_lines

__all__ = ["COMMANDS", "TOPICS", "EscapingWriter", "build_parser", "main", "topic"]

COMMANDS: dict[str, str] = {
    "data": "data",
    "compare": "paired",
    "rank": "rank",
    "judge": "judge",
    "plan": "plan",
    "vote": "voting",
    "fanout": "fanout",
    "nk": "nk",
    "raters": "raters",
    "limits": "limits",
}
"""Each subcommand and the module of ``nkcore.cli`` that adds it, in the order ``--help`` lists them."""


def topic(command: str) -> ModuleType:
    """The module that adds ``command`` (imported now, if it was not yet)."""
    return importlib.import_module(f"nkcore.cli.{COMMANDS[command]}")


def __getattr__(name: str) -> Any:
    """``TOPICS``: the modules that add subcommands, in the order of ``--help`` (imported when first asked for)."""
    if name == "TOPICS":
        return tuple(topic(c) for c in COMMANDS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one line (its default already uses 2; keep the message short)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {one_line(message)}\n")  # an argument can hold a line break
        raise SystemExit(2)


class EscapingWriter:
    """A text stream that writes ``printable_lines(text)`` to ``stream``: every control character but the line
    break and the tab (ESC, CR, NUL, C1 controls) and every bidirectional or zero-width mark becomes its visible
    escape. Everything else (``flush``, ``encoding``, ``isatty``...) is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable_lines(text))
        return len(text)

    def writelines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand, or only ``command``'s (one of :data:`COMMANDS`)."""
    parser = _Parser(
        prog="python -m nkcore",
        description="NK Planner from the command line: (N, K) budgets, paired comparisons, "
        "majority-vote curves, fan-out latency and cost. Add --json to any subcommand for machine-readable output.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS if command is None else (command,):
        topic(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the subcommand; return the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = args_list[0] if args_list else None
    parser = build_parser(first if first in COMMANDS else None)
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    with contextlib.ExitStack() as streams:
        if not getattr(args, "json", False):  # JSON keeps its exact strings (ASCII, JSON-escaped)
            streams.enter_context(contextlib.redirect_stdout(EscapingWriter(sys.stdout)))
        streams.enter_context(contextlib.redirect_stderr(EscapingWriter(sys.stderr)))
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except DataError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        sys.stderr.write(f"error: cannot read {one_line(str(exc.filename))}: {exc.strerror}\n")
        return 2
    except RecursionError:
        sys.stderr.write("error: the input is nested too deeply to process (a limit was missed): flatten it\n")
        return 2
    except MemoryError:
        sys.stderr.write(
            "error: the request needs more memory than this machine has: ask for a smaller computation "
            "(python -m nkcore limits shows the limits)\n"
        )
        return 2
