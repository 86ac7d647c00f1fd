"""Coreference scoring with the semantics of the CoNLL-2012 reference scorer v8.01, fast.

Public API (pure functions; mentions are any hashable ids, clusters are iterables of them):

- ``score_clusters(key, response, metrics="all") -> Scores``: one document (or one pseudo-document).
- ``score_documents({doc: (key, response)}, metrics="all") -> Scores``: counts summed over documents, then R/P/F1.
- ``Scores[metric]`` is a ``MetricScore`` with ``recall_num, recall_den, precision_num, precision_den`` (exact
  floats), properties ``recall``, ``precision``, ``f1`` (fractions in [0, 1]), and ``Scores.conll_f1``.
- ``truncate_percent(x)`` gives v8.01's printed percentage (``int(x*10000)/100``).

Metric names: ``muc bcub ceafm ceafe blanc lea`` (+ ``conll`` = mean of MUC, B3, CEAFe F1).

Modules: ``mentions`` (mention identification and all duplicate rules), ``metrics`` (the metric functions),
``results`` (score containers and v8.01 arithmetic), ``api`` (these entry points), ``conll`` (CoNLL-2012
reader/writer: mentions as token spans per document), ``report`` (v8.01-style text).
"""

from ucdcr.scoring.api import resolve_metrics, score_clusters, score_documents
from ucdcr.scoring.results import CONLL_METRICS, METRICS, BlancScore, MetricScore, Scores, truncate_percent

__all__ = [
    "CONLL_METRICS",
    "METRICS",
    "BlancScore",
    "MetricScore",
    "Scores",
    "resolve_metrics",
    "score_clusters",
    "score_documents",
    "truncate_percent",
]
