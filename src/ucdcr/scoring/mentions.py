"""Mention identification with v8.01's duplicate rules (``IdentifMentions`` in ``CorScorer.pm``).

Mentions are any hashable ids: ``(start, end)`` token spans for CoNLL files (the file layer, ``conll.py``) or
arbitrary ids through the API. All duplicate handling of the scorer lives here, so spans and ids behave alike:

- **Duplicate key mention** (t13): every occurrence stays in its chain (it counts once per occurrence in the
  metric denominators) but once in mention identification.
- **Duplicate response mention that matches a key mention** (t10, t11): every occurrence after the first (chain
  order, then mention order) is removed; chains left empty are dropped. v8.01 aborts when more than 10 such
  removals accumulate; ucdcr counts them (``repeated_response``) and goes on.
- **Duplicate twinless response mention** (t12): kept; every occurrence counts in its chain.
- Empty chains are ignored (they add nothing in v8.01 either).

Mention identification: recall = matched / distinct key mentions, precision = matched / distinct response
mentions; matching is exact (no partial matches).

The result is integer-encoded (numpy arrays, one entry per mention occurrence in chain order) for the metrics.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from ucdcr.scoring.metric_score import MetricScore


@dataclass(frozen=True)
class Partition:
    """Chains as flat arrays: ``chain[i]`` and ``mention[i]`` for the i-th occurrence (chain order, mention order)."""

    chain: np.ndarray
    mention: np.ndarray
    n_chains: int

    @property
    def sizes(self) -> np.ndarray:
        """Occurrences per chain (duplicates counted)."""
        return np.bincount(self.chain, minlength=self.n_chains)


@dataclass(frozen=True)
class IdentifiedDocument:
    """Key and response chains of one document over shared integer mention ids ``0 .. n_mentions-1``."""

    key: Partition
    response: Partition
    n_mentions: int
    identification: MetricScore
    repeated_response: int
    repeated_key: int
    repeated_twinless: int = 0
    mention_ids: tuple[Hashable, ...] = ()
    """The mention behind each integer id (``mention_ids[i]`` has id ``i``)."""


def identify_mentions(
    key_clusters: Iterable[Iterable[Hashable]], response_clusters: Iterable[Iterable[Hashable]]
) -> IdentifiedDocument:
    """Apply v8.01's mention identification and duplicate rules; encode mentions as integers."""
    codes: dict[Hashable, int] = {}
    key_chains = [list(cluster) for cluster in key_clusters]
    key_chains = [chain for chain in key_chains if chain]
    key_occurrences = 0
    for chain in key_chains:
        for mention in chain:
            codes.setdefault(mention, len(codes))
            key_occurrences += 1
    n_key_mentions = len(codes)

    matched: set[Hashable] = set()
    response_chains: list[list[Hashable]] = []
    repeated_response = 0
    for cluster in response_clusters:
        kept: list[Hashable] = []
        for mention in cluster:
            if mention in matched:
                repeated_response += 1
                continue
            if mention in codes and codes[mention] < n_key_mentions:
                matched.add(mention)
            else:
                codes.setdefault(mention, len(codes))
            kept.append(mention)
        if kept:
            response_chains.append(kept)

    n_response_mentions = len(matched) + len(codes) - n_key_mentions
    identification = MetricScore(len(matched), n_key_mentions, len(matched), n_response_mentions)
    return IdentifiedDocument(
        key=_encode(key_chains, codes),
        response=_encode(response_chains, codes),
        n_mentions=len(codes),
        identification=identification,
        repeated_response=repeated_response,
        repeated_key=key_occurrences - n_key_mentions,
        repeated_twinless=sum(map(len, response_chains)) - n_response_mentions,
        mention_ids=tuple(codes),
    )


def _encode(chains: list[list[Hashable]], codes: dict[Hashable, int]) -> Partition:
    sizes = [len(chain) for chain in chains]
    chain_index = np.repeat(np.arange(len(chains), dtype=np.int64), sizes)
    mention = np.fromiter((codes[m] for chain in chains for m in chain), dtype=np.int64, count=sum(sizes))
    return Partition(chain=chain_index, mention=mention, n_chains=len(chains))
