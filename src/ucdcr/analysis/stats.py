"""Dataset statistics: paper Tables 2, 3, 4, 12 and the head POS / NER / type distributions (Tables 9–11).

Definitions (REFERENCE.md §6), per scope (the whole dataset, or one split), over the scope's mentions from both
the event and the entity file:
- topics, subtopics, documents: distinct topic_id / subtopic_id / conll_doc_key among the mentions;
- tokens: rows of all_documents.parquet with that split label (every row for the whole dataset); None when the
  folder has no documents table. mean_doc_size = tokens / documents;
- tokens_context: mean of ctx(c) (mean context length of the chain's mentions in the entry's scope) over ALL chain
  entries (whole-dataset and per-split, :mod:`ucdcr.analysis.chains`) of the scope's chains, as the authors' code
  filters; singletons included;
- coref_chain_all: distinct chains; singletons: mentions flagged is_singleton; coref_chain = the difference;
- cross-subtopic-chains / -mentions: chains spanning ≥ 2 subtopic_ids in the scope, and their mentions;
- *_entity / *_event: the same counts by the file a mention came from;
- average_size etc. of :mod:`ucdcr.analysis.diversity` complete the row (the authors' summary CSV columns).

Tables 9–11 count mention_head_pos, mention_ner and mention_full_type.split("_")[0] over all mentions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from statistics import fmean
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ucdcr.analysis.chains import (
    FULL_SCOPE,
    ChainEntry,
    chain_entries,
    chain_ids,
    scopes,
)
from ucdcr.analysis.diversity import SELECTIONS, chain_diversity, scope_diversity
from ucdcr.io.load import KIND_COLUMN
from ucdcr.schema import DOC_KEY_COLUMN

STATS_FIELDS = (
    "coref_chain",
    "topic_id",
    "subtopic_id",
    "conll_doc_key",
    "is_singleton",
    "split",
    "mention_context",
    "tokens_text",
    "mention_head",
    "mention_head_lemma",
    "mention_head_pos",
    "mention_ner",
    "mention_full_type",
)


def chain_context_lengths(table: pa.Table, entries: Sequence[ChainEntry]) -> list[float]:
    """ctx(c) of each chain entry: the mean len(mention_context) of its mentions."""
    lengths = pc.list_value_length(table["mention_context"]).to_pylist()
    return [fmean(lengths[row] for row in entry.rows) for entry in entries]


def _count_rows(rows: Sequence[int], chains: list[str], subtopics: list[str]) -> tuple[int, int]:
    """Cross-subtopic chains and their mentions among the given rows."""
    chain_subtopics: dict[str, Counter[str]] = {}
    for row in rows:
        chain_subtopics.setdefault(chains[row], Counter())[subtopics[row]] += 1
    crossing = [counts for counts in chain_subtopics.values() if len(counts) > 1]
    return len(crossing), sum(sum(counts.values()) for counts in crossing)


def summary_rows(table: pa.Table, documents: pa.Table | None = None) -> list[dict[str, Any]]:
    """One summary row per scope ("" = whole dataset, then each split), unrounded, keyed like the authors' CSV."""
    chains = chain_ids(table)
    entries = chain_entries(table)
    diversity = chain_diversity(table, entries)
    contexts = dict(zip(entries, chain_context_lengths(table, entries), strict=True))
    columns = {name: table[name].to_pylist() for name in ("topic_id", "subtopic_id", "conll_doc_key", "split")}
    singleton = table["is_singleton"].to_pylist()
    kinds = table[KIND_COLUMN].to_pylist()
    token_rows = _token_rows(documents, columns["conll_doc_key"], columns["split"])
    rows = []
    for scope in scopes(table):
        in_scope = [i for i, split in enumerate(columns["split"]) if scope == FULL_SCOPE or split == scope]
        scope_chains = {chains[i] for i in in_scope}
        documents_count = len({columns["conll_doc_key"][i] for i in in_scope})
        singletons = sum(1 for i in in_scope if singleton[i])
        cross_chains, cross_mentions = _count_rows(in_scope, chains, columns["subtopic_id"])
        tokens = token_rows.get(scope) if token_rows is not None else None
        row: dict[str, Any] = {
            "split": scope,
            "topics": len({columns["topic_id"][i] for i in in_scope}),
            "subtopics": len({columns["subtopic_id"][i] for i in in_scope}),
            "documents": documents_count,
            "tokens": tokens,
            "tokens_context": fmean(ctx for entry, ctx in contexts.items() if entry.chain in scope_chains),
            "mean_doc_size": tokens / documents_count if tokens is not None else None,
            "coref_chain_all": len(scope_chains),
            "coref_chain": len(scope_chains) - singletons,
            "mentions": len(in_scope),
            "mean_mention_density": len(in_scope) / documents_count,
            "singletons": singletons,
            "cross-subtopic-chains": cross_chains,
            "cross-subtopic-mentions": cross_mentions,
        }
        for kind in ("entity", "event"):
            of_kind = [i for i in in_scope if kinds[i] == kind]
            row[f"coref_chain_{kind}"] = len({chains[i] for i in of_kind})
            row[f"mentions_{kind}"] = len(of_kind)
            row[f"singletons_{kind}"] = sum(1 for i in of_kind if singleton[i])
        for suffix in SELECTIONS:
            for key, value in (scope_diversity(table, diversity, scope, suffix) or {}).items():
                row[f"{key}_{suffix}"] = value
        rows.append(row)
    return rows


def _token_rows(documents: pa.Table | None, doc_keys: list[str], splits: list[str]) -> dict[str, int] | None:
    """Token rows per split label (and in all) of the documents table.

    Without a split column, as the authors' code does, each token row is joined to the splits its document has
    mentions in: a document in two splits counts twice, one without mentions once in the total.
    """
    if documents is None:
        return None
    if "split" in documents.column_names:
        return {FULL_SCOPE: documents.num_rows, **Counter(documents["split"].to_pylist())}
    doc_splits: dict[str, set[str]] = {}
    for key, split in zip(doc_keys, splits, strict=True):
        doc_splits.setdefault(key, set()).add(split)
    counts: Counter[str] = Counter()
    for key, rows in Counter(documents[DOC_KEY_COLUMN].to_pylist()).items():
        joined = doc_splits.get(key, set())
        counts.update(dict.fromkeys(joined, rows))
        counts[FULL_SCOPE] += rows * max(len(joined), 1)
    return dict(counts)


def distribution(table: pa.Table, field: str) -> Counter[str]:
    """Counts of a head attribute over all mentions: "pos" (Table 9), "ner" (Table 10) or "type" (Table 11)."""
    if field == "pos":
        return Counter(table["mention_head_pos"].to_pylist())
    if field == "ner":
        return Counter(table["mention_ner"].to_pylist())
    if field == "type":
        return Counter(full_type.split("_")[0] for full_type in table["mention_full_type"].to_pylist())
    raise ValueError(f"unknown distribution {field!r}; valid: pos, ner, type")


# ---- paper tables ------------------------------------------------------------------------------------------


def table2_row(full: Mapping[str, Any]) -> dict[str, Any]:
    """Table 2 columns of a whole-dataset summary row."""
    return {
        "Topics": full["topics"],
        "Subtopics": full["subtopics"],
        "Docs": full["documents"],
        "Tokens": full["tokens"],
        "Tokens/doc": full["mean_doc_size"],
        "Context": full["tokens_context"],
        "Chains": full["coref_chain_all"],
        "Mentions": full["mentions"],
        "Singletons": full["singletons"],
        "Mentions/doc": full["mean_mention_density"],
    }


def table3_row(full: Mapping[str, Any]) -> dict[str, Any]:
    """Table 3 columns of a whole-dataset summary row."""
    return {
        "Cross-subtopic chains": full["cross-subtopic-chains"],
        "Cross-subtopic mentions": full["cross-subtopic-mentions"],
        "Chains entity": full["coref_chain_entity"],
        "Chains event": full["coref_chain_event"],
        "Mentions entity": full["mentions_entity"],
        "Mentions event": full["mentions_event"],
        "Singletons entity": full["singletons_entity"],
        "Singletons event": full["singletons_event"],
        "Avg size": full.get("average_size_all"),
        "Avg size w/o singletons": full.get("average_size_wo_singl"),
    }


def table4_row(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Table 4 of one dataset: "mentions / chains" per split ("–" where the split is absent)."""
    by_split = {row["split"]: row for row in rows}
    return {
        split.capitalize(): (
            f"{by_split[split]['mentions']} / {by_split[split]['coref_chain_all']}" if split in by_split else "–"
        )
        for split in ("train", "val", "test")
    }


def table12_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Table 12 of one dataset: one row per split."""
    return [
        {
            "Split": row["split"],
            "Topics": row["topics"],
            "Subtopics": row["subtopics"],
            "Docs": row["documents"],
            "Tokens": row["tokens"],
            "Chains": row["coref_chain_all"],
            "Non-singleton chains": row["coref_chain"],
            "Singletons": row["singletons"],
            "Mentions": row["mentions"],
        }
        for row in rows
        if row["split"] != FULL_SCOPE
    ]


def _sum(values: Sequence[Any]) -> Any:
    return None if any(v is None for v in values) else sum(values)


def _mean(values: Sequence[Any]) -> Any:
    return None if not values or any(v is None for v in values) else fmean(values)


def ucdcr_table2_row(rows: Mapping[str, Mapping[str, Any]], reannotations: Collection[str]) -> dict[str, Any]:
    """The uCDCR row of Table 2 as the paper computes it (REFERENCE.md §6.3), from dataset id -> Table 2 row.

    Topics, subtopics, docs and tokens: sums without the ``reannotations`` (the datasets that re-annotate another
    one's documents); chains, mentions, singletons: sums over all; Tokens/doc, Context, Mentions/doc: unweighted
    means over all.
    """
    originals = [row for key, row in rows.items() if key not in reannotations]
    everything = list(rows.values())
    result: dict[str, Any] = {}
    for column in ("Topics", "Subtopics", "Docs", "Tokens"):
        result[column] = _sum([row[column] for row in originals])
    for column in ("Chains", "Mentions", "Singletons"):
        result[column] = _sum([row[column] for row in everything])
    for column in ("Tokens/doc", "Context", "Mentions/doc"):
        result[column] = _mean([row[column] for row in everything])
    return result


def ucdcr_table3_row(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The uCDCR row of Table 3: sums, and unweighted means of the two average sizes."""
    result = {}
    for column in rows[0]:
        values = [row[column] for row in rows]
        result[column] = _mean(values) if column.startswith("Avg size") else _sum(values)
    return result


def ucdcr_table4_row(rows: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, str]:
    """The uCDCR row of Table 4: sums of mentions and chains per split, over the datasets that have the split."""
    result = {}
    for split in ("train", "val", "test"):
        present = [row for dataset in rows for row in dataset if row["split"] == split]
        mentions = sum(row["mentions"] for row in present)
        chains = sum(row["coref_chain_all"] for row in present)
        result[split.capitalize()] = f"{mentions} / {chains}" if present else "–"
    return result
