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
from ucdcr.systems.features import (
    FOLDS,
    LemmaPairStats,
    RowFeatures,
    argument_clusters,
    fold_stats,
    pair_features,
    row_features,
    tune_document_threshold,
)

MAX_PAIRS = 100_000
SEED = 0
PER_TYPE = True
PER_TYPE_THRESHOLD = False
TREES = 60
LEARNING_RATE = 0.15
LEAVES = 15
MIN_LEAF = 50
DOCUMENT_CLUSTERS = True
SPLIT_BY_DOCUMENT_CLUSTER = False
LINKAGE = "average"
BAGS = 1
JOINT = True


def _model() -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=TREES,
        learning_rate=LEARNING_RATE,
        max_leaf_nodes=LEAVES,
        min_samples_leaf=MIN_LEAF,
        early_stopping=False,
        random_state=SEED,
    )


class Pairwise(System):
    """Gradient-boosted mention-pair classifier + average linkage, threshold tuned on val."""

    name = "pairwise"
    trainable = True
    needs_encoder = True
    version = "2"

    def __init__(self) -> None:
        self.stats: LemmaPairStats | None = None
        self.models: dict[str, Any] = {}
        self.document_threshold: float | None = None
        self.document_agreement = 0.0
        self.threshold = COARSE[0]
        self.thresholds: dict[str, float] = {}
        self.val_score = 0.0
        self.pairs: dict[str, tuple[int, int]] = {}
        self.arguments: dict[int, Any] = {}

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        if DOCUMENT_CLUSTERS:
            self.document_threshold, self.document_agreement = tune_document_threshold(train)
        self.stats, folds = fold_stats(train)
        kinds = sorted({kind for data in train for kind in data.column("type")})
        stages = [[kind for kind in kinds if kind != "event"], ["event"]] if JOINT and PER_TYPE else [kinds]
        for stage in stages:
            if self.models and stage == ["event"]:
                self._arguments_from([*train, val])
            training = _training_pairs(train, self.stats, folds, self._features, stage)
            for kind, (x, y, bags) in training.items():
                self.pairs[kind] = (len(y), int(y.sum()))
                if 0 < y.sum() < len(y):
                    self.models[kind] = _Ensemble([_model().fit(x[bag], y[bag]) for bag in bags])
            if stage != stages[-1] and self.models:
                self._tune(val, stage)
        if not self.models:
            raise UcdcrError(f"{', '.join(str(d.dataset) for d in train)}: no coreferent and non-coreferent pairs")
        self._tune(val, None)

    def _tune(self, val: SplitData, only: Sequence[str] | None) -> None:
        """Tune the common threshold (``only`` None) then each kind's (of ``only``, or all)."""
        trees = self._dendrograms(val, only)
        size = val.mentions.num_rows
        if only is None:
            self.threshold, self.val_score = tune_distance(val, lambda value: cut(trees, value, size))
        if PER_TYPE_THRESHOLD or only is not None:
            kinds = val.column("type")
            group_kinds = [kinds[tree.rows[0]] for tree in trees]
            for kind in sorted(set(group_kinds)):
                others = self.thresholds | {}

                def labels_at(value: float, kind: str = kind, others: dict[str, float] = others) -> list[str]:
                    chosen = others | {kind: value}
                    return _cut_per_kind(trees, group_kinds, chosen, self.threshold, size)

                self.thresholds[kind], self.val_score = tune_distance(val, labels_at)

    def _arguments_from(self, splits: Sequence[SplitData]) -> None:
        """The predicted clusters of the kinds modelled so far, as the argument clusters of each split's rows."""
        for data in splits:
            trees = self._dendrograms(data, list(self.models))
            kinds = data.column("type")
            group_kinds = [kinds[tree.rows[0]] for tree in trees]
            labels = _cut_per_kind(trees, group_kinds, self.thresholds, self.threshold, data.mentions.num_rows)
            clustered = {row for tree in trees for row in tree.rows}
            chosen = [label if row in clustered else None for row, label in enumerate(labels)]
            self.arguments[id(data)] = argument_clusters(data, chosen)

    def _features(self, data: SplitData) -> RowFeatures:
        from dataclasses import replace

        features = row_features(data, document_threshold=self.document_threshold)
        return replace(features, argument_clusters=self.arguments.get(id(data)))

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        if JOINT and PER_TYPE and "event" in self.models and len(self.models) > 1:
            self._arguments_from([test])
        trees = self._dendrograms(test)
        kinds = test.column("type")
        group_kinds = [kinds[tree.rows[0]] for tree in trees]
        labels = _cut_per_kind(trees, group_kinds, self.thresholds, self.threshold, test.mentions.num_rows)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        pairs = "; ".join(
            f"{kind or 'all'}: {n:,} training pairs ({c:,} coreferent)" for kind, (n, c) in self.pairs.items()
        )
        thresholds = ", ".join(f"{kind} {value:g}" for kind, value in self.thresholds.items())
        return (
            f"gradient-boosted trees per kind ({pairs}); document clusters at {self.document_threshold} "
            f"(ARI {self.document_agreement:.2f}); distance threshold {self.threshold:g} {thresholds} "
            f"(val CoNLL F1 {self.val_score:.2f})"
        )

    def _model_of(self, kind: str) -> Any:
        if kind in self.models:
            return self.models[kind]
        return self.models[max(self.models, key=lambda name: (self.pairs[name][0], name))]

    def _dendrograms(self, data: SplitData, only: Sequence[str] | None = None) -> list[Dendrogram]:
        assert self.stats is not None and self.models, "fit() first"
        rows_features = self._features(data)
        kinds = data.column("type")
        groups = [rows for rows in data.units(by_type=True) if only is None or kinds[rows[0]] in only]
        if SPLIT_BY_DOCUMENT_CLUSTER and rows_features.document_clusters is not None:
            clusters = rows_features.document_clusters
            groups = [
                [row for row in rows if clusters[row] == cluster]
                for rows in groups
                for cluster in sorted({int(clusters[row]) for row in rows})
            ]
        trees = []
        for rows in groups:
            if len(rows) < 2:
                trees.append(Dendrogram(rows, None))
                continue
            model = self._model_of(kinds[rows[0]] if PER_TYPE else "")
            probability = model.predict_proba(pair_features(rows_features, rows, self.stats))[:, 1]
            if LINKAGE == "average":
                trees.append(average_linkage(rows, 1.0 - probability))
            else:
                from scipy.cluster.hierarchy import linkage

                trees.append(Dendrogram(rows, linkage(np.clip(1.0 - probability, 0.0, None), method=LINKAGE)))
        return trees


class _Ensemble:
    """Models whose coreference probabilities are averaged."""

    def __init__(self, models: Sequence[Any]) -> None:
        self.models = list(models)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        return np.mean([model.predict_proba(x) for model in self.models], axis=0)


def _cut_per_kind(
    trees: Sequence[Dendrogram], kinds: Sequence[str], thresholds: Mapping[str, float], default: float, size: int
) -> list[str]:
    """Labels of ``size`` rows: each tree cut at its kind's threshold (``default`` for a kind without one)."""
    labels = [f"row:{row}" for row in range(size)]
    for value in sorted({thresholds.get(kind, default) for kind in kinds}):
        chosen = [index for index, kind in enumerate(kinds) if thresholds.get(kind, default) == value]
        part = cut([trees[index] for index in chosen], value, size)
        for index in chosen:
            for row in trees[index].rows:
                labels[row] = f"{index}:{part[row]}"
    return labels


def _training_pairs(
    train: Sequence[SplitData],
    stats: LemmaPairStats,
    folds: Sequence[LemmaPairStats],
    features_of: Any,
    only: Sequence[str],
) -> dict[str, tuple[np.ndarray, np.ndarray, list[np.ndarray]]]:
    """Per kind ("" for all with PER_TYPE off): features and labels of the sampled training pairs
    (:func:`_sample`); features are computed for those only."""
    groups: dict[str, list[Any]] = {}
    for data in train:
        chains = np.array(data.column("coref_chain"), dtype=object)
        kinds = data.column("type")
        for index, kept in enumerate(data.units(by_type=True)):
            if len(kept) >= 2 and kinds[kept[0]] in only:
                first, second = np.triu_indices(len(kept), 1)
                same = chains[kept][first] == chains[kept][second]
                kind = kinds[kept[0]] if PER_TYPE else ""
                groups.setdefault(kind, []).append((data, index, kept, first, second, same))
    result = {}
    for kind in sorted(groups):
        every = np.concatenate([group[-1] for group in groups[kind]])
        masks = [_sample(every, SEED + bag) for bag in range(BAGS)]
        keep = np.logical_or.reduce(masks)
        features, labels, offset = [], [], 0
        for data, index, kept, first, second, same in groups[kind]:
            chosen = keep[offset : offset + len(same)]
            offset += len(same)
            if chosen.any():
                pairs = (first[chosen], second[chosen])
                rows_features = features_of(data)
                features.append(pair_features(rows_features, kept, stats, folds[index % FOLDS], pairs))
                labels.append(same[chosen])
        result[kind] = (
            np.concatenate(features),
            np.concatenate(labels).astype(np.int8),
            [mask[keep] for mask in masks],
        )
    return result


def _sample(labels: np.ndarray, seed: int = SEED) -> np.ndarray:
    """Which pairs to train on: all when there are at most :data:`MAX_PAIRS`, else a seeded sample of that size
    with at most half coreferent pairs (so the rare class is kept whole where it can be)."""
    if len(labels) <= MAX_PAIRS:
        return np.ones(len(labels), dtype=bool)
    rng = np.random.default_rng(seed)
    positive, negative = np.flatnonzero(labels), np.flatnonzero(~labels)
    positive = rng.choice(positive, size=min(len(positive), MAX_PAIRS // 2), replace=False)
    negative = rng.choice(negative, size=min(len(negative), MAX_PAIRS - len(positive)), replace=False)
    keep = np.zeros(len(labels), dtype=bool)
    keep[positive] = keep[negative] = True
    return keep
