"""What a benchmark run computes with beyond the systems' code, each named by an identity string: the lemmatiser
(:func:`lemmatizer_identity`), the encoder (:func:`encoder_identity`) and the hardware an encoder system trains on
(:func:`hardware_identity`).

They key the stored results (:mod:`ucdcr.systems.framework.store`: the lemmatiser in every key, the encoder and the
hardware in those of systems that need the encoder) and, with the parts' own versions added, the parts' caches (the
lemmas of :mod:`ucdcr.systems.parts.lemmas`, the vectors of :mod:`ucdcr.systems.parts.vectors`, the models of
:mod:`ucdcr.systems.parts.pair_encoder`). They are defined here, under both, so that the framework imports no
part. A part's version needs no place in a stored result's key: it is in the part's source, which is in the
identity of every system that imports the part (:mod:`ucdcr.systems.framework.identity`).
"""

from __future__ import annotations

from typing import Any

from ucdcr.errors import UcdcrError

CPU_UNITS = (("avx512_bf16", "_is_avx512_bf16_supported"), ("amx", "_is_amx_tile_supported"))
"""The BF16 units of a CPU (the name in :func:`hardware_identity`, torch.cpu's probe): bfloat16 autocast runs on
them where present."""


def lemmatizer_identity() -> str:
    """What lemmatises: spaCy's version and the name and version of the model
    :func:`~ucdcr.pipeline.nlp.load_nlp` loads (read from its package, not loaded; ``missing`` when there is none),
    e.g. ``"spacy 3.8.7 en_core_web_sm 3.8.0"``."""
    from ucdcr.pipeline.nlp import model_info

    try:
        info = model_info()
    except (ImportError, UcdcrError):
        info = {}
    model = f"{info['model']} {info['model_version']}" if info else "model missing"
    return f"spacy {info.get('spacy', 'missing')} {model}"


def encoder_identity() -> str:
    """What encodes: the MiniLM encoder's files and libraries (:func:`ucdcr.embed.encoder_identity`) and numpy's
    version."""
    import numpy as np

    from ucdcr.embed import encoder_identity as files_and_libraries

    return f"{files_and_libraries()} numpy {np.__version__}"


def require_torch() -> Any:
    """torch (its OpenMP threads told to sleep while waiting: :func:`ucdcr.embed.prepare_openmp`), or the ``embed``
    extra's error."""
    from ucdcr.embed import prepare_openmp

    prepare_openmp()
    try:
        import torch
    except ImportError:
        from ucdcr.embed import require_sentence_encoder

        require_sentence_encoder()
        raise
    return torch


def default_device() -> str:
    """The device an encoder system trains on when its configuration names none: ``cuda`` where torch sees a GPU,
    else ``cpu``."""
    return "cuda" if require_torch().cuda.is_available() else "cpu"


def hardware_identity(device: str) -> str:
    """The device a model trains on (``cpu`` or ``cuda``) and what decides its arithmetic there (the same
    configuration and examples give other weights on other hardware): on a CPU the vector instruction set torch's
    kernels dispatch to (``torch.backends.cpu.get_cpu_capability()``, e.g. ``AVX2``, ``AVX512``) and the BF16 units
    present (:data:`CPU_UNITS`); on a GPU its name, compute capability and the CUDA and cuDNN versions. The
    intra-op threads (the split of a matrix product's sums) are a model's configuration."""
    torch = require_torch()
    if device == "cuda":
        index = torch.cuda.current_device()
        major, minor = torch.cuda.get_device_capability(index)
        return (
            f"cuda {torch.cuda.get_device_name(index)} (compute capability {major}.{minor}), "
            f"CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}"
        )
    units = [name for name, probe in CPU_UNITS if getattr(torch.cpu, probe, lambda: False)()]
    return f"cpu {torch.backends.cpu.get_cpu_capability()}{''.join(f' +{unit}' for unit in units)}"
