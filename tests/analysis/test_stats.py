"""Dataset statistics (docs/analysis.md#dataset-statistics) on a hand-built dataset; every expected number is counted
in a comment."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.fixtures.unified import mention, write_json_dataset

from ucdcr.analysis.stats import (
    STATS_FIELDS,
    distribution,
    summary_rows,
    table4_row,
    ucdcr_table2_row,
    ucdcr_table3_row,
)
from ucdcr.io.load import load_documents, load_mentions


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """E1: event, 2 train mentions (1a) + 1 test mention (2a, a split singleton); N1: train entity singleton (1b);
    X: test event chain across subtopics 2a/2b; Y: test entity chain (2a). Context lengths in brackets."""
    files = {
        ("train", "event"): [
            mention("E1", ["fired"], split="train", topic="1", subtopic="1a", doc="d1", context_len=10),
            mention("E1", ["sacked"], split="train", topic="1", subtopic="1a", doc="d1", context_len=20),
        ],
        ("train", "entity"): [
            mention(
                "N1",
                ["he"],
                split="train",
                topic="1",
                subtopic="1b",
                doc="d2",
                context_len=30,
                singleton=True,
                pos="PRON",
                full_type="HUMAN_PART_PER",
            ),
        ],
        ("test", "event"): [
            mention(
                "X",
                ["quake"],
                topic="2",
                subtopic="2a",
                doc="d3",
                context_len=40,
                pos="NOUN",
                full_type="ACTION_OCCURRENCE",
            ),
            mention(
                "X",
                ["shook"],
                topic="2",
                subtopic="2b",
                doc="d4",
                context_len=60,
                pos="VERB",
                full_type="ACTION_OCCURRENCE",
            ),
            mention("E1", ["dismissal"], topic="2", subtopic="2a", doc="d3", context_len=60, singleton=True),
        ],
        ("test", "entity"): [
            mention("Y", ["city"], topic="2", subtopic="2a", doc="d3", context_len=10, ner="GPE", full_type="LOC_GEO"),
            mention("Y", ["town"], topic="2", subtopic="2a", doc="d3", context_len=10, ner="GPE", full_type="LOC_GEO"),
        ],
    }
    folder = write_json_dataset(tmp_path / "toy", files)
    keys = ["1/1a/d1"] * 3 + ["1/1b/d2"] * 2 + ["2/2a/d3"] * 4 + ["2/2b/d4"] * 3
    splits = ["train"] * 5 + ["test"] * 7
    pq.write_table(pa.table({"topic/subtopic_name/doc": keys, "split": splits}), folder / "all_documents.parquet")
    return folder


def _rows(folder: Path) -> dict[str, dict]:
    rows = summary_rows(load_mentions(folder, columns=STATS_FIELDS), load_documents(folder))
    return {row["split"]: row for row in rows}


def test_whole_dataset_row(toy: Path) -> None:
    row = _rows(toy)[""]
    assert (row["topics"], row["subtopics"], row["documents"]) == (2, 4, 4)  # topics 1,2; 1a,1b,2a,2b; d1-d4
    assert row["tokens"] == 12 and row["mean_doc_size"] == 3.0  # 12 token rows / 4 documents
    assert row["mentions"] == 8 and row["mean_mention_density"] == 2.0  # 8 mentions / 4 documents
    assert row["coref_chain_all"] == 4  # E1, N1, X, Y
    assert row["singletons"] == 2  # N1 and E1's test mention carry is_singleton
    assert row["coref_chain"] == 2  # the authors' definition: chains - singleton mentions = 4 - 2
    assert row["cross-subtopic-chains"] == 2 and row["cross-subtopic-mentions"] == 5  # E1 (1a, 2a): 3, X (2a, 2b): 2
    assert (row["coref_chain_event"], row["mentions_event"], row["singletons_event"]) == (2, 5, 1)  # E1, X
    assert (row["coref_chain_entity"], row["mentions_entity"], row["singletons_entity"]) == (2, 3, 1)  # N1, Y
    # ctx over every chain entry: E1 full 30, train 15, test 60; N1 30, 30; X 50, 50; Y 10, 10 -> 285 / 9
    assert row["tokens_context"] == pytest.approx(285 / 9)
    assert row["average_size_all"] == 2.0  # (3 + 1 + 2 + 2) / 4
    assert row["average_size_wo_singl"] == pytest.approx(7 / 3)  # E1 3, X 2, Y 2


def test_split_rows(toy: Path) -> None:
    rows = _rows(toy)
    assert list(rows) == ["", "train", "test"]
    test = rows["test"]
    assert (test["mentions"], test["coref_chain_all"], test["singletons"], test["documents"]) == (5, 3, 1, 2)
    assert test["tokens"] == 7  # token rows labelled test
    assert test["cross-subtopic-chains"] == 1 and test["cross-subtopic-mentions"] == 2  # only X crosses within test
    # chains E1, X, Y with all their entries: 30, 15, 60, 50, 50, 10, 10 -> 225 / 7
    assert test["tokens_context"] == pytest.approx(225 / 7)
    assert rows["train"]["tokens_context"] == pytest.approx(33.0)  # E1: 30, 15, 60; N1: 30, 30 -> 165 / 5
    assert table4_row(list(rows.values())) == {"Train": "3 / 2", "Val": "–", "Test": "5 / 3"}


def test_without_documents_tokens_are_unknown(toy: Path) -> None:
    (toy / "all_documents.parquet").unlink()
    row = _rows(toy)[""]
    assert row["tokens"] is None and row["mean_doc_size"] is None


def test_distributions(toy: Path) -> None:
    table = load_mentions(toy, columns=STATS_FIELDS)
    assert distribution(table, "pos") == {"NOUN": 6, "PRON": 1, "VERB": 1}  # 8 mentions: N1 PRON, "shook" VERB
    assert distribution(table, "ner") == {"O": 6, "GPE": 2}
    # full type up to the first "_": HUMAN (defaults + N1) x4, ACTION x2, LOC x2
    assert distribution(table, "type") == {"HUMAN": 4, "ACTION": 2, "LOC": 2}


def test_ucdcr_rows_follow_the_paper() -> None:
    def row(topics, chains, per_doc):
        return {
            "Topics": topics,
            "Subtopics": 1,
            "Docs": 1,
            "Tokens": 10,
            "Tokens/doc": per_doc,
            "Context": 1.0,
            "Chains": chains,
            "Mentions": 1,
            "Singletons": 0,
            "Mentions/doc": 1.0,
        }

    rows = {"ecbplus": row(43, 10, 2.0), "nident": row(1, 5, 4.0), "np4e": row(1, 1, 6.0)}
    result = ucdcr_table2_row(rows, reannotations={"nident"})
    assert result["Topics"] == 44  # NIdent (a re-annotation) is left out of the topic sum: 43 + 1
    assert result["Chains"] == 16  # but its chains count: 10 + 5 + 1
    assert result["Tokens/doc"] == 4.0  # unweighted mean over all three: (2 + 4 + 6) / 3
    sizes = ucdcr_table3_row([{"Mentions event": 2, "Avg size": 2.0}, {"Mentions event": 3, "Avg size": 4.0}])
    assert sizes == {"Mentions event": 5, "Avg size": 3.0}  # sums, and the mean of average sizes


def test_documents_without_split_column_take_the_split_of_their_mentions(toy: Path) -> None:
    # 3 rows of d1 (train mentions), 2 of d2 (train), 4 of d3 and 3 of d4 (test), 2 of d5 (no mentions)
    keys = ["1/1a/d1"] * 3 + ["1/1b/d2"] * 2 + ["2/2a/d3"] * 4 + ["2/2b/d4"] * 3 + ["2/2b/d5"] * 2
    pq.write_table(pa.table({"topic/subtopic_name/doc": keys}), toy / "all_documents.parquet")
    rows = _rows(toy)
    assert (rows[""]["tokens"], rows["train"]["tokens"], rows["test"]["tokens"]) == (14, 5, 7)
