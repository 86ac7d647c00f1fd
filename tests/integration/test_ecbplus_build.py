"""ECB+ built from ../shared/raw/ECBplus, checked against the counts the dataset declares (paper Tables 2, 8, 12
and the reference CSV summary; their sources are in ucdcr/datasets/ecbplus.py) and the authors' release
(../shared/reference/ECBplus/all_mentions.parquet).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ucdcr.analysis.compare import compare_builds, context_differences
from ucdcr.sources.download import dataset_status


@pytest.fixture(scope="module")
def ecb(built) -> tuple[Path, object]:
    return built("ecbplus"), built.report("ecbplus")


def test_raw_files_verified(raw_dir: Path) -> None:
    status = dataset_status("ecbplus", raw_dir)
    assert status.complete
    states = {e.path: e.state for e in status.entries}
    assert states["ECB+_LREC2014/ECB+"] == "verified"  # tree hash, docs/raw-data.md#verification
    assert states["ECB+_LREC2014/ECB+.zip"] == "missing"  # not in ../shared/raw; the tree replaces it


def test_counts_against_the_paper(ecb: tuple[Path, object]) -> None:
    _, report = ecb
    # 982 documents read, 15,122 annotated and written (the reference lost 71 in re-mapping: 45 train, 11 val, 15
    # test), 976 with validated sentences, 43 topics, 86 subtopics, events/entities by their own type 6,833 / 8,289
    assert report.count_differences == []  # type: ignore[attr-defined]
    assert report.dropped == []  # type: ignore[attr-defined]


def test_agreement_with_the_authors_release(ecb: tuple[Path, object], reference_dir: Path) -> None:
    folder, _ = ecb
    figures = compare_builds(folder, reference_dir / "ECBplus")
    print(json.dumps({k: v for k, v in figures.items() if not isinstance(v, dict)}, indent=1))
    assert figures["reference_mentions"] == 15019  # 15,051 rows, 15,019 distinct (document, sentence, span)
    # Faithful spans split the reference's own merged tokens where they cross a mention boundary ("Calif." ->
    # "Calif" "." when the markable ends before the period, "NEWS-3", "a.m."; 59 more tokens, and 55 more of the
    # 1840 sentences holding a mention differ from theirs). The reference kept them and widened those mentions;
    # every later token of such a sentence is numbered one higher than theirs, so 149 more of their mentions find
    # no span with the same token numbers: matched 98.50% -> 97.51%, sentences identical 97.28% -> 94.29%
    # (bench/compare_ecbplus_reference.py on builds before and after the split).
    assert figures["matched_rate"] >= 97.5
    assert figures["head_lemma_agreement"] >= 93.0
    assert figures["split_agreement"] == 100.0
    # Same text in the window (tokens joined) for 99.07%; identical token lists 70.12% (bench/compare_ecbplus_
    # reference.py, after gluing clitics "I'm"; 73.39% before the faithful-span split above). A window holds ~7
    # sentences and 94.3% of sentences come out identical; the rest is the reference's neural whitespace corrector
    # (docs/build-pipeline.md#whitespace-corrector), which we cannot run offline, and the split tokens. Windows by the
    # only category they show (pipeline.compare.context_differences): URL lines it left half-spaced 1122,
    # punctuation it glued or kept glued ("playoffs-", "Calif.") 1043, spaces it kept ("11 : 25") 575, words it
    # merged ("repsays") 487, "I ' m" left apart 106 (its text has 7 of 22 "'m"/"'ve" glued, NP4E 6 of 6).
    assert figures["context_text_identical"] >= 99.0
    assert figures["context_identical"] >= 70.0
    assert figures["mention_sentences_identical"] >= 94.0  # 94.29% of the 1840 sentences holding a mention
    found = context_differences(folder, reference_dir / "ECBplus")
    assert found["differing_windows"] == round(figures["matched"] * (100 - figures["context_identical"]) / 100)
    assert found["only"].get("url", 0) >= 1000  # the largest single cause (1122 measured)
    # chain partitions over matched mentions: only the UNKNOWN_INSTANCE_TAG and singleton ids differ by design
    assert figures["muc_f1"] >= 99.0 and figures["bcub_f1"] >= 99.0


def test_output_files_and_invariants(ecb: tuple[Path, object]) -> None:
    folder, report = ecb
    for split in ("train", "val", "test"):
        for kind in ("event", "entity"):
            records = json.loads((folder / split / f"{kind}_mentions.json").read_text(encoding="utf-8"))
            assert len(records) == report.splits[split][f"{kind}_mentions"]
            assert all(r["split"] == split for r in records)
    data = json.loads((folder / "build_report.json").read_text())
    assert data["parse_rate"] == 100.0 and len(data["inputs"]) == 982 + 3


def test_rebuild_is_byte_identical(ecb: tuple[Path, object], raw_dir: Path, tmp_path: Path) -> None:
    from ucdcr.pipeline.build import build_dataset

    folder, _ = ecb
    build_dataset("ecbplus", raw_dir=raw_dir, data_dir=tmp_path, jobs=2, progress=False)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        assert (tmp_path / "ecbplus" / path.relative_to(folder)).read_bytes() == path.read_bytes(), path.name
