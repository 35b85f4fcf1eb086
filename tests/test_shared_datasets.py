"""Every data file in ../shared/datasets/: stored and reaching every page its kind fits, or refused with a message that
says what the file is and what to do; through ``python -m nkcore data FILE --json`` and through the Data page.

The walk writes docs/shared_datasets.md (file, kind detected, stored or refused, the pages it reaches) once every file
has been walked (``pytest tests/test_shared_datasets.py -m shared``); commit the regenerated file.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nkcore import cli, store
from nkcore.datafiles import derive_files
from nkcore.io import read_table
from nkcore.kinds import subset_values
from tests.app.conftest import clear_streamlit_caches, error_texts, plain
from tests.conftest import ROOT

SHARED = ROOT.parent / "shared" / "datasets"
DOC = ROOT / "docs" / "shared_datasets.md"
DATA_SUFFIXES = (".csv", ".csv.gz", ".jsonl", ".jsonl.gz", ".json.gz", ".tsv", ".parquet")
FILES = (
    sorted(p for p in SHARED.rglob("*") if p.is_file() and p.name.endswith(DATA_SUFFIXES)) if SHARED.is_dir() else []
)
# The pages each kind reaches once stored (the Data page shows every kind), with the query that opens them on it.
PAGES: dict[str, tuple[tuple[str, str, dict[str, str]], ...]] = {
    "ratings": (("Budget", "pages/2_Budget.py", {"bud_src": "Prior fitted to ratings"}),),
    "predictions": (),
    "paired": (("Compare", "pages/3_Compare.py", {}), ("Planner", "pages/6_Planner.py", {})),
    "samples": (("Sampling", "pages/4_Sampling.py", {}), ("Cost & latency", "pages/5_Cost_and_latency.py", {})),
}
# A refusal says what to do: a flag to pass, a column to name or choose, a file to upload instead...
WHAT_TO_DO = re.compile(
    r"--|\bpass\b|\bchoose\b|\bgive\b|\bkeep\b|\bname it\b|\bupload\b|\bdrop\b|\bfix\b|\bflatten\b|\buse\b", re.I
)
# Refusals whose message does not yet say what to do: the test asserts the gap is still there, so fixing it fails
# here and this set must shrink with the fix. Every shared file is now stored or says what it is and what to do.
KNOWN_GAPS: frozenset[str] = frozenset()
# A refusal that suggests one subset of the file: the column it names (each of its values is then read on its own).
SUBSET_FLAG = re.compile(r"--subset ([^=\s]+)=")

pytestmark = [pytest.mark.shared, pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/datasets is absent")]


@dataclass
class Outcome:
    """What happened to one file: the CLI's kind and verdict, the Data page's verdict and the pages it reached."""

    file: str
    cli_kind: str = ""
    cli: str = ""
    page: str = ""
    pages: list[str] = field(default_factory=list)


RESULTS: dict[str, Outcome] = {}


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _cut(text: str, n: int = 160) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= n else text[: n - 1] + "…"


def _cli_outcome(path: Path, rel: str) -> Outcome:
    rc, out, err = _cli("data", str(path), "--json")
    result = Outcome(rel)
    if rc == 0:
        got = json.loads(out)
        result.cli_kind, result.cli = got["kind"], f"stored ({got['n_rows']:,} rows)"
        return result
    assert rc == 2 and err.startswith("error: ") and err.count("\n") == 1, (rc, err)
    message = err[len("error: ") :].strip()
    says_what_to_do = bool(WHAT_TO_DO.search(message))
    assert says_what_to_do == (rel not in KNOWN_GAPS), (rel, message)
    flag = SUBSET_FLAG.search(message)
    if flag:  # several datasets or subsets in one file: each on its own
        column = flag.group(1)
        stored: list[str] = []
        refused: list[str] = []
        for value in subset_values(read_table(path), column):
            rc, out, err = _cli("data", str(path), "--subset", f"{column}={value}", "--json")
            if rc == 0:
                result.cli_kind = result.cli_kind or json.loads(out)["kind"]
                stored.append(value)
            else:
                assert WHAT_TO_DO.search(err), (rel, value, err)
                refused.append(f"{value} ({_cut(err[len('error: ') :], 60)})")
        assert stored, (rel, refused)
        result.cli = f"refused as a whole ({_cut(message, 90)}); stored with --subset {column}={', '.join(stored)}"
        if refused:
            result.cli += f"; refused with --subset: {'; '.join(refused)}"
        return result
    result.cli = f"refused: {_cut(message)}"
    return result


def _page(path: str, query: dict[str, str], timeout: float = 900) -> AppTest:
    clear_streamlit_caches()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.switch_page(path)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _data_page_outcome(path: Path, result: Outcome) -> None:
    at = _page("pages/1_Data.py", {})
    at.file_uploader(key="dat_upload").set_value((path.name, path.read_bytes(), "application/octet-stream"))
    at = at.run()
    assert not at.exception, (result.file, [e.value for e in at.exception])
    if "dat_save" not in [b.key for b in at.button]:
        said = error_texts(at) + [plain(w.value) for w in at.warning]
        assert said, f"{result.file}: neither stored nor explained"
        result.page = f"refused: {_cut(said[0])}"
        return
    before = {m.id for m in store.list_datasets()}
    at = at.button(key="dat_save").click().run()
    assert not at.exception and not error_texts(at), (result.file, error_texts(at))
    new = [m for m in store.list_datasets() if m.id not in before]
    assert new, f"{result.file}: the store button stored nothing"
    kind = new[0].kind
    result.page = f"stored as {kind} ({new[0].n_rows:,} rows" + (f", {len(new)} datasets)" if len(new) > 1 else ")")
    result.pages = ["Data"]
    for name, page, query in PAGES[kind]:
        seen = _page(page, {kind: new[0].id, **query})
        assert not seen.exception, (result.file, name, [e.value for e in seen.exception])
        assert not error_texts(seen), (result.file, name, error_texts(seen))
        result.pages.append(name)


@pytest.fixture(scope="module", autouse=True)
def _write_table() -> Iterator[None]:
    """After the walk, the Markdown table of every file (only when every file was walked)."""
    yield
    if FILES and len(RESULTS) == len(FILES):
        lines = [
            "# The shared datasets in NK Planner",
            "",
            "Generated by `tests/test_shared_datasets.py` (do not edit by hand): each data file under "
            "`../shared/datasets/`, read by `python -m nkcore data FILE --json` (CLI) and uploaded on the Data page "
            "with its default choices (page), and the pages its stored dataset opens on without an error.",
            "",
            "| file | kind detected | CLI | Data page | pages it reaches |",
            "|---|---|---|---|---|",
        ]
        for rel in sorted(RESULTS):
            r = RESULTS[rel]
            lines.append(f"| `{r.file}` | {r.cli_kind or '-'} | {r.cli} | {r.page} | {', '.join(r.pages) or '-'} |")
        DOC.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SHARED)) for p in FILES])
def test_each_file_is_stored_and_reaches_its_pages_or_is_refused_with_what_to_do(path: Path) -> None:
    rel = str(path.relative_to(SHARED))
    result = _cli_outcome(path, rel)
    _data_page_outcome(path, result)
    RESULTS[rel] = result


@pytest.mark.slow
def test_chaosnli_predictions_and_label_counts_derive_paired_results_that_compare_reads() -> None:
    predictions = SHARED / "chaosnli" / "predictions_snli_mnli_baan2022.csv.gz"
    counts = SHARED / "chaosnli" / "label_counts.csv.gz"
    argv = ["data", "derive", "paired", "--predictions", str(predictions), "--ratings", str(counts)]
    rc, out, err = _cli(*argv, "--subset", "snli", "--json")
    assert rc == 0, err
    got = json.loads(out)
    derived = derive_files("paired", predictions, counts, subset="snli")
    assert got["id"] == derived.id and got["configs"] == list(derived.configs) and len(derived.configs) >= 2
    # the accuracy of each run is its share of items whose prediction is the plurality label (a pandas oracle)
    frame = read_table(predictions)
    frame = frame[frame["subset"] == "snli"]
    gold = read_table(counts)
    gold = gold[gold["subset"] == "snli"].set_index("uid")[["count_e", "count_n", "count_c"]]
    top = gold.max(axis=1)
    single = gold.eq(top, axis=0).sum(axis=1) == 1
    plurality = gold.idxmax(axis=1).str.removeprefix("count_")[single]
    kept = set(derived.frame["case"])
    run = derived.configs[0]
    rows = frame[(frame["model_run"] == run) & frame["uid"].isin(kept)]
    expected = (rows["pred_label"].to_numpy() == plurality.loc[rows["uid"]].to_numpy()).mean()
    observed = derived.frame.loc[derived.frame["config"] == run, "correct"].mean()
    assert observed == pytest.approx(expected, abs=1e-12)
    ds_id = store.put(derived.frame, "paired", "chaosnli snli derived").id
    seen = _page("pages/3_Compare.py", {"paired": ds_id, "cmp_mode": "one pair of my choice", "cmp_a": run,
                                        "cmp_b": derived.configs[1]})  # fmt: skip
    assert not seen.exception and not error_texts(seen), error_texts(seen)
