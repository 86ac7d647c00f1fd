"""``lemma-pairs``: a head-lemma heuristic with training-set lemma pairs and sentence overlap.

In the spirit of the lemma heuristic of Ahmed et al. (2023), "2*n is better than n²: Decomposing Event
Coreference Resolution into Two Tractable Problems" (Findings of ACL 2023): two mentions of one evaluation unit
and one type (event / entity) are linked when

- their lower-cased head lemmas are equal, or
- their head-lemma pair was coreferent somewhere in the training split (:class:`~ucdcr.systems.parts.features.
  LemmaPairStats`) and the Jaccard overlap of their sentences' content lemmas (:mod:`ucdcr.systems.parts.lemmas`) is at
  least a threshold,

and the clusters are the connected components of the links. The threshold is the value of :data:`THRESHOLDS`
with the best mean CoNLL F1 on the validation split (1.01 = never link on lemma pairs alone).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.clustering import grid, linked_components, tune
from ucdcr.systems.parts.features import LemmaPairStats, fold_stats, head_lemmas, jaccard, row_features

THRESHOLDS: tuple[float, ...] = (*grid(0.0, 0.5, 0.025), 1.01)


@dataclass(frozen=True)
class _GroupEvidence:
    """For one group: the pairs with equal lemmas, with a coreferent training lemma pair, and their overlap."""

    rows: list[int]
    same_lemma: np.ndarray
    train_pair: np.ndarray
    overlap: np.ndarray

    def links(self, threshold: float) -> np.ndarray:
        return self.same_lemma | (self.train_pair & (self.overlap >= threshold))


class LemmaPairs(System):
    """Equal head lemmas, or a coreferent training lemma pair in overlapping sentences."""

    name = "lemma-pairs"
    trainable = True
    deterministic = True  # it draws nothing at random: every seed gives the same clusters

    def __init__(self) -> None:
        self.stats: LemmaPairStats | None = None
        self.threshold = THRESHOLDS[-1]
        self.val_score = 0.0

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.stats = fold_stats(train)[0]
        evidence = self._evidence(val)
        size = val.mentions.num_rows
        groups = [item.rows for item in evidence]
        self.threshold, self.val_score = tune(
            val, THRESHOLDS, lambda value: linked_components(groups, [item.links(value) for item in evidence], size)
        )

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        evidence = self._evidence(test)
        labels = linked_components(
            [item.rows for item in evidence], [item.links(self.threshold) for item in evidence], test.mentions.num_rows
        )
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        return f"sentence-overlap threshold {self.threshold:g} (val CoNLL F1 {self.val_score:.2f})"

    def _evidence(self, data: SplitData) -> list[_GroupEvidence]:
        assert self.stats is not None, "fit() first"
        lemmas = head_lemmas(data)
        sentences = row_features(data, with_vectors=False).sentence_lemmas
        evidence = []
        for rows in data.units(by_type=True):
            index = np.asarray(rows)
            chosen = [lemmas[row] for row in rows]
            same = np.equal.outer(np.array(chosen, dtype=object), np.array(chosen, dtype=object)).astype(bool)
            first, second = np.triu_indices(len(rows), 1)
            coreferent, _ = self.stats.lookup([chosen[i] for i in first], [chosen[j] for j in second])
            train_pair = np.zeros((len(rows), len(rows)), dtype=bool)
            train_pair[first, second] = coreferent > 0
            overlap = np.zeros((len(rows), len(rows)))
            overlap[first, second] = jaccard(sentences, index)
            evidence.append(_GroupEvidence(rows, same, train_pair, overlap))
        return evidence
