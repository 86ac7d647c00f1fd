"""GVC on the real partial raw data: the split and incident CSVs load; without verbose.conll the build gives the
manual steps; with it (once downloaded) the build matches the reference counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import require

from ucdcr.datasets.gvc import read_structure
from ucdcr.errors import MissingRawData
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import get
from ucdcr.sources.download import dataset_status


def test_split_and_incident_files_load(raw_dir: Path) -> None:
    structure = read_structure(require(raw_dir / "GVC"))
    spec = get("gvc")  # the declared counts: the authors' summary CSV and paper Table 13 (ucdcr/datasets/gvc.py)
    assert len(structure) == spec.expected("documents")
    assert len({incident for incident, _ in structure.values()}) == spec.expected("subtopics")
    assert Counter(split for _, split in structure.values()) == {
        split: spec.expected(f"{split}.documents") for split in ("train", "val", "test")
    }
    test_incidents = {incident for incident, split in structure.values() if split == "test"}
    assert len(test_incidents) == spec.expected("test.subtopics")


def test_build_without_or_with_verbose_conll(raw_dir: Path, tmp_path: Path) -> None:
    folder = require(raw_dir / "GVC")
    if not (folder / "verbose.conll").exists():
        with pytest.raises(MissingRawData) as info:
            build_dataset("gvc", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
        message = str(info.value)
        assert "verbose.conll" in message and "576be59c74099813af181d58e54e74709cb0ab35" in message
        assert "https://raw.githubusercontent.com/cltl/GunViolenceCorpus/master/verbose.conll" in message
        return
    report = build_dataset("gvc", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
    assert report.count_differences == []  # paper Table 8: 7298 original mentions; 510 documents


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("gvc", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == ["verbose.conll"]  # absent; the one CoNLL file read (docs/raw-data.md#the-test-snapshot)
    assert all(e.state == "verified" for e in present if e.path.startswith(""))
