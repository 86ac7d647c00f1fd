"""``embedding``: average-linkage clustering of MiniLM mention-in-context vectors.

Every mention is the mean of the all-MiniLM-L6-v2 subword vectors of its words, encoded inside its sentence
(:mod:`ucdcr.systems.parts.vectors`; ``embed`` extra). Inside each evaluation unit and type (event / entity), mentions
are clustered by average linkage on the cosine distance (:mod:`ucdcr.systems.parts.clustering`), cut at the distance
threshold with the best mean CoNLL F1 on the validation split (:func:`~ucdcr.systems.parts.clustering.tune_distance`).
Nothing else is learned, so the training split is not read. A distance-thresholded agglomerative clustering of
contextual mention embeddings is the unsupervised baseline of the CDCR literature (e.g. Cattan et al. 2021,
"Cross-document Coreference Resolution over Predicted Mentions", cluster with agglomerative clustering over learned
pair scores).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.clustering import COARSE, Dendrogram, average_linkage, condensed, cut, tune_distance
from ucdcr.systems.parts.vectors import encodings


class Embedding(System):
    """Average linkage of mention-in-context vectors, distance threshold tuned on val."""

    name = "embedding"
    trainable = True
    deterministic = True  # it draws nothing at random: every seed gives the same clusters
    needs_encoder = True

    def __init__(self) -> None:
        self.threshold = COARSE[0]
        self.val_score = 0.0

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        trees = self._dendrograms(val)
        size = val.mentions.num_rows
        self.threshold, self.val_score = tune_distance(val, lambda value: cut(trees, value, size))

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        labels = cut(self._dendrograms(test), self.threshold, test.mentions.num_rows)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        return f"cosine-distance threshold {self.threshold:g} (val CoNLL F1 {self.val_score:.2f})"

    @staticmethod
    def _dendrograms(data: SplitData) -> list[Dendrogram]:
        return data.memo("embedding-dendrograms", lambda: Embedding._linkage(data))

    @staticmethod
    def _linkage(data: SplitData) -> list[Dendrogram]:
        vectors = encodings(data).mentions.astype(np.float64)
        trees = []
        for rows in data.units(by_type=True):
            chosen = vectors[rows]
            trees.append(average_linkage(rows, condensed(1.0 - chosen @ chosen.T)))
        return trees
