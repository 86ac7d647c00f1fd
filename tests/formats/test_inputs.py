"""The shared input helpers (ucdcr.formats.inputs, json_files shapes, corpus_checks) on tiny files written here."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from ucdcr.errors import FormatError, MissingRawData
from ucdcr.formats.corpus_checks import require_listed_ids
from ucdcr.formats.inputs import csv_records, csv_rows, decode_text, open_zip, parse_xml, read_text, text_lines
from ucdcr.formats.json_files import describe, expect, field, int_of, list_of, parse_json
from ucdcr.formats.split_file import read_split_map
from ucdcr.records import SourceCorpus
from ucdcr.registry import ReadOptions


def test_utf8_bom_is_removed_and_other_encodings_are_named() -> None:
    assert decode_text(b"\xef\xbb\xbfTopic,File\n", "a.csv") == "Topic,File\n"
    assert decode_text("caf\u00e9".encode(), "a.txt") == "caf\u00e9"
    with pytest.raises(FormatError, match=r"^a\.txt: the file is UTF-16 text .*expected UTF-8"):
        decode_text("x".encode("utf-16"), "a.txt")
    with pytest.raises(FormatError, match=r"^a\.txt: the file is UTF-32 text"):
        decode_text("x".encode("utf-32"), "a.txt")
    # the first bad byte: line 2 (after a CRLF), column 4 ("ab" + "c" then 0xe9)
    with pytest.raises(FormatError, match=r"^a\.txt:2: not UTF-8 text: byte 0xe9 at column 4 "):
        decode_text(b"first\r\nabc\xe9\n", "a.txt")
    with pytest.raises(FormatError, match=r"^a\.txt:1: NUL byte at column 2"):
        decode_text("ab".encode("utf-16-le"), "a.txt")


def test_unreadable_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"nothing\.txt: file not found"):
        read_text(tmp_path / "nothing.txt")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(FormatError, match=r"folder\.txt: is a folder, expected a file"):
        read_text(tmp_path / "folder.txt")


def test_text_lines_split_at_line_breaks_only() -> None:
    assert text_lines("a\r\nb\rc\nd\u2028e\x0cf\n") == ["a", "b", "c", "d\u2028e\x0cf"]
    assert text_lines("") == [] and text_lines("\n") == [""]


def test_csv_rows_and_records() -> None:
    assert list(csv_rows('a,b\n\n"x, y",z\n', "t.csv")) == [(1, ["a", "b"]), (3, ["x, y", "z"])]
    assert list(csv_records("a,b\n1,2\n", "t.csv", ["a"])) == [(2, {"a": "1", "b": "2"})]
    with pytest.raises(FormatError, match=r"^t\.csv:1: missing column\(s\) c; header is 'a,b'"):
        list(csv_records("a,b\n1,2\n", "t.csv", ["c"]))
    with pytest.raises(FormatError, match=r"^t\.csv:3: expected 2 fields \(as the header\), found 3"):
        list(csv_records("a,b\n1,2\n1,2,3\n", "t.csv", ["a"]))
    with pytest.raises(FormatError, match=r"^t\.csv:1: malformed CSV: field larger than field limit"):
        list(csv_rows("a," + "x" * 200_000 + "\n", "t.csv"))


def test_zip_members(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("d/x.txt", "\ufeffhello")
    with open_zip(archive) as bundle:
        assert bundle.names() == ["d/x.txt"] and bundle.read_text("d/x.txt") == "hello"
        with pytest.raises(FormatError, match=r"a\.zip:d/y\.txt: no such member in the archive"):
            bundle.read_bytes("d/y.txt")
    archive.write_bytes(archive.read_bytes()[:10])
    with (
        pytest.raises(FormatError, match=r"a\.zip: not a readable zip archive \(File is not a zip file\)"),
        open_zip(archive),
    ):
        pass


def test_xml_is_parsed_as_utf8_whatever_it_declares() -> None:
    root = parse_xml('<?xml version="1.0" encoding="ISO-8859-1"?><a>caf\u00e9</a>'.encode(), "x.xml")
    assert root.text == "caf\u00e9"
    with pytest.raises(FormatError, match=r"^x\.xml:1: malformed XML \(column \d+\): Premature end of data"):
        parse_xml(b"<a><b>", "x.xml")
    with pytest.raises(FormatError, match=r"^x\.xml:1: malformed XML.*: Document is empty"):
        parse_xml(b"", "x.xml")


def test_json_shapes_and_values() -> None:
    assert (
        describe("first") == "the string 'first'" and describe(None) == "null" and describe(True) == "the boolean true"
    )
    assert describe([1, 2]) == "a list of 2 element(s)" and describe({"a": 1}) == "an object with 1 field(s)"
    assert expect(3, "integer", "f.json", "x") == 3 and int_of("12", "f.json", "x") == 12
    with pytest.raises(FormatError, match=r"^f\.json: x must be an integer, got the boolean true"):
        expect(True, "integer", "f.json", "x")
    with pytest.raises(FormatError, match=r"^f\.json: record 2 has no field 'id'"):
        field({}, "id", "id", "f.json", "record 2")
    with pytest.raises(
        FormatError,
        match=r"^f\.json: ids, element 1 must be an id \(a string or an integer\), got the "
        r"number 1\.5",
    ):
        list_of([1, 1.5], "id", "f.json", "ids")
    with pytest.raises(FormatError, match=r"^f\.json: x must be an integer, got the string 'first'"):
        int_of("first", "f.json", "x")
    with pytest.raises(FormatError, match=r"^f\.json:2: invalid JSON: "):
        parse_json('{"a":\n', "f.json")


def test_split_file(tmp_path: Path) -> None:
    path = tmp_path / "split.json"
    path.write_text('{"train": [1, "2"], "val": [], "test": ["3"]}', encoding="utf-8")
    assert read_split_map(path) == {"1": "train", "2": "train", "3": "test"}
    path.write_text('{"train": [1, 1]}', encoding="utf-8")
    with pytest.raises(FormatError, match="id '1' is listed twice in train"):
        read_split_map(path)
    # a missing split file is reported before any reader runs (the manifests require it); read directly, it is
    # one FormatError naming it
    with pytest.raises(FormatError, match=r"none\.json: file not found"):
        read_split_map(tmp_path / "none.json")


def test_listed_ids_missing_and_partial() -> None:
    corpus = SourceCorpus(documents=[], mentions=[])
    split_of = {"1": "train", "2": "val", "3": "test", "4": "test"}
    with pytest.raises(
        MissingRawData,
        match=r"^s\.json: topics listed in the split file but not found: 2 \(two\), 4 "
        r"\(split\(s\) val would be empty\)\. Fetch it\. To build what is there anyway",
    ):
        require_listed_ids(
            corpus, None, split_of, {"1", "3"}, what="topics", listed_in="s.json", hint="Fetch it.", names={"2": "two"}
        )
    require_listed_ids(
        corpus, None, split_of, {"1", "3"}, what="topics", listed_in="s.json", hint="", known_absent={"2", "4"}
    )
    assert corpus.notes == []
    require_listed_ids(
        corpus, ReadOptions(partial=True), split_of, {"1", "3"}, what="topics", listed_in="s.json", hint=""
    )
    expected = (
        "partial corpus (option partial=true): s.json: topics listed in the split file but not found: 2, 4 "
        "(split(s) val would be empty)"
    )
    assert corpus.notes == [expected]
