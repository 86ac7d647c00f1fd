"""FCC-T against ../shared/raw, which holds none of its files (docs/datasets/fcct.md#source).

While the files are missing, reading must stop with the manual steps of the manifest. Once they are placed
under ``<raw>/FCC``, the same test checks the reader against the counts the dataset declares
(ucdcr/datasets/fcct.py): 3,563 annotated mentions (paper Table 8 "Original"; EasyECR's FCC-T loader counts
1,604 / 750 / 1,209 with stacked actions), 451 documents (Bugert et al. 2021, also quoted by EasyECR).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ucdcr.datasets.fcct import RAW_FOLDER
from ucdcr.errors import MissingRawData
from ucdcr.registry import get


def test_fcct_real_raw_dir(raw_dir: Path) -> None:
    spec = get("fcct")
    folder = raw_dir / spec.raw_folder
    assert spec.raw_folder == RAW_FOLDER
    if not (folder / "2020-10-05_FCC-T").exists():
        with pytest.raises(MissingRawData) as info:
            spec.read(folder)
        assert spec.manifest.manual_steps in str(info.value)
        assert "2020-10-05_FCC-T/train/with_stacked_actions/cross_subtopic_mentions_action.csv" in str(info.value)
        return
    corpus = spec.read(folder)
    assert corpus.counts["annotated"] == spec.expected("mentions_annotated")
    assert len(corpus.documents) == spec.expected("documents")
