"""FCC / FCC-T CSV tables on tiny fixtures written in the original column layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.raw.fcct import ACTION_HEADER, DOCUMENT_HEADER, TOKEN_HEADER, tokens_of, write_csv

from ucdcr.errors import FormatError
from ucdcr.formats.fcc_csv import read_actions, read_documents, read_tokens
from ucdcr.formats.shortuuid import name_shortuuid


def test_shortuuid_compatibility() -> None:
    # expected values computed with shortuuid 1.0.13: shortuuid.uuid(name)
    assert name_shortuuid("2018_FIFA_World_Cup_Final") == "XAdX65QJQcedKJDU28XkEB"
    assert name_shortuuid("other_event") == "JTfPwewaZbEwysHxzJrjfW"
    assert name_shortuuid("https://x.org/a") == "d3jQYLx8Fdt2SJDpnN8BvU"  # URL namespace


def test_documents_tokens_and_actions(tmp_path: Path) -> None:
    documents = write_csv(
        tmp_path / "documents.csv",
        DOCUMENT_HEADER,
        [
            ["d1", "2018-07-15 00:00:00", "2018_FIFA_World_Cup", "2018_FIFA_World_Cup_Final"],
            ["d2", "2018-07-16 00:00:00", "2018_FIFA_World_Cup", ""],
        ],
    )
    assert [(d.doc_id, d.seminal_event) for d in read_documents(documents)] == [
        ("d1", "2018_FIFA_World_Cup_Final"),
        ("d2", ""),
    ]
    tokens = write_csv(tmp_path / "tokens.csv", TOKEN_HEADER, tokens_of("d1", ["France won the final .", "Great !"]))
    parsed = read_tokens(tokens)
    assert len(parsed) == 7 and (parsed[5].sentence, parsed[5].index, parsed[5].text) == (1, 0, "Great")
    actions = write_csv(tmp_path / "a.csv", ACTION_HEADER, [["d1", "m0", 0, 1, 2, "2018_FIFA_World_Cup_Final"]])
    action = read_actions(actions)[0]
    assert (action.mention_id, action.token_from, action.token_to, action.line) == ("m0", 1, 2, 2)


def test_missing_column_and_bad_index(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "tokens.csv", ["doc-id", "sentence-idx", "token"], [["d1", 0, "x"]])
    with pytest.raises(FormatError, match=r"tokens.csv:1: missing column\(s\) token-idx"):
        read_tokens(path)
    path = write_csv(tmp_path / "t2.csv", TOKEN_HEADER, [["d1", 0, 0, "x"], ["d1", 0, "one", "y"]])
    with pytest.raises(FormatError, match=r"t2.csv:3: column 'token-idx' must be an integer, got 'one'"):
        read_tokens(path)


def test_empty_span_and_duplicate_document(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "a.csv", ACTION_HEADER, [["d1", "m0", 0, 3, 3, "e"]])
    with pytest.raises(FormatError, match=r"a.csv:2: empty span: token-idx-from 3, token-idx-to 3"):
        read_actions(path)
    path = write_csv(tmp_path / "documents.csv", DOCUMENT_HEADER, [["d1", "", "c", "s"], ["d1", "", "c", "s"]])
    with pytest.raises(FormatError, match=r"documents.csv:3: doc-id 'd1' appears twice"):
        read_documents(path)
