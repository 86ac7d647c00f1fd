"""``head-lemma``: the paper's same-head-lemma baseline as a benchmark system; ``lemma-baseline``: the literature's.

``head-lemma``: inside an evaluation unit, mentions with the same head lemma (case-sensitive, events and entities
alike) form one cluster. This is the clustering of ``ucdcr baseline`` (uCDCR paper, Tables 6, 7 and 13), taken from
the same function, so its benchmark scores are the baseline's. Nothing is learned.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from ucdcr.systems.framework import adapter
from ucdcr.systems.framework.base import SplitData, System


class HeadLemma(System):
    """Same head lemma, same cluster (the uCDCR baseline)."""

    name = "head-lemma"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        return dict(zip(test.column("mention_id"), adapter.head_lemma_labels(test.mentions), strict=True))

    def describe(self) -> str:
        return "nothing learned"


class LemmaBaseline(System):
    """The literature's lemma baseline (Barhom et al. 2019's "Cluster+Lemma" on ECB+): inside a unit, mentions with
    the same LOWER-CASED head lemma form one cluster. spaCy 2, which those systems used, lower-cased every lemma
    (spaCy 3 keeps the case of proper nouns), so this is their baseline on ucdcr's spaCy 3 lemmas; ``head-lemma``
    is the uCDCR paper's (case-sensitive) one. Nothing is learned."""

    name = "lemma-baseline"

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        lemmas = [lemma.lower() for lemma in test.column("mention_head_lemma")]
        return dict(zip(test.column("mention_id"), lemmas, strict=True))

    def describe(self) -> str:
        return "nothing learned"
