"""The shipped raw-file manifests (src/ucdcr/manifests/*.json): well-formed, and in agreement with the real raw
files in ../shared/raw and their list ../shared/raw/FILES.tsv (path, size, sha256 of every file there)."""

from __future__ import annotations

import csv
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ucdcr.registry import dataset_ids, get
from ucdcr.sources import download as dl

DATASET_IDS = dataset_ids()

MANIFEST_DIR = resources.files("ucdcr").joinpath("manifests")
HEX = {"sha256": 64, "tree_sha256": 64, "git_blob": 40}


def manifests() -> dict[str, dict[str, Any]]:
    return {
        Path(item.name).stem: json.loads(item.read_text(encoding="utf-8"))
        for item in MANIFEST_DIR.iterdir()
        if item.name.endswith(".json")
    }


def files_tsv(raw_dir: Path) -> dict[str, dict[str, str]]:
    with (raw_dir / "FILES.tsv").open(encoding="utf-8", newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle, delimiter="\t")}


def test_one_manifest_per_dataset() -> None:
    assert sorted(manifests()) == sorted(DATASET_IDS)


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_manifest_is_well_formed(dataset_id: str) -> None:
    data = manifests()[dataset_id]
    assert data["dataset"] == dataset_id and get(dataset_id).id == dataset_id
    assert isinstance(data["licence"], str) and data["licence"]
    assert data["manual_steps"] is None or (isinstance(data["manual_steps"], str) and data["manual_steps"].strip())
    paths = [entry["path"] for entry in data["files"]]
    assert paths and len(paths) == len(set(paths)), "every entry once"
    for entry in data["files"]:
        assert not entry["path"].startswith("/") and ".." not in Path(entry["path"]).parts
        assert entry.get("kind", "file") in ("file", "tree")
        for key, length in HEX.items():
            assert entry.get(key) is None or re.fullmatch(f"[0-9a-f]{{{length}}}", entry[key]), (entry["path"], key)
        assert entry.get("size") is None or (isinstance(entry["size"], int) and entry["size"] >= 0)
    # a required file that no URL can fetch must come with manual steps (what `ucdcr download` prints)
    unreachable = [e["path"] for e in data["files"] if e.get("required") and not e.get("url")]
    assert not unreachable or data["manual_steps"], unreachable


@pytest.mark.parametrize("dataset_id", DATASET_IDS)
def test_entries_present_in_shared_raw_verify(dataset_id: str, raw_dir: Path) -> None:
    folder = raw_dir / get(dataset_id).raw_folder
    checked = 0
    for entry in manifests()[dataset_id]["files"]:
        target = folder / entry["path"]
        hashed = entry.get("tree_sha256") or (entry.get("sha256") and entry.get("size") is not None)
        if hashed and target.exists():
            assert dl.verify_entry(target, get(dataset_id).manifest.entry(entry["path"]), folder), entry["path"]
            checked += 1
    # docs/raw-data.md#the-test-snapshot: FCC-T and HyperCoref have no folder in ../shared/raw; every other dataset has
    # at least one hashed file there (NIdent: only its uCDCR split file)
    assert checked > 0 or dataset_id in ("fcct", "hypercoref")


def test_manifests_agree_with_files_tsv(raw_dir: Path) -> None:
    listed = files_tsv(raw_dir)
    matched, trees = set(), []
    for dataset_id, data in manifests().items():
        raw_folder = get(dataset_id).raw_folder
        for entry in data["files"]:
            key = f"{raw_folder}/{entry['path']}"
            if entry.get("kind") == "tree":
                trees.append(key + "/")
            elif key in listed:
                assert entry.get("size") in (None, int(listed[key]["size_bytes"])), key
                assert entry.get("sha256") in (None, listed[key]["sha256"]), key
                matched.add(key)
    # every file of ../shared/raw is named by a manifest, directly or inside a tree entry: FILES.tsv lists 1748
    # files = 58 file entries + the trees CEREC data/LREC (47), ECB+ (982), NP4E mmax2 (661):
    # docs/raw-data.md#the-test-snapshot
    uncovered = [path for path in listed if path not in matched and not any(path.startswith(t) for t in trees)]
    assert uncovered == []
    assert (len(listed), len(matched)) == (1748, 58)
