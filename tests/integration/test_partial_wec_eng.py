"""WEC-Eng on the real partial raw data: uCDCR's topic maps load and give the published structure; without the
Hugging Face mention files the build gives the manual steps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import require

from ucdcr.datasets.wec_eng import read_topic_maps
from ucdcr.errors import MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import get
from ucdcr.sources.download import dataset_status


def test_topic_maps_give_the_published_structure(raw_dir: Path) -> None:
    names, maps = read_topic_maps(require(raw_dir / "WEC-Eng"))
    assert len(names) == 18  # WEC paper Table 7 / docs/reproducing.md#reference-numbers
    spec = get("wec_eng")  # declared counts: the authors' summary CSV and paper Table 13 (ucdcr/datasets/wec_eng.py)
    assert {split: len(rows) for split, rows in maps.items()} == {
        split: spec.expected(f"{split}.documents") for split in ("train", "val", "test")
    }
    subtopics = {split: {row.subtopic for row in rows.values()} for split, rows in maps.items()}
    assert sum(len(s) for s in subtopics.values()) == spec.expected("subtopics")
    assert len(subtopics["test"]) == spec.expected("test.subtopics")
    assert len({row.topic for row in maps["test"].values()}) == spec.expected("test.topics")


def test_build_without_mention_files_gives_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    folder = require(raw_dir / "WEC-Eng")
    if (folder / "Train_Event_gold_mentions.json").exists():
        report = build_dataset("wec_eng", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
        assert report.count_differences == []  # paper Table 8: 43672 original mentions, 43672 parsed
        return
    with pytest.raises(MissingRawData) as info:
        build_dataset("wec_eng", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
    message = str(info.value)
    for name in (
        "Train_Event_gold_mentions.json",
        "Dev_Event_gold_mentions_validated.json",
        "Test_Event_gold_mentions_validated.json",
    ):
        assert name in message
    assert "https://huggingface.co/datasets/Intel/WEC-Eng" in message and "CC BY-SA 3.0" in message


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("wec_eng", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == [
            "Dev_Event_gold_mentions_validated.json",
            "Test_Event_gold_mentions_validated.json",
            "Train_Event_gold_mentions.json",
        ]  # docs/raw-data.md#the-test-snapshot: raw JSON missing
    assert all(e.state == "verified" for e in present if e.path.startswith("ucdcr-meta"))


def test_reader_on_mention_files_built_from_the_real_topic_maps(raw_dir: Path, tmp_path: Path) -> None:
    """One synthetic mention (in the Hugging Face format) per mapped document, on the real topic maps: every
    document lands in its split, topic and first-listed subtopic."""
    import json
    import shutil

    from ucdcr.datasets import wec_eng

    source = require(raw_dir / "WEC-Eng")
    folder = tmp_path / "WEC-Eng"
    shutil.copytree(source / "ucdcr-meta", folder / "ucdcr-meta")
    _, maps = read_topic_maps(source)
    for split, name in wec_eng.MENTION_FILES.items():
        mentions = [
            {
                "coref_chain": i,
                "coref_link": row.subtopic,
                "doc_id": doc,
                "mention_context": ["The", "event", "."],
                "mention_head": "event",
                "mention_head_lemma": "event",
                "mention_head_pos": "NOUN",
                "mention_id": str(i),
                "mention_index": i,
                "mention_ner": "UNK",
                "mention_type": 8,
                "predicted_coref_chain": None,
                "sent_id": 0,
                "tokens_number": [1],
                "tokens_str": "event",
                "topic_id": -1,
            }
            for i, (doc, row) in enumerate(maps[split].items())
        ]
        (folder / name).write_text(json.dumps(mentions), encoding="utf-8")
    spec = get("wec_eng")
    corpus = spec.read(folder)
    per_split = Counter(d.split for d in corpus.documents)
    assert per_split == {split: spec.expected(f"{split}.documents") for split in ("train", "val", "test")}
    assert len({(d.split, d.subtopic_id) for d in corpus.documents}) == spec.expected("subtopics")
    assert len({d.topic_id for d in corpus.documents}) == 18
    assert not corpus.dropped and len(corpus.mentions) == 34132 + 1194 + 1803
