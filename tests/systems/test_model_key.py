"""The cross-encoder's model cache key (:func:`ucdcr.systems.parts.pair_encoder.model_key`): one key per configuration,
training examples and encoder, and per device and hardware the model trains on (a model trained on a GPU has other
weights than a CPU run would train, so it is never served to one)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from tests.conftest import require_module

from ucdcr.systems.parts.pair_encoder import (
    MarkedMention,
    PairEncoderConfig,
    TrainingExamples,
    hardware_identity,
    model_key,
)

EXAMPLES = TrainingExamples(
    [(MarkedMention((5, 1, 7, 2), 1, 3), MarkedMention((1, 8, 2, 9), 0, 2))], np.array([1], dtype=np.int8)
)
IDENTITY = "encoder files sha256:0 torch 2"
CPU = PairEncoderConfig(device="cpu")
CUDA = PairEncoderConfig(device="cuda")


@pytest.fixture
def torch():
    require_module("torch", "embed")
    import torch

    return torch


@pytest.fixture
def gpu(torch, monkeypatch: pytest.MonkeyPatch) -> None:
    """torch sees one GPU (an A100 with CUDA 12.4 and cuDNN 9.1)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "NVIDIA A100-SXM4-40GB")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index=None: (8, 0))
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    monkeypatch.setattr(torch.backends.cudnn, "version", lambda: 90100)


def _key(config: PairEncoderConfig) -> str:
    return model_key(config, EXAMPLES, IDENTITY)


def test_the_same_configuration_gives_the_same_key(torch) -> None:
    assert _key(CPU) == _key(PairEncoderConfig(device="cpu"))
    assert _key(CPU) == _key(replace(CPU, score_batch_size=8))  # scoring batches do not touch training
    # another examples list or encoder: another key
    other = TrainingExamples(EXAMPLES.pairs, np.array([0], dtype=np.int8))
    assert model_key(CPU, other, IDENTITY) != _key(CPU) != model_key(CPU, EXAMPLES, IDENTITY + "x")


def test_layer_options_give_another_key_and_unset_the_key_models_had_before_the_options(torch) -> None:
    import hashlib
    import json
    from dataclasses import asdict

    from ucdcr.systems.parts.pair_encoder import VERSION

    unset = replace(CPU, layers=None, frozen_layers=0, attention_dropout=None)
    options = (replace(unset, layers=3), replace(unset, frozen_layers=3), replace(unset, attention_dropout=0.0))
    assert len({_key(unset), *map(_key, options)}) == 4
    before = {name: value for name, value in asdict(unset).items() if name not in ("device", "score_batch_size")}
    del before["frozen_layers"], before["layers"], before["attention_dropout"]  # as before the options existed
    parts = {
        "config": before,
        "hardware": hardware_identity("cpu"),
        "encoder": IDENTITY,
        "examples": EXAMPLES.digest(),
        "version": VERSION,
    }
    assert _key(unset) == hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def test_configurations_differing_only_in_device_give_different_keys(gpu) -> None:
    assert _key(CUDA) != _key(CPU)
    # the key is by the device the model trains on: None is the GPU where torch sees one
    assert _key(PairEncoderConfig()) == _key(CUDA)
    assert hardware_identity("cuda") == "cuda NVIDIA A100-SXM4-40GB (compute capability 8.0), CUDA 12.4, cuDNN 90100"


def test_without_a_gpu_no_device_is_the_cpu(torch) -> None:
    if torch.cuda.is_available():
        pytest.skip("torch sees a GPU")
    assert _key(PairEncoderConfig()) == _key(CPU)


def test_another_gpu_or_cpu_or_thread_count_gives_another_key(torch, gpu, monkeypatch: pytest.MonkeyPatch) -> None:
    cuda, cpu = _key(CUDA), _key(CPU)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "Tesla V100-SXM2-16GB")
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index=None: (7, 0))
    assert _key(CUDA) != cuda
    capability = torch.backends.cpu.get_cpu_capability()
    assert hardware_identity("cpu").startswith(f"cpu {capability}")
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2" if capability != "AVX2" else "DEFAULT")
    assert _key(CPU) != cpu
    # the intra-op threads change the split of a matrix product's sums: part of the configuration, so of the key
    assert _key(replace(CPU, threads=1)) != _key(replace(CPU, threads=2))
