"""Compare our NP4E build with the authors' release (../shared/reference/NP4E/all_mentions.parquet).

Prints: mention match (same document, sentence and re-parsed token span), head agreement (same head token id,
same head lemma), context agreement (same context window ids, same context tokens), chain agreement on the
matched mentions (MUC / B3 / CEAFe / CoNLL F1 of our chains against theirs, per split, one pseudo-document per
subtopic) and the counts of both sides. The reference files are newer than the paper's summary numbers
(REFERENCE.md §0), so they are compared with our build, not with Table 2.

Usage: python bench/compare_np4e_reference.py [--built DIR] [--raw DIR] [--reference DIR]
(without --built, NP4E is built into a temporary folder first, --jobs 1).
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ucdcr.scoring import CONLL_METRICS, score_documents

REPO = Path(__file__).resolve().parent.parent
LIST_COLUMNS = ("tokens_text", "tokens_number", "context_start_end_global_id", "mention_context")


def load(path: Path) -> list[dict[str, Any]]:
    """Mention rows of an all_mentions.parquet (ours: Arrow lists; theirs: Python repr strings)."""
    rows = pq.read_table(path).to_pylist()
    for row in rows:
        for column in LIST_COLUMNS:
            if isinstance(row[column], str):
                row[column] = ast.literal_eval(row[column])
    return rows


def span_key(row: dict[str, Any]) -> tuple[str, int, tuple[int, ...]]:
    return row["conll_doc_key"], row["sent_id"], tuple(row["tokens_number"])


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100.0 * part / whole:.2f}%" if whole else f"{part}/0"


def compare(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    our_by_span = {span_key(r): r for r in ours}
    their_by_span: dict[tuple[str, int, tuple[int, ...]], dict[str, Any]] = {}
    duplicates = 0
    for row in theirs:
        duplicates += span_key(row) in their_by_span
        their_by_span.setdefault(span_key(row), row)
    matched = [(our_by_span[k], their_by_span[k]) for k in their_by_span if k in our_by_span]
    print(f"mentions: ours {len(ours)}, reference {len(theirs)} ({duplicates} reference rows repeat a span)")
    print(
        f"mention match (doc, sentence, token span): {percent(len(matched), len(their_by_span))} of reference spans, "
        f"{percent(len(matched), len(our_by_span))} of ours"
    )
    n = len(matched)
    for label, same in (
        ("head token id", lambda a, b: a["mention_head_id"] == b["mention_head_id"]),
        ("head lemma", lambda a, b: a["mention_head_lemma"] == b["mention_head_lemma"]),
        ("head POS", lambda a, b: a["mention_head_pos"] == b["mention_head_pos"]),
        ("NER", lambda a, b: a["mention_ner"] == b["mention_ner"]),
        ("tokens_text", lambda a, b: a["tokens_text"] == b["tokens_text"]),
        ("context window ids", lambda a, b: a["context_start_end_global_id"] == b["context_start_end_global_id"]),
        ("context tokens", lambda a, b: a["mention_context"] == b["mention_context"]),
        ("chain type", lambda a, b: a["mention_full_type"] == b["mention_full_type"]),
    ):
        print(f"  {label:20s} agreement: {percent(sum(1 for a, b in matched if same(a, b)), n)}")
    chain_agreement(matched)
    for name, rows in (("ours", ours), ("reference", theirs)):
        per_split = Counter(r["split"] for r in rows)
        chains = defaultdict(set)
        for r in rows:
            chains[r["split"]].add(r["coref_chain"])
        print(
            f"{name:9s}: "
            + ", ".join(f"{s} {per_split[s]} mentions / {len(chains[s])} chains" for s in ("train", "val", "test"))
        )


def chain_agreement(matched: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """CoNLL metrics of our chains (response) against the reference chains (key) on the matched mentions."""
    for split in ("train", "val", "test"):
        documents: dict[str, tuple[dict[str, set], dict[str, set]]] = {}
        for ours, theirs in matched:
            if theirs["split"] != split:
                continue
            key, response = documents.setdefault(theirs["subtopic_id"], (defaultdict(set), defaultdict(set)))
            mention = span_key(theirs)
            key[theirs["coref_chain"]].add(mention)
            response[ours["coref_chain"]].add(mention)
        scores = score_documents(
            {k: (list(a.values()), list(b.values())) for k, (a, b) in documents.items()}, CONLL_METRICS
        )
        print(
            f"  chains {split:5s} (ours vs reference, matched mentions): "
            + ", ".join(f"{m} F1 {scores[m].f1 * 100:.2f}" for m in CONLL_METRICS)
            + f", CoNLL F1 {scores.conll_f1 * 100:.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--built", type=Path, help="our built np4e folder (default: build into a temp dir)")
    parser.add_argument("--raw", type=Path, default=REPO.parent / "shared" / "raw")
    parser.add_argument("--reference", type=Path, default=REPO.parent / "shared" / "reference" / "NP4E")
    args = parser.parse_args(argv)
    built = args.built
    if built is None:
        from ucdcr.pipeline.build import build_dataset

        started = time.perf_counter()
        data_dir = tempfile.mkdtemp(prefix="np4e-")
        report = build_dataset("np4e", raw_dir=args.raw, data_dir=data_dir, jobs=1, progress=False)
        built = Path(report.output_dir)
        print(
            f"built np4e in {time.perf_counter() - started:.1f} s: {report.counts['mentions_written']} mentions, "
            f"parse rate {report.parse_rate}%"
        )
    compare(load(built / "all_mentions.parquet"), load(args.reference / "all_mentions.parquet"))
    from ucdcr.analysis.compare import compare_builds, print_context_differences

    figures = compare_builds(built, args.reference)
    print(
        f"sentences holding a mention on both sides with identical tokens: "
        f"{figures['mention_sentences_identical']:.2f}%"
    )
    print_context_differences(built, args.reference)
    return 0


if __name__ == "__main__":
    sys.exit(main())
