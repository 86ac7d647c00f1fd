"""Broken-input corpus for every reader: each case writes a valid tiny raw folder (the fixture writers of
tests/fixtures/raw), breaks one input the way files break in practice, runs the reader through the
registry and expects ONE UcdcrError whose message names the file and the problem -- never a traceback from the
standard library, an encoding, zipfile / zlib, lxml, json, csv or pyarrow.

Categories: encoding (Latin-1 bytes, UTF-16 with and without a byte-order mark), truncated (a file cut in the
middle), syntax (malformed XML / JSON / CoNLL / CSV rows), shape (a JSON value of the wrong kind: a number or a
string where a list belongs, a list where an object belongs), type (a wrong value type: ``"first"`` or ``null``
where an integer belongs), zip (a truncated archive, a CRC failure, corrupt deflate data, a member whose data
ends early), parquet (empty, truncated, not Parquet, a column of the wrong type, a null value), unreadable (a
file without read permission, a folder where a file belongs), missing (a part the split file or an index lists
is absent: the error names it, and ``partial=true`` builds the rest with a note).
A UTF-8 byte-order mark is accepted (the rule of ucdcr.formats.inputs): a file with one reads like one without.
A few cases run ``ucdcr build`` in-process and check the exit code 2, the single error line and no traceback.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shutil
import struct
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.fixtures.raw.cd2cr import write_cd2cr_raw_folder
from tests.fixtures.raw.cerec import THREAD, write_zip
from tests.fixtures.raw.ecbplus import write_ecbplus_raw
from tests.fixtures.raw.ecbplus_metam import write_ecbplus_metam_raw
from tests.fixtures.raw.fcct import write_fcct_raw
from tests.fixtures.raw.gvc import write_gvc_raw
from tests.fixtures.raw.hypercoref import write_hypercoref_raw
from tests.fixtures.raw.meantime import MEANTIME_ROOT, write_meantime_raw_folder
from tests.fixtures.raw.newswcl50r import write_newswcl50r_raw
from tests.fixtures.raw.nident import write_nident_raw
from tests.fixtures.raw.np4e import write_np4e_raw_folder
from tests.fixtures.raw.wec_eng import write_wec_eng_raw
from typer.testing import CliRunner

from ucdcr.cli.app import app
from ucdcr.errors import FormatError, MissingRawData, UcdcrError
from ucdcr.records import SourceCorpus
from ucdcr.registry import get

# --- the valid raw folders ------------------------------------------------------------------------------------


def write_cerec(raw: Path) -> None:
    """CEREC: the final zip with the val and test files, and train as an extracted seed.conll."""
    other = THREAD.replace("allen-p_inbox_1.txt", "allen-p_inbox_2.txt")
    write_zip(
        raw / "CEREC/data/COLING/cerec.zip",
        {"cerec/cerec.validation.20.conll": THREAD, "cerec/cerec.validation.14.conll": other},
    )
    (raw / "CEREC/data/COLING/seed.conll").write_text(THREAD.replace("inbox_1", "inbox_3"), encoding="utf-8")


def write_ecb_zip(raw: Path) -> None:
    """ECB+ as the original download: ECB+.zip (root ECB+/) instead of the extracted tree."""
    write_ecbplus_raw(raw)
    corpus = raw / "ECBplus/ECB+_LREC2014"
    with zipfile.ZipFile(corpus / "ECB+.zip", "w") as archive:
        for path in sorted((corpus / "ECB+").rglob("*.xml")):
            archive.write(path, f"ECB+/{path.relative_to(corpus / 'ECB+').as_posix()}")
    shutil.rmtree(corpus / "ECB+")


WRITERS: dict[str, Callable[[Path], Any]] = {
    "ecbplus": write_ecbplus_raw,
    "ecbplus_zip": write_ecb_zip,
    "meantime": lambda raw: write_meantime_raw_folder(raw / "MEANTIME"),
    "np4e": lambda raw: write_np4e_raw_folder(raw / "NP4E"),
    "nident": write_nident_raw,
    "cd2cr": lambda raw: write_cd2cr_raw_folder(raw / "CD2CR"),
    "cerec": write_cerec,
    "gvc": write_gvc_raw,
    "wec_eng": write_wec_eng_raw,
    "ecbplus_metam": write_ecbplus_metam_raw,
    "newswcl50r": write_newswcl50r_raw,
    "fcct": write_fcct_raw,
    "hypercoref": write_hypercoref_raw,
}

# files of the fixtures, relative to the raw dir
ECB_DOC = "ECBplus/ECB+_LREC2014/ECB+/1/1_1ecb.xml"
ECB_CSV = "ECBplus/ECB+_LREC2014/ECBplus_coreference_sentences.csv"
ECB_SPLIT = "ECBplus/ucdcr-meta/train_val_test_split.json"
ECB_NAMES = "ECBplus/ucdcr-meta/subtopic_names.json"
ECB_ZIP = "ECBplus/ECB+_LREC2014/ECB+.zip"
MEANTIME_ZIP = "MEANTIME/meantime_newsreader_english_oct15.zip"
MEANTIME_SPLIT = "MEANTIME/ucdcr-meta/train_val_test_split.json"
MEANTIME_MEMBER = f"{MEANTIME_ROOT}/corpus_airbus/100_Airbus_A380.xml"
NP4E_WORDS = "NP4E/mmax2/bukavu/Basedata/11newsML_words.xml"
NP4E_COREF = "NP4E/mmax2/bukavu/markables/11newsML_coref_level.xml"
NP4E_PROJECT = "NP4E/mmax2/bukavu/11newsML.mmax"
NP4E_SPLIT = "NP4E/ucdcr-meta/train_val_test_split.json"
NIDENT_DOC = "NIdent/english-corpus/20111107.near2_381791newsML.xml"
NIDENT_SPLIT = "NIdent/ucdcr-meta/train_val_test_split.json"
NIDENT_MAPPING = "NIdent/nident_mapping.csv"
CD2CR_CONLL = "CD2CR/CDCR_Corpus/train.conll"
CD2CR_ENTITIES = "CD2CR/CDCR_Corpus/train_entities.json"
CD2CR_NEWS = "CD2CR/CDCR_Corpus/news_urls.json"
CEREC_ZIP = "CEREC/data/COLING/cerec.zip"
CEREC_SEED = "CEREC/data/COLING/seed.conll"
CEREC_MEMBER = "cerec/cerec.validation.20.conll"
GVC_CONLL = "GVC/verbose.conll"
GVC_MAP = "GVC/gvc_doc_to_event.csv"
GVC_TRAIN = "GVC/train.csv"
WEC_TRAIN = "WEC-Eng/Train_Event_gold_mentions.json"
WEC_TOPICS = "WEC-Eng/ucdcr-meta/topics/topics.json"
WEC_MAP = "WEC-Eng/ucdcr-meta/topics/topics_train.csv"
METAM_MAP = "ECBplusMETAm/ecbplus_metam.json"
METAM_SPLIT = "ECBplusMETAm/ucdcr-meta/train_val_test_split.json"
METAM_ECB_DOC = "ECBplus/ECB+_LREC2014/ECB+/36/36_1ecb.xml"
NEWS_CSV = "NewsWCL50r/NewsWCL50r/csv_export/0_PompeoTrip.csv"
NEWS_CONCEPTS = "NewsWCL50r/ucdcr-meta/2025_annot/aggr_m_conceptcategorization.csv"
NEWS_ARTICLE = "NewsWCL50r/NewsWCL50r/json_text/0/0_L.json"
NEWS_SPLIT = "NewsWCL50r/ucdcr-meta/train_val_test_split.json"
FCC_TOKENS = "FCC/2020-10-05_FCC_cleaned/train/tokens.csv"
FCC_DOCUMENTS = "FCC/2020-10-05_FCC_cleaned/train/documents.csv"
FCC_ACTIONS = "FCC/2020-10-05_FCC-T/train/with_stacked_actions/cross_subtopic_mentions_action.csv"
HYPER = "HyperCoref/bbc.com/6_CreateSplitsStage_create_splits/train"

# --- ways files break --------------------------------------------------------------------------------------------

Break = Callable[[Path], None]


def latin1(relative: str) -> Break:
    """A Latin-1 "é" at the end of the first line (a file saved in Latin-1 / Windows-1252)."""

    def breaks(raw: Path) -> None:
        path = raw / relative
        data = path.read_bytes()
        end = data.find(b"\n")
        path.write_bytes(data + b"caf\xe9" if end < 0 else data[:end] + b" caf\xe9" + data[end:])

    return breaks


def utf16(relative: str, bom: bool = True) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        path.write_bytes(path.read_text(encoding="utf-8-sig").encode("utf-16" if bom else "utf-16-le"))

    return breaks


def truncate(relative: str, keep: float = 0.6) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * keep)])

    return breaks


def replace(relative: str, old: str, new: str) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        text = path.read_text(encoding="utf-8")
        assert old in text, f"fixture {relative} has no {old!r}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return breaks


def write(relative: str, text: str) -> Break:
    def breaks(raw: Path) -> None:
        (raw / relative).write_text(text, encoding="utf-8")

    return breaks


def edit_json(relative: str, change: Callable[[Any], Any]) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        path.write_text(json.dumps(change(json.loads(path.read_text(encoding="utf-8")))), encoding="utf-8")

    return breaks


def first_record(field: str, value: Any) -> Callable[[Any], Any]:
    """Set ``field`` of the first record of a JSON list (or of the first value of a JSON object)."""

    def change(data: Any) -> Any:
        record = data[0] if isinstance(data, list) else next(iter(data.values()))
        record[field] = value
        return data

    return change


def to_folder(relative: str) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        path.unlink()
        path.mkdir()
        (path / "stray.txt").write_text("a folder where a file belongs", encoding="utf-8")

    return breaks


def unreadable(relative: str) -> Break:
    def breaks(raw: Path) -> None:
        (raw / relative).chmod(0)

    return breaks


def remove(relative: str) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        shutil.rmtree(path) if path.is_dir() else path.unlink()

    return breaks


def rewrite_member(relative: str, member: str, change: Callable[[bytes], bytes]) -> Break:
    """Rewrite one member of a zip archive (the other members unchanged)."""

    def breaks(raw: Path) -> None:
        path = raw / relative
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, change(data) if name == member else data)

    return breaks


def corrupt_zip(relative: str, member: str, how: str) -> Break:
    """``crc``: a changed byte of a stored member (Bad CRC-32); ``zlib``: corrupt deflate data; ``eof``: the central
    directory claims more data than the member has (the read runs into the end of the file)."""

    def breaks(raw: Path) -> None:
        path = raw / relative
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        order = [name for name in members if name != member] + [member]  # the member last: "eof" reads to the end
        compression = zipfile.ZIP_DEFLATED if how == "zlib" else zipfile.ZIP_STORED
        with zipfile.ZipFile(path, "w", compression) as archive:
            for name in order:
                archive.writestr(name, members[name])
        data = bytearray(path.read_bytes())
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(member)
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        if how == "crc":
            data[start + info.compress_size // 2] ^= 0x01
        elif how == "zlib":
            data[start] = 0xFF
        else:
            name = info.filename.encode()
            entry = data.find(b"PK\x01\x02")  # the central directory entries, in member order
            while data[entry + 46 : entry + 46 + len(name)] != name:
                entry = data.find(b"PK\x01\x02", entry + 4)
            struct.pack_into("<II", data, entry + 20, 10**6, 10**6)
        path.write_bytes(bytes(data))

    return breaks


def edit_parquet(
    relative: str, column: str, values: Callable[[list[Any]], list[Any]], kind: pa.DataType | None = None
) -> Break:
    def breaks(raw: Path) -> None:
        path = raw / relative
        table = pq.read_table(path)
        new = pa.array(values(table.column(column).to_pylist()), type=kind or table.schema.field(column).type)
        pq.write_table(table.set_column(table.schema.get_field_index(column), column, new), path)

    return breaks


def both(*steps: Break) -> Break:
    def breaks(raw: Path) -> None:
        for step in steps:
            step(raw)

    return breaks


# --- the cases ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    dataset: str  # a key of WRITERS (the registry id, or ecbplus_zip for ECB+ read from its zip)
    category: str
    name: str
    breaks: Break
    file: str  # must be in the message (the file, or archive:member)
    problem: str  # a regex the message must match
    error: type[UcdcrError] = FormatError

    @property
    def reader(self) -> str:
        return self.dataset.removesuffix("_zip")


NOT_UTF8 = r"not UTF-8 text: byte 0xe9 .*expected UTF-8"
UTF16 = r"the file is UTF-16 text .*expected UTF-8"
NUL = r"NUL byte .*UTF-16 text or a binary file.*expected UTF-8"
FOLDER = r"is a folder, expected a (zip |Parquet )?file"
DENIED = r"cannot read the file: permission denied"
BAD_ZIP = r"not a readable zip archive \(File is not a zip file\)"
CRC = r"corrupt zip member \(Bad CRC-32"
ZLIB = r"corrupt zip member \(its compressed data is corrupt: Error -3"
EOF = r"corrupt zip member \(its data ends early: the archive is truncated\)"
XML = r"malformed XML( \(column \d+\))?: "
JSON = r"invalid JSON: "


def encoding_cases(dataset: str, relative: str, label: str | None = None) -> list[Case]:
    name = label or Path(relative).name
    return [
        Case(dataset, "encoding", f"latin-1 {name}", latin1(relative), Path(relative).name, NOT_UTF8),
        Case(dataset, "encoding", f"utf-16 {name}", utf16(relative), Path(relative).name, UTF16),
        Case(dataset, "encoding", f"utf-16 without BOM {name}", utf16(relative, bom=False), Path(relative).name, NUL),
    ]


def unreadable_cases(dataset: str, relative: str, permission: bool = True) -> list[Case]:
    file = Path(relative).name
    cases = [Case(dataset, "unreadable", f"folder instead of {file}", to_folder(relative), file, FOLDER)]
    if permission:
        cases.append(Case(dataset, "unreadable", f"no permission on {file}", unreadable(relative), file, DENIED))
    return cases


def zip_cases(dataset: str, relative: str, member: str) -> list[Case]:
    archive, label = Path(relative).name, f"{Path(relative).name}:{member}"
    return [
        Case(dataset, "zip", "truncated zip", truncate(relative), archive, BAD_ZIP),
        Case(dataset, "zip", "not a zip", write(relative, "<html>404 Not Found</html>"), archive, BAD_ZIP),
        Case(dataset, "zip", "CRC failure", corrupt_zip(relative, member, "crc"), label, CRC),
        Case(dataset, "zip", "corrupt deflate data", corrupt_zip(relative, member, "zlib"), label, ZLIB),
        Case(dataset, "zip", "member ends early", corrupt_zip(relative, member, "eof"), label, EOF),
        Case(
            dataset,
            "zip",
            "latin-1 member",
            rewrite_member(relative, member, lambda b: b.replace(b"\n", b" \xe9\n", 1)),
            label,
            NOT_UTF8,
        ),
        Case(
            dataset,
            "zip",
            "utf-16 member",
            rewrite_member(relative, member, lambda b: b.decode().encode("utf-16")),
            label,
            UTF16,
        ),
        Case(
            dataset,
            "zip",
            "truncated member",
            rewrite_member(relative, member, lambda b: b[: len(b) // 2]),
            label,
            XML if member.endswith(".xml") else r"not closed|no documents|expected 7 columns",
        ),
    ]


def split_file_cases(dataset: str, relative: str, list_split: str = "train") -> list[Case]:
    file = Path(relative).name
    return [
        Case(dataset, "syntax", "split file invalid JSON", truncate(relative), file, JSON),
        Case(
            dataset,
            "shape",
            "split file is a list",
            write(relative, "[1, 2, 3]"),
            file,
            r"the split file must be an object split -> list of ids, got a list of 3",
        ),
        Case(
            dataset,
            "shape",
            "a number where a list of ids belongs",
            edit_json(relative, lambda d: {**d, list_split: 7}),
            file,
            rf"split '{list_split}' \(a list of ids\) must be a list, got the integer 7",
        ),
        Case(
            dataset,
            "shape",
            "a string of ids (read letter by letter)",
            edit_json(relative, lambda d: {**d, list_split: ",".join(map(str, d[list_split]))}),
            file,
            rf"split '{list_split}' \(a list of ids\) must be a list, got the string",
        ),
        Case(
            dataset,
            "type",
            "null id",
            edit_json(relative, lambda d: {**d, list_split: [*d[list_split], None]}),
            file,
            r"element \d+ must be an id \(a string or an integer\), got null",
        ),
    ]


CASES: list[Case] = [
    # ECB+ (CAT XML tree, sentence CSV, uCDCR JSON) and ECB+.zip
    *encoding_cases("ecbplus", ECB_DOC),
    *encoding_cases("ecbplus", ECB_CSV),
    Case("ecbplus", "truncated", "truncated document", truncate(ECB_DOC), "1_1ecb.xml", XML + "(Premature end|.*)"),
    Case(
        "ecbplus",
        "syntax",
        "mismatched tag",
        replace(ECB_DOC, "</token>", "</tokn>"),
        "1_1ecb.xml",
        r"1_1ecb\.xml:2: malformed XML \(column \d+\): Opening and ending tag mismatch: token line 2 and tokn$",
    ),
    Case(
        "ecbplus",
        "syntax",
        "relation without target",
        replace(ECB_DOC, '<target m_id="43"/>', ""),
        "1_1ecb.xml",
        r"relation 1 <CROSS_DOC_COREF> has 0 targets, expected one",
    ),
    Case(
        "ecbplus",
        "type",
        "sentence number not an integer",
        replace(ECB_DOC, 'sentence="0"', 'sentence="first"'),
        "1_1ecb.xml",
        r"sentence 'first' of <token> is not an integer",
    ),
    Case(
        "ecbplus",
        "syntax",
        "bad CSV row",
        replace(ECB_CSV, "1,1ecb,0", "1,1ecb,first"),
        "coreference_sentences.csv",
        r":2: bad row .*expected <topic number>,<file>,<sentence number>",
    ),
    Case(
        "ecbplus",
        "syntax",
        "CSV with an open quote",
        replace(ECB_CSV, "1,1ecb,0", '1,"1ecb,0'),
        "coreference_sentences.csv",
        r"bad row",
    ),
    *split_file_cases("ecbplus", ECB_SPLIT),
    Case(
        "ecbplus",
        "shape",
        "subtopic names are a list",
        write(ECB_NAMES, '["1ecb"]'),
        "subtopic_names.json",
        r"the file must be an object subtopic id -> name, got a list",
    ),
    Case(
        "ecbplus",
        "type",
        "subtopic name is null",
        edit_json(ECB_NAMES, lambda d: {**d, "1ecb": None}),
        "subtopic_names.json",
        r"the name of subtopic '1ecb' must be a string, got null",
    ),
    *unreadable_cases("ecbplus", ECB_DOC),
    *unreadable_cases("ecbplus", ECB_SPLIT),
    Case(
        "ecbplus",
        "missing",
        "topic folder of the split file absent",
        remove("ECBplus/ECB+_LREC2014/ECB+/2"),
        "train_val_test_split.json",
        r"topic folders listed in the split file but not found: 2 \(split\(s\) val "
        r"would be empty\)",
        MissingRawData,
    ),
    Case(
        "ecbplus",
        "missing",
        "document of the sentence CSV absent",
        remove("ECBplus/ECB+_LREC2014/ECB+/1/1_2ecb.xml"),
        "coreference_sentences.csv",
        r"documents listed here but not in the corpus: 1_2ecb\.xml",
        MissingRawData,
    ),
    *zip_cases("ecbplus_zip", ECB_ZIP, "ECB+/1/1_1ecb.xml"),
    *unreadable_cases("ecbplus_zip", ECB_ZIP),
    # MEANTIME (CAT XML in a zip)
    *zip_cases("meantime", MEANTIME_ZIP, MEANTIME_MEMBER),
    *unreadable_cases("meantime", MEANTIME_ZIP),
    *split_file_cases("meantime", MEANTIME_SPLIT),
    Case(
        "meantime",
        "syntax",
        "refers_to with two targets",
        rewrite_member(
            MEANTIME_ZIP,
            MEANTIME_MEMBER,
            lambda b: b.replace(b'<target m_id="11"/>', b'<target m_id="11"/><target m_id="12"/>'),
        ),
        "100_Airbus_A380.xml",
        r"relation 2 <REFERS_TO> has 2 targets, expected one",
    ),
    Case(
        "meantime",
        "missing",
        "topic folder of the split file absent",
        edit_json(MEANTIME_SPLIT, lambda d: {**d, "val": [1]}),
        "train_val_test_split.json",
        r"topics .* not found: 1 \(corpus_apple\) \(split\(s\) val would be empty\)",
        MissingRawData,
    ),
    # NP4E (MMAX2)
    *encoding_cases("np4e", NP4E_WORDS),
    *encoding_cases("np4e", NP4E_COREF),
    Case("np4e", "truncated", "truncated markables", truncate(NP4E_COREF), "11newsML_coref_level.xml", XML),
    Case(
        "np4e",
        "syntax",
        "project without <words>",
        write(NP4E_PROJECT, "<mmax_project/>"),
        "11newsML.mmax",
        r"project file has no <words> entry",
    ),
    Case(
        "np4e",
        "syntax",
        "span with an unknown word",
        replace(NP4E_COREF, 'span="word_6"', 'span="word_99"'),
        "11newsML_coref_level.xml",
        r"names unknown word id 'word_99'",
    ),
    *split_file_cases("np4e", NP4E_SPLIT),
    *unreadable_cases("np4e", NP4E_WORDS),
    Case(
        "np4e",
        "missing",
        "event folder of the split file absent",
        remove("NP4E/mmax2/peru"),
        "train_val_test_split.json",
        r"subtopics .* not found: 3 \(peru\) \(split\(s\) test would be empty\)",
        MissingRawData,
    ),
    Case(
        "np4e",
        "layout",
        "unknown event folder",
        lambda raw: shutil.copytree(raw / "NP4E/mmax2/peru", raw / "NP4E/mmax2/lima"),
        "mmax2/lima",
        r"unknown event folder 'lima'; NP4E's are bukavu, china, israel, peru, tajikistan",
    ),
    # NIdent (inline XML + the NP4E tree)
    *encoding_cases("nident", NIDENT_DOC),
    Case("nident", "truncated", "truncated document", truncate(NIDENT_DOC), "381791newsML.xml", XML),
    Case(
        "nident",
        "syntax",
        "identdegree not 1-3",
        replace(NIDENT_DOC, 'identdegree="2"', 'identdegree="high"'),
        "381791newsML.xml",
        r"identdegree 'high' is not 1, 2 or 3",
    ),
    Case(
        "nident",
        "syntax",
        "mapping CSV without its columns",
        write(NIDENT_MAPPING, "a,b\n1,2\n"),
        "nident_mapping.csv",
        r":1: missing column\(s\) subtopic_id, doc_id, coref_chain, unified_id",
    ),
    Case(
        "nident",
        "syntax",
        "mapping CSV row of the wrong length",
        write(NIDENT_MAPPING, "subtopic_id,doc_id,coref_chain,unified_id\n0_bukavu,381791,entity1\n"),
        "nident_mapping.csv",
        r":2: expected 4 fields \(as the header\), found 3",
    ),
    Case(
        "nident",
        "encoding",
        "utf-16 mapping CSV",
        both(write(NIDENT_MAPPING, "subtopic_id,doc_id,coref_chain,unified_id\n"), utf16(NIDENT_MAPPING)),
        "nident_mapping.csv",
        UTF16,
    ),
    *split_file_cases("nident", NIDENT_SPLIT),
    *unreadable_cases("nident", NIDENT_DOC),
    Case(
        "nident",
        "missing",
        "subtopic of the split file without documents",
        edit_json(NIDENT_SPLIT, lambda d: {**d, "val": ["3"]}),
        "train_val_test_split.json",
        r"subtopics with NIdent documents listed in the split file but not found: 3 \(peru\)",
        MissingRawData,
    ),
    # CD2CR (CoNLL + JSON)
    *encoding_cases("cd2cr", CD2CR_CONLL),
    *encoding_cases("cd2cr", CD2CR_ENTITIES),
    Case(
        "cd2cr",
        "syntax",
        "CoNLL line with 7 columns",
        replace(CD2CR_CONLL, "\tTrue\t-", "\t-"),
        "train.conll",
        r"train\.conll:2: expected 8 tab-separated columns, found 7",
    ),
    Case(
        "cd2cr",
        "type",
        "CoNLL token id not an integer",
        replace(CD2CR_CONLL, "\t0\t0\tA\t", "\t0\tzero\tA\t"),
        "train.conll",
        r"token id 'zero' is not an integer",
    ),
    Case("cd2cr", "truncated", "truncated entities", truncate(CD2CR_ENTITIES), "train_entities.json", JSON),
    Case(
        "cd2cr",
        "shape",
        "entities are an object",
        write(CD2CR_ENTITIES, '{"0": {}}'),
        "train_entities.json",
        r"the file must be a list of mention records, got an object",
    ),
    Case(
        "cd2cr",
        "shape",
        "a record is a list",
        edit_json(CD2CR_ENTITIES, lambda d: [[1, 2], *d]),
        "train_entities.json",
        r"record 0 must be an object, got a list",
    ),
    Case(
        "cd2cr",
        "shape",
        "tokens_ids as a string",
        edit_json(CD2CR_ENTITIES, first_record("tokens_ids", "0 1 2")),
        "train_entities.json",
        r"record 0: field 'tokens_ids' must be a list, got the string '0 1 2'",
    ),
    Case(
        "cd2cr",
        "type",
        "sentence_id 'first'",
        edit_json(CD2CR_ENTITIES, first_record("sentence_id", "first")),
        "train_entities.json",
        r"record 0: field 'sentence_id' must be an integer, got the string 'first'",
    ),
    Case(
        "cd2cr",
        "type",
        "sentence_id null",
        edit_json(CD2CR_ENTITIES, first_record("sentence_id", None)),
        "train_entities.json",
        r"record 0: field 'sentence_id' must be an integer, got null",
    ),
    Case(
        "cd2cr",
        "type",
        "a token id that is a number",
        edit_json(CD2CR_ENTITIES, first_record("tokens_ids", [0, 1.5])),
        "train_entities.json",
        r"tokens_ids, element 1 must be an integer, got the number 1\.5",
    ),
    Case(
        "cd2cr",
        "shape",
        "news names are a list",
        write(CD2CR_NEWS, '["http://x.org"]'),
        "news_urls.json",
        r"the file must be an object number -> \{'url': \.\.\.\}, got a list",
    ),
    Case(
        "cd2cr",
        "type",
        "news url null",
        write(CD2CR_NEWS, '{"7": {"url": null}}'),
        "news_urls.json",
        r"entry '7': field 'url' must be a string, got null",
    ),
    *unreadable_cases("cd2cr", CD2CR_CONLL),
    *unreadable_cases("cd2cr", CD2CR_ENTITIES),
    # CEREC (e-mail CoNLL in a zip, or extracted)
    *zip_cases("cerec", CEREC_ZIP, CEREC_MEMBER),
    *unreadable_cases("cerec", CEREC_ZIP),
    *encoding_cases("cerec", CEREC_SEED),
    Case(
        "cerec",
        "syntax",
        "line with single tabs",
        replace(CEREC_SEED, "rita\t\t1", "rita\t1"),
        "seed.conll",
        r"seed\.conll:4: expected 7 columns separated by double tabs",
    ),
    Case(
        "cerec",
        "syntax",
        "mention never closed",
        replace(CEREC_SEED, "16)", "-"),
        "seed.conll",
        r"ends with mention\(s\) never closed: '\(16' at line 4",
    ),
    Case(
        "cerec",
        "truncated",
        "truncated file",
        truncate(CEREC_SEED),
        "seed.conll",
        r"not closed|no documents|expected 7 columns",
    ),
    *unreadable_cases("cerec", CEREC_SEED),
    # GVC (CoNLL + CSVs)
    *encoding_cases("gvc", GVC_CONLL),
    *encoding_cases("gvc", GVC_MAP),
    Case(
        "gvc",
        "truncated",
        "truncated verbose.conll",
        truncate(GVC_CONLL),
        "verbose.conll",
        r"has no #end document \(file truncated\?\)|expected 5 tab-separated",
    ),
    Case(
        "gvc",
        "syntax",
        "chain column not a bracket",
        replace(GVC_CONLL, "\t(123)", "\t[123]"),
        "verbose.conll",
        r"bad chain column '\[123\]'",
    ),
    Case(
        "gvc",
        "syntax",
        "mapping row with a text incident",
        replace(GVC_MAP, ",610379", ",six"),
        "gvc_doc_to_event.csv",
        r":2: expected '<doc-id>,<numeric event-id>'",
    ),
    Case(
        "gvc",
        "syntax",
        "split row without incident",
        write(GVC_TRAIN, "0\n"),
        "train.csv",
        r"train\.csv:1: expected '<row>,<numeric event-id>'",
    ),
    *unreadable_cases("gvc", GVC_CONLL),
    *unreadable_cases("gvc", GVC_TRAIN),
    Case(
        "gvc",
        "missing",
        "incident of a split without documents",
        write("GVC/test.csv", "0,577792\n"),
        "verbose.conll",
        r"incident\(s\) listed in train\.csv, dev\.csv, test\.csv without any document here: 577792",
        MissingRawData,
    ),
    # WEC-Eng (JSON + topic CSVs)
    *encoding_cases("wec_eng", WEC_TRAIN),
    *encoding_cases("wec_eng", WEC_MAP),
    Case("wec_eng", "truncated", "truncated mention file", truncate(WEC_TRAIN), "Train_Event_gold_mentions.json", JSON),
    Case(
        "wec_eng",
        "shape",
        "mention file is an object",
        write(WEC_TRAIN, '{"mentions": []}'),
        "Train_Event_gold_mentions.json",
        r"the file must be a list of mention objects, got an object",
    ),
    Case(
        "wec_eng",
        "shape",
        "tokens_number as a string",
        edit_json(WEC_TRAIN, first_record("tokens_number", "9 10")),
        "Train_Event_gold_mentions.json",
        r"field 'tokens_number' must be a list, got the string '9 10'",
    ),
    Case(
        "wec_eng",
        "type",
        "mention_index 'first'",
        edit_json(WEC_TRAIN, first_record("mention_index", "first")),
        "Train_Event_gold_mentions.json",
        r"field 'mention_index' must be an integer, got the string 'first'",
    ),
    Case(
        "wec_eng",
        "type",
        "coref_chain null",
        edit_json(WEC_TRAIN, first_record("coref_chain", None)),
        "Train_Event_gold_mentions.json",
        r"field 'coref_chain' must be an id \(a string or an integer\), got null",
    ),
    Case(
        "wec_eng",
        "shape",
        "topic names are a number",
        write(WEC_TOPICS, "18"),
        "topics.json",
        r"the file \(a list of topic names\) must be a list, got the integer 18",
    ),
    Case(
        "wec_eng",
        "syntax",
        "topic map row of 3 columns",
        replace(WEC_MAP, "0,House of Pain,", "House of Pain,"),
        "topics_train.csv",
        r"topics_train\.csv:2: expected 4 columns",
    ),
    *unreadable_cases("wec_eng", WEC_TRAIN),
    # ECB+METAm (JSON mention map + the ECB+ reader)
    *encoding_cases("ecbplus_metam", METAM_MAP),
    Case("ecbplus_metam", "truncated", "truncated mention map", truncate(METAM_MAP), "ecbplus_metam.json", JSON),
    Case(
        "ecbplus_metam",
        "shape",
        "mention map is a list",
        edit_json(METAM_MAP, lambda d: list(d.values())),
        "ecbplus_metam.json",
        r"the file must be an object mention_id -> record, got a list",
    ),
    Case(
        "ecbplus_metam",
        "type",
        "sentence_id 'first'",
        edit_json(METAM_MAP, first_record("sentence_id", "first")),
        "ecbplus_metam.json",
        r"field 'sentence_id' must be an integer, got the string 'first'",
    ),
    Case(
        "ecbplus_metam",
        "type",
        "start_char null",
        edit_json(METAM_MAP, first_record("start_char", None)),
        "ecbplus_metam.json",
        r"field 'start_char' must be an integer, got null",
    ),
    Case(
        "ecbplus_metam",
        "shape",
        "topic as a list",
        edit_json(METAM_MAP, first_record("topic", ["36"])),
        "ecbplus_metam.json",
        r"field 'topic' must be an id \(a string or an integer\), got a list",
    ),
    *split_file_cases("ecbplus_metam", METAM_SPLIT, list_split="test"),
    Case("ecbplus_metam", "truncated", "truncated ECB+ document", truncate(METAM_ECB_DOC), "36_1ecb.xml", XML),
    *unreadable_cases("ecbplus_metam", METAM_MAP),
    # NewsWCL50r (MAXQDA CSV, concept CSV, news-please JSON)
    *encoding_cases("newswcl50r", NEWS_CSV),
    *encoding_cases("newswcl50r", NEWS_ARTICLE),
    Case(
        "newswcl50r",
        "type",
        "paragraph number 'first'",
        replace(
            NEWS_CSV,
            ",President Trump,maxku,07-May-18 09:22:49,,,15,0.17,1,1",
            ",President Trump,maxku,07-May-18 09:22:49,,,15,0.17,first,1",
        ),
        "0_PompeoTrip.csv",
        r"column 'Beginning' must be a paragraph number, got 'first'",
    ),
    Case(
        "newswcl50r",
        "syntax",
        "MAXQDA CSV without its columns",
        write(NEWS_CSV, "Color,Code\n●,x\n"),
        "0_PompeoTrip.csv",
        r":1: missing column\(s\) Document name, Segment, Beginning, End",
    ),
    Case(
        "newswcl50r",
        "syntax",
        "concept CSV row of the wrong length",
        replace(NEWS_CONCEPTS, "0,PRK,COUNTRY,", "0,PRK"),
        "aggr_m_conceptcategorization.csv",
        r"expected 4 fields \(as the header\), found 2",
    ),
    Case("newswcl50r", "truncated", "truncated article", truncate(NEWS_ARTICLE), "0_L.json", JSON),
    Case(
        "newswcl50r",
        "shape",
        "article is a list",
        write(NEWS_ARTICLE, '["title", "text"]'),
        "0_L.json",
        r"a news-please article must be an object, got a list",
    ),
    Case(
        "newswcl50r",
        "type",
        "text is a number",
        edit_json(NEWS_ARTICLE, lambda d: {**d, "text": 42}),
        "0_L.json",
        r"field 'text' \(a string or null\) must be a string, got the integer 42",
    ),
    *split_file_cases("newswcl50r", NEWS_SPLIT, list_split="val"),
    *unreadable_cases("newswcl50r", NEWS_CSV),
    *unreadable_cases("newswcl50r", NEWS_ARTICLE),
    Case(
        "newswcl50r",
        "missing",
        "topic of the split file without annotations",
        edit_json(NEWS_SPLIT, lambda d: {**d, "test": ["4", "5"]}),
        "train_val_test_split.json",
        r"topics \(annotation CSVs <topic>_<name>\.csv\) listed in the split file but not found: 5",
        MissingRawData,
    ),
    # FCC-T (CSV tables)
    *encoding_cases("fcct", FCC_TOKENS),
    *encoding_cases("fcct", FCC_ACTIONS),
    Case(
        "fcct",
        "type",
        "token index 'first'",
        replace(FCC_TOKENS, "t1,0,0,", "t1,0,first,"),
        "tokens.csv",
        r"column 'token-idx' must be an integer, got 'first'",
    ),
    Case(
        "fcct",
        "syntax",
        "row with a missing cell",
        replace(FCC_ACTIONS, "t1,0,0,2,3,", "t1,0,2,3,"),
        "cross_subtopic_mentions_action.csv",
        r":2: expected 6 fields \(as the header\), found 5",
    ),
    Case(
        "fcct",
        "syntax",
        "documents.csv without seminal-event",
        replace(FCC_DOCUMENTS, ",seminal-event", ""),
        "documents.csv",
        r"missing column\(s\) seminal-event",
    ),
    Case(
        "fcct",
        "truncated",
        "token table cut in a sentence",
        both(truncate(FCC_TOKENS, 0.5)),
        "tokens.csv",
        r"expected 4 fields|do not run|without tokens here",
    ),
    Case(
        "fcct",
        "syntax",
        "a token missing from its sentence",
        replace(FCC_TOKENS, "t1,0,2,Croatia\n", ""),
        "tokens.csv",
        r"document t1, sentence 0: token-idx values \[0, 1, 3, 4, 5, 6\] do not run 0\.\.5",
    ),
    *unreadable_cases("fcct", FCC_TOKENS),
    *unreadable_cases("fcct", FCC_ACTIONS),
    Case(
        "fcct",
        "missing",
        "document of documents.csv without tokens",
        replace(FCC_TOKENS, "t3,0,0,Belgium\nt3,0,1,lost\nt3,0,2,the\nt3,0,3,semi-final\nt3,0,4,.\n", ""),
        "tokens.csv",
        r"documents of documents\.csv without tokens here: t3",
    ),
    # HyperCoref (Parquet)
    Case(
        "hypercoref",
        "parquet",
        "empty tokens.parquet",
        write(f"{HYPER}/tokens.parquet", ""),
        "tokens.parquet",
        r"not a readable parquet file \(ArrowInvalid: .*",
    ),
    Case(
        "hypercoref",
        "parquet",
        "truncated hyperlinks.parquet",
        truncate(f"{HYPER}/hyperlinks.parquet"),
        "hyperlinks.parquet",
        r"not a readable parquet file",
    ),
    Case(
        "hypercoref",
        "parquet",
        "sentences.parquet is a CSV",
        write(f"{HYPER}/sentences.parquet", "a,b\n1,2\n"),
        "sentences.parquet",
        r"not a readable parquet file",
    ),
    Case(
        "hypercoref",
        "type",
        "sentence-idx as strings",
        edit_parquet(f"{HYPER}/hyperlinks.parquet", "sentence-idx", lambda v: [str(x) for x in v], pa.string()),
        "hyperlinks.parquet",
        r"column 'sentence-idx' has type string, expected integers",
    ),
    Case(
        "hypercoref",
        "type",
        "token column of integers",
        edit_parquet(f"{HYPER}/tokens.parquet", "token", lambda v: list(range(len(v))), pa.int64()),
        "tokens.parquet",
        r"column 'token' has type int64, expected strings",
    ),
    Case(
        "hypercoref",
        "type",
        "a null token",
        edit_parquet(f"{HYPER}/tokens.parquet", "token", lambda v: [None, *v[1:]]),
        "tokens.parquet",
        r"token 0 of sentence 0 of 'bbc\.com/sport/football/40001': null value",
    ),
    Case(
        "hypercoref",
        "type",
        "a null token span",
        edit_parquet(f"{HYPER}/hyperlinks.parquet", "token-idx-to", lambda v: [None, *v[1:]]),
        "hyperlinks.parquet",
        r"hyperlink 10: empty field\(s\) \['token-idx-to'\]",
    ),
    Case(
        "hypercoref",
        "syntax",
        "a token given twice",
        edit_parquet(f"{HYPER}/tokens.parquet", "token-idx", lambda v: [v[0], v[0], *v[2:]]),
        "tokens.parquet",
        r"token 0 of sentence 0 of 'bbc\.com/sport/football/40001' is given twice",
    ),
    *unreadable_cases("hypercoref", f"{HYPER}/tokens.parquet", permission=False),
    Case(
        "hypercoref",
        "missing",
        "linked document without tokens",
        edit_parquet(f"{HYPER}/tokens.parquet", "url-normalized", lambda v: [u.replace("40002", "49999") for u in v]),
        "tokens.parquet",
        r"1 linked document\(s\) have no tokens here: bbc\.com/sport/football/40002",
    ),
]


def case_id(case: Case) -> str:
    return f"{case.dataset}-{case.category}-{case.name}".replace(" ", "_")


def read(dataset: str, raw: Path, **extra: Any) -> SourceCorpus:
    spec = get(dataset.removesuffix("_zip"))
    return spec.read(raw / spec.raw_folder, extra)


@pytest.fixture
def permission_denied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a file with mode 000 unreadable also for root (who may read anything): opening it raises what the
    operating system raises for other users."""
    if os.name != "posix" or os.geteuid() != 0:
        return
    real_open = io.open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, Path)) and os.path.isfile(file) and os.stat(file).st_mode & 0o777 == 0:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", guarded_open)


@pytest.mark.parametrize("dataset", sorted(WRITERS))
def test_every_fixture_reads_before_it_is_broken(dataset: str, tmp_path: Path) -> None:
    WRITERS[dataset](tmp_path / "raw")
    corpus = read(dataset, tmp_path / "raw")
    assert corpus.documents and corpus.mentions


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_broken_input_gives_one_clear_error(case: Case, tmp_path: Path, permission_denied: None) -> None:
    raw = tmp_path / "raw"
    WRITERS[case.dataset](raw)
    case.breaks(raw)
    with pytest.raises(UcdcrError) as info:
        read(case.dataset, raw)
    message = str(info.value)
    assert type(info.value) is case.error, message
    assert case.file in message, message
    assert re.search(case.problem, message), message
    assert "\n" not in message and "Traceback" not in message


def test_the_corpus_covers_every_reader_and_category() -> None:
    readers = {case.reader for case in CASES}
    assert readers == {
        "ecbplus",
        "meantime",
        "np4e",
        "nident",
        "cd2cr",
        "cerec",
        "gvc",
        "wec_eng",
        "ecbplus_metam",
        "newswcl50r",
        "fcct",
        "hypercoref",
    }
    categories = {reader: {case.category for case in CASES if case.reader == reader} for reader in readers}
    for reader, found in categories.items():  # every reader: bad bytes, a cut file, and a file it cannot read
        assert (
            {"unreadable"} <= found
            and found & {"encoding", "zip", "parquet"}
            and found & {"truncated", "zip", "parquet"}
        ), reader
    json_readers = {"ecbplus", "meantime", "np4e", "nident", "cd2cr", "wec_eng", "ecbplus_metam", "newswcl50r"}
    assert all({"shape", "type"} <= categories[reader] for reader in json_readers)
    assert {"zip"} <= categories["meantime"] & categories["cerec"] & categories["ecbplus"]
    listed = {"ecbplus", "meantime", "np4e", "nident", "gvc", "newswcl50r", "fcct", "hypercoref"}
    assert all("missing" in categories[reader] for reader in listed)


# --- the UTF-8 byte-order mark is accepted -----------------------------------------------------------------------

BOM_FILES = [
    ("ecbplus", ECB_DOC),
    ("ecbplus", ECB_CSV),
    ("ecbplus", ECB_SPLIT),
    ("np4e", NP4E_WORDS),
    ("nident", NIDENT_DOC),
    ("cd2cr", CD2CR_CONLL),
    ("cd2cr", CD2CR_ENTITIES),
    ("cerec", CEREC_SEED),
    ("gvc", GVC_CONLL),
    ("gvc", GVC_MAP),
    ("wec_eng", WEC_TRAIN),
    ("wec_eng", WEC_MAP),
    ("ecbplus_metam", METAM_MAP),
    ("newswcl50r", NEWS_ARTICLE),
    ("fcct", FCC_TOKENS),
]


def snapshot(corpus: SourceCorpus) -> Any:
    return (
        [dataclasses.asdict(d) for d in corpus.documents],
        [dataclasses.asdict(m) for m in corpus.mentions],
        corpus.dropped,
        corpus.counts,
    )


@pytest.mark.parametrize(("dataset", "relative"), BOM_FILES, ids=lambda value: Path(str(value)).name)
def test_utf8_byte_order_mark_is_accepted(dataset: str, relative: str, tmp_path: Path) -> None:
    WRITERS[dataset](tmp_path / "plain")
    WRITERS[dataset](tmp_path / "bom")
    path = tmp_path / "bom" / relative
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    expected = snapshot(read(dataset, tmp_path / "plain"))
    got = snapshot(read(dataset, tmp_path / "bom"))
    assert json.dumps(got, default=str).replace(str(tmp_path / "bom"), "") == json.dumps(expected, default=str).replace(
        str(tmp_path / "plain"), ""
    )


# --- partial=true builds what is there and says what is missing --------------------------------------------------

PARTIAL = [
    case
    for case in CASES
    if (case.category == "missing" and case.error is MissingRawData)
    or (case.category == "missing" and case.dataset in ("fcct", "hypercoref"))
]


@pytest.mark.parametrize("case", PARTIAL, ids=case_id)
def test_partial_option_reads_the_rest_and_notes_what_is_missing(case: Case, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    WRITERS[case.dataset](raw)
    case.breaks(raw)
    corpus = read(case.dataset, raw, partial=True)
    notes = [note for note in corpus.notes if note.startswith("partial corpus (option partial=true)")]
    assert any(re.search(case.problem, note) for note in notes), corpus.notes
    assert corpus.documents


def test_partial_keeps_numbering_and_splits(tmp_path: Path) -> None:
    """NP4E without its event folder 'bukavu' (0): peru stays subtopic 3 in test, nothing is renumbered."""
    raw = tmp_path / "raw"
    write_np4e_raw_folder(raw / "NP4E")
    shutil.rmtree(raw / "NP4E/mmax2/bukavu")
    corpus = read("np4e", raw, partial="true")
    assert Counter((d.subtopic_id, d.split) for d in corpus.documents) == {("3_peru", "test"): 2}


def test_partial_option_value_must_be_a_boolean(tmp_path: Path) -> None:
    write_np4e_raw_folder(tmp_path / "raw" / "NP4E")
    with pytest.raises(UcdcrError, match=r"reader option partial='maybe': expected true or false"):
        read("np4e", tmp_path / "raw", partial="maybe")


# --- through the CLI ---------------------------------------------------------------------------------------------

CLI_CASES = [
    case
    for case in CASES
    if (case.dataset, case.name)
    in {
        ("cd2cr", "sentence_id 'first'"),
        ("meantime", "CRC failure"),
        ("ecbplus", "utf-16 1_1ecb.xml"),
        ("hypercoref", "empty tokens.parquet"),
        ("np4e", "a string of ids (read letter by letter)"),
    }
]


@pytest.mark.parametrize("case", CLI_CASES, ids=case_id)
def test_cli_build_prints_one_error_line_and_exits_2(case: Case, tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    WRITERS[case.dataset](raw)
    case.breaks(raw)
    result = CliRunner().invoke(
        app,
        ["build", case.reader, "--raw-dir", str(raw), "--data-dir", str(tmp_path / "data"), "--quiet", "--jobs", "1"],
    )
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    naming = [line for line in result.output.splitlines() if case.file in line]
    assert len(naming) == 1 and f"{case.reader}: not built:" in naming[0] and re.search(case.problem, naming[0])


def test_cli_partial_option_builds_and_reports_what_is_missing(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    write_np4e_raw_folder(raw / "NP4E")
    (raw / NP4E_SPLIT).write_text(json.dumps({"train": ["0", "1"], "val": [], "test": ["3"]}), encoding="utf-8")
    args = ["build", "np4e", "--raw-dir", str(raw), "--data-dir", str(tmp_path / "data"), "--quiet", "--jobs", "1"]
    refused = CliRunner().invoke(app, args)
    assert (
        refused.exit_code == 2
        and "not found: 1 (china)" in refused.output
        and "--option partial=true" in refused.output
    )
    built = CliRunner().invoke(app, [*args, "--option", "partial=true"])
    assert built.exit_code == 0, built.output
    report = json.loads((tmp_path / "data" / "np4e" / "build_report.json").read_text(encoding="utf-8"))
    assert any("partial corpus" in note and "1 (china)" in note for note in report["notes"])
