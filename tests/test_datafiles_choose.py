"""nkcore.datafiles.choose: one file-to-guess pipeline for the Data page and ``data FILE``.

Oracles: the Data page's former rule (``ui/data_flows.py preferred_guess``, transcribed below), the command line's
reading of the same file with ``--item-key`` (``inspect_file``), and the detection itself on files without a key."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from nkcore.datafiles import choose, inspect_file
from nkcore.kinds import KEY_COLUMN, KindGuess, detect_kind, with_key
from tests.conftest import ROOT

SAMPLES = {
    "ratings.csv": "ratings",
    "predictions.csv": "predictions",
    "worked_example_paired.csv": "paired",
    "worked_example_samples.csv": "samples",
}


def _lewidi_like() -> pd.DataFrame:
    """Two datasets whose item ids repeat: only (dataset, item_id) names an item."""
    return pd.DataFrame(
        {
            "dataset": ["A", "A", "A", "B", "B", "B"],
            "item_id": [1, 1, 2, 1, 1, 2],
            "annotator": ["r1", "r2", "r1", "r1", "r2", "r2"],
            "label": ["x", "y", "x", "y", "y", "x"],
        }
    )


def _former_preferred_guess(frame: pd.DataFrame, kind: str) -> KindGuess:
    """The Data page's rule before the move, verbatim."""
    guess = detect_kind(frame, kind)
    mapping = dict(guess.mapping)
    if KEY_COLUMN in frame.columns and kind in ("ratings", "predictions"):
        mapping = {r: c for r, c in mapping.items() if c != KEY_COLUMN}
        mapping["item"] = KEY_COLUMN
    return KindGuess(guess.kind, mapping, guess.confidence, guess.reason, guess.missing, guess.layout)


@pytest.mark.parametrize("kind", ["ratings", "predictions", "paired", "samples"])
def test_preferred_guess_is_the_data_pages_former_rule(kind: str) -> None:
    frames = [pd.read_csv(ROOT / "sample_data" / name) for name in SAMPLES]
    frames.append(with_key(_lewidi_like(), ["dataset", "item_id"]))
    for frame in frames:
        new, old = choose.preferred_guess(frame, kind), _former_preferred_guess(frame, kind)
        assert (new.kind, new.mapping, new.confidence, new.layout) == (
            old.kind,
            old.mapping,
            old.confidence,
            old.layout,
        )


def test_a_built_key_is_the_item_on_the_page_as_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "lewidi.csv"
    _lewidi_like().to_csv(path, index=False)
    cli = inspect_file(path, kind="ratings", item_key="dataset,item_id")
    page = choose.preferred_guess(with_key(_lewidi_like(), ["dataset", "item_id"]), "ratings")
    assert page.mapping == cli["mapping"] == {"item": KEY_COLUMN, "rater": "annotator", "label": "label"}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_guess_kind_agrees_with_the_command_lines_on_files_without_a_key(name: str) -> None:
    frame = pd.read_csv(ROOT / "sample_data" / name)
    page = choose.guess_kind(frame, None, {})
    cli = inspect_file(ROOT / "sample_data" / name)  # the command line's whole pipeline on the same file
    assert page.kind == cli["kind"] == SAMPLES[name]
    assert page.mapping == cli["mapping"]


def test_forced_roles_choose_the_kind_that_has_them() -> None:
    """A file detected as paired results, told its item column: the kind becomes one that has items."""
    frame = pd.read_csv(ROOT / "sample_data" / "worked_example_paired.csv")
    assert detect_kind(frame).kind == "paired"
    keyed = frame.assign(item_key=frame["case"].astype(str))
    guess = choose.guess_kind(keyed, None, {"item": KEY_COLUMN})
    assert guess.kind in ("ratings", "predictions") and guess.mapping["item"] == KEY_COLUMN
    assert "item" not in guess.missing


def test_place_forced_keeps_one_role_per_column_and_the_order() -> None:
    guess = KindGuess("ratings", {"item": "uid", "rater": "who", "label": "item_key"}, 0.5, "r", ("item",))
    placed = choose.place_forced(guess, {"item": "item_key"})
    assert list(placed.mapping.items()) == [("item", "item_key"), ("rater", "who")]
    assert placed.missing == () and placed.kind == "ratings"
    assert choose.place_forced(guess, {}) is guess
