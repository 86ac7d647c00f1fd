"""A reader sees one complete build while the dataset is rebuilt beside it (issue 20, ucdcr.io.one_build.consistent).

A second process swaps two different builds of one dataset in and out as fast as it can, with the build's own
swap (:class:`ucdcr.io.output_folder.OutputFolder`); meanwhile this process reads the dataset in a loop through
``ucdcr.load``, the statistics and the four exports (CoNLL, spaCy, CorefUD, Hugging Face): each read must give
build A or build B, never a mix (build B lacks one train and one test mention, so a mix has a third count).
Bounded to a few seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.fixtures import tiny_dataset as tiny

import ucdcr
from ucdcr.schema import MENTION_SCHEMA

SRC = Path(__file__).resolve().parents[2] / "src"
SECONDS = 2.5

SWAPPER = """
import shutil, sys, time
from pathlib import Path
from ucdcr.io.output_folder import OutputFolder
target, builds, seconds = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:4]], float(sys.argv[4])
end, swaps = time.monotonic() + seconds, 0
while time.monotonic() < end:
    with OutputFolder(target) as output:
        shutil.rmtree(output.staging)
        shutil.copytree(builds[swaps % 2], output.staging)
        output.commit()
    swaps += 1
print(swaps)
"""


def write_build(folder: Path, drop: set[str]) -> set[str]:
    """The tiny dataset without the mentions ``drop``; its mention ids."""
    tiny.write_tiny_dataset(folder)
    (folder / "build_report.json").write_text(json.dumps({"dataset": "ecbplus", "splits": {}}), encoding="utf-8")
    for path in folder.glob("*/*_mentions.json"):
        records = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps([r for r in records if r["mention_id"] not in drop]), encoding="utf-8")
    records = [r for r in tiny.mention_records() if r["mention_id"] not in drop]
    pq.write_table(pa.Table.from_pylist(records, schema=MENTION_SCHEMA), folder / "all_mentions.parquet")
    return {r["mention_id"] for r in records}


@pytest.fixture
def swapping(tmp_path: Path):
    records = tiny.mention_records()
    last = {split: [r["mention_id"] for r in records if r["split"] == split][-1] for split in ("train", "test")}
    ids_a = write_build(tmp_path / "A", set())
    ids_b = write_build(tmp_path / "B", set(last.values()))
    data = tmp_path / "data"
    data.mkdir()
    import shutil

    shutil.copytree(tmp_path / "A", data / "ecbplus")
    process = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(data / "ecbplus"), str(tmp_path / "A"), str(tmp_path / "B"), str(SECONDS)],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
        text=True,
    )
    yield data, ids_a, ids_b, process
    process.kill()
    process.wait()


EXPORTS = ("conll", "spacy", "corefud", "hf")


def exported(fmt: str, data: Path, tmp_path: Path) -> int:
    """The mentions an export of ``fmt`` wrote (or left out, with the reason)."""
    if fmt == "conll":
        from ucdcr.export.conll import export_dataset

        export = export_dataset("ecbplus", tmp_path / "conll", data_dir=data)
        return sum(summary.mentions + len(summary.left_out) for summary in export.splits.values() if summary)
    if fmt == "corefud":
        from ucdcr.export.corefud import export_corefud

        splits = export_corefud("ecbplus", tmp_path / "corefud", data_dir=data).splits
        return sum(summary.mentions + len(summary.left_out) for summary in splits.values() if summary)
    if fmt == "spacy":
        from ucdcr.export.spacy_docs import export_spacy

        spacy_export = export_spacy("ecbplus", tmp_path / "e.spacy", data_dir=data)
        return spacy_export.mentions + len(spacy_export.left_out)
    from ucdcr.export.huggingface import export_hf

    return sum(export_hf("ecbplus", tmp_path / "hf", data_dir=data).rows["mentions"].values())


def test_every_read_during_rebuilds_is_one_build(swapping, tmp_path: Path) -> None:
    data, ids_a, ids_b, process = swapping
    builds = {frozenset(ids_a), frozenset(ids_b)}
    reads = 0
    end = time.monotonic() + SECONDS
    while time.monotonic() < end or reads < 5:
        ids = frozenset(ucdcr.load("ecbplus", data_dir=data, columns=["mention_id"])["mention_id"].to_pylist())
        assert ids in builds, f"read {len(ids)} mentions: neither build A ({len(ids_a)}) nor B ({len(ids_b)})"
        if reads % 5 == 0:
            tables = ucdcr.stats_tables("ecbplus", data_dir=data, tables=["2"])
            assert tables[0].rows[0]["Mentions"] in (len(ids_a), len(ids_b)), tables[0].rows[0]
        if reads % 8 == 0:  # the exports in turn
            assert exported(EXPORTS[reads // 8 % len(EXPORTS)], data, tmp_path) in (len(ids_a), len(ids_b))
        reads += 1
    swaps = int(process.communicate(timeout=30)[0])
    assert process.returncode == 0
    assert swaps > 5, (swaps, reads)  # both loops really ran side by side (reads: at least 5 by the loop)
