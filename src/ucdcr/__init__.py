"""ucdcr: unified cross-document coreference resolution (CDCR) datasets.

Build the 12 uCDCR corpora from their original files into one validated format, analyse them, run the
same-head-lemma baseline, and score coreference like the CoNLL-2012 reference scorer, fast.

Public API (:mod:`ucdcr.api` unless said otherwise):

- :func:`build`: build datasets from their raw files; returns the build report(s).
- :func:`list_datasets`: the dataset ids (all, or those built in a data dir); :func:`dataset_dir`: a built
  dataset's folder; :func:`load`: a built dataset as a ``pyarrow.Table`` (mentions or tokens).
- :func:`stats_tables`, :func:`diversity_tables`, :func:`baseline_tables`, :func:`evaluate`: the tables of
  ``ucdcr stats``, ``diversity``, ``baseline`` and ``evaluate``; :func:`benchmark`: CDCR systems fitted, tuned and
  scored on every dataset (``ucdcr benchmark``); :func:`forget_benchmark_runs`: remove a system's stored runs.
- :func:`load_hf` (:mod:`ucdcr.export.huggingface`, ``hf`` extra): a built dataset as a Hugging Face ``DatasetDict``;
  :func:`to_spacy_docs` (:mod:`ucdcr.export.spacy_docs`): its documents as spaCy ``Doc`` objects with the chains as
  span groups.
- :func:`score_files` (:mod:`ucdcr.scoring.scores`): score a CoNLL-2012 response file against a key file;
  ``score_clusters`` and ``score_documents`` are in :mod:`ucdcr.scoring`.
- :func:`sample_dir` (:mod:`ucdcr.demo`): the raw dir of the ECB+ sample shipped inside the package, which
  ``ucdcr demo`` builds.

No public name equals a subpackage or module name: ``ucdcr.datasets`` is the subpackage of dataset declarations
(the dataset ids are :func:`list_datasets`). Heavy modules are imported on first use, so ``import ucdcr`` is
instant: the functions above (one table, :data:`_PUBLIC`: name -> module, from which ``__all__``, ``dir(ucdcr)`` and
the lookup derive), and the submodules (``ucdcr.scoring``, ``ucdcr.registry``...), are looked up on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ucdcr.version import __version__ as __version__

_PUBLIC: dict[str, str] = {
    "baseline_tables": "ucdcr.api",
    "benchmark": "ucdcr.api",
    "benchmark_tables": "ucdcr.api",
    "build": "ucdcr.api",
    "dataset_dir": "ucdcr.api",
    "diversity_tables": "ucdcr.api",
    "evaluate": "ucdcr.api",
    "forget_benchmark_runs": "ucdcr.api",
    "list_datasets": "ucdcr.api",
    "load": "ucdcr.api",
    "load_hf": "ucdcr.export.huggingface",
    "sample_dir": "ucdcr.demo",
    "score_files": "ucdcr.scoring.scores",
    "stats_tables": "ucdcr.api",
    "to_spacy_docs": "ucdcr.export.spacy_docs",
}
"""Every public function: name -> the module that holds it (imported on first access)."""

__all__ = ["__version__"] + list(_PUBLIC)  # noqa: RUF005 (a list of strings, which PLE0604 cannot see in a starred dict)

if TYPE_CHECKING:  # the same names for type checkers, which do not run __getattr__ (tests/test_api.py: the same)
    from ucdcr.api import baseline_tables as baseline_tables
    from ucdcr.api import benchmark as benchmark
    from ucdcr.api import benchmark_tables as benchmark_tables
    from ucdcr.api import build as build
    from ucdcr.api import dataset_dir as dataset_dir
    from ucdcr.api import diversity_tables as diversity_tables
    from ucdcr.api import evaluate as evaluate
    from ucdcr.api import forget_benchmark_runs as forget_benchmark_runs
    from ucdcr.api import list_datasets as list_datasets
    from ucdcr.api import load as load
    from ucdcr.api import stats_tables as stats_tables
    from ucdcr.demo import sample_dir as sample_dir
    from ucdcr.export.huggingface import load_hf as load_hf
    from ucdcr.export.spacy_docs import to_spacy_docs as to_spacy_docs
    from ucdcr.scoring.scores import score_files as score_files


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    if not name.startswith("_"):
        try:
            return importlib.import_module(f"{__name__}.{name}")  # binds the attribute, so this runs once
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
