"""``ensemble``: the ``pairwise`` and ``cross-encoder`` distances averaged, clustered by average linkage.

Model averaging of the feature-based pair classifier (gradient-boosted trees over lemma, embedding, document and
argument features, :mod:`ucdcr.systems.pairwise`) and the fine-tuned transformer (:mod:`ucdcr.systems.
cross_encoder`), which err differently: the trees see the documents and the training statistics of lemma pairs,
the transformer reads the two sentences together.

``fit`` fits and tunes both systems exactly as they are fitted alone (the cross-encoder's model comes from the model
cache when the ``cross-encoder`` system trained it on the same data). A pair's distance is
alpha * d(cross-encoder) + (1 - alpha) * d(pairwise), each the distance that system clusters with alone: 1 - P for
``pairwise``; for the cross-encoder 1 - P weighted across two predicted document clusters, and for a pair it did not
score (not a candidate) its fill inside one document cluster and 1 across
(:meth:`~ucdcr.systems.cross_encoder.CrossEncoder.distances`, with its own tuned weight and fill). Its pruning thus
counts as its "not coreferent", as when it clusters alone. Inside each unit and kind, average linkage on these
distances. ``alpha`` (:data:`WEIGHTS`, from 0, ``pairwise`` alone, to 1, the cross-encoder alone; a tie to the
first) and the distance thresholds (one common threshold, then each kind's) are tuned together on val for the
run's protocol.

``ensemble-3`` (:class:`EnsembleCommittee`) is the same with the cross-encoder committee of three models
(:data:`~ucdcr.systems.cross_encoder.COMMITTEE`): P(cross-encoder) is their mean.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from ucdcr.systems.base import SplitData, System
from ucdcr.systems.clustering import (
    COARSE,
    Dendrogram,
    average_linkage,
    cut_by_kind,
    tune_cut,
)
from ucdcr.systems.cross_encoder import COMMITTEE, CrossEncoder, CrossEncoderOptions
from ucdcr.systems.pairwise import Pairwise

WEIGHTS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
"""The cross-encoder's weights tried on val: 0 is ``pairwise`` alone (ties go to it), 1 the cross-encoder alone."""

Parts = list[tuple[list[int], np.ndarray | None, np.ndarray | None]]


class Ensemble(System):
    """``pairwise`` and ``cross-encoder`` probabilities averaged with a weight tuned on val + average linkage."""

    name = "ensemble"
    trainable = True
    needs_encoder = True
    version = "2"

    def __init__(self, options: CrossEncoderOptions | None = None) -> None:
        self.options = options or CrossEncoderOptions()
        self.pairwise = Pairwise()
        self.cross = CrossEncoder(self.options)
        self.alpha = WEIGHTS[0]
        self.threshold = COARSE[0]
        self.thresholds: dict[str, float] = {}
        self.val_score = 0.0

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.pairwise.seed = self.cross.seed = self.seed
        self.pairwise.fit(train, val)
        self.cross.fit(train, val)
        parts = self._parts(val)
        tuned = tune_cut(val, WEIGHTS, lambda alpha: _trees(parts, alpha))
        self.alpha, self.threshold, self.thresholds, self.val_score = (
            tuned.option,
            tuned.threshold,
            tuned.thresholds,
            tuned.score,
        )

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        labels = cut_by_kind(test, _trees(self._parts(test), self.alpha), self.thresholds, self.threshold)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        thresholds = ", ".join(f"{kind} {value:g}" for kind, value in self.thresholds.items())
        return (
            f"cross-encoder weight {self.alpha:g}, distance thresholds {thresholds or f'{self.threshold:g}'} (val "
            f"CoNLL F1 {self.val_score:.2f}); pairwise: {self.pairwise.describe()}; cross-encoder: "
            f"{self.cross.describe()}"
        )

    def _parts(self, data: SplitData) -> Parts:
        """Per unit and kind: its rows, the pairwise probabilities and the cross-encoder distances (condensed)."""
        parts: Parts = []
        for (rows, pairwise), (same, cross) in zip(
            self.pairwise.probabilities(data), self.cross.distances(data), strict=True
        ):
            assert rows == same, "both systems list the units in SplitData.units order"
            parts.append((rows, pairwise, cross))
        return parts


class EnsembleCommittee(Ensemble):
    """``ensemble`` whose cross-encoder is the three-model committee :data:`~ucdcr.systems.cross_encoder.
    COMMITTEE` (another committee by ``options``)."""

    name = "ensemble-3"

    def __init__(self, options: CrossEncoderOptions | None = None) -> None:
        super().__init__(options or COMMITTEE)


def _trees(parts: Parts, alpha: float) -> list[Dendrogram]:
    trees = []
    for rows, pairwise, cross in parts:
        if pairwise is None or cross is None:
            trees.append(Dendrogram(rows, None))
            continue
        trees.append(average_linkage(rows, alpha * cross + (1.0 - alpha) * (1.0 - pairwise)))
    return trees
