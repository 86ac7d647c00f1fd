"""ucdcr.api: load() and list_datasets() on a tiny built dataset (tests/report/tiny_dataset.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ucdcr.api import list_datasets, load
from ucdcr.errors import FormatError, UcdcrError, UnknownDatasetError
from ucdcr.schema import DOCUMENT_SCHEMA, LIST_FIELDS, MENTION_SCHEMA

_spec = importlib.util.spec_from_file_location("tiny_dataset", Path(__file__).parent / "report" / "tiny_dataset.py")
tiny = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tiny)


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
    folder = tmp_path / "NP4E"  # the authors' folder name; NP4E mentions are all entities (REFERENCE.md §1.4)
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
    hf = pytest.importorskip("datasets")
    if not hasattr(hf, "Dataset"):  # tests/ is on sys.path, so tests/datasets/ can shadow the package
        pytest.skip("the Hugging Face datasets package is not installed")
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
assert ucdcr.list_datasets() == ids == list(ucdcr.registry.DATASET_IDS)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_child_env())
    assert result.returncode == 0, result.stderr


def _child_env() -> dict[str, str]:
    """The environment of a child interpreter that imports this checkout's ucdcr."""
    import ucdcr

    return {**os.environ, "PYTHONPATH": str(Path(ucdcr.__file__).resolve().parent.parent)}
