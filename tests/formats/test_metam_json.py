"""ECB+METAm mention map and the superseded Prodigy draft, on tiny files in their formats
(docs/datasets/ecbplus_metam.md#raw-files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats.metam_json import read_draft_tasks, read_mention_map

SENTENCE = "Police threw a net over the gunman ."


def metam_record(**changes: object) -> dict[str, object]:
    """A mention_map record with the fields of the example in docs/datasets/ecbplus_metam.md#raw-files."""
    record: dict[str, object] = {
        "mention_id": "36_1ecb.xml_2",
        "topic": "36",
        "doc_id": "36_1ecb.xml",
        "m_id": "2",
        "sentence_id": "0",
        "sentence": SENTENCE,
        "marked_sentence": "Police <m> threw a net over </m> the gunman .",
        "mention_text": "threw a net over",
        "token_start": 1,
        "token_end": 4,
        "start_char": 7,
        "end_char": 23,
        "gold_cluster": "ACT123",
        "men_type": "evt",
    }
    record.update(changes)
    return record


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_read_mention_map(tmp_path: Path) -> None:
    records = read_mention_map(write_json(tmp_path / "ecbplus_metam.json", {"36_1ecb.xml_2": metam_record()}))
    record = records[("36_1ecb.xml", "2")]
    assert record.sentence_id == 0 and record.topic == "36"
    assert record.sentence[record.start_char : record.end_char] == "threw a net over"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([metam_record()], "the file must be an object mention_id -> record, got a list"),
        ({"k": {key: v for key, v in metam_record().items() if key != "sentence"}}, "no field"),
        ({"k": metam_record(end_char=99)}, "outside its sentence"),
        ({"k": metam_record(sentence_id="first")}, "'sentence_id' must be an integer, got the string 'first'"),
        ({"k": metam_record(sentence_id=None)}, "'sentence_id' must be an integer, got null"),
        ({"k": metam_record(topic=["36"])}, "field 'topic' must be an id .*, got a list"),
        ({"a": metam_record(), "b": metam_record()}, "are the same mention"),
    ],
)
def test_malformed_mention_map(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        read_mention_map(write_json(tmp_path / "ecbplus_metam.json", data))


def test_truncated_mention_map(tmp_path: Path) -> None:
    path = tmp_path / "ecbplus_metam.json"
    path.write_text('{"36_1ecb.xml_2": {"topic": "36",', encoding="utf-8")
    with pytest.raises(FormatError, match="invalid JSON"):
        read_mention_map(path)


def draft_task(**changes: object) -> dict[str, object]:
    """A Prodigy task as in the superseded tasks.json (docs/datasets/ecbplus_metam.md#raw-files)."""
    task: dict[str, object] = {
        "mention_id": "34_11ecb.xml_28",
        "old_sentence": 'Gupta , 39 , has reportedly <mark id="mark"> accepted </mark> the job .',
        "text": "The job proposition has been accepted by Gupta.",
        "trigger": "accepted ",
        "spans": [{"token_start": 5, "token_end": 5, "start": 29, "end": 37, "text": "accepted", "label": "EVT"}],
    }
    task.update(changes)
    return task


def test_read_draft_tasks(tmp_path: Path) -> None:
    (task,) = read_draft_tasks(write_json(tmp_path / "tasks.json", [draft_task()]))
    assert task.spans[0].text == "accepted" and task.text[29:37] == "accepted"


def test_draft_span_must_match_text(tmp_path: Path) -> None:
    bad = draft_task(spans=[{"token_start": 0, "token_end": 0, "start": 0, "end": 3, "text": "job", "label": "EVT"}])
    with pytest.raises(FormatError, match="is not 'job'"):
        read_draft_tasks(write_json(tmp_path / "tasks.json", [bad]))
