"""ucdcr: unified cross-document coreference resolution (CDCR) datasets.

Build the 12 uCDCR corpora from their original files into one validated format, analyse them, run the
same-head-lemma baseline, and score coreference like the CoNLL-2012 reference scorer, fast.
"""

from __future__ import annotations

__version__ = "0.1.0"
