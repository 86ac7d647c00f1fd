"""``lh-ce``: Ahmed et al. (2023)'s pipeline: the lemma heuristic prunes the pairs, a cross-encoder scores what is left.

As their released code runs it (``prediction.predict_with_dpos``, ``training.train_dpos``):

1. Candidates: the pairs the lemma heuristic links, before any closure (:class:`~ucdcr.systems.reference.
   lemma_heuristic.LemmaHeuristic`; inside the gold topics of train, inside the run's units of val and test).
2. A cross-encoder is fine-tuned on the training split's candidates labelled by the gold chains
   (:mod:`ucdcr.systems.parts.pair_encoder`: the encoder of ``PairEncoderConfig.encoder``, MiniLM by default; any
   saved Hugging Face encoder by its folder, on a GPU where torch sees one).
3. Each candidate is scored in both orders, the two P averaged (their ``ab`` and ``ba`` scores); a pair whose P is
   above :data:`LINK_ABOVE` (0.5, theirs) is linked, and the clusters are the connected components of the links.

Nothing is tuned on val: val gives the share of its gold links the candidates keep (reported). Where it departs from
their code: their encoder is RoBERTa-base or Longformer-base with their sentence windows, here the configured one
with ucdcr's marked sentence windows; their candidates are events only, here each kind's; the lemma heuristic's own
departures (:mod:`ucdcr.systems.reference.lemma_heuristic`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.parts.candidates import Candidates, groups, link_recall
from ucdcr.systems.parts.clustering import linked_components
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions, encoder_description
from ucdcr.systems.reference.lemma_heuristic import LemmaHeuristic

LINK_ABOVE = 0.5
"""A candidate whose P(coreferent) is above this is linked (Ahmed et al.'s ``threshold=0.5``)."""


class LemmaHeuristicCrossEncoder(CrossEncoder):
    """The lemma heuristic's links, scored by a cross-encoder; links above 0.5, connected components."""

    name = "lh-ce"
    version = "2"

    def __init__(self, options: CrossEncoderOptions | None = None) -> None:
        super().__init__(options)
        if self.options.averaged_with:
            raise UcdcrError("lh-ce: a committee (averaged_with) is an option of cross-encoder, not of lh-ce")
        self.heuristic = LemmaHeuristic()

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        if not train:
            raise UcdcrError("lh-ce: no training split")
        self.options = self.options.seeded(self.seed)
        self.heuristic.fit(train, val)
        self._train(train, val)
        self.recall = link_recall(val, self._scored(val).candidates)

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        scored = self._scored(test)
        by_rows = {tuple(group.rows): group for group in scored.candidates}
        units, links, offset = [], [], 0
        for rows in test.units(by_type=True):
            linked = np.zeros((len(rows), len(rows)), dtype=bool)
            group = by_rows.get(tuple(rows))
            if group is not None:
                above = scored.scores[offset : offset + len(group)] > LINK_ABOVE
                linked[group.first[above], group.second[above]] = True
                offset += len(group)
            units.append(rows)
            links.append(linked)
        labels = linked_components(units, links, test.mentions.num_rows)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        if self.trained is None:
            return ""
        recall, config = self.recall, self.trained.config
        trained = (
            "read from the model cache"
            if self.trained.cached
            else f"trained in {sum(self.trained.seconds) / 60:.1f} min"
        )
        return (
            f"{encoder_description(config)} fine-tuned on {self.training_pairs[0]:,} lemma-heuristic pairs "
            f"({self.training_pairs[1]:,} coreferent), {config.epochs} epoch{'' if config.epochs == 1 else 's'} of "
            f"{config.pairs_per_epoch:,} at learning rate {config.learning_rate:g}, {trained}; the heuristic's pairs "
            f"keep {recall.share(recall.kept):.1%} of val's gold links and reach {recall.share(recall.reachable):.1%}; "
            f"linked above P {LINK_ABOVE:g}, connected components (nothing tuned)"
        )

    def _candidates(self, data: SplitData, column: str | None = None) -> list[Candidates]:
        self.heuristic.lemma_pairs = self.lemma_pairs  # the training pairs of this fit (set by _train)
        result = []
        for rows in groups(data, column):
            if len(rows) < 2:
                continue
            linked = self.heuristic.links(data, rows)
            first, second = np.nonzero(np.triu(linked, 1))
            result.append(Candidates(list(rows), first, second))
        return result
