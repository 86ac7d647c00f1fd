"""``cross-encoder``: a transformer reads both mentions in their sentences and scores the pair; average linkage.

The architecture of the strong CDCR systems since 2021 (Caciularu et al. 2021; Held et al. 2021; Ahmed et al. 2023),
at the size a 2-core CPU trains: the encoder (default all-MiniLM-L6-v2, 22.7M parameters, the ``embed`` extra's
weights; any saved Hugging Face encoder by ``PairEncoderConfig.encoder``) is fine-tuned on mention pairs, each
mention marked in its sentence (:mod:`ucdcr.systems.parts.pair_encoder`). One model scores both kinds (events and
entities): a pair is always of one kind, and the kinds share what a coreferent pair looks like; each kind gets its
own clustering threshold.

Steps of ``fit``:

1. Candidates (:mod:`ucdcr.systems.parts.candidates`): head-lemma pairs found in one gold chain of the training split(s)
   (:func:`~ucdcr.systems.parts.candidates.coreferent_lemma_pairs`), same head lemma, or ``neighbours`` nearest in
   MiniLM mention vectors. Training pairs: the candidates inside each gold topic and kind of the training split(s),
   labelled by the gold chains, each pair's two sides in a seeded random order. Neither depends on the protocol's
   units, so one model serves every protocol (and the transfer matrix).
2. The model is trained (or read from the model cache: same configuration, training pairs, libraries, device and
   hardware, :func:`~ucdcr.systems.parts.pair_encoder.model_key`).
3. Predicted document clusters inside a unit, as ``pairwise`` makes them (:class:`~ucdcr.systems.parts.features.
   UnitDocuments`; threshold: the best agreement of the training units' document clusters with their gold
   subtopics, :func:`~ucdcr.systems.parts.features.tune_document_threshold`). A sentence alone rarely tells two
   earthquakes of one ECB+ topic apart; the documents do. The literature clusters documents before coreference
   (Barhom et al. 2019; Cattan et al. 2021); here the clusters weigh the pair scores instead of cutting, since
   in some corpora (MEANTIME: one article per subtopic) coreference crosses them.
4. On val, the candidates inside the run's units are scored, each pair in both orders with the two P averaged
   (``both_orders``; the model reads a pair's first mention first). The distance of a pair is 1 - P(coreferent), times
   ``weight`` for a pair across two predicted document clusters. A pair that is not a candidate was never scored:
   its distance is ``fill`` inside one document cluster and 1 across two (average linkage counts every pair of
   two clusters, and with the pruning keeping about half of the gold links, a fixed 1 keeps apart clusters the
   scored pairs join). Each unit and kind is clustered by average linkage. The weight (:data:`DOCUMENT_WEIGHTS`),
   the fill (:data:`FILL_DISTANCES`; a tie goes to the first pair of values, 1 and 1) and the distance
   thresholds are tuned for the run's protocol: one common threshold, then each kind's
   (:func:`~ucdcr.systems.parts.clustering.tune_by_kind`). The share of val's gold links kept by the candidates (the
   pruning's recall) is reported.

Candidates at val and test (``CrossEncoderOptions.candidates``): in step 4 they are ranked by a pair score, the
P(coreferent) of a ``pairwise`` system fitted on the same splits with the run's seed blended with the cosine of a
mention space (:func:`~ucdcr.systems.parts.candidates.blended_scores`, ``latent_weight``): by default a mention encoder
fine-tuned on the training split's chains (``space="encoder"``, :mod:`ucdcr.systems.parts.mention_encoder`: the same
encoder read one mention at a time, trained so that a chain's mentions lie close), or ``knn-ce``'s linear discriminant
(``space="lda"``). Each mention's ``same_document`` best partners in its own document
(:func:`~ucdcr.systems.parts.candidates.same_document_candidates`), its ``top`` best in its unit, then the split's best
pairs up to ``per_row`` per mention (:func:`~ucdcr.systems.parts.candidates.ranked_candidates`); the training pairs of
step 1 stay the rules'. On ECB+ val they keep 82.0% of the gold links and reach 98.3% at 1.97 times the rules'
pairs; they reach 97.1% on NP4E, 99.5% on MEANTIME, 98.3% on CD2CR and 85.1% on CEREC
(``bench/candidate_recall.py``). ``candidates="pairwise", top=8`` is version 4's (the rules' pairs, then pairs ranked
by pairwise's P alone), ``candidates="rules"`` version 3's (the rules' pairs alone); ``space="lda",
latent_weight=0.3, same_document=5, top=8`` version 5's first design.

A committee (``CrossEncoderOptions.averaged_with``): further models, each built by steps 1-2 with its own options
(another seed, other candidates). Every model scores its own candidates; a pair's P(coreferent) is the mean over the
models that scored it, and a pair none of them scored is a non-candidate. Step 4 is as for one model; the recall
reported is that of all the models' candidates together. :data:`COMMITTEE` (the systems ``cross-encoder-3`` and, with
``pairwise``, ``ensemble-3``; opt-in: ``--systems cross-encoder-3,ensemble-3``) is the default model, the default with
seed 1, and the default on candidates ``neighbours=20, limit=30``: three times the training.

``predict`` scores the test split's candidates inside the run's units the same way. Only spans, words, ucdcr's
predicted lemmas and the kind are read from val and test; the gold of val is read for tuning and the recall only.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from ucdcr.errors import UcdcrError
from ucdcr.systems.framework.base import SplitData, System
from ucdcr.systems.parts.candidates import (
    Candidates,
    LinkRecall,
    blended_scores,
    candidate_pairs,
    candidate_union,
    coreferent_lemma_pairs,
    link_recall,
    ranked_candidates,
    same_document_candidates,
)
from ucdcr.systems.parts.clustering import (
    COARSE,
    Dendrogram,
    average_linkage,
    cut_by_kind,
    tune_cut,
)
from ucdcr.systems.parts.features import tune_document_threshold, unit_documents
from ucdcr.systems.parts.latent import LatentSpace, fit_latent_space
from ucdcr.systems.parts.mention_encoder import MentionEncoderConfig, MentionSpace, train_mention_space
from ucdcr.systems.parts.pair_encoder import (
    Encoder,
    MarkedMention,
    PairEncoderConfig,
    TrainedModel,
    TrainingExamples,
    cached_scores,
    load_encoder,
    marked_mentions,
    train_model,
)
from ucdcr.systems.reference.pairwise import Pairwise

TRAINING_UNIT = "topic_id"
DOCUMENT_WEIGHTS = (1.0, 0.5, 0.0)
"""The weights of a pair's score across two predicted document clusters, tried on val (module docstring)."""
CANDIDATE_SOURCES = ("rules", "pairwise", "ranked")
SPACES = ("encoder", "lda")
"""The mention spaces whose cosine ranks ``ranked`` candidates: a fine-tuned mention encoder
(:mod:`ucdcr.systems.parts.mention_encoder`) or ``knn-ce``'s linear discriminant (:mod:`ucdcr.systems.parts.latent`)."""
FILL_DISTANCES = (1.0, 0.9, 0.8, 0.7)
"""The distances of a pair that is not a candidate inside one predicted document cluster, tried on val."""


@dataclass(frozen=True)
class CrossEncoderOptions:
    """The system's options: the pair encoder's (:class:`~ucdcr.systems.parts.pair_encoder.PairEncoderConfig`) and the
    candidates' ``neighbours`` (nearest mentions kept per mention) and ``limit`` (lemma-rule partners kept per
    mention), :mod:`ucdcr.systems.parts.candidates`."""

    encoder: PairEncoderConfig = field(default_factory=PairEncoderConfig)
    neighbours: int = 5
    limit: int = 15
    candidates: str = "ranked"
    """How val's and test's candidates are found (module docstring, "Candidates at val and test"): ``ranked`` (the
    default since version 5: each mention's ``same_document`` best partners in its document, its ``top`` best in its
    unit, then the split's best pairs up to ``per_row`` per mention, by pairwise's P blended with the cosine in a
    mention space, ``space``, at ``latent_weight``), ``pairwise`` (version 4's: the rules' pairs, then pairs ranked by
    pairwise's P alone) or ``rules`` (the lemma and neighbour rules above alone, version 3's). The training pairs come
    from the rules in every case, so one trained model serves all three."""
    top: int = 4
    per_row: float = 13.5
    same_document: int = 3
    latent_weight: float = 0.7
    """``top``, ``same_document`` and ``latent_weight``: chosen on the five datasets' val splits by a rule fixed
    before the grid was read (docs/benchmark-internals.md, "How the defaults were chosen")."""
    space: str = "encoder"
    """The mention space of ``ranked`` candidates (:data:`SPACES`)."""
    mention_encoder: MentionEncoderConfig = field(default_factory=MentionEncoderConfig)
    """How the mention encoder of ``space="encoder"`` learns; its encoder, seed and device are ``encoder``'s."""
    both_orders: bool = True
    """Score each candidate pair in both orders and average the two P (val: 75.77 against 75.20 in one order)."""
    averaged_with: tuple[CrossEncoderOptions, ...] = ()
    """Further models (a committee), each trained with its own options; a pair's P(coreferent) is the mean over the
    models that have it as a candidate (module docstring)."""

    def __post_init__(self) -> None:
        for name in ("neighbours", "limit", "top", "per_row", "same_document"):
            if getattr(self, name) < 0:
                raise UcdcrError(f"cross-encoder option {name} must be at least 0, not {getattr(self, name)}")
        if not 0 <= self.latent_weight <= 1:
            raise UcdcrError(f"cross-encoder option latent_weight must be between 0 and 1, not {self.latent_weight}")
        if self.space not in SPACES:
            raise UcdcrError(f"cross-encoder option space must be one of {', '.join(SPACES)}, not {self.space!r}")
        if self.candidates not in CANDIDATE_SOURCES:
            raise UcdcrError(
                f"cross-encoder option candidates must be one of {', '.join(CANDIDATE_SOURCES)}, "
                f"not {self.candidates!r}"
            )
        if not self.averaged_with:
            return
        if any(member.averaged_with for member in self.averaged_with):
            raise UcdcrError("cross-encoder option averaged_with: a model averaged with others has none of its own")
        models = [self.single(), *self.averaged_with]
        if len(set(models)) < len(models):
            raise UcdcrError("cross-encoder option averaged_with: two models of the committee have the same options")

    def seeded(self, seed: int) -> CrossEncoderOptions:
        """These options for a run's seed: the encoder's seed moved by ``seed`` (0: unchanged)."""
        return replace(self, encoder=replace(self.encoder, seed=self.encoder.seed + seed)) if seed else self

    def single(self) -> CrossEncoderOptions:
        """These options without the committee: one model's."""
        return replace(self, averaged_with=())


COMMITTEE = CrossEncoderOptions(
    averaged_with=(
        CrossEncoderOptions(encoder=PairEncoderConfig(seed=1)),
        CrossEncoderOptions(neighbours=20, limit=30),
    )
)
"""Three models averaged (module docstring): the default, the default with seed 1, the default on wider candidates."""


class CrossEncoder(System):
    """A fine-tuned transformer over marked mention pairs + average linkage, thresholds tuned on val."""

    name = "cross-encoder"
    trainable = True
    uses_gpu = True  # the pair encoder trains and scores on a GPU where torch sees one
    needs_encoder = True
    version = "5"

    def __init__(self, options: CrossEncoderOptions | None = None) -> None:
        self.options = options or CrossEncoderOptions()
        self.members = [CrossEncoder(member) for member in self.options.averaged_with]
        self.lemma_pairs: frozenset[tuple[str, str]] = frozenset()
        self.trained: TrainedModel | None = None
        self.training_pairs = (0, 0)
        self.recall = LinkRecall(0, 0, 0)
        self.val_pairs = 0
        self.ranker: Pairwise | None = None
        self.space: LatentSpace | MentionSpace | None = None
        self.document_threshold, self.document_agreement = 1.0, 0.0
        self.weight, self.fill = DOCUMENT_WEIGHTS[0], FILL_DISTANCES[0]
        self.threshold = COARSE[0]
        self.thresholds: dict[str, float] = {}
        self.val_score = 0.0

    def fit(self, train: Sequence[SplitData], val: SplitData) -> None:
        if not train:
            raise UcdcrError("cross-encoder: no training split")
        for model in (self, *self.members):
            model.options = model.options.seeded(self.seed)
            model._train(train, val)
        if any(model.options.candidates != "rules" for model in (self, *self.members)):
            ranker = self.ranker or Pairwise()
            if self.ranker is None:  # a system around this one (the ensemble) may hand in its own, fitted alike
                ranker.seed = self.seed
                ranker.fit(train, val)
            latent = any(model.options.candidates == "ranked" for model in (self, *self.members))
            space = self._fit_space(train, val) if latent else None
            for model in (self, *self.members):
                model.ranker, model.space = ranker, space
        self.document_threshold, self.document_agreement = tune_document_threshold(train)
        union = self._candidate_union(val)
        self.recall, self.val_pairs = link_recall(val, union), sum(len(group) for group in union)
        settings = list(itertools.product(DOCUMENT_WEIGHTS, FILL_DISTANCES))
        tuned = tune_cut(val, settings, partial(self._dendrograms, val))
        (self.weight, self.fill), self.threshold, self.thresholds = tuned.option, tuned.threshold, tuned.thresholds
        self.val_score = tuned.score

    def _fit_space(self, train: Sequence[SplitData], val: SplitData) -> LatentSpace | MentionSpace:
        """The mention space of ranked candidates (``options.space``), fitted on the training splits."""
        if self.options.space == "lda":
            return fit_latent_space(train)
        return train_mention_space(train, self.options.encoder, self.options.mention_encoder, val.cache_dir)

    def _train(self, train: Sequence[SplitData], val: SplitData) -> None:
        """Steps 1-2 of the module docstring for this model alone (a committee's members: each its own model)."""
        self.lemma_pairs = coreferent_lemma_pairs(train)
        encoder = load_encoder(self.options.encoder)
        examples = self._training_examples(train, encoder)
        if not 0 < int(examples.labels.sum()) < len(examples.labels):
            raise UcdcrError(f"{', '.join(data.dataset for data in train)}: no coreferent and non-coreferent pairs")
        self.training_pairs = (len(examples.labels), int(examples.labels.sum()))
        source = "+".join(f"{data.dataset} {data.split}" for data in train)
        self.trained = train_model(encoder, examples, self.options.encoder, val.cache_dir, f"cross-encoder {source}")

    def predict(self, test: SplitData) -> Mapping[str, Hashable]:
        trees = self._dendrograms(test, (self.weight, self.fill))
        labels = cut_by_kind(test, trees, self.thresholds, self.threshold)
        return dict(zip(test.column("mention_id"), labels, strict=True))

    def describe(self) -> str:
        if self.trained is None:
            return ""
        recall = self.recall
        thresholds = ", ".join(f"{kind} {value:g}" for kind, value in self.thresholds.items())
        models = "; ".join(model._model_description(bool(self.members)) for model in (self, *self.members))
        committee = f"the mean of {1 + len(self.members)} models: " if self.members else ""
        return (
            f"{committee}{models}; {self._candidate_description()}{self.val_pairs:,} candidate pairs on val keep "
            f"{recall.share(recall.kept):.1%} of its gold links and reach "
            f"{recall.share(recall.reachable):.1%} through kept links; document clusters at "
            f"distance {self.document_threshold:g} (ARI {self.document_agreement:.2f} on train), weight across them "
            f"{self.weight:g}, a non-candidate inside one at distance {self.fill:g}; distance thresholds "
            f"{thresholds or f'{self.threshold:g}'} (val CoNLL F1 {self.val_score:.2f})"
        )

    def _candidate_description(self) -> str:
        """How val's and test's candidates are found, where they are ranked (the rules go without saying)."""
        options = self.options
        if options.candidates == "pairwise":
            return (
                f"candidates: the rules' pairs, each mention's top {options.top} by pairwise's P and the best P to "
                f"{options.per_row:g} pairs per mention: "
            )
        if options.candidates == "ranked":
            space = self.space.describe() if isinstance(self.space, MentionSpace) else "a linear discriminant space"
            return (
                f"candidates by pairwise's P blended with the cosine of {space} (weight {options.latent_weight:g}): "
                f"each mention's top {options.same_document} in its document and top {options.top} in its unit, then "
                f"the best to {options.per_row:g} pairs per mention: "
            )
        return ""

    def _model_description(self, with_options: bool) -> str:
        """The trained model, and with ``with_options`` its candidates and seed (a committee's models differ there)."""
        assert self.trained is not None, "fit() first"
        config = self.trained.config
        seconds = sum(self.trained.seconds)
        trained = "read from the model cache" if self.trained.cached else f"trained in {seconds / 60:.1f} min"
        options = self.options
        own = f" (neighbours {options.neighbours}, limit {options.limit}, seed {config.seed})" if with_options else ""
        return (
            f"{encoder_description(config)} fine-tuned on {self.training_pairs[0]:,} candidate pairs "
            f"({self.training_pairs[1]:,} coreferent){own}, {config.epochs} epoch{'' if config.epochs == 1 else 's'} "
            f"of {config.pairs_per_epoch:,} at learning rate {config.learning_rate:g}, {trained}"
        )

    def _candidates(self, data: SplitData, column: str | None = None) -> list[Candidates]:
        """The rules' pairs on train (``column``: its gold topics); val's and test's by ``options.candidates``."""
        options = self.options
        rules = partial(candidate_pairs, data, self.lemma_pairs, options.neighbours, options.limit)
        if options.candidates == "rules" or column is not None:
            return rules(column)
        assert self.ranker is not None, "fit() first"
        probabilities = self.ranker.probabilities(data)
        if options.candidates == "pairwise":
            return ranked_candidates(probabilities, options.top, options.per_row, rules())
        assert self.space is not None, "fit() first"
        scores = blended_scores(probabilities, self.space.memo_vectors(data), options.latent_weight)
        given = same_document_candidates(scores, data.column("doc_id"), options.same_document)
        return ranked_candidates(scores, options.top, options.per_row, given)

    def _training_examples(self, train: Sequence[SplitData], encoder: Encoder) -> TrainingExamples:
        pairs: list[tuple[MarkedMention, MarkedMention]] = []
        labels: list[np.ndarray] = []
        for data in train:
            marked = marked_mentions(data, encoder, self.options.encoder)
            chains = np.array(data.column("coref_chain"), dtype=object)
            for group in self._candidates(data, TRAINING_UNIT):
                first, second = group.row_pairs()
                labels.append((chains[first] == chains[second]).astype(np.int8))
                pairs += [(marked[a], marked[b]) for a, b in zip(first.tolist(), second.tolist(), strict=True)]
        swap = np.random.default_rng(self.options.encoder.seed).random(len(pairs)) < 0.5
        pairs = [(b, a) if flip else (a, b) for (a, b), flip in zip(pairs, swap.tolist(), strict=True)]
        return TrainingExamples(pairs, np.concatenate(labels) if labels else np.zeros(0, dtype=np.int8))

    def _scored(self, data: SplitData) -> ScoredPairs:
        """The candidates of the run's units of a split and their P(coreferent) (once per split and model)."""
        assert self.trained is not None, "fit() first"
        trained = self.trained

        def compute() -> ScoredPairs:
            candidates = self._candidates(data)
            marked = marked_mentions(data, trained.encoder, self.options.encoder)
            pairs = [
                (marked[a], marked[b])
                for group in candidates
                for a, b in zip(*(side.tolist() for side in group.row_pairs()), strict=True)
            ]
            scores = cached_scores(trained, pairs, data.cache_dir)
            if self.options.both_orders:
                scores = (scores + cached_scores(trained, [(b, a) for a, b in pairs], data.cache_dir)) / 2
            return ScoredPairs(candidates, scores)

        lemmas = hashlib.sha256(json.dumps(sorted(self.lemma_pairs)).encode()).hexdigest()
        return data.memo(f"cross-encoder-scores:{trained.key}:{self.options.single()}:{lemmas}", compute)

    def _candidate_union(self, data: SplitData) -> list[Candidates]:
        """The candidates of the run's units of a split that at least one model of the committee scores."""
        by_rows: dict[tuple[int, ...], list[Candidates]] = {}
        for model in (self, *self.members):
            for group in model._scored(data).candidates:
                by_rows.setdefault(tuple(group.rows), []).append(group)
        return [candidate_union(groups) for groups in by_rows.values()]

    def probabilities(self, data: SplitData) -> list[tuple[list[int], np.ndarray | None]]:
        """Per unit and kind of ``data`` (in :meth:`SplitData.units` order): its rows and P(coreferent) of every
        pair in condensed order, NaN for a pair that no model scored (None for a unit of one row); with a committee,
        the mean of the P of the models that scored the pair."""
        own = self._own_probabilities(data)
        if not self.members:
            return own
        each = [own, *(member._own_probabilities(data) for member in self.members)]
        result: list[tuple[list[int], np.ndarray | None]] = []
        for units in zip(*each, strict=True):
            scored = [probability for _, probability in units if probability is not None]
            result.append((units[0][0], mean_of_scored(scored) if scored else None))
        return result

    def _own_probabilities(self, data: SplitData) -> list[tuple[list[int], np.ndarray | None]]:
        """:meth:`probabilities` of this model alone."""
        scored = self._scored(data)
        by_rows = {tuple(group.rows): group for group in scored.candidates}
        result: list[tuple[list[int], np.ndarray | None]] = []
        offset = 0
        for rows in data.units(by_type=True):
            group = by_rows.get(tuple(rows))
            if group is None:
                result.append((rows, None))
                continue
            matrix = np.full((len(rows), len(rows)), np.nan)
            matrix[group.first, group.second] = scored.scores[offset : offset + len(group)]
            offset += len(group)
            result.append((rows, matrix[np.triu_indices(len(rows), 1)]))
        return result

    def distances(
        self, data: SplitData, setting: tuple[float, float] | None = None
    ) -> list[tuple[list[int], np.ndarray | None]]:
        """Per unit and kind of ``data`` (in :meth:`SplitData.units` order): its rows and the distances this system
        clusters with, condensed (module docstring, step 4; None for a unit of one row), with a (weight, fill)
        ``setting``, by default the one tuned on val."""
        weight, fill = setting or (self.weight, self.fill)
        documents = unit_documents(data).clusters(self.document_threshold)
        result: list[tuple[list[int], np.ndarray | None]] = []
        for rows, probability in self.probabilities(data):
            if probability is None:
                result.append((rows, None))
                continue
            first, second = np.triu_indices(len(rows), 1)
            own = documents[rows]
            result.append((rows, pair_distances(probability, own[first] != own[second], weight, fill)))
        return result

    def _dendrograms(self, data: SplitData, setting: tuple[float, float]) -> list[Dendrogram]:
        """Average-linkage trees of every unit and kind with a (weight, fill) setting (module docstring, step 4)."""
        return [
            Dendrogram(rows, None) if distance is None else average_linkage(rows, distance)
            for rows, distance in self.distances(data, setting)
        ]


class CrossEncoderCommittee(CrossEncoder):
    """``cross-encoder`` with the three models of :data:`COMMITTEE` (another committee by ``options``)."""

    name = "cross-encoder-3"

    def __init__(self, options: CrossEncoderOptions | None = None) -> None:
        super().__init__(options or COMMITTEE)


def encoder_description(config: PairEncoderConfig) -> str:
    """The encoder as the models table names it, with the layers kept and frozen and the attention dropout where
    those options are set: ``all-MiniLM-L6-v2 (its lower 4 layers; the lower 2 frozen; attention dropout 0)``."""
    options = [] if config.layers is None else [f"its lower {config.layers} layers"]
    options += [f"the lower {config.frozen_layers} frozen"] if config.frozen_layers else []
    options += [] if config.attention_dropout is None else [f"attention dropout {config.attention_dropout:g}"]
    return f"{config.encoder} ({'; '.join(options)})" if options else config.encoder


def pair_distances(probability: np.ndarray, across: np.ndarray, weight: float, fill: float) -> np.ndarray:
    """Each pair's distance from its P(coreferent) (NaN: not a candidate) and whether it crosses two document
    clusters: 1 - P, times ``weight`` across; ``fill`` for a non-candidate inside one cluster, 1 across."""
    scored = 1.0 - np.nan_to_num(probability) * np.where(across, weight, 1.0)
    return np.where(np.isnan(probability) & ~across, fill, scored)


def mean_of_scored(probabilities: Sequence[np.ndarray]) -> np.ndarray:
    """Per pair, the mean of the models' P(coreferent) that are not NaN (NaN where every model's is)."""
    stacked = np.vstack(probabilities)
    scored = ~np.isnan(stacked)
    count = scored.sum(axis=0)
    total = np.where(scored, stacked, 0.0).sum(axis=0)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


@dataclass(frozen=True)
class ScoredPairs:
    """The candidates of a split's units and the P(coreferent) of each pair, in the candidates' order."""

    candidates: list[Candidates]
    scores: np.ndarray
