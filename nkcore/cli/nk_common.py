"""What the ``nk`` subcommand's outputs share: the files of ``--ratings`` / ``--predictions``, the prior, a cell's
JSON keys (with ``--adaptive fixed``'s) and the header line of the text output."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from nkcore.nk.priors import Prior, resolve_prior

if TYPE_CHECKING:  # pandas is imported by the readers, when a file is read (start-up of the other commands)
    import pandas as pd

__all__ = [
    "CI_WIDTH_WORDS",
    "cell_json",
    "fixed_keys",
    "header",
    "predictions_frame",
    "prior_of",
    "ratings_frame",
]

CI_WIDTH_WORDS = (
    "CI-width: the spread (2.5% to 97.5%) of the score gap between A and B over repeated evaluations of this size; "
    "the smaller, the more one evaluation can be trusted."
)


def ratings_frame(args: argparse.Namespace) -> pd.DataFrame:
    """The ``--ratings`` file as a label-count table (item + ``count_<label>``), read as ``data`` reads it
    (:func:`nkcore.datafiles.read_ratings_counts`: ``--subset``, ``--item-key``, ``--keep``)."""
    from nkcore.datafiles import read_ratings_counts

    return read_ratings_counts(args.ratings, args.subset, args.item_key, args.keep)


def predictions_frame(args: argparse.Namespace) -> pd.DataFrame:
    """The ``--predictions`` file as ``data`` reads it, with the ratings' ``--subset`` (when the file has that
    subset), ``--item-key`` and ``--keep`` (:func:`nkcore.datafiles.read_predictions_table`)."""
    from nkcore.datafiles import read_predictions_table

    return read_predictions_table(args.predictions, args.subset, args.item_key, args.keep)


def prior_of(args: argparse.Namespace) -> tuple[Prior, dict[str, Any]]:
    """The prior of ``--prior`` / ``--alpha``, or the one fitted to ``--ratings`` (Dirichlet-multinomial ML), with
    the fit's JSON keys (``labels``, ``fit_mab``, ``fit_warnings``; none for a preset or typed prior)."""
    if args.ratings is None:
        return resolve_prior(args.prior, args.alpha), {}
    from nkcore.nk.frames import fit_prior_frame

    fitted = fit_prior_frame(ratings_frame(args))
    extra = {"labels": list(fitted.labels), "fit_mab": fitted.fit.mab, "fit_warnings": list(fitted.fit.warnings)}
    return Prior(f"fitted to {args.ratings.name}", fitted.fit.concentration, "Dirichlet-multinomial ML fit"), extra


def cell_json(cell: Any, prior: Prior, eps: float | None) -> dict[str, Any]:
    """A cell's JSON object: its summary (the contract's keys), the prior's name, eps and ``significant`` (p < 0.05)."""
    d = dict(cell.summary())
    d["prior"] = prior.name if prior is not None else None
    if eps is not None:
        d["eps"] = eps
    d["significant"] = bool(cell.p < 0.05)
    return d


def fixed_keys(args: argparse.Namespace, cell: Any) -> dict[str, Any]:
    """``--adaptive fixed``: the cell's keys of the adaptive contract (K ratings per item), else nothing."""
    if getattr(args, "adaptive", None) != "fixed" or not hasattr(cell, "k"):
        return {}
    return {"policy": "fixed", "mean_ratings_per_item": float(cell.k), "max_ratings_per_item": int(cell.k)}


def header(prior: Prior, eps: float) -> str:
    """The first line of the text output: the prior's name, alpha, the number of labels M and eps."""
    concentration = ", ".join(f"{a:.4g}" for a in prior.concentration)
    return f"Prior (alpha) {prior.name}: [{concentration}] (M = {prior.m} labels), eps = {eps}"
