"""Build ``python -m nkcore judge`` files from three shared datasets (docs/judge.md, "Real data"), in a folder given.

Each dataset has a human label on every case; a team would have them on a slice only. The converter keeps the human
score on a seeded random share of each config's cases (configs sharing cases keep their labels on the same cases) and
writes one row per (case, config): ``case``, ``config``, the judge column(s), ``human`` (empty where hidden),
``human_all`` (every human score, for checking: never given to the CLI). Nothing is copied into the project: the
files go to the folder given (a temporary one in the tests).

- ``pandalm``: PandaLM's test set; config = "model_1 vs model_2" (10 pairs); score = response 1 better (1 / 2 / 0 =
  tie, ``--scale pairwise``); judges ``judge_gpt35`` (25 empty verdicts: ``--fill-missing-judge``) and
  ``judge_pandalm7b``; human = ``human_majority``; no case column (each item belongs to one pair).
- ``hanna``: HANNA, one criterion (Coherence by default); case = prompt_index (the 96 prompts every system wrote
  for), config = system (11), judges ``chatgpt_p1`` and ``beluga13b_p1`` (values below 1 are missing, README;
  ``--fill-missing-judge``), human = ``human_mean`` (mean of 3 raters, 1-5).
- ``llmbar``: LLMBar's 885 items in 8 subsets; config = subset; judges = four judge configs' verdicts without swap
  (``winner_noswap``, 1 / 2; an empty verdict is filled), human = ``gold_label``; no case column (each item
  belongs to one subset). Score = output 1 better.

Usage: ``python -m benchmarks.judge_shapes OUT_DIR`` writes the three files and prints the CLI command for each.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
HUMAN_SHARE = 0.25
SEED = 55
LLMBAR_JUDGES = (
    "GPT-4/Metrics_Reference",
    "ChatGPT/Vanilla_NoRules",
    "LLaMA2/Vanilla_NoRules",
    "PaLM2/Vanilla_NoRules",
)


@dataclass(frozen=True)
class JudgeFile:
    """A built file and the CLI arguments that read it (after the file name)."""

    name: str
    path: Path
    args: tuple[str, ...]


def _mask(f: pd.DataFrame, share: float, seed: int, by_config: bool) -> np.ndarray:
    """Which rows keep their human score: ``share`` of each config's cases (``by_config``: configs with cases of
    their own) or of all cases (configs sharing cases keep their labels on the same cases)."""
    rng = np.random.default_rng(seed)
    keep = np.zeros(len(f), dtype=bool)
    groups = f.groupby("config").indices.values() if by_config else [np.arange(len(f))]
    for rows in groups:
        cases = f["case"].to_numpy()[rows]
        uniq = np.unique(cases)
        chosen = rng.choice(uniq, size=max(2, round(share * len(uniq))), replace=False)
        keep[rows] = np.isin(cases, chosen)
    return keep


def pandalm(out: Path, share: float = HUMAN_SHARE, seed: int = SEED) -> JudgeFile:
    """PandaLM's test set as a pairwise judge file (module docstring)."""
    raw = pd.read_csv(DATASETS / "pandalm_testset" / "pandalm_testset.csv.gz", keep_default_na=True)
    f = pd.DataFrame(
        {
            "case": raw["item_id"],
            "config": raw["model_1"] + " vs " + raw["model_2"],
            "judge_gpt35": raw["judge_gpt35"].astype("Int64"),
            "judge_pandalm7b": raw["judge_pandalm7b"].astype("Int64"),
            "human_all": raw["human_majority"].astype("Int64"),
        }
    )
    f["human"] = f["human_all"].where(_mask(f, share, seed, by_config=True))
    path = out / "pandalm_judge.csv"
    f.to_csv(path, index=False)
    args = (
        "--judge-column",
        "judge_gpt35",
        "--judge-column",
        "judge_pandalm7b",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--scale",
        "pairwise",
        "--fill-missing-judge",
    )
    return JudgeFile("pandalm_testset", path, args)


def hanna(out: Path, share: float = HUMAN_SHARE, seed: int = SEED, criterion: str = "Coherence") -> JudgeFile:
    """HANNA, one criterion, as a judge file on the 1-5 scale (module docstring)."""
    raw = pd.read_csv(DATASETS / "hanna_story_eval" / "hanna_ratings_long.csv.gz")
    raw = raw[raw["criterion"] == criterion]
    f = pd.DataFrame(
        {
            "case": raw["prompt_index"],
            "config": raw["system"],
            "chatgpt_p1": raw["chatgpt_p1"].where(raw["chatgpt_p1"] >= 1),
            "beluga13b_p1": raw["beluga13b_p1"].where(raw["beluga13b_p1"] >= 1),
            "human_all": raw["human_mean"],
        }
    )
    f["human"] = f["human_all"].where(_mask(f, share, seed, by_config=False))
    path = out / f"hanna_{criterion.lower()}_judge.csv"
    f.to_csv(path, index=False)
    args = (
        "--judge-column",
        "chatgpt_p1",
        "--judge-column",
        "beluga13b_p1",
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--case-column",
        "case",
        "--fill-missing-judge",
    )
    return JudgeFile("hanna_story_eval", path, args)


def llmbar(out: Path, share: float = HUMAN_SHARE, seed: int = SEED) -> JudgeFile:
    """LLMBar's items in their subsets, four judges' verdicts, gold labels as the human (module docstring)."""
    raw = pd.read_csv(DATASETS / "llmbar_judge_configs" / "llmbar_verdicts_long.csv.gz")
    raw = raw[raw["config"].isin(LLMBAR_JUDGES)]
    wide = raw.pivot(index=["item_id", "subset", "gold_label"], columns="config", values="winner_noswap")
    wide = wide.reset_index()
    f = pd.DataFrame({"case": wide["item_id"], "config": wide["subset"]})
    for j in LLMBAR_JUDGES:
        f[j] = wide[j].astype("Int64")
    f["human_all"] = wide["gold_label"].astype("Int64")
    f["human"] = f["human_all"].where(_mask(f, share, seed, by_config=True))
    path = out / "llmbar_judge.csv"
    f.to_csv(path, index=False)
    args = (
        *tuple(a for j in LLMBAR_JUDGES for a in ("--judge-column", j)),
        "--human-column",
        "human",
        "--config-column",
        "config",
        "--scale",
        "pairwise",
        "--fill-missing-judge",
    )
    return JudgeFile("llmbar_judge_configs", path, args)


BUILDERS = (pandalm, hanna, llmbar)


def main(argv: list[str]) -> int:
    """Write the three files into ``argv[0]`` and print the commands."""
    out = Path(argv[0]) if argv else Path(".")
    out.mkdir(parents=True, exist_ok=True)
    for build in BUILDERS:
        jf = build(out)
        print(f"python -m nkcore judge {jf.path} " + " ".join(f"'{a}'" if "/" in a else a for a in jf.args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
