"""The system interface of ``ucdcr benchmark``: what a CDCR system is given and what it must return.

A system is a subclass of :class:`System` with up to three methods, called in this order for each dataset:

1. ``fit(train, val)``: learn from the training mentions (``train``: one :class:`SplitData` per dataset trained
   on, usually one) and tune on the validation mentions (``val``). The default does nothing.
2. ``predict(test) -> {mention_id: cluster}``: a cluster id (a string or a number, as in ``ucdcr evaluate``) for
   every row of ``test.mentions``. Only the grouping matters, and only inside one evaluation unit: the benchmark
   scores each subtopic (``level="subtopic"``) or topic (``level="topic"``) on its own, so mentions of two units
   never share a cluster whatever ids they get.
3. ``describe() -> str``: what was learned (a threshold, a model), printed beside the scores. Default: "".

What a split holds (:class:`SplitData`), whatever the protocol:

- train and val: every mention of the split (singletons included), gold fields included (``coref_chain``,
  ``is_singleton``, ...); a system can score a clustering of val's rows with :meth:`SplitData.conll_f1` (the
  run's protocol) to tune itself;
- test: every mention of the split, as a real system would get them with gold mentions: tokens, position,
  sentence and context, document and unit, the coarse kind (``type``) and ucdcr's own predicted features (spaCy
  head, lemma, POS, NER) — WITHOUT the fields its dataset declares gold-derived (the chain, the singleton flag,
  fine types, descriptions, relation types: :func:`ucdcr.registry.gold_fields_of`), and the token table without
  its gold ``reference`` column. It holds no path to the dataset and no sign of which mentions are scored: the
  protocol selects those from the predictions and the gold alike, afterwards.

Every table has the mention fields of :data:`ucdcr.schema.MENTION_SCHEMA` (minus the hidden ones) plus ``type``
("event"/"entity": the file of the mention, the coarse kind given with gold mentions) and, when the run clusters
within predicted topics, :data:`~ucdcr.analysis.protocol.PREDICTED_TOPIC`. A system must not change them. Systems
are registered by name (:mod:`ucdcr.systems.framework.names`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pyarrow as pa

from ucdcr.systems.framework import adapter
from ucdcr.systems.framework.adapter import Level, Protocol, unit_scoped

T = TypeVar("T")

GOLD_TOKEN_COLUMN = "reference"
"""The token table's CoNLL coreference column (gold chains): hidden from the test split."""


@dataclass(frozen=True, eq=False)
class SplitData:
    """The mentions of one split of one dataset, as a system sees them (see the module docstring).

    dataset: the dataset's name; split: "train", "val" or "test"; protocol: the run's protocol (its
    :attr:`~ucdcr.analysis.protocol.Protocol.unit_column` names the units a system clusters within); mentions: the
    table; gold: whether the gold fields are present (train and val); cache_dir: where encoder outputs are cached
    (:mod:`ucdcr.systems.framework.cache`; None: the user cache dir); token_table: the token table, or token_loader: a
    function that reads it on first use (None where texts are not shared).
    """

    dataset: str
    split: str
    protocol: Protocol
    mentions: pa.Table
    gold: bool = True
    cache_dir: Path | None = None
    token_table: pa.Table | None = field(default=None, repr=False)
    token_loader: Callable[[], pa.Table | None] | None = field(default=None, repr=False)

    def column(self, name: str) -> list[Any]:
        """One mention field as a Python list (converted once)."""
        cache = self._columns
        if name not in cache:
            cache[name] = self.mentions[name].to_pylist()
        return cache[name]

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per split and key (e.g. vectors shared by two systems in one run)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @cached_property
    def _columns(self) -> dict[str, list[Any]]:
        return {}

    @cached_property
    def _memo(self) -> dict[str, Any]:
        return {}

    @cached_property
    def tokens(self) -> pa.Table | None:
        """The token table rows of this split (all_documents.parquet), or None where texts are not shared."""
        if self.token_table is not None:
            return self.token_table
        return self.token_loader() if self.token_loader is not None else None

    @property
    def level(self) -> Level:
        """The run's level: ``subtopic`` or ``topic``."""
        return self.protocol.level

    @property
    def unit_column(self) -> str:
        """The mention field naming the unit a system clusters within (``subtopic_id``, ``topic_id`` or the
        predicted topic)."""
        return self.protocol.unit_column

    def units(self, by_type: bool = False) -> list[list[int]]:
        """The rows of each unit (and, with ``by_type``, of each unit and type), in sorted unit order."""
        units = self.column(self.unit_column)
        kinds = self.column("type") if by_type else [""] * len(units)
        groups: dict[tuple[str, str], list[int]] = {}
        for row, key in enumerate(zip(units, kinds, strict=True)):
            groups.setdefault(key, []).append(row)
        return [groups[key] for key in sorted(groups)]

    def conll_f1(self, labels: Sequence[Hashable]) -> float:
        """The run's protocol's CoNLL F1 (events and entities together) for a clustering of this split's rows
        (``labels[i]``: cluster of row i; clusters never span two units); the split must hold the gold fields.
        ucdcr protocol: the mean over the split's units at its level; standard: the split as one meta-document."""
        if not self.gold:
            raise ValueError(f"{self.dataset} {self.split}: no gold chains to score against")
        scoped = unit_scoped(labels, self.column(self.unit_column))
        planned = self.memo(
            "ucdcr:protocol-plan", lambda: adapter.plan(self.dataset, self.mentions, self.protocol, self.split)
        )
        result = adapter.score(planned, scoped)
        joint = [mean for mean in result.means if mean.level == self.level and mean.type == ""]
        return joint[0].scores["F1_CONLL"] if joint else 0.0


class System:
    """A CDCR system for ``ucdcr benchmark`` (see the module docstring); subclass it and override ``predict``.

    name: the registry name; trainable: whether ``fit`` learns from the data (the transfer matrix is made for trainable
    systems only); deterministic: a trainable system whose results do not depend on its seed (it draws nothing at
    random): ``--seeds N`` runs it once, and the tables say so; needs_encoder: whether it needs the ``embed`` extra;
    uses_gpu: whether it trains or scores with torch on a GPU where it finds one (on Ray its fits ask for a GPU when
    the cluster has any, and the others are given none); version: stored results are keyed by the
    system's code and configuration (:mod:`ucdcr.systems.framework.identity`) and by this: change it for what the code
    does not show (a data file it reads, a library outside ucdcr and its own package).
    """

    name: ClassVar[str] = ""
    trainable: ClassVar[bool] = False
    deterministic: ClassVar[bool] = False
    needs_encoder: ClassVar[bool] = False
    uses_gpu: ClassVar[bool] = False
    version: ClassVar[str] = "1"
    seed: int = 0
    """The run's seed (``ucdcr benchmark --seeds N`` runs seeds 0 .. N-1), set before ``fit``: a system draws all
    its randomness from it, and seed 0 is its default run."""

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        """Learn from ``train`` and tune on ``val`` (default: nothing to learn)."""

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        """A cluster id for every row of ``test.mentions``, keyed by ``mention_id``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement predict()")

    def describe(self) -> str:
        """What ``fit`` learned, for the output (e.g. "threshold 0.45")."""
        return ""
