"""``raters --population [--shift]``: the rater population fitted to the ratings and how it moves the minimal budget
(``nkcore.ratings.population``, ``nkcore.nk.adaptive.population_shift``); JSON keys in ``nkcore.cli.raters``."""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

__all__ = ["population_json"]


def _mb(mb: Any) -> dict[str, Any]:
    return {"budget": mb.budget, "k": mb.k, "p": mb.p, "n": mb.n}


def population_json(ratings: pd.DataFrame, args: argparse.Namespace) -> dict[str, Any]:
    """The ``population`` key: the fitted classes and raters, the sentence, and with ``--shift`` the simulation."""
    from nkcore.ratings.population import population_frame, population_sentence

    pop = population_frame(ratings)
    out: dict[str, Any] = {
        "method": "one-coin",
        "n_labels": pop.n_labels,
        "reference_skill": pop.reference_skill,
        "n_raters": len(pop.raters),
        "n_flagged": pop.n_flagged,
        "classes": [
            {"name": c.name, "n_raters": c.n_raters, "share": c.share, "quality": c.quality, "skill": c.skill}
            for c in pop.classes
        ],
        "raters": [
            {"rater": r, "skill": s, "quality": q, "flagged": f, "disagreement": d, "n_ratings": n}
            for r, s, q, f, d, n in zip(
                pop.raters, pop.skills, pop.qualities, pop.flagged, pop.disagreement, pop.n_ratings, strict=True
            )
        ],
        "sentence": population_sentence(pop),
        "shift": None,
    }
    if args.shift:
        from nkcore.nk.adaptive import population_shift
        from nkcore.nk.adaptive_sentences import population_shift_sentence
        from nkcore.nk.frames import fit_prior_frame
        from nkcore.nk.grid import parse_int_list
        from nkcore.nk.metrics import parse_metrics

        alpha = tuple(float(a) for a in fit_prior_frame(ratings).fit.concentration)
        budgets = parse_int_list(args.budgets, "--budgets") if args.budgets else (100, 250, 500, 1000, 2500)
        ks = parse_int_list(args.ks, "--ks") if args.ks else tuple(range(1, 11))
        metrics = parse_metrics(args.metric, ("acc",))
        got = population_shift(
            alpha, args.eps, budgets, ks, pop.shares, pop.mix_qualities, metrics, args.rounds, args.seed
        )
        out["shift"] = {
            "prior_alpha": list(alpha),
            "eps": args.eps,
            "budgets": list(budgets),
            "ks": list(ks),
            "rounds": args.rounds,
            "seed": args.seed,
            "metrics": [
                {
                    "metric": s.metric,
                    "alike": _mb(s.alike),
                    "unweighted": _mb(s.unweighted),
                    "weighted": _mb(s.weighted),
                    "best_k": {
                        name: [{"budget": b.budget, "k": b.k, "p": b.p} for b in best]
                        for name, best in (
                            ("alike", s.best_alike),
                            ("unweighted", s.best_unweighted),
                            ("weighted", s.best_weighted),
                        )
                    },
                    "sentence": population_shift_sentence(s),
                }
                for s in got
            ],
        }
    return out
