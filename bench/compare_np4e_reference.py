"""Compare our NP4E build with the authors' release (../shared/reference/NP4E): the same figures as
bench/compare_ecbplus_reference.py (what `ucdcr compare np4e` prints, then the context windows that differ by
category). The reference files are newer than the paper's summary numbers
(docs/reproducing.md#stale-and-inconsistent-outputs), so they are compared with our build, not with Table 2.

Usage: python bench/compare_np4e_reference.py [--built DIR] [--raw-dir DIR] [--reference DIR]
(without --built, NP4E is built into a temporary folder first).
"""

from __future__ import annotations

from compare_ecbplus_reference import main

if __name__ == "__main__":
    main("np4e")
