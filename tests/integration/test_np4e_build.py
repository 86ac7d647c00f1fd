"""NP4E_cd built from ../shared/raw/NP4E, compared with the paper and with the authors' release (reference/NP4E)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ucdcr.registry import get


def test_reader_counts(raw_dir: Path) -> None:
    spec = get("np4e")
    corpus = spec.read(raw_dir / spec.raw_folder)
    assert len(corpus.mentions) == spec.expected("mentions_annotated")
    assert len(corpus.documents) == spec.expected("documents")
    assert Counter(d.split for d in corpus.documents) == {
        s: spec.expected(f"{s}.documents") for s in ("train", "val", "test")
    }


def test_build(built: Any) -> None:
    report = built.report("np4e")
    # the declared counts (ucdcr/datasets/np4e.py): every markable kept, documents per split, no singletons, test
    # mentions of Table 4
    assert report.count_differences == [] and report.parse_rate >= 99.0
    assert report.dropped == []
    # Chains: our transitive closure merges more than the reference's two-hop expansion (667 chains in the CSV);
    # measured here: 320 / 190 / 119 = 629.
    chains = sum(report.splits[s]["chains"] for s in ("train", "val", "test"))
    assert 600 <= chains <= 667


def test_agreement_with_the_authors_release(built: Any, reference_dir: Path) -> None:
    from ucdcr.analysis.compare import agreement, compare_builds

    figures = compare_builds(built("np4e"), reference_dir / "NP4E")
    # measured: 6319 of 6428 distinct reference spans (98.3%) found in our build;
    # head lemma 91.2% (our deterministic head rule vs the reference's first-token rule, docs/build-pipeline.md#heads);
    # context window ids 79.65% (re-tokenization differences shift global token ids; 77.1% before clitics were
    # glued: "I 'm" came back from spaCy as "'", "m"; 80.5% before "U.S.." was split at a mention's end, which
    # shifts the global ids after it). Floors 1-2 points below.
    assert figures["matched_rate"] >= 97.0
    assert figures["head_lemma_agreement"] >= 89.0
    assert figures["context_span_identical"] >= 79.0
    # `ucdcr compare np4e`: mentions by (document, sentence, text)
    found = agreement(built("np4e"), reference_dir / "NP4E")
    assert found["matched_by_text"] / found["release_mentions"] >= 0.97


def test_context_differences_are_explained(built: Any, reference_dir: Path) -> None:
    from ucdcr.analysis.compare import compare_builds, context_differences

    figures = compare_builds(built("np4e"), reference_dir / "NP4E")
    # measured with bench/compare_np4e_reference.py: 59.99% identical context token lists (58.1% before clitics,
    # 60.17% before the faithful-span split of "U.S..")
    assert figures["context_identical"] >= 59.0
    assert figures["mention_sentences_identical"] >= 93.5  # 93.82% measured; the "$" artefacts again
    found = context_differences(built("np4e"), reference_dir / "NP4E")
    # 2143 of the 2517 differing windows differ only in characters: the NP4E reader drops the "$" of "$--"/"$..."
    # tokens, the reference deletes "$-" from its strings and keeps "$..."
    # (docs/datasets/np4e.md#differences-from-the-authors-code)
    assert found["only"].get("different_chars", 0) >= 0.8 * found["differing_windows"]


def test_window_rule_reproduces_the_reference_on_its_own_tokens(reference_dir: Path) -> None:
    """Our context windows (pipeline.context, docs/build-pipeline.md#first-token-rule) computed on the reference's token
    table give the reference's window ids and sentence positions for every one of its mentions: window differences
    between the builds come from tokenization, not from the window rule."""
    from ucdcr.pipeline.context import SentenceIndex, context_window
    from ucdcr.registry import ContextRule

    sentence_lengths: dict[str, Counter[int]] = {}
    for row in pq.read_table(reference_dir / "NP4E" / "all_documents.parquet").to_pylist():
        sentence_lengths.setdefault(row["topic/subtopic_name/doc"], Counter())[row["sent_id"]] += 1
    mentions = pq.read_table(reference_dir / "NP4E" / "all_mentions.parquet").to_pylist()
    same = 0
    for row in mentions:
        lengths = sentence_lengths[row["conll_doc_key"]]
        ordered = sorted(lengths)
        first = (
            sum(lengths[s] for s in ordered[: ordered.index(row["sent_id"])])
            + ast.literal_eval(row["tokens_number"])[0]
        )
        index = SentenceIndex([lengths[s] for s in ordered])
        window = context_window(index, ContextRule.AROUND_FIRST_TOKEN, first, first, 0)
        same += [window.left, window.right] == ast.literal_eval(row["context_start_end_global_id"]) and [
            window.sentence_start,
            window.sentence_end,
        ] == ast.literal_eval(row["mention_sentence_start_end"])
    assert len(mentions) == 6559  # paper Table 2 / Table 8 "Parsed" for NP4E_cd
    assert same == len(mentions)  # measured: 6559 / 6559
