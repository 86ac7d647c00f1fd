"""Loading uCDCR-layout folders: our JSON/Parquet and the authors' repr-string Parquet with missing JSON files."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _toy_data import mention, write_dataset

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.load import (
    KIND_COLUMN,
    dataset_id,
    discover_datasets,
    load_columns,
    load_documents,
    load_mentions,
)
from ucdcr.schema import LIST_FIELDS, MENTION_FIELDS


def _records():
    return {
        ("train", "event"): [mention("ACT1", ["fired"], split="train", mention_id="e-train")],
        ("train", "entity"): [mention("HUM1", ["he"], split="train", mention_id="n-train")],
        ("test", "event"): [
            mention("ACT2", ["quake"], mention_id="e-test-1"),
            mention("ACT2", ["jolt"], mention_id="e-test-2"),
        ],
        ("test", "entity"): [mention("Singleton_ACTx", ["shook"], mention_id="n-test", singleton=True)],
    }


def test_json_folder_in_authors_load_order(tmp_path: Path) -> None:
    table = load_mentions(write_dataset(tmp_path / "toy", _records()))
    # event files of train, val, test, then entity files of train, val, test (REFERENCE §4.0)
    assert table["mention_id"].to_pylist() == ["e-train", "e-test-1", "e-test-2", "n-train", "n-test"]
    assert table[KIND_COLUMN].to_pylist() == ["event", "event", "event", "entity", "entity"]
    assert table.column_names == [*MENTION_FIELDS, KIND_COLUMN]
    assert table["tokens_text"].to_pylist()[1] == ["quake"]


def test_only_some_splits(tmp_path: Path) -> None:
    table = load_mentions(write_dataset(tmp_path / "toy", _records()), splits=("test",), columns=["mention_id"])
    assert table["mention_id"].to_pylist() == ["e-test-1", "e-test-2", "n-test"]
    assert table.column_names == ["mention_id", "split", KIND_COLUMN]


def _authors_parquet(folder: Path, rows: list[dict]) -> None:
    """The authors' all_mentions.parquet: list fields as Python repr strings, entity rows before event rows."""
    stringified = [{k: (str(v) if k in LIST_FIELDS else v) for k, v in row.items()} for row in rows]
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(stringified), folder / "all_mentions.parquet")


def test_authors_parquet_fills_missing_json_files(tmp_path: Path) -> None:
    records = _records()
    folder = tmp_path / "ECBplus"
    rows = [
        *records[("train", "entity")],
        *records[("train", "event")],
        *records[("test", "entity")],
        *records[("test", "event")],
    ]
    _authors_parquet(folder, rows)
    (folder / "test").mkdir()  # test has its event file only; train has no JSON at all
    (folder / "test" / "event_mentions.json").write_text(json.dumps(records[("test", "event")]))
    table = load_mentions(folder)
    assert table["mention_id"].to_pylist() == ["e-train", "e-test-1", "e-test-2", "n-train", "n-test"]
    # train typed by the ECB+ file rule (chain ACT* -> event file); Singleton_ACT* went to the entity file
    assert table[KIND_COLUMN].to_pylist() == ["event", "event", "event", "entity", "entity"]
    assert table["tokens_text"].to_pylist()[0] == ["fired"]  # repr string parsed into a list


def test_authors_parquet_without_a_type_rule_is_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "MEANTIME"
    _authors_parquet(folder, [mention("X", ["a"], split="train")])
    with pytest.raises(FormatError, match="event/entity"):
        load_mentions(folder)


def test_bad_repr_list_names_file_row_and_field(tmp_path: Path) -> None:
    folder = tmp_path / "NP4E"
    row = {k: (str(v) if k in LIST_FIELDS else v) for k, v in mention("X", ["a"], split="train").items()}
    row["tokens_text"] = "['a', "
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([row]), folder / "all_mentions.parquet")
    with pytest.raises(FormatError, match=r"all_mentions.parquet: row 0: field 'tokens_text'"):
        load_mentions(folder)


def test_missing_files_and_bad_json_are_errors(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "toy", _records())
    (folder / "val" / "event_mentions.json").unlink()
    with pytest.raises(FormatError, match="missing mention files"):
        load_mentions(folder)
    (folder / "val" / "event_mentions.json").write_text("[{")
    with pytest.raises(FormatError, match=r"event_mentions.json:1: not valid JSON"):
        load_mentions(folder)


def test_discovery_and_names(tmp_path: Path) -> None:
    write_dataset(tmp_path / "ecbplus", _records())
    write_dataset(tmp_path / "NP4E", {})
    (tmp_path / "notes").mkdir()
    assert list(discover_datasets(tmp_path)) == ["NP4E", "ecbplus"]
    assert list(discover_datasets(tmp_path, ["np4e"])) == ["NP4E"]  # our id finds the authors' folder name
    assert list(discover_datasets(tmp_path / "ecbplus")) == ["ecbplus"]  # a dataset folder itself
    with pytest.raises(UcdcrError, match="no dataset 'gvc'"):
        discover_datasets(tmp_path, ["gvc"])
    assert dataset_id("ECBplusMETAm-prep") == "ecbplus_metam" and dataset_id("wec-eng") == "wec_eng"


def test_columns_and_documents(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "toy", _records())
    assert load_columns(folder, ["coref_chain"])["coref_chain"].to_pylist() == [
        "ACT1",
        "ACT2",
        "ACT2",
        "HUM1",
        "Singleton_ACTx",
    ]
    assert load_documents(folder) is None
    pq.write_table(
        pa.table({"topic/subtopic_name/doc": ["1/1a/d1"] * 3, "split": ["test"] * 3, "token": list("abc")}),
        folder / "all_documents.parquet",
    )
    documents = load_documents(folder)
    assert documents is not None and documents.num_rows == 3


def test_ecb_file_rule_only_for_the_authors_parquet(tmp_path: Path) -> None:
    # our own parquet (real lists) carries no file information: the JSON files are required
    folder = tmp_path / "ecbplus"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([mention("ACT1", ["a"], split="train")]), folder / "all_mentions.parquet")
    with pytest.raises(FormatError, match="provide the event_mentions.json"):
        load_mentions(folder)


def test_wrong_field_type_names_the_field(tmp_path: Path) -> None:
    record = mention("A", ["a"])
    record["sent_id"] = "first"
    folder = write_dataset(tmp_path / "toy", {("test", "event"): [record]})
    with pytest.raises(
        FormatError, match=r"event_mentions.json: record 0 \(mention_id 'A_d1_a'\): field 'sent_id' must be an integer"
    ):
        load_mentions(folder)
