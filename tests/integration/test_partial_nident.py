"""NIdent on the real partial raw data: the split file and NP4E's subtopic structure load; without the licensed
XML files the build gives the manual steps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from tests.conftest import require

from ucdcr.datasets.nident import np4e_subtopics
from ucdcr.errors import MissingRawData
from ucdcr.formats.split_file import SPLIT_FILE, read_split_map
from ucdcr.pipeline.build import build_dataset
from ucdcr.registry import get
from ucdcr.sources.download import dataset_status


def test_split_file_and_np4e_structure_load(raw_dir: Path) -> None:
    split_of = read_split_map(require(raw_dir / "NIdent" / SPLIT_FILE))
    # docs/datasets/nident.md#raw-files
    assert split_of == {"0": "train", "1": "train", "2": "train", "3": "val", "4": "test"}
    subtopic_of = np4e_subtopics(require(raw_dir / "NP4E"))
    per_split = Counter(split_of[subtopic.split("_")[0]] for subtopic in subtopic_of.values())
    # NIdent re-annotates NP4E's documents: NP4E's per-split documents (its release has 55 / 18 / 20)
    np4e = get(get("nident").reannotates or "")
    assert per_split == {split: np4e.expected(f"{split}.documents") for split in ("train", "val", "test")}


def test_build_without_corpus_gives_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    folder = require(raw_dir / "NIdent")
    if (folder / "english-corpus").is_dir():
        report = build_dataset("nident", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
        assert report.count_differences == []  # paper Table 8: 13095 original mentions; 93 documents
        return
    with pytest.raises(MissingRawData) as info:
        build_dataset("nident", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
    message = str(info.value)
    assert "english-corpus" in message and "http://clic.ub.edu/corpus/en/nident" in message


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("nident", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == ["english-corpus"]  # docs/raw-data.md#the-test-snapshot: only the uCDCR split file
    assert all(e.state == "verified" for e in present if e.path.startswith("ucdcr-meta"))


def test_download_prints_the_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ucdcr.cli.app import app

    result = CliRunner().invoke(app, ["download", "nident", "--raw-dir", str(tmp_path), "--mirror", str(raw_dir)])
    assert result.exit_code == 1
    output = " ".join(result.output.split())  # rich wraps long lines
    assert "manual steps needed" in output and "http://clic.ub.edu/corpus/en/nident" in output
    assert "<raw-dir>/NIdent/english-corpus/" in output
    assert (tmp_path / "NIdent" / "ucdcr-meta" / "train_val_test_split.json").exists()  # the obtainable part is copied
