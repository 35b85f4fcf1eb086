"""The four kinds of data NK Planner reads, their canonical columns, and guessing which file column plays which role.

| kind          | canonical columns                                                                 |
|---------------|-----------------------------------------------------------------------------------|
| ``samples``   | case, sample, answer, gold and/or correct, optional latency_s (one row per sample) |
| ``paired``    | long: case, config, correct; or wide: case + one 0/1 column per config             |
| ``ratings``   | item, rater, label (one row per rating)                                            |
| ``predictions`` | item, model, pred_label and/or one p_<label> probability column per label        |

- :mod:`nkcore.kinds.columns`: the kinds, their canonical columns, role words and column-name synonyms;
- :mod:`nkcore.kinds.detect`: :func:`detect_kind` matches column names against synonyms (``item_id``,
  ``annotator_id``, ``worker``, ``question_id``, ``model_name``, ``prediction``, ``is_correct``...) and checks the
  content (0/1 columns, probabilities);
- :mod:`nkcore.kinds.mapping`: :func:`apply_mapping` renames the chosen columns to the canonical names, drops the
  others and normalises values (ids and labels become text, ``correct`` becomes 0/1, ``latency_s`` and ``p_*``
  become numbers), naming the rows or columns of any problem in a :class:`nkcore.errors.DataError`;
- :mod:`nkcore.kinds.values`: cell values as text, cut for messages, in natural order; graded scores told from labels;
- :mod:`nkcore.kinds.nested`: :func:`flatten_nested` makes ratings held per item (rater lists, label counters,
  score lists) flat: one row per rating, or label counts;
- :mod:`nkcore.kinds.repeated_keys`: repeated (item, rater) / (item, model) rows counted, explained and kept once;
- :mod:`nkcore.kinds.subsets`: a file's subsets (dataset / split / task columns), ``--subset COLUMN=VALUE`` and item
  keys built from several columns (``--item-key COL1,COL2``).

``format_rows`` is :func:`nkcore.common.rows.format_rows`, re-exported here for modules that still import it
from ``nkcore.kinds``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, for type checkers; at run time each comes from its module on first use
    from nkcore.common.rows import format_rows
    from nkcore.kinds.columns import KEEP_CHOICES, KINDS, ROLE_WORDS, kind_columns, probability_role
    from nkcore.kinds.detect import KindGuess, detect_counts, detect_kind
    from nkcore.kinds.mapping import apply_mapping
    from nkcore.kinds.nested import Flattened, flatten_nested
    from nkcore.kinds.repeated_keys import (
        Duplicates,
        drop_duplicates,
        duplicates,
        duplicates_advice,
        key_columns,
    )
    from nkcore.kinds.subsets import (
        KEY_COLUMN,
        MAX_SUBSETS,
        SUBSET_NAMES,
        parse_item_key,
        parse_subset,
        subset_columns,
        subset_rows,
        subset_values,
        with_key,
    )
    from nkcore.kinds.values import (
        MAX_ANSWER_CHARS,
        MAX_LABEL_CHARS,
        graded_scores,
        natural_order,
        show_names,
        show_value,
        to_text,
    )

_HOMES = {
    "Duplicates": "nkcore.kinds.repeated_keys",
    "Flattened": "nkcore.kinds.nested",
    "KEEP_CHOICES": "nkcore.kinds.columns",
    "KEY_COLUMN": "nkcore.kinds.subsets",
    "KINDS": "nkcore.kinds.columns",
    "KindGuess": "nkcore.kinds.detect",
    "MAX_ANSWER_CHARS": "nkcore.kinds.values",
    "MAX_LABEL_CHARS": "nkcore.kinds.values",
    "MAX_SUBSETS": "nkcore.kinds.subsets",
    "ROLE_WORDS": "nkcore.kinds.columns",
    "SUBSET_NAMES": "nkcore.kinds.subsets",
    "apply_mapping": "nkcore.kinds.mapping",
    "detect_counts": "nkcore.kinds.detect",
    "detect_kind": "nkcore.kinds.detect",
    "drop_duplicates": "nkcore.kinds.repeated_keys",
    "duplicates": "nkcore.kinds.repeated_keys",
    "duplicates_advice": "nkcore.kinds.repeated_keys",
    "flatten_nested": "nkcore.kinds.nested",
    "format_rows": "nkcore.common.rows",
    "graded_scores": "nkcore.kinds.values",
    "key_columns": "nkcore.kinds.repeated_keys",
    "kind_columns": "nkcore.kinds.columns",
    "natural_order": "nkcore.kinds.values",
    "parse_item_key": "nkcore.kinds.subsets",
    "parse_subset": "nkcore.kinds.subsets",
    "probability_role": "nkcore.kinds.columns",
    "show_names": "nkcore.kinds.values",
    "show_value": "nkcore.kinds.values",
    "subset_columns": "nkcore.kinds.subsets",
    "subset_rows": "nkcore.kinds.subsets",
    "subset_values": "nkcore.kinds.subsets",
    "to_text": "nkcore.kinds.values",
    "with_key": "nkcore.kinds.subsets",
}
"""Each name's module: imported when the name is first asked for (PEP 562), so that a command needing only the
vocabulary (``KEEP_CHOICES``, ``KINDS``) does not load pandas through ``detect``. No name may be a submodule's name:
importing a submodule sets the package's attribute of that name to the module (hence ``repeated_keys``, the home
of the function ``duplicates``)."""


def __getattr__(name: str) -> Any:
    """The package's name ``name`` from its module, imported now (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "KEEP_CHOICES",
    "KEY_COLUMN",
    "KINDS",
    "MAX_ANSWER_CHARS",
    "MAX_LABEL_CHARS",
    "MAX_SUBSETS",
    "ROLE_WORDS",
    "SUBSET_NAMES",
    "Duplicates",
    "Flattened",
    "KindGuess",
    "apply_mapping",
    "detect_counts",
    "detect_kind",
    "drop_duplicates",
    "duplicates",
    "duplicates_advice",
    "flatten_nested",
    "format_rows",
    "graded_scores",
    "key_columns",
    "kind_columns",
    "natural_order",
    "parse_item_key",
    "parse_subset",
    "probability_role",
    "show_names",
    "show_value",
    "subset_columns",
    "subset_rows",
    "subset_values",
    "to_text",
    "with_key",
]
