"""Budget page, computed ahead: the view a link without parameters opens on, into the shared caches once per server.

The launcher (``ui.serve``) calls :func:`warm_default` on a thread of its own as soon as the server's runtime exists,
so the first viewer of the page reads its grid, its headline and its heatmap instead of waiting for them.
"""

from __future__ import annotations

from ui.budget import compute, views
from ui.budget.controls import default_choices

__all__ = ["warm_default"]


def warm_default() -> None:
    """The default view (:func:`ui.budget.controls.default_choices`): its grid and headline
    (:func:`ui.budget.compute.warm_numbers`), then its heatmap's spec (:func:`ui.budget.views.warm_heatmap`)."""
    ch = default_choices()
    compute.warm_numbers(ch)
    views.warm_heatmap(ch, compute.compute_grid(ch))  # read from the cache just filled: nothing is drawn
