"""The judge report as a JSON-ready document (``python -m nkcore judge --json``; the page's download).

Contract (issue 55; keys are added, never renamed): ``configs``, a list of objects with ``config``, ``n_cases``,
``n_human``, ``ppi_mean``, ``ci_low``, ``ci_high``, ``human_only_mean``, ``human_only_ci_low``,
``human_only_ci_high``, ``judge_only_mean``, ``effective_human_labels``; and ``verdict``. Added: per config ``se``,
``lambda``, ``judge_only_ci_low`` / ``_high``, ``bias`` with ``bias_ci_low`` / ``_high``; ``judge``, ``judges``,
``scale``, ``level``, ``interval`` ("ppi++" when every config used the normal interval, "ppi++ (t, small-sample)" when
every one used t, "mixed" otherwise), ``interval_choice`` ("auto", "normal" or "t"), per config ``interval``
("normal" or "t"), ``less_reliable`` (False since the sparse-verdict adjustment: no measured cell is below 93%),
``sparse_note`` (why the widened sparse-verdict interval is used, "" otherwise), ``interval_method`` (the
interval's name: "ppi++", "ppi++ (t, small-sample)", "ppi++ (sparse verdicts, pseudo-count)" or "humans only
(exact)"), per pair ``interval``,
``pairs`` (corrected paired differences), ``bias_differs`` and ``bias_tests`` (the most
different pairs first, at most :data:`MAX_BIAS_TESTS`), ``flips``, ``subset_check``, ``plan``, ``panel`` (several
judges), ``notes``, ``method``. Numbers are on the human scale; NaN and infinities become null.
"""

from __future__ import annotations

from typing import Any

from nkcore.judge.report import JudgeReport

__all__ = ["MAX_BIAS_TESTS", "METHOD", "judge_doc"]

MAX_BIAS_TESTS = 20
"""At most this many bias comparisons are listed (smallest adjusted p first)."""
METHOD = (
    "PPI++ (Angelopoulos, Duchi & Zrnic 2023): mean of the human scores corrected with the judge's scores on every "
    "case, power-tuned lambda clipped to [0, 1] (never wider than humans only), normal interval from 50 human labels, "
    "t interval (n - 1 variances, t quantile) below; human verdicts with fewer than 10 of one value or of "
    "judge-human disagreements: z^2/4 pseudo-cases per (human 0/1) x (judge lowest/highest) cell (Agresti-Coull "
    "style), or the humans-only Clopper-Pearson interval when no wider; paired differences "
    "by PPI++ on per-case differences; judge bias = mean(judge - human) on labelled cases, t intervals, Holm across "
    "config pairs; plan: Var = sigma^2/n (1 - rho^2 N/(n + N)), cheapest split as ppi_py.ppi_power"
)


def _config(c: Any) -> dict[str, Any]:
    return {
        "config": c.config,
        "n_cases": c.n_cases,
        "n_human": c.n_human,
        "ppi_mean": c.ppi.estimate,
        "ci_low": c.ppi.ci_low,
        "ci_high": c.ppi.ci_high,
        "human_only_mean": c.human_only.estimate,
        "human_only_ci_low": c.human_only.ci_low,
        "human_only_ci_high": c.human_only.ci_high,
        "judge_only_mean": c.judge_only.estimate,
        "effective_human_labels": c.effective_human_labels,
        "se": c.ppi.se,
        "lambda": c.ppi.lam,
        "humans_only_used": c.ppi.fallback,
        "judge_only_ci_low": c.judge_only.ci_low,
        "judge_only_ci_high": c.judge_only.ci_high,
        "bias": c.bias.estimate,
        "bias_ci_low": c.bias.ci_low,
        "bias_ci_high": c.bias.ci_high,
        "interval": c.interval,
        "less_reliable": c.less_reliable,
        "sparse_note": c.sparse_note,
        "interval_method": c.ppi.method,
    }


def _pair(p: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "config_a": p.config_a,
        "config_b": p.config_b,
        "paired": p.paired,
        "n_cases": p.n_cases,
        "n_human": p.n_human,
        "ppi_difference": p.ppi.estimate,
        "ci_low": p.ppi.ci_low,
        "ci_high": p.ppi.ci_high,
        "p_value": p.p_value,
        "effective_human_labels": p.effective_human_labels,
        "interval": p.interval,
    }
    if p.human_only is not None:
        out |= {
            "human_only_difference": p.human_only.estimate,
            "human_only_ci_low": p.human_only.ci_low,
            "human_only_ci_high": p.human_only.ci_high,
        }
    if p.judge_only is not None:
        out |= {"judge_only_difference": p.judge_only.estimate, "judge_only_p_value": p.judge_only_p_value}
    return out


def _plan(report: JudgeReport) -> dict[str, Any] | None:
    plan = report.plan
    if plan is None:
        return None
    lp = plan.labels
    out: dict[str, Any] = {
        "rho": plan.pilot.rho,
        "sigma_human": plan.pilot.sigma_human,
        "target_half_width": plan.target_half_width,
        "level": plan.confidence,
        "n_cases": plan.n_cases,
        "human_only_labels": lp.human_only_labels,
        "ppi_labels": lp.ppi_labels,
        "saving": lp.saving,
        "max_saving": lp.max_saving,
    }
    if plan.split is not None:
        s = plan.split
        out["split"] = {
            "price_human": s.price_human,
            "price_judge": s.price_judge,
            "n_human": s.n_human,
            "judge_calls": s.judge_calls,
            "cost": s.cost,
            "human_only_cost": s.human_only_cost,
            "saving": s.saving,
            "uses_judge": s.uses_judge,
        }
    return out


def _panel(report: JudgeReport) -> dict[str, Any] | None:
    panel = report.panel
    if panel is None:
        return None
    ds = panel.dawid_skene
    return {
        "judges": [
            {
                "judge": s.judge,
                "n_human": s.n_human,
                "correlation": s.correlation,
                "bias": s.bias,
                "mae": s.mae,
                "agreement": s.agreement,
                "effective_human_labels": s.effective_human_labels,
            }
            for s in panel.judges
        ],
        "pairs": [
            {
                "judge_a": p.judge_a,
                "judge_b": p.judge_b,
                "correlation": p.correlation,
                "agreement": p.agreement,
                "error_correlation": p.error_correlation,
            }
            for p in panel.pairs
        ],
        "mean_error_correlation": panel.mean_error_correlation,
        "effective_judges": panel.effective_judges,
        "best_judge": panel.best_judge,
        "combined_effective_human_labels": panel.combined_effective_human_labels,
        "dawid_skene": None
        if ds is None
        else {
            "quality": [{"judge": j, "quality": q} for j, q in ds.quality],
            "n_human": ds.n_human,
            "accuracy": ds.accuracy,
            "plurality_accuracy": ds.plurality_accuracy,
            "best_judge": ds.best_judge,
            "best_judge_accuracy": ds.best_judge_accuracy,
        },
    }


def _interval(report: JudgeReport) -> str:
    methods = {c.ppi.method for c in report.configs}
    return methods.pop() if len(methods) == 1 else "mixed"


def judge_doc(report: JudgeReport) -> dict[str, Any]:
    """The report as plain JSON values (module docstring for the keys); NaN stays NaN here (``print_json`` writes
    null)."""
    tests = sorted(report.bias.tests, key=lambda t: (t.p_holm, t.p_value))[:MAX_BIAS_TESTS]
    sc = report.subset
    return {
        "judge": report.judge,
        "judges": list(report.table.judges),
        "scale": report.table.scale,
        "level": report.confidence,
        "interval": _interval(report),
        "interval_choice": report.interval,
        "n_configs": len(report.configs),
        "configs": [_config(c) for c in report.configs],
        "pairs": [_pair(p) for p in report.pairs],
        "bias_differs": report.bias.differs,
        "bias_tests": [
            {
                "config_a": t.config_a,
                "config_b": t.config_b,
                "difference": t.difference,
                "ci_low": t.ci_low,
                "ci_high": t.ci_high,
                "p_value": t.p_value,
                "p_holm": t.p_holm,
                "n": t.n,
                "test": t.test,
            }
            for t in tests
        ],
        "flips": [list(f) for f in report.flips],
        "subset_check": {
            "difference": sc.difference,
            "p_value": sc.p_value,
            "n_labelled": sc.n_labelled,
            "n_unlabelled": sc.n_unlabelled,
            "looks_random": sc.looks_random,
        },
        "plan": _plan(report),
        "panel": _panel(report),
        "verdict": report.verdict,
        "notes": list(report.notes),
        "method": METHOD,
    }
