"""``python -m ui.serve [streamlit run's arguments]``: ``streamlit run``, with the app's heavy libraries imported on
a background thread while the server starts.

A page's first run on a fresh server imports what it needs: scipy.stats, pandas, Altair and nkcore take about 3.5 s
of CPU on the 2-core reference machine, which the first viewer of a shared link waited for. Here they are imported
as soon as the process starts, beside the server's own start-up, so that viewer finds them loaded (a page that
comes earlier waits on the same imports, not for a second copy: Python imports a module once). Only libraries
without Streamlit state are loaded early: the ``ui`` modules, which create Streamlit caches, wait for the
server's runtime (below). ``make run`` and the browser tests start the app this way.

Once the imports are done and the server's runtime exists, the same thread imports the ``ui`` modules and computes
the Budget page's default view (:func:`ui.budget.warm.warm_default`: the grid, headline and heatmap of a link without
parameters, about 1 s of CPU) into the shared caches, once per server: the first viewer of that page reads it
instead of waiting for it.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
import time
from collections.abc import Iterable

PRELOAD = ("numpy", "pandas", "scipy.fft", "scipy.linalg", "scipy.special", "scipy.stats", "altair")
"""Third-party modules the pages import, heaviest first after numpy; then every module of ``nkcore``."""


def _import_each(names: Iterable[str]) -> list[str]:
    """Import every module of ``names``; the names that failed to import (the page that needs one raises its error
    as before)."""
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            failed.append(name)
    return failed


def preload() -> list[str]:
    """Import ``PRELOAD`` and every ``nkcore`` module (but ``__main__``); the names that failed to import."""
    failed = []
    names = list(PRELOAD)
    try:
        import nkcore

        names += [m.name for m in pkgutil.walk_packages(nkcore.__path__, "nkcore.") if not m.name.endswith("__main__")]
    except Exception:  # a broken install: the pages say so themselves
        failed.append("nkcore")
    return failed + _import_each(names)


WARM_WAIT_S = 60.0
"""How long the start-up thread waits for Streamlit's runtime before it gives up warming the caches."""


def warm() -> bool:
    """Wait for the server's runtime, import the ``ui`` modules, then compute the Budget page's default view into its
    caches; True once done (False: no runtime within :data:`WARM_WAIT_S`, or the computation failed: the page
    computes it on first use)."""
    from streamlit import runtime

    end = time.monotonic() + WARM_WAIT_S
    while not runtime.exists():
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    try:  # Streamlit's one-time check before the first element of the process (``inspect.stack`` from the page's
        # deep stack: about 0.18 s of the first view), done here on a shallow one; a private function: skipped if gone
        from streamlit import delta_generator

        delta_generator._maybe_print_use_warning()
    except Exception:
        pass
    import ui

    # the pages' modules, their caches now in the runtime
    _import_each(m.name for m in pkgutil.walk_packages(ui.__path__, "ui.") if m.name != "ui.serve")
    try:
        from ui.budget import warm as budget_warm

        budget_warm.warm_default()
    except Exception:  # the page computes it itself, and shows any error there
        return False
    return True


def _start_up() -> None:
    preload()
    warm()


def main(argv: list[str] | None = None) -> int:
    """Start the preload thread (then the warm-up of the caches), then hand ``argv`` (default: this command's
    arguments) to ``streamlit run``."""
    args = list(sys.argv[1:] if argv is None else argv)
    threading.Thread(target=_start_up, name="nkp-preload", daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", *args]
    return int(cli.main(prog_name="streamlit") or 0)


if __name__ == "__main__":
    sys.exit(main())
