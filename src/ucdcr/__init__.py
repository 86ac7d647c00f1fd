"""ucdcr: unified cross-document coreference resolution (CDCR) datasets.

Build the 12 uCDCR corpora from their original files into one validated format, analyse them, run the
same-head-lemma baseline, and score coreference like the CoNLL-2012 reference scorer, fast.

Public API: :func:`load` (a built dataset as a ``pyarrow.Table``), :func:`datasets` (the dataset ids),
:func:`dataset_dir`, :func:`sample_dir` (the raw dir of the ECB+ sample shipped inside the package, which
``ucdcr demo`` builds); scoring in :mod:`ucdcr.scoring` (``score_clusters``, ``score_documents``).
Heavy modules are imported on first use, so ``import ucdcr`` is instant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "dataset_dir", "datasets", "load", "sample_dir"]

if TYPE_CHECKING:
    from ucdcr.api import dataset_dir, datasets, load
    from ucdcr.demo import sample_dir


def __getattr__(name: str) -> Any:
    if name in {"load", "datasets", "dataset_dir"}:
        from ucdcr import api

        return getattr(api, name)
    if name == "sample_dir":
        from ucdcr.demo import sample_dir

        return sample_dir
    raise AttributeError(f"module 'ucdcr' has no attribute {name!r}")
