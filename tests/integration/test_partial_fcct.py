"""FCC-T against ../shared/raw, which holds none of its files (MANIFEST.md §4).

While the files are missing, reading must stop with the manual steps of the manifest. Once they are placed
under ``<raw>/FCC``, the same test checks the reader against the published figures instead:
3,563 annotated mentions (paper Table 8 "Original"; EasyECR's FCC-T loader counts 1,604 / 750 / 1,209 with
stacked actions), 451 documents (Bugert et al. 2021, also quoted by EasyECR).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from ucdcr.datasets.fcct import RAW_FOLDER
from ucdcr.errors import MissingRawData
from ucdcr.registry import ReadOptions, get


def test_fcct_real_raw_dir(raw_dir: Path) -> None:
    spec = get("fcct")
    folder = raw_dir / spec.raw_folder
    assert spec.raw_folder == RAW_FOLDER
    if not (folder / "2020-10-05_FCC-T").exists():
        with pytest.raises(MissingRawData) as info:
            spec.read(folder, ReadOptions())
        manifest = json.loads(resources.files("ucdcr.manifests").joinpath("fcct.json").read_text("utf-8"))
        assert manifest["manual_steps"] in str(info.value)
        assert "2020-10-05_FCC-T/train/with_stacked_actions/cross_subtopic_mentions_action.csv" in str(info.value)
        return
    corpus = spec.read(folder, ReadOptions())
    assert corpus.counts["annotated"] == 3563
    assert len(corpus.documents) == 451
