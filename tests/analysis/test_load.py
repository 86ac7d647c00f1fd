"""Loading uCDCR-layout folders: our JSON/Parquet and the authors' repr-string Parquet with missing JSON files."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.fixtures.unified import mention, write_json_dataset

from ucdcr.errors import FormatError, UcdcrError
from ucdcr.io.load import KIND_COLUMN, dataset_id, load_columns, load_documents, load_mentions
from ucdcr.schema import LIST_FIELDS, MENTION_FIELDS
from ucdcr.sources.discover import discover_datasets


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
    table = load_mentions(write_json_dataset(tmp_path / "toy", _records()))
    # event files of train, val, test, then entity files of train, val, test
    # (docs/unified-format.md#reading-released-folders)
    assert table["mention_id"].to_pylist() == ["e-train", "e-test-1", "e-test-2", "n-train", "n-test"]
    assert table[KIND_COLUMN].to_pylist() == ["event", "event", "event", "entity", "entity"]
    assert table.column_names == [*MENTION_FIELDS, KIND_COLUMN]
    assert table["tokens_text"].to_pylist()[1] == ["quake"]


def test_only_some_splits(tmp_path: Path) -> None:
    table = load_mentions(write_json_dataset(tmp_path / "toy", _records()), splits=("test",), columns=["mention_id"])
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
    folder = write_json_dataset(tmp_path / "toy", _records())
    (folder / "val" / "event_mentions.json").unlink()
    with pytest.raises(FormatError, match="missing mention files"):
        load_mentions(folder)
    (folder / "val" / "event_mentions.json").write_text("[{")
    with pytest.raises(FormatError, match=r"event_mentions.json:1: invalid JSON"):
        load_mentions(folder)


def test_discovery_and_names(tmp_path: Path) -> None:
    write_json_dataset(tmp_path / "ecbplus", _records())
    write_json_dataset(tmp_path / "NP4E", {})
    (tmp_path / "notes").mkdir()
    assert list(discover_datasets(tmp_path)) == ["NP4E", "ecbplus"]
    assert list(discover_datasets(tmp_path, ["np4e"])) == ["NP4E"]  # our id finds the authors' folder name
    assert list(discover_datasets(tmp_path / "ecbplus")) == ["ecbplus"]  # a dataset folder itself
    for root in (tmp_path, tmp_path / "ecbplus"):  # a data dir, or a dataset folder given as one
        with pytest.raises(UcdcrError, match="unknown source 'builds'; valid sources: auto, build, release, both"):
            discover_datasets(root, source="builds")
    with pytest.raises(UcdcrError, match="no dataset 'gvc'"):
        discover_datasets(tmp_path, ["gvc"])
    # the release of a dataset, where none is installed, is no dataset: never the build in its place
    with pytest.raises(UcdcrError, match=r"no dataset 'ecbplus@release' in .*; found: NP4E, ecbplus$"):
        discover_datasets(tmp_path, ["ecbplus@release"])
    assert dataset_id("ECBplusMETAm-prep") == "ecbplus_metam" and dataset_id("wec-eng") == "wec_eng"


def test_columns_and_documents(tmp_path: Path) -> None:
    folder = write_json_dataset(tmp_path / "toy", _records())
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
    with pytest.raises(FormatError, match=r"provide the event_mentions.json"):
        load_mentions(folder)


def test_wrong_field_type_names_the_field(tmp_path: Path) -> None:
    record = mention("A", ["a"])
    record["sent_id"] = "first"
    folder = write_json_dataset(tmp_path / "toy", {("test", "event"): [record]})
    with pytest.raises(
        FormatError, match=r"event_mentions.json: record 0 \(mention_id 'A_d1_a'\): field 'sent_id' must be an integer"
    ):
        load_mentions(folder)


def test_hidden_folders_are_never_datasets(tmp_path: Path) -> None:
    # a build stages its output in ".<dataset>.building-*" and retires the old one to ".<dataset>.old-*"
    write_json_dataset(tmp_path / "ecbplus", _records())
    write_json_dataset(tmp_path / ".ecbplus.building-x1", _records())
    write_json_dataset(tmp_path / ".ecbplus.old-42", _records())
    assert list(discover_datasets(tmp_path)) == ["ecbplus"]
    assert list(discover_datasets(tmp_path, ["ecbplus"])) == ["ecbplus"]
    with pytest.raises(UcdcrError, match=r"no dataset '.ecbplus.old-42' in .*; found: ecbplus$"):
        discover_datasets(tmp_path, [".ecbplus.old-42"])
    only_hidden = tmp_path / "only_hidden"
    write_json_dataset(only_hidden / ".np4e.building-x", {})
    with pytest.raises(UcdcrError, match=r"no datasets in .*only_hidden \(a dataset folder holds all_mentions"):
        discover_datasets(only_hidden)


def test_a_data_dir_that_is_a_file_or_missing_says_so(tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("not a folder")
    with pytest.raises(UcdcrError, match=r"data dir .*data is a file, not a folder"):
        discover_datasets(a_file)
    with pytest.raises(UcdcrError, match=r"data dir .*nowhere does not exist"):
        discover_datasets(tmp_path / "nowhere")
    with pytest.raises(UcdcrError, match=r"dataset folder .*data is a file, not a folder"):
        load_mentions(a_file)


def _one_record_folder(tmp_path: Path, **changes: object) -> Path:
    record = mention("A", ["a", "b"], mention_id="m1")
    record.update(changes)
    return write_json_dataset(tmp_path / "toy", {("test", "event"): [record]})


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"sent_id": None}, "field 'sent_id' is missing or null"),
        ({"sent_id": 1.5}, "field 'sent_id' must be an integer, got the number 1.5"),
        ({"sent_id": True}, "field 'sent_id' must be an integer, got the boolean true"),
        # orjson reads an integer beyond 64 bits as a float, the standard library as an int: refused either way
        (
            {"sent_id": 2**64},
            (
                "field 'sent_id' (holds 18446744073709551616, beyond the 64-bit integer range"
                "|must be an integer, got the number 1.8446744073709552e\\+19)"
            ),
        ),
        ({"tokens_text": "ab"}, "field 'tokens_text' must be a list of items that are each a string, got the string"),
        ({"tokens_number": [0, "1"]}, "field 'tokens_number' must be a list .* but item 1 is the string '1'"),
        ({"tokens_number": {"0": 0}}, "field 'tokens_number' must be a list .* got an object with 1 field"),
        ({"is_singleton": 0}, "field 'is_singleton' must be a boolean \\(true or false\\), got the integer 0"),
        ({"topic_id": 1}, "field 'topic_id' must be a string, got the integer 1"),
    ],
    ids=[
        "null",
        "float",
        "bool-for-int",
        "beyond-int64",
        "string-for-list",
        "item-type",
        "object-for-list",
        "int-for-bool",
        "number-for-string",
    ],
)
def test_wrong_value_types_are_errors_never_coerced(tmp_path: Path, changes: dict, problem: str) -> None:
    folder = _one_record_folder(tmp_path, **changes)
    with pytest.raises(FormatError, match=r"event_mentions.json: record 0 \(mention_id 'm1'\): " + problem):
        load_mentions(folder)


def test_a_missing_field_is_an_error_unless_not_requested(tmp_path: Path) -> None:
    folder = _one_record_folder(tmp_path)
    path = folder / "test" / "event_mentions.json"
    record = json.loads(path.read_text())[0]
    del record["mention_ner"]
    path.write_text(json.dumps([record]))
    with pytest.raises(FormatError, match="field 'mention_ner' is missing or null"):
        load_mentions(folder)
    assert load_mentions(folder, columns=["mention_id"])["mention_id"].to_pylist() == ["m1"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "the file is empty; expected a JSON list of mention records"),
        (b"[{", ":1: invalid JSON: Expecting property name"),
        (b'{"mentions": []}', "expected a JSON list of mention records, got an object with 1 field"),
        (b"[[1, 2]]", "record 0 must be a JSON object \\(a mention record\\), got a list of 2 element"),
        (b'["m1"]', "record 0 must be a JSON object \\(a mention record\\), got the string 'm1'"),
        ('["\u00e9"]'.encode("latin-1"), ":1: not UTF-8 text: byte 0xe9 at column 3"),
        ("[]".encode("utf-16"), "the file is UTF-16 text"),
        ("[]".encode("utf-16-le"), ":1: NUL byte at column 2"),
    ],
    ids=["empty", "truncated", "object", "list-of-lists", "list-of-strings", "latin-1", "utf-16", "utf-16-no-bom"],
)
def test_bad_mention_files_name_the_file(tmp_path: Path, content: bytes, problem: str) -> None:
    folder = _one_record_folder(tmp_path)
    (folder / "val" / "entity_mentions.json").write_bytes(content)
    separator = "" if problem.startswith(":") else ": "
    with pytest.raises(FormatError, match=r"val/entity_mentions.json" + separator + problem):
        load_mentions(folder)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    folder = _one_record_folder(tmp_path)
    path = folder / "test" / "event_mentions.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_mentions(folder)["mention_id"].to_pylist() == ["m1"]


def test_a_lone_surrogate_names_the_file_and_mention(tmp_path: Path) -> None:
    folder = _one_record_folder(tmp_path)
    path = folder / "test" / "event_mentions.json"
    path.write_text(path.read_text().replace('"tokens_str": "a b"', '"tokens_str": "a \\ud800"'))
    with pytest.raises(FormatError, match=r"event_mentions.json: mention 'm1': field 'tokens_str' cannot be stored"):
        load_mentions(folder)


def _parquet_only(tmp_path: Path, table: pa.Table) -> Path:
    folder = tmp_path / "NP4E"  # entity-only: the parquet alone says which file each mention came from
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "all_mentions.parquet")
    return folder


def test_bad_parquet_files_name_the_file_and_row(tmp_path: Path) -> None:
    good = pa.Table.from_pylist([mention("A", ["a"], mention_id="m1"), mention("A", ["b"], mention_id="m2")])
    assert load_mentions(_parquet_only(tmp_path / "ok", good)).num_rows == 2
    folder = _parquet_only(tmp_path / "empty", good)
    (folder / "all_mentions.parquet").write_bytes(b"")
    with pytest.raises(
        FormatError, match=r"all_mentions.parquet: not a readable Parquet file \(Parquet file size is 0"
    ):
        load_mentions(folder)
    folder = _parquet_only(tmp_path / "truncated", good)
    data = (folder / "all_mentions.parquet").read_bytes()
    (folder / "all_mentions.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match=r"all_mentions.parquet: not a readable Parquet file .*truncated"):
        load_mentions(folder)
    wrong = good.set_column(good.column_names.index("sent_id"), "sent_id", pa.array(["0", "x"]))
    with pytest.raises(FormatError, match=r"all_mentions.parquet: row 0: field 'sent_id' must be an integer"):
        load_mentions(_parquet_only(tmp_path / "wrong", wrong))
    null = good.set_column(good.column_names.index("topic_id"), "topic_id", pa.array(["1", None]))
    with pytest.raises(FormatError, match=r"all_mentions.parquet: row 1: field 'topic_id' is missing or null"):
        load_mentions(_parquet_only(tmp_path / "null", null))
    dev = good.set_column(good.column_names.index("split"), "split", pa.array(["test", "dev"]))
    with pytest.raises(FormatError, match=r"all_mentions.parquet: row 1: split 'dev' is not one of train, val, test"):
        load_mentions(_parquet_only(tmp_path / "dev", dev))
    with pytest.raises(FormatError, match=r"all_mentions.parquet: column 'sent_id' holds string values"):
        load_columns(_parquet_only(tmp_path / "columns", wrong), ["sent_id"])


def test_bad_document_tables_name_the_file(tmp_path: Path) -> None:
    folder = write_json_dataset(tmp_path / "toy", _records())
    path = folder / "all_documents.parquet"
    path.write_bytes(b"PAR1")
    with pytest.raises(FormatError, match=r"all_documents.parquet: not a readable Parquet file"):
        load_documents(folder)
    pq.write_table(pa.table({"topic/subtopic_name/doc": [1, 2], "split": ["test", "test"]}), path)
    with pytest.raises(FormatError, match=r"column 'topic/subtopic_name/doc' holds int64 values, expected string"):
        load_documents(folder)
    pq.write_table(pa.table({"topic/subtopic_name/doc": ["a", None], "split": ["test", "test"]}), path)
    with pytest.raises(FormatError, match=r"row 1: column 'topic/subtopic_name/doc' is null"):
        load_documents(folder)


def test_unreadable_files_are_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # chmod cannot make a file unreadable for root (the test machine), so the operating system's refusal is faked
    folder = _one_record_folder(tmp_path)
    refused = folder / "test" / "event_mentions.json"
    original = Path.read_bytes

    def read_bytes(path: Path) -> bytes:
        if path == refused:
            raise PermissionError(13, "Permission denied", str(path))
        return original(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(FormatError, match=r"test/event_mentions.json: cannot read the file: permission denied"):
        load_mentions(folder)
