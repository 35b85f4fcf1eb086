"""Which kind a file holds and which column plays each role, as the Data page's mapping editor guesses them (the
command line's ``data FILE`` detects with the same ``detect_kind``; it places roles forced with ``--map`` through
``nkcore.datafiles.read.usable_guess``, which keeps another role mapped to a forced column where
:func:`place_forced` drops it: the one difference left between the two).

1. :func:`key_roles`: the roles a built item key fixes (``--item-key COL1,COL2`` on the command line, "Build the
   item key from several columns" on the Data page): the item is :data:`nkcore.kinds.KEY_COLUMN`.
2. :func:`guess_kind`: the detected (or given) kind; with roles forced and no kind given, the best kind having those
   roles; the forced roles placed in the guess (:func:`place_forced`).
3. :func:`preferred_guess`: the two for one kind, as the Data page pre-fills its selectboxes.
"""

from __future__ import annotations

import pandas as pd

from nkcore.kinds import KEY_COLUMN, KINDS, KindGuess, detect_kind, kind_columns

__all__ = ["KEYED_KINDS", "detected_kind", "guess_kind", "key_roles", "place_forced", "preferred_guess"]

KEYED_KINDS = ("ratings", "predictions")
"""The kinds whose items a built key names (paired results and raw samples name cases)."""


def key_roles(frame: pd.DataFrame, kind: str | None) -> dict[str, str]:
    """``{"item": KEY_COLUMN}`` when ``frame`` has a built item key and ``kind`` names items (or is not given), else
    no forced role.

    >>> key_roles(pd.DataFrame({"item_key": ["a / 1"], "label": ["x"]}), "ratings")
    {'item': 'item_key'}
    >>> key_roles(pd.DataFrame({"item_key": ["a / 1"]}), "paired"), key_roles(pd.DataFrame({"item": [1]}), None)
    ({}, {})
    """
    if KEY_COLUMN not in frame.columns or (kind is not None and kind not in KEYED_KINDS):
        return {}
    return {"item": KEY_COLUMN}


def place_forced(guess: KindGuess, forced: dict[str, str]) -> KindGuess:
    """``guess`` with each forced role on its column: a forced column plays no other role, the other roles keep
    their order, a forced role is no longer missing.

    >>> g = KindGuess("ratings", {"item": "uid", "rater": "item_key", "label": "y"}, 0.9, "r", ("x",))
    >>> place_forced(g, {"item": "item_key"}).mapping
    {'item': 'item_key', 'label': 'y'}
    """
    if not forced:
        return guess
    used = set(forced.values())
    mapping = {r: forced.get(r, c) for r, c in guess.mapping.items() if r in forced or c not in used}
    mapping.update({r: c for r, c in forced.items() if r not in mapping})
    missing = tuple(m for m in guess.missing if m not in forced)
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, missing, guess.layout)


def detected_kind(frame: pd.DataFrame, kind: str | None, forced: dict[str, str]) -> KindGuess:
    """The detected (or given) kind (:func:`nkcore.kinds.detect_kind`); with roles forced and no kind given, the
    best-scoring kind that has every forced role (a ``p_<label>`` role fits predictions). The forced roles are not
    placed yet: :func:`guess_kind` (the Data page) and ``nkcore.datafiles.read.usable_guess`` (the CLI) place them."""
    guess = detect_kind(frame, kind)
    if kind is None and forced:
        fits = [
            k
            for k in KINDS
            if all(r in sum(kind_columns(k), ()) or (k == "predictions" and r.startswith("p_")) for r in forced)
        ]
        if fits and guess.kind not in fits:
            guess = max((detect_kind(frame, k) for k in fits), key=lambda g: g.confidence)
    return guess


def guess_kind(frame: pd.DataFrame, kind: str | None, forced: dict[str, str]) -> KindGuess:
    """:func:`detected_kind` with the ``forced`` roles placed (:func:`place_forced`)."""
    return place_forced(detected_kind(frame, kind, forced), forced)


def preferred_guess(frame: pd.DataFrame, kind: str) -> KindGuess:
    """The guess for ``kind`` with a built item key as the item (:func:`key_roles`); for predictions detection
    already takes the model column that makes (item, model) unique.

    >>> f = pd.DataFrame({"uid": [1, 1, 2, 2], "model": ["r", "r"] * 2, "model_run": ["r0", "r1"] * 2,
    ...                   "pred_label": list("abab")})
    >>> preferred_guess(f, "predictions").mapping["model"]
    'model_run'
    """
    return guess_kind(frame, kind, key_roles(frame, kind))
