"""``pairwise``: mention-pair classifiers trained on the training split, clustered by average linkage.

The classic mention-pair architecture of CDCR (e.g. Barhom et al. 2019; Cattan et al. 2021, whose pairwise scorer is
also clustered by average-linkage agglomerative clustering), with gradient-boosted tree models (scikit-learn's
HistGradientBoostingClassifier, one per kind: event, entity) over hand-made and embedding features
(:data:`ucdcr.systems.parts.features.FEATURES`: head-lemma equality and the head-lemma pair's coreference counts in
train, MiniLM mention and sentence cosines and how far a pair is from each mention's nearest neighbour, document TF-IDF
cosines over the split and inside the unit, same predicted document cluster inside the unit, argument overlap, same
document / sentence, NER and POS agreement, token and sentence-lemma overlap, length difference).

Steps of ``fit``:

1. Predicted document clusters inside a unit (:class:`~ucdcr.systems.parts.features.UnitDocuments`): the distance
   threshold whose clusters of every training unit's documents agree best with its gold subtopics
   (:func:`~ucdcr.systems.parts.features.tune_document_threshold`; ECB+ topics hold two events, one per subtopic). At
   test time only the texts are read.
2. Entities (and any kind but events) first: training pairs are every pair of mentions (singletons included: a
   system never knows which mentions a protocol scores) in one unit and of one kind of the training split(s),
   labelled coreferent or not by the gold chains; their head-lemma statistics come from the other folds of the
   training units (:func:`~ucdcr.systems.parts.features.fold_stats`), so that no pair counts itself. Beyond
   :data:`MAX_PAIRS` pairs of a kind, a seeded sample of that size is drawn (every coreferent pair when they are at
   most half of it), and features are computed for those pairs only. The kind's distance threshold is tuned on
   val.
3. Events last, jointly with the entities (as Barhom et al.'s joint model lets entity clusters inform event
   coreference): the entity clusters predicted by step 2 (on train, val and test alike) give every event the set
   of the predicted clusters of the entities of its sentence, and ``argument_cluster_overlap`` compares two
   events' sets.
4. Inside each unit and kind, the distance of two mentions is 1 - P(coreferent), clustered by average linkage
   and cut at a threshold: one common threshold, then each kind's in turn, with the best CoNLL F1 of the run's
   protocol on the validation split (:func:`~ucdcr.systems.parts.clustering.tune_distance`).

Deterministic: seeded samples, tree models without randomness (no early stopping, no subsampling).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.clustering import (
    COARSE,
    Dendrogram,
    average_linkage,
    cut,
    cut_by_kind,
    tune_by_kind,
    tune_distance,
)
from ucdcr.systems.parts.features import (
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
"""Training pairs per kind (a seeded sample beyond that)."""
SEED = 0
LAST_KIND = "event"
"""The kind modelled last, with the predicted clusters of the other kinds as its arguments."""


def _model(seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=60,
        learning_rate=0.15,
        max_leaf_nodes=15,
        min_samples_leaf=50,
        early_stopping=False,
        random_state=SEED + seed,
    )


class Pairwise(System):
    """Gradient-boosted mention-pair classifiers per kind + average linkage, thresholds tuned on val."""

    name = "pairwise"
    trainable = True
    needs_encoder = True
    version = "2"

    def __init__(self) -> None:
        self.stats: LemmaPairStats | None = None
        self.models: dict[str, Any] = {}
        self.pairs: dict[str, tuple[int, int]] = {}
        self.document_threshold = 1.0
        self.document_agreement = 0.0
        self.threshold = COARSE[0]
        self.thresholds: dict[str, float] = {}
        self.val_score = 0.0
        self.argument_thresholds: dict[str, float] = {}  # the first stage's thresholds (argument clusters)
        self._arguments: dict[int, Any] = {}  # id(split) -> the argument clusters of its rows

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.document_threshold, self.document_agreement = tune_document_threshold(train)
        self.stats, folds = fold_stats(train)
        kinds = sorted({kind for data in train for kind in data.column("type")})
        first = [kind for kind in kinds if kind != LAST_KIND]
        for stage in (first, [LAST_KIND] if LAST_KIND in kinds else []):
            if not stage:
                continue
            if stage == [LAST_KIND] and self.models:
                self._arguments_from([*train, val])
            for kind, (x, y) in _training_pairs(train, self.stats, folds, self._features, stage, self.seed).items():
                self.pairs[kind] = (len(y), int(y.sum()))
                if 0 < y.sum() < len(y):
                    self.models[kind] = _model(self.seed).fit(x, y)
            if stage is first and self.models:
                self._tune(val, only=first)
                self.argument_thresholds = dict(self.thresholds)
        if not self.models:
            raise UcdcrError(f"{', '.join(str(d.dataset) for d in train)}: no coreferent and non-coreferent pairs")
        self._tune(val)

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        labels = self._labels(test, _trees(self.probabilities(test)))
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        pairs = "; ".join(f"{kind} {n:,} ({c:,} coreferent)" for kind, (n, c) in self.pairs.items())
        thresholds = ", ".join(f"{kind} {value:g}" for kind, value in self.thresholds.items())
        return (
            f"gradient-boosted trees per kind on training pairs: {pairs}; document clusters at distance "
            f"{self.document_threshold:g} (ARI {self.document_agreement:.2f} on train); distance thresholds "
            f"{thresholds or f'{self.threshold:g}'} (val CoNLL F1 {self.val_score:.2f})"
        )

    def _tune(self, val: SplitData, only: Sequence[str] | None = None) -> None:
        """Tune the common threshold (all kinds), then each kind's in turn (``only``: of these kinds only, the
        other kinds left unclustered)."""
        trees = self._dendrograms(val, only)
        size = val.mentions.num_rows
        if only is None:
            self.threshold, self.val_score = tune_distance(val, lambda value: cut(trees, value, size))
        self.thresholds, score = tune_by_kind(val, trees, self.thresholds, self.threshold)
        self.val_score = score if trees else self.val_score

    def _labels(
        self, data: SplitData, trees: Sequence[Dendrogram], thresholds: Mapping[str, float] | None = None
    ) -> list[str]:
        """Labels of every row: each tree cut at its kind's threshold (the common one for a kind without one)."""
        return cut_by_kind(data, trees, self.thresholds if thresholds is None else thresholds, self.threshold)

    def _arguments_from(self, splits: Sequence[SplitData]) -> None:
        """The predicted clusters of the kinds modelled so far, as the argument clusters of each split's rows."""
        for data in splits:
            trees = self._dendrograms(data, [kind for kind in self.models if kind != LAST_KIND])
            labels = self._labels(data, trees, self.argument_thresholds)
            clustered = {row for tree in trees for row in tree.rows}
            self._arguments[id(data)] = argument_clusters(
                data, [label if row in clustered else None for row, label in enumerate(labels)]
            )

    def _features(self, data: SplitData) -> RowFeatures:
        features = row_features(data, document_threshold=self.document_threshold)
        return replace(features, argument_clusters=self._arguments.get(id(data)))

    def _model_of(self, kind: str) -> Any:
        if kind in self.models:
            return self.models[kind]
        return self.models[max(self.models, key=lambda name: (self.pairs[name][0], name))]

    def _dendrograms(self, data: SplitData, only: Sequence[str] | None = None) -> list[Dendrogram]:
        """The average-linkage tree of every unit and kind (``only``: of these kinds)."""
        return _trees(self._probabilities(data, only))

    def probabilities(self, data: SplitData) -> list[tuple[list[int], np.ndarray | None]]:
        """Per unit and kind of ``data`` (in :meth:`SplitData.units` order): its rows and P(coreferent) of every
        pair in condensed order (None for a unit of one row), from the fitted models."""
        if LAST_KIND in self.models and len(self.models) > 1:
            self._arguments_from([data])
        return self._probabilities(data)

    def _probabilities(
        self, data: SplitData, only: Sequence[str] | None = None
    ) -> list[tuple[list[int], np.ndarray | None]]:
        assert self.stats is not None and self.models, "fit() first"
        features = self._features(data)
        kinds = data.column("type")
        result: list[tuple[list[int], np.ndarray | None]] = []
        for rows in data.units(by_type=True):
            if only is not None and kinds[rows[0]] not in only:
                continue
            if len(rows) < 2:
                result.append((rows, None))
                continue
            model = self._model_of(kinds[rows[0]])
            result.append((rows, model.predict_proba(pair_features(features, rows, self.stats))[:, 1]))
        return result


def _trees(probabilities: Sequence[tuple[list[int], np.ndarray | None]]) -> list[Dendrogram]:
    """Average linkage on 1 - P of every unit and kind."""
    return [
        Dendrogram(rows, None) if probability is None else average_linkage(rows, 1.0 - probability)
        for rows, probability in probabilities
    ]


def _training_pairs(
    train: Sequence[SplitData],
    stats: LemmaPairStats,
    folds: Sequence[LemmaPairStats],
    features_of: Callable[[SplitData], RowFeatures],
    kinds: Sequence[str],
    seed: int,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per kind of ``kinds``: features and labels of the sampled training pairs (:func:`_sample`); features are
    computed for those only."""
    groups: dict[str, list[Any]] = {}
    for data in train:
        chains = np.array(data.column("coref_chain"), dtype=object)
        types = data.column("type")
        for index, kept in enumerate(data.units(by_type=True)):
            if len(kept) >= 2 and types[kept[0]] in kinds:
                first, second = np.triu_indices(len(kept), 1)
                same = chains[kept][first] == chains[kept][second]
                groups.setdefault(types[kept[0]], []).append((data, index, kept, first, second, same))
    result = {}
    for kind in sorted(groups):
        keep = _sample(np.concatenate([group[-1] for group in groups[kind]]), seed)
        features, labels, offset = [], [], 0
        for data, index, kept, first, second, same in groups[kind]:
            chosen = keep[offset : offset + len(same)]
            offset += len(same)
            if chosen.any():
                pairs = (first[chosen], second[chosen])
                features.append(pair_features(features_of(data), kept, stats, folds[index % FOLDS], pairs))
                labels.append(same[chosen])
        result[kind] = (np.concatenate(features), np.concatenate(labels).astype(np.int8))
    return result


def _sample(labels: np.ndarray, seed: int) -> np.ndarray:
    """Which pairs to train on: all when there are at most :data:`MAX_PAIRS`, else a sample of that size seeded by
    ``SEED + seed`` with at most half coreferent pairs (so the rare class is kept whole where it can be)."""
    if len(labels) <= MAX_PAIRS:
        return np.ones(len(labels), dtype=bool)
    rng = np.random.default_rng(SEED + seed)
    positive, negative = np.flatnonzero(labels), np.flatnonzero(~labels)
    positive = rng.choice(positive, size=min(len(positive), MAX_PAIRS // 2), replace=False)
    negative = rng.choice(negative, size=min(len(negative), MAX_PAIRS - len(positive)), replace=False)
    keep = np.zeros(len(labels), dtype=bool)
    keep[positive] = keep[negative] = True
    return keep
