"""A copy of built datasets whose test split is their val split: design comparisons on val with intervals.

``ucdcr benchmark`` prints a test split's scores with their 95% bootstrap intervals and the paired tests of the
leaderboard; on a copy made here, its "test" is the val split (the train and val splits unchanged, so a system is
fitted and tuned as usual), so two configurations are compared on val's units with an interval, and the real test
split is never read. The tuning has seen the split it is scored on: the scores are optimistic, by the same tuning on
both sides of a comparison. The test split's folder, its rows of ``all_mentions.parquet`` and of
``all_documents.parquet`` are replaced by the val split's, relabelled ``test`` (a kind val lacks is left out, never
kept from the real test split).

    python bench/val_as_test.py --data-dir DIR --out DIR [--datasets ecbplus,cd2cr]
    ucdcr benchmark --data-dir OUT --systems A,B --datasets ecbplus --protocol standard
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ucdcr.schema import DOCUMENTS_PARQUET, ENTITY_FILE, EVENT_FILE, MENTIONS_PARQUET
from ucdcr.sources.discover import build_folders


def copy_with_val_as_test(source: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    shutil.rmtree(target / "test", ignore_errors=True)  # no file of the real test split may stay (a kind val lacks)
    (target / "test").mkdir()
    for name in (EVENT_FILE, ENTITY_FILE):
        if (target / "val" / name).is_file():
            rows = json.loads((target / "val" / name).read_text(encoding="utf-8"))
            for row in rows:
                row["split"] = "test"
            (target / "test" / name).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    for name in (MENTIONS_PARQUET, DOCUMENTS_PARQUET):
        path = target / name
        if path.is_file():
            table = pq.read_table(path)
            val = table.filter(pc.equal(table["split"], "val"))
            relabelled = val.set_column(
                table.column_names.index("split"), "split", pa.array(["test"] * val.num_rows, table["split"].type)
            )
            pq.write_table(pa.concat_tables([table.filter(pc.not_equal(table["split"], "test")), relabelled]), path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--datasets", default="", help="comma-separated (default: every dataset folder)")
    args = parser.parse_args()
    folders = build_folders(args.data_dir)
    for name in args.datasets.split(",") if args.datasets else sorted(folders):
        copy_with_val_as_test(folders[name], args.out / name)
        print(f"{args.out / name}: test = val of {folders[name]}")


if __name__ == "__main__":
    main()
