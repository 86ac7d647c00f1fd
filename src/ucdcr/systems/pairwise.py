"""``pairwise``: a mention-pair classifier trained on the training split, clustered by average linkage.

The classic mention-pair architecture of CDCR (e.g. Barhom et al. 2019; Cattan et al. 2021, whose pairwise
scorer is also clustered by average-linkage agglomerative clustering), with a gradient-boosted tree model
(scikit-learn's HistGradientBoostingClassifier) over hand-made and embedding features
(:data:`ucdcr.systems.features.FEATURES`: head-lemma equality, the head-lemma pair's coreference rate in train,
MiniLM mention and sentence cosines, document TF-IDF cosine, same document / sentence, NER / type / POS agreement,
token and sentence-lemma overlap, length difference).

Training pairs: every pair of mentions (singletons included: a system never knows which mentions a protocol
scores) in one unit and of one type of the training split(s), labelled coreferent or not by the gold chains; their
head-lemma statistics come from the other folds of the training units (:func:`~ucdcr.systems.features.
fold_stats`), so that no pair counts itself. Beyond :data:`MAX_PAIRS` pairs, a seeded sample of that size is
drawn first (every coreferent pair when they are at most half of it), and features are computed for those pairs
only. At test time, inside each unit and type, the distance of two
mentions is 1 - P(coreferent), clustered by average linkage and cut at the threshold with
the best mean CoNLL F1 on the validation split (:func:`~ucdcr.systems.clustering.tune_distance`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.base import SplitData, System
from ucdcr.systems.clustering import COARSE, Dendrogram, average_linkage, cut, tune_distance
from ucdcr.systems.features import FOLDS, LemmaPairStats, fold_stats, pair_features, row_features

MAX_PAIRS = 100_000
SEED = 0


def _model() -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=60, learning_rate=0.15, max_leaf_nodes=15, min_samples_leaf=50, early_stopping=False, random_state=SEED
    )


class Pairwise(System):
    """Gradient-boosted mention-pair classifier + average linkage, threshold tuned on val."""

    name = "pairwise"
    trainable = True
    needs_encoder = True

    def __init__(self) -> None:
        self.stats: LemmaPairStats | None = None
        self.model: Any = None
        self.threshold = COARSE[0]
        self.val_score = 0.0
        self.pairs = (0, 0)

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.stats, folds = fold_stats(train)
        x, y = _training_pairs(train, self.stats, folds)
        self.pairs = (len(y), int(y.sum()))
        self.model = _model().fit(x, y)
        trees = self._dendrograms(val)
        size = val.mentions.num_rows
        self.threshold, self.val_score = tune_distance(val, lambda value: cut(trees, value, size))

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


def _training_pairs(
    train: Sequence[SplitData], stats: LemmaPairStats, folds: Sequence[LemmaPairStats]
) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of the sampled training pairs (:func:`_sample`); features are computed for those only."""
    groups = []
    for data in train:
        chains = np.array(data.column("coref_chain"), dtype=object)
        for index, kept in enumerate(data.units(by_type=True)):
            if len(kept) >= 2:
                first, second = np.triu_indices(len(kept), 1)
                groups.append((data, index, kept, first, second, chains[kept][first] == chains[kept][second]))
    if not groups:
        raise UcdcrError(f"{', '.join(str(d.dataset) for d in train)}: no pair of training mentions to learn")
    keep = _sample(np.concatenate([group[-1] for group in groups]))
    features, labels, offset = [], [], 0
    for data, index, kept, first, second, same in groups:
        chosen = keep[offset : offset + len(same)]
        offset += len(same)
        if chosen.any():
            pairs = (first[chosen], second[chosen])
            features.append(pair_features(row_features(data), kept, stats, folds[index % FOLDS], pairs))
            labels.append(same[chosen])
    return np.concatenate(features), np.concatenate(labels).astype(np.int8)


def _sample(labels: np.ndarray) -> np.ndarray:
    """Which pairs to train on: all when there are at most :data:`MAX_PAIRS`, else a seeded sample of that size
    with at most half coreferent pairs (so the rare class is kept whole where it can be)."""
    if len(labels) <= MAX_PAIRS:
        return np.ones(len(labels), dtype=bool)
    rng = np.random.default_rng(SEED)
    positive, negative = np.flatnonzero(labels), np.flatnonzero(~labels)
    positive = rng.choice(positive, size=min(len(positive), MAX_PAIRS // 2), replace=False)
    negative = rng.choice(negative, size=min(len(negative), MAX_PAIRS - len(positive)), replace=False)
    keep = np.zeros(len(labels), dtype=bool)
    keep[positive] = keep[negative] = True
    return keep
