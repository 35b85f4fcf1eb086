"""Fuzz every CLI subcommand through ``nkcore.cli.main``: random files and random values for every flag.

Property: exit code 0 or 2; on 2 stderr is exactly one non-empty line with no traceback; on 0 with ``--json`` the
output is strict JSON. Work per example stays small: files of a few KB, ``nk`` with at most 20 rounds.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nkcore.nk.priors import preset_names
from tests.conftest import SAMPLE_DIR
from tests.fuzz.strategies import (
    FLOAT_WORDS,
    CliRun,
    any_file_bytes,
    cell_text,
    check_cli,
    float_args,
    fuzz_settings,
    int_args,
    run_cli,
    text_args,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small valid inputs of each kind (cut from sample_data), an empty file, a directory and a missing path."""
    d = tmp_path_factory.mktemp("cli_inputs")
    samples = pd.read_csv(SAMPLE_DIR / "worked_example_samples.csv")
    samples[samples["case"] <= 12].to_csv(d / "samples.csv", index=False)
    paired = pd.read_csv(SAMPLE_DIR / "worked_example_paired.csv")
    paired[paired["case"] <= 40].to_csv(d / "paired.csv", index=False)
    ratings = pd.read_csv(SAMPLE_DIR / "ratings.csv")
    items = sorted(ratings["item"].unique())[:30]
    ratings[ratings["item"].isin(items)].to_csv(d / "ratings.csv", index=False)
    preds = pd.read_csv(SAMPLE_DIR / "predictions.csv")
    preds[preds["item"].isin(items)].to_csv(d / "predictions.csv", index=False)
    (d / "empty.csv").write_bytes(b"")
    (d / "a_directory").mkdir()
    (d / "fuzzed.csv").write_bytes(b"")
    return {p.stem: p for p in d.iterdir()} | {"missing": d / "missing.csv"}


def _file(files: dict[str, Path], data: st.DataObject, wanted: str) -> str:
    """Mostly the valid file of the kind wanted; sometimes another kind, a fuzzed file, or a bad path."""
    choice = data.draw(
        st.sampled_from((wanted, wanted, wanted, "samples", "paired", "ratings", "predictions", "fuzzed", "bad"))
    )
    if choice == "fuzzed":
        path = files["fuzzed"].with_suffix(data.draw(st.sampled_from((".csv", ".jsonl", ".parquet", ".gz", ""))))
        path.write_bytes(data.draw(any_file_bytes))
        return str(path)
    if choice == "bad":
        bad = data.draw(st.sampled_from(("empty", "a_directory", "missing", "odd name")))
        return str(files["missing"].with_name("no\nsuch\r.csv") if bad == "odd name" else files[bad])
    return str(files[choice])


def _flag(data: st.DataObject, argv: list[str], flag: str, values: st.SearchStrategy[str], p: int = 2) -> None:
    """Add ``flag=value`` with probability 1/p (the = form, so a value like -1 or --json stays a value)."""
    if data.draw(st.integers(0, p - 1)) == 0:
        argv.append(f"{flag}={data.draw(values)}")


def _json(data: st.DataObject, argv: list[str]) -> list[str]:
    if data.draw(st.booleans()):
        argv.append("--json")
    return argv


def _check(argv: list[str]) -> CliRun:
    """Run the CLI and check it (:func:`tests.fuzz.strategies.check_cli`); the run, for the test's own asserts."""
    return check_cli(run_cli(argv))


def _assert_clean(run: CliRun) -> None:
    """The property every run keeps, asserted in the test itself: exit 0 or 2, never a traceback, a message on 2."""
    assert run.code in (0, 2), (run.argv, run.code, run.stderr[-300:])
    assert "Traceback" not in run.stderr, (run.argv, run.stderr[-300:])
    assert run.code == 0 or run.stderr.strip(), run.argv


@fuzz_settings()
@given(data=st.data())
def test_data(files: dict[str, Path], data: st.DataObject) -> None:
    """``data FILE [--kind] [--ratings] [--map ROLE=COLUMN ...]``."""
    argv = ["data", _file(files, data, data.draw(st.sampled_from(("samples", "paired", "ratings", "predictions"))))]
    _flag(data, argv, "--kind", st.sampled_from(("samples", "paired", "ratings", "predictions", "x", "")))
    _flag(data, argv, "--ratings", st.just(_file(files, data, "ratings")), p=3)
    roles = st.sampled_from(("item", "rater", "label", "case", "sample", "answer", "gold", "p_a", "p_", "x", ""))
    columns = st.sampled_from(("item", "rater", "label", "case", "answer", "n=1", "", "nope")) | cell_text
    for _ in range(data.draw(st.integers(0, 3))):
        argv.append(f"--map={data.draw(roles)}={data.draw(columns)}")
    _assert_clean(_check(_json(data, argv)))


@fuzz_settings()
@given(data=st.data())
def test_compare(files: dict[str, Path], data: st.DataObject) -> None:
    """``compare FILE [--a] [--b] [--alpha] [--interval]``."""
    argv = ["compare", _file(files, data, "paired")]
    configs = st.sampled_from(("n=1", "n=3", "n=5", "n=7")) | text_args
    _flag(data, argv, "--a", configs, p=1)
    _flag(data, argv, "--b", configs)
    _flag(data, argv, "--alpha", float_args)
    _flag(data, argv, "--interval", st.sampled_from(("wilson", "clopper-pearson", "exact", "")))
    _assert_clean(_check(_json(data, argv)))


# --cases up to a few thousand (10,000,000 is legal but costs seconds), plus values that must be refused.
cases_args = st.one_of(
    st.integers(-3, 3_000).map(str),
    st.sampled_from(("0", "-1", "10000001", "9" * 30, "1e3", "abc", "")),
)


@fuzz_settings()
@given(data=st.data())
def test_plan(data: st.DataObject) -> None:
    """``plan --cases --discordance [--alpha] [--power] [--target-diff] [--label-error]``."""
    argv = ["plan", f"--cases={data.draw(cases_args)}", f"--discordance={data.draw(float_args)}"]
    _flag(data, argv, "--alpha", float_args)
    _flag(data, argv, "--power", float_args)
    _flag(data, argv, "--target-diff", float_args)
    _flag(data, argv, "--label-error", float_args)
    _assert_clean(_check(_json(data, argv)))


@fuzz_settings(0.5)
@given(data=st.data())
def test_vote(files: dict[str, Path], data: st.DataObject) -> None:
    """``vote FILE [--tie] [--from-n] [--n-boot] [--seed]``."""
    argv = ["vote", _file(files, data, "samples")]
    _flag(data, argv, "--tie", st.sampled_from(("wrong", "split", "first", "last", "")))
    _flag(data, argv, "--from-n", int_args)
    n_boot = st.sampled_from(("100", "100", "150", "99", "0", "-5", "1000001", "9" * 30, "abc", "1e2"))
    argv.append(f"--n-boot={data.draw(n_boot)}")
    _flag(data, argv, "--seed", int_args)
    _assert_clean(_check(_json(data, argv)))


@fuzz_settings()
@given(data=st.data())
def test_fanout(files: dict[str, Path], data: st.DataObject) -> None:
    """``fanout (--latencies FILE | --p50 --p95) [--n ...] [--adaptive] [--topup-share] [--trigger] [--price...]``."""
    argv = ["fanout"]
    if data.draw(st.booleans()):
        argv.append(f"--latencies={_file(files, data, 'samples')}")
        _flag(data, argv, "--p95", float_args, p=5)
    else:
        _flag(data, argv, "--p50", float_args, p=1)
        _flag(data, argv, "--p95", float_args, p=1)
    if data.draw(st.booleans()):
        argv += ["--n", *data.draw(st.lists(int_args.filter(lambda s: not s.startswith("-")), min_size=1, max_size=4))]
    rules = st.sampled_from(("3+2", "1+1", "0+1", "3+0", "1000+1", "99999999999+1", "3 + 2", "3+", "")) | cell_text
    _flag(data, argv, "--adaptive", rules)
    _flag(data, argv, "--topup-share", float_args)
    _flag(data, argv, "--trigger", st.sampled_from(("no_plurality", "no_majority", "split", "x")), p=3)
    _flag(data, argv, "--price-per-call", float_args)
    _flag(data, argv, "--requests-per-month", float_args)
    _assert_clean(_check(_json(data, argv)))


alpha_text = st.one_of(
    st.lists(st.sampled_from(FLOAT_WORDS) | st.floats(0.01, 50).map(repr), min_size=0, max_size=5).map(",".join),
    st.sampled_from(("1.38,1.33", "[3 3 3]", "1;1", ",".join(["1"] * 101), "1e308,1e308", "1e-300,1")),
    cell_text,
)
budget_args = st.one_of(
    st.sampled_from(("100", "250", "60", "1", "5")),
    st.sampled_from(("0", "-1", "1e3", "abc", "1000000000000000", "9" * 30)),
)
k_args = st.sampled_from(("1", "3", "5", "20", "0", "-2", "1000", "100000000000", "abc"))


@fuzz_settings(0.75)
@given(data=st.data())
def test_nk(files: dict[str, Path], data: st.DataObject) -> None:
    """``nk (--prior | --alpha | --ratings [--predictions --models]) (--budget --k | --grid | --min-budget) ...``.

    Rounds stay at most 20 and grids small, so each example is milliseconds to a second.
    """
    argv = ["nk"]
    source = data.draw(st.sampled_from(("prior", "alpha", "ratings", "resample")))
    if source == "prior":
        argv.append(f"--prior={data.draw(st.sampled_from(preset_names()) | text_args)}")
    elif source == "alpha":
        argv.append(f"--alpha={data.draw(alpha_text)}")
    else:
        argv.append(f"--ratings={_file(files, data, 'ratings')}")
        if source == "resample":
            argv.append(f"--predictions={_file(files, data, 'predictions')}")
            _flag(data, argv, "--models", st.sampled_from(("model-a,model-b", "model-a", "a,b,c", "")) | cell_text)
    mode = data.draw(st.sampled_from(("cell", "cell", "grid", "min")))
    if mode == "cell":
        argv += [f"--budget={data.draw(budget_args)}", f"--k={data.draw(k_args)}"]
    else:
        argv.append("--grid" if mode == "grid" else "--min-budget")
        budgets = st.sampled_from(("100,250", "60", "100", "0,100", "-5", "1e9", "abc", "", "100-90")) | cell_text
        ks = st.sampled_from(("1-5", "1,3", "2-10:4", "0", "5-1", "1-1000000000", "x", "")) | cell_text
        argv += [f"--budgets={data.draw(budgets)}", f"--ks={data.draw(ks)}"]
    metrics = st.sampled_from(("acc", "tv", "wins", "kl", "kl_smooth", "js", "ce", "f1", "acc,tv", "x", "", "acc,acc"))
    _flag(data, argv, "--metric", metrics)
    _flag(data, argv, "--eps", float_args)
    _flag(data, argv, "--method", st.sampled_from(("exact", "simulate", "x")))
    _flag(data, argv, "--subset", st.sampled_from(("dataset=A", "A", "=", "item=1", "")) | cell_text, p=4)
    _flag(data, argv, "--item-key", st.sampled_from(("item,rater", "item", "nope", ",", "")) | cell_text, p=4)
    _flag(data, argv, "--keep", st.sampled_from(("first", "last", "x")), p=4)
    argv.append(f"--rounds={data.draw(st.sampled_from(('20', '20', '2', '1', '0', '-3', 'abc')))}")
    _flag(data, argv, "--seed", int_args)
    argv.append(f"--workers={data.draw(st.sampled_from(('1', '1', '2', '0', '-1')))}")
    _assert_clean(_check(_json(data, argv)))


# Argument sets that broke a subcommand once (or are the reason a limit exists): each must answer or refuse in one line.
HOSTILE_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "argparse_newline_word": ("data", "{ratings}", "extra\nword"),
    "argparse_bad_choice_newline": ("compare", "{paired}", "--interval", "wil\rson"),
    "plan_tiny_discordance": ("plan", "--cases", "4", "--discordance", "2.2250738585072014e-308", "--alpha", "1e-300"),
    "plan_target_1e-300": ("plan", "--cases", "1000", "--discordance", "0.5", "--target-diff", "1e-300"),
    "plan_cases_huge": ("plan", "--cases", "9" * 30, "--discordance", "0.06"),
    "plan_nan": ("plan", "--cases", "200", "--discordance", "nan", "--alpha", "nan"),
    "compare_alpha_1e-300": ("compare", "{paired}", "--a", "n=1", "--b", "n=3", "--alpha", "1e-300"),
    "data_map_newline": ("data", "{ratings}", "--map", "item=it\nem"),
    "data_map_role_newline": ("data", "{ratings}", "--map", "ro\rle=item"),
    "vote_from_n_huge": ("vote", "{samples}", "--from-n", "1000000000000", "--n-boot", "100"),
    "vote_n_boot_huge": ("vote", "{samples}", "--n-boot", "9" * 30),
    "fanout_extreme_lognormal": ("fanout", "--p50", "1e-300", "--p95", "1e308"),
    "fanout_n_huge": ("fanout", "--p50", "1", "--p95", "2", "--n", "1000000000"),
    "fanout_adaptive_huge": (
        "fanout",
        "--p50",
        "1",
        "--p95",
        "2",
        "--adaptive",
        "99999999999+1",
        "--topup-share",
        "0.5",
    ),
    "nk_budget_huge": ("nk", "--prior", "Toxicity", "--budget", "1000000000000000", "--k", "1", "--rounds", "20"),
    "nk_k_huge": ("nk", "--prior", "Toxicity", "--budget", "100", "--k", "100000000000", "--rounds", "20"),
    "nk_rounds_huge": ("nk", "--prior", "Toxicity", "--budget", "100", "--k", "5", "--rounds", "1000000000"),
    "nk_alpha_overflow": ("nk", "--alpha", "1e308,1e308", "--budget", "100", "--k", "5", "--rounds", "20"),
    "nk_alpha_101": ("nk", "--alpha", ",".join(["1"] * 101), "--budget", "100", "--k", "5", "--rounds", "20"),
    "nk_ks_huge_range": ("nk", "--prior", "Toxicity", "--grid", "--ks", "1-1000000000", "--rounds", "20"),
    "nk_seed_huge": ("nk", "--prior", "Toxicity", "--budget", "100", "--k", "5", "--rounds", "20", "--seed", "9" * 30),
}


@pytest.mark.parametrize("name", list(HOSTILE_ARGUMENTS))
def test_hostile_arguments(name: str, files: dict[str, Path]) -> None:
    """Each remembered hostile argument set: exit 0 or 2, one line on stderr, strict JSON with --json."""
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in HOSTILE_ARGUMENTS[name]]
    _assert_clean(check_cli(run_cli([*argv, "--json"])))


@fuzz_settings(0.5)
@given(argv=st.lists(st.sampled_from(("data", "compare", "plan", "vote", "fanout", "nk", "--json", "-h")) | text_args))
def test_random_words(argv: list[str]) -> None:
    """Any list of words: argparse refusals are one line too (``-h`` prints help and exits 0)."""
    _assert_clean(_check(argv))
