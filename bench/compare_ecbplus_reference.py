"""Compare our ECB+ build with the authors' release (../shared/reference/ECBplus) and print the figures.

Usage: python bench/compare_ecbplus_reference.py [--built DIR] [--raw-dir ../shared/raw] [--reference DIR]
Builds the dataset into a temporary folder unless --built points at a built folder, then prints what
`ucdcr compare` prints (ucdcr.analysis.compare.agreement: mentions by text and by span, head / context agreement,
chain links, differences by reason), the context windows that differ by category and reference mentions without an
exact span match. bench/compare_np4e_reference.py runs the same for NP4E.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(dataset: str = "ecbplus") -> None:
    from ucdcr.registry import get

    folder_name = get(dataset).authors_folder
    parser = argparse.ArgumentParser(description=f"Compare our {dataset} build with the authors' release.")
    parser.add_argument("--built", type=Path, help=f"a built {dataset} folder (default: build one now)")
    parser.add_argument("--raw-dir", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "reference" / folder_name)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args()

    from rich.console import Console

    from ucdcr.analysis.compare import agreement, print_context_differences, unmatched
    from ucdcr.cli.compare import compare_tables
    from ucdcr.report.tables import print_tables

    with tempfile.TemporaryDirectory() as data_dir:
        folder = args.built
        if folder is None:
            from ucdcr.pipeline.build import build_dataset

            build_dataset(dataset, raw_dir=args.raw_dir, data_dir=data_dir, jobs=args.jobs, progress=True)
            folder = Path(data_dir) / dataset
        print_tables(compare_tables(agreement(folder, args.reference), dataset), "md", Console())
        print_context_differences(folder, args.reference)
        print(f"\nreference mentions without an exact span match (first {args.examples}):")
        for row in unmatched(folder, args.reference, args.examples):
            print(f"  {row['conll_doc_key']} sentence {row['sent_id']} {row['tokens_number']} {row['tokens_text']}")


if __name__ == "__main__":
    main()
