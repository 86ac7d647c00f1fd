"""Scoring entry points over clusters of mention ids: one document, or many documents micro-averaged (as v8.01).

A *document* is a pair ``(key_clusters, response_clusters)``; clusters are iterables of hashable mention ids
(strings, ``(start, end)`` spans, ...). Mentions of different documents never interact: each document is identified
and scored on its own and the numerator/denominator counts are summed over documents before recall, precision and
F1 are derived. A key document without a response is scored against an empty response.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ucdcr.scoring.conll import check_token_counts, read_conll
from ucdcr.scoring.mentions import identify_mentions
from ucdcr.scoring.metrics import METRIC_FUNCTIONS, DocumentOverlap
from ucdcr.scoring.results import CONLL_METRICS, METRICS, BlancScore, MetricScore, Scores

Clusters = Iterable[Iterable[Hashable]]

REPEAT_LIMIT = 10
"""v8.01 refuses to score when more than this many repeated response mentions are removed; ucdcr only warns."""


def resolve_metrics(names: str | Sequence[str]) -> tuple[str, ...]:
    """Expand ``all`` and ``conll`` and validate metric names; returns them in v8.01's print order."""
    requested = [names] if isinstance(names, str) else list(names)
    wanted: set[str] = set()
    for name in requested:
        name = name.lower()
        if name == "all":
            wanted.update(METRICS)
        elif name == "conll":
            wanted.update(CONLL_METRICS)
        elif name in METRICS:
            wanted.add(name)
        else:
            valid = ", ".join(("all", *METRICS, "conll"))
            raise ValueError(f"unknown metric {name!r}; valid metrics: {valid}")
    return tuple(name for name in METRICS if name in wanted)


def score_clusters(
    key: Clusters, response: Clusters, metrics: str | Sequence[str] = "all"
) -> Scores:
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
    names = resolve_metrics(metrics)
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
        for name in names:
            score = METRIC_FUNCTIONS[name](overlap)
            totals[name] = totals[name] + score if name in totals else score
    return Scores(
        metrics={name: totals[name] for name in names} if documents else {n: _empty(n) for n in names},
        mentions=mentions,
        documents=len(documents),
        repeated_response_mentions=repeated_response,
        repeated_key_mentions=repeated_key,
        repeated_twinless_mentions=repeated_twinless,
        missing_documents=tuple(missing),
        warnings=tuple(_warnings(repeated_response, repeated_key, repeated_twinless, missing)),
    )


def _empty(name: str) -> MetricScore:
    return BlancScore.from_links(MetricScore(), MetricScore()) if name == "blanc" else MetricScore()


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


def score_files(
    key_path: str | Path, response_path: str | Path, metrics: str | Sequence[str] = "all"
) -> Scores:
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
