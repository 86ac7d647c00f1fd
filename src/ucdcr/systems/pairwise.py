"""``pairwise``: a mention-pair classifier trained on the training split, clustered by average linkage.

The classic mention-pair architecture of CDCR (e.g. Barhom et al. 2019; Cattan et al. 2021, whose pairwise
scorer is also clustered by average-linkage agglomerative clustering), with a gradient-boosted tree model
(scikit-learn's HistGradientBoostingClassifier) over hand-made and embedding features
(:data:`ucdcr.systems.features.FEATURES`: head-lemma equality, the head-lemma pair's coreference rate in train,
MiniLM mention and sentence cosines, document TF-IDF cosine, same document / sentence, NER / type / POS agreement,
token and sentence-lemma overlap, length difference).

Training pairs: every pair of evaluated mentions (non-singleton mentions of kept chains, as the protocol selects
them) in one unit and of one type of the training split(s), labelled coreferent or not by the gold chains; their
head-lemma statistics come from the other folds of the training units (:func:`~ucdcr.systems.features.
fold_stats`), so that no pair counts itself. All coreferent pairs are kept and the others are sampled with a
fixed seed down to :data:`MAX_PAIRS` pairs in all. At test time, inside each unit and type, the distance of two
mentions is 1 - P(coreferent), clustered by average linkage and cut at the threshold of :data:`THRESHOLDS` with
the best mean CoNLL F1 on the validation split.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from ucdcr.systems import adapter
from ucdcr.systems.base import SplitData, System
from ucdcr.systems.clustering import Dendrogram, average_linkage, cut, grid, tune
from ucdcr.systems.features import FOLDS, LemmaPairStats, fold_stats, pair_features, row_features

THRESHOLDS: tuple[float, ...] = tuple(grid(0.05, 0.95, 0.025))
MAX_PAIRS = 300_000
SEED = 0


def _model() -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=200, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=50, early_stopping=False, random_state=SEED
    )


class Pairwise(System):
    """Gradient-boosted mention-pair classifier + average linkage, threshold tuned on val."""

    name = "pairwise"
    trainable = True
    needs_encoder = True

    def __init__(self) -> None:
        self.stats: LemmaPairStats | None = None
        self.model: Any = None
        self.threshold = THRESHOLDS[0]
        self.val_score = 0.0
        self.pairs = (0, 0)

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.stats, folds = fold_stats(train)
        features, labels = [], []
        for data in train:
            rows_features = row_features(data)
            chains = np.array(data.column("coref_chain"), dtype=object)
            evaluated = set(adapter.evaluated_rows(data.mentions, data.split))
            for index, rows in enumerate(data.units(by_type=True)):
                kept = [row for row in rows if row in evaluated]
                if len(kept) < 2:
                    continue
                features.append(pair_features(rows_features, kept, self.stats, folds[index % FOLDS]))
                first, second = np.triu_indices(len(kept), 1)
                labels.append(chains[kept][first] == chains[kept][second])
        x, y = _sample(np.concatenate(features), np.concatenate(labels).astype(np.int8))
        self.pairs = (len(y), int(y.sum()))
        self.model = _model().fit(x, y)
        trees = self._dendrograms(val)
        size = val.mentions.num_rows
        self.threshold, self.val_score = tune(val, THRESHOLDS, lambda value: cut(trees, value, size))

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        labels = cut(self._dendrograms(test), self.threshold, test.mentions.num_rows)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        return (
            f"gradient-boosted trees on {self.pairs[0]:,} training pairs ({self.pairs[1]:,} coreferent); "
            f"distance threshold {self.threshold:g} (val CoNLL F1 {self.val_score:.2f})"
        )

    def _dendrograms(self, data: SplitData) -> list[Dendrogram]:
        assert self.stats is not None and self.model is not None, "fit() first"
        rows_features = row_features(data)
        trees = []
        for rows in data.units(by_type=True):
            if len(rows) < 2:
                trees.append(Dendrogram(rows, None))
                continue
            probability = self.model.predict_proba(pair_features(rows_features, rows, self.stats))[:, 1]
            trees.append(average_linkage(rows, 1.0 - probability))
        return trees


def _sample(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every coreferent pair and a seeded sample of the others, :data:`MAX_PAIRS` in all (order kept)."""
    if len(y) <= MAX_PAIRS:
        return x, y
    positive = np.flatnonzero(y == 1)
    negative = np.flatnonzero(y == 0)
    room = max(0, MAX_PAIRS - len(positive))
    chosen = np.random.default_rng(SEED).choice(negative, size=min(room, len(negative)), replace=False)
    keep = np.sort(np.concatenate([positive, chosen]))
    return x[keep], y[keep]
