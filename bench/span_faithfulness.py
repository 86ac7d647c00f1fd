"""Count built mentions whose tokens do not spell exactly their markable (span faithfulness), per dataset.

Usage: python bench/span_faithfulness.py [DATASET ...] [--raw-dir ../shared/raw] [--built DATA_DIR] [--jobs 2]
Builds each dataset (default: ecbplus np4e meantime cd2cr cerec) into a temporary folder unless --built names a
data dir that already holds it, reads its raw files again and compares every written mention's tokens with the
original tokens of its markable (ucdcr.pipeline.document.span_mismatches). Columns:

- differ: mentions whose characters differ from their markable (whitespace ignored, LaTeX quotes as rebuilt);
- raw: the same comparison on the texts exactly as given (also counts a "``" written as '"' or a tab in a token);
- not covered / discontinuous: mentions the build dropped (build report, stage "align") because no re-parsed
  tokens cover exactly the markable, or because the markable is not one contiguous run of tokens;
- build s: wall time of the build (0 with --built).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATASETS = ("ecbplus", "np4e", "meantime", "cd2cr", "cerec")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=list(DEFAULT_DATASETS))
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--built", type=Path, help="a data dir holding the built datasets (default: build them now)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, default=5, help="mismatches and drops to print per dataset")
    args = parser.parse_args()

    print(
        f"{'dataset':10s} {'written':>8s} {'differ':>7s} {'raw':>5s} {'not covered':>12s} "
        f"{'discontinuous':>14s} {'build s':>8s}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        for dataset in args.datasets:
            measure(dataset, args.raw_dir, args.built or Path(scratch), args.built is None, args.jobs, args.examples)


def measure(dataset: str, raw_dir: Path, data_dir: Path, build: bool, jobs: int, examples: int) -> None:
    from ucdcr.io.load import load_mentions
    from ucdcr.pipeline.build import build_dataset
    from ucdcr.pipeline.document import DISCONTINUOUS, SPAN_NOT_COVERED, span_mismatches
    from ucdcr.registry import ReadOptions, get

    spec = get(dataset)
    seconds = 0.0
    if build:
        started = time.perf_counter()
        build_dataset(dataset, raw_dir=raw_dir, data_dir=data_dir, jobs=jobs, progress=False)
        seconds = time.perf_counter() - started
    folder = data_dir / spec.id
    records = load_mentions(folder, columns=["mention_id", "conll_doc_key", "tokens_text"]).to_pylist()
    corpus = spec.read(raw_dir / spec.raw_folder, ReadOptions())
    differ = span_mismatches(corpus, records, spec.mention_id_prefix)
    raw = span_mismatches(corpus, records, spec.mention_id_prefix, normalize=False)
    report = json.loads((folder / "build_report.json").read_text(encoding="utf-8"))
    aligned = [d for d in report["dropped"] if d["stage"] == "align"]
    not_covered = [d for d in aligned if d["reason"].startswith(SPAN_NOT_COVERED)]
    discontinuous = [d for d in aligned if d["reason"].startswith(DISCONTINUOUS)]
    print(
        f"{dataset:10s} {len(records):8d} {len(differ):7d} {len(raw):5d} {len(not_covered):12d} "
        f"{len(discontinuous):14d} {seconds:8.1f}"
    )
    for mismatch in differ[:examples]:
        print(f"    differs: {mismatch.doc_key} {mismatch.mention_id}: {mismatch.markable!r} -> {mismatch.written!r}")
    for drop in (not_covered + discontinuous)[:examples]:
        print(f"    dropped: {drop['doc_key']} {drop['span']} {drop['text']!r}: {drop['reason']}")


if __name__ == "__main__":
    main()
