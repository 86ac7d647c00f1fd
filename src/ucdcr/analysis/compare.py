"""Compare a built dataset with another build of it (e.g. the authors' release) mention by mention.

Tooling that checks our builds against the authors' release (``bench/compare_*_reference.py``, the integration
tests); the build never uses it. Mentions are matched by document key and exact token span: (conll_doc_key,
sent_id, tokens_number). Reported: how many of the other side's mentions are matched; on matched mentions, how
often the head lemma, head text and the context window token list (mention_context) agree, and the window's text
(its tokens joined without spaces: the same characters, whatever the tokenization); how many sentences holding a
mention on both sides have identical tokens (``mention_sentences_identical``, read from the windows with
mention_sentence_start_end); and how well the chain partitions agree, as MUC and B³ (the other side's chains as
key, ours as response, over the matched mentions, one cross-document pseudo-document).

:func:`context_differences` explains the windows that differ: the two token lists are diffed (difflib) and every
differing stretch gets one category (:data:`CATEGORIES`); a window counts once per category it shows.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher
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
    "mention_sentence_start_end",
    "split",
]


def _by_span(folder: Path) -> dict[tuple, dict[str, Any]]:
    rows = load_mentions(folder, columns=_COLUMNS).to_pylist()
    return {(r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])): r for r in rows}


def compare_builds(ours: str | Path, theirs: str | Path) -> dict[str, Any]:
    """Agreement figures between two dataset folders in the uCDCR layout (``theirs`` is the reference)."""
    mine, reference = _by_span(Path(ours)), _by_span(Path(theirs))
    matched = [span for span in reference if span in mine]
    same: Counter[str] = Counter()
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
        "mention_sentences_identical": _sentence_agreement(mine, reference),
        "muc_f1": 100.0 * scores["muc"].f1,
        "bcub_f1": 100.0 * scores["bcub"].f1,
        "muc": scores["muc"].as_dict(),
        "bcub": scores["bcub"].as_dict(),
    }


def _sentence_agreement(mine: dict[tuple, dict[str, Any]], reference: dict[tuple, dict[str, Any]]) -> float:
    """% of the sentences holding a mention on both sides whose tokens are identical (read from the windows)."""
    ours, theirs = _mention_sentences(mine), _mention_sentences(reference)
    common = [key for key in theirs if key in ours]
    return 100.0 * sum(ours[key] == theirs[key] for key in common) / (len(common) or 1)


def _mention_sentences(rows: dict[tuple, dict[str, Any]]) -> dict[tuple[str, int], list[str]]:
    sentences = {}
    for (doc_key, sent_id, _), row in rows.items():
        start, end = row["mention_sentence_start_end"]
        sentences[(doc_key, sent_id)] = [t.replace("``", '"') for t in row["mention_context"][start:end]]
    return sentences


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


CATEGORIES = {
    "window_edge": "the windows start or end at different tokens (different sentence rounding or token counts)",
    "url": "a URL line: their corrector left spaces inside it, spaCy splits it",
    "words_merged": "two words glued in their text ('rep says' -> 'repsays'), their neural corrector",
    "clitic": "'m / 've kept apart in their text ('I ' m') or glued in ours",
    "quote": "a quote token cut differently (\"''\" -> \"' '\")",
    "split_in_theirs": "same characters, more tokens in theirs ('11:25' -> '11 : 25'): a space they kept",
    "glued_in_theirs": "same characters, fewer tokens in theirs ('playoffs -' -> 'playoffs-'), not letters only",
    "same_chars_other": "same characters, same number of tokens, cut elsewhere",
    "different_chars": "the characters differ (source text handled differently, e.g. NP4E '$-' artefacts)",
}
_CLITIC_PIECES = {"'m", "'ve", "m", "ve", "’m", "’ve"}
_QUOTES = set("'\"‘’“”`")


def context_differences(ours: str | Path, theirs: str | Path, examples: int = 3) -> dict[str, Any]:
    """Why matched mentions' context token lists differ: windows per category, plus a few examples each."""
    mine, reference = _by_span(Path(ours)), _by_span(Path(theirs))
    windows: Counter[str] = Counter()
    only: Counter[str] = Counter()
    shown: dict[str, list[str]] = {name: [] for name in CATEGORIES}
    differing = 0
    for span in (s for s in reference if s in mine):
        a = list(mine[span]["mention_context"])
        b = [t.replace("``", '"') for t in reference[span]["mention_context"]]
        if a == b:
            continue
        differing += 1
        found = set()
        for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if op == "equal":
                continue
            category = _categorize(a, b, i1, i2, j1, j2)
            found.add(category)
            if len(shown[category]) < examples:
                shown[category].append(f"{' '.join(a[i1:i2])!r} -> {' '.join(b[j1:j2])!r} ({span[0]})")
        windows.update(found)
        if len(found) == 1:
            only.update(found)
    return {"differing_windows": differing, "windows": dict(windows), "only": dict(only), "examples": shown}


def _categorize(a: list[str], b: list[str], i1: int, i2: int, j1: int, j2: int) -> str:
    ours, theirs = a[i1:i2], b[j1:j2]
    joined_ours, joined_theirs = "".join("".join(ours).split()), "".join("".join(theirs).split())
    if joined_ours != joined_theirs:
        at_edge = i1 == 0 or j1 == 0 or i2 == len(a) or j2 == len(b)
        return "window_edge" if at_edge else "different_chars"
    if any("://" in t or t.startswith("www.") or "http" in t for t in ours + theirs):
        return "url"
    if set(ours + theirs) & _CLITIC_PIECES:
        return "clitic"
    if any(set(t) <= _QUOTES for t in ours + theirs):
        return "quote"
    if len(theirs) < len(ours):
        return "words_merged" if all(t.isalpha() for t in ours) else "glued_in_theirs"
    if len(theirs) > len(ours):
        return "split_in_theirs"
    return "same_chars_other"


def print_context_differences(ours: str | Path, theirs: str | Path) -> None:
    """Print :func:`context_differences` as a table (windows with the category / with only that category)."""
    found = context_differences(ours, theirs)
    print(f"\ncontext windows that differ: {found['differing_windows']} (windows per category / only that one)")
    for name, meaning in CATEGORIES.items():
        print(f"  {name:17s} {found['windows'].get(name, 0):6d} {found['only'].get(name, 0):6d}  {meaning}")
        for example in found["examples"][name]:
            print(f"      {example}")
