"""Count built mentions whose tokens do not spell exactly their markable (span faithfulness), per dataset.

Usage: python bench/span_faithfulness.py [DATASET ...] [--raw-dir ../shared/raw] [--built DATA_DIR] [--jobs 2]
Builds each dataset (default: ecbplus np4e meantime cd2cr cerec) into a temporary folder unless --built names a
data dir that holds it, reads its raw files again, and compares every written mention's tokens with the original
tokens of its markable (ucdcr.pipeline.document.span_mismatches). Prints per dataset: mentions written, mentions
whose characters differ, mentions the build dropped because no re-parsed tokens cover exactly the markable, and
the build time.
"""

from __future__ import annotations

import argparse
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
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        data_dir = args.built or Path(scratch)
        print(f"{'dataset':10s} {'written':>8s} {'differ':>7s} {'dropped':>8s} {'build s':>8s}")
        for dataset in args.datasets:
            measure(dataset, args.raw_dir, data_dir, build=args.built is None, jobs=args.jobs, examples=args.examples)


def measure(dataset: str, raw_dir: Path, data_dir: Path, build: bool, jobs: int, examples: int) -> None:
    import json

    from ucdcr.io.load import load_mentions
    from ucdcr.pipeline.build import build_dataset
    from ucdcr.pipeline.document import SPAN_NOT_COVERED, span_mismatches
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
    mismatches = span_mismatches(corpus, records, spec.mention_id_prefix)
    report = json.loads((folder / "build_report.json").read_text(encoding="utf-8"))
    dropped = [d for d in report["dropped"] if d["stage"] == "align" and d["reason"].startswith(SPAN_NOT_COVERED)]
    print(f"{dataset:10s} {len(records):8d} {len(mismatches):7d} {len(dropped):8d} {seconds:8.1f}")
    for mismatch in mismatches[:examples]:
        print(f"    differs: {mismatch.doc_key} {mismatch.mention_id}: {mismatch.markable!r} -> {mismatch.written!r}")
    for drop in dropped[:examples]:
        print(f"    dropped: {drop['doc_key']} {drop['span']} {drop['text']!r}: {drop['reason']}")


if __name__ == "__main__":
    main()
