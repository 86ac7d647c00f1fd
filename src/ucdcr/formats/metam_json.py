"""ECB+META_m paraphrase files (Ahmed et al. 2024, ahmeshaf/llms_coref; uCDCR's JSON conversion).

Final file ``ecbplus_metam.json`` (what uCDCR parses): a JSON object ``mention_id -> record`` in the
llms_coref ``mention_map`` style, one record per ECB+ val/test mention, the sentence being the metaphoric
paraphrase where the event trigger was paraphrased::

    {"mention_id": "12_10ecb.xml_5", "topic": "12", "doc_id": "12_10ecb.xml", "m_id": "5", "sentence_id": "0",
     "sentence": "...", "marked_sentence": "... <m> captured </m> ...", "mention_text": "captured",
     "token_start": 4, "token_end": 4, "start_char": 20, "end_char": 28, "gold_cluster": "ACT1740...",
     "men_type": "evt", ...}

Required here: doc_id, topic, m_id, sentence_id, sentence, mention_text, start_char, end_char (uCDCR also reads
marked_sentence and token_start/token_end; they are kept when present). A record is identified by
``(doc_id, m_id)`` (= the ECB+ file and markable id).

Superseded draft ``project/corpus/ecb_meta/tasks.json`` (llms_coref, 2023-12): a JSON list of Prodigy tasks
``{"mention_id", "old_sentence" (with <mark id="mark"> trigger </mark>), "text" (the paraphrase), "trigger",
"spans": [{"token_start", "token_end", "start", "end", "text", "label"}]}`` -- a different, earlier format, read
only as a format sample (:func:`read_draft_tasks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.formats.json_files import JsonKind, expect, field, int_of, read_json

REQUIRED_FIELDS = ("doc_id", "topic", "m_id", "sentence_id", "sentence", "mention_text", "start_char", "end_char")
DRAFT_FIELDS: dict[str, JsonKind] = {
    "mention_id": "string",
    "old_sentence": "string",
    "text": "string",
    "trigger": "string",
    "spans": "list",
}
DRAFT_SPAN_FIELDS: dict[str, JsonKind] = {
    "token_start": "integer",
    "token_end": "integer",
    "start": "integer",
    "end": "integer",
    "text": "string",
    "label": "string",
}


@dataclass(frozen=True, slots=True)
class MetamRecord:
    key: str  # the record's key in the file
    doc_id: str  # ECB+ file name, e.g. "12_10ecb.xml"
    topic: str
    m_id: str
    sentence_id: int
    sentence: str
    mention_text: str
    start_char: int
    end_char: int
    marked_sentence: str = ""


@dataclass(frozen=True, slots=True)
class DraftSpan:
    token_start: int
    token_end: int
    start: int
    end: int
    text: str
    label: str


@dataclass(frozen=True, slots=True)
class DraftTask:
    mention_id: str
    old_sentence: str
    text: str
    trigger: str
    spans: tuple[DraftSpan, ...]


def _record(path: Path, key: str, value: Any) -> MetamRecord:
    where = f"record {key!r}"
    expect(value, "object", path, where)
    missing = [name for name in REQUIRED_FIELDS if name not in value]
    if missing:
        raise FormatError(path, f"record {key!r} has no field(s) {', '.join(missing)}")
    for name in ("doc_id", "sentence", "mention_text"):
        if not field(value, name, "string", path, where):
            raise FormatError(path, f"record {key!r}: field {name!r} must be a non-empty string")
    start, end = (int_of(value[name], path, f"{where}: field {name!r}") for name in ("start_char", "end_char"))
    if not 0 <= start < end <= len(value["sentence"]):
        raise FormatError(path, f"record {key!r}: start_char/end_char {start}/{end} outside its sentence")
    return MetamRecord(
        key=key,
        doc_id=value["doc_id"],
        topic=str(field(value, "topic", "id", path, where)),
        m_id=str(field(value, "m_id", "id", path, where)),
        sentence_id=int_of(value["sentence_id"], path, f"{where}: field 'sentence_id'"),
        sentence=value["sentence"],
        mention_text=value["mention_text"],
        start_char=start,
        end_char=end,
        marked_sentence=expect(value.get("marked_sentence", ""), "string", path, f"{where}: field 'marked_sentence'"),
    )


def read_mention_map(path: Path) -> dict[tuple[str, str], MetamRecord]:
    """``ecbplus_metam.json`` -> {(ECB+ file name, m_id): record}; a pair listed twice is an error."""
    data = expect(read_json(path), "object", path, "the file", of="mention_id -> record")
    if not data:
        raise FormatError(path, "expected a non-empty JSON object mention_id -> record")
    records: dict[tuple[str, str], MetamRecord] = {}
    for key, value in data.items():
        record = _record(path, key, value)
        pair = (record.doc_id, record.m_id)
        if pair in records:
            raise FormatError(path, f"records {records[pair].key!r} and {key!r} are the same mention {pair}")
        records[pair] = record
    return records


def _draft_span(path: Path, where: str, span: Any) -> DraftSpan:
    expect(span, "object", path, where)
    return DraftSpan(**{name: field(span, name, kind, path, where) for name, kind in DRAFT_SPAN_FIELDS.items()})


def read_draft_tasks(path: Path) -> list[DraftTask]:
    """The superseded Prodigy ``tasks.json`` (format sample only); checks every span against its text."""
    data = expect(read_json(path), "list", path, "the file", of="of tasks")
    tasks = []
    for index, task in enumerate(data):
        where = f"task {index}"
        expect(task, "object", path, where)
        values = {name: field(task, name, kind, path, where) for name, kind in DRAFT_FIELDS.items()}
        spans = tuple(_draft_span(path, f"{where}, span {n}", span) for n, span in enumerate(values["spans"]))
        for span in spans:
            if values["text"][span.start : span.end] != span.text:
                raise FormatError(
                    path, f"task {index} ({values['mention_id']}): span {span.start}:{span.end} is not {span.text!r}"
                )
        tasks.append(DraftTask(values["mention_id"], values["old_sentence"], values["text"], values["trigger"], spans))
    return tasks
