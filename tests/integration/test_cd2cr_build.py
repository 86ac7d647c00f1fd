"""CD2CR built from ../shared/raw/CD2CR, compared with the counts the dataset declares (paper Tables 2, 8, 12 and
counts in the raw files; their sources are in ucdcr/datasets/cd2cr.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ucdcr.registry import get


def test_reader_counts(raw_dir: Path) -> None:
    spec = get("cd2cr")
    corpus = spec.read(raw_dir / spec.raw_folder)
    assert len(corpus.mentions) == spec.expected("mentions_annotated") and corpus.dropped == []
    assert len(corpus.documents) == spec.expected("documents")
    assert len({d.subtopic_id for d in corpus.documents}) == spec.expected("subtopics")
    assert corpus.counts["sentence_boundaries_joined"] == spec.expected("reader_sentence_boundaries_joined")


def test_build(built: Any) -> None:
    report = built.report("cd2cr")
    assert report.count_differences == [] and report.parse_rate >= 99.0
