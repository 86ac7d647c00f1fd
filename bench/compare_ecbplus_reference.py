"""Compare our ECB+ build with the authors' release (../shared/reference/ECBplus) and print the figures.

Usage: python bench/compare_ecbplus_reference.py [--built DIR] [--raw-dir ../shared/raw] [--examples 10]
Builds ECB+ into a temporary folder unless --built points at a built ``ecbplus`` folder. Mentions are matched by
(conll_doc_key, sent_id, tokens_number); see ucdcr.analysis.compare for the figures.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--built", type=Path, help="a built ecbplus folder (default: build one now)")
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "reference" / "ECBplus")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args()

    from ucdcr.analysis.compare import (
        compare_builds,
        print_context_differences,
        unmatched,
    )

    with tempfile.TemporaryDirectory() as data_dir:
        folder = args.built
        if folder is None:
            from ucdcr.pipeline.build import build_dataset

            build_dataset("ecbplus", raw_dir=args.raw_dir, data_dir=data_dir, jobs=args.jobs, progress=True)
            folder = Path(data_dir) / "ecbplus"
        figures = compare_builds(folder, args.reference)
        for name, value in figures.items():
            if isinstance(value, float):
                print(f"{name:26s} {value:8.2f}")
            elif not isinstance(value, dict):
                print(f"{name:26s} {value:8d}")
        print_context_differences(folder, args.reference)
        print(f"\nreference mentions without an exact span match (first {args.examples}):")
        for row in unmatched(folder, args.reference, args.examples):
            print(f"  {row['conll_doc_key']} sentence {row['sent_id']} {row['tokens_number']} {row['tokens_text']}")


if __name__ == "__main__":
    main()
