"""GVC on the real partial raw data: the split and incident CSVs load; without verbose.conll the build gives the
manual steps; with it (once downloaded) the build matches the reference counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import require
from ucdcr.datasets.gvc import read_structure
from ucdcr.download import dataset_status
from ucdcr.errors import MissingRawData
from ucdcr.pipeline.build import build_dataset


def test_split_and_incident_files_load(raw_dir: Path) -> None:
    structure = read_structure(require(raw_dir / "GVC"))
    # REFERENCE.md §7.2: GVC has 510 documents in 241 subtopics (incidents); per split 358 / 78 / 74 documents
    assert len(structure) == 510
    assert len({incident for incident, _ in structure.values()}) == 241
    assert Counter(split for _, split in structure.values()) == {"train": 358, "val": 78, "test": 74}
    # paper Table 13 (GVC test row): 34 subtopics in the test split
    assert len({incident for incident, split in structure.values() if split == "test"}) == 34


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
    # paper Table 8: GVC Original 7298 mentions; REFERENCE.md §7.2: 510 documents
    assert report.counts["mentions_annotated"] == 7298
    assert report.counts["documents"] == 510


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("gvc", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == ["verbose.conll"]  # MANIFEST.md: the 3 CoNLL files are absent; only verbose.conll is read
    assert all(e.state == "verified" for e in present if e.path.startswith(""))
