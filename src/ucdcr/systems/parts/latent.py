"""A learned mention space whose neighbourhoods hold coreferent mentions: Fisher's linear discriminant over the MiniLM
mention vectors, the training split's gold chains as classes.

Held et al. (2021, "Focus on what matters", EMNLP) learn a latent space that "minimizes the distance between mentions
and the centroids of their gold coreference clusters" and take a mention's nearest neighbours there as the
mentions a reader has in focus. Linear discriminant analysis is that criterion solved in closed form for a linear
map: it maximises the spread of the chain centroids against the spread of the mentions around their own chain's
centroid (scikit-learn's ``LinearDiscriminantAnalysis``, eigen solver, a fixed shrinkage
:data:`SHRINKAGE` of the within-chain covariance, as 384 dimensions and a few thousand chains need). The classes are
(kind, chain) of every training mention, singletons included; the projected vectors are L2-normalised, so a dot
product is a cosine. Deterministic (no randomness in the eigen solver).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.base import SplitData
from ucdcr.systems.parts.vectors import encodings

SHRINKAGE = 0.5
"""The within-chain covariance shrunk halfway to a scaled identity (chosen on ECB+ val: 0.5 kept more gold links
among a mention's nearest neighbours than 0.1)."""


@dataclass
class LatentSpace:
    """A fitted map from MiniLM mention vectors to the learned space (:func:`fit_latent_space`)."""

    model: Any

    @property
    def key(self) -> str:
        """What the map is (its fitted parameters' hash): a memo key for the vectors it gives."""
        return hashlib.sha256(np.ascontiguousarray(self.model.scalings_).tobytes()).hexdigest()[:16]

    def memo_vectors(self, data: SplitData) -> np.ndarray:
        """:meth:`vectors`, computed once per split and map."""
        return data.memo(f"latent-vectors:{self.key}", lambda: self.vectors(data))

    def vectors(self, data: SplitData) -> np.ndarray:
        """The unit-length learned vector of every row of ``data``."""
        projected = self.model.transform(encodings(data).mentions.astype(np.float64))
        norms = np.linalg.norm(projected, axis=1, keepdims=True)
        return projected / np.where(norms > 0, norms, 1.0)


def fit_latent_space(train: Sequence[SplitData]) -> LatentSpace:
    """The space of the training splits' chains (module docstring)."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    vectors = np.vstack([encodings(data).mentions.astype(np.float64) for data in train])
    classes = np.array(
        [
            f"{index}\x1f{kind}\x1f{chain}"
            for index, data in enumerate(train)
            for kind, chain in zip(data.column("type"), data.column("coref_chain"), strict=True)
        ]
    )
    if len(set(classes.tolist())) < 2:
        raise UcdcrError(f"{', '.join(data.dataset for data in train)}: fewer than two chains to learn a space from")
    model = LinearDiscriminantAnalysis(solver="eigen", shrinkage=SHRINKAGE).fit(vectors, classes)
    return LatentSpace(model)
