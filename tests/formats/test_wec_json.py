"""WEC-Eng mention JSON and uCDCR topic maps, on tiny files in the original format (MANIFEST.md §12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.wec_json import first_listed, read_mentions, read_topic_map, read_topic_names

PARAGRAPH = ["From", "then", "on", ",", "they", "played", "the", "Family", "Values", "Tour", "1998", "."]


def wec_record(**changes: object) -> dict[str, object]:
    """A WEC-Eng mention object with every field of the Hugging Face files (values from MANIFEST.md's example)."""
    record: dict[str, object] = {
        "coref_chain": 2293469,
        "coref_link": "Family Values Tour 1998",
        "doc_id": "House of Pain",
        "mention_context": PARAGRAPH,
        "mention_head": "Tour",
        "mention_head_lemma": "Tour",
        "mention_head_pos": "PROPN",
        "mention_id": "108172",
        "mention_index": 1,
        "mention_ner": "UNK",
        "mention_type": 8,
        "predicted_coref_chain": None,
        "sent_id": 0,
        "tokens_number": [7, 8, 9, 10],
        "tokens_str": "Family Values Tour 1998",
        "topic_id": -1,
    }
    record.update(changes)
    return record


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_read_mentions(tmp_path: Path) -> None:
    path = write_json(tmp_path / "Dev_Event_gold_mentions_validated.json", [wec_record()])
    (mention,) = read_mentions(path)
    assert mention.mention_id == "108172" and mention.coref_chain == "2293469"
    assert [mention.paragraph[i] for i in mention.tokens_number] == ["Family", "Values", "Tour", "1998"]
    assert (mention.head, mention.head_pos, mention.ner) == ("Tour", "PROPN", "UNK")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"not": "a list"}, "the file must be a list of mention objects, got an object"),
        ([wec_record(tokens_number=[11, 12])], "outside its mention_context"),
        ([{k: v for k, v in wec_record().items() if k != "coref_link"}], "no field 'coref_link'"),
        ([wec_record(mention_index="1")], "field 'mention_index' must be an integer, got the string '1'"),
        ([wec_record(mention_index=None)], "field 'mention_index' must be an integer, got null"),
        ([wec_record(tokens_number="12")], "field 'tokens_number' must be a list, got the string '12'"),
        ([wec_record(mention_context=["a", 3])], "mention_context, element 1 must be a string, got the integer 3"),
    ],
)
def test_malformed_mentions(tmp_path: Path, data: object, message: str) -> None:
    path = write_json(tmp_path / "Train_Event_gold_mentions.json", data)
    with pytest.raises(FormatError, match=message):
        read_mentions(path)


def test_truncated_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "Test_Event_gold_mentions_validated.json"
    path.write_text('[\n{"coref_chain": 1,\n', encoding="utf-8")
    with pytest.raises(FormatError, match="invalid JSON") as info:
        read_mentions(path)
    assert info.value.line == 3


def test_topic_map_first_listed_subtopic(tmp_path: Path) -> None:
    names = read_topic_names(write_json(tmp_path / "topics.json", ["Concert", "Awards"]))
    path = tmp_path / "topics_val.csv"
    path.write_text(
        ",doc,subtopic,topic\n"
        "0,House of Pain,Family Values Tour 1998,Concert\n"
        "1,Ice Cube,Family Values Tour 1998,Concert\n"
        "2,Ice Cube,2018 Teen Choice Awards,Awards\n",
        encoding="utf-8",
    )
    rows = read_topic_map(path, names)
    assert len(rows) == 3
    chosen = first_listed(rows)
    assert chosen["Ice Cube"].subtopic == "Family Values Tour 1998"


def test_topic_map_unknown_topic_and_header(tmp_path: Path) -> None:
    path = tmp_path / "topics_test.csv"
    path.write_text(
        ",doc,subtopic,topic\n0,Sinefekt,43rd Antalya Golden Orange Film Festival,Festival\n", encoding="utf-8"
    )
    with pytest.raises(FormatError, match=r"'Festival' is not in topics.json") as info:
        read_topic_map(path, ["Concert"])
    assert info.value.line == 2
    path.write_text("doc,subtopic,topic\n", encoding="utf-8")
    with pytest.raises(FormatError, match="header"):
        read_topic_map(path, ["Concert"])
