"""What to ship under a latency budget, paying only for accuracy gains the paired test on the same cases supports.

Modules, one idea each:
- ``rule``   the recommendation (:func:`advise`, :class:`Advice`; the rule and its reference in its docstring) and
             what the dearest flat row would cost instead (:func:`dearest_sentence`)
- ``gap``    two rows compared on the same cases (:func:`paired_gap`): McNemar exact p and the exact paired
             bootstrap interval for 0/1 credit, the sign-flip test and the case bootstrap for fractional credit;
             each row's Wilson interval (:func:`row_intervals`)
- ``texts``  the cost table's column help, percentile words, chart captions, method note (:func:`table_note`) and
             the adaptive rule in expectation (:func:`adaptive_expected_sentence`)
"""

from __future__ import annotations

from nkcore.advice.gap import Gap, RowInterval, paired_gap, row_intervals
from nkcore.advice.rule import Advice, advise, dearest_sentence
from nkcore.advice.texts import (
    ACCURACY_CHART_CAPTION,
    ACCURACY_CHART_EXPLAINS,
    COLUMN_HELP,
    LATENCY_CHART_CAPTION,
    PERCENTILE_HELP,
    PERCENTILES,
    adaptive_expected_sentence,
    table_note,
)

__all__ = [
    "ACCURACY_CHART_CAPTION",
    "ACCURACY_CHART_EXPLAINS",
    "COLUMN_HELP",
    "LATENCY_CHART_CAPTION",
    "PERCENTILES",
    "PERCENTILE_HELP",
    "Advice",
    "Gap",
    "RowInterval",
    "adaptive_expected_sentence",
    "advise",
    "dearest_sentence",
    "paired_gap",
    "row_intervals",
    "table_note",
]
