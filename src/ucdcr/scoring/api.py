"""Scoring entry points over clusters of mention ids: one document, or many documents micro-averaged (as v8.01).

A *document* is a pair ``(key_clusters, response_clusters)``; clusters are iterables of hashable mention ids
(strings, ``(start, end)`` spans, ...). Mentions of different documents never interact: each document is identified
and scored on its own and the numerator/denominator counts are summed over documents before recall, precision and
F1 are derived. A key document without a response is scored against an empty response; with no documents at all,
each metric gives its counts on an empty document (all zero). The metrics and their names come from
:data:`~ucdcr.scoring.metrics.METRIC_TABLE`; :class:`Scores` holds one run's results.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ucdcr.errors import FormatError
from ucdcr.formats.conll2012 import ConllFile, read_conll
from ucdcr.scoring.mentions import identify_mentions
from ucdcr.scoring.metrics import ALL, CONLL, METRIC_BY_NAME, METRIC_CHOICES, METRICS, DocumentOverlap, Metric
from ucdcr.scoring.results import MetricScore

Clusters = Iterable[Iterable[Hashable]]

REPEAT_LIMIT = 10
"""v8.01 refuses to score when more than this many repeated response mentions are removed; ucdcr only warns."""


def resolve_metrics(names: str | Sequence[str]) -> tuple[str, ...]:
    """Expand ``all`` and ``conll`` and validate metric names; returns them in v8.01's print order."""
    requested = [names] if isinstance(names, str) else list(names)
    wanted: set[str] = set()
    for name in requested:
        name = name.lower()
        if name == ALL:
            wanted.update(METRICS)
        elif name == CONLL.name:
            wanted.update(metric.name for metric in CONLL.parts)
        elif name in METRIC_BY_NAME:
            wanted.add(name)
        else:
            raise ValueError(f"unknown metric {name!r}; valid metrics: {', '.join(METRIC_CHOICES)}")
    return tuple(name for name in METRICS if name in wanted)


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

    def __getitem__(self, metric: str) -> MetricScore:
        return self.metrics[metric]

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    @property
    def conll_f1(self) -> float:
        """Unweighted mean of the MUC, B3 and CEAFe F1 (exact, not of the truncated printed values)."""
        return CONLL.f1(self.metrics)

    def as_dict(self) -> dict[str, object]:
        """Everything as plain JSON-ready values."""
        result: dict[str, object] = {
            "documents": self.documents,
            "mentions": self.mentions.as_dict(),
            "metrics": {name: score.as_dict() for name, score in self.metrics.items()},
        }
        if all(metric.name in self.metrics for metric in CONLL.parts):
            result["conll_f1"] = self.conll_f1
        result["repeated_response_mentions"] = self.repeated_response_mentions
        result["repeated_key_mentions"] = self.repeated_key_mentions
        result["repeated_twinless_mentions"] = self.repeated_twinless_mentions
        result["missing_documents"] = list(self.missing_documents)
        result["warnings"] = list(self.warnings)
        return result


def score_clusters(key: Clusters, response: Clusters, metrics: str | Sequence[str] = "all") -> Scores:
    """Score one document (or one cross-document pseudo-document) of key and response clusters."""
    return score_documents({"document": (key, response)}, metrics)


def score_documents(
    documents: Mapping[str, tuple[Clusters, Clusters | None]],
    metrics: str | Sequence[str] = "all",
) -> Scores:
    """Score several documents: counts summed over documents, then R/P/F1 (micro-average, as v8.01).

    A response of ``None`` marks a document missing from the response (scored as empty, listed in
    ``Scores.missing_documents``).
    """
    selected = [METRIC_BY_NAME[name] for name in resolve_metrics(metrics)]
    totals: dict[str, MetricScore] = {}
    mentions = MetricScore()
    repeated_response = repeated_key = repeated_twinless = 0
    missing: list[str] = []
    for doc_name, (key, response) in documents.items():
        if response is None:
            missing.append(doc_name)
            response = ()
        doc = identify_mentions(key, response)
        overlap = DocumentOverlap(doc)
        mentions = mentions + doc.identification
        repeated_response += doc.repeated_response
        repeated_key += doc.repeated_key
        repeated_twinless += doc.repeated_twinless
        for metric in selected:
            score = metric.function(overlap)
            totals[metric.name] = totals[metric.name] + score if metric.name in totals else score
    return Scores(
        metrics={metric.name: totals[metric.name] for metric in selected} if documents else _nothing_scored(selected),
        mentions=mentions,
        documents=len(documents),
        repeated_response_mentions=repeated_response,
        repeated_key_mentions=repeated_key,
        repeated_twinless_mentions=repeated_twinless,
        missing_documents=tuple(missing),
        warnings=tuple(_warnings(repeated_response, repeated_key, repeated_twinless, missing)),
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


def score_files(key_path: str | Path, response_path: str | Path, metrics: str | Sequence[str] = "all") -> Scores:
    """Score a CoNLL-2012 response file against a key file: the key's documents, matched by name, as v8.01.

    Response documents absent from the key are ignored (and noted in ``Scores.warnings``).
    """
    key, response = read_conll(key_path), read_conll(response_path)
    check_token_counts(key, response)
    documents = {
        name: (doc.clusters, response.documents[name].clusters if name in response.documents else None)
        for name, doc in key.documents.items()
    }
    scores = score_documents(documents, metrics)
    extra = [name for name in response.documents if name not in key.documents]
    notes = [*key.warnings, *response.warnings, *scores.warnings]
    if extra:
        notes.append(f"{len(extra)} response document(s) not in the key were ignored: {', '.join(extra[:5])}")
    return replace(scores, warnings=tuple(notes))
