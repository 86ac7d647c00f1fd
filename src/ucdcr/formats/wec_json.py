"""WEC-Eng files (Eirew et al. 2021, Hugging Face ``Intel/WEC-Eng``) and uCDCR's topic maps.

Mention files (``Dev_Event_gold_mentions_validated.json``, ``Test_Event_gold_mentions_validated.json``,
``Train_Event_gold_mentions.json``): one JSON list of mention objects::

    {"coref_chain": 2293469, "coref_link": "Family Values Tour 1998", "doc_id": "House of Pain",
     "mention_context": ["From", "then", ...], "mention_head": "Tour", "mention_head_lemma": "Tour",
     "mention_head_pos": "PROPN", "mention_id": "108172", "mention_index": 1, "mention_ner": "UNK",
     "mention_type": 8, "predicted_coref_chain": null, "sent_id": 0, "tokens_number": [..],
     "tokens_str": "Family Values Tour 1998", "topic_id": -1}

``doc_id`` is the Wikipedia page the mention is on, ``coref_link`` the linked event page (= the chain name),
``mention_context`` the paragraph (tokenized) and ``tokens_number`` the mention's token indices in it.

Topic maps (``topics/topics.json``: list of the 18 topic names of the WEC paper's Table 7;
``topics/topics_<split>.csv``: header ``,doc,subtopic,topic``, one row per (document, subtopic) pair, e.g.
``0,Sinefekt,43rd Antalya Golden Orange Film Festival,Festival``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ucdcr.errors import FormatError
from ucdcr.formats.inputs import csv_rows, read_text
from ucdcr.formats.json_files import JsonKind, expect, field, list_of, read_json

MENTION_FIELDS: dict[str, JsonKind] = {
    "coref_chain": "id",
    "coref_link": "string",
    "doc_id": "string",
    "mention_context": "list",
    "mention_head": "string",
    "mention_head_lemma": "string",
    "mention_head_pos": "string",
    "mention_id": "id",
    "mention_index": "integer",
    "mention_ner": "string",
    "tokens_number": "list",
    "tokens_str": "string",
}
TOPIC_MAP_HEADER = ["", "doc", "subtopic", "topic"]


@dataclass(frozen=True, slots=True)
class WecMention:
    mention_id: str
    mention_index: int
    coref_chain: str
    coref_link: str
    doc_title: str
    paragraph: tuple[str, ...]
    tokens_number: tuple[int, ...]
    tokens_str: str
    head: str
    head_lemma: str
    head_pos: str
    ner: str
    record: int  # position in the file, for messages


@dataclass(frozen=True, slots=True)
class TopicRow:
    doc: str
    subtopic: str
    topic: str
    line: int


def _check_record(path: Path, index: int, record: Any) -> None:
    expect(record, "object", path, f"record {index}")
    where = f"record {index} (mention_id {record.get('mention_id')!r})"
    for name, kind in MENTION_FIELDS.items():
        field(record, name, kind, path, where)
    context = list_of(record["mention_context"], "string", path, f"{where}: mention_context")
    numbers = list_of(record["tokens_number"], "integer", path, f"{where}: tokens_number")
    if not numbers or not all(0 <= n < len(context) for n in numbers):
        raise FormatError(
            path, f"{where}: tokens_number {numbers} outside its mention_context of {len(context)} tokens"
        )


def read_mentions(path: Path) -> list[WecMention]:
    """One WEC-Eng mention file -> its mentions, in file order (raises FormatError on a bad record)."""
    data = expect(read_json(path), "list", path, "the file", of="of mention objects")
    mentions = []
    for index, record in enumerate(data):
        _check_record(path, index, record)
        mentions.append(
            WecMention(
                mention_id=str(record["mention_id"]),
                mention_index=record["mention_index"],
                coref_chain=str(record["coref_chain"]),
                coref_link=record["coref_link"],
                doc_title=record["doc_id"],
                paragraph=tuple(record["mention_context"]),
                tokens_number=tuple(record["tokens_number"]),
                tokens_str=record["tokens_str"],
                head=record["mention_head"],
                head_lemma=record["mention_head_lemma"],
                head_pos=record["mention_head_pos"],
                ner=record["mention_ner"],
                record=index,
            )
        )
    return mentions


def read_topic_names(path: Path) -> list[str]:
    """``topics.json``: the list of topic names."""
    names = list_of(read_json(path), "string", path, "the file (a list of topic names)")
    if not names:
        raise FormatError(path, "expected a non-empty JSON list of topic names")
    if len(set(names)) != len(names):
        raise FormatError(path, "a topic name occurs twice")
    return names


def read_topic_map(path: Path, topic_names: list[str]) -> list[TopicRow]:
    """``topics_<split>.csv`` rows in file order; a topic not in ``topic_names`` is an error."""
    known = set(topic_names)
    rows = csv_rows(read_text(path), path)
    if next(rows, (1, []))[1] != TOPIC_MAP_HEADER:
        raise FormatError(path, f"expected the header {','.join(TOPIC_MAP_HEADER)!r}", 1)
    result = []
    for line, row in rows:
        if len(row) != 4:
            raise FormatError(path, f"expected 4 columns (row, doc, subtopic, topic), got {len(row)}", line)
        _, doc, subtopic, topic = row
        if topic not in known:
            raise FormatError(path, f"topic {topic!r} is not in topics.json", line)
        if not doc or not subtopic:
            raise FormatError(path, "empty doc or subtopic", line)
        result.append(TopicRow(doc, subtopic, topic, line))
    return result


def first_listed(rows: list[TopicRow]) -> dict[str, TopicRow]:
    """One subtopic per document: the first row that lists it (paper §7.1.12)."""
    chosen: dict[str, TopicRow] = {}
    for row in rows:
        chosen.setdefault(row.doc, row)
    return chosen
