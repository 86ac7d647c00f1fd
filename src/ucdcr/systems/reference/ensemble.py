"""``ensemble``: the ``pairwise`` and ``cross-encoder`` distances averaged, clustered by average linkage.

Model averaging of the feature-based pair classifier (gradient-boosted trees over lemma, embedding, document and
argument features, :mod:`ucdcr.systems.reference.pairwise`) and the fine-tuned transformer (:mod:`ucdcr.systems.
cross_encoder`), which err differently: the trees see the documents and the training statistics of lemma pairs,
the transformer reads the two sentences together.

``fit`` fits and tunes both systems exactly as they are fitted alone (the cross-encoder's model comes from the model
cache when the ``cross-encoder`` system trained it on the same data). A pair's P(coreferent) is
alpha * P(cross-encoder) + (1 - alpha) * P(pairwise) and its distance 1 - P; for a pair the cross-encoder did not
score (not a candidate), P(cross-encoder) is 1 - ``fill`` inside one predicted document cluster and 0 across two
(the "fill rule", ``rule="fill"``, the default). Inside each unit and kind, average linkage on these distances.
``alpha`` (:data:`WEIGHTS`, from 0, ``pairwise`` alone, to 1, the cross-encoder alone), ``fill``
(:data:`~ucdcr.systems.reference.cross_encoder.FILL_DISTANCES`; a tie to the first pair of values) and the distance
thresholds (one common threshold, then each kind's) are tuned together on val for the run's protocol.
``rule="own"`` (version 2) averages instead the distances each system clusters with alone (the cross-encoder's own
tuned weight across document clusters and fill). The fill rule was chosen on val: mean over ECB+, NP4E, MEANTIME
and CD2CR 71.38 against 71.14 for version 2 (docs/benchmark-internals.md, "How the defaults were chosen").

``ensemble-3`` (:class:`EnsembleCommittee`) is the same with the cross-encoder committee of three models
(:data:`~ucdcr.systems.reference.cross_encoder.COMMITTEE`): P(cross-encoder) is their mean.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.clustering import (
    COARSE,
    Dendrogram,
    average_linkage,
    cut_by_kind,
    tune_cut,
)
from ucdcr.systems.reference.cross_encoder import COMMITTEE, FILL_DISTANCES, CrossEncoder, CrossEncoderOptions
from ucdcr.systems.reference.pairwise import Pairwise

Rule = Literal["fill", "own"]
RULES: tuple[Rule, ...] = ("fill", "own")
WEIGHTS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
"""The cross-encoder's weights tried on val: 0 is ``pairwise`` alone (ties go to it), 1 the cross-encoder alone."""

Parts = list[tuple[list[int], np.ndarray | None, np.ndarray | None]]


class Ensemble(System):
    """``pairwise`` and ``cross-encoder`` probabilities averaged with a weight tuned on val + average linkage."""

    name = "ensemble"
    trainable = True
    uses_gpu = True  # the pair encoder trains and scores on a GPU where torch sees one
    needs_encoder = True
    version = "5"

    def __init__(self, options: CrossEncoderOptions | None = None, rule: Rule = "fill") -> None:
        if rule not in RULES:
            raise UcdcrError(f"unknown ensemble rule {rule!r}; valid: {', '.join(RULES)}")
        self.options = options or CrossEncoderOptions()
        self.rule = rule
        self.pairwise = Pairwise()
        self.cross = CrossEncoder(self.options)
        self.alpha = WEIGHTS[0]
        self.fill: float | None = None
        self.threshold = COARSE[0]
        self.thresholds: dict[str, float] = {}
        self.val_score = 0.0

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        self.pairwise.seed = self.cross.seed = self.seed
        self.pairwise.fit(train, val)
        self.cross.ranker = self.pairwise  # fitted on the same splits with the same seed: what the cross-encoder fits
        self.cross.fit(train, val)
        fills: tuple[float | None, ...] = FILL_DISTANCES if self.rule == "fill" else (None,)
        parts = {fill: self._parts(val, fill) for fill in fills}
        options = [(alpha, fill) for fill in fills for alpha in WEIGHTS]
        tuned = tune_cut(val, options, lambda option: _trees(parts[option[1]], option[0]))
        (self.alpha, self.fill), self.threshold, self.thresholds, self.val_score = (
            tuned.option,
            tuned.threshold,
            tuned.thresholds,
            tuned.score,
        )

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        trees = _trees(self._parts(test, self.fill), self.alpha)
        labels = cut_by_kind(test, trees, self.thresholds, self.threshold)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        thresholds = ", ".join(f"{kind} {value:g}" for kind, value in self.thresholds.items())
        fill = f", a non-candidate at distance {self.fill:g} inside a document cluster" if self.fill is not None else ""
        return (
            f"cross-encoder weight {self.alpha:g}{fill}, distance thresholds {thresholds or f'{self.threshold:g}'} "
            f"(val CoNLL F1 {self.val_score:.2f}); pairwise: {self.pairwise.describe()}; cross-encoder: "
            f"{self.cross.describe()}"
        )

    def _parts(self, data: SplitData, fill: float | None) -> Parts:
        """Per unit and kind: its rows, the pairwise probabilities and the cross-encoder distances (condensed): with
        ``fill``, the fill rule's (weight 1 across document clusters); None, those it clusters with alone."""
        setting = None if fill is None else (1.0, fill)
        parts: Parts = []
        for (rows, pairwise), (same, cross) in zip(
            self.pairwise.probabilities(data), self.cross.distances(data, setting), strict=True
        ):
            assert rows == same, "both systems list the units in SplitData.units order"
            parts.append((rows, pairwise, cross))
        return parts


class EnsembleCommittee(Ensemble):
    """``ensemble`` whose cross-encoder is the three-model committee :data:`~ucdcr.systems.reference.cross_encoder.
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
