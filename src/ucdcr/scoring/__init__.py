"""Coreference scoring with the semantics of the CoNLL-2012 reference scorer v8.01, fast.

Public API (pure functions; mentions are any hashable ids, clusters are iterables of them):

- ``score_clusters(key, response, metrics=ALL) -> Scores``: one document (or one pseudo-document).
- ``score_documents({doc: (key, response)}, metrics=ALL) -> Scores``: counts summed over documents, then R/P/F1.
- ``Scores[metric]`` is a ``MetricScore`` with ``recall_num, recall_den, precision_num, precision_den`` (exact
  floats), properties ``recall``, ``precision``, ``f1`` (fractions in [0, 1]), and ``Scores.conll_f1``.
- ``truncate_percent(x)`` gives v8.01's printed percentage (``int(x*10000)/100``).

Metric names: ``muc bcub ceafm ceafe blanc lea`` (+ ``conll`` = mean of MUC, B3, CEAFe F1).
"""
