"""Coreference scoring with the semantics of the CoNLL-2012 reference scorer v8.01, fast.

Public API (pure functions; mentions are any hashable ids, clusters are iterables of them):

- ``score_clusters(key, response, metrics="all") -> Scores``: one document (or one pseudo-document).
- ``score_documents({doc: (key, response)}, metrics="all") -> Scores``: counts summed over documents, then R/P/F1.
- ``score_files(key_path, response_path, metrics="all") -> Scores``: two CoNLL-2012 files, documents matched by name.
- ``Scores[metric]`` is a ``MetricScore`` with ``recall_num, recall_den, precision_num, precision_den`` (exact
  floats), properties ``recall``, ``precision``, ``f1`` (fractions in [0, 1]) and ``recall_percent``,
  ``precision_percent``, ``f1_percent`` (the percentages the tables print); ``Scores.conll_f1`` (a fraction) and
  ``Scores.conll_f1_percent``.
- ``truncate_percent(x)`` gives v8.01's printed percentage (``int(x*10000)/100``).

The metrics are the rows of :data:`METRIC_TABLE` (``muc bcub ceafm ceafe blanc lea``; ``conll`` selects the three
the CoNLL F1 averages, :data:`CONLL`): each row names its function and how every output spells it.

Modules: ``mentions`` (mention identification and all duplicate rules), ``metrics`` (the metric functions and the
metric table), ``metric_score`` (a metric's counts and v8.01 arithmetic), ``scores`` (these entry points and
``Scores``), ``v801_text`` (v8.01-style text), ``bootstrap`` (confidence intervals). CoNLL-2012 files are read and
written by :mod:`ucdcr.formats.conll2012`.
"""

from ucdcr.scoring.metric_score import BlancScore, MetricScore, truncate_percent
from ucdcr.scoring.metrics import CONLL, CONLL_METRICS, METRIC_TABLE, METRICS, Metric
from ucdcr.scoring.scores import Scores, resolve_metrics, score_clusters, score_documents, score_files

__all__ = [
    "CONLL",
    "CONLL_METRICS",
    "METRICS",
    "METRIC_TABLE",
    "BlancScore",
    "Metric",
    "MetricScore",
    "Scores",
    "resolve_metrics",
    "score_clusters",
    "score_documents",
    "score_files",
    "truncate_percent",
]
