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
- :mod:`nkcore.kinds.values`: cell values as text, cut for messages, in natural order.

``format_rows`` is :func:`nkcore.common.rows.format_rows`, re-exported here for modules that still import it
from ``nkcore.kinds``.
"""

from __future__ import annotations

from nkcore.common.rows import format_rows
from nkcore.kinds.columns import KINDS, ROLE_WORDS, kind_columns, probability_role
from nkcore.kinds.detect import KindGuess, detect_counts, detect_kind
from nkcore.kinds.mapping import apply_mapping
from nkcore.kinds.values import MAX_ANSWER_CHARS, MAX_LABEL_CHARS, natural_order, show_names, show_value, to_text

__all__ = [
    "KINDS",
    "MAX_ANSWER_CHARS",
    "MAX_LABEL_CHARS",
    "ROLE_WORDS",
    "KindGuess",
    "apply_mapping",
    "detect_counts",
    "detect_kind",
    "format_rows",
    "kind_columns",
    "natural_order",
    "probability_role",
    "show_names",
    "show_value",
    "to_text",
]
