"""Compare a built dataset with another build of it (e.g. the authors' release) mention by mention.

Mentions are matched by document key and exact token span: (conll_doc_key, sent_id, tokens_number). Reported:
how many of the other side's mentions are matched; on matched mentions, how often the head lemma, head text and
the context window token list (mention_context) agree, and
the window's text (its tokens joined without spaces: the same characters, whatever the tokenization); and how well the chain partitions agree, as MUC and B³
(the other side's chains as key, ours as response, over the matched mentions, one cross-document pseudo-document).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ucdcr.io.load import load_mentions
from ucdcr.scoring.api import score_clusters

_COLUMNS = [
    "conll_doc_key",
    "sent_id",
    "tokens_number",
    "tokens_text",
    "coref_chain",
    "mention_head",
    "mention_head_lemma",
    "mention_context",
    "context_start_end_global_id",
    "split",
]


def _by_span(folder: Path) -> dict[tuple, dict[str, Any]]:
    rows = load_mentions(folder, columns=_COLUMNS).to_pylist()
    return {(r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])): r for r in rows}


def compare_builds(ours: str | Path, theirs: str | Path) -> dict[str, Any]:
    """Agreement figures between two dataset folders in the uCDCR layout (``theirs`` is the reference)."""
    mine, reference = _by_span(Path(ours)), _by_span(Path(theirs))
    matched = [span for span in reference if span in mine]
    same = Counter()
    for span in matched:
        a, b = mine[span], reference[span]
        same["head_lemma"] += a["mention_head_lemma"] == b["mention_head_lemma"]
        same["head"] += a["mention_head"] == b["mention_head"]
        same["context"] += list(a["mention_context"]) == list(b["mention_context"])
        same["context_text"] += "".join(a["mention_context"]) == "".join(b["mention_context"]).replace("``", '"')
        same["context_span"] += list(a["context_start_end_global_id"]) == list(b["context_start_end_global_id"])
        same["split"] += a["split"] == b["split"]
    key = _chains(reference, matched)
    response = _chains(mine, matched)
    scores = score_clusters(key, response, ["muc", "bcub"]).metrics
    n = len(matched) or 1
    return {
        "reference_mentions": len(reference),
        "our_mentions": len(mine),
        "matched": len(matched),
        "matched_rate": 100.0 * len(matched) / (len(reference) or 1),
        "head_lemma_agreement": 100.0 * same["head_lemma"] / n,
        "head_agreement": 100.0 * same["head"] / n,
        "context_identical": 100.0 * same["context"] / n,
        "context_text_identical": 100.0 * same["context_text"] / n,
        "context_span_identical": 100.0 * same["context_span"] / n,
        "split_agreement": 100.0 * same["split"] / n,
        "muc_f1": 100.0 * scores["muc"].f1,
        "bcub_f1": 100.0 * scores["bcub"].f1,
        "muc": scores["muc"].as_dict(),
        "bcub": scores["bcub"].as_dict(),
    }


def _chains(rows: dict[tuple, dict[str, Any]], spans: list[tuple]) -> list[list[tuple]]:
    chains: dict[str, list[tuple]] = {}
    for span in spans:
        chains.setdefault(rows[span]["coref_chain"], []).append(span)
    return list(chains.values())


def unmatched(ours: str | Path, theirs: str | Path, limit: int = 20) -> list[dict[str, Any]]:
    """Examples of reference mentions without an exact span match on our side (for explaining differences)."""
    mine, reference = _by_span(Path(ours)), _by_span(Path(theirs))
    missing = [reference[span] for span in reference if span not in mine]
    return missing[:limit]
