"""nkcore.store: content-addressed, atomic, restart-proof storage; hostile ids refused before any file access."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from nkcore import store
from nkcore.errors import DataError
from nkcore.io import fingerprint

ROOT = Path(__file__).resolve().parents[1]
FRAME = pd.DataFrame({"item": ["1", "1", "2"], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]})

HOSTILE = [
    "../../etc/passwd",
    "..",
    "",
    "/" + "0" * 63,
    "0" * 63 + "/",
    "0" * 63,
    "0" * 65,
    "0" * 64 + "/../x",
    "0" * 63 + "\n",
    "0" * 63 + "\x00",
    "\x1b[31m" + "0" * 59,
    "A" * 64,  # upper case is not the canonical form
    "g" * 64,
    "0" * 63 + "\u0660",  # ARABIC-INDIC DIGIT ZERO: a digit, but not a hex one
    "f" * 10_000,
    "%2e%2e%2fetc%2fpasswd",
]


def test_put_get_round_trip_and_id_is_the_fingerprint(tmp_path: Path) -> None:
    meta = store.put(FRAME, "ratings", "team ratings.csv", {"item": "item_id"}, root=tmp_path)
    assert meta.id == fingerprint(FRAME) and len(meta.id) == 64
    assert (meta.kind, meta.name, meta.n_rows, meta.columns) == (
        "ratings",
        "team ratings.csv",
        3,
        ("item", "rater", "label"),
    )
    assert meta.mapping == {"item": "item_id"} and meta.created.endswith("+00:00")
    got, frame = store.get(meta.id, root=tmp_path)
    assert got == meta
    pd.testing.assert_frame_equal(frame, FRAME, check_dtype=False)
    assert fingerprint(frame) == meta.id
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{meta.id}.json", f"{meta.id}.parquet"]
    assert json.loads((tmp_path / f"{meta.id}.json").read_text())["kind"] == "ratings"


def test_put_is_idempotent_and_keeps_the_first_metadata(tmp_path: Path) -> None:
    first = store.put(FRAME, "ratings", "first.csv", root=tmp_path)
    again = store.put(FRAME.copy(), "ratings", "second.csv", root=tmp_path)
    assert again == first
    assert len(list(tmp_path.iterdir())) == 2
    other = store.put(FRAME.assign(label=["x", "x", "y"]), "ratings", "other.csv", root=tmp_path)
    assert other.id != first.id


def test_list_filter_and_delete(tmp_path: Path) -> None:
    a = store.put(FRAME, "ratings", "a", root=tmp_path)
    b = store.put(
        pd.DataFrame({"case": ["1", "1"], "config": ["x", "y"], "correct": [1, 0]}), "paired", "b", root=tmp_path
    )
    assert {m.id for m in store.list_datasets(root=tmp_path)} == {a.id, b.id}
    assert [m.id for m in store.list_datasets("paired", root=tmp_path)] == [b.id]
    store.delete(a.id, root=tmp_path)
    assert [m.id for m in store.list_datasets(root=tmp_path)] == [b.id]
    with pytest.raises(DataError, match=f"no dataset {a.id} on this server"):
        store.get(a.id, root=tmp_path)
    with pytest.raises(DataError, match="no dataset"):
        store.delete(a.id, root=tmp_path)


def test_list_skips_junk_incomplete_and_damaged_entries(tmp_path: Path) -> None:
    good = store.put(FRAME, "ratings", "good", root=tmp_path)
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / f"{'1' * 64}.json").write_text("{ not json")
    (tmp_path / f"{'1' * 64}.parquet").write_bytes(b"PAR1")
    (tmp_path / f"{'2' * 64}.parquet").write_bytes(b"PAR1")  # data without metadata: an interrupted put
    assert [m.id for m in store.list_datasets(root=tmp_path)] == [good.id]
    with pytest.raises(DataError, match="damaged"):
        store.get("1" * 64, root=tmp_path)
    assert store.list_datasets(root=tmp_path / "absent") == []


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: pd.DataFrame, path: str, **kwargs: object) -> None:
        Path(path).write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", broken)
    with pytest.raises(OSError, match="disk full"):
        store.put(FRAME, "ratings", "x", root=tmp_path)
    assert list(tmp_path.iterdir()) == []  # no temp file, no half-written dataset


def test_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="unknown data kind"):
        store.put(FRAME, "votes", "x", root=tmp_path)


def test_data_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(store.ENV_VAR, str(tmp_path / "d"))
    assert store.data_dir() == tmp_path / "d"
    meta = store.put(FRAME, "ratings", "x")
    assert (tmp_path / "d" / f"{meta.id}.parquet").is_file()
    monkeypatch.delenv(store.ENV_VAR)
    monkeypatch.chdir(tmp_path)
    assert store.data_dir() == tmp_path / "data"


def test_data_dir_default_is_ignored_by_git() -> None:
    assert "/data/" in (ROOT / ".gitignore").read_text().split()


@pytest.mark.parametrize("bad", HOSTILE, ids=lambda s: repr(s[:20]))
def test_validate_id_refuses_hostile_ids(bad: str) -> None:
    with pytest.raises(DataError) as err:
        store.validate_id(bad)
    msg = str(err.value)
    assert "not a valid dataset id" in msg and len(msg) < 200
    assert "\n" not in msg and "\x00" not in msg and "\x1b" not in msg


@pytest.mark.parametrize("bad", [None, 123, b"0" * 64])
def test_validate_id_refuses_non_strings(bad: object) -> None:
    with pytest.raises(DataError, match="not a valid dataset id"):
        store.validate_id(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", HOSTILE, ids=lambda s: repr(s[:20]))
def test_hostile_ids_are_rejected_before_any_file_access(
    bad: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touched: list[str] = []

    def spy(name: str) -> Callable[..., None]:
        def fail(*args: object, **kwargs: object) -> None:
            touched.append(name)
            raise AssertionError(f"file access via {name} for a hostile id")

        return fail

    monkeypatch.setattr(builtins, "open", spy("open"))
    monkeypatch.setattr(os, "stat", spy("os.stat"))
    monkeypatch.setattr(os, "unlink", spy("os.unlink"))
    for attr in ("is_file", "exists", "stat", "open", "read_text", "read_bytes", "unlink", "glob"):
        monkeypatch.setattr(Path, attr, spy(f"Path.{attr}"))
    monkeypatch.setattr(pd, "read_parquet", spy("pd.read_parquet"))
    for call in (store.get, store.delete):
        with pytest.raises(DataError, match="not a valid dataset id"):
            call(bad, root=tmp_path)
    assert touched == []


def test_traversal_to_a_real_dataset_outside_the_data_dir_is_not_followed(tmp_path: Path) -> None:
    """A valid dataset sits one level above the data dir; '../<name>' would reach it if ids were not validated."""
    outside = store.put(FRAME, "ratings", "secret", root=tmp_path)
    root = tmp_path / "data"
    root.mkdir()
    for name in (f"../{outside.id}", f"..%2f{outside.id}"[:64], f"../{outside.id}"[:64]):
        with pytest.raises(DataError, match="not a valid dataset id"):
            store.get(name, root=root)
        with pytest.raises(DataError, match="not a valid dataset id"):
            store.delete(name, root=root)
    assert store.get(outside.id, root=tmp_path)[0].name == "secret"  # still there, untouched


def _python(code: str, data_dir: Path, *args: str) -> subprocess.Popen[str]:
    """A fresh Python process running ``code`` with NKP_DATA_DIR = ``data_dir`` (a server restart, another worker)."""
    env = {**os.environ, store.ENV_VAR: str(data_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE, text=True)


def _run(code: str, data_dir: Path) -> tuple[int, str]:
    proc = _python(code, data_dir)
    out = proc.communicate(timeout=60)[0]
    return proc.returncode, out


def test_survives_a_restart(tmp_path: Path) -> None:
    """Store in one process, list and read in two fresh processes sharing NKP_DATA_DIR."""
    write = (
        "import pandas as pd; from nkcore import store; "
        "m = store.put(pd.DataFrame({'item': ['1', '2'], 'rater': ['a', 'a'], 'label': ['x', 'y']}), 'ratings', 'r.csv'); "
        "print(m.id)"
    )
    code, out = _run(write, tmp_path)
    assert code == 0
    ds_id = out.strip()
    read = (
        "import sys; from nkcore import store; from nkcore.io import fingerprint; "
        "[m] = store.list_datasets(); meta, f = store.get(m.id); "
        "print(m.id, meta.name, f['label'].tolist(), fingerprint(f) == m.id)"
    )
    assert _run(read, tmp_path) == (0, f"{ds_id} r.csv ['x', 'y'] True\n")
    _meta, frame = store.get(ds_id, root=tmp_path)
    assert frame["item"].tolist() == ["1", "2"]


def test_a_concurrent_put_of_the_same_dataset_in_the_middle_of_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writer A is inside its Parquet write when writer B stores the same table completely: both succeed, the
    dataset is whole and readable at every step, and no temporary file is left."""
    real = pd.DataFrame.to_parquet
    seen: list[list[str]] = []

    def interleaved(self: pd.DataFrame, path: str, **kwargs: object) -> None:
        real(self, path, **kwargs)
        if not seen:  # only writer A's first write: B runs the whole put now
            monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
            b = store.put(FRAME, "ratings", "b.csv", root=tmp_path)
            seen.append([m.id for m in store.list_datasets(root=tmp_path)])
            assert store.get(b.id, root=tmp_path)[1].shape == (3, 3)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", interleaved)
    a = store.put(FRAME, "ratings", "a.csv", root=tmp_path)
    assert seen == [[a.id]]
    meta, frame = store.get(a.id, root=tmp_path)
    assert meta.id == a.id and fingerprint(frame) == a.id
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{a.id}.json", f"{a.id}.parquet"]


def test_parallel_puts_from_two_processes(tmp_path: Path) -> None:
    """Two processes store the same 200,000-row table and two different ones at the same time."""
    code = (
        "import sys, pandas as pd; from nkcore import store; "
        "n = 200_000; f = pd.DataFrame({'item': [str(i // 4) for i in range(n)], 'rater': [str(i % 4) for i in range(n)], "
        "'label': ['x', 'y'] * (n // 2)}); "
        "ids = {store.put(f, 'ratings', 'same.csv').id, store.put(f.iloc[: int(sys.argv[1])], 'ratings', 'own.csv').id}; "
        "print(*sorted(ids))"
    )
    procs = [_python(code, tmp_path, str(n)) for n in (1_000, 2_000)]
    outs = [p.communicate(timeout=60)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    stored = {m.id: m for m in store.list_datasets(root=tmp_path)}
    assert set(outs[0]) | set(outs[1]) == set(stored) and len(stored) == 3
    for ds_id, meta in stored.items():
        assert fingerprint(store.get(ds_id, root=tmp_path)[1]) == ds_id and meta.n_rows in (1_000, 2_000, 200_000)
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_write_killed_half_way_is_ignored_and_swept_later(tmp_path: Path) -> None:
    """A process dies inside the Parquet write (os._exit: no cleanup runs). Its half-written temporary file is not
    a dataset; the next put works, and removes such files once they are an hour old."""
    crash = (
        "import os, pandas as pd; from nkcore import store\n"
        "def dying(self, path, **kw):\n"
        "    open(path, 'wb').write(b'PAR1 half a file'); os._exit(9)\n"
        "pd.DataFrame.to_parquet = dying\n"
        "store.put(pd.DataFrame({'item': ['1', '2'], 'rater': ['a', 'a'], 'label': ['x', 'y']}), 'ratings', 'r.csv')\n"
    )
    assert _run(crash, tmp_path)[0] == 9
    [tmp] = list(tmp_path.glob(".*.tmp"))
    assert store.list_datasets(root=tmp_path) == []
    frame = pd.DataFrame({"item": ["1", "2"], "rater": ["a", "a"], "label": ["x", "y"]})
    with pytest.raises(DataError, match="no dataset"):
        store.get(fingerprint(frame), root=tmp_path)
    meta = store.put(frame, "ratings", "r.csv", root=tmp_path)
    assert tmp.exists()  # too young: it could be a live write of another process
    os.utime(tmp, (0, 0))
    store.put(FRAME, "ratings", "other.csv", root=tmp_path)
    assert not tmp.exists()
    assert fingerprint(store.get(meta.id, root=tmp_path)[1]) == meta.id


def test_metadata_that_does_not_match_its_data_is_damaged(tmp_path: Path) -> None:
    a = store.put(FRAME, "ratings", "a", root=tmp_path)
    b = store.put(FRAME.iloc[:2], "ratings", "b", root=tmp_path)
    (tmp_path / f"{a.id}.parquet").write_bytes((tmp_path / f"{b.id}.parquet").read_bytes())
    with pytest.raises(DataError, match="damaged"):
        store.get(a.id, root=tmp_path)
    (tmp_path / f"{b.id}.json").write_text((tmp_path / f"{a.id}.json").read_text())
    with pytest.raises(DataError, match="damaged"):
        store.get(b.id, root=tmp_path)


def _description(tmp_path: Path) -> str:
    """Store FRAME; return its ``<id>.json`` as put() wrote it, on one line."""
    meta = store.put(FRAME, "ratings", "a", root=tmp_path)
    return json.dumps(json.loads((tmp_path / f"{meta.id}.json").read_text()))


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda text: "[" * 2_000, "the JSON on line 1 is nested more than 64 levels deep"),
        (lambda text: '{"a":' * 2_000 + "1" + "}" * 2_000, "the JSON on line 1 is nested more than 64 levels deep"),
        (lambda text: text[:-1], "not valid JSON"),
        (lambda text: text.replace('"n_rows": 3', '"n_rows": 1e400'), "n_rows is not a whole number"),
        (lambda text: text.replace('"n_rows": 3', '"n_rows": 3.0'), "n_rows is not a whole number"),
        (lambda text: text.replace('"n_rows": 3', '"n_rows": true'), "n_rows is not a whole number"),
        (lambda text: text.replace('"columns": [', '"columns": [{"a": ["b"]}, '), "columns is not a list of names"),
        (lambda text: text.replace('"mapping": {}', '"mapping": {"a": {"b": "c"}}'), "mapping is not"),
        (lambda text: text.replace('"columns": ["item", "rater", "label"]', '"columns": "abc"'), "columns is not"),
        (lambda text: text.replace('"mapping": {}', '"mapping": ["a", "b"]'), "mapping is not"),
        (lambda text: text.replace('"kind": "ratings"', '"kind": 7'), "id, kind or name is not text"),
        (lambda text: text.replace('"n_rows": 3, ', ""), "no n_rows"),
        (lambda text: '["id", "kind"]', "not a JSON object"),
    ],
)
def test_a_damaged_description_is_a_damaged_dataset(tmp_path: Path, edit: Callable[[str], str], reason: str) -> None:
    """Descriptions put() cannot have written (too deep for Python's recursive parser, n_rows infinite or not whole,
    fields of the wrong type): get() says the dataset is damaged and why, in one line; list_datasets() skips it."""
    text = _description(tmp_path)
    assert '"n_rows": 3' in text and '"mapping": {}' in text  # the edits below apply
    (meta_path,) = tmp_path.glob("*.json")
    meta_path.write_text(edit(text))
    with pytest.raises(DataError, match=f"damaged and cannot be read \\(its description: {reason}") as info:
        store.get(meta_path.stem, root=tmp_path)
    assert "\n" not in str(info.value)
    assert store.list_datasets(root=tmp_path) == []


def test_the_description_check_takes_what_put_writes(tmp_path: Path) -> None:
    """Column names and a file name full of brackets, quotes and backslashes are text, not nesting."""
    frame = pd.DataFrame({'[{"a\\': ["1"], "}]]]": ["2"], "\\": ["3"]})
    meta = store.put(frame, "ratings", '[[[{{"\\.csv', mapping={"[": "]]", "\\": '"'}, root=tmp_path)
    assert store.get(meta.id, root=tmp_path)[0] == meta
    assert store.list_datasets(root=tmp_path) == [meta]


def test_a_huge_description_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _description(tmp_path)
    monkeypatch.setattr(store, "_META_MAX_BYTES", len(text) - 1)
    (meta_path,) = tmp_path.glob("*.json")
    meta_path.write_text(text)
    with pytest.raises(DataError, match="its description: over"):
        store.get(meta_path.stem, root=tmp_path)


def test_derived_from_is_kept_and_checked(tmp_path: Path) -> None:
    a = store.put(pd.DataFrame({"item": ["1", "2"], "x": [1, 2]}), "ratings", "a.csv", root=tmp_path)
    b = store.put(pd.DataFrame({"item": ["1", "2"], "y": [1, 2]}), "predictions", "b.csv", root=tmp_path)
    d = store.put(
        pd.DataFrame({"case": ["1"], "config": ["m"], "correct": [1]}),
        "paired",
        "derived",
        root=tmp_path,
        derived_from=(b.id, a.id),
    )
    assert store.get(d.id, root=tmp_path)[0].derived_from == (b.id, a.id)
    assert store.get(a.id, root=tmp_path)[0].derived_from == ()
    with pytest.raises(DataError, match="not a valid dataset id"):
        store.put(pd.DataFrame({"z": [1]}), "paired", "bad", root=tmp_path, derived_from=("../x",))


def test_rename_changes_the_name_not_the_id(tmp_path: Path) -> None:
    frame = pd.DataFrame({"item": ["1", "2"], "x": [1, 2]})
    a = store.put(frame, "ratings", "a.csv", root=tmp_path)
    renamed = store.rename(a.id, "pilot\nratings", root=tmp_path)
    meta, data = store.get(a.id, root=tmp_path)
    assert (renamed.id, meta.name, meta.created) == (a.id, "pilot ratings", a.created)
    pd.testing.assert_frame_equal(data, frame)
    with pytest.raises(DataError, match="no dataset"):
        store.rename("0" * 64, "x", root=tmp_path)


def test_a_deleted_dataset_leaves_a_tombstone_until_it_is_stored_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = pd.DataFrame({"item": ["1", "2"], "x": [1, 2]})
    a = store.put(frame, "ratings", "a.csv", root=tmp_path)
    assert store.deleted_at(a.id, root=tmp_path) is None
    store.delete(a.id, root=tmp_path)
    when = store.deleted_at(a.id, root=tmp_path)
    assert when is not None and when[:4].isdigit() and when >= a.created
    assert [m.id for m in store.list_datasets(root=tmp_path)] == []
    store.put(frame, "ratings", "a.csv", root=tmp_path)
    assert store.deleted_at(a.id, root=tmp_path) is None
    monkeypatch.delenv(store.DELETE_ENV_VAR, raising=False)
    assert not store.delete_allowed()
    monkeypatch.setenv(store.DELETE_ENV_VAR, "1")
    assert store.delete_allowed()
    with pytest.raises(DataError):
        store.deleted_at("../../etc/passwd", root=tmp_path)


@pytest.mark.parametrize("stone", ["[" * 4_000, '{"deleted": ' * 3_000, "not json", '{"deleted": 7}'])
def test_a_damaged_tombstone_reads_as_no_deletion(tmp_path: Path, stone: str) -> None:
    """A tombstone put() cannot have written (nested past Python's recursion limit, not JSON, no date) says
    nothing about the dataset: deleted_at() is None, never a RecursionError."""
    a = store.put(FRAME, "ratings", "a", root=tmp_path)
    store.delete(a.id, root=tmp_path)
    assert store.deleted_at(a.id, root=tmp_path) is not None
    (tmp_path / "deleted" / f"{a.id}.json").write_text(stone)
    assert store.deleted_at(a.id, root=tmp_path) is None
