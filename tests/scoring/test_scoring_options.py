"""Scoring options: coval's singleton removal (``remove_singletons``) and every document's scores (``per_document``),
in the Python API and in `ucdcr score` (subprocess), on the README example files and hand-made clusters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ucdcr.scoring.scores import drop_singletons, score_clusters, score_documents, score_files

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEY, RESPONSE = EXAMPLES / "key.conll", EXAMPLES / "response.conll"
SRC = Path(__file__).resolve().parents[2] / "src"


def test_drop_singletons_counts_repeated_spans_as_coval_does() -> None:
    # coval (reader.get_doc_mentions) removes a chain whose mention list has length 1; a span written twice is two
    kept, removed = drop_singletons([[(0, 0)], [(1, 1), (1, 1)], [(2, 2), (3, 3)], [(4, 4)]])
    assert (kept, removed) == ([[(1, 1), (1, 1)], [(2, 2), (3, 3)]], 2)


def test_remove_singletons_scores_what_is_left() -> None:
    # key {a b} {c}, response {a} {b c}: without singletons key {a b}, response {b c}.
    # MUC by hand: key chain {a b} split into {a} (not in the response) and {b}: (2 - 2) / 1; response chain {b c}
    # likewise (c not in the key): 0 / 1.
    scores = score_clusters([["a", "b"], ["c"]], [["a"], ["b", "c"]], "muc", remove_singletons=True)
    muc = scores["muc"]
    assert (muc.recall_num, muc.recall_den, muc.precision_num, muc.precision_den) == (0, 1, 0, 1)
    assert scores.removed_singletons == (1, 1)
    assert score_clusters([["a", "b"], ["c"]], [["a"], ["b", "c"]], "muc").removed_singletons is None


def test_per_document_scores_add_up_to_the_totals() -> None:
    documents = {"d1": ([["a", "b", "c"]], [["a", "b"], ["c"]]), "d2": ([["x", "y"], ["z"]], [["x", "y", "z"]])}
    scores = score_documents(documents, "all", per_document=True)
    assert list(scores.by_document) == ["d1", "d2"]
    for metric in ("muc", "bcub", "ceafm", "ceafe", "lea"):
        summed = scores.by_document["d1"][metric] + scores.by_document["d2"][metric]
        assert summed == scores[metric]
    assert scores.by_document["d1"].mentions + scores.by_document["d2"].mentions == scores.mentions


def test_remove_singletons_on_the_example_files() -> None:
    # examples/key.conll: apple_1 has chains 1 (3 mentions), 3, 2, 4 (one each), apple_2 chains 3 (2), 2, 1 (one
    # each): 5 singletons. examples/response.conll: apple_1 chains 3 and 5, apple_2 all five chains: 7 singletons.
    # Left: key {(0,0) (8,9) (11,11)} and {(0,2) (12,13)}; response {(0,0) (8,9)}, {(2,4) (11,11)} in apple_1.
    # MUC recall: apple_1 (3 - 2) / 2, apple_2 (2 - 2) / 1 -> 1 / 3; precision (1 - 1) + ... = 1 / 2 (by hand).
    scores = score_files(KEY, RESPONSE, "muc", remove_singletons=True)
    assert scores.removed_singletons == (5, 7)
    muc = scores["muc"]
    assert (muc.recall_num, muc.recall_den, muc.precision_num, muc.precision_den) == (1, 3, 1, 2)
    # mentions: 5 key, 4 response, 3 in both
    assert (scores.mentions.recall_num, scores.mentions.recall_den, scores.mentions.precision_den) == (3, 5, 4)


def _ucdcr(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "ucdcr", *args], capture_output=True, text=True, env=env, check=False)


def test_cli_json_per_document_with_counts() -> None:
    result = _ucdcr("score", str(KEY), str(RESPONSE), "--remove-singletons", "--per-document", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["removed_singletons"] == {"key": 5, "response": 7}
    per_document = data["per_document"]
    assert list(per_document) == ["(news/apple_1); part 000", "(news/apple_2); part 000"]
    apple_1 = per_document["(news/apple_1); part 000"]
    assert apple_1["removed_singletons"] == {"key": 3, "response": 2}
    # MUC of apple_1 by hand (above): recall (3 - 2) / 2, precision 1 / 2
    assert {key: apple_1["metrics"]["muc"][key] for key in ("recall_num", "recall_den", "precision_den")} == {
        "recall_num": 1,
        "recall_den": 2,
        "precision_den": 2,
    }
    assert set(apple_1["metrics"]) == set(data["metrics"])


def test_cli_text_per_document_table() -> None:
    result = _ucdcr("score", str(KEY), str(RESPONSE), "--remove-singletons", "--per-document", "--metric", "conll")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "5 and 7 singletons are removed from the key and the response, respectively" in lines
    header = next(line for line in lines if line.startswith("| document"))
    assert header.split(" | ")[1:4] == ["MUC R", "MUC P", "MUC F1"] and header.endswith("CoNLL F1 |")
    # apple_2 keeps one key chain and no response chain: every metric 0
    apple_2 = next(line for line in lines if line.startswith("| (news/apple_2)"))
    assert set(apple_2.strip("| ").split(" | ")[1:]) == {"0.00"}
