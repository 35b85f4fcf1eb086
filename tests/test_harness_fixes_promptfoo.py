"""Issue 51, promptfoo: error notes name the provider and count only the configs compared; invisible characters
leave provider names; an errored result drops nothing else.

Inputs: ``tests/data/promptfoo/results.json`` (written by promptfoo 0.121.20: three providers, one result with
``failureReason`` 2; see its README) and ``results-guesser.json`` (the labelled provider alone, the same
deterministic provider run again), and documents built with :func:`tests.test_harness.pf_result`. Oracles: counts
and answers read from the JSON with ``json`` and plain Python; the guesser's own file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nkcore.cli import main
from nkcore.harness import read_harness
from tests.test_harness import pf_document, pf_result

DATA = Path(__file__).resolve().parent / "data" / "promptfoo"
RESULTS = DATA / "results.json"
GUESSER = DATA / "results-guesser.json"
ERROR = 2  # failureReason of a provider error


def _doc(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _names(doc: dict[str, Any]) -> dict[int, str]:
    """promptIdx -> config name by hand (one prompt: column i is config.providers[i]; skill tells the two apart)."""
    return {
        i: p.get("label") or f"{p['id']} (skill={p['config']['skill']})"
        for i, p in enumerate(doc["config"]["providers"])
    }


def _errors_by_hand(doc: dict[str, Any]) -> dict[str, int]:
    names = _names(doc)
    out = dict.fromkeys(names.values(), 0)
    for r in doc["results"]["results"]:
        out[names[r["promptIdx"]]] += r.get("failureReason") == ERROR
    return out


def _compare(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["compare", *argv, "--json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_the_error_note_names_the_provider_and_only_the_compared_configs_are_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    errors = _errors_by_hand(_doc(RESULTS))
    failing = [c for c, n in errors.items() if n]
    clean = [c for c, n in errors.items() if not n]
    assert len(failing) == 1 and len(clean) == 2  # the file: one provider errs
    res = read_harness([(RESULTS.name, RESULTS.read_bytes())])
    assert dict(zip(res.configs, res.errors, strict=True)) == errors
    said = [n for n in res.notes if "ended in an error" in n]
    assert said == [
        f"{failing[0]}: {errors[failing[0]]} result ended in an error (the provider failed; counted as wrong)"
    ]
    # two providers without errors: nothing about errors
    doc = _compare(capsys, str(RESULTS), "--a", clean[0], "--b", clean[1])
    assert not any("error" in n for n in doc.get("notes", []))
    # the failing provider compared: its note, naming it
    doc = _compare(capsys, str(RESULTS), "--a", failing[0], "--b", clean[0])
    assert [n for n in doc["notes"] if "ended in an error" in n] == said
    # the text output prints it once, as a note
    assert main(["compare", str(RESULTS), "--a", failing[0], "--b", clean[0]]) == 0
    out = capsys.readouterr().out
    assert out.count("ended in an error") == 1 and f"note: {said[0]}" in out


def test_each_provider_with_errors_is_named_with_its_own_count(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fails = {"a": [0, 2], "b": [], "c": [1]}  # provider -> tests whose call ended in an error
    results = []
    for p, bad in fails.items():
        for i in range(4):
            r = pf_result(i, p, i % 2 == 0, {"q": i})
            if i in bad:
                r.update(success=False, failureReason=ERROR, error="timeout", response={"error": "timeout"})
            results.append(r)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(pf_document(results)))
    res = read_harness([(path.name, path.read_bytes())])
    expected = {p: f"{p}: {len(b)} result{'s' if len(b) != 1 else ''} ended in an error" for p, b in fails.items() if b}
    said = [n for n in res.notes if "ended in an error" in n]
    assert [n.split(" (")[0] for n in said] == list(expected.values())
    doc = _compare(capsys, str(path), "--a", "a", "--b", "b")
    assert [n.split(" (")[0] for n in doc["notes"] if "ended in an error" in n] == [expected["a"]]
    doc = _compare(capsys, str(path), "--a", "b", "--b", "c")
    assert [n.split(" (")[0] for n in doc["notes"] if "ended in an error" in n] == [expected["c"]]


@pytest.mark.parametrize("mark", ["\u2060", "\u200b", "\u200c", "\u200d", "\ufeff", "\u2061", "\u2064"])
def test_invisible_characters_leave_provider_names(
    mark: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mini, full = [1, 0, 1, 1], [1, 1, 1, 0]
    results = [pf_result(i, f"openai:gpt-4o-mini{mark}", bool(v), {"q": i}) for i, v in enumerate(mini)]
    results += [pf_result(i, f"{mark}openai:gpt-4o", bool(v), {"q": i}) for i, v in enumerate(full)]
    for r in results[len(mini) :]:
        r["provider"]["label"] = f"gpt-4o{mark}"  # a label wins over the id, and loses its mark too
    path = tmp_path / "results.json"
    path.write_text(json.dumps(pf_document(results)))
    res = read_harness([(path.name, path.read_bytes())])
    assert res.configs == ("openai:gpt-4o-mini", "gpt-4o")
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\\u" not in out and mark not in out and "openai:gpt-4o-mini -> gpt-4o" in out


def test_an_errored_result_drops_nothing_else() -> None:
    """The sloppy provider's error (no output) costs it its answers in the vote (graded as right/wrong); the other
    providers keep theirs, equal to the outputs in the file and to the guesser's own file read alone."""
    doc = _doc(RESULTS)
    names = _names(doc)
    res = read_harness([(RESULTS.name, RESULTS.read_bytes())])
    assert res.evaluation is not None and len(res.evaluation) == len(doc["results"]["results"])  # every result kept
    assert res.paired is not None and len(res.paired) == len(doc["results"]["results"])
    for idx, config in names.items():
        mine = [r for r in doc["results"]["results"] if r["promptIdx"] == idx]
        view = res.samples_view(config)
        assert view.frame is not None and len(view.frame) == len(mine)  # the errored result is a wrong sample
        assert view.frame["correct"].sum() == sum(r["success"] for r in mine)
        has_error = any(r.get("failureReason") == ERROR for r in mine)
        assert ("answer" in view.frame.columns) is not has_error
        if not has_error:
            outputs = sorted(r["response"]["output"].strip() for r in mine)
            assert sorted(view.frame["answer"]) == outputs
    alone = read_harness([(GUESSER.name, GUESSER.read_bytes())]).samples_view("guesser").frame
    together = res.samples_view("guesser").frame
    assert alone is not None and together is not None
    cols = ["case", "sample", "correct", "answer"]
    assert together[cols].reset_index(drop=True).equals(alone[cols].reset_index(drop=True))
