"""Lexical diversity and ambiguity of coreference chains: paper Table 5, exactly as the authors
define it (docs/analysis.md#lexical-diversity-and-ambiguity).

Per chain (in each scope, see :mod:`ucdcr.analysis.chains`):
- UL(c): number of distinct LOWERCASED head lemmas;
- PD(c), phrasing diversity (docs/analysis.md#phrasing-diversity): tokens minus punctuation substrings and NLTK English
  stopwords (case-sensitive), mentions left empty are skipped but still count in the denominator; grouped by head TEXT;
  PD = (Σ_h U_h/n_h) · (Σ_h U_h) / |M_c| if |M_c| > 1 else 1, rounded to 3 decimals;
- MTLD(c), the uCDCR variant (docs/analysis.md#mtld-ucdcr-variant): mean of factor lengths with the partial factor as
  one scaled element, forward and backward averaged, over all mention tokens of the chain in load order, θ = 0.72;
- standard MTLD (McCarthy & Jarvis 2010), reported beside it: tokens / factor count, where the partial factor
  counts (1 − TTR)/(1 − θ), forward and backward averaged. Where no factor completes and the partial factor is 0
  (every token distinct), it is undefined; we then report the number of tokens, as the uCDCR variant does.

Per scope (docs/analysis.md#chain-selection), over the chains S of the scope with size > 0 ("all") or > 1 ("wo_singl",
the paper's choice): AL = mean over case-sensitive head lemmas of the number of chains in S using it (over all mentions
of S's chains in the dataset); UL-a = mean UL(c); UL-o = number of distinct case-sensitive head lemmas of S's mentions
(paper: test scope); PD and MTLD = means weighted by chain size; average chain size.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import pyarrow as pa

from ucdcr.analysis.chains import (
    FULL_SCOPE,
    ChainEntry,
    chain_entries,
    chain_ids,
    scopes,
)

MTLD_THRESHOLD = 0.72
SELECTIONS = {"all": 0, "wo_singl": 1}  # suffix -> chains must have more than this many mentions


@cache
def english_stopwords() -> frozenset[str]:
    """The NLTK English stopword list (179 words) stored in the package."""
    text = resources.files("ucdcr.data").joinpath("nltk_stopwords_english.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _content_tokens(tokens: Iterable[str], stopwords: frozenset[str]) -> list[str]:
    # `in string.punctuation` is a SUBSTRING test, as in the authors' code: "" and "()" count as punctuation.
    return [token for token in tokens if token not in string.punctuation and token not in stopwords]


def phrasing_diversity(mentions: Sequence[tuple[Sequence[str], str]], stopwords: frozenset[str] | None = None) -> float:
    """PD of one chain from its mentions as (tokens_text, mention_head) pairs, rounded to 3 decimals."""
    if len(mentions) <= 1:
        return 1.0
    stopwords = english_stopwords() if stopwords is None else stopwords
    phrases: dict[str, set[frozenset[str]]] = {}
    counts: dict[str, int] = {}
    for tokens, head in mentions:
        content = _content_tokens(tokens, stopwords)
        if not content:
            continue
        phrases.setdefault(head, set()).add(frozenset(content))
        counts[head] = counts.get(head, 0) + 1
    fractions = sum(len(phrases[head]) / counts[head] for head in phrases)
    unique = sum(len(phrase_set) for phrase_set in phrases.values())
    return float(format(fractions * unique / len(mentions), ".3f"))


def _ucdcr_mtld_pass(tokens: Sequence[str], threshold: float) -> float:
    values: list[float] = []
    types: set[str] = set()
    count = 0
    for token in tokens:
        count += 1
        types.add(token)
        if len(types) / count <= threshold:
            values.append(count)
            types, count = set(), 0
    if count > 0:
        values.append(count * ((len(types) / count - threshold) / (1 - threshold)))
    return sum(values) / len(values)


def mtld_ucdcr(tokens: Sequence[str], threshold: float = MTLD_THRESHOLD) -> float:
    """The uCDCR MTLD variant (docs/analysis.md#mtld-ucdcr-variant): mean factor length, both directions averaged."""
    if not tokens:
        raise ValueError("MTLD of an empty token sequence is undefined")
    return (_ucdcr_mtld_pass(tokens, threshold) + _ucdcr_mtld_pass(tokens[::-1], threshold)) / 2


def _standard_mtld_pass(tokens: Sequence[str], threshold: float) -> float:
    factors = 0.0
    types: set[str] = set()
    count = 0
    ttr = 1.0
    for token in tokens:
        count += 1
        types.add(token)
        ttr = len(types) / count
        if ttr <= threshold:
            factors += 1
            types, count, ttr = set(), 0, 1.0
    factors += (1 - ttr) / (1 - threshold)
    return len(tokens) / factors if factors > 0 else float(len(tokens))


def mtld_standard(tokens: Sequence[str], threshold: float = MTLD_THRESHOLD) -> float:
    """Standard MTLD (McCarthy & Jarvis 2010): tokens per factor (partial factor included), both directions."""
    if not tokens:
        raise ValueError("MTLD of an empty token sequence is undefined")
    return (_standard_mtld_pass(tokens, threshold) + _standard_mtld_pass(tokens[::-1], threshold)) / 2


@dataclass(frozen=True, slots=True)
class ChainDiversity:
    """The lexical values of one chain in one scope."""

    entry: ChainEntry
    unique_lemmas: int
    phrasing_diversity: float
    mtld: float
    mtld_standard: float


def chain_diversity(table: pa.Table, entries: list[ChainEntry] | None = None) -> list[ChainDiversity]:
    """UL, PD, MTLD and standard MTLD of every chain entry (needs tokens_text, mention_head, mention_head_lemma)."""
    entries = chain_entries(table) if entries is None else entries
    tokens = table["tokens_text"].to_pylist()
    heads = table["mention_head"].to_pylist()
    lemmas = table["mention_head_lemma"].to_pylist()
    stopwords = english_stopwords()
    result = []
    for entry in entries:
        chain_tokens = [token for row in entry.rows for token in tokens[row]]
        result.append(
            ChainDiversity(
                entry=entry,
                unique_lemmas=len({lemmas[row].lower() for row in entry.rows}),
                phrasing_diversity=phrasing_diversity([(tokens[row], heads[row]) for row in entry.rows], stopwords),
                mtld=mtld_ucdcr(chain_tokens),
                mtld_standard=mtld_standard(chain_tokens),
            )
        )
    return result


def scope_diversity(
    table: pa.Table, chains: list[ChainDiversity], scope: str, selection: str = "wo_singl"
) -> dict[str, float | int] | None:
    """The lexical summary of one scope (unrounded), or None if the scope has no selected chain.

    Keys: average_size, phrasing_diversity_weighted, unique_lemmas_avg, unique_lemmas_sum, lexical_ambiguity,
    MLTD (the uCDCR MTLD; the authors' CSV spells it MLTD), MTLD_standard.
    """
    minimum = SELECTIONS[selection]
    selected = [c for c in chains if c.entry.scope == scope and c.entry.size > minimum]
    if not selected:
        return None
    sizes = [c.entry.size for c in selected]
    total = sum(sizes)
    selected_ids = {c.entry.chain for c in selected}
    lemma_chains: dict[str, set[str]] = {}
    for chain, lemma in zip(chain_ids(table), table["mention_head_lemma"].to_pylist(), strict=True):
        if chain in selected_ids and lemma is not None:
            lemma_chains.setdefault(lemma, set()).add(chain)
    return {
        "average_size": total / len(selected),
        "phrasing_diversity_weighted": sum(c.phrasing_diversity * c.entry.size for c in selected) / total,
        "unique_lemmas_avg": sum(c.unique_lemmas for c in selected) / len(selected),
        "unique_lemmas_sum": len(lemma_chains),
        "lexical_ambiguity": sum(len(v) for v in lemma_chains.values()) / len(lemma_chains),
        "MLTD": sum(c.mtld * c.entry.size for c in selected) / total,
        "MTLD_standard": sum(c.mtld_standard * c.entry.size for c in selected) / total,
    }


TABLE5_COLUMNS = ("AL", "UL-a", "UL-o", "PD", "MTLD", "MTLD (standard)")


def table5_row(table: pa.Table, chains: list[ChainDiversity] | None = None) -> dict[str, float | int | None]:
    """Paper Table 5 for one dataset: non-singleton chains; AL, UL-a, PD, MTLD over the whole dataset, UL-o on test.

    Values are unrounded; "MTLD (standard)" is McCarthy & Jarvis's MTLD, not in the paper.
    """
    chains = chain_diversity(table) if chains is None else chains
    full = scope_diversity(table, chains, FULL_SCOPE) or {}
    test = scope_diversity(table, chains, "test") if "test" in scopes(table) else None
    return {
        "AL": full.get("lexical_ambiguity"),
        "UL-a": full.get("unique_lemmas_avg"),
        "UL-o": test["unique_lemmas_sum"] if test else None,
        "PD": full.get("phrasing_diversity_weighted"),
        "MTLD": full.get("MLTD"),
        "MTLD (standard)": full.get("MTLD_standard"),
    }
