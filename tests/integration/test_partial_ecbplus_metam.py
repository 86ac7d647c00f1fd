"""ECB+METAm on the real partial raw data: the superseded draft parses as a format sample; without the final
mention map the build gives the manual steps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import require
from ucdcr.datasets.ecbplus_metam import SPLIT_FILE, read_topic_splits
from ucdcr.download import dataset_status
from ucdcr.errors import MissingRawData
from ucdcr.formats.metam_json import read_draft_tasks
from ucdcr.pipeline.build import build_dataset

DRAFT = "_superseded/project/corpus/ecb_meta/tasks.json"


def test_draft_tasks_parse_as_format_sample(raw_dir: Path) -> None:
    folder = require(raw_dir / "ECBplusMETAm")
    tasks = read_draft_tasks(require(folder / DRAFT))
    # counted on the file (MANIFEST.md §2: "list of 3,025 Prodigy-style tasks"); 4 tasks have no span
    assert len(tasks) == 3025
    assert Counter(len(t.spans) for t in tasks) == {1: 3021, 0: 4}
    assert {s.label for t in tasks for s in t.spans} == {"EVT"}
    assert all('<mark id="mark">' in t.old_sentence for t in tasks)
    # the draft covers exactly the 18 val/test topics of the split file (8 val + 10 test)
    splits = read_topic_splits(folder / SPLIT_FILE)
    draft_topics = {t.mention_id.split("_", 1)[0] for t in tasks}
    assert draft_topics == {topic for topic, split in splits.items() if split in ("val", "test")}
    assert len(draft_topics) == 18


def test_build_without_mention_map_gives_manual_steps(raw_dir: Path, tmp_path: Path) -> None:
    folder = require(raw_dir / "ECBplusMETAm")
    if (folder / "ecbplus_metam.json").exists():
        report = build_dataset("ecbplus_metam", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
        # paper Table 8: ECB+METAm 6556 original mentions
        assert report.counts["mentions_annotated"] == 6556
        return
    with pytest.raises(MissingRawData) as info:
        build_dataset("ecbplus_metam", raw_dir=raw_dir, data_dir=tmp_path, jobs=1, progress=False)
    message = str(info.value)
    assert "ecbplus_metam.json" in message and "8b766eb3c26ede6322bcdec434f88ad8d211ebe3" in message
    assert "MIT" in message and "ucdcr download ecbplus" in message


def test_manifest_status_names_the_missing_files(raw_dir: Path) -> None:
    status = dataset_status("ecbplus_metam", raw_dir)
    missing = sorted(e.path for e in status.entries if e.required and e.state == "missing")
    present = [e for e in status.entries if e.state != "missing"]
    if missing:
        assert not status.complete
        assert missing == ["ecbplus_metam.json"]  # MANIFEST.md: only uCDCR meta + a superseded draft
    assert all(e.state == "verified" for e in present if e.path.startswith("ucdcr-meta"))
