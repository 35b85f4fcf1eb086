"""``python -m ui.serve [streamlit run's arguments]``: ``streamlit run``, with the app's heavy libraries imported on
a background thread while the server starts.

A page's first run on a fresh server imports what it needs: scipy.stats, pandas, Altair and nkcore take about 3.5 s
of CPU on the 2-core reference machine, which the first viewer of a shared link waited for. Here they are imported
as soon as the process starts, beside the server's own start-up, so that viewer finds them loaded (a page that
comes earlier waits on the same imports, not for a second copy: Python imports a module once). Only libraries
without Streamlit state are loaded early: the ``ui`` modules, which create Streamlit caches, still load with the
first page, inside the runtime. ``make run`` and the browser tests start the app this way.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading

PRELOAD = ("numpy", "pandas", "scipy.fft", "scipy.linalg", "scipy.special", "scipy.stats", "altair")
"""Third-party modules the pages import, heaviest first after numpy; then every module of ``nkcore``."""


def preload() -> list[str]:
    """Import ``PRELOAD`` and every ``nkcore`` module (but ``__main__``); the names that failed to import (the page
    that needs one raises its error as before)."""
    failed = []
    names = list(PRELOAD)
    try:
        import nkcore

        names += [m.name for m in pkgutil.walk_packages(nkcore.__path__, "nkcore.") if not m.name.endswith("__main__")]
    except Exception:  # a broken install: the pages say so themselves
        failed.append("nkcore")
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            failed.append(name)
    return failed


def main(argv: list[str] | None = None) -> int:
    """Start the preload thread, then hand ``argv`` (default: this command's arguments) to ``streamlit run``."""
    args = list(sys.argv[1:] if argv is None else argv)
    threading.Thread(target=preload, name="nkp-preload", daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", *args]
    return int(cli.main(prog_name="streamlit") or 0)


if __name__ == "__main__":
    sys.exit(main())
