"""CD2CR CoNLL + entities JSON reader on tiny files written by the tests (format of ravenscroftj/cdcrtool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.errors import FormatError
from ucdcr.formats import cd2cr

CONLL = """#begin document train_entities
0\t0_0\t0_news_1\t0\t0\tA\tTrue\t(22
0\t0_0\t0_news_1\t0\t1\tstudy\tTrue\t22)
0\t0_0\t0_news_1\t1\t2\tIt\tFalse\t(22)
0\t0_0\t0_science_2\t0\t0\tAbstract\tTrue\t-
#end document
"""


def test_reads_conll(tmp_path: Path) -> None:
    path = tmp_path / "train.conll"
    path.write_text(CONLL)
    tokens = cd2cr.read_conll(path)
    assert [(t.doc_id, t.sentence_id, t.token_id, t.text) for t in tokens] == [
        ("0_news_1", 0, 0, "A"),
        ("0_news_1", 0, 1, "study"),
        ("0_news_1", 1, 2, "It"),
        ("0_science_2", 0, 0, "Abstract"),
    ]
    assert tokens[0].topic == "0" and tokens[0].line == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("0\t0_0\t0_news_1\t0\t0\tA\tTrue", r"train\.conll:2: expected 8 tab-separated columns, found 7"),
        ("0\t0_0\t0_news_1\tx\t0\tA\tTrue\t-", r"train\.conll:2: sentence id 'x' is not an integer"),
    ],
)
def test_malformed_conll_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "train.conll"
    path.write_text(f"#begin document x\n{line}\n")
    with pytest.raises(FormatError, match=message):
        cd2cr.read_conll(path)


def test_duplicate_token_id(tmp_path: Path) -> None:
    path = tmp_path / "train.conll"
    path.write_text(CONLL.replace("\t1\t2\tIt", "\t1\t1\tIt"))
    with pytest.raises(FormatError, match=r"train\.conll:4: duplicate token id 1 in document 0_news_1"):
        cd2cr.read_conll(path)


def test_empty_conll(tmp_path: Path) -> None:
    path = tmp_path / "train.conll"
    path.write_text("#begin document x\n#end document\n")
    with pytest.raises(FormatError, match="no token lines"):
        cd2cr.read_conll(path)


def test_reads_entities(tmp_path: Path) -> None:
    path = tmp_path / "train_entities.json"
    path.write_text(
        json.dumps(
            [
                {
                    "doc_id": "0_news_1",
                    "sentence_id": 0,
                    "tokens_ids": [0, 1],
                    "topic": 0,
                    "subtopic": "0_0",
                    "tokens": "A study",
                    "cluster_id": 22,
                    "singleton": False,
                }
            ]
        )
    )
    (entity,) = cd2cr.read_entities(path)
    assert entity.token_ids == (0, 1) and entity.cluster_id == "22" and entity.topic == "0" and entity.index == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"doc_id": "d"', r"train_entities\.json:1: invalid JSON"),
        ('{"a": 1}', "the file must be a list of mention records, got an object with 1 field"),
        (
            '[{"doc_id": "d", "sentence_id": 0, "topic": 0, "tokens": "x", "cluster_id": 1}]',
            r"record 0 has no field 'tokens_ids'",
        ),
        (
            '[{"doc_id": "d", "sentence_id": 0, "tokens_ids": [], "topic": 0, "tokens": "x", "cluster_id": 1}]',
            "record 0: tokens_ids is empty",
        ),
        (
            '[{"doc_id": "d", "sentence_id": "first", "tokens_ids": [1], "topic": 0, "tokens": "x", "cluster_id": 1}]',
            "record 0: field 'sentence_id' must be an integer, got the string 'first'",
        ),
        (
            '[{"doc_id": "d", "sentence_id": null, "tokens_ids": [1], "topic": 0, "tokens": "x", "cluster_id": 1}]',
            "record 0: field 'sentence_id' must be an integer, got null",
        ),
        (
            '[{"doc_id": "d", "sentence_id": 0, "tokens_ids": "12", "topic": 0, "tokens": "x", "cluster_id": 1}]',
            "record 0: field 'tokens_ids' must be a list, got the string '12'",
        ),
    ],
)
def test_malformed_entities(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "train_entities.json"
    path.write_text(content)
    with pytest.raises(FormatError, match=message):
        cd2cr.read_entities(path)
