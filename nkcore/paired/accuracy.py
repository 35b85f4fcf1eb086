"""The accuracy of one config on its cases, with its interval: the one ``ConfigAccuracy`` of nkcore.

The interval of a single proportion comes from :mod:`nkcore.common.intervals` (Wilson by default, or
Clopper-Pearson). The same record serves the paired comparison (accuracy over the paired cases) and the data
summary (accuracy of each config over the cases it was run on).
"""

from __future__ import annotations

from dataclasses import dataclass

from nkcore.common.intervals import interval_name, proportion_interval
from nkcore.paired.table import PairedTable

__all__ = ["ConfigAccuracy", "accuracy_of", "config_accuracy"]


@dataclass(frozen=True, slots=True)
class ConfigAccuracy:
    """Accuracy of one config: ``correct`` of ``n`` cases, with a ``confidence`` interval (``method``).

    ``n_correct`` and ``n_cases`` are the same two counts under the names the data summary uses.
    """

    config: str
    correct: int
    n: int
    accuracy: float
    ci_low: float
    ci_high: float
    method: str  # "wilson" or "clopper-pearson"

    @property
    def n_correct(self) -> int:
        """Cases this config got right (``correct``)."""
        return self.correct

    @property
    def n_cases(self) -> int:
        """Cases the accuracy is over (``n``)."""
        return self.n

    @property
    def method_name(self) -> str:
        """The interval's name in words (:func:`nkcore.common.intervals.interval_name`): "Wilson", or what replaces
        it near 0 or 100% and under 40 cases."""
        return interval_name(self.method, self.correct, self.n)


def accuracy_of(config: str, correct: int, n: int, confidence: float = 0.95, method: str = "wilson") -> ConfigAccuracy:
    """The accuracy ``correct / n`` of one config with its interval (:func:`nkcore.common.intervals.proportion_interval`).

    ``method``: "wilson" (default; Wilson 1927, JASA 22:209, with Clopper-Pearson's end when 4 or fewer cases are
    right or wrong and Clopper-Pearson under 40 cases: :func:`nkcore.common.intervals.wilson_exact_ends`) or "clopper-pearson" (also "exact", "beta"; Clopper &
    Pearson 1934, Biometrika 26:404). DataError unless 0 <= correct <= n and n > 0.

    >>> a = accuracy_of("n=5", 158, 200)
    >>> a.accuracy, round(a.ci_low, 4), round(a.ci_high, 4), a.method
    (0.79, 0.7284, 0.8407, 'wilson')
    """
    lo, hi = proportion_interval(correct, n, confidence, method)
    return ConfigAccuracy(
        config, correct, n, correct / n, lo, hi, "wilson" if method == "wilson" else "clopper-pearson"
    )


def config_accuracy(table: PairedTable, confidence: float = 0.95, method: str = "wilson") -> tuple[ConfigAccuracy, ...]:
    """Accuracy of each config over the paired cases, with its marginal interval (see :func:`accuracy_of`).

    >>> from nkcore.paired import paired_table_from_counts
    >>> [a.correct for a in config_accuracy(paired_table_from_counts("A", "B", 151, 5, 7, 37))]
    [156, 158]
    """
    n = table.n_cases
    return tuple(
        accuracy_of(cfg, int(table.correct[:, j].sum()), n, confidence, method) for j, cfg in enumerate(table.configs)
    )
