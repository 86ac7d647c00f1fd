"""Compare a built dataset with another build of it (e.g. the authors' release) mention by mention.

:func:`agreement` is what ``ucdcr compare ID`` prints (our build against the authors' release,
:mod:`ucdcr.sources.install`): mentions matched by (document, sentence, text) -- the text is the mention's tokens joined
without spaces, with quotes normalized, so that a different tokenization still matches -- and by exact span; on the
text-matched pairs the head (token, lemma, POS), NER, type and context text agreement, and the chain links (pairs of
mentions in one chain) of the release found in ours (recall) and ours found in the release (precision), with MUC and
B³. Each difference is counted under the reason the docs give for it (:data:`REASONS`).

:func:`compare_builds` gives the figures the integration tests check; the build never uses this module. Mentions
are matched there by document key and exact token span: (conll_doc_key, sent_id, tokens_number). Reported: how many
of the other side's mentions are matched; on matched mentions, how often the head lemma, head text and the context
window token list (mention_context) agree, and the window's text (its tokens joined without spaces: the same
characters, whatever the tokenization); how many sentences holding a mention on both sides have identical tokens
(``mention_sentences_identical``, read from the windows with mention_sentence_start_end); and how well the chain
partitions agree, as MUC and B³ (the other side's chains as key, ours as response, over the matched mentions, one
cross-document pseudo-document).

:func:`context_differences` explains the windows that differ: the two token lists are diffed (difflib) and every
differing stretch gets one category (:data:`CATEGORIES`); a window counts once per category it shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from ucdcr.io.load import load_mentions
from ucdcr.scoring.scores import score_clusters

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


# --- the agreement table of `ucdcr compare` ------------------------------------------------------------------

_AGREEMENT_COLUMNS = [
    *_COLUMNS,
    "mention_id",
    "mention_head_id",
    "mention_head_pos",
    "mention_ner",
    "mention_type",
]

REASONS = {
    "release_duplicate": "the release has it on the span of another of its mentions (its re-mapping put two "
    "annotations of one sentence on one span; duplicates are kept under new mention ids)",
    "document_only_release": "its document is not in our build",
    "document_only_build": "its document is not in the release (the release lost mentions in re-mapping)",
    "sentence_only_release": "no mention of ours in that sentence (other sentence numbering or selection)",
    "sentence_only_build": "no mention of the release in that sentence (lost in the release's re-mapping)",
    "text_differs": "no mention with its text in that sentence on the other side (other characters from the "
    "tokenization or the release's whitespace corrector, or a mention the release lost in re-mapping)",
    "token_numbers": "same text, other token numbers: our faithful spans split the release's merged tokens",
    "lemma_only": "same head token, other lemma (lemmatizer version)",
    "head_rule": "another head token (our deterministic head rule vs the release's parser or first-token rule)",
}
"""Why a mention or a head differs, as docs/release.md#compare explains."""


def _text(tokens: list[str]) -> str:
    return "".join("".join(tokens).split()).replace("``", '"').replace("''", '"')


def agreement(ours: str | Path, theirs: str | Path, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Mention, head, context and chain-link agreement of our build (``ours``) with the release (``theirs``), and
    the reasons of the differences (module docstring): ``reasons`` counts release mentions (and paired mentions
    with another span or head), ``build_reasons`` our mentions without a partner. Mentions are paired by
    (document, sentence, text), each release mention with at most one of ours: a mention with the same span first,
    else the first unpaired one with that text. ``progress`` is told each step as it begins."""
    say = progress or (lambda step: None)
    say(f"reading our build {ours}")
    mine = load_mentions(Path(ours), columns=_AGREEMENT_COLUMNS).to_pylist()
    say(f"reading the release {theirs}")
    reference = load_mentions(Path(theirs), columns=_AGREEMENT_COLUMNS).to_pylist()
    say(f"pairing {len(reference):,} release mentions with {len(mine):,} of ours")
    by_span: dict[tuple, list[int]] = {}
    by_text: dict[tuple, list[int]] = {}
    for index, row in enumerate(mine):
        by_span.setdefault((row["conll_doc_key"], row["sent_id"], tuple(row["tokens_number"])), []).append(index)
        by_text.setdefault((row["conll_doc_key"], row["sent_id"], _text(row["tokens_text"])), []).append(index)
    partner: dict[int, int] = {}  # release row -> our row: same span and text first, then same text
    used: set[int] = set()
    for position, row in enumerate(reference):
        text = _text(row["tokens_text"])
        span = (row["conll_doc_key"], row["sent_id"], tuple(row["tokens_number"]))
        found = next(
            (i for i in by_span.get(span, []) if i not in used and _text(mine[i]["tokens_text"]) == text), None
        )
        if found is not None:
            partner[position] = found
            used.add(found)
    for position, row in enumerate(reference):
        if position not in partner:
            text_key = (row["conll_doc_key"], row["sent_id"], _text(row["tokens_text"]))
            found = next((i for i in by_text.get(text_key, []) if i not in used), None)
            if found is not None:
                partner[position] = found
                used.add(found)
    pairs = [(row, mine[partner[position]]) for position, row in enumerate(reference) if position in partner]
    unpaired = [row for position, row in enumerate(reference) if position not in partner]
    reasons: Counter[str] = Counter()
    seen_spans: Counter[tuple] = Counter(
        (r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])) for r in reference
    )
    ours_reasons: Counter[str] = Counter()
    our_documents = {row["conll_doc_key"] for row in mine}
    our_sentences = {(row["conll_doc_key"], row["sent_id"]) for row in mine}
    for row in unpaired:
        span = (row["conll_doc_key"], row["sent_id"], tuple(row["tokens_number"]))
        if seen_spans[span] > 1:
            reasons["release_duplicate"] += 1
            seen_spans[span] -= 1
        elif row["conll_doc_key"] not in our_documents:
            reasons["document_only_release"] += 1
        elif (row["conll_doc_key"], row["sent_id"]) not in our_sentences:
            reasons["sentence_only_release"] += 1
        else:
            reasons["text_differs"] += 1
    their_documents = {row["conll_doc_key"] for row in reference}
    their_sentences = {(row["conll_doc_key"], row["sent_id"]) for row in reference}
    ours_only = [row for index, row in enumerate(mine) if index not in used]
    for row in ours_only:
        if row["conll_doc_key"] not in their_documents:
            ours_reasons["document_only_build"] += 1
        elif (row["conll_doc_key"], row["sent_id"]) not in their_sentences:
            ours_reasons["sentence_only_build"] += 1
        else:
            ours_reasons["text_differs"] += 1
    their_spans = {(r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])) for r in reference}
    our_spans = {(r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])) for r in mine}
    span_rows = Counter((r["conll_doc_key"], r["sent_id"], tuple(r["tokens_number"])) for r in reference)
    same: Counter[str] = Counter()
    for theirs_row, ours_row in pairs:
        same["span"] += list(theirs_row["tokens_number"]) == list(ours_row["tokens_number"])
        same["head_lemma"] += theirs_row["mention_head_lemma"] == ours_row["mention_head_lemma"]
        same["head_token"] += theirs_row["mention_head_id"] == ours_row["mention_head_id"]
        same["head_pos"] += theirs_row["mention_head_pos"] == ours_row["mention_head_pos"]
        same["ner"] += theirs_row["mention_ner"] == ours_row["mention_ner"]
        same["type"] += theirs_row["mention_type"] == ours_row["mention_type"]
        same["split"] += theirs_row["split"] == ours_row["split"]
        same["context_text"] += _text(theirs_row["mention_context"]) == _text(ours_row["mention_context"])
        same["context"] += [t.replace("``", '"') for t in theirs_row["mention_context"]] == list(
            ours_row["mention_context"]
        )
        if list(theirs_row["tokens_number"]) != list(ours_row["tokens_number"]):
            span = (theirs_row["conll_doc_key"], theirs_row["sent_id"], tuple(theirs_row["tokens_number"]))
            reasons["release_duplicate" if span_rows[span] > 1 else "token_numbers"] += 1
        if theirs_row["mention_head_lemma"] != ours_row["mention_head_lemma"]:
            same_head = theirs_row["mention_head"] == ours_row["mention_head"]
            reasons["lemma_only" if same_head else "head_rule"] += 1
    links = _links(pairs)
    keyed = list(range(len(pairs)))
    key_chains = _groups(keyed, [theirs_row["coref_chain"] for theirs_row, _ in pairs])
    response = _groups(keyed, [ours_row["coref_chain"] for _, ours_row in pairs])
    scores = score_clusters(key_chains, response, ["muc", "bcub"]).metrics if pairs else {}
    return {
        "release_mentions": len(reference),
        "build_mentions": len(mine),
        "matched_by_text": len(pairs),
        "release_spans": len(their_spans),
        "build_spans": len(our_spans),
        "matched_by_span": len(their_spans & our_spans),
        "same": dict(same),
        "links": links,
        "muc_f1": 100.0 * scores["muc"].f1 if scores else 0.0,
        "bcub_f1": 100.0 * scores["bcub"].f1 if scores else 0.0,
        "reasons": dict(reasons),
        "build_reasons": dict(ours_reasons),
    }


def _links(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, int]:
    """Chain links (pairs of mentions in one chain) among the paired mentions: the release's, ours, and both."""

    def pairs_in(sizes: Counter[Any]) -> int:
        return sum(size * (size - 1) // 2 for size in sizes.values())

    theirs = Counter(theirs_row["coref_chain"] for theirs_row, _ in pairs)
    ours = Counter(ours_row["coref_chain"] for _, ours_row in pairs)
    both = Counter((theirs_row["coref_chain"], ours_row["coref_chain"]) for theirs_row, ours_row in pairs)
    return {"release": pairs_in(theirs), "build": pairs_in(ours), "both": pairs_in(both)}


def _groups(items: list[int], labels: list[str]) -> list[list[int]]:
    groups: dict[str, list[int]] = {}
    for item, label in zip(items, labels, strict=True):
        groups.setdefault(label, []).append(item)
    return list(groups.values())
