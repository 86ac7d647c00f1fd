"""The public API: every name of ``ucdcr.__all__``; build on a tiny ECB+ raw folder (tests/fixtures/raw/ecbplus.py);
load, list_datasets, the tables and evaluate on a tiny built dataset (tests/fixtures/tiny_dataset.py); py.typed."""

from __future__ import annotations

import ast
import inspect
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.conftest import require_module
from tests.fixtures import tiny_dataset as tiny
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from typer.testing import CliRunner

import ucdcr
from ucdcr.api import list_datasets, load
from ucdcr.cli.app import app
from ucdcr.errors import FormatError, MissingRawData, UcdcrError, UnknownDatasetError
from ucdcr.pipeline.build import BuildReport
from ucdcr.report.tables import render
from ucdcr.schema import DOCUMENT_SCHEMA, LIST_FIELDS, MENTION_SCHEMA

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    tiny.write_tiny_dataset(tmp_path / "np4e")
    return tmp_path


def test_load_mentions_by_id_has_the_schema_and_every_row(data_dir: Path) -> None:
    table = load("np4e", data_dir=data_dir)
    assert table.schema == MENTION_SCHEMA
    assert table.num_rows == len(tiny.MENTIONS) == 13


def test_load_filters_by_split(data_dir: Path) -> None:
    # tiny_dataset: d1 + d2 (train) hold 4 + 4 mentions, d3 + d4 (test) 4 + 1; val is empty.
    assert load("np4e", split="train", data_dir=data_dir).num_rows == 8
    assert load("np4e", split="test", data_dir=data_dir).num_rows == 5
    assert load("np4e", split="val", data_dir=data_dir).num_rows == 0


def test_load_documents(data_dir: Path) -> None:
    table = load("np4e", kind="documents", data_dir=data_dir)
    assert table.schema == DOCUMENT_SCHEMA
    # tokens: d1 7+4, d2 5+6, d3 7+7, d4 7 = 43
    assert table.num_rows == 43
    assert load("np4e", kind="documents", split="test", data_dir=data_dir).num_rows == 21


def test_load_mention_type_reads_the_event_files(data_dir: Path) -> None:
    events = load("np4e", mention_type="event", data_dir=data_dir)
    # VISIT, MEET, FIRE x3
    assert sorted(events["coref_chain"].to_pylist()) == ["FIRE", "FIRE", "FIRE", "MEET", "VISIT"]
    assert events.schema == MENTION_SCHEMA
    assert load("np4e", mention_type="entity", split="test", data_dir=data_dir).num_rows == 2


def test_load_a_folder_in_the_authors_repr_string_format(tmp_path: Path, data_dir: Path) -> None:
    ours = load(data_dir / "np4e")
    theirs = ours.append_column("__index_level_0__", ours["mention_id"])
    for name in LIST_FIELDS:
        reprs = pa.array([repr(value) for value in ours[name].to_pylist()])
        theirs = theirs.set_column(theirs.column_names.index(name), name, reprs)
    # the authors' folder name; NP4E mentions are all entities (docs/unified-format.md#event-and-entity-files)
    folder = tmp_path / "NP4E"
    folder.mkdir()
    pq.write_table(theirs, folder / "all_mentions.parquet")
    loaded = load(folder)
    assert loaded.schema == MENTION_SCHEMA
    assert loaded.sort_by("mention_id").equals(ours.sort_by("mention_id"))


def test_bad_list_string_names_file_and_field(tmp_path: Path) -> None:
    folder = tmp_path / "np4e"
    folder.mkdir()
    table = pa.Table.from_pylist(tiny.mention_records()[:1], schema=MENTION_SCHEMA)
    table = table.set_column(table.column_names.index("tokens_text"), "tokens_text", pa.array(["[oops"]))
    pq.write_table(table, folder / "all_mentions.parquet")
    with pytest.raises(FormatError, match=r"all_mentions.parquet.*tokens_text"):
        load(folder)


def test_list_datasets_lists_every_id_or_the_built_ones(data_dir: Path) -> None:
    assert len(list_datasets()) == 12  # the 12 uCDCR datasets (paper Table 1)
    assert list_datasets(data_dir, built_only=True) == ["np4e"]


def test_errors_name_the_problem(data_dir: Path) -> None:
    with pytest.raises(UnknownDatasetError, match="valid ids"):
        load("no_such_dataset", data_dir=data_dir)
    with pytest.raises(UcdcrError, match="not built"):
        load("ecbplus", data_dir=data_dir)
    with pytest.raises(UcdcrError, match="unknown split"):
        load("np4e", split="dev", data_dir=data_dir)


def test_parquet_loads_unchanged_with_hugging_face_datasets(data_dir: Path) -> None:
    hf = require_module("datasets", "hf")
    dataset = hf.Dataset.from_parquet(str(data_dir / "np4e" / "all_mentions.parquet"))
    assert dataset.num_rows == 13
    assert dataset[0]["tokens_text"] == ["Obama"]


def test_load_selected_columns(data_dir: Path) -> None:
    table = load("np4e", split="test", columns=["mention_id", "coref_chain"], data_dir=data_dir)
    assert table.column_names == ["mention_id", "coref_chain"] and table.num_rows == 5


def test_hidden_staging_and_old_folders_are_not_datasets(data_dir: Path) -> None:
    # a build stages into ".<dataset>.<something>" beside the dataset folder and retires the old one there
    tiny.write_tiny_dataset(data_dir / ".ecbplus.building-abc")
    tiny.write_tiny_dataset(data_dir / ".np4e.old-123")
    assert list_datasets(data_dir, built_only=True) == ["np4e"]
    with pytest.raises(UcdcrError, match="dataset 'ecbplus' is not built"):
        load("ecbplus", data_dir=data_dir)
    assert load("np4e", data_dir=data_dir).num_rows == 13


def test_a_data_dir_that_is_a_file_says_so(tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("")
    with pytest.raises(UcdcrError, match=r"data dir .*data is a file, not a folder"):
        load("np4e", data_dir=a_file)
    with pytest.raises(UcdcrError, match=r"data dir .*data is a file, not a folder"):
        list_datasets(a_file, built_only=True)
    assert list_datasets(tmp_path / "nowhere", built_only=True) == []  # nothing built yet
    with pytest.raises(UcdcrError, match=r"data is a file, not a dataset folder or a dataset id"):
        load(a_file)


def test_an_id_is_not_hidden_by_a_non_dataset_folder_of_that_name(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "cwd"
    (elsewhere / "np4e").mkdir(parents=True)  # e.g. the raw NP4E download in the working directory
    monkeypatch.chdir(elsewhere)
    assert load("np4e", data_dir=data_dir).num_rows == 13


def test_broken_document_table_is_one_error(data_dir: Path) -> None:
    path = data_dir / "np4e" / "all_documents.parquet"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(FormatError, match=r"all_documents.parquet: not a readable Parquet file"):
        load("np4e", kind="documents", data_dir=data_dir)
    table = pq.read_table(data_dir / "np4e" / "all_mentions.parquet")  # any valid parquet without token columns
    pq.write_table(table, path)
    with pytest.raises(FormatError, match=r"all_documents.parquet: missing columns: topic/subtopic_name/doc"):
        load("np4e", kind="documents", data_dir=data_dir)


def test_a_dataset_lookup_does_not_change_what_ucdcr_datasets_is() -> None:
    # ucdcr 0.1.0 had a function ucdcr.datasets(); importing ucdcr.datasets.<id> (what any registry lookup does)
    # rebinds the attribute ucdcr.datasets to the subpackage, so the function was gone after the first lookup.
    # A fresh interpreter, because this test session has long imported the subpackage.
    code = """
import types, ucdcr
from ucdcr.registry import get
before = ucdcr.datasets
get("ecbplus")
assert ucdcr.datasets is before, (before, ucdcr.datasets)
assert isinstance(before, types.ModuleType) and before.__name__ == "ucdcr.datasets", before
ids = ucdcr.list_datasets()
get("np4e")
assert ucdcr.list_datasets() == ids and len(ids) == 12, ids
"""
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=_child_env())
    assert result.returncode == 0, result.stderr


def _child_env() -> dict[str, str]:
    """The environment of a child interpreter that imports this checkout's ucdcr."""
    import ucdcr

    return {**os.environ, "PYTHONPATH": str(Path(ucdcr.__file__).resolve().parent.parent)}


# --- every public name --------------------------------------------------------------------------------------

PUBLIC_FUNCTIONS = sorted(set(ucdcr.__all__) - {"__version__"})


def test_the_public_names() -> None:
    assert PUBLIC_FUNCTIONS == [
        "baseline_tables",
        "benchmark",
        "benchmark_tables",
        "build",
        "dataset_dir",
        "diversity_tables",
        "evaluate",
        "forget_benchmark_runs",
        "list_datasets",
        "load",
        "load_hf",
        "sample_dir",
        "score_files",
        "stats_tables",
        "to_spacy_docs",
    ]
    assert set(PUBLIC_FUNCTIONS) <= set(dir(ucdcr))
    with pytest.raises(AttributeError, match="module 'ucdcr' has no attribute 'no_such_name'"):
        _ = ucdcr.no_such_name


def test_type_checkers_see_the_same_public_names() -> None:
    # the lazy table (ucdcr._PUBLIC) and the imports under TYPE_CHECKING that type checkers read instead
    tree = ast.parse(Path(ucdcr.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imports = [node for node in block.body if isinstance(node, ast.ImportFrom)]
    typed = {(node.module, alias.name) for node in imports for alias in node.names}
    assert typed == {(module, name) for name, module in ucdcr._PUBLIC.items()}


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_every_public_function_is_documented_and_typed(name: str) -> None:
    function = getattr(ucdcr, name)
    assert callable(function) and inspect.getdoc(function)
    signature = inspect.signature(function)
    untyped = [p.name for p in signature.parameters.values() if p.annotation is inspect.Parameter.empty]
    assert untyped == [] and signature.return_annotation is not inspect.Signature.empty


def test_no_public_name_is_a_submodule() -> None:
    # a public name equal to a submodule is replaced by the submodule once that is imported (ucdcr.datasets, 0.1.0)
    submodules = {module.name for module in pkgutil.iter_modules(ucdcr.__path__)}
    assert "datasets" in submodules and "scoring" in submodules
    assert sorted(submodules & set(ucdcr.__all__)) == []


def test_import_ucdcr_imports_nothing_heavy() -> None:
    code = "import json, sys, ucdcr; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_child_env(), check=True)
    loaded = set(json.loads(result.stdout))
    heavy = ("pyarrow", "numpy", "ucdcr.api", "ucdcr.registry", "ucdcr.datasets", "ucdcr.scoring", "ucdcr.pipeline")
    assert sorted(name for name in heavy if name in loaded) == []


def test_submodules_are_found_on_first_access() -> None:
    code = "import ucdcr; print(ucdcr.scoring.score_clusters([['a', 'b']], [['a', 'b']]).conll_f1)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_child_env(), check=True)
    assert result.stdout.strip() == "1.0"  # the response is the key


def test_types_reach_a_user_of_the_lazy_names(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    (tmp_path / "client.py").write_text(
        "import ucdcr\n"
        "report = ucdcr.build('ecbplus')\n"
        "written: int = report.counts['mentions_written']\n"
        "ids: list[str] = ucdcr.list_datasets()\n"
        "title: str = ucdcr.stats_tables()[0].title\n"
        "f1: float = ucdcr.score_files('key', 'response', metrics='conll').conll_f1\n"
        "wrong: str = ucdcr.list_datasets()\n"
        "reports: int = ucdcr.build(['ecbplus', 'np4e'])\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, "client.py"]
    env = {**_child_env(), "MYPYPATH": _child_env()["PYTHONPATH"]}
    result = subprocess.run(command, check=False, capture_output=True, text=True, cwd=tmp_path, env=env)
    errors = [line.split(": error: ")[1] for line in result.stdout.splitlines() if ": error: " in line]
    wrong = 'Incompatible types in assignment (expression has type "{}", variable has type "{}")  [assignment]'
    assert errors == [wrong.format("list[str]", "str"), wrong.format("list[BuildReport]", "int")], result.stdout


def test_py_typed_is_in_the_wheel(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (project / name).write_bytes((REPO_ROOT / name).read_bytes())
    # a copy: the build writes its egg-info next to the package
    shutil.copytree(
        Path(ucdcr.__file__).resolve().parent, project / "src" / "ucdcr", ignore=shutil.ignore_patterns("__pycache__")
    )
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", "dist", "."]
    subprocess.run(command, cwd=project, capture_output=True, text=True, check=True)
    (wheel,) = (project / "dist").glob("ucdcr-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "ucdcr/py.typed" in names and "ucdcr/api.py" in names


# --- build ---------------------------------------------------------------------------------------------------


def test_build_one_dataset_and_several(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = write_ecbplus_raw(tmp_path / "raw")
    report = ucdcr.build("ecbplus", raw_dir=raw, data_dir=tmp_path / "data")
    assert "documents)" in capsys.readouterr().err  # a line per stage by default, as `ucdcr build`
    assert isinstance(report, BuildReport) and report.dataset == "ecbplus"
    # fixtures/raw/ecbplus.py: 13 mentions in validated sentences; with all_sentences one more (sentence 1 of 1_1ecb)
    assert report.counts["mentions_written"] == 13
    assert list_datasets(tmp_path / "data", built_only=True) == ["ecbplus"]
    assert load("ecbplus", data_dir=tmp_path / "data").num_rows == 13
    reports = ucdcr.build(
        ["ecbplus"], raw_dir=raw, data_dir=tmp_path / "more", options={"all_sentences": True}, progress=False
    )
    assert [r.counts["mentions_written"] for r in reports] == [14]  # the option reached the reader
    assert capsys.readouterr().err == ""  # progress=False: silent


def test_build_reads_the_dirs_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UCDCR_RAW_DIR", str(write_ecbplus_raw(tmp_path / "raw")))
    monkeypatch.setenv("UCDCR_DATA_DIR", str(tmp_path / "data"))
    assert ucdcr.build(["ecbplus"])[0].output_dir == str(tmp_path / "data" / "ecbplus")


def test_build_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(UnknownDatasetError, match="valid ids"):
        ucdcr.build("no_such_dataset", raw_dir=tmp_path, data_dir=tmp_path / "data")
    with pytest.raises(MissingRawData, match="ECBplus"):
        ucdcr.build(["ecbplus"], raw_dir=tmp_path / "empty", data_dir=tmp_path / "data")


# --- the tables and evaluate ---------------------------------------------------------------------------------


def cli_json(*args: str) -> object:
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def as_json(tables: list) -> object:
    return json.loads(render(tables, "json"))


def test_the_tables_are_those_the_commands_print(data_dir: Path) -> None:
    where = ["--data-dir", str(data_dir)]
    assert as_json(ucdcr.stats_tables(data_dir=data_dir)) == cli_json("stats", *where)
    assert as_json(ucdcr.stats_tables("np4e", data_dir, tables=["summary"])) == cli_json(
        "stats", *where, "--tables", "summary"
    )
    assert as_json(ucdcr.diversity_tables(data_dir=data_dir, per_split=True)) == cli_json(
        "diversity", *where, "--per-split"
    )
    assert as_json(ucdcr.baseline_tables(["np4e"], data_dir, per_setting=True)) == cli_json(
        "baseline", *where, "--datasets", "np4e", "--per-setting"
    )


def test_tables_take_ids_authors_names_and_folders(data_dir: Path, tmp_path: Path) -> None:
    theirs = tmp_path / "release"
    tiny.write_tiny_dataset(theirs / "NP4E")  # the authors' folder name
    by_name = ucdcr.diversity_tables("np4e", data_dir=theirs)[0]
    by_folder = ucdcr.diversity_tables([theirs / "NP4E", data_dir / "np4e"])[0]
    assert [row["Dataset"] for row in by_name.rows] == ["NP4E"]
    assert [row["Dataset"] for row in by_folder.rows] == ["NP4E", "np4e"]
    assert by_folder.rows[0] == {**by_folder.rows[1], "Dataset": "NP4E"}  # the same data
    with pytest.raises(UcdcrError, match=r"no dataset 'ecbplus' in .*; found: np4e"):
        ucdcr.stats_tables(["ecbplus"], data_dir)
    with pytest.raises(UcdcrError, match=r"is not a dataset folder"):
        ucdcr.stats_tables([tmp_path])
    with pytest.raises(UcdcrError, match=r"unknown tables 13; valid: 2, 3, 4, 12, 9, 10, 11, summary"):
        ucdcr.stats_tables(data_dir=data_dir, tables=["13"])


def test_evaluate_scores_predictions_as_the_command_does(data_dir: Path, tmp_path: Path) -> None:
    test = load("np4e", split="test", data_dir=data_dir)
    gold = dict(zip(test["mention_id"].to_pylist(), test["coref_chain"].to_pylist(), strict=True))
    train_id = load("np4e", split="train", data_dir=data_dir)["mention_id"][0].as_py()
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({**gold, train_id: "X"}), encoding="utf-8")
    (table13,) = ucdcr.evaluate(predictions, "np4e", data_dir)
    # the gold chains as predictions: every metric is 100 in every row
    assert table13.rows and all(row[column] == 100.0 for row in table13.rows for column in table13.columns[4:])
    assert any("1 prediction" in note and "ignored" in note for note in table13.notes), table13.notes
    result = CliRunner().invoke(app, ["evaluate", str(predictions), "--data-dir", str(data_dir), "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(render([table13], "json"))[0]["rows"] == json.loads(result.stdout)[0]["rows"]
    with pytest.raises(UcdcrError, match="unknown split 'dev'"):
        ucdcr.evaluate(predictions, "np4e", data_dir, split="dev")


def test_score_files_is_the_scorer_entry_point() -> None:
    from ucdcr.scoring.scores import score_files

    assert ucdcr.score_files is score_files
    scores = ucdcr.score_files(REPO_ROOT / "examples" / "key.conll", REPO_ROOT / "examples" / "response.conll", "muc")
    assert list(scores) == ["muc"]
