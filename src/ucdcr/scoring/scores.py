"""Scoring entry points over clusters of mention ids: one document, or many documents micro-averaged (as v8.01).

A *document* is a pair ``(key_clusters, response_clusters)``; clusters are iterables of hashable mention ids
(strings, ``(start, end)`` spans, ...). Mentions of different documents never interact: each document is identified
and scored on its own and the numerator/denominator counts are summed over documents before recall, precision and
F1 are derived. A key document without a response is scored against an empty response; with no documents at all,
each metric gives its counts on an empty document (all zero). The metrics and their names come from
:data:`~ucdcr.scoring.metrics.METRIC_TABLE`; :class:`Scores` holds one run's results.

Options every entry point takes (keywords):

- ``remove_singletons``: coval's ``remove_singletons``: in every document, each chain of the key and of the response
  with exactly one mention (counted with repeated spans, as written) is removed before mention identification;
  the numbers removed are in ``Scores.removed_singletons``. ``ucdcr export conll --remove-singletons`` writes what
  this rule keeps (:func:`drop_singletons` is the one rule).
- ``per_document``: also keep every document's own scores in ``Scores.by_document``.
- ``with_units``: also keep the counts per unit in ``Scores.units``, what confidence intervals resample
  (:mod:`ucdcr.scoring.bootstrap`): the documents, or with a single document its parts that no key or response
  chain crosses.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from ucdcr.errors import FormatError
from ucdcr.formats.conll2012 import ConllFile, read_conll
from ucdcr.scoring.bootstrap import RESAMPLES, Interval, UnitCounts, document_units, intervals, unit_counts
from ucdcr.scoring.mentions import identify_mentions
from ucdcr.scoring.metric_score import MetricScore, truncate_percent
from ucdcr.scoring.metrics import ALL, CONLL, METRIC_BY_NAME, METRIC_CHOICES, METRICS, DocumentOverlap, Metric

Clusters = Iterable[Iterable[Hashable]]
Item = TypeVar("Item")

REPEAT_LIMIT = 10
"""v8.01 refuses to score when more than this many repeated response mentions are removed; ucdcr only warns."""


def resolve_metrics(names: str | Sequence[str]) -> tuple[str, ...]:
    """Expand ``all`` and ``conll`` and validate metric names; returns them in v8.01's print order."""
    requested = [names] if isinstance(names, str) else list(names)
    wanted: set[str] = set()
    for name in (requested_name.lower() for requested_name in requested):
        if name == ALL:
            wanted.update(METRICS)
        elif name == CONLL.name:
            wanted.update(metric.name for metric in CONLL.parts)
        elif name in METRIC_BY_NAME:
            wanted.add(name)
        else:
            raise ValueError(f"unknown metric {name!r}; valid metrics: {', '.join(METRIC_CHOICES)}")
    return tuple(name for name in METRICS if name in wanted)


def drop_singletons(chains: Iterable[Iterable[Item]]) -> tuple[list[list[Item]], int]:
    """coval's singleton removal on one document: the chains that do not have exactly one mention (repeated spans
    counted, as coval counts them), and how many chains were removed."""
    kept: list[list[Item]] = []
    removed = 0
    for chain in map(list, chains):
        if len(chain) == 1:
            removed += 1
        else:
            kept.append(chain)
    return kept, removed


def asks_for_conll(names: Sequence[str]) -> bool:
    """Whether the requested names include the CoNLL F1 (``all`` or ``conll``)."""
    return any(name.lower() in (ALL, CONLL.name) for name in names)


@dataclass(frozen=True)
class Scores(Mapping[str, MetricScore]):
    """Results of one scoring run: ``scores["muc"]`` etc., the mention identification counts and diagnostics.

    ``repeated_response_mentions`` counts response mentions removed because their span already occurred in the
    response and matched a key mention (v8.01 removes them too, and refuses to score above 10: ucdcr warns).
    ``repeated_key_mentions`` counts extra occurrences of key mentions (kept in their chains, as v8.01), and
    ``repeated_twinless_mentions`` extra occurrences of response mentions not in the key (kept too, as v8.01).
    ``warnings`` holds human-readable notes about both and about missing or extra documents.
    """

    metrics: Mapping[str, MetricScore]
    mentions: MetricScore = field(default_factory=MetricScore)
    documents: int = 0
    repeated_response_mentions: int = 0
    repeated_key_mentions: int = 0
    repeated_twinless_mentions: int = 0
    missing_documents: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    removed_singletons: tuple[int, int] | None = None
    """Chains removed as singletons from the key and from the response; None when singletons were kept."""
    by_document: Mapping[str, Scores] = field(default_factory=dict)
    """Every document's own scores, by name, when asked (``per_document``)."""
    units: UnitCounts | None = None
    """The counts per unit, when asked (``with_units``; module docstring)."""

    def __getitem__(self, metric: str) -> MetricScore:
        return self.metrics[metric]

    @property
    def unit_kind(self) -> str:
        """What :attr:`units` are: the documents, or with one document its parts that no key or response chain
        crosses."""
        return "documents" if self.documents > 1 else "parts of the document that no key or response chain crosses"

    def intervals(self, resamples: int = RESAMPLES) -> dict[str, Interval]:
        """The 95% bootstrap interval over :attr:`units` of each metric's F1 (by metric name), of the CoNLL F1
        (``conll``) and of each metric's recall and precision (``<metric>/R``, ``<metric>/P``), in percent; BLANC
        has none. Needs the units (``with_units=True``); {} with fewer than two units or ``resamples`` 0."""
        if self.units is None:
            raise ValueError("these scores were computed without their units: score with with_units=True")
        return intervals(self.units, resamples)

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    @property
    def conll_f1(self) -> float:
        """Unweighted mean of the MUC, B3 and CEAFe F1 as a fraction in [0, 1] (exact, not of the truncated printed
        values); :attr:`conll_f1_percent` is the percentage the tables print."""
        return CONLL.f1(self.metrics)

    @property
    def conll_f1_percent(self) -> float:
        """The CoNLL F1 as ``ucdcr score`` and every table print it: a percentage truncated to two decimals."""
        return truncate_percent(self.conll_f1)

    def as_dict(self) -> dict[str, object]:
        """Everything as plain JSON-ready values."""
        result: dict[str, object] = {
            "documents": self.documents,
            "mentions": self.mentions.as_dict(),
            "metrics": {name: score.as_dict() for name, score in self.metrics.items()},
        }
        if all(metric.name in self.metrics for metric in CONLL.parts):
            result["conll_f1"] = self.conll_f1
            result["conll_f1_percent"] = self.conll_f1_percent
        result["repeated_response_mentions"] = self.repeated_response_mentions
        result["repeated_key_mentions"] = self.repeated_key_mentions
        result["repeated_twinless_mentions"] = self.repeated_twinless_mentions
        result["missing_documents"] = list(self.missing_documents)
        if self.removed_singletons is not None:
            result["removed_singletons"] = dict(zip(("key", "response"), self.removed_singletons, strict=True))
        result["warnings"] = list(self.warnings)
        if self.by_document:
            result["per_document"] = {
                name: {key: value for key, value in scores.as_dict().items() if key in _DOCUMENT_FIELDS}
                for name, scores in self.by_document.items()
            }
        return result


_DOCUMENT_FIELDS = ("mentions", "metrics", "conll_f1", "removed_singletons")
"""What ``as_dict`` gives of each document of ``Scores.by_document``."""


def score_clusters(
    key: Clusters, response: Clusters, metrics: str | Sequence[str] = ALL, remove_singletons: bool = False
) -> Scores:
    """Score one document (or one cross-document pseudo-document) of key and response clusters."""
    return score_documents({"document": (key, response)}, metrics, remove_singletons=remove_singletons)


def score_documents(
    documents: Mapping[str, tuple[Clusters, Clusters | None]],
    metrics: str | Sequence[str] = ALL,
    remove_singletons: bool = False,
    per_document: bool = False,
    with_units: bool = False,
) -> Scores:
    """Score several documents: counts summed over documents, then R/P/F1 (micro-average, as v8.01).

    A response of ``None`` marks a document missing from the response (scored as empty, listed in
    ``Scores.missing_documents``). ``remove_singletons``, ``per_document`` and ``with_units``: see the module
    docstring.
    """
    selected = [METRIC_BY_NAME[name] for name in resolve_metrics(metrics)]
    totals: dict[str, MetricScore] = {}
    mentions = MetricScore()
    repeated_response = repeated_key = repeated_twinless = removed_key = removed_response = 0
    missing: list[str] = []
    by_document: dict[str, Scores] = {}
    units: UnitCounts | None = None
    one_document_units = with_units and len(documents) == 1  # the units: the parts of the document
    for doc_name, (given_key, given_response) in documents.items():
        if given_response is None:
            missing.append(doc_name)
        key, response = given_key, given_response or ()
        if one_document_units:  # read twice: scored, then split into parts (singletons still in)
            whole = ([list(chain) for chain in key], [list(chain) for chain in response])
            key, response = whole
        doc_removed: tuple[int, int] | None = None
        if remove_singletons:
            (key, key_removed), (response, response_removed) = drop_singletons(key), drop_singletons(response)
            doc_removed = (key_removed, response_removed)
            removed_key, removed_response = removed_key + key_removed, removed_response + response_removed
        doc = identify_mentions(key, response)
        overlap = DocumentOverlap(doc)
        mentions = mentions + doc.identification
        repeated_response += doc.repeated_response
        repeated_key += doc.repeated_key
        repeated_twinless += doc.repeated_twinless
        doc_scores = {metric.name: metric.function(overlap) for metric in selected}
        for name, score in doc_scores.items():
            totals[name] = totals[name] + score if name in totals else score
        if one_document_units:
            units = document_units(overlap, selected, *whole)
        if per_document or (with_units and not one_document_units):
            by_document[doc_name] = Scores(doc_scores, doc.identification, documents=1, removed_singletons=doc_removed)
    if with_units and not one_document_units:
        names = [metric.name for metric in selected]
        units = unit_counts({name: {m: by_document[name][m] for m in names} for name in documents})
    if not per_document:
        by_document = {}
    return Scores(
        metrics={metric.name: totals[metric.name] for metric in selected} if documents else _nothing_scored(selected),
        mentions=mentions,
        documents=len(documents),
        repeated_response_mentions=repeated_response,
        repeated_key_mentions=repeated_key,
        repeated_twinless_mentions=repeated_twinless,
        missing_documents=tuple(missing),
        warnings=tuple(_warnings(repeated_response, repeated_key, repeated_twinless, missing)),
        removed_singletons=(removed_key, removed_response) if remove_singletons else None,
        by_document=by_document,
        units=units,
    )


def _nothing_scored(metrics: Sequence[Metric]) -> dict[str, MetricScore]:
    """Each metric's score when there are no documents: its counts on an empty document (all zero)."""
    empty = DocumentOverlap(identify_mentions((), ()))
    return {metric.name: metric.function(empty) for metric in metrics}


def _warnings(repeated_response: int, repeated_key: int, repeated_twinless: int, missing: list[str]) -> list[str]:
    notes = []
    if repeated_response:
        note = f"{repeated_response} repeated response mention(s) matching a key mention were removed (kept the first)"
        if repeated_response > REPEAT_LIMIT:
            note += f"; the reference scorer v8.01 would refuse to score more than {REPEAT_LIMIT}"
        notes.append(note)
    if repeated_key:
        notes.append(f"{repeated_key} repeated key mention(s): each occurrence stays in its chain (as v8.01)")
    if repeated_twinless:
        notes.append(
            f"{repeated_twinless} repeated response mention(s) not in the key: each occurrence stays (as v8.01)"
        )
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        notes.append(f"{len(missing)} key document(s) missing from the response, scored as empty: {shown}")
    return notes


def check_token_counts(key: ConllFile, response: ConllFile) -> None:
    """Raise if a document present in both files has different token counts."""
    for name, key_doc in key.documents.items():
        response_doc = response.documents.get(name)
        if response_doc is not None and response_doc.n_tokens != key_doc.n_tokens:
            raise FormatError(
                response.path,
                f"document {name!r} has {response_doc.n_tokens} tokens in the response but {key_doc.n_tokens} "
                f"in the key ({key.path}:{key_doc.line}); key and response must have the same tokens",
                response_doc.line,
            )


def score_files(
    key_path: str | Path,
    response_path: str | Path,
    metrics: str | Sequence[str] = ALL,
    remove_singletons: bool = False,
    per_document: bool = False,
    with_units: bool = False,
) -> Scores:
    """Score a CoNLL-2012 response file against a key file: the key's documents, matched by name, as v8.01.

    Response documents absent from the key are ignored (and noted in ``Scores.warnings``). ``remove_singletons``,
    ``per_document`` and ``with_units``: see the module docstring.
    """
    key, response = read_conll(key_path), read_conll(response_path)
    check_token_counts(key, response)
    documents = {
        name: (doc.clusters, response.documents[name].clusters if name in response.documents else None)
        for name, doc in key.documents.items()
    }
    scores = score_documents(
        documents, metrics, remove_singletons=remove_singletons, per_document=per_document, with_units=with_units
    )
    extra = [name for name in response.documents if name not in key.documents]
    notes = [*key.warnings, *response.warnings, *scores.warnings]
    if extra:
        notes.append(f"{len(extra)} response document(s) not in the key were ignored: {', '.join(extra[:5])}")
    return replace(scores, warnings=tuple(notes))
